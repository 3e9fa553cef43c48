//! Bodies, the sequential-impulse contact solver, joints and integration.

mod body;
pub mod joints;
mod rotations;
pub mod solver;

pub use body::{Body, BodyKind, Material};
pub use rotations::Rotations;
