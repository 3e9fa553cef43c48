//! Pairs with a convex hull: sphere and capsule by exact closest points, boxes and hulls by SAT
//! over face normals and edge-pair axes, manifolds by clipping the support features.

use crate::geometry::segment::{closest_point_segment, closest_points_segments};
use crate::geometry::{Capsule, ConvexHull, Cuboid, HullFace, Shape, Sphere};
use crate::math::{Mat3, Pose, Real, Vec3};
use crate::narrowphase::analytic::capsule::capsule_segment;
use crate::narrowphase::clip::features::{manifold_from_features, support_feature};
use crate::narrowphase::manifold::ContactPoint;
use crate::narrowphase::sat::cuboid::{SatAxis, SatAxisKind, SatTrace};
use crate::narrowphase::{Manifold, Tolerance, apart, touching};
use crate::simd::f32x4::F32x4;

/// A box or hull in world space: vertices, face planes and distinct edge directions.
pub(crate) struct Polytope {
    pub verts: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub offsets: Vec<Real>,
    pub edge_dirs: Vec<Vec3>,
    pub centre: Vec3,
}

impl Polytope {
    pub(crate) fn from_cuboid(c: &Cuboid, pose: &Pose) -> Self {
        let m = Mat3::from_quat(pose.rotation);
        let axes = [m.x_axis, m.y_axis, m.z_axis];
        let h = c.half_extents;
        let verts = (0..8)
            .map(|i| {
                let s = |bit: usize, k: usize| if i & bit == 0 { -h[k] } else { h[k] };
                pose.translation + axes[0] * s(1, 0) + axes[1] * s(2, 1) + axes[2] * s(4, 2)
            })
            .collect();
        let mut normals = Vec::with_capacity(6);
        let mut offsets = Vec::with_capacity(6);
        for k in 0..3 {
            for s in [-1.0, 1.0] {
                let n = axes[k] * s;
                normals.push(n);
                offsets.push(n.dot(pose.translation) + h[k]);
            }
        }
        Self { verts, normals, offsets, edge_dirs: axes.to_vec(), centre: pose.translation }
    }

    pub(crate) fn from_hull(hull: &ConvexHull, pose: &Pose) -> Self {
        let verts = hull.vertices().iter().map(|&v| pose.transform_point(v)).collect();
        let normals: Vec<Vec3> = hull.faces().iter().map(|f| pose.transform_vector(f.normal)).collect();
        let offsets = hull.faces().iter().zip(&normals).map(|(f, n)| f.offset + n.dot(pose.translation)).collect();
        let edge_dirs = hull.edge_directions().iter().map(|&d| pose.transform_vector(d)).collect();
        Self { verts, normals, offsets, edge_dirs, centre: pose.translation }
    }

    fn interval(&self, axis: Vec3) -> (Real, Real) {
        self.verts.iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), v| {
            let d = v.dot(axis);
            (lo.min(d), hi.max(d))
        })
    }

    fn min_along(&self, axis: Vec3) -> Real {
        self.verts.iter().map(|v| v.dot(axis)).fold(Real::INFINITY, Real::min)
    }
}

/// How much more (times the smaller polytope's radius) a B face must separate than A's best face
/// to be chosen.
pub(crate) const FACE_B_PREFERENCE: Real = 0.005;
/// How much more (times the smaller polytope's radius) an edge–edge axis must separate than the
/// best face to be chosen.
pub(crate) const EDGE_PREFERENCE: Real = 0.01;

