//! Bodies, the sequential-impulse contact solver and integration.

mod body;
pub mod solver;

pub use body::{Body, BodyKind, Material};
