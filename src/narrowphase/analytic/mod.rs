//! Closed-form tests for pairs of spheres, capsules and boxes.

pub(super) mod capsule;
pub(super) mod sphere;