/// The best SAT axis: its separation and normal from A to B, or `None` when an axis separates
/// the pair by more than `reach`.
pub(crate) fn sat_polytopes(
    a: &Polytope,
    b: &Polytope,
    reach: Real,
    eps: Real,
    mut trace: Option<&mut SatTrace>,
) -> Option<(Real, Vec3, SatAxisKind)> {
    let mut record = |kind: SatAxisKind, axis: Vec3, separation: Real| {
        if let Some(t) = trace.as_deref_mut() {
            t.axes.push(SatAxis { kind, axis, separation });
        }
    };
    // The face axes of `p` against `q`: the deepest (largest separation), its normal pointing
    // from A to B (`flip` for B's faces), or `None` when one separates them.
    let mut faces = |p: &Polytope, q: &Polytope, kind: fn(u16) -> SatAxisKind, flip: bool| {
        let mut best = (Real::NEG_INFINITY, Vec3::Y, kind(0));
        for (i, (&n, &off)) in p.normals.iter().zip(&p.offsets).enumerate() {
            let s = q.min_along(n) - off;
            record(kind(i as u16), n, s);
            if apart(s, reach, eps) {
                return None;
            }
            if s > best.0 {
                best = (s, if flip { -n } else { n }, kind(i as u16));
            }
        }
        Some(best)
    };
    let face = faces(a, b, SatAxisKind::FaceA, false)?;
    let face_b = faces(b, a, SatAxisKind::FaceB, true)?;
    let mut edge = (Real::NEG_INFINITY, Vec3::Y, SatAxisKind::Edge(0, 0));
    for (i, &ea) in a.edge_dirs.iter().enumerate() {
        for (j, &eb) in b.edge_dirs.iter().enumerate() {
            let axis = ea.cross(eb);
            let len = axis.length();
            if len < 1e-4 {
                continue;
            }
            let l = axis / len;
            let ((amin, amax), (bmin, bmax)) = (a.interval(l), b.interval(l));
            let (s, n) = if bmin - amax >= amin - bmax { (bmin - amax, l) } else { (amin - bmax, -l) };
            record(SatAxisKind::Edge(i as u16, j as u16), n, s);
            if apart(s, reach, eps) {
                return None;
            }
            if s > edge.0 {
                edge = (s, n, SatAxisKind::Edge(i as u16, j as u16));
            }
        }
    }
    // Prefer faces (stable, many points): a B face must separate more than A's
    // best by 0.5% of the smaller shape's radius, an edge more than the best face by 1%. So the
    // chosen axis is at most 1.5% of that radius shallower than the deepest-separating one:
    // that much extra depth is the price of the preference. (Box–box SAT also lets an edge win
    // when it overlaps a quarter or less of the best face's overlap; this test does not.)
    let radius = |p: &Polytope| p.verts.iter().map(|v| v.distance(p.centre)).fold(0.0, Real::max);
    let scale = radius(a).min(radius(b)).max(1e-6);
    let best_face = if face_b.0 > face.0 + FACE_B_PREFERENCE * scale { face_b } else { face };
    let best = if edge.0 > best_face.0 + EDGE_PREFERENCE * scale { edge } else { best_face };
    // A preference never turns the normal more than 60° from the axis that separates most:
    // two nearly equal axes far apart (slivers) would push the bodies along a wrong direction.
    let deepest = [face, face_b, edge].into_iter().max_by(|x, y| x.0.total_cmp(&y.0)).unwrap_or(best);
    Some(if best.1.dot(deepest.1) < 0.5 { deepest } else { best })
}

/// SAT between two polytopes, then the manifold from the features along the winning axis.
/// Each side is the shape, its pose and its world-space polytope.
pub(crate) fn contact_polytopes(
    (sa, pa, a): (&Shape, &Pose, &Polytope),
    (sb, pb, b): (&Shape, &Pose, &Polytope),
    tol: Tolerance,
    mut trace: Option<&mut SatTrace>,
) -> Option<Manifold> {
    let (sep, n, kind) = sat_polytopes(a, b, tol.margin, tol.epsilon, trace.as_deref_mut())?;
    if let Some(t) = trace.as_deref_mut() {
        t.chosen = t.axes.iter().position(|x| x.kind == kind);
    }
    let (on_a, on_b) = (a.verts[argmax(&a.verts, n)], b.verts[argmax(&b.verts, -n)]);
    let fallback = ContactPoint { point: (on_a + on_b) * 0.5, depth: -sep, id: 0 };
    let fa = support_feature(sa, pa, n);
    let fb = support_feature(sb, pb, -n);
    let m = manifold_from_features(&fa, &fb, n, fallback, tol.margin, trace.map(|t| &mut t.clip))?;
    // Apart along every axis: SAT's separation only bounds the distance from below (a corner
    // facing an edge is farther than any axis shows), so the distance itself decides.
    if sep > 0.0 {
        let d = crate::narrowphase::distance(sa, pa, sb, pb).distance;
        if d > 0.0 && apart(d, tol.margin, tol.epsilon) {
            return None;
        }
    }
    Some(m)
}

