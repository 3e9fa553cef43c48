//! Separating-axis tests: cuboid against cuboid, and any pair with a convex hull.

pub mod cuboid;
pub mod hull;
