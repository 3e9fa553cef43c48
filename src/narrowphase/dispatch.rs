//! Dispatch on the pair of shape kinds, for both methods. Swapped pairs reuse the canonical
//! order (sphere, cuboid, capsule, hull) and mirror the answer.

use super::analytic::capsule::{
    contact_capsule_capsule, contact_cuboid_capsule, contact_sphere_capsule, intersect_capsule_capsule,
    intersect_cuboid_capsule, intersect_sphere_capsule,
};
use super::analytic::sphere::{
    contact_sphere_cuboid, contact_sphere_sphere, intersect_sphere_cuboid, intersect_sphere_sphere,
};
use super::clip::ClipTrace;
use super::clip::features::{manifold_from_features, support_feature};
use super::gjk::closest::{MinkowskiPair, gjk};
use super::gjk::distance::{GjkEpaTrace, local_distance};
use super::manifold::ContactPoint;
use super::mesh::InternalEdges;
use super::sat::cuboid::{contact_cuboid_cuboid, contact_cuboid_cuboid_rotated, intersect_cuboid_cuboid};
use super::sat::hull::{contact_sphere_hull, intersect_sphere_hull};
use super::{Manifold, NarrowPhaseKind, Tolerance, intersect_gjk, touching};
use crate::geometry::Shape;
use crate::math::{Pose, Real};
use glam::Mat3A;

/// The contact manifold between two posed shapes, oriented from `a` to `b`, or `None` when they
/// are farther apart than `tol.margin`.
pub fn contact(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
) -> Option<Manifold> {
    contact_with_edges(a, pa, b, pb, tol, method, InternalEdges::default())
}

