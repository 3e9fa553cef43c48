//! Support features (the face, edge or vertex a shape offers along a direction) and manifolds
//! built by clipping them against each other. Both methods use this once they know the normal.

use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::clip::{ClipTrace, Tagged, clip_faces};
use crate::narrowphase::manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use smallvec::{SmallVec, smallvec};

/// A feature's points: up to eight (a box face, a small hull's face) without a heap allocation.
pub(crate) type FeaturePoints = SmallVec<[Tagged; 8]>;

/// A face counts as the support feature when its normal is within about 3° of the direction.
pub(crate) const COS_FACE: Real = 0.9986;
/// An edge counts when it is within about 3° of perpendicular to the direction.
pub(crate) const SIN_EDGE: Real = 0.0523;

/// The part of a shape's surface that is extreme along a direction, in world space: one point
/// (vertex, sphere), two (edge, capsule side) or a polygon with its outward normal (face).
#[derive(Clone, Debug, Default)]
pub(crate) struct Feature {
    pub points: FeaturePoints,
    /// Outward normal when the feature is a face.
    pub face_normal: Option<Vec3>,
    /// Identifies the feature on its shape, for contact ids.
    pub tag: u32,
}

impl Feature {
    fn point(p: Vec3, id: u32) -> Self {
        Self { points: smallvec![(p, id)], face_normal: None, tag: id }
    }
}

/// The support feature of `shape` at `pose` along the world direction `dir`. Rounded shapes
/// return points on their surface (core feature pushed out by the radius along `dir`).
pub(crate) fn support_feature(shape: &Shape, pose: &Pose, dir: Vec3) -> Feature {
    let d = pose.inverse_transform_vector(dir).normalize_or(Vec3::Y);
    let dw = pose.transform_vector(d);
    let world = |p: Vec3| pose.transform_point(p);
    match shape {
        Shape::Sphere(s) => Feature::point(pose.translation + dw * s.radius, 0),
        Shape::Capsule(c) => {
            let push = dw * c.radius;
            let (p, q) = c.segment();
            if d.y.abs() < SIN_EDGE {
                Feature { points: smallvec![(world(p) + push, 0), (world(q) + push, 1)], face_normal: None, tag: 2 }
            } else if d.y < 0.0 {
                Feature::point(world(p) + push, 0)
            } else {
                Feature::point(world(q) + push, 1)
            }
        }
        Shape::Cuboid(c) => {
            let h = c.half_extents;
            let a = d.abs();
            let k = if a.x >= a.y && a.x >= a.z {
                0
            } else if a.y >= a.z {
                1
            } else {
                2
            };
            let sign = |x: Real| if x < 0.0 { -1.0 } else { 1.0 };
            if a[k] >= COS_FACE {
                let s = sign(d[k]);
                let (i, j) = ((k + 1) % 3, (k + 2) % 3);
                let mut n = Vec3::ZERO;
                n[k] = s;
                let mut u = Vec3::ZERO;
                u[i] = h[i];
                let mut v = Vec3::ZERO;
                v[j] = h[j];
                if u.cross(v).dot(n) < 0.0 {
                    std::mem::swap(&mut u, &mut v);
                }
                let fc = n * h[k];
                let face = (k * 2) as u32 + (s > 0.0) as u32;
                let corners = [fc + u + v, fc - u + v, fc - u - v, fc + u - v];
                let points = corners.iter().enumerate().map(|(m, &p)| (world(p), face << 4 | m as u32)).collect();
                return Feature { points, face_normal: Some(pose.transform_vector(n)), tag: 16 + face };
            }
            let corner = Vec3::new(sign(d.x), sign(d.y), sign(d.z)) * h;
            let code = |p: Vec3| ((p.x > 0.0) as u32) | ((p.y > 0.0) as u32) << 1 | ((p.z > 0.0) as u32) << 2;
            let thin = (0..3).filter(|&m| a[m] < SIN_EDGE).min_by(|&x, &y| a[x].total_cmp(&a[y]));
            match thin {
                Some(m) => {
                    let (mut p, mut q) = (corner, corner);
                    p[m] = -h[m];
                    q[m] = h[m];
                    Feature {
                        points: smallvec![(world(p), code(p)), (world(q), code(q))],
                        face_normal: None,
                        tag: 32 + code(p) * 3 + m as u32,
                    }
                }
                None => Feature::point(world(corner), code(corner)),
            }
        }
        // Meshes answer through their triangles (narrowphase::mesh); this is only a fallback.
        Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => {
            Feature::point(world(shape.support(d)), 0)
        }
        Shape::ConvexHull(hull) => {
            let vs = hull.vertices();
            if let Some((fi, _)) = hull.facing_face(d, COS_FACE) {
                let f = &hull.faces()[fi];
                let points = f.vertices.iter().map(|&i| (world(vs[i as usize]), i)).collect();
                return Feature { points, face_normal: Some(pose.transform_vector(f.normal)), tag: 0x1000 + fi as u32 };
            }
            let s = hull.support_index(d) as u32;
            let edge = hull
                .edge_neighbours(s as usize)
                .map(|n| (s.min(n), s.max(n)))
                .map(|(x, y)| ((x, y), (vs[y as usize] - vs[x as usize]).normalize_or_zero().dot(d).abs()))
                .min_by(|x, y| x.1.total_cmp(&y.1));
            match edge {
                Some(((x, y), c)) if c < SIN_EDGE => Feature {
                    points: smallvec![(world(vs[x as usize]), x), (world(vs[y as usize]), y)],
                    face_normal: None,
                    tag: 0x2000 + x * 256 + y,
                },
                _ => Feature::point(world(vs[s as usize]), s),
            }
        }
    }
}

