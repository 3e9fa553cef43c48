//! Cuboid–cuboid by the separating axis theorem over 15 axes, with clipped face manifolds and
//! edge–edge contacts.

use crate::geometry::Cuboid;
use crate::geometry::segment::closest_points_segments;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::clip::ClipTrace;
use crate::narrowphase::clip::face_rect::{ClipRecorder, IncFace, NoTrace, RefFace, clip_box_faces};
use crate::narrowphase::{Manifold, Tolerance, apart};
use glam::{Mat3A, Vec3A, Vec3Swizzles};

/// Which kind of axis SAT tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatAxisKind {
    /// A face normal of A.
    FaceA(u16),
    /// A face normal of B.
    FaceB(u16),
    /// The cross product of an edge of A and an edge of B.
    Edge(u16, u16),
}

/// One tested axis and the separation along it (negative: overlapping by that much).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatAxis {
    /// Where the axis comes from.
    pub kind: SatAxisKind,
    /// The axis, a world-space unit vector.
    pub axis: Vec3,
    /// The gap along it (negative: overlapping by that much).
    pub separation: Real,
}

/// What SAT did, for the teaching view.
#[derive(Clone, Debug, Default)]
pub struct SatTrace {
    /// Every axis tested, in order.
    pub axes: Vec<SatAxis>,
    /// Index in `axes` of the axis the manifold was built on.
    pub chosen: Option<usize>,
    /// The clipping that built the manifold.
    pub clip: ClipTrace,
}

/// A posed box in SIMD-width vectors. `Vec3A` arithmetic is the same IEEE operations as `Vec3`'s,
/// lane by lane (no fused multiply-add), so results are bit for bit those of the scalar code.
struct Frame {
    axes: [Vec3A; 3],
    /// The same axes as rows: `rows.col(k)` holds component `k` of each axis.
    rows: Mat3A,
    he: Vec3A,
    /// Half extents as an array: indexed by axis number without a bounds-checking match.
    hs: [Real; 3],
    c: Vec3A,
}

/// `(k + 1) % 3` and `(k + 2) % 3` by table.
const NEXT: [usize; 3] = [1, 2, 0];
const PREV: [usize; 3] = [2, 0, 1];

impl Frame {
    #[inline(always)]
    fn new(b: &Cuboid, p: &Pose) -> Self {
        Self::with_rotation(b, p, &Mat3A::from_quat(p.rotation))
    }

    /// `m` is `Mat3A::from_quat(p.rotation)`, computed by the caller.
    #[inline(always)]
    fn with_rotation(b: &Cuboid, p: &Pose, m: &Mat3A) -> Self {
        Self {
            axes: [m.x_axis, m.y_axis, m.z_axis],
            rows: m.transpose(),
            he: b.half_extents.into(),
            hs: b.half_extents.to_array(),
            c: p.translation.into(),
        }
    }

    /// `[a_0 . v, a_1 . v, a_2 . v]`, each sum in `Vec3::dot`'s order.
    #[inline(always)]
    fn dots(&self, v: Vec3A) -> Vec3A {
        self.rows.mul_vec3a(v)
    }
}

/// B's rotation and offset seen in A's frame, shared by all 15 axes, as vectors:
/// `col[j]` lane `i` is `r[i][j] = a_i . b_j`; `t` lane `i` is `a_i . d`, `u` lane `j` is `b_j . d`.
struct Relative {
    col: [Vec3A; 3],
    abs_col: [Vec3A; 3],
    /// `abs_row[i]` lane `j` is `|r[i][j]|`.
    abs_row: [Vec3A; 3],
    t: Vec3A,
    u: Vec3A,
}

impl Relative {
    #[inline(always)]
    fn new(fa: &Frame, fb: &Frame, d: Vec3A) -> Self {
        let col = fb.axes.map(|b| fa.dots(b));
        let abs_col = col.map(Vec3A::abs);
        // The rows of |R| by transposing its columns: the same values, fewer operations.
        let abs_rows = Mat3A::from_cols(abs_col[0], abs_col[1], abs_col[2]).transpose();
        Self {
            col,
            abs_col,
            abs_row: [abs_rows.x_axis, abs_rows.y_axis, abs_rows.z_axis],
            t: fa.dots(d),
            u: fb.dots(d),
        }
    }

    /// Separations along A's three face axes.
    #[inline(always)]
    fn face_a(&self, fa: &Frame, fb: &Frame) -> Vec3A {
        let [c0, c1, c2] = self.abs_col;
        let rb = c0 * fb.hs[0] + c1 * fb.hs[1] + c2 * fb.hs[2];
        self.t.abs() - fa.he - rb
    }

    /// Separations along B's three face axes.
    #[inline(always)]
    fn face_b(&self, fa: &Frame, fb: &Frame) -> Vec3A {
        let [r0, r1, r2] = self.abs_row;
        let ra = r0 * fa.hs[0] + r1 * fa.hs[1] + r2 * fa.hs[2];
        self.u.abs() - ra - fb.he
    }

