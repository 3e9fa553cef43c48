//! Closed-form tests for pairs with a capsule: against spheres, capsules and boxes.

use crate::geometry::segment::{closest_point_segment, closest_points_segments};
use crate::geometry::{Capsule, Cuboid, Shape, Sphere};
use crate::math::{Pose, Real, Vec3, orthonormal_basis};
use crate::narrowphase::clip::features::{manifold_from_features, support_feature};
use crate::narrowphase::manifold::ContactPoint;
use crate::narrowphase::sat::segment_sat;
use crate::narrowphase::{Manifold, Tolerance, touching};

/// The capsule's segment in world space.
pub(crate) fn capsule_segment(c: &Capsule, pose: &Pose) -> (Vec3, Vec3) {
    let (p, q) = c.segment();
    (pose.transform_point(p), pose.transform_point(q))
}

/// Two balls: centres `ca`, `cb`, radii `ra`, `rb`. `fallback` is the normal when the centres
/// coincide.
fn balls(ca: Vec3, ra: Real, cb: Vec3, rb: Real, fallback: Vec3, tol: Tolerance, id: u32) -> Option<Manifold> {
    let d = cb - ca;
    let dist2 = d.length_squared();
    if !touching(dist2, ra + rb + tol.margin, tol.epsilon) {
        return None;
    }
    let dist = dist2.sqrt();
    let n = if dist > Real::EPSILON * (ra + rb) { d / dist } else { fallback };
    let depth = ra + rb - dist;
    Some(Manifold::single(n, ca + n * (ra - depth * 0.5), depth, id))
}

/// Whether a sphere and a capsule touch (closest point on the capsule's segment).
pub fn intersect_sphere_capsule(s: &Sphere, ps: &Pose, c: &Capsule, pc: &Pose, eps: Real) -> bool {
    let (p, q) = capsule_segment(c, pc);
    let (_, x) = closest_point_segment(p, q, ps.translation);
    touching(x.distance_squared(ps.translation), s.radius + c.radius, eps)
}

/// Sphere A against capsule B: the sphere against the ball at the segment's nearest point.
pub fn contact_sphere_capsule(s: &Sphere, ps: &Pose, c: &Capsule, pc: &Pose, tol: Tolerance) -> Option<Manifold> {
    let (p, q) = capsule_segment(c, pc);
    let (t, x) = closest_point_segment(p, q, ps.translation);
    let side = orthonormal_basis((q - p).normalize_or(Vec3::Y)).0;
    balls(ps.translation, s.radius, x, c.radius, side, tol, (t * 8.0) as u32)
}

/// Whether two capsules touch (closest points of their segments).
pub fn intersect_capsule_capsule(a: &Capsule, pa: &Pose, b: &Capsule, pb: &Pose, eps: Real) -> bool {
    let (p1, q1) = capsule_segment(a, pa);
    let (p2, q2) = capsule_segment(b, pb);
    let (_, _, c1, c2) = closest_points_segments(p1, q1, p2, q2);
    touching(c1.distance_squared(c2), a.radius + b.radius, eps)
}

/// Capsule–capsule from the closest points of the segments; parallel capsules get two points.
pub fn contact_capsule_capsule(a: &Capsule, pa: &Pose, b: &Capsule, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    let (p1, q1) = capsule_segment(a, pa);
    let (p2, q2) = capsule_segment(b, pb);
    let (_, _, c1, c2) = closest_points_segments(p1, q1, p2, q2);
    let (ra, rb) = (a.radius, b.radius);
    let d = c2 - c1;
    let dist2 = d.length_squared();
    if !touching(dist2, ra + rb + tol.margin, tol.epsilon) {
        return None;
    }
    let dist = dist2.sqrt();
    let (ua, ub) = ((q1 - p1).normalize_or(Vec3::Y), (q2 - p2).normalize_or(Vec3::Y));
    let n = if dist > Real::EPSILON * (ra + rb) {
        d / dist
    } else {
        // Crossing segments: the normal is perpendicular to both, pointing from A to B.
        let towards = (p2 + q2 - p1 - q1) * 0.5;
        let cr = ua.cross(ub);
        let n = if cr.length_squared() > 1e-8 { cr.normalize() } else { orthonormal_basis(ua).0 };
        if n.dot(towards) < 0.0 { -n } else { n }
    };
    let depth = ra + rb - dist;
    let fallback = ContactPoint { point: c1 + n * (ra - depth * 0.5), depth, id: 0 };
    if ua.dot(ub).abs() > 1.0 - 1e-3 {
        let fa = support_feature(&Shape::Capsule(*a), pa, n);
        let fb = support_feature(&Shape::Capsule(*b), pb, -n);
        return manifold_from_features(&fa, &fb, n, fallback, tol.margin, None);
    }
    Some(Manifold::single(n, fallback.point, depth, 0))
}

