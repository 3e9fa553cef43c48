//! Manifold construction by Sutherland–Hodgman clipping, and reduction to four points.

pub(super) mod face_rect;
pub(super) mod features;

use crate::math::{Real, Vec3};
use crate::narrowphase::manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use glam::Vec3A;
use std::ops::{Add, Mul, Sub};

/// A clipped vertex and the feature id it came from.
pub(super) type Tagged = (Vec3, u32);

/// The clipping stages, kept so the app can show them.
#[derive(Clone, Debug, Default)]
pub struct ClipTrace {
    pub reference: Vec<Vec3>,
    pub incident: Vec<Vec3>,
    /// The incident polygon after each side plane.
    pub stages: Vec<Vec<Vec3>>,
}

/// A vertex type the clipper interpolates: `Vec3` (world space) or `Vec3A` (the reference
/// face's own frame, in `face_rect`). Both do the same IEEE operations lane by lane.
pub(super) trait ClipPoint: Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Real, Output = Self> {}

impl ClipPoint for Vec3 {}
impl ClipPoint for Vec3A {}

/// Somewhere to put a clipped polygon: a `Vec`, or a fixed array when the polygon is known
/// to be small (no heap allocation on the hot box–box path).
pub(super) trait PolyBuf<P = Vec3> {
    fn clear(&mut self);
    fn push(&mut self, p: (P, u32));
    fn as_slice(&self) -> &[(P, u32)];
    /// Appends `p` when `keep`. A buffer with a spare slot may write it either way and only
    /// advance when kept (no branch to mispredict).
    #[inline(always)]
    fn push_if(&mut self, p: (P, u32), keep: bool) {
        if keep {
            self.push(p);
        }
    }
}

impl PolyBuf for Vec<Tagged> {
    fn clear(&mut self) {
        Vec::clear(self)
    }
    fn push(&mut self, p: Tagged) {
        Vec::push(self, p)
    }
    fn as_slice(&self) -> &[Tagged] {
        self
    }
}

/// Largest polygon the fixed-capacity clipping path holds: a quad clipped by four planes has
/// at most 8 vertices; hull faces up to `SMALL_POLY` in total take this path too.
pub(super) const SMALL_POLY: usize = 16;

/// A polygon of at most [`SMALL_POLY`] vertices on the stack.
#[derive(Clone, Copy, Debug)]
pub(super) struct SmallPoly {
    pts: [Tagged; SMALL_POLY],
    len: usize,
}

impl Default for SmallPoly {
    fn default() -> Self {
        Self { pts: [(Vec3::ZERO, 0); SMALL_POLY], len: 0 }
    }
}

impl PolyBuf for SmallPoly {
    fn clear(&mut self) {
        self.len = 0;
    }
    #[inline]
    fn push(&mut self, p: Tagged) {
        // Callers size the input so that this never overflows; stay in bounds regardless.
        if self.len < SMALL_POLY {
            self.pts[self.len] = p;
            self.len += 1;
        }
    }
    fn as_slice(&self) -> &[Tagged] {
        &self.pts[..self.len]
    }
}

/// Clips `poly` to the half space `dist(x) <= 0` (Sutherland–Hodgman): the one clipping
/// routine, for 3D planes (`n . x - d`, [`clip_to_plane`]) and for the axis-aligned sides of a
/// box face in its own frame (one coordinate, `face_rect`). A vertex created on the plane takes
/// the id `edge_tag ^ (id of the edge's first vertex).rotate_left(8)`, which is stable while
/// the same features touch. Each vertex's distance is computed once.
#[inline(always)]
pub(super) fn clip_by<P: ClipPoint>(
    poly: &[(P, u32)],
    dist: impl Fn(P) -> Real,
    edge_tag: u32,
    out: &mut impl PolyBuf<P>,
) {
    out.clear();
    let len = poly.len();
    let Some(&(first, _)) = poly.first() else { return };
    // Two points are a segment, not a closed polygon: walk its one edge once.
    let edges = if len == 2 { 1 } else { len };
    let mut db = dist(first);
    for i in 0..edges {
        let (a, ia) = poly[i];
        let b = poly[if i + 1 == len { 0 } else { i + 1 }].0;
        let da = db;
        db = dist(b);
        let (ina, inb) = (da <= 0.0, db <= 0.0);
        out.push_if((a, ia), ina);
        let t = da / (da - db);
        out.push_if((a + (b - a) * t, edge_tag ^ ia.rotate_left(8)), ina != inb);
    }
    if len == 2 {
        out.push_if(poly[1], db <= 0.0);
    }
}