    /// The unnormalised separations `|t . axis| - ra - rb` along the edge axes `a_i x b_j`, for
    /// one `j` and the three `i` (lane `i`).
    #[inline(always)]
    fn edge_gaps(&self, fa: &Frame, fb: &Frame, j: usize) -> Vec3A {
        let (c, ac) = (self.col[j], self.abs_col[j]);
        let t = self.t;
        let dist = (t.zxy() * c.yzx() - t.yzx() * c.zxy()).abs();
        let ra = fa.he.yzx() * ac.zxy() + fa.he.zxy() * ac.yzx();
        let rb = self.abs_col[PREV[j]] * fb.hs[NEXT[j]] + self.abs_col[NEXT[j]] * fb.hs[PREV[j]];
        dist - ra - rb
    }

    /// Squared lengths of the edge axes `a_i x b_j` for one `j` (lane `i`).
    #[inline(always)]
    fn edge_len2(&self, j: usize) -> Vec3A {
        let c = self.col[j];
        c.yzx() * c.yzx() + c.zxy() * c.zxy()
    }

    /// The edge axis `a_i x b_j` in A's frame, not normalised.
    #[inline]
    fn edge_axis(&self, i: usize, j: usize) -> Vec3 {
        let c = self.col[j].to_array();
        let mut axis = [0.0; 3];
        axis[NEXT[i]] = -c[PREV[i]];
        axis[PREV[i]] = c[NEXT[i]];
        Vec3::from_array(axis)
    }
}

/// Lanes of `s` that prove the pair apart at reach `r` (the rule of [`apart`], per lane).
#[inline(always)]
fn apart3(s: Vec3A, r: Real, eps: Real) -> bool {
    let r = Vec3A::splat(r);
    (s.cmpgt(r) & !(s * s).cmple(r * r + Vec3A::splat(eps))).any()
}

/// The first lane holding the largest value, as a `>` scan from -inf keeps it.
#[inline(always)]
fn first_max(s: [Real; 3]) -> (Real, usize) {
    let mut best = (Real::NEG_INFINITY, 0);
    for (i, &v) in s.iter().enumerate() {
        if v > best.0 {
            best = (v, i);
        }
    }
    best
}

/// A's local axis as a world vector.
#[inline]
fn to_world(fa: &Frame, v: Vec3) -> Vec3 {
    (fa.axes[0] * v.x + fa.axes[1] * v.y + fa.axes[2] * v.z).into()
}

/// Boolean SAT test; a gap `g` along an axis separates when `g² > eps`.
pub fn intersect_cuboid_cuboid(a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, eps: Real) -> bool {
    let (fa, fb) = (Frame::new(a, pa), Frame::new(b, pb));
    let rel = Relative::new(&fa, &fb, fb.c - fa.c);
    if apart3(rel.face_a(&fa, &fb), 0.0, eps) || apart3(rel.face_b(&fa, &fb), 0.0, eps) {
        return false;
    }
    for j in 0..3 {
        let gaps = rel.edge_gaps(&fa, &fb, j).to_array();
        for (i, &gap) in gaps.iter().enumerate() {
            // Cheap rejection: overlapping along the unnormalised axis means overlapping.
            if gap <= 0.0 {
                continue;
            }
            let len = rel.edge_axis(i, j).length();
            if len > 1e-5 && apart(gap / len, 0.0, eps) {
                return false;
            }
        }
    }
    true
}

/// The contact of two boxes: SAT over 15 axes, then a clipped face manifold or an edge–edge point.
pub fn contact_cuboid_cuboid(a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    within_margin(sat_contact(&Frame::new(a, pa), &Frame::new(b, pb), tol, &mut NoTrace), a, pa, b, pb, tol)
}

/// Fraction of the margin by which a clipped face manifold's nearest gap must be within it for
/// the manifold to stand as its own proof (see [`within_margin`]): far more than the rounding
/// of the clipping and of GJK, so GJK, if asked, would answer the same.
const FACE_GAP_SLACK: Real = 0.01;

/// A manifold whose points are all apart (speculative) only while the boxes are within the
/// margin: SAT's largest separation is a lower bound on their distance (a corner facing an
/// edge is farther than any axis shows), so the distance itself (GJK) decides. Except for a
/// clipped face manifold (`Sat::on_faces`): each of its points is midway between a point of
/// the reference face and one of the incident face, its gap apart along the normal, so the
/// boxes are at most its nearest gap apart; when that gap is well within the margin
/// (by [`FACE_GAP_SLACK`]), the manifold stands without GJK.
#[inline(always)]
fn within_margin(sat: Sat, a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    match sat.manifold {
        Some(x) if x.max_depth() < 0.0 => {
            let gap = -x.max_depth();
            if sat.on_faces && !apart(gap + FACE_GAP_SLACK * tol.margin, tol.margin, tol.epsilon) {
                Some(x)
            } else {
                check_distance(x, a, pa, b, pb, tol)
            }
        }
        m => m,
    }
}

/// SAT's manifold, and whether it was clipped from two faces (every point midway between
/// a point on each box's surface, as far apart along the normal as its depth says).
struct Sat {
    manifold: Option<Manifold>,
    on_faces: bool,
}

