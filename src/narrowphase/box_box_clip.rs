//! Face–face manifolds for cuboid pairs, clipped in the reference face's own 2D frame: the
//! reference face is an axis-aligned rectangle there, so each of its four side planes is a
//! one-coordinate compare instead of a general 3D plane clip (Box2D/ODE style). Same points,
//! order and feature ids as the general Sutherland–Hodgman path in `clip.rs`.

use super::clip::{ClipTrace, reduce};
use super::manifold::{ContactPoint, Manifold};
use crate::math::{Real, Vec3};

/// A quad clipped by four half planes has at most eight vertices.
const CAP: usize = 8;

/// A polygon in the reference frame: `x` along the face's first axis, `y` along its second,
/// `z` the signed height above the face; each vertex with its feature id.
#[derive(Clone, Copy)]
struct Poly {
    pts: [(Vec3, u32); CAP],
    len: usize,
}

impl Poly {
    #[inline(always)]
    fn push(&mut self, p: (Vec3, u32)) {
        // A convex quad never exceeds CAP; stay in bounds regardless.
        if self.len < CAP {
            self.pts[self.len] = p;
            self.len += 1;
        }
    }
}

/// The reference face: centre `c`, unit axes `u`, `v` (with `u × v` along `n`), half sizes
/// `hu`, `hv`, and outward unit normal `n`.
pub(super) struct RefFace {
    pub c: Vec3,
    pub u: Vec3,
    pub v: Vec3,
    pub n: Vec3,
    pub hu: Real,
    pub hv: Real,
}

/// The incident face: corners `c ± u ± v` (world space), and its face number for the ids.
pub(super) struct IncFace {
    pub c: Vec3,
    pub u: Vec3,
    pub v: Vec3,
    pub face: u32,
}

impl RefFace {
    #[inline(always)]
    fn local(&self, p: Vec3) -> Vec3 {
        Vec3::new(self.u.dot(p), self.v.dot(p), self.n.dot(p))
    }

    #[inline(always)]
    fn world(&self, q: Vec3) -> Vec3 {
        self.c + self.u * q.x + self.v * q.y + self.n * q.z
    }
}

/// Keeps the part of `poly` where `dist(q) <= 0`. Mirrors `clip::clip_to_plane`: a vertex
/// created on the line takes `edge_tag ^ (id of the edge's first vertex).rotate_left(8)`.
#[inline(always)]
fn clip_half(poly: &Poly, dist: impl Fn(Vec3) -> Real, edge_tag: u32, out: &mut Poly) {
    out.len = 0;
    let len = poly.len;
    let edges = if len == 2 { 1 } else { len };
    for i in 0..edges {
        let (a, ia) = poly.pts[i];
        let b = poly.pts[if i + 1 == len { 0 } else { i + 1 }].0;
        let (da, db) = (dist(a), dist(b));
        if da <= 0.0 {
            out.push((a, ia));
        }
        if (da <= 0.0) != (db <= 0.0) {
            let t = da / (da - db);
            out.push((a + (b - a) * t, edge_tag ^ ia.rotate_left(8)));
        }
    }
    if len == 2 && dist(poly.pts[1].0) <= 0.0 {
        out.push(poly.pts[1]);
    }
}

/// Clips the incident quad `c ± u ± v` (world space, ids `face << 4 | corner`) against the
/// reference rectangle and keeps the points within `margin` of it, reduced to four. The side
/// planes are taken in the order of the reference corners `+u+v, -u+v, -u-v, +u-v`, the k-th
/// tagging its new vertices `(ref_tag + k + 1) << 20`, exactly as `clip::clip_faces` does.
pub(super) fn clip_box_faces(
    r: &RefFace,
    inc: &IncFace,
    margin: Real,
    ref_tag: u32,
    trace: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    let mut poly = Poly { pts: [(Vec3::ZERO, 0); CAP], len: 0 };
    if !clip_box_polygon(r, inc, ref_tag, trace, &mut poly) {
        return None;
    }
    let (pts, n) = contact_points(r, &poly, margin);
    (n > 0).then(|| reduce(r.n, &pts[..n]))
}