fn argmax(verts: &[Vec3], d: Vec3) -> usize {
    let mut best = 0;
    for (i, v) in verts.iter().enumerate() {
        if v.dot(d) > verts[best].dot(d) {
            best = i;
        }
    }
    best
}

pub(crate) fn intersect_polytopes(a: &Polytope, b: &Polytope, eps: Real) -> bool {
    sat_polytopes(a, b, 0.0, eps, None).is_some()
}

/// Whether a box and a hull touch (SAT over faces and edge pairs).
pub fn intersect_cuboid_hull(a: &Cuboid, pa: &Pose, b: &ConvexHull, pb: &Pose, eps: Real) -> bool {
    intersect_polytopes(&Polytope::from_cuboid(a, pa), &Polytope::from_hull(b, pb), eps)
}

/// Whether two hulls touch (SAT over faces and edge pairs).
pub fn intersect_hull_hull(a: &ConvexHull, pa: &Pose, b: &ConvexHull, pb: &Pose, eps: Real) -> bool {
    intersect_polytopes(&Polytope::from_hull(a, pa), &Polytope::from_hull(b, pb), eps)
}

/// The contact of a box and a hull: SAT, then the support features clipped.
pub fn contact_cuboid_hull(
    a: &Cuboid,
    pa: &Pose,
    b: &std::sync::Arc<ConvexHull>,
    pb: &Pose,
    tol: Tolerance,
    trace: Option<&mut SatTrace>,
) -> Option<Manifold> {
    let (pa_, pb_) = (Polytope::from_cuboid(a, pa), Polytope::from_hull(b, pb));
    contact_polytopes((&Shape::Cuboid(*a), pa, &pa_), (&Shape::ConvexHull(b.clone()), pb, &pb_), tol, trace)
}

/// The contact of two hulls: SAT, then the support features clipped.
pub fn contact_hull_hull(
    a: &std::sync::Arc<ConvexHull>,
    pa: &Pose,
    b: &std::sync::Arc<ConvexHull>,
    pb: &Pose,
    tol: Tolerance,
    trace: Option<&mut SatTrace>,
) -> Option<Manifold> {
    let (pa_, pb_) = (Polytope::from_hull(a, pa), Polytope::from_hull(b, pb));
    contact_polytopes((&Shape::ConvexHull(a.clone()), pa, &pa_), (&Shape::ConvexHull(b.clone()), pb, &pb_), tol, trace)
}

/// Closest point of the hull's surface to `x` (hull frame), whether `x` is inside, and the unit
/// direction from that point to `x` (outside; inside, the nearest face's normal). Inside, the
/// answer is the nearest face plane's projection. Outside, a face in front of `x` whose
/// projection of `x` lies on it holds the answer (the hull lies behind that face's plane, so
/// nothing of it is nearer): the first such face ends the search; else the nearest point of
/// the edges.
///
/// Only the faces that can hold the answer are tested for it, which gives the same answer as
/// testing all: the hull is at least as far from `x` as from every face's plane, so a face
/// holding the answer is one of the farthest planes (within rounding, [`PRUNE_SLACK`]). The
/// edges are searched four at a time ([`nearest_on_edges`]).
pub fn closest_point_hull(h: &ConvexHull, x: Vec3) -> (Vec3, bool, Vec3) {
    let (vs, faces) = (h.vertices(), h.faces());
    let sep = |f: &HullFace| f.normal.dot(x) - f.offset;
    let (mut best_face, mut best_sep) = (0, Real::NEG_INFINITY);
    for (i, f) in faces.iter().enumerate() {
        let s = sep(f);
        if s > best_sep {
            best_sep = s;
            best_face = i;
        }
    }
    if best_sep <= 0.0 {
        let n = faces[best_face].normal;
        return (x - n * best_sep, true, n);
    }
    let slack = PRUNE_SLACK * (x.length() + h.bounding_radius());
    for f in faces {
        let s = sep(f);
        if s <= 0.0 || s < best_sep - slack {
            continue;
        }
        let y = x - f.normal * s;
        let mut a = vs[*f.vertices.last().expect("a face has corners") as usize];
        let on_face = f.vertices.iter().all(|&v| {
            let b = vs[v as usize];
            let inside = (b - a).cross(y - a).dot(f.normal) >= 0.0;
            a = b;
            inside
        });
        if on_face {
            return (y, false, (x - y).normalize_or(f.normal));
        }
    }
    let best = nearest_on_edges(h, x);
    let n = (x - best.1).normalize_or(faces[best_face].normal);
    (best.1, false, n)
}