#[inline(never)]
fn check_distance(m: Manifold, a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    let d =
        crate::narrowphase::distance(&crate::geometry::Shape::Cuboid(*a), pa, &crate::geometry::Shape::Cuboid(*b), pb)
            .distance;
    (d <= 0.0 || !apart(d, tol.margin, tol.epsilon)).then_some(m)
}

crate::simd::compiled_twice! {
    /// [`contact_cuboid_cuboid`] given each pose's rotation matrix, `Mat3A::from_quat(p.rotation)`,
    /// so that a body in many pairs converts its quaternion once (the world does, once per step).
    /// Same answer, bit for bit. Runs in its x86-64-v3 copy where the CPU has it
    /// (`simd::Compiled`).
    #[inline(always)]
    pub fn contact_cuboid_cuboid_rotated(
        a: &Cuboid,
        pa: &Pose,
        ma: &Mat3A,
        b: &Cuboid,
        pb: &Pose,
        mb: &Mat3A,
        tol: Tolerance,
    ) -> Option<Manifold> = rotated_in, rotated_v3;
}

/// [`contact_cuboid_cuboid_rotated`]; inlined into both copies.
#[inline(always)]
fn rotated_in(
    a: &Cuboid,
    pa: &Pose,
    ma: &Mat3A,
    b: &Cuboid,
    pb: &Pose,
    mb: &Mat3A,
    tol: Tolerance,
) -> Option<Manifold> {
    debug_assert!(*ma == Mat3A::from_quat(pa.rotation) && *mb == Mat3A::from_quat(pb.rotation));
    within_margin(
        sat_contact(&Frame::with_rotation(a, pa, ma), &Frame::with_rotation(b, pb, mb), tol, &mut NoTrace),
        a,
        pa,
        b,
        pb,
        tol,
    )
}

/// SAT plus manifold. `trace`, when given, receives every axis and the clipping stages; the
/// untraced path is compiled separately, without any of that bookkeeping.
pub fn contact_cuboid_cuboid_traced(
    a: &Cuboid,
    pa: &Pose,
    b: &Cuboid,
    pb: &Pose,
    tol: Tolerance,
    trace: Option<&mut SatTrace>,
) -> Option<Manifold> {
    let (fa, fb) = (Frame::new(a, pa), Frame::new(b, pb));
    let m = match trace {
        Some(t) => sat_contact(&fa, &fb, tol, t),
        None => sat_contact(&fa, &fb, tol, &mut NoTrace),
    };
    within_margin(m, a, pa, b, pb, tol)
}

/// Where SAT reports its axes: nowhere ([`NoTrace`]) or a [`SatTrace`].
trait SatRecorder {
    /// Whether axes are recorded: then every edge axis is tested in order, none skipped.
    const ON: bool;
    type Clip: ClipRecorder;
    fn axis(&mut self, kind: SatAxisKind, axis: impl FnOnce() -> Vec3, separation: Real);
    fn chosen(&mut self, kind: SatAxisKind);
    fn clip(&mut self) -> &mut Self::Clip;
}

impl SatRecorder for NoTrace {
    const ON: bool = false;
    type Clip = NoTrace;
    #[inline(always)]
    fn axis(&mut self, _: SatAxisKind, _: impl FnOnce() -> Vec3, _: Real) {}
    #[inline(always)]
    fn chosen(&mut self, _: SatAxisKind) {}
    #[inline(always)]
    fn clip(&mut self) -> &mut NoTrace {
        self
    }
}

impl SatRecorder for SatTrace {
    const ON: bool = true;
    type Clip = ClipTrace;
    fn axis(&mut self, kind: SatAxisKind, axis: impl FnOnce() -> Vec3, separation: Real) {
        self.axes.push(SatAxis { kind, axis: axis(), separation });
    }
    fn chosen(&mut self, kind: SatAxisKind) {
        self.chosen = self.axes.iter().position(|a| a.kind == kind);
    }
    fn clip(&mut self) -> &mut ClipTrace {
        &mut self.clip
    }
}

