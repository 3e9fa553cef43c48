//! Teaching traces: everything the app needs to show how a pair's answer was reached.

use super::clip::ClipTrace;
use super::dispatch::{contact_analytic, contact_gjk};
use super::epa::EpaSnapshot;
use super::gjk::closest::MinkowskiPair;
use super::gjk::distance::{DistanceResult, GjkEpaTrace, distance_traced};
use super::mesh::InternalEdges;
use super::sat::cuboid::{SatTrace, contact_cuboid_cuboid_traced};
use super::sat::hull::{contact_capsule_hull, contact_cuboid_hull, contact_hull_hull};
use super::{Manifold, NarrowPhaseKind, Tolerance};
use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};

/// How the narrow phase answered one pair. Minkowski-difference quantities (`minkowski`,
/// `gjk_simplices`, `epa`) are points `a - b` in world orientation about the origin; SAT axes
/// and clip stages are in world space.
#[derive(Clone, Debug, Default)]
pub struct PairTrace {
    /// The method that answered.
    pub method: NarrowPhaseKind,
    /// The traces below were taken with the shapes in canonical order (B first): the manifold
    /// and distance are already mirrored back to A → B.
    pub swapped: bool,
    /// The contact, if the shapes touch within the margin.
    pub manifold: Option<Manifold>,
    /// A mesh pair's further manifolds, one per other direction its triangles push (a shape
    /// across a crease); empty for other pairs.
    pub more: Vec<Manifold>,
    /// The distance result, when the method computed one.
    pub distance: Option<DistanceResult>,
    /// Points of the Minkowski difference's boundary (every vertex pair for polytopes, sampled
    /// support points for rounded shapes); their convex hull is the difference.
    pub minkowski: Vec<Vec3>,
    /// GJK's simplex after each iteration.
    pub gjk_simplices: Vec<Vec<Vec3>>,
    /// EPA's polytope after each iteration.
    pub epa: Vec<EpaSnapshot>,
    /// SAT axes with their separations and the winner (analytic method, box and hull pairs).
    pub sat: Option<SatTrace>,
    /// The manifold's clipping stages, when it was built by clipping.
    pub clip: ClipTrace,
}

/// Runs `method` on the pair and records every intermediate step (a mesh pair with the
/// default internal-edge mode: [`explain_with_edges`] takes the world's).
pub fn explain(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, tol: Tolerance, method: NarrowPhaseKind) -> PairTrace {
    explain_with_edges(a, pa, b, pb, tol, method, InternalEdges::default())
}

