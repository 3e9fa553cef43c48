//! Face–face manifolds for cuboid pairs, clipped in the reference face's own 2D frame: the
//! reference face is an axis-aligned rectangle there, so each of its four side planes is a
//! one-coordinate compare instead of a general 3D plane clip (Box2D/ODE style), through the one
//! clipping routine [`clip_by`]. Same points, order and feature ids as the general path,
//! `clip::clip_faces`.

use crate::math::{Real, Vec3};
use crate::narrowphase::clip::{ClipTrace, PolyBuf, clip_by, reduce};
use crate::narrowphase::manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use glam::{Mat3A, Vec3A, Vec4, Vec4Swizzles};

/// A quad clipped by four half planes has at most eight vertices.
const CAP: usize = 8;
/// One slot more than `CAP`: pushes past `CAP` land there and are dropped, without a branch.
const SLOTS: usize = CAP + 1;

/// A polygon in the reference frame: `x` along the face's first axis, `y` along its second,
/// `z` the signed height above the face; each vertex with its feature id.
#[derive(Clone, Copy)]
struct Poly {
    pts: [(Vec3A, u32); SLOTS],
    len: usize,
}

impl Poly {
    const EMPTY: Poly = Poly { pts: [(Vec3A::ZERO, 0); SLOTS], len: 0 };

    fn world(&self, r: &RefFace) -> Vec<Vec3> {
        self.pts[..self.len].iter().map(|&(q, _)| r.world(q).into()).collect()
    }
}

impl PolyBuf<Vec3A> for Poly {
    fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends a vertex unless the polygon is full (a convex quad never fills it).
    #[inline(always)]
    fn push(&mut self, p: (Vec3A, u32)) {
        let k = self.len;
        if k < CAP {
            self.pts[k] = p;
            self.len = k + 1;
        }
    }

    fn as_slice(&self) -> &[(Vec3A, u32)] {
        &self.pts[..self.len]
    }

    /// Writes `p` unconditionally and advances only if it is kept; the slot past `CAP` absorbs
    /// overflow, which [`PolyBuf::push`] would drop.
    #[inline(always)]
    fn push_if(&mut self, p: (Vec3A, u32), keep: bool) {
        self.pts[self.len] = p;
        self.len = (self.len + keep as usize).min(CAP);
    }
}

/// The four side planes of the reference rectangle, in clipping order: the signed distances
/// `y - hv`, `-x - hu`, `-y - hv`, `x - hu` (inside where `<= 0`).
struct Sides {
    hu: Real,
    hv: Real,
    h4: Vec4,
}

impl Sides {
    /// Side `K`'s distance of `q`, as one coordinate compare.
    #[inline(always)]
    fn dist<const K: usize>(&self, q: Vec3A) -> Real {
        match K {
            0 => q.y - self.hv,
            1 => -q.x - self.hu,
            2 => -q.y - self.hv,
            _ => q.x - self.hu,
        }
    }

    /// Bit `K` set when `q` is inside side `K`, for all four at once (the same values as
    /// [`Sides::dist`]: multiplying by ±1 is exact).
    #[inline(always)]
    fn inside_mask(&self, q: Vec3A) -> u32 {
        let d = Vec4::from((q, 0.0)).yxyx() * Vec4::new(1.0, -1.0, -1.0, 1.0) - self.h4;
        d.cmple(Vec4::ZERO).bitmask()
    }

    /// Sides that every vertex of `poly` is inside.
    #[inline(always)]
    fn all_inside(&self, poly: &Poly) -> u32 {
        poly.as_slice().iter().fold(0xf, |m, &(q, _)| m & self.inside_mask(q))
    }
}

/// The reference face: centre `c`, unit axes `u`, `v` (with `u × v` along `n`), half sizes
/// `hu`, `hv`, and outward unit normal `n`.
pub(in crate::narrowphase) struct RefFace {
    pub c: Vec3A,
    pub u: Vec3A,
    pub v: Vec3A,
    pub n: Vec3A,
    pub hu: Real,
    pub hv: Real,
    /// `u`, `v`, `n` as rows, for [`RefFace::local`].
    rows: Mat3A,
}

/// The incident face: corners `c ± u ± v` (world space), and its face number for the ids.
pub(in crate::narrowphase) struct IncFace {
    pub c: Vec3A,
    pub u: Vec3A,
    pub v: Vec3A,
    pub face: u32,
}

impl RefFace {
    #[inline(always)]
    pub(crate) fn new(c: Vec3A, u: Vec3A, v: Vec3A, n: Vec3A, hu: Real, hv: Real) -> Self {
        Self { c, u, v, n, hu, hv, rows: Mat3A::from_cols(u, v, n).transpose() }
    }

    /// `(u . p, v . p, n . p)`, each sum in `Vec3::dot`'s order.
    #[inline(always)]
    fn local(&self, p: Vec3A) -> Vec3A {
        self.rows.mul_vec3a(p)
    }

    #[inline(always)]
    fn world(&self, q: Vec3A) -> Vec3A {
        self.c + self.u * q.x + self.v * q.y + self.n * q.z
    }
}