/// The 15 axes tested in B's rotation relative to A (`R = Aᵀ B`, computed once); the first
/// separating axis ends the test.
#[inline(always)]
fn sat_contact<T: SatRecorder>(fa: &Frame, fb: &Frame, tol: Tolerance, rec: &mut T) -> Sat {
    let d = fb.c - fa.c;
    let rel = Relative::new(fa, fb, d);
    let (sa, sb) = (rel.face_a(fa, fb), rel.face_b(fa, fb));
    if T::ON {
        // Axis by axis, so the trace stops at the first separating one.
        for (i, &s) in sa.to_array().iter().enumerate() {
            rec.axis(SatAxisKind::FaceA(i as u16), || fa.axes[i].into(), s);
            if apart(s, tol.margin, tol.epsilon) {
                return Sat { manifold: None, on_faces: false };
            }
        }
        for (j, &s) in sb.to_array().iter().enumerate() {
            rec.axis(SatAxisKind::FaceB(j as u16), || fb.axes[j].into(), s);
            if apart(s, tol.margin, tol.epsilon) {
                return Sat { manifold: None, on_faces: false };
            }
        }
    } else if apart3(sa, tol.margin, tol.epsilon) || apart3(sb, tol.margin, tol.epsilon) {
        return Sat { manifold: None, on_faces: false };
    }
    let best_face_a = first_max(sa.to_array());
    let best_face_b = first_max(sb.to_array());
    // Prefer faces: a face manifold has up to four points and rests stably. An edge axis must
    // separate clearly more to win, and a B face must beat an A face by a little, so the choice
    // does not flicker between nearly equal axes.
    let scale = Vec3::from(fa.he).min_element().min(Vec3::from(fb.he).min_element());
    let face_tol = 0.005 * scale;
    let edge_tol = 0.02 * scale;
    let face_best = best_face_a.0.max(best_face_b.0);
    // The face preference does not report an overlap the boxes do not have: where the faces
    // overlap (face_best <= 0), an edge axis along which the boxes are apart (s > 0) wins once
    // it separates more than `face_tol` beyond them, so a phantom depth is at most that.
    // (Along the face preference alone it reached 2% of the smaller half extent, 4 mm in
    // `scenes/default.ron`, pushing apart boxes that did not touch.)
    let overlapping_faces = face_best <= 0.0;
    // Nor does it report a depth far beyond the boxes' own: where the faces overlap, an edge
    // axis also wins once it overlaps a quarter or less of the best face's overlap. (Along the
    // 2% alone, two tumbling half-metre cubes of `scenes/rain_1000.ron` overlapping by 0.09 mm
    // along an edge axis got 4.1 mm along a face.)
    let edge_tol = if overlapping_faces { edge_tol.min(-0.75 * face_best) } else { edge_tol };
    let edge_wins = |s: Real| s > face_best + edge_tol || (overlapping_faces && s > 0.0 && s > face_best + face_tol);
    // An edge axis with separation s <= thr can neither separate (s > margin) nor win
    // (`edge_wins`), so it is skipped before its normalisation: when gap <= 0 and
    // gap² >= thr² len² (with 0.1% to spare for rounding), s = gap / len <= thr.
    // Resting stacks are all such edges, and then the whole loop is skipped.
    let apart_thr = if overlapping_faces { (face_best + face_tol).max(0.0) } else { Real::INFINITY };
    let thr = tol.margin.min(face_best + edge_tol).min(apart_thr);
    let thr2 = if thr >= 0.0 {
        0.0
    } else if thr < -1e-12 {
        1.001 * thr * thr
    } else {
        Real::INFINITY
    };
    let mut gaps = [Vec3A::ZERO; 3];
    let mut len2 = [Vec3A::ZERO; 3];
    let mut skip = [0u32; 3];
    for j in 0..3 {
        let g = rel.edge_gaps(fa, fb, j);
        (gaps[j], len2[j]) = (g, rel.edge_len2(j));
        skip[j] = (g.cmple(Vec3A::ZERO) & (g * g).cmpge(len2[j] * thr2)).bitmask();
    }
    let mut best_edge = (Real::NEG_INFINITY, 0usize, 0usize, Vec3::ZERO);
    if T::ON || skip != [7; 3] {
        for i in 0..3 {
            for j in 0..3 {
                if !T::ON && skip[j] & (1 << i) != 0 {
                    continue;
                }
                let gap = gaps[j].to_array()[i];
                let axis = rel.edge_axis(i, j);
                // The axis has one zero coordinate, so this is `axis.length()` to the bit.
                let len = len2[j].to_array()[i].sqrt();
                // Near-parallel edges give no new axis: the face axes already cover them.
                if len < 1e-4 {
                    continue;
                }
                let s = gap / len;
                rec.axis(SatAxisKind::Edge(i as u16, j as u16), || to_world(fa, axis / len), s);
                if apart(s, tol.margin, tol.epsilon) {
                    return Sat { manifold: None, on_faces: false };
                }
                if s > best_edge.0 {
                    best_edge = (s, i, j, axis / len);
                }
            }
        }
    }
    // The B-face preference never turns the normal more than 60° from the better face axis.
    // (Edges are left out: the untraced path skips the ones that cannot win, so it does not
    // know the best edge, and both paths must choose alike.)
    let mut best_face_a = best_face_a;
    let prefer_edge = edge_wins(best_edge.0);
    if !prefer_edge && best_face_b.0 > best_face_a.0 && best_face_b.0 <= best_face_a.0 + face_tol {
        let face_axis = |f: (Real, usize), r: &Frame, towards: Vec3A| {
            let n = r.axes[f.1];
            if n.dot(towards) < 0.0 { -n } else { n }
        };
        if face_axis(best_face_a, fa, d).dot(-face_axis(best_face_b, fb, -d)) < 0.5 {
            best_face_a.0 = Real::NEG_INFINITY;
        }
    }
    let chosen_kind;
    let result = if prefer_edge {
        chosen_kind = SatAxisKind::Edge(best_edge.1 as u16, best_edge.2 as u16);
        let axis = to_world(fa, best_edge.3);
        let m = edge_contact(fa, fb, d.into(), best_edge.1, best_edge.2, axis, best_edge.0);
        Sat { manifold: Some(m), on_faces: false }
    } else if best_face_b.0 > best_face_a.0 + face_tol {
        chosen_kind = SatAxisKind::FaceB(best_face_b.1 as u16);
        match face_contact_b(fb, fa, -d, best_face_b.1, tol.margin, rec.clip()) {
            Some(m) => Sat { manifold: Some(m.flipped()), on_faces: true },
            None => Sat {
                manifold: hanging_face(fa, fb, &rel, d, best_face_b.0, tol.margin).or_else(|| {
                    deepest_vertex(fb, fa, -d, best_face_b.1, best_face_b.0, tol.margin).map(Manifold::flipped)
                }),
                on_faces: false,
            },
        }
    } else {
        chosen_kind = SatAxisKind::FaceA(best_face_a.1 as u16);
        match face_contact(fa, fb, d, best_face_a.1, tol.margin, 0, rec.clip()) {
            Some(m) => Sat { manifold: Some(m), on_faces: true },
            None => Sat {
                manifold: hanging_face(fa, fb, &rel, d, best_face_a.0, tol.margin)
                    .or_else(|| deepest_vertex(fa, fb, d, best_face_a.1, best_face_a.0, tol.margin)),
                on_faces: false,
            },
        }
    };
    rec.chosen(chosen_kind);
    result
}