/// The room [`closest_point_hull`] leaves for rounding when it passes over faces, as
/// a fraction of the size at hand (the point's distance from the centre plus the hull's
/// radius): a plane distance and a side test are each within a few units of `Real`'s rounding
/// of that size, and this is some hundreds of them.
const PRUNE_SLACK: Real = 1e-4;

/// The nearest point to `x` of the hull's edges (the first nearest, in edge order) and its
/// squared distance: [`closest_point_segment`] on each, four edges at a time where the hull
/// keeps its edges as lanes, with the same steps per lane and so the same bits.
fn nearest_on_edges(h: &ConvexHull, x: Vec3) -> (Real, Vec3) {
    let (vs, edges, rows) = (h.vertices(), h.edges(), h.edge_rows());
    let mut best = (Real::INFINITY, x);
    if rows.is_empty() || !x.is_finite() {
        for &(i, j) in edges {
            let (_, y) = closest_point_segment(vs[i as usize], vs[j as usize], x);
            let d2 = y.distance_squared(x);
            if d2 < best.0 {
                best = (d2, y);
            }
        }
        return best;
    }
    let [px, py, pz] = x.to_array().map(F32x4::splat);
    let (zero, one) = (F32x4::splat(0.0), F32x4::splat(1.0));
    let mut nearest = 0;
    for (block, r) in rows.iter().enumerate() {
        let [ax, ay, az, abx, aby, abz, len2] = r.each_ref().map(F32x4::load_unaligned);
        let (dx, dy, dz) = (px - ax, py - ay, pz - az);
        let t = ((dx * abx + dy * aby) + dz * abz).div(len2);
        // `clamp(0, 1)`: 0 where below, 1 where above, else `t` (`-0.0` and NaN kept).
        let t = one.min(zero.max(t));
        let (yx, yy, yz) = (ax + abx * t, ay + aby * t, az + abz * t);
        let (ex, ey, ez) = (yx - px, yy - py, yz - pz);
        let mut d2 = [0.0; 4];
        ((ex * ex + ey * ey) + ez * ez).store_unaligned(&mut d2);
        for (k, &d) in d2.iter().enumerate().take(edges.len() - 4 * block) {
            if d < best.0 {
                best.0 = d;
                nearest = 4 * block + k;
            }
        }
    }
    if best.0 < Real::INFINITY {
        let (i, j) = edges[nearest];
        best.1 = closest_point_segment(vs[i as usize], vs[j as usize], x).1;
    }
    best
}

/// Whether a sphere and a hull touch.
pub fn intersect_sphere_hull(s: &Sphere, ps: &Pose, h: &ConvexHull, ph: &Pose, eps: Real) -> bool {
    let x = ph.inverse_transform_point(ps.translation);
    let (y, inside, _) = closest_point_hull(h, x);
    inside || touching(x.distance_squared(y), s.radius, eps)
}

/// Sphere A against hull B from the hull's closest point to the centre.
pub fn contact_sphere_hull(s: &Sphere, ps: &Pose, h: &ConvexHull, ph: &Pose, tol: Tolerance) -> Option<Manifold> {
    let x = ph.inverse_transform_point(ps.translation);
    let (y, inside, out) = closest_point_hull(h, x);
    let d2 = x.distance_squared(y);
    if !inside && !touching(d2, s.radius + tol.margin, tol.epsilon) {
        return None;
    }
    let d = d2.sqrt();
    // `out` points from the hull towards the centre; the normal runs from the sphere to the hull.
    let n = ph.transform_vector(-out);
    let depth = if inside { s.radius + d } else { s.radius - d };
    let surface = ph.transform_point(y);
    Some(Manifold::single(n, surface + n * (depth * 0.5), depth, 0))
}