/// Clips `poly` to the half space `n . x <= d` ([`clip_by`]).
pub(super) fn clip_to_plane(poly: &[Tagged], n: Vec3, d: Real, edge_tag: u32, out: &mut impl PolyBuf) {
    clip_by(poly, |x| n.dot(x) - d, edge_tag, out)
}

/// Builds a manifold by clipping the incident polygon against the side planes of the
/// reference polygon. `ref_normal` is the reference face's outward normal, which points at the
/// incident body; the manifold normal is `ref_normal` (flip it afterwards if the reference body
/// is B). Points farther than `margin` in front of the reference face are dropped. Returns
/// `None` when nothing survives.
pub(super) fn clip_faces(
    reference: &[Vec3],
    ref_normal: Vec3,
    incident: &[Tagged],
    margin: Real,
    ref_tag: u32,
    trace: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    // Clipping by k planes adds at most k vertices.
    if incident.len() + reference.len() <= SMALL_POLY {
        let (mut poly, mut next) = (SmallPoly::default(), SmallPoly::default());
        for &p in incident {
            poly.push(p);
        }
        let kept = clip_all(reference, ref_normal, &mut poly, &mut next, ref_tag, trace)?;
        let mut pts = [ContactPoint::default(); SMALL_POLY];
        let n = contact_points(kept, reference[0], ref_normal, margin, &mut pts);
        (n > 0).then(|| reduce(ref_normal, &pts[..n]))
    } else {
        let (mut poly, mut next) = (incident.to_vec(), Vec::new());
        let kept = clip_all(reference, ref_normal, &mut poly, &mut next, ref_tag, trace)?;
        let mut pts = vec![ContactPoint::default(); kept.len()];
        let n = contact_points(kept, reference[0], ref_normal, margin, &mut pts);
        (n > 0).then(|| reduce(ref_normal, &pts[..n]))
    }
}

/// Clips `poly` by every side plane of `reference`, using `next` as scratch (the two swap
/// roles by reference, never copied); `None` once nothing is left.
fn clip_all<'p, B: PolyBuf>(
    reference: &[Vec3],
    ref_normal: Vec3,
    mut poly: &'p mut B,
    mut next: &'p mut B,
    ref_tag: u32,
    mut trace: Option<&mut ClipTrace>,
) -> Option<&'p [Tagged]> {
    let n = reference.len();
    if let Some(t) = trace.as_deref_mut() {
        t.reference = reference.to_vec();
        t.incident = poly.as_slice().iter().map(|p| p.0).collect();
    }
    for i in 0..n {
        let a = reference[i];
        let b = reference[if i + 1 == n { 0 } else { i + 1 }];
        let side = (b - a).cross(ref_normal).normalize_or_zero();
        if side == Vec3::ZERO {
            continue;
        }
        clip_to_plane(poly.as_slice(), side, side.dot(a), ref_tag.wrapping_add(i as u32 + 1) << 20, next);
        std::mem::swap(&mut poly, &mut next);
        if let Some(t) = trace.as_deref_mut() {
            t.stages.push(poly.as_slice().iter().map(|p| p.0).collect());
        }
        if poly.as_slice().is_empty() {
            return None;
        }
    }
    Some(poly.as_slice())
}

/// The clipped points within `margin` of the reference face, written to `out` (as long as
/// `poly`); returns how many.
fn contact_points(poly: &[Tagged], on_face: Vec3, ref_normal: Vec3, margin: Real, out: &mut [ContactPoint]) -> usize {
    let face_d = ref_normal.dot(on_face);
    let mut n = 0;
    for &(p, id) in poly {
        let sep = ref_normal.dot(p) - face_d;
        if sep <= margin {
            // Midway between the incident point and its projection on the reference face.
            out[n] = ContactPoint { point: p - ref_normal * (sep * 0.5), depth: -sep, id };
            n += 1;
        }
    }
    n
}