/// When clipping leaves no point, the incident face hangs past the reference face, whose axis
/// was preferred over a slightly better edge, and the face's separation `face_sep` is not how
/// far the boxes overlap (a box hanging past a slab's edge reported 4.4 mm where moving 2.0 mm
/// along that normal parts them; they overlap by 1.2 mm across an edge). The edge axis that
/// separates most (all nine tested: the caller skipped those that could not win), when it
/// separates more than the face, gives the contact.
#[inline(never)]
fn hanging_face(fa: &Frame, fb: &Frame, rel: &Relative, d: Vec3A, face_sep: Real, margin: Real) -> Option<Manifold> {
    let mut best = (face_sep, 0, 0, Vec3::ZERO);
    for j in 0..3 {
        let (gaps, len2) = (rel.edge_gaps(fa, fb, j).to_array(), rel.edge_len2(j).to_array());
        for i in 0..3 {
            let len = len2[i].sqrt();
            if len < 1e-4 {
                continue;
            }
            let s = gaps[i] / len;
            if s > best.0 {
                best = (s, i, j, rel.edge_axis(i, j) / len);
            }
        }
    }
    let (sep, i, j, axis) = best;
    (sep > face_sep && sep <= margin).then(|| edge_contact(fa, fb, d.into(), i, j, to_world(fa, axis), sep))
}

/// When clipping leaves no point (the incident face hangs past the reference face, whose
/// axis was preferred over a slightly better edge), the pair still overlaps by `-sep` along
/// the face normal: one point at the incident box's deepest vertex.
#[inline(never)]
fn deepest_vertex(r: &Frame, o: &Frame, d: Vec3A, i: usize, sep: Real, margin: Real) -> Option<Manifold> {
    if sep > margin {
        return None;
    }
    let n = if d.dot(r.axes[i]) < 0.0 { -r.axes[i] } else { r.axes[i] };
    let mut v = o.c;
    let mut code = 0u32;
    for k in 0..3 {
        let side = if o.axes[k].dot(n) > 0.0 { -1.0 } else { 1.0 };
        v += o.axes[k] * (o.hs[k] * side);
        code |= ((side > 0.0) as u32) << k;
    }
    let point: Vec3 = (v - n * (sep * 0.5)).into();
    Some(Manifold::single(n.into(), point, -sep, 0x4000_0000 | (i as u32) << 4 | code))
}

/// Reference face on `r` (axis `i`, facing `d`), incident face on `o`.
#[inline(always)]
fn face_contact(
    r: &Frame,
    o: &Frame,
    d: Vec3A,
    i: usize,
    margin: Real,
    which: u32,
    trace: &mut impl ClipRecorder,
) -> Option<Manifold> {
    let sign = if d.dot(r.axes[i]) < 0.0 { -1.0 } else { 1.0 };
    let n = r.axes[i] * sign;
    let (j, k) = (NEXT[i], PREV[i]);
    let mut u = r.axes[j];
    let v = r.axes[k];
    if u.cross(v).dot(n) < 0.0 {
        u = -u;
    }
    let face = RefFace::new(r.c + n * r.hs[i], u, v, n, r.hs[j], r.hs[k]);

    // Incident face: the face of `o` most anti-parallel to n.
    let dots = o.dots(n).to_array();
    let mut best = 0;
    for a in 1..3 {
        if dots[a].abs() > dots[best].abs() {
            best = a;
        }
    }
    let isign = if dots[best] > 0.0 { -1.0 } else { 1.0 };
    let inormal = o.axes[best] * isign;
    let (p, q) = (NEXT[best], PREV[best]);
    let ic = o.c + inormal * o.hs[best];
    let (iu, iv) = (o.axes[p] * o.hs[p], o.axes[q] * o.hs[q]);
    let inc_face = (best * 2) as u32 + (isign > 0.0) as u32;
    let ref_tag = which * 8 + (i * 2) as u32 + (sign > 0.0) as u32;
    clip_box_faces(&face, &IncFace { c: ic, u: iu, v: iv, face: inc_face }, margin, ref_tag, trace)
}

