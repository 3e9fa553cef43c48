//! Narrow phase: exact tests on candidate pairs. Functions are named
//! `operation_shape1_shape2`; each returns answers oriented from shape 1 to shape 2.

mod box_box;
pub mod clip;
mod manifold;
pub mod segment;
mod sphere;

pub use box_box::{
    SatAxis, SatAxisKind, SatTrace, contact_cuboid_cuboid, contact_cuboid_cuboid_traced, intersect_cuboid_cuboid,
};
pub use manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
pub use sphere::{
    closest_point_cuboid, contact_sphere_cuboid, contact_sphere_sphere, intersect_sphere_cuboid,
    intersect_sphere_sphere,
};

use crate::geometry::Shape;
use crate::math::{Pose, Real};
use serde::{Deserialize, Serialize};

/// Which family of algorithms answers pair tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NarrowPhaseKind {
    /// Closed-form tests and SAT with clipped manifolds.
    #[default]
    Analytic,
}

impl NarrowPhaseKind {
    pub const ALL: &'static [NarrowPhaseKind] = &[NarrowPhaseKind::Analytic];

    pub fn cli_name(self) -> &'static str {
        match self {
            NarrowPhaseKind::Analytic => "analytic",
        }
    }
}

/// How near counts as touching.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Shapes closer than this get (speculative) contact points, m.
    pub margin: Real,
    /// Slack of squared-distance comparisons, `d² <= r² + epsilon`, m².
    pub epsilon: Real,
}

/// The contact manifold between two posed shapes, oriented from `a` to `b`, or `None` when they
/// are farther apart than `tol.margin`. `Err` names a pair the chosen method cannot handle.
pub fn contact(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    _method: NarrowPhaseKind,
) -> Option<Manifold> {
    match (a, b) {
        (Shape::Sphere(sa), Shape::Sphere(sb)) => contact_sphere_sphere(sa, pa, sb, pb, tol),
        (Shape::Sphere(s), Shape::Cuboid(c)) => contact_sphere_cuboid(s, pa, c, pb, tol),
        (Shape::Cuboid(c), Shape::Sphere(s)) => contact_sphere_cuboid(s, pb, c, pa, tol).map(Manifold::flipped),
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => contact_cuboid_cuboid(ca, pa, cb, pb, tol),
        _ => None,
    }
}
