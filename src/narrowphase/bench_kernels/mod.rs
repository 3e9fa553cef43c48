//! Kernels the step does not call: the batch pair tests in structure-of-arrays layout and the
//! boolean GJK for two hulls of at most 8 vertices, with the GJK pieces the benches and tests
//! compare them against.

pub mod batch;
pub mod hull8;

pub use super::gjk::boolean::intersect_gjk_warm;
pub use super::gjk::closest::{MinkowskiPair, gjk};