/// Where the clipping stages go: nowhere ([`NoTrace`], compiled away) or a [`ClipTrace`].
pub(in crate::narrowphase) trait ClipRecorder {
    fn faces(&mut self, reference: impl FnOnce() -> Vec<Vec3>, incident: impl FnOnce() -> Vec<Vec3>);
    fn stage(&mut self, polygon: impl FnOnce() -> Vec<Vec3>);
}

/// Records nothing.
pub(in crate::narrowphase) struct NoTrace;

impl ClipRecorder for NoTrace {
    #[inline(always)]
    fn faces(&mut self, _: impl FnOnce() -> Vec<Vec3>, _: impl FnOnce() -> Vec<Vec3>) {}
    #[inline(always)]
    fn stage(&mut self, _: impl FnOnce() -> Vec<Vec3>) {}
}

impl ClipRecorder for ClipTrace {
    fn faces(&mut self, reference: impl FnOnce() -> Vec<Vec3>, incident: impl FnOnce() -> Vec<Vec3>) {
        self.reference = reference();
        self.incident = incident();
    }
    fn stage(&mut self, polygon: impl FnOnce() -> Vec<Vec3>) {
        self.stages.push(polygon());
    }
}

/// Clips the incident quad `c ± u ± v` (world space, ids `face << 4 | corner`) against the
/// reference rectangle and keeps the points within `margin` of it, reduced to four. The side
/// planes are taken in the order of the reference corners `+u+v, -u+v, -u-v, +u-v`, the k-th
/// tagging its new vertices `(ref_tag + k + 1) << 20`, exactly as `clip::clip_faces` does.
#[inline(always)]
pub(in crate::narrowphase) fn clip_box_faces(
    r: &RefFace,
    inc: &IncFace,
    margin: Real,
    ref_tag: u32,
    trace: &mut impl ClipRecorder,
) -> Option<Manifold> {
    let (mut a, mut b) = (Poly::EMPTY, Poly::EMPTY);
    let poly = clip_polygon(r, inc, ref_tag, trace, &mut a, &mut b)?;
    let mut n = 0;
    for (q, _) in poly.as_slice() {
        n += (q.z <= margin) as usize;
    }
    if n == 0 {
        None
    } else if n <= MAX_MANIFOLD_POINTS {
        // What `reduce` does with this few: keep them all, in order (written straight in).
        let mut m = Manifold::new(r.n.into());
        for k in 0..poly.len {
            if poly.pts[k].0.z <= margin {
                m.push(contact_point(r, poly, k));
            }
        }
        Some(m)
    } else {
        let mut pts = [ContactPoint::default(); CAP];
        let n = contact_points(r, poly, margin, &mut pts);
        Some(reduce(r.n.into(), &pts[..n]))
    }
}

/// Clips the incident quad by the four side planes, in the reference frame, using `a` and `b`
/// as the two buffers; `None` once nothing is left.
#[inline(always)]
fn clip_polygon<'p>(
    r: &RefFace,
    inc: &IncFace,
    ref_tag: u32,
    trace: &mut impl ClipRecorder,
    a: &'p mut Poly,
    b: &'p mut Poly,
) -> Option<&'p Poly> {
    let (c, pu, pv) = (r.local(inc.c - r.c), r.local(inc.u), r.local(inc.v));
    let tag = inc.face << 4;
    let corners = [c + pu + pv, c - pu + pv, c - pu - pv, c + pu - pv];
    a.clear();
    for (k, &q) in corners.iter().enumerate() {
        a.push((q, tag | k as u32));
    }
    trace.faces(
        || {
            let (u, v, fc) = (r.u * r.hu, r.v * r.hv, r.c);
            [fc + u + v, fc - u + v, fc - u - v, fc + u - v].map(Vec3::from).to_vec()
        },
        || a.world(r),
    );
    // The four side planes in order. A side that every vertex is inside leaves the polygon as
    // it is, so it is skipped (no copy); the two buffers swap roles only when a side cuts.
    let sides = Sides { hu: r.hu, hv: r.hv, h4: Vec4::new(r.hv, r.hu, r.hv, r.hu) };
    let tag_of = |k: u32| ref_tag.wrapping_add(k + 1) << 20;
    let mut state = (sides.all_inside(a), true);
    let ok = side::<0>(&sides, tag_of(0), a, b, &mut state, r, trace)
        && side::<1>(&sides, tag_of(1), a, b, &mut state, r, trace)
        && side::<2>(&sides, tag_of(2), a, b, &mut state, r, trace)
        && side::<3>(&sides, tag_of(3), a, b, &mut state, r, trace);
    ok.then_some(if state.1 { a } else { b })
}