/// Writes the incident quad clipped by the four side planes, in the reference frame, to `poly`
/// (filled in place, not returned, to avoid copying it); `false` once nothing is left.
#[inline(always)]
fn clip_box_polygon(r: &RefFace, inc: &IncFace, ref_tag: u32, trace: Option<&mut ClipTrace>, poly: &mut Poly) -> bool {
    let (c, pu, pv) = (r.local(inc.c - r.c), r.local(inc.u), r.local(inc.v));
    let tag = inc.face << 4;
    poly.len = 4;
    poly.pts[0] = (c + pu + pv, tag);
    poly.pts[1] = (c - pu + pv, tag | 1);
    poly.pts[2] = (c - pu - pv, tag | 2);
    poly.pts[3] = (c + pu - pv, tag | 3);
    let mut next = Poly { pts: [(Vec3::ZERO, 0); CAP], len: 0 };
    let mut trace = trace;
    if let Some(t) = trace.as_deref_mut() {
        let (u, v) = (r.u * r.hu, r.v * r.hv);
        let fc = r.c;
        t.reference = vec![fc + u + v, fc - u + v, fc - u - v, fc + u - v];
        t.incident = poly.pts[..4].iter().map(|p| r.world(p.0)).collect();
    }
    // The four side planes, unrolled so each distance is one coordinate compare; the two
    // buffers alternate (no copies).
    let (hu, hv) = (r.hu, r.hv);
    let tag_of = |k: u32| ref_tag.wrapping_add(k + 1) << 20;
    let stage = |p: &Poly, trace: &mut Option<&mut ClipTrace>| {
        if let Some(t) = trace.as_deref_mut() {
            t.stages.push(p.pts[..p.len].iter().map(|q| r.world(q.0)).collect());
        }
        p.len > 0
    };
    clip_half(poly, |q| q.y - hv, tag_of(0), &mut next);
    if !stage(&next, &mut trace) {
        return false;
    }
    clip_half(&next, |q| -q.x - hu, tag_of(1), poly);
    if !stage(poly, &mut trace) {
        return false;
    }
    clip_half(poly, |q| -q.y - hv, tag_of(2), &mut next);
    if !stage(&next, &mut trace) {
        return false;
    }
    clip_half(&next, |q| q.x - hu, tag_of(3), poly);
    if !stage(poly, &mut trace) {
        return false;
    }
    true
}