/// Squared distance between the segment `p-q` and the hull (hull frame), its closest points, and
/// whether the segment enters the hull.
pub(crate) fn closest_segment_hull(h: &ConvexHull, p: Vec3, q: Vec3) -> (Real, Vec3, Vec3, bool) {
    let (mut t0, mut t1) = (0.0 as Real, 1.0 as Real);
    let e = q - p;
    let mut enters = true;
    for f in h.faces() {
        let dp = f.normal.dot(p) - f.offset;
        let de = f.normal.dot(e);
        if de == 0.0 {
            if dp > 0.0 {
                enters = false;
                break;
            }
            continue;
        }
        let t = -dp / de;
        if de < 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
        if t0 > t1 {
            enters = false;
            break;
        }
    }
    if enters {
        let x = p + e * t0;
        return (0.0, x, x, true);
    }
    let mut best = (Real::INFINITY, p, p);
    for x in [p, q] {
        let (y, _, _) = closest_point_hull(h, x);
        let d2 = x.distance_squared(y);
        if d2 < best.0 {
            best = (d2, x, y);
        }
    }
    let vs = h.vertices();
    for &(i, j) in h.edges() {
        let (_, _, cs, ch) = closest_points_segments(p, q, vs[i as usize], vs[j as usize]);
        let d2 = cs.distance_squared(ch);
        if d2 < best.0 {
            best = (d2, cs, ch);
        }
    }
    (best.0, best.1, best.2, false)
}

/// Whether a capsule and a hull touch.
pub fn intersect_capsule_hull(c: &Capsule, pc: &Pose, h: &ConvexHull, ph: &Pose, eps: Real) -> bool {
    let (p, q) = capsule_segment(c, pc);
    let (d2, _, _, enters) = closest_segment_hull(h, ph.inverse_transform_point(p), ph.inverse_transform_point(q));
    enters || touching(d2, c.radius, eps)
}

/// Capsule A against hull B: exact closest points while the segment is outside, SAT over the
/// hull's faces and segment × edge axes once it enters.
pub fn contact_capsule_hull(
    c: &Capsule,
    pc: &Pose,
    h: &std::sync::Arc<ConvexHull>,
    ph: &Pose,
    tol: Tolerance,
) -> Option<Manifold> {
    let (pw, qw) = capsule_segment(c, pc);
    let (p, q) = (ph.inverse_transform_point(pw), ph.inverse_transform_point(qw));
    let (d2, on_seg, on_hull, enters) = closest_segment_hull(h, p, q);
    let r = c.radius;
    if !enters && !touching(d2, r + tol.margin, tol.epsilon) {
        return None;
    }
    // Normal from the hull to the segment (hull frame), the separation and the deepest point.
    let (n_hull, sep, deepest) = if !enters && d2 > 0.0 {
        let d = d2.sqrt();
        ((on_seg - on_hull) / d, d, on_seg)
    } else {
        segment_hull_sat(h, p, q)
    };
    let n = ph.transform_vector(-n_hull);
    let depth = r - sep;
    let surface_a = ph.transform_point(deepest) + n * r;
    let fallback = ContactPoint { point: surface_a - n * (depth * 0.5), depth, id: 0 };
    let fa = support_feature(&Shape::Capsule(*c), pc, n);
    let fb = support_feature(&Shape::ConvexHull(h.clone()), ph, -n);
    manifold_from_features(&fa, &fb, n, fallback, tol.margin, None)
}