/// Side `K` of the clipping, skipped when every vertex is inside it. `state` is the sides
/// every vertex is inside and whether `a` holds the polygon; `false` once nothing is left.
#[inline(always)]
fn side<const K: usize>(
    sides: &Sides,
    tag: u32,
    a: &mut Poly,
    b: &mut Poly,
    state: &mut (u32, bool),
    r: &RefFace,
    trace: &mut impl ClipRecorder,
) -> bool {
    let (inside, in_a) = state;
    if *inside & (1 << K) == 0 {
        let (src, dst) = if *in_a { (&*a, &mut *b) } else { (&*b, &mut *a) };
        clip_by(src.as_slice(), |q| sides.dist::<K>(q), tag, dst);
        *inside = sides.all_inside(dst);
        *in_a = !*in_a;
    }
    let cur = if *in_a { &*a } else { &*b };
    trace.stage(|| cur.world(r));
    cur.len > 0
}

/// Vertex `k` as a contact point: midway between it and its projection on the reference face.
#[inline(always)]
fn contact_point(r: &RefFace, poly: &Poly, k: usize) -> ContactPoint {
    let (q, id) = poly.pts[k];
    ContactPoint { point: r.world(q * Vec3A::new(1.0, 1.0, 0.5)).into(), depth: -q.z, id }
}

/// The clipped points within `margin` of the reference face, in world space, written to `out`
/// before reduction; returns how many.
#[inline(always)]
fn contact_points(r: &RefFace, poly: &Poly, margin: Real, out: &mut [ContactPoint; CAP]) -> usize {
    let mut n = 0;
    for k in 0..poly.len {
        if poly.pts[k].0.z <= margin {
            out[n] = contact_point(r, poly, k);
            n += 1;
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrowphase::clip::{Tagged, clip_to_plane};
    use proptest::prelude::*;

    /// The general Sutherland–Hodgman path (3D side planes) on the same faces, before
    /// reduction, as the reference: the points within `margin`, with their ids.
    fn general(r: &RefFace, inc: &IncFace, margin: Real, ref_tag: u32) -> Vec<ContactPoint> {
        let (n, u, v, fc) = (Vec3::from(r.n), Vec3::from(r.u * r.hu), Vec3::from(r.v * r.hv), Vec3::from(r.c));
        let reference = [fc + u + v, fc - u + v, fc - u - v, fc + u - v];
        let t = inc.face << 4;
        let (c, iu, iv) = (Vec3::from(inc.c), Vec3::from(inc.u), Vec3::from(inc.v));
        let mut poly: Vec<Tagged> =
            vec![(c + iu + iv, t), (c - iu + iv, t | 1), (c - iu - iv, t | 2), (c + iu - iv, t | 3)];
        for k in 0..4 {
            let (a, b) = (reference[k], reference[(k + 1) % 4]);
            let side = (b - a).cross(n).normalize();
            let mut next = Vec::new();
            clip_to_plane(&poly, side, side.dot(a), ref_tag.wrapping_add(k as u32 + 1) << 20, &mut next);
            poly = next;
        }
        poly.iter()
            .filter_map(|&(p, id)| {
                let sep = n.dot(p - fc);
                (sep <= margin).then(|| ContactPoint { point: p - n * (sep * 0.5), depth: -sep, id })
            })
            .collect()
    }

    fn fast(r: &RefFace, inc: &IncFace, margin: Real, ref_tag: u32) -> Vec<ContactPoint> {
        let (mut a, mut b) = (Poly::EMPTY, Poly::EMPTY);
        let Some(poly) = clip_polygon(r, inc, ref_tag, &mut NoTrace, &mut a, &mut b) else {
            return Vec::new();
        };
        let mut pts = [ContactPoint::default(); CAP];
        let n = contact_points(r, poly, margin, &mut pts);
        pts[..n].to_vec()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, rng_seed: proptest::test_runner::RngSeed::Fixed(0xc11b), failure_persistence: None, ..ProptestConfig::default() })]

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
            let (u, v, n) = (q * Vec3A::X, q * Vec3A::Y, q * Vec3A::Z);
            let r = RefFace::new(Vec3A::new(0.3, -0.2, 0.1), u, v, n, hu, hv);
            // Incident face roughly facing -n, tilted a little, offset in the face plane.
            let qi = q * crate::math::Quat::from_euler(glam::EulerRot::XYZ, std::f32::consts::PI + bx, by, bz);
            let inc = IncFace { c: r.c + u * ox + v * oy + n * oz, u: qi * Vec3A::X * su, v: qi * Vec3A::Y * sv, face: 3 };
            let (f, g) = (fast(&r, &inc, margin, 5), general(&r, &inc, margin, 5));
            // Points on a side line within rounding may be kept by one path and not the
            // other; away from that, the two agree point by point, ids included.
            let near_side = f.iter().chain(&g).any(|p| {
                let q = Vec3A::from(p.point) - r.c;
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
        let r = RefFace::new(Vec3A::ZERO, Vec3A::X, Vec3A::NEG_Z, Vec3A::Y, 1.0, 1.0);
        let inc = IncFace { c: Vec3A::new(1.5, -0.1, 0.0), u: Vec3A::X, v: Vec3A::Z, face: 2 };
        let mut t = ClipTrace::default();
        let m = clip_box_faces(&r, &inc, 0.0, 0, &mut t).unwrap();
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
