//! The world: physical checks, picking, and the same bits on any number of threads.

mod mesh_layer;
mod pair_cache;
mod parallel_hash;
mod physics;
mod picking;
