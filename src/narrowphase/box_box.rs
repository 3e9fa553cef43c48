//! Cuboid–cuboid by the separating axis theorem over 15 axes, with clipped face manifolds and
//! edge–edge contacts.

use super::box_box_clip::{IncFace, RefFace, clip_box_faces};
use super::clip::ClipTrace;
use super::segment::closest_points_segments;
use super::{Manifold, Tolerance, apart};
use crate::geometry::Cuboid;
use crate::math::{Mat3, Pose, Real, Vec3};

/// Which kind of axis SAT tested.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatAxisKind {
    FaceA(u16),
    FaceB(u16),
    Edge(u16, u16),
}

/// One tested axis and the separation along it (negative: overlapping by that much).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatAxis {
    pub kind: SatAxisKind,
    pub axis: Vec3,
    pub separation: Real,
}

/// What SAT did, for the teaching view.
#[derive(Clone, Debug, Default)]
pub struct SatTrace {
    pub axes: Vec<SatAxis>,
    /// Index in `axes` of the axis the manifold was built on.
    pub chosen: Option<usize>,
    pub clip: ClipTrace,
}

struct Frame {
    axes: [Vec3; 3],
    h: Vec3,
    /// `h` as an array: indexed by axis number without `Vec3`'s bounds-checking match.
    he: [Real; 3],
    c: Vec3,
}

/// `(k + 1) % 3` and `(k + 2) % 3` by table, for the edge axes.
const NEXT: [usize; 3] = [1, 2, 0];
const PREV: [usize; 3] = [2, 0, 1];

impl Frame {
    fn new(b: &Cuboid, p: &Pose) -> Self {
        let m = Mat3::from_quat(p.rotation);
        Self {
            axes: [m.x_axis, m.y_axis, m.z_axis],
            h: b.half_extents,
            he: b.half_extents.to_array(),
            c: p.translation,
        }
    }
}

/// B's rotation and offset seen in A's frame, shared by all 15 axes: `r[i][j] = a_i . b_j`,
/// `t[i] = a_i . d`.
struct Relative {
    r: [[Real; 3]; 3],
    abs_r: [[Real; 3]; 3],
    t: [Real; 3],
}

impl Relative {
    fn new(fa: &Frame, fb: &Frame, d: Vec3) -> Self {
        let r: [[Real; 3]; 3] = std::array::from_fn(|i| std::array::from_fn(|j| fa.axes[i].dot(fb.axes[j])));
        let abs_r = r.map(|row| row.map(Real::abs));
        Self { r, abs_r, t: std::array::from_fn(|i| fa.axes[i].dot(d)) }
    }

    /// Separation along A's face axis `i`.
    #[inline]
    fn face_a(&self, fa: &Frame, fb: &Frame, i: usize) -> Real {
        let rb = fb.h.x * self.abs_r[i][0] + fb.h.y * self.abs_r[i][1] + fb.h.z * self.abs_r[i][2];
        self.t[i].abs() - fa.he[i] - rb
    }

    /// Separation along B's face axis `j`; `u = b_j . d`.
    #[inline]
    fn face_b(&self, fa: &Frame, fb: &Frame, j: usize, u: Real) -> Real {
        let ra = fa.h.x * self.abs_r[0][j] + fa.h.y * self.abs_r[1][j] + fa.h.z * self.abs_r[2][j];
        u.abs() - ra - fb.he[j]
    }

    /// The edge axis `a_i x b_j` in A's frame (not normalised) and the unnormalised
    /// separation along it: `|t . axis| - ra - rb`.
    #[inline(always)]
    fn edge(&self, fa: &Frame, fb: &Frame, i: usize, j: usize) -> (Vec3, Real) {
        let (i1, i2) = (NEXT[i], PREV[i]);
        let (j1, j2) = (NEXT[j], PREV[j]);
        let mut axis = [0.0; 3];
        axis[i1] = -self.r[i2][j];
        axis[i2] = self.r[i1][j];
        let dist = (self.t[i2] * self.r[i1][j] - self.t[i1] * self.r[i2][j]).abs();
        let ra = fa.he[i1] * self.abs_r[i2][j] + fa.he[i2] * self.abs_r[i1][j];
        let rb = fb.he[j1] * self.abs_r[i][j2] + fb.he[j2] * self.abs_r[i][j1];
        (Vec3::from_array(axis), dist - ra - rb)
    }
}