/// [`explain`] with the internal-edge mode a mesh or compound pair's contacts are made with, as
/// the world makes them: a mesh pair's manifolds are those of [`super::mesh::contact_pair_manifolds`].
pub fn explain_with_edges(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> PairTrace {
    // A mesh or compound pair has no Minkowski difference or GJK run to show: only its
    // manifolds, as the world makes them.
    if a.is_compound() || b.is_compound() || a.is_mesh() || b.is_mesh() {
        let all = super::dispatch::contact_manifolds_with_edges(a, pa, b, pb, tol, method, edges);
        let (manifold, more) = (all.first().copied(), all.as_slice().iter().skip(1).copied().collect());
        return PairTrace { method, manifold, more, ..Default::default() };
    }
    if a.kind() > b.kind() {
        let mut t = explain(b, pb, a, pa, tol, method);
        t.swapped = true;
        t.manifold = t.manifold.map(Manifold::flipped);
        t.distance = t.distance.map(DistanceResult::swapped);
        return t;
    }
    let mut t = PairTrace { method, ..Default::default() };
    let rot = pa.rotation;
    let mut ge = GjkEpaTrace::default();
    t.distance = Some(distance_traced(a, pa, b, pb, Some(&mut ge)));
    t.gjk_simplices = ge.gjk.iter().map(|s| s.points().iter().map(|p| rot * p.w).collect()).collect();
    t.epa = ge
        .epa
        .into_iter()
        .map(|mut s| {
            s.vertices.iter_mut().for_each(|v| *v = rot * *v);
            s
        })
        .collect();
    t.minkowski = minkowski_points(a, pa, b, pb);
    t.manifold = match method {
        NarrowPhaseKind::Gjk => contact_gjk(a, pa, b, pb, tol, None, Some(&mut t.clip)),
        NarrowPhaseKind::Analytic => {
            let mut sat = SatTrace::default();
            let m = match (a, b) {
                (Shape::Cuboid(x), Shape::Cuboid(y)) => contact_cuboid_cuboid_traced(x, pa, y, pb, tol, Some(&mut sat)),
                (Shape::Cuboid(x), Shape::ConvexHull(y)) => contact_cuboid_hull(x, pa, y, pb, tol, Some(&mut sat)),
                (Shape::ConvexHull(x), Shape::ConvexHull(y)) => contact_hull_hull(x, pa, y, pb, tol, Some(&mut sat)),
                // The segment's exact distance to the hull, SAT once it enters (the world takes GJK).
                (Shape::Capsule(x), Shape::ConvexHull(y)) => contact_capsule_hull(x, pa, y, pb, tol),
                _ => contact_analytic(a, pa, b, pb, tol),
            };
            if !sat.axes.is_empty() {
                t.clip = std::mem::take(&mut sat.clip);
                t.sat = Some(sat);
            }
            m
        }
    };
    t
}

/// Boundary points of `A - B` in world orientation.
pub(super) fn minkowski_points(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Vec<Vec3> {
    let pair = MinkowskiPair::new(a, pa, b, pb);
    let corners = |s: &Shape, p: &Pose| -> Option<Vec<Vec3>> {
        match s {
            Shape::Cuboid(c) => Some(
                (0..8)
                    .map(|i| {
                        let h = c.half_extents;
                        let f = |bit: usize, k: usize| if i & bit == 0 { -h[k] } else { h[k] };
                        p.transform_point(Vec3::new(f(1, 0), f(2, 1), f(4, 2)))
                    })
                    .collect(),
            ),
            Shape::ConvexHull(h) => Some(h.vertices().iter().map(|&v| p.transform_point(v)).collect()),
            _ => None,
        }
    };
    if let (Some(va), Some(vb)) = (corners(a, pa), corners(b, pb)) {
        return va.iter().flat_map(|&x| vb.iter().map(move |&y| x - y)).collect();
    }
    // Rounded shapes: support points along a Fibonacci sphere of directions.
    const N: usize = 256;
    let golden = std::f32::consts::PI * (3.0 - (5.0 as Real).sqrt());
    (0..N)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as Real + 0.5) / N as Real;
            let r = (1.0 - y * y).sqrt();
            let phi = golden * i as Real;
            let d = Vec3::new(r * phi.cos(), y, r * phi.sin());
            pa.rotation * pair.support_rounded(d, pair.radius_a, pair.radius_b).w
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn traces_fill_for_both_methods() {
        let c = Shape::cuboid(Vec3::splat(0.5));
        let pb = Pose::new(Vec3::new(0.2, 0.9, 0.1), Quat::from_rotation_y(0.3));
        let tol = Tolerance { margin: 0.0, epsilon: 1e-6 };
        let t = explain(&c, &Pose::IDENTITY, &c, &pb, tol, NarrowPhaseKind::Analytic);
        assert!(t.manifold.is_some() && t.sat.as_ref().is_some_and(|s| s.chosen.is_some()));
        assert_eq!(t.minkowski.len(), 64);
        assert!(!t.gjk_simplices.is_empty() && !t.epa.is_empty());
        let t = explain(&c, &Pose::IDENTITY, &c, &pb, tol, NarrowPhaseKind::Gjk);
        assert!(t.manifold.is_some() && !t.clip.stages.is_empty());
        // Swapped kinds: traces in canonical order, answer mirrored.
        let s = Shape::sphere(0.5);
        let t = explain(&c, &Pose::IDENTITY, &s, &Pose::from_translation(Vec3::Y * 0.9), tol, NarrowPhaseKind::Gjk);
        assert!(t.swapped && t.manifold.unwrap().normal.y > 0.9);
        let t = explain(&s, &Pose::from_translation(Vec3::Y * 0.9), &c, &Pose::IDENTITY, tol, NarrowPhaseKind::Gjk);
        assert!(!t.swapped);
        let cap = Shape::capsule(0.5, 0.2);
        let t = explain(&cap, &Pose::from_translation(Vec3::Y * 0.9), &c, &Pose::IDENTITY, tol, NarrowPhaseKind::Gjk);
        assert!(t.swapped);
        assert!(t.manifold.unwrap().normal.y < -0.9);
    }
}