/// [`contact_with_edges`] with every manifold of a mesh or compound pair (one per direction its
/// triangles or child contacts push: [`super::mesh::contact_pair_manifolds`],
/// [`super::compound::contact_pair_manifolds`]); at most one for any other pair. What the
/// world's narrow phase keeps for a mesh or compound pair, and what the pair panel shows.
pub fn contact_manifolds_with_edges(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> super::mesh::MeshManifolds {
    if a.is_compound() || b.is_compound() {
        return super::compound::contact_pair_manifolds(a, pa, b, pb, tol, method, edges);
    }
    if a.is_mesh() || b.is_mesh() {
        return super::mesh::contact_pair_manifolds(a, pa, b, pb, tol, edges);
    }
    super::mesh::MeshManifolds::one(contact_with_edges(a, pa, b, pb, tol, method, edges))
}

/// [`contact`] for any pair, with the internal edges of a mesh (on either side, or under a
/// compound) treated as `edges` says: what the world's narrow phase and its time-of-impact
/// response use.
pub fn contact_with_edges(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> Option<Manifold> {
    if a.is_compound() || b.is_compound() {
        return super::compound::contact_pair(a, pa, b, pb, tol, method, edges);
    }
    if a.is_mesh() || b.is_mesh() {
        return super::mesh::contact_pair_with(a, pa, b, pb, tol, edges);
    }
    match method {
        NarrowPhaseKind::Analytic => contact_analytic(a, pa, b, pb, tol),
        NarrowPhaseKind::Gjk => contact_gjk(a, pa, b, pb, tol, None, None),
    }
}

/// [`contact`] given each pose's rotation matrix, `Mat3A::from_quat(pose.rotation)`, from
/// `rotations`, which only the pairs that read them call (analytic box–box): the world builds
/// each body's once per step instead of once per pair. Same answer, bit for bit.
pub fn contact_with_rotations<'m>(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    rotations: impl FnOnce() -> (&'m Mat3A, &'m Mat3A),
    tol: Tolerance,
    method: NarrowPhaseKind,
) -> Option<Manifold> {
    match (method, a, b) {
        (NarrowPhaseKind::Analytic, Shape::Cuboid(x), Shape::Cuboid(y)) => {
            let (ma, mb) = rotations();
            contact_cuboid_cuboid_rotated(x, pa, ma, y, pb, mb, tol)
        }
        _ => contact(a, pa, b, pb, tol, method),
    }
}

/// Whether two posed shapes touch (`d² <= r² + eps`).
pub fn intersect(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, method: NarrowPhaseKind) -> bool {
    if a.is_compound() || b.is_compound() {
        return super::compound::intersect_pair(a, pa, b, pb, eps, method);
    }
    if a.is_mesh() || b.is_mesh() {
        return super::mesh::intersect_pair(a, pa, b, pb, eps);
    }
    match method {
        NarrowPhaseKind::Analytic => intersect_analytic(a, pa, b, pb, eps),
        NarrowPhaseKind::Gjk => intersect_gjk(a, pa, b, pb, eps),
    }
}

/// Closed forms and SAT, one function per pair kind.
pub fn contact_analytic(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    use Shape::*;
    match (a, b) {
        (Compound(_), _) | (_, Compound(_)) => {
            super::compound::contact_pair(a, pa, b, pb, tol, NarrowPhaseKind::Analytic, Default::default())
        }
        (TriangleMesh(_) | HeightField(_), _) | (_, TriangleMesh(_) | HeightField(_)) => {
            super::mesh::contact_pair(a, pa, b, pb, tol)
        }
        (Sphere(x), Sphere(y)) => contact_sphere_sphere(x, pa, y, pb, tol),
        (Sphere(x), Cuboid(y)) => contact_sphere_cuboid(x, pa, y, pb, tol),
        (Sphere(x), Capsule(y)) => contact_sphere_capsule(x, pa, y, pb, tol),
        (Sphere(x), ConvexHull(y)) => contact_sphere_hull(x, pa, y, pb, tol),
        (Cuboid(x), Cuboid(y)) => contact_cuboid_cuboid(x, pa, y, pb, tol),
        (Cuboid(x), Capsule(y)) => contact_cuboid_capsule(x, pa, y, pb, tol),
        // Box–hull, capsule–hull and hull–hull go through GJK/EPA and feature clipping: as exact
        // as SAT over every face and edge pair (or the segment against every face and edge), and
        // several times cheaper (docs/narrowphase.md).
        (Cuboid(_), ConvexHull(_)) | (Capsule(_), ConvexHull(_)) | (ConvexHull(_), ConvexHull(_)) => {
            contact_gjk(a, pa, b, pb, tol, None, None)
        }
        (Capsule(x), Capsule(y)) => contact_capsule_capsule(x, pa, y, pb, tol),
        (Cuboid(_), Sphere(_))
        | (Capsule(_), Sphere(_))
        | (ConvexHull(_), Sphere(_))
        | (Capsule(_), Cuboid(_))
        | (ConvexHull(_), Cuboid(_))
        | (ConvexHull(_), Capsule(_)) => contact_analytic(b, pb, a, pa, tol).map(Manifold::flipped),
    }
}

/// Whether two shapes touch, by the closed forms and SAT (the analytic method).
pub fn intersect_analytic(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    use Shape::*;
    match (a, b) {
        (Compound(_), _) | (_, Compound(_)) => {
            super::compound::intersect_pair(a, pa, b, pb, eps, NarrowPhaseKind::Analytic)
        }
        (TriangleMesh(_) | HeightField(_), _) | (_, TriangleMesh(_) | HeightField(_)) => {
            super::mesh::intersect_pair(a, pa, b, pb, eps)
        }
        (Sphere(x), Sphere(y)) => intersect_sphere_sphere(x, pa, y, pb, eps),
        (Sphere(x), Cuboid(y)) => intersect_sphere_cuboid(x, pa, y, pb, eps),
        (Sphere(x), Capsule(y)) => intersect_sphere_capsule(x, pa, y, pb, eps),
        (Sphere(x), ConvexHull(y)) => intersect_sphere_hull(x, pa, y, pb, eps),
        (Cuboid(x), Cuboid(y)) => intersect_cuboid_cuboid(x, pa, y, pb, eps),
        (Cuboid(x), Capsule(y)) => intersect_cuboid_capsule(x, pa, y, pb, eps),
        (Cuboid(_), ConvexHull(_)) | (Capsule(_), ConvexHull(_)) | (ConvexHull(_), ConvexHull(_)) => {
            intersect_gjk(a, pa, b, pb, eps)
        }
        (Capsule(x), Capsule(y)) => intersect_capsule_capsule(x, pa, y, pb, eps),
        (Cuboid(_), Sphere(_))
        | (Capsule(_), Sphere(_))
        | (ConvexHull(_), Sphere(_))
        | (Capsule(_), Cuboid(_))
        | (ConvexHull(_), Cuboid(_))
        | (ConvexHull(_), Capsule(_)) => intersect_analytic(b, pb, a, pa, eps),
    }
}

/// GJK (stopping early once the pair is proven farther apart than the margin), EPA when the
/// cores overlap, then the manifold from the features along the normal.
pub fn contact_gjk(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    mut trace: Option<&mut GjkEpaTrace>,
    clip: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    if a.is_compound() || b.is_compound() {
        return super::compound::contact_pair(a, pa, b, pb, tol, NarrowPhaseKind::Gjk, Default::default());
    }
    if a.is_mesh() || b.is_mesh() {
        return super::mesh::contact_pair(a, pa, b, pb, tol);
    }
    // A floor or wall many times larger than the other shape is measured by its part near that
    // shape, as `distance` does: on a 24 m floor, f32 GJK stops with a normal 8° off for a hull
    // 0.2 mm above it, and the contact pushes along that tilt (A only without a trace, whose
    // drawing is in A's frame).
    let near_b = super::gjk::near_part::near_part(b, pb, a, pa);
    let (b, pb) = near_b.as_ref().map_or((b, pb), |(s, p)| (s, p));
    let near_a = if trace.is_none() { super::gjk::near_part::near_part(a, pa, b, pb) } else { None };
    let (a, pa) = near_a.as_ref().map_or((a, pa), |(s, p)| (s, p));
    let pair = MinkowskiPair::new(a, pa, b, pb);
    let reach = pair.radius() + tol.margin;
    let g = gjk(&pair, Some((reach, tol.epsilon)), trace.as_deref_mut().map(|t| &mut t.gjk));
    if !g.overlapping && !touching(g.v.length_squared(), reach, tol.epsilon) {
        return None;
    }
    let d = local_distance(&pair, &g, trace);
    let n = pa.transform_vector(d.normal);
    let fallback = ContactPoint { point: pa.transform_point((d.point_a + d.point_b) * 0.5), depth: -d.distance, id: 0 };
    let fa = support_feature(a, pa, n);
    let fb = support_feature(b, pb, -n);
    manifold_from_features(&fa, &fb, n, fallback, tol.margin, clip)
}

/// Signed distance by closed forms, for the pairs that have one: sphere with anything, capsule
/// with capsule, and capsule with box or hull while the segment stays outside. `None` for the
/// rest (SAT only bounds the distance of two polytopes). Used to cross-check GJK/EPA.
pub fn distance_analytic(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Option<Real> {
    use super::analytic::capsule::{capsule_segment, closest_segment_box};
    use super::sat::hull::{closest_point_hull, closest_segment_hull};
    use crate::geometry::segment::{closest_point_segment, closest_points_segments};
    use Shape::*;
    match (a, b) {
        (TriangleMesh(_) | HeightField(_) | Compound(_), _) | (_, TriangleMesh(_) | HeightField(_) | Compound(_)) => {
            None
        }
        (Sphere(x), Sphere(y)) => Some(pa.translation.distance(pb.translation) - x.radius - y.radius),
        (Sphere(s), Cuboid(c)) => {
            let l = pb.inverse_transform_point(pa.translation);
            let h = c.half_extents;
            let outside = l.distance(l.clamp(-h, h));
            let inside = (h - l.abs()).min_element();
            Some(if outside > 0.0 { outside } else { -inside } - s.radius)
        }
        (Sphere(s), Capsule(c)) => {
            let (p, q) = capsule_segment(c, pb);
            Some(closest_point_segment(p, q, pa.translation).1.distance(pa.translation) - s.radius - c.radius)
        }
        (Sphere(s), ConvexHull(h)) => {
            let x = pb.inverse_transform_point(pa.translation);
            let (y, inside, _) = closest_point_hull(h, x);
            let d = x.distance(y);
            Some(if inside { -d } else { d } - s.radius)
        }
        (Capsule(x), Capsule(y)) => {
            let ((p1, q1), (p2, q2)) = (capsule_segment(x, pa), capsule_segment(y, pb));
            let (_, _, c1, c2) = closest_points_segments(p1, q1, p2, q2);
            Some(c1.distance(c2) - x.radius - y.radius)
        }
        (Cuboid(c), Capsule(k)) => {
            let (p, q) = capsule_segment(k, pb);
            let (p, q) = (pa.inverse_transform_point(p), pa.inverse_transform_point(q));
            let (d2, _, _) = closest_segment_box(p, q, c.half_extents);
            (d2 > 0.0).then(|| d2.sqrt() - k.radius)
        }
        (Capsule(k), ConvexHull(h)) => {
            let (p, q) = capsule_segment(k, pa);
            let (p, q) = (pb.inverse_transform_point(p), pb.inverse_transform_point(q));
            let (d2, _, _, enters) = closest_segment_hull(h, p, q);
            (!enters).then(|| d2.sqrt() - k.radius)
        }
        (Cuboid(_), Cuboid(_)) | (Cuboid(_), ConvexHull(_)) | (ConvexHull(_), ConvexHull(_)) => None,
        (Cuboid(_), Sphere(_))
        | (Capsule(_), Sphere(_))
        | (ConvexHull(_), Sphere(_))
        | (Capsule(_), Cuboid(_))
        | (ConvexHull(_), Cuboid(_))
        | (ConvexHull(_), Capsule(_)) => distance_analytic(b, pb, a, pa),
    }
}