/// A manifold from the support features of A (along `n`) and B (along `-n`), `n` pointing from
/// A to B. Faces clip the other feature; parallel edges overlap; anything else gives the single
/// `fallback` point. Points more than `margin` apart are dropped.
pub(crate) fn manifold_from_features(
    fa: &Feature,
    fb: &Feature,
    n: Vec3,
    fallback: ContactPoint,
    margin: Real,
    trace: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    let single =
        || (fallback.depth >= -margin).then(|| Manifold::single(n, fallback.point, fallback.depth, fallback.id));
    let pts = |f: &Feature| f.points.iter().map(|p| p.0).collect::<SmallVec<[Vec3; 8]>>();
    let tagged = |f: &Feature, salt: u32| f.points.iter().map(|&(p, id)| (p, id ^ salt)).collect::<FeaturePoints>();
    let clipped = match (fa.face_normal, fb.face_normal) {
        (Some(na), Some(nb)) if na.dot(n) + 1e-3 >= -nb.dot(n) => {
            clip_faces(&pts(fa), na, &tagged(fb, 0x0100_0000), margin, fa.tag, trace)
        }
        (_, Some(nb)) => {
            clip_faces(&pts(fb), nb, &tagged(fa, 0), margin, fb.tag | 0x0080_0000, trace).map(Manifold::flipped)
        }
        (Some(na), None) => clip_faces(&pts(fa), na, &tagged(fb, 0x0100_0000), margin, fa.tag, trace),
        (None, None) if fa.points.len() == 2 && fb.points.len() == 2 => {
            return segments(fa, fb, n, margin, fallback).map(|m| with_deepest(m, fallback)).or_else(single);
        }
        _ => None,
    };
    // The faces only approximate the requested normal (within COS_FACE), which is the exact
    // axis (SAT's winner, EPA's face, the closest points' direction): keep it.
    clipped
        .map(|mut m| {
            m.normal = n;
            with_deepest(m, fallback)
        })
        .or_else(single)
}

/// The manifold with its deepest point at least as deep as `fallback`, the exact deepest point
/// along the normal: features within a few degrees of the normal, clipped or sampled at their
/// ends, can miss it by their tilt times their length. The fallback replaces the shallowest
/// point when the manifold is full.
fn with_deepest(mut m: Manifold, fallback: ContactPoint) -> Manifold {
    let deepest = m.max_depth();
    if fallback.depth > deepest + 1e-5 * (1.0 + fallback.depth.abs()) {
        if m.len() < MAX_MANIFOLD_POINTS {
            m.push(fallback);
        } else if let Some(p) = m.points_mut().iter_mut().min_by(|x, y| x.depth.total_cmp(&y.depth)) {
            *p = fallback;
        }
    }
    m
}

/// Two edges: the `fallback` point where they cross, or two points when they are parallel and
/// overlap.
fn segments(fa: &Feature, fb: &Feature, n: Vec3, margin: Real, fallback: ContactPoint) -> Option<Manifold> {
    let (a0, a1) = (fa.points[0].0, fa.points[1].0);
    let (b0, b1) = (fb.points[0].0, fb.points[1].0);
    let (ua, ub) = ((a1 - a0).normalize_or_zero(), (b1 - b0).normalize_or_zero());
    let mut m = Manifold::new(n);
    if ua.dot(ub).abs() > 1.0 - 1e-3 && ua != Vec3::ZERO {
        // Clip B's edge to A's extent along the shared direction.
        let (s0, s1) = (ua.dot(b0 - a0), ua.dot(b1 - a0));
        let len = ua.dot(a1 - a0);
        let (lo, hi) = (s0.min(s1).max(0.0), s0.max(s1).min(len));
        if lo <= hi && (s1 - s0).abs() > Real::MIN_POSITIVE {
            let ends: &[Real] = if hi - lo > 1e-6 * len { &[lo, hi] } else { &[lo] };
            for (k, &s) in ends.iter().enumerate() {
                let q = b0 + (b1 - b0) * ((s - s0) / (s1 - s0));
                let on_a = a0 + ua * s;
                let depth = n.dot(on_a - q);
                if depth >= -margin {
                    m.push(ContactPoint { point: (on_a + q) * 0.5, depth, id: 0x4000 + k as u32 });
                }
            }
        }
        return (!m.is_empty()).then_some(m);
    }
    // Crossing edges touch at one point, the deepest, which the caller's `fallback` already
    // holds exactly (closest points, EPA or SAT). Recomputing it from the edges is
    // ill-conditioned: nearly parallel edges tilted from the plane normal to n give a crossing
    // that slides along them, and with it a depth off by the tilt times the slide.
    (fallback.depth >= -margin)
        .then(|| Manifold::single(n, fallback.point, fallback.depth, 0x5000 ^ fa.tag ^ fb.tag.rotate_left(12)))
}
