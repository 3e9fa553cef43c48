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
    let (c, pu, pv) = (r.local(inc.c - r.c), r.local(inc.u), r.local(inc.v));
    let tag = inc.face << 4;
    let mut poly = Poly { pts: [(Vec3::ZERO, 0); CAP], len: 4 };
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
    clip_half(&poly, |q| q.y - hv, tag_of(0), &mut next);
    if !stage(&next, &mut trace) {
        return None;
    }
    clip_half(&next, |q| -q.x - hu, tag_of(1), &mut poly);
    if !stage(&poly, &mut trace) {
        return None;
    }
    clip_half(&poly, |q| -q.y - hv, tag_of(2), &mut next);
    if !stage(&next, &mut trace) {
        return None;
    }
    clip_half(&next, |q| q.x - hu, tag_of(3), &mut poly);
    if !stage(&poly, &mut trace) {
        return None;
    }
    let mut pts = [ContactPoint::default(); CAP];
    let mut n = 0;
    for &(q, id) in &poly.pts[..poly.len] {
        if q.z <= margin {
            // Midway between the incident point and its projection on the reference face.
            pts[n] = ContactPoint { point: r.world(Vec3::new(q.x, q.y, q.z * 0.5)), depth: -q.z, id };
            n += 1;
        }
    }
    (n > 0).then(|| reduce(r.n, &pts[..n]))
}
