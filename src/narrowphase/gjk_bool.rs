//! Intersection-only GJK: the same iteration as [`super::gjk::gjk`] (signed-volumes
//! sub-algorithm, same stopping rules) but keeping only the difference points `w`, a
//! fixed-size simplex, support functions resolved at compile time, and an exit as soon as a
//! separating direction proves the pair apart.

use super::gjk::{GJK_REL_TOL, GJK_TOUCH_TOL, MAX_GJK_ITERATIONS, s1d, s2d, s3d};
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Real, Vec3};

/// The farthest vertex of a point set along `d`.
#[inline(always)]
fn support_points(pts: &[Vec3], d: Vec3) -> Vec3 {
    let mut best = pts[0];
    let mut best_d = best.dot(d);
    for &p in &pts[1..] {
        let pd = p.dot(d);
        if pd > best_d {
            best_d = pd;
            best = p;
        }
    }
    best
}

/// A simplex of difference points only.
struct WSimplex {
    p: [Vec3; 4],
    len: usize,
}

impl WSimplex {
    /// Keeps the smallest sub-simplex holding the closest point to the origin and returns
    /// that point; `None` when the simplex is a tetrahedron holding the origin.
    #[inline]
    fn reduce(&mut self) -> Option<Vec3> {
        let p = self.p;
        let (lambda, mask): ([Real; 4], u8) = match self.len {
            1 => return Some(p[0]),
            2 => {
                let (l, m) = s1d([p[0], p[1]]);
                ([l[0], l[1], 0.0, 0.0], m)
            }
            3 => {
                let (l, m) = s2d([p[0], p[1], p[2]]);
                ([l[0], l[1], l[2], 0.0], m)
            }
            _ => {
                let (l, m) = s3d(p);
                if m == 0b1111 {
                    return None;
                }
                (l, m)
            }
        };
        let mut v = Vec3::ZERO;
        let mut len = 0;
        for i in 0..self.len {
            if mask & (1 << i) != 0 {
                v += p[i] * lambda[i];
                self.p[len] = p[i];
                len += 1;
            }
        }
        self.len = len;
        Some(v)
    }
}

/// Do the cores overlap or lie within `sqrt(r² + eps)` of each other? `sa` is A's core
/// support, `sb` B's, both in A's frame; `start` is the first search direction (any point of
/// the difference, e.g. the difference of the centres, or a cached direction). Returns the
/// answer and the last direction, which warm-starts the next call for the same pair.
pub fn intersect_cores(
    sa: impl Fn(Vec3) -> Vec3,
    sb: impl Fn(Vec3) -> Vec3,
    start: Vec3,
    r: Real,
    eps: Real,
) -> (bool, Vec3) {
    let reach2 = r * r + eps;
    let dir = if start.length_squared() > Real::MIN_POSITIVE { start } else { Vec3::X };
    let first = sa(-dir) - sb(dir);
    let mut s = WSimplex { p: [first; 4], len: 1 };
    let mut v = first;
    let mut max_w2 = first.length_squared();
    for _ in 0..MAX_GJK_ITERATIONS {
        let v2 = v.length_squared();
        if v2 <= GJK_TOUCH_TOL * max_w2.max(Real::MIN_POSITIVE) {
            return (true, v);
        }
        let w = sa(-v) - sb(v);
        let vw = v.dot(w);
        // A separating plane farther than the reach: apart, whatever the rest would find.
        if vw > 0.0 && vw * vw > reach2 * v2 {
            return (false, v);
        }
        if v2 - vw <= GJK_REL_TOL * v2 || s.p[..s.len].contains(&w) {
            return (v2 <= reach2, v);
        }
        max_w2 = max_w2.max(w.length_squared());
        s.p[s.len] = w;
        s.len += 1;
        match s.reduce() {
            None => return (true, v),
            Some(nv) if nv.length_squared() >= v2 => {
                // No progress: rounding has taken over, the previous point is the answer.
                return (v2 <= reach2, v);
            }
            Some(nv) => v = nv,
        }
    }
    (v.length_squared() <= reach2, v)
}

/// B's pose relative to A as a matrix, its transpose and an offset.
struct Relative {
    rot: Mat3,
    rot_t: Mat3,
    offset: Vec3,
}

impl Relative {
    fn new(pa: &Pose, pb: &Pose) -> Self {
        let rel = pa.inv_mul(pb);
        let rot = Mat3::from_quat(rel.rotation);
        Self { rot, rot_t: rot.transpose(), offset: rel.translation }
    }

    /// B's support along `d` (A's frame) given B's local support function.
    #[inline(always)]
    fn support(&self, d: Vec3, local: impl Fn(Vec3) -> Vec3) -> Vec3 {
        self.rot * local(self.rot_t * d) + self.offset
    }
}

/// Boolean GJK for any pair, warm-started from `start` (a direction in world space; pass
/// `Vec3::ZERO` for the centre difference). Returns the answer and the world direction to
/// start from next time.
pub fn intersect_gjk_warm(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, start: Vec3) -> (bool, Vec3) {
    let rel = Relative::new(pa, pb);
    let r = rounding(a) + rounding(b);
    let start = if start == Vec3::ZERO { -rel.offset } else { pa.inverse_transform_vector(start) };
    let (hit, v) = match (a, b) {
        // The common polytope pairs get support functions without any shape dispatch.
        (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) => {
            let (va, vb) = (ha.vertices(), hb.vertices());
            intersect_cores(|d| support_points(va, d), |d| rel.support(d, |e| support_points(vb, e)), start, r, eps)
        }
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => {
            let (ha, hb) = (ca.half_extents, cb.half_extents);
            intersect_cores(|d| box_support(ha, d), |d| rel.support(d, |e| box_support(hb, e)), start, r, eps)
        }
        _ => intersect_cores(|d| a.core_support(d).0, |d| rel.support(d, |e| b.core_support(e).0), start, r, eps),
    };
    (hit, pa.transform_vector(v))
}

#[inline(always)]
fn box_support(h: Vec3, d: Vec3) -> Vec3 {
    Vec3::select(d.cmplt(Vec3::ZERO), -h, h)
}

/// The radius a shape's core is rounded by.
fn rounding(s: &Shape) -> Real {
    match s {
        Shape::Sphere(x) => x.radius,
        Shape::Capsule(x) => x.radius,
        Shape::Cuboid(_) | Shape::ConvexHull(_) => 0.0,
    }
}