/// Closest points of the segment `p-q` and the box `[-h, h]` (both in the box's frame): the
/// squared distance is convex and piecewise quadratic in the segment parameter, with breaks
/// where the segment crosses a slab plane; each piece is minimised exactly.
pub fn closest_segment_box(p: Vec3, q: Vec3, h: Vec3) -> (Real, Vec3, Vec3) {
    let e = q - p;
    let mut ts = [0.0; 8];
    let mut n = 0;
    ts[n] = 0.0;
    n += 1;
    for i in 0..3 {
        if e[i] != 0.0 {
            for b in [-h[i], h[i]] {
                let t = (b - p[i]) / e[i];
                if t > 0.0 && t < 1.0 {
                    ts[n] = t;
                    n += 1;
                }
            }
        }
    }
    ts[n] = 1.0;
    n += 1;
    ts[..n].sort_by(Real::total_cmp);
    let eval = |t: Real| {
        let x = p + e * t;
        let c = x.clamp(-h, h);
        (x.distance_squared(c), x, c)
    };
    let mut best = (Real::INFINITY, p, p.clamp(-h, h));
    for w in ts[..n].windows(2) {
        let (t0, t1) = (w[0], w[1]);
        let mid = p + e * ((t0 + t1) * 0.5);
        let (mut qa, mut qb) = (0.0, 0.0);
        for i in 0..3 {
            let bound = if mid[i] > h[i] {
                h[i]
            } else if mid[i] < -h[i] {
                -h[i]
            } else {
                continue;
            };
            qa += e[i] * e[i];
            qb += 2.0 * e[i] * (p[i] - bound);
        }
        // No clamped axis on this piece: the segment runs inside the box here.
        let t = if qa > 0.0 { (-qb / (2.0 * qa)).clamp(t0, t1) } else { (t0 + t1) * 0.5 };
        let cand = eval(t);
        if cand.0 < best.0 {
            best = cand;
        }
    }
    best
}

/// Whether a box and a capsule touch.
pub fn intersect_cuboid_capsule(b: &Cuboid, pb: &Pose, c: &Capsule, pc: &Pose, eps: Real) -> bool {
    let (p, q) = capsule_segment(c, pc);
    let (d2, _, _) = closest_segment_box(pb.inverse_transform_point(p), pb.inverse_transform_point(q), b.half_extents);
    touching(d2, c.radius, eps)
}

/// Box A against capsule B: exact closest points while the segment is outside the box, SAT over
/// the box axes and segment × box axes once it enters; the manifold clips the features.
pub fn contact_cuboid_capsule(b: &Cuboid, pb: &Pose, c: &Capsule, pc: &Pose, tol: Tolerance) -> Option<Manifold> {
    let h = b.half_extents;
    let (pw, qw) = capsule_segment(c, pc);
    let (p, q) = (pb.inverse_transform_point(pw), pb.inverse_transform_point(qw));
    let (d2, on_seg, on_box) = closest_segment_box(p, q, h);
    let r = c.radius;
    if !touching(d2, r + tol.margin, tol.epsilon) {
        return None;
    }
    let (n_local, sep, deepest) = if d2 > 1e-12 * h.length_squared() {
        let d = d2.sqrt();
        ((on_seg - on_box) / d, d, on_seg)
    } else {
        segment_box_sat(p, q, h)
    };
    let n = pb.transform_vector(n_local);
    let depth = r - sep;
    let surface_b = pb.transform_point(deepest) - n * r;
    let fallback = ContactPoint { point: surface_b + n * (depth * 0.5), depth, id: 0 };
    let fa = support_feature(&Shape::Cuboid(*b), pb, n);
    let fb = support_feature(&Shape::Capsule(*c), pc, -n);
    manifold_from_features(&fa, &fb, n, fallback, tol.margin, None)
}