/// A's local axis as a world vector.
#[inline]
fn to_world(fa: &Frame, v: Vec3) -> Vec3 {
    fa.axes[0] * v.x + fa.axes[1] * v.y + fa.axes[2] * v.z
}

/// Boolean SAT test; a gap `g` along an axis separates when `g² > eps`.
pub fn intersect_cuboid_cuboid(a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, eps: Real) -> bool {
    let (fa, fb) = (Frame::new(a, pa), Frame::new(b, pb));
    let d = fb.c - fa.c;
    let rel = Relative::new(&fa, &fb, d);
    for i in 0..3 {
        if apart(rel.face_a(&fa, &fb, i), 0.0, eps) || apart(rel.face_b(&fa, &fb, i, fb.axes[i].dot(d)), 0.0, eps) {
            return false;
        }
    }
    for i in 0..3 {
        for j in 0..3 {
            let (axis, gap) = rel.edge(&fa, &fb, i, j);
            // Cheap rejection: overlapping along the unnormalised axis means overlapping.
            if gap <= 0.0 {
                continue;
            }
            let len = axis.length();
            if len > 1e-5 && apart(gap / len, 0.0, eps) {
                return false;
            }
        }
    }
    true
}

pub fn contact_cuboid_cuboid(a: &Cuboid, pa: &Pose, b: &Cuboid, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    contact_cuboid_cuboid_traced(a, pa, b, pb, tol, None)
}

/// SAT plus manifold. `trace`, when given, receives every axis and the clipping stages.
/// The 15 axes are tested in B's rotation relative to A (`R = Aᵀ B`, computed once); the
/// first separating axis ends the test.
pub fn contact_cuboid_cuboid_traced(
    a: &Cuboid,
    pa: &Pose,
    b: &Cuboid,
    pb: &Pose,
    tol: Tolerance,
    mut trace: Option<&mut SatTrace>,
) -> Option<Manifold> {
    let (fa, fb) = (Frame::new(a, pa), Frame::new(b, pb));
    let d = fb.c - fa.c;
    let rel = Relative::new(&fa, &fb, d);
    let mut best_face_a = (Real::NEG_INFINITY, 0usize);
    let mut best_face_b = (Real::NEG_INFINITY, 0usize);
    let mut best_edge = (Real::NEG_INFINITY, 0usize, 0usize, Vec3::ZERO);
    let tracing = trace.is_some();
    let mut record = |kind: SatAxisKind, axis: &dyn Fn() -> Vec3, separation: Real| {
        if let Some(t) = trace.as_deref_mut() {
            t.axes.push(SatAxis { kind, axis: axis(), separation });
        }
    };
    for i in 0..3 {
        let s = rel.face_a(&fa, &fb, i);
        record(SatAxisKind::FaceA(i as u16), &|| fa.axes[i], s);
        if apart(s, tol.margin, tol.epsilon) {
            return None;
        }
        if s > best_face_a.0 {
            best_face_a = (s, i);
        }
    }
    for j in 0..3 {
        let s = rel.face_b(&fa, &fb, j, fb.axes[j].dot(d));
        record(SatAxisKind::FaceB(j as u16), &|| fb.axes[j], s);
        if apart(s, tol.margin, tol.epsilon) {
            return None;
        }
        if s > best_face_b.0 {
            best_face_b = (s, j);
        }
    }
    // Prefer faces: a face manifold has up to four points and rests stably. An edge axis must
    // separate clearly more to win, and a B face must beat an A face by a little, so the choice
    // does not flicker between nearly equal axes.
    let scale = fa.h.min_element().min(fb.h.min_element());
    let face_tol = 0.005 * scale;
    let edge_tol = 0.02 * scale;
    let face_best = best_face_a.0.max(best_face_b.0);
    // An edge axis matters only if it can separate (s > margin) or win (s > face_best +
    // edge_tol). When both bounds are >= 0, an overlapping edge (gap <= 0, so s <= 0) does
    // neither and is skipped before its normalisation; resting stacks are all such edges.
    let edges_can_skip = !tracing && tol.margin.min(face_best + edge_tol) >= 0.0;
    for i in 0..3 {
        for j in 0..3 {
            let (axis, gap) = rel.edge(&fa, &fb, i, j);
            if edges_can_skip && gap <= 0.0 {
                continue;
            }
            let len = axis.length();
            // Near-parallel edges give no new axis: the face axes already cover them.
            if len < 1e-4 {
                continue;
            }
            let s = gap / len;
            record(SatAxisKind::Edge(i as u16, j as u16), &|| to_world(&fa, axis / len), s);
            if apart(s, tol.margin, tol.epsilon) {
                return None;
            }
            if s > best_edge.0 {
                best_edge = (s, i, j, axis / len);
            }
        }
    }
    let chosen_kind;
    let result = if best_edge.0 > face_best + edge_tol {
        chosen_kind = SatAxisKind::Edge(best_edge.1 as u16, best_edge.2 as u16);
        let axis = to_world(&fa, best_edge.3);
        Some(edge_contact(&fa, &fb, d, best_edge.1, best_edge.2, axis, best_edge.0))
    } else if best_face_b.0 > best_face_a.0 + face_tol {
        chosen_kind = SatAxisKind::FaceB(best_face_b.1 as u16);
        face_contact(&fb, &fa, -d, best_face_b.1, tol.margin, 1, trace.as_deref_mut().map(|t| &mut t.clip))
            .map(Manifold::flipped)
    } else {
        chosen_kind = SatAxisKind::FaceA(best_face_a.1 as u16);
        face_contact(&fa, &fb, d, best_face_a.1, tol.margin, 0, trace.as_deref_mut().map(|t| &mut t.clip))
    };
    if let Some(t) = trace {
        t.chosen = t.axes.iter().position(|a| a.kind == chosen_kind);
    }
    result
}

