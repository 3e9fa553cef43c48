//! Separating-axis tests: cuboid against cuboid, and any pair with a convex hull.

pub(super) mod cuboid;
pub(super) mod hull;
