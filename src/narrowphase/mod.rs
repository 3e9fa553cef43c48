//! Narrow phase: exact tests on candidate pairs. Functions are named
//! `operation_shape1_shape2`; each returns answers oriented from shape 1 to shape 2.
//!
//! One folder per algorithm: `analytic/` (closed forms for spheres and capsules), `sat/`
//! (separating axes for cuboids and hulls), `gjk/` (distance, boolean and ray GJK),
//! `epa/` (penetration depth), `clip/` (manifolds by clipping support features); `dispatch`
//! picks the test for a pair of shapes and a method, `manifold` holds the answer, `explain`
//! records how it was reached for the app's teaching views; `mesh/` answers convex shapes
//! against triangle meshes and height fields. [`batch`] holds batch pair tests over arrays
//! of pairs (structure-of-arrays layout) that the step does not call; the benches and tests
//! run them.

mod analytic;
pub mod batch;
mod clip;
pub mod compound;
mod dispatch;
mod epa;
mod explain;
mod gjk;
mod manifold;
pub mod mesh;
mod sat;

pub use analytic::capsule::{
    closest_segment_box, contact_capsule_capsule, contact_cuboid_capsule, contact_sphere_capsule,
    intersect_capsule_capsule, intersect_cuboid_capsule, intersect_sphere_capsule,
};
pub use analytic::sphere::{
    closest_point_cuboid, contact_sphere_cuboid, contact_sphere_sphere, intersect_sphere_aabb, intersect_sphere_cuboid,
    intersect_sphere_sphere,
};
pub use dispatch::{
    contact, contact_analytic, contact_gjk, contact_manifolds_with_edges, contact_with_edges, contact_with_rotations,
    distance_analytic, intersect, intersect_analytic,
};
pub use explain::{PairTrace, explain, explain_with_edges};
pub use gjk::boolean::intersect_gjk_warm;
pub use gjk::closest::{MinkowskiPair, gjk};
pub use gjk::distance::{DistanceResult, GjkEpaTrace, distance, distance_traced, intersect_gjk};
pub(crate) use gjk::near_part::near_part_within;
pub use gjk::ray::ray_cast_gjk;
pub use manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
pub use mesh::{MeshRef, closest_segment_triangle, contact_mesh_shape, contact_shape_triangle};
pub use sat::cuboid::{
    SatAxis, SatAxisKind, SatTrace, contact_cuboid_cuboid, contact_cuboid_cuboid_rotated, contact_cuboid_cuboid_traced,
    intersect_cuboid_cuboid,
};
pub use sat::hull::{
    closest_point_hull, contact_capsule_hull, contact_cuboid_hull, contact_hull_hull, contact_sphere_hull,
    intersect_capsule_hull, intersect_cuboid_hull, intersect_hull_hull, intersect_sphere_hull,
};

use crate::math::Real;
use serde::{Deserialize, Serialize};

/// Which family of algorithms answers pair tests.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NarrowPhaseKind {
    /// Closed-form tests and SAT with clipped manifolds.
    #[default]
    Analytic,
    /// GJK for distance and overlap, EPA for depth, manifolds clipped from the support features.
    Gjk,
}

impl NarrowPhaseKind {
    /// Both methods, in the order the app and the CLI list them.
    pub const ALL: &'static [NarrowPhaseKind] = &[NarrowPhaseKind::Analytic, NarrowPhaseKind::Gjk];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            NarrowPhaseKind::Analytic => "analytic",
            NarrowPhaseKind::Gjk => "gjk",
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

/// The one touching rule: a squared core distance `dist2` touches at reach `r` (sum of radii,
/// plus any margin) when `dist2 <= r² + eps`, as in the sphere–box reference article.
#[inline]
pub fn touching(dist2: Real, r: Real, eps: Real) -> bool {
    dist2 <= r * r + eps
}

/// A gap along a separating axis proves the pair apart at reach `r` by the same rule.
#[inline]
pub fn apart(gap: Real, r: Real, eps: Real) -> bool {
    gap > r && !touching(gap * gap, r, eps)
}
