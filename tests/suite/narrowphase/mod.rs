//! Narrow phase: the exact f64 reference, cross-checks between methods, edge cases, lessons,
//! ray casts and the batch kernels.

mod batch;
mod crosscheck;
mod edges;
pub mod exact;
mod lessons;
mod mesh;
mod mesh_edges;
mod raycast;
mod reference;
mod whole_runs;