/// Reference face on `r` (axis `i`, facing `d`), incident face on `o`.
fn face_contact(
    r: &Frame,
    o: &Frame,
    d: Vec3,
    i: usize,
    margin: Real,
    which: u32,
    trace: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    let sign = if d.dot(r.axes[i]) < 0.0 { -1.0 } else { 1.0 };
    let n = r.axes[i] * sign;
    let (j, k) = ((i + 1) % 3, (i + 2) % 3);
    let mut u = r.axes[j];
    let v = r.axes[k];
    if u.cross(v).dot(n) < 0.0 {
        u = -u;
    }
    let face = RefFace { c: r.c + n * r.h[i], u, v, n, hu: r.h[j], hv: r.h[k] };

    // Incident face: the face of `o` most anti-parallel to n.
    let dots = [o.axes[0].dot(n), o.axes[1].dot(n), o.axes[2].dot(n)];
    let mut best = 0;
    for a in 1..3 {
        if dots[a].abs() > dots[best].abs() {
            best = a;
        }
    }
    let isign = if dots[best] > 0.0 { -1.0 } else { 1.0 };
    let inormal = o.axes[best] * isign;
    let (p, q) = ((best + 1) % 3, (best + 2) % 3);
    let ic = o.c + inormal * o.h[best];
    let (iu, iv) = (o.axes[p] * o.h[p], o.axes[q] * o.h[q]);
    let inc_face = (best * 2) as u32 + (isign > 0.0) as u32;
    let ref_tag = which * 8 + (i * 2) as u32 + (sign > 0.0) as u32;
    clip_box_faces(&face, &IncFace { c: ic, u: iu, v: iv, face: inc_face }, margin, ref_tag, trace)
}

fn edge_contact(fa: &Frame, fb: &Frame, d: Vec3, i: usize, j: usize, axis: Vec3, sep: Real) -> Manifold {
    let n = if d.dot(axis) < 0.0 { -axis } else { axis };
    // The edge of A farthest along n, and the edge of B farthest along -n.
    let mut ca = fa.c;
    let mut cb = fb.c;
    for k in 0..3 {
        if k != i {
            ca += fa.axes[k] * fa.h[k] * fa.axes[k].dot(n).signum();
        }
        if k != j {
            cb -= fb.axes[k] * fb.h[k] * fb.axes[k].dot(n).signum();
        }
    }
    let (ea, eb) = (fa.axes[i] * fa.h[i], fb.axes[j] * fb.h[j]);
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