/// Keeps at most four points: the deepest, the one farthest from it, then the two that add the
/// most area on either side of that diagonal.
pub(super) fn reduce(normal: Vec3, pts: &[ContactPoint]) -> Manifold {
    if pts.len() <= MAX_MANIFOLD_POINTS {
        return keep_all(normal, pts);
    }
    let deepest = last_max(pts, |p| p.depth);
    let a = pts[deepest].point;
    let far = last_max(pts, |p| a.distance_squared(p.point));
    reduce_across(normal, pts, deepest, far)
}

/// Keeps at most four points: `pts[deepest]` and `pts[far]`, then the two that add the most
/// area on either side of the diagonal between them (all of them, in order, when four or fewer,
/// whatever the indices).
pub(super) fn reduce_across(normal: Vec3, pts: &[ContactPoint], deepest: usize, far: usize) -> Manifold {
    if pts.len() <= MAX_MANIFOLD_POINTS {
        return keep_all(normal, pts);
    }
    let mut m = Manifold::new(normal);
    let (a, b) = (pts[deepest].point, pts[far].point);
    let ab = b - a;
    let signed_area = |p: Vec3| ab.cross(p - a).dot(normal);
    let first = signed_area(pts[0].point);
    let (mut hi, mut lo, mut third, mut fourth) = (first, first, 0, 0);
    for (i, p) in pts.iter().enumerate().skip(1) {
        let s = signed_area(p.point);
        if s.total_cmp(&hi).is_ge() {
            (hi, third) = (s, i);
        }
        if s.total_cmp(&lo).is_lt() {
            (lo, fourth) = (s, i);
        }
    }
    let mut chosen = [deepest; MAX_MANIFOLD_POINTS];
    let mut count = 1;
    for k in [far, third, fourth] {
        if !chosen[..count].contains(&k) {
            chosen[count] = k;
            count += 1;
        }
    }
    for &k in &chosen[..count] {
        m.push(pts[k]);
    }
    m
}

/// A manifold of all of `pts` (at most [`MAX_MANIFOLD_POINTS`]), in order.
fn keep_all(normal: Vec3, pts: &[ContactPoint]) -> Manifold {
    let mut m = Manifold::new(normal);
    for p in pts {
        m.push(*p);
    }
    m
}

/// The index of the largest key, the last of equal ones (the tie rule of `Iterator::max_by`),
/// each key computed once; generic, so the key is inlined.
#[inline(always)]
fn last_max(pts: &[ContactPoint], key: impl Fn(&ContactPoint) -> Real) -> usize {
    let (mut best, mut at) = (key(&pts[0]), 0);
    for (i, p) in pts.iter().enumerate().skip(1) {
        let k = key(p);
        if k.total_cmp(&best).is_ge() {
            (best, at) = (k, i);
        }
    }
    at
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_on_square_keeps_the_overlap() {
        let r = [
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(-1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, -1.0),
        ];
        // Incident square shifted by 1.5 in x and sunk 0.1 below the face (normal +y).
        let inc: Vec<Tagged> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(x, z))| (Vec3::new(x + 1.5, -0.1, z), i as u32))
            .collect();
        let m = clip_faces(&r, Vec3::Y, &inc, 0.0, 0, None).unwrap();
        assert_eq!(m.len(), 4);
        for p in m.points() {
            assert!((p.depth - 0.1).abs() < 1e-6);
            assert!(p.point.x >= 0.5 - 1e-6 && p.point.x <= 1.0 + 1e-6);
        }
    }

    #[test]
    fn reduction_keeps_deepest_and_four() {
        let pts: Vec<ContactPoint> = (0..8)
            .map(|i| {
                let a = i as Real * std::f32::consts::TAU / 8.0;
                ContactPoint { point: Vec3::new(a.cos(), 0.0, a.sin()), depth: if i == 5 { 0.3 } else { 0.1 }, id: i }
            })
            .collect();
        let m = reduce(Vec3::Y, &pts);
        assert_eq!(m.len(), 4);
        assert!(m.points().iter().any(|p| p.id == 5));
    }
}
