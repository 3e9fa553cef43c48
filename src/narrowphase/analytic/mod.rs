//! Closed-form tests for pairs of spheres, capsules and boxes.

pub mod capsule;
pub mod sphere;
