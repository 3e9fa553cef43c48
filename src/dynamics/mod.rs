//! Bodies, the sequential-impulse contact solver and integration.

mod body;
mod rotations;
pub mod solver;

pub use body::{Body, BodyKind, Material};
pub use rotations::Rotations;