fn segment_hull_sat(h: &ConvexHull, p: Vec3, q: Vec3) -> (Vec3, Real, Vec3) {
    let e = q - p;
    let axes = h.faces().iter().map(|f| f.normal).chain(h.edge_directions().iter().map(|&d| e.cross(d)));
    super::segment_sat(p, q, axes, |l| {
        let (hmin, hmax) = h.vertices().iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), v| {
            let d = v.dot(l);
            (lo.min(d), hi.max(d))
        });
        let (smin, smax) = (p.dot(l).min(q.dot(l)), p.dot(l).max(q.dot(l)));
        if smin - hmax >= hmin - smax { (smin - hmax, l) } else { (hmin - smax, -l) }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// [`closest_point_hull`] looking at every face and edge: the reference its pruning is held to.
    fn closest_point_hull_scan(h: &ConvexHull, x: Vec3) -> (Vec3, bool, Vec3) {
        let vs = h.vertices();
        let (mut best_face, mut best_sep) = (0, Real::NEG_INFINITY);
        for (i, f) in h.faces().iter().enumerate() {
            let s = f.normal.dot(x) - f.offset;
            if s > best_sep {
                best_sep = s;
                best_face = i;
            }
            let k = f.vertices.len();
            let y = x - f.normal * s;
            let on = |i: usize| {
                let (a, b) = (vs[f.vertices[i] as usize], vs[f.vertices[(i + 1) % k] as usize]);
                (b - a).cross(y - a).dot(f.normal) >= 0.0
            };
            if s > 0.0 && (0..k).all(on) {
                return (y, false, (x - y).normalize_or(f.normal));
            }
        }
        if best_sep <= 0.0 {
            let n = h.faces()[best_face].normal;
            return (x - n * best_sep, true, n);
        }
        let mut best = (Real::INFINITY, x);
        for &(i, j) in h.edges() {
            let (_, y) = closest_point_segment(vs[i as usize], vs[j as usize], x);
            let d2 = y.distance_squared(x);
            if d2 < best.0 {
                best = (d2, y);
            }
        }
        (best.1, false, (x - best.1).normalize_or(h.faces()[best_face].normal))
    }

    /// Hulls of more faces than this are among those the pruned search is held to the scan on.
    const MANY_FACES: usize = 64;

    fn sign(i: usize, bit: usize) -> Real {
        if i & bit == 0 { -1.0 } else { 1.0 }
    }

    /// The pruned search gives the scan's bits, on hulls of few faces (planes' distances kept)
    /// and many (recomputed), at points inside, near the surface and far off, and at points on
    /// the hull's own vertices, edges and faces, where faces and edges tie.
    #[test]
    fn the_pruned_closest_point_gives_the_full_scans_bits() {
        let mut rng = SplitMix64::new(0x0c10_5e57);
        let mut hulls = Vec::new();
        for points in [8, 12, 30, 200] {
            for _ in 0..6 {
                let scale = rng.range(0.05, 20.0);
                let cloud: Vec<Vec3> = (0..points).map(|_| rng.unit_vector() * scale * rng.range(0.3, 1.0)).collect();
                hulls.push(ConvexHull::new(&cloud).expect("a random cloud makes a hull"));
            }
        }
        let slab = Vec3::new(0.5, 2.0, 0.1);
        let corners: Vec<Vec3> = (0..8).map(|i| slab * Vec3::new(sign(i, 1), sign(i, 2), sign(i, 4))).collect();
        hulls.push(ConvexHull::new(&corners).expect("a box makes a hull"));
        let (mut compared, mut many_faces) = (0, 0);
        for h in &hulls {
            let r = h.bounding_radius();
            let mut points: Vec<Vec3> = (0..3000).map(|_| rng.unit_vector() * r * rng.range(0.0, 3.0)).collect();
            for &v in h.vertices() {
                points.push(v);
                points.push(v * (1.0 + rng.range(-1e-6, 1e-6)) + rng.unit_vector() * r * 1e-6);
            }
            for &(i, j) in h.edges() {
                let (a, b) = (h.vertices()[i as usize], h.vertices()[j as usize]);
                points.push(a.lerp(b, rng.next_real()));
                points.push(a.lerp(b, rng.next_real()) + rng.unit_vector() * r * rng.range(0.0, 0.5));
            }
            for x in points {
                let (got, want) = (closest_point_hull(h, x), closest_point_hull_scan(h, x));
                let bits = |(p, inside, n): (Vec3, bool, Vec3)| {
                    (p.to_array().map(Real::to_bits), inside, n.to_array().map(Real::to_bits))
                };
                assert_eq!(
                    bits(got),
                    bits(want),
                    "point {x:?} against a hull of {} faces, radius {r}",
                    h.faces().len()
                );
                compared += 1;
                many_faces += usize::from(h.faces().len() > MANY_FACES);
            }
        }
        assert!(many_faces > 10_000, "only {many_faces} answers on hulls of more than {MANY_FACES} faces");
        eprintln!("{compared} points compared");
    }
}