/// The least-penetrating axis between a segment and a box it enters (box frame): normal from
/// the box to the segment, the (negative) separation and the segment's deepest point.
fn segment_box_sat(p: Vec3, q: Vec3, h: Vec3) -> (Vec3, Real, Vec3) {
    let c = (p + q) * 0.5;
    let hs = (q - p) * 0.5;
    let faces = [Vec3::X, Vec3::Y, Vec3::Z];
    let axes = faces.into_iter().chain(faces.map(|e| hs.cross(e)));
    segment_sat(p, q, axes, |l| {
        let s = c.dot(l).abs() - h.dot(l.abs()) - hs.dot(l).abs();
        (s, if c.dot(l) < 0.0 { -l } else { l })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn tol() -> Tolerance {
        Tolerance { margin: 0.0, epsilon: 1e-6 }
    }

    #[test]
    fn capsule_lying_on_box_gets_two_points() {
        let ground = Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) };
        let cap = Capsule { half_height: 1.0, radius: 0.25 };
        let pc = Pose::new(Vec3::new(0.3, 0.74, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let m = contact_cuboid_capsule(&ground, &Pose::IDENTITY, &cap, &pc, tol()).unwrap();
        assert_eq!(m.len(), 2, "{m:?}");
        assert!((m.normal - Vec3::Y).length() < 1e-5);
        for p in m.points() {
            assert!((p.depth - 0.01).abs() < 1e-4, "{m:?}");
        }
    }

    #[test]
    fn segment_box_distance_matches_sampling() {
        let h = Vec3::new(1.0, 0.5, 2.0);
        let (p, q) = (Vec3::new(2.0, 3.0, -1.0), Vec3::new(-3.0, 1.0, 4.0));
        let (d2, _, _) = closest_segment_box(p, q, h);
        let brute = (0..=10000)
            .map(|i| {
                let x = p + (q - p) * (i as Real / 10000.0);
                x.distance_squared(x.clamp(-h, h))
            })
            .fold(Real::INFINITY, Real::min);
        assert!(d2 <= brute + 1e-5 && d2 >= brute - 1e-3, "{d2} {brute}");
    }

    #[test]
    fn crossed_capsules_push_apart_perpendicular() {
        let c = Capsule { half_height: 1.0, radius: 0.5 };
        let pb = Pose::new(Vec3::new(0.0, 0.0, 0.8), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let m = contact_capsule_capsule(&c, &Pose::IDENTITY, &c, &pb, tol()).unwrap();
        assert!((m.normal - Vec3::Z).length() < 1e-5, "{m:?}");
        assert!((m.points()[0].depth - 0.2).abs() < 1e-5);
        // Segments crossing through each other: pushed apart along their common perpendicular.
        let through = Pose::new(Vec3::new(0.0, 0.0, 0.1), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let m = contact_capsule_capsule(&c, &Pose::IDENTITY, &c, &through, tol()).unwrap();
        assert!((m.normal - Vec3::Z).length() < 1e-5, "{m:?}");
        assert!((m.points()[0].depth - 0.9).abs() < 1e-5);
        let parallel = Pose::from_translation(Vec3::new(0.9, 0.5, 0.0));
        let m = contact_capsule_capsule(&c, &Pose::IDENTITY, &c, &parallel, tol()).unwrap();
        assert_eq!(m.len(), 2, "{m:?}");
    }
}