/// The clipped points within `margin` of the reference face, in world space, before reduction.
#[inline(always)]
fn contact_points(r: &RefFace, poly: &Poly, margin: Real) -> ([ContactPoint; CAP], usize) {
    let mut pts = [ContactPoint::default(); CAP];
    let mut n = 0;
    for &(q, id) in &poly.pts[..poly.len] {
        if q.z <= margin {
            // Midway between the incident point and its projection on the reference face.
            pts[n] = ContactPoint { point: r.world(Vec3::new(q.x, q.y, q.z * 0.5)), depth: -q.z, id };
            n += 1;
        }
    }
    (pts, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrowphase::clip::{Tagged, clip_to_plane};
    use proptest::prelude::*;

    /// The general Sutherland–Hodgman path (3D side planes) on the same faces, before
    /// reduction, as the reference: the points within `margin`, with their ids.
    fn general(r: &RefFace, inc: &IncFace, margin: Real, ref_tag: u32) -> Vec<ContactPoint> {
        let (u, v, fc) = (r.u * r.hu, r.v * r.hv, r.c);
        let reference = [fc + u + v, fc - u + v, fc - u - v, fc + u - v];
        let t = inc.face << 4;
        let (c, iu, iv) = (inc.c, inc.u, inc.v);
        let mut poly: Vec<Tagged> =
            vec![(c + iu + iv, t), (c - iu + iv, t | 1), (c - iu - iv, t | 2), (c + iu - iv, t | 3)];
        for k in 0..4 {
            let (a, b) = (reference[k], reference[(k + 1) % 4]);
            let side = (b - a).cross(r.n).normalize();
            let mut next = Vec::new();
            clip_to_plane(&poly, side, side.dot(a), ref_tag.wrapping_add(k as u32 + 1) << 20, &mut next);
            poly = next;
        }
        poly.iter()
            .filter_map(|&(p, id)| {
                let sep = r.n.dot(p - fc);
                (sep <= margin).then(|| ContactPoint { point: p - r.n * (sep * 0.5), depth: -sep, id })
            })
            .collect()
    }

    fn fast(r: &RefFace, inc: &IncFace, margin: Real, ref_tag: u32) -> Vec<ContactPoint> {
        let mut poly = Poly { pts: [(Vec3::ZERO, 0); CAP], len: 0 };
        if !clip_box_polygon(r, inc, ref_tag, None, &mut poly) {
            return Vec::new();
        }
        let (pts, n) = contact_points(r, &poly, margin);
        pts[..n].to_vec()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

        /// Same points (to rounding), depths and feature ids as the general clipper.
        #[test]
        fn matches_general_clipping(
            hu in 0.1f32..2.0, hv in 0.1f32..2.0,
            (ax, ay, az) in (-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2),
            (bx, by, bz) in (-0.6f32..0.6, -0.6f32..0.6, -0.6f32..0.6),
            (ox, oy, oz) in (-2.0f32..2.0, -2.0f32..2.0, -0.3f32..0.3),
            (su, sv) in (0.1f32..2.0, 0.1f32..2.0),
            margin in 0.0f32..0.1,
        ) {
            let q = crate::math::Quat::from_euler(glam::EulerRot::XYZ, ax, ay, az);
            let (u, v, n) = (q * Vec3::X, q * Vec3::Y, q * Vec3::Z);
            let r = RefFace { c: Vec3::new(0.3, -0.2, 0.1), u, v, n, hu, hv };
            // Incident face roughly facing -n, tilted a little, offset in the face plane.
            let qi = q * crate::math::Quat::from_euler(glam::EulerRot::XYZ, std::f32::consts::PI + bx, by, bz);
            let inc = IncFace { c: r.c + u * ox + v * oy + n * oz, u: qi * Vec3::X * su, v: qi * Vec3::Y * sv, face: 3 };
            let (f, g) = (fast(&r, &inc, margin, 5), general(&r, &inc, margin, 5));
            // Points on a side line within rounding may be kept by one path and not the
            // other; away from that, the two agree point by point, ids included.
            let near_side = f.iter().chain(&g).any(|p| {
                let q = p.point - r.c;
                (r.u.dot(q).abs() - hu).abs() < 1e-4 || (r.v.dot(q).abs() - hv).abs() < 1e-4
            });
            prop_assume!(f.len() == g.len() || !near_side);
            prop_assert_eq!(f.len(), g.len(), "fast {:?} general {:?}", f, g);
            for (a, b) in f.iter().zip(&g) {
                prop_assert_eq!(a.id, b.id, "fast {:?} general {:?}", f, g);
                prop_assert!((a.point - b.point).length() < 1e-4, "fast {:?} general {:?}", f, g);
                prop_assert!((a.depth - b.depth).abs() < 1e-4, "fast {:?} general {:?}", f, g);
            }
        }
    }

    #[test]
    fn trace_shows_every_stage() {
        let r = RefFace { c: Vec3::ZERO, u: Vec3::X, v: Vec3::NEG_Z, n: Vec3::Y, hu: 1.0, hv: 1.0 };
        let inc = IncFace { c: Vec3::new(1.5, -0.1, 0.0), u: Vec3::X, v: Vec3::Z, face: 2 };
        let mut t = ClipTrace::default();
        let m = clip_box_faces(&r, &inc, 0.0, 0, Some(&mut t)).unwrap();
        assert_eq!(t.reference.len(), 4);
        assert_eq!(t.incident.len(), 4);
        assert_eq!(t.stages.len(), 4);
        assert_eq!(m.len(), 4);
        for p in m.points() {
            assert!((p.depth - 0.1).abs() < 1e-6);
            assert!(p.point.x >= 0.5 - 1e-6 && p.point.x <= 1.0 + 1e-6);
        }
    }
}