/// [`face_contact`] with the reference face on B: a few percent of pairs, so kept out of line
/// to keep the hot code small.
#[inline(never)]
fn face_contact_b(
    r: &Frame,
    o: &Frame,
    d: Vec3A,
    i: usize,
    margin: Real,
    trace: &mut impl ClipRecorder,
) -> Option<Manifold> {
    face_contact(r, o, d, i, margin, 1, trace)
}

#[inline(never)]
fn edge_contact(fa: &Frame, fb: &Frame, d: Vec3, i: usize, j: usize, axis: Vec3, sep: Real) -> Manifold {
    let n = if d.dot(axis) < 0.0 { -axis } else { axis };
    let (fa_axes, fb_axes) = (fa.axes.map(Vec3::from), fb.axes.map(Vec3::from));
    // The edge of A farthest along n, and the edge of B farthest along -n.
    let mut ca = Vec3::from(fa.c);
    let mut cb = Vec3::from(fb.c);
    for k in 0..3 {
        if k != i {
            ca += fa_axes[k] * fa.hs[k] * fa_axes[k].dot(n).signum();
        }
        if k != j {
            cb -= fb_axes[k] * fb.hs[k] * fb_axes[k].dot(n).signum();
        }
    }
    let (ea, eb) = (fa_axes[i] * fa.hs[i], fb_axes[j] * fb.hs[j]);
    let (_, _, pa, pb) = closest_points_segments(ca - ea, ca + ea, cb - eb, cb + eb);
    Manifold::single(n, (pa + pb) * 0.5, -sep, 0x8000_0000 | (i * 3 + j) as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn tol() -> Tolerance {
        Tolerance { margin: 0.0, epsilon: 1e-6 }
    }

    /// Two boxes of `scenes/default.ron` 3.7 mm apart along an edge axis while their best face
    /// axes overlap by 0.1 mm: the face preference reported a 0.12 mm contact that the solver
    /// pushed on. The edge, along which they are apart, wins.
    #[test]
    fn the_face_preference_reports_no_overlap_of_boxes_apart_along_an_edge() {
        let a = Cuboid { half_extents: Vec3::new(0.5, 0.2, 0.35) };
        let pa = Pose::new(
            Vec3::new(1.2281475, 2.598082, 1.0919213),
            Quat::from_xyzw(0.0072921184, 0.47034603, 0.6762237, -0.56695944),
        );
        let b = Cuboid { half_extents: Vec3::splat(0.3) };
        let pb = Pose::new(
            Vec3::new(1.9285718, 2.2625766, 1.395103),
            Quat::from_xyzw(-0.3291997, 0.47908333, -0.80650437, 0.10796961),
        );
        let shape = crate::geometry::Shape::Cuboid;
        let d = crate::narrowphase::distance(&shape(a), &pa, &shape(b), &pb).distance;
        assert!(d > 0.003, "the boxes are {d} m apart");
        let m = contact_cuboid_cuboid(&a, &pa, &b, &pb, Tolerance { margin: 0.02, epsilon: 1e-6 })
            .expect("within the margin");
        assert!((m.max_depth() + d).abs() < 1e-4, "depth {} for boxes {d} m apart", m.max_depth());
    }

    /// A 60 cm box under the edge of a tilted slab of `scenes/default.ron`: the slab's face
    /// overlaps it by 4.4 mm, little enough beside the edge axis's 1.2 mm that the face is
    /// preferred, but the box hangs past that face (clipping leaves no point). The edge axis
    /// gives the contact, at the depth GJK and EPA find, not the face's 4.4 mm (moving the box
    /// 2.0 mm along that normal parts them).
    #[test]
    fn a_box_hanging_past_the_preferred_face_gets_the_edge_depth() {
        let a = Cuboid { half_extents: Vec3::new(2.5, 0.2, 2.0) };
        let pa = Pose::new(Vec3::new(3.2, 2.2, 0.5), Quat::from_xyzw(0.02825104, 0.12743221, 0.21458796, 0.96794367));
        let b = Cuboid { half_extents: Vec3::splat(0.3) };
        let pb = Pose::new(
            Vec3::new(0.3571624, 1.261685, 0.9148586),
            Quat::from_xyzw(0.16420794, 0.03361523, -0.51552814, -0.84031934),
        );
        let shape = crate::geometry::Shape::Cuboid;
        let tol = Tolerance { margin: 0.0, epsilon: 1e-6 };
        let gjk =
            crate::narrowphase::contact(&shape(a), &pa, &shape(b), &pb, tol, crate::narrowphase::NarrowPhaseKind::Gjk)
                .expect("GJK and EPA find the overlap");
        let m = contact_cuboid_cuboid(&a, &pa, &b, &pb, tol).expect("overlapping");
        assert!(
            (m.max_depth() - gjk.max_depth()).abs() < 1e-5 && m.normal.dot(gjk.normal) > 0.9999,
            "SAT: {} m along {:?}; GJK and EPA: {} m along {:?}",
            m.max_depth(),
            m.normal,
            gjk.max_depth(),
            gjk.normal
        );
    }

    /// Two half-metre cubes of `scenes/rain_1000.ron`, overlapping by 0.1 mm at most (their
    /// distance): the manifold must not report 4 mm.
    #[test]
    fn two_tumbling_cubes_get_the_depth_they_have() {
        let bits = |v: [u32; 3]| Vec3::from_array(v.map(f32::from_bits));
        let quat = |q: [u32; 4]| Quat::from_array(q.map(f32::from_bits));
        let c = Cuboid { half_extents: Vec3::splat(0.25) };
        let pa = Pose::new(
            bits([0xc0b37de0, 0x3f85a47d, 0x4088da8f]),
            quat([0xbebf5ac9, 0xbf18f460, 0xbeca9bae, 0x3f16bee0]),
        );
        let pb = Pose::new(
            bits([0xc0b124f4, 0x3eba14d6, 0x40938d87]),
            quat([0x3e41e573, 0x3efba638, 0x3eabef4b, 0x3f47e8fa]),
        );
        let shape = crate::geometry::Shape::Cuboid;
        let d = crate::narrowphase::distance(&shape(c), &pa, &shape(c), &pb).distance;
        let m =
            contact_cuboid_cuboid(&c, &pa, &c, &pb, Tolerance { margin: 0.02, epsilon: 1e-6 }).expect("overlapping");
        assert!((m.max_depth() + d).abs() < 1e-3, "depth {} for boxes {d} m apart", m.max_depth());
    }

    #[test]
    fn box_resting_on_box_gets_four_points() {
        let ground = Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) };
        let cube = Cuboid { half_extents: Vec3::splat(0.5) };
        let pg = Pose::from_translation(Vec3::new(0.0, -0.5, 0.0));
        let pc = Pose::from_translation(Vec3::new(0.2, 0.49, -0.3));
        let m = contact_cuboid_cuboid(&ground, &pg, &cube, &pc, tol()).unwrap();
        assert_eq!(m.len(), 4);
        assert!((m.normal - Vec3::Y).length() < 1e-6);
        for p in m.points() {
            assert!((p.depth - 0.01).abs() < 1e-5);
        }
        // Swapped: same points, flipped normal.
        let s = contact_cuboid_cuboid(&cube, &pc, &ground, &pg, tol()).unwrap();
        assert!((s.normal + Vec3::Y).length() < 1e-6);
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn crossed_edges_make_an_edge_contact() {
        let c = Cuboid { half_extents: Vec3::splat(0.5) };
        // Both cubes turned 45° so that an edge of each points at the other, crossed.
        let pa = Pose::new(Vec3::ZERO, Quat::from_rotation_x(std::f32::consts::FRAC_PI_4));
        let h = 0.5 * std::f32::consts::SQRT_2;
        let pb = Pose::new(Vec3::new(0.0, 2.0 * h - 0.05, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let m = contact_cuboid_cuboid(&c, &pa, &c, &pb, tol()).unwrap();
        assert_eq!(m.len(), 1);
        assert!((m.normal - Vec3::Y).length() < 1e-4, "{:?}", m.normal);
        assert!((m.points()[0].depth - 0.05).abs() < 1e-4);
        assert!(intersect_cuboid_cuboid(&c, &pa, &c, &pb, 1e-6));
        let far = Pose::new(pb.translation + Vec3::Y * 0.1, pb.rotation);
        assert!(!intersect_cuboid_cuboid(&c, &pa, &c, &far, 1e-6));
        assert!(contact_cuboid_cuboid(&c, &pa, &c, &far, tol()).is_none());
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 3000, rng_seed: proptest::test_runner::RngSeed::Fixed(0xb0c5), failure_persistence: None, ..Default::default() })]

        /// The untraced path skips edge axes it proves irrelevant and may take the rotation
        /// matrices from the caller (then it runs in its x86-64-v3 copy where the CPU has it);
        /// the traced path tests every axis. All must agree bit for bit, on resting, deep,
        /// aligned and random pairs alike.
        #[test]
        fn fast_paths_match_the_traced_one(
            ha in (0.1f32..2.0, 0.1f32..2.0, 0.1f32..2.0),
            hb in (0.1f32..2.0, 0.1f32..2.0, 0.1f32..2.0),
            ra in (-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2),
            tilt in (-0.05f32..0.05, -0.05f32..0.05, -0.05f32..0.05),
            rb in (-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2),
            aligned in proptest::bool::ANY,
            off in (-1.2f32..1.2, -1.2f32..1.2, -1.2f32..1.2),
            margin in 0.0f32..0.05,
        ) {
            let (a, b) = (Cuboid { half_extents: ha.into() }, Cuboid { half_extents: hb.into() });
            let qa = Quat::from_euler(glam::EulerRot::XYZ, ra.0, ra.1, ra.2);
            let qb = if aligned {
                qa * Quat::from_euler(glam::EulerRot::XYZ, tilt.0, tilt.1, tilt.2)
            } else {
                Quat::from_euler(glam::EulerRot::XYZ, rb.0, rb.1, rb.2)
            };
            let reach = Vec3::from(ha) + Vec3::from(hb);
            let pa = Pose::new(Vec3::new(0.3, -1.0, 2.0), qa);
            let pb = Pose::new(pa.translation + qa * (Vec3::from(off) * reach), qb);
            let tol = Tolerance { margin, epsilon: 1e-6 };
            let fast = contact_cuboid_cuboid(&a, &pa, &b, &pb, tol);
            let mut t = SatTrace::default();
            let traced = contact_cuboid_cuboid_traced(&a, &pa, &b, &pb, tol, Some(&mut t));
            let (ma, mb) = (Mat3A::from_quat(qa), Mat3A::from_quat(qb));
            let rotated = contact_cuboid_cuboid_rotated(&a, &pa, &ma, &b, &pb, &mb, tol);
            let rotated_baseline = rotated_in(&a, &pa, &ma, &b, &pb, &mb, tol);
            proptest::prop_assert_eq!(fast, traced);
            proptest::prop_assert_eq!(fast, rotated);
            proptest::prop_assert_eq!(rotated_baseline, rotated);
        }
    }

    /// [`within_margin`] as if no manifold stood as its own proof: GJK decides every
    /// manifold whose points are all apart.
    fn always_gjk(a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
        let sat = sat_contact(&Frame::new(a, pa), &Frame::new(b, pb), tol, &mut NoTrace);
        within_margin(Sat { on_faces: false, ..sat }, a, pa, b, pb, tol)
    }

    /// A clipped face manifold whose nearest gap is well within the margin skips GJK: on
    /// boxes side by side across the whole speculative band and past it (aligned, tilted,
    /// turned, slid past each other's edges, up to 60 m from the origin), the answer is GJK's,
    /// bit for bit, and most of the cases whose points are all apart take the shortcut.
    #[test]
    fn face_manifolds_within_the_margin_answer_as_gjk_does() {
        let mut rng = crate::rng::SplitMix64::new(1515);
        let (mut apart_cases, mut shortcut) = (0, 0);
        for case in 0..6000 {
            let (ha, hb) = (rng.vec3(0.05, 2.0), rng.vec3(0.05, 2.0));
            let (a, b) = (Cuboid { half_extents: ha }, Cuboid { half_extents: hb });
            let qa = rng.rotation();
            let tilt = rng.vec3(-0.3, 0.3) * if case % 2 == 0 { 0.01 } else { 1.0 };
            let qb = qa * Quat::from_euler(glam::EulerRot::XYZ, tilt.x, tilt.y, tilt.z);
            let pa = Pose::new(rng.vec3(-60.0, 60.0), qa);
            // B beside A's face `axis`, its nearest corner `gap` margins away, slid along the
            // face by up to 1.2 of the two boxes' reach.
            let axis = case % 3;
            let (ma, mb) = (Mat3A::from_quat(qa), Mat3A::from_quat(qb));
            let n = Vec3::from(ma.col(axis)) * if case % 6 < 3 { 1.0 } else { -1.0 };
            let extent_b = (0..3).map(|k| hb[k] * Vec3::from(mb.col(k)).dot(n).abs()).sum::<Real>();
            let margin = rng.range(0.001, 0.05);
            let gap = rng.range(-0.2, 1.3);
            let mut offset = n * (ha[axis] + extent_b + gap * margin);
            for k in [(axis + 1) % 3, (axis + 2) % 3] {
                offset += Vec3::from(ma.col(k)) * ((ha[k] + hb[k]) * rng.range(-1.2, 1.2));
            }
            let pb = Pose::new(pa.translation + offset, qb);
            let tol = Tolerance { margin, epsilon: 1e-6 };
            let fast = contact_cuboid_cuboid(&a, &pa, &b, &pb, tol);
            assert_eq!(fast, always_gjk(&a, &pa, &b, &pb, tol), "case {case}: {a:?} {pa:?} {b:?} {pb:?} {tol:?}");
            let sat = sat_contact(&Frame::new(&a, &pa), &Frame::new(&b, &pb), tol, &mut NoTrace);
            if let Some(m) = sat.manifold.filter(|m| m.max_depth() < 0.0) {
                apart_cases += 1;
                let proof = !apart(-m.max_depth() + FACE_GAP_SLACK * margin, margin, tol.epsilon);
                shortcut += (sat.on_faces && proof) as u32;
            }
        }
        assert!(apart_cases > 1000 && shortcut * 10 > apart_cases * 7, "{shortcut} of {apart_cases}");
    }

    #[test]
    fn trace_records_all_axes_and_the_winner() {
        let c = Cuboid { half_extents: Vec3::splat(0.5) };
        let pb = Pose::new(Vec3::new(0.95, 0.1, 0.05), Quat::from_euler(glam::EulerRot::XYZ, 0.05, 0.08, 0.03));
        let mut t = SatTrace::default();
        let m = contact_cuboid_cuboid_traced(&c, &Pose::IDENTITY, &c, &pb, tol(), Some(&mut t));
        assert!(m.is_some());
        assert_eq!(t.axes.len(), 15);
        assert!(t.chosen.is_some());
        assert!(!t.clip.stages.is_empty());
    }
}
