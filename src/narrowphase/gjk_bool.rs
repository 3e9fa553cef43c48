//! Intersection-only GJK: the same iteration as [`super::gjk::gjk`] (signed-volumes
//! sub-algorithm, same stopping rules) but keeping only the difference points `w`, a
//! fixed-size simplex, support functions resolved at compile time, and an exit as soon as a
//! separating direction proves the pair apart.

use super::gjk::{GJK_REL_TOL, GJK_TOUCH_TOL, MAX_GJK_ITERATIONS, s1d, s2d, s3d};
use super::voronoi;
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

/// Most steps of the Voronoi-region boolean GJK before it hands over to the distance GJK.
pub(super) const MAX_BOOL_STEPS: usize = 32;

/// Boolean GJK by Voronoi regions (no closest points): the simplex only needs to tell on
/// which side of its features the origin lies. `Some(answer)` when decided; `None` when the
/// pair lies within the touching band (a separating plane closer than the reach) or the
/// simplex degenerates, which the distance GJK then settles. Also returns the last direction
/// (from the origin towards the difference), to warm-start the next call.
#[inline(always)]
fn intersect_regions(
    sa: &impl Fn(Vec3) -> Vec3,
    sb: &impl Fn(Vec3) -> Vec3,
    start: Vec3,
    reach2: Real,
) -> (Option<bool>, Vec3) {
    // `d` points from the simplex towards the origin; new points are `support(d)`.
    let support = |d: Vec3| sa(d) - sb(-d);
    let mut d = -start;
    let first = support(d);
    // Points newest first.
    let mut p = [first; 4];
    let mut n = 1;
    d = -first;
    let scale2 = first.length_squared().max(Real::MIN_POSITIVE);
    for _ in 0..MAX_BOOL_STEPS {
        let d2 = d.length_squared();
        if d2 <= 1e-10 * scale2 {
            return (None, -d);
        }
        let a = support(d);
        let ad = a.dot(d);
        if ad < 0.0 {
            // The plane through `a` normal to `d` separates the difference from the origin, at
            // distance -ad / |d|: apart if that exceeds the reach, else let the distance decide.
            return (if ad * ad > reach2 * d2 { Some(false) } else { None }, -d);
        }
        // `d` points from the kept feature to the origin, so a new point past the origin is
        // progress; none means the origin sits on the feature (rounding has taken over).
        if ad <= p[0].dot(d) {
            return (None, -d);
        }
        p = [a, p[0], p[1], p[2]];
        n += 1;
        let ao = -a;
        match n {
            2 => {
                let b = p[1];
                (n, d) = voronoi::edge(&mut p, a, b, ao);
            }
            3 => match triangle(&mut p, ao) {
                Some(nd) => (n, d) = nd,
                None => return (None, -d),
            },
            _ => {
                let (b, c, e) = (p[1], p[2], p[3]);
                let (ab, ac, ae) = (b - a, c - a, e - a);
                let (abc, ace, aeb) = (ab.cross(ac), ac.cross(ae), ae.cross(ab));
                // Orient the face normals outwards (away from the fourth point).
                let (abc, ace, aeb) = if abc.dot(ae) > 0.0 { (-abc, -ace, -aeb) } else { (abc, ace, aeb) };
                if abc.dot(ao) > 0.0 {
                    p = [a, b, c, c];
                } else if ace.dot(ao) > 0.0 {
                    p = [a, c, e, e];
                } else if aeb.dot(ao) > 0.0 {
                    p = [a, e, b, b];
                } else {
                    return (Some(true), -d);
                }
                match triangle(&mut p, ao) {
                    Some(nd) => (n, d) = nd,
                    None => return (None, -d),
                }
            }
        }
    }
    (None, -d)
}

/// The triangle case `p[0..3]` (`p[0]` newest): keeps the feature whose Voronoi region holds
/// the origin and returns the new size and search direction; `None` when the origin lies on
/// the triangle (or it is flat), for the distance GJK to decide.
#[inline(always)]
fn triangle(p: &mut [Vec3; 4], ao: Vec3) -> Option<(usize, Vec3)> {
    let (a, b, c) = (p[0], p[1], p[2]);
    voronoi::triangle(p, a, b, c, (b - a).cross(c - a), ao)
}

/// The first search direction: `start`, or +X when it is (nearly) zero.
#[inline(always)]
pub(super) fn search_start(start: Vec3) -> Vec3 {
    if start.length_squared() > Real::MIN_POSITIVE { start } else { Vec3::X }
}

/// Do the cores overlap or lie within `sqrt(r² + eps)` of each other? The Voronoi-region
/// GJK answers most pairs; pairs in the touching band go to the distance GJK below.
pub fn intersect_cores(
    sa: impl Fn(Vec3) -> Vec3,
    sb: impl Fn(Vec3) -> Vec3,
    start: Vec3,
    r: Real,
    eps: Real,
) -> (bool, Vec3) {
    let start = search_start(start);
    match intersect_regions(&sa, &sb, start, r * r + eps) {
        (Some(hit), v) => (hit, v),
        (None, _) => intersect_cores_distance(sa, sb, start, r, eps),
    }
}

/// Do the cores overlap or lie within `sqrt(r² + eps)` of each other? `sa` is A's core
/// support, `sb` B's, both in A's frame; `start` is the first search direction (any point of
/// the difference, e.g. the difference of the centres, or a cached direction). Returns the
/// answer and the last direction, which warm-starts the next call for the same pair.
pub fn intersect_cores_distance(
    sa: impl Fn(Vec3) -> Vec3,
    sb: impl Fn(Vec3) -> Vec3,
    start: Vec3,
    r: Real,
    eps: Real,
) -> (bool, Vec3) {
    let reach2 = r * r + eps;
    let dir = search_start(start);
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
    fn from_pose(rel: Pose) -> Self {
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
    let start = if start == Vec3::ZERO { None } else { Some(pa.inverse_transform_vector(start)) };
    let (hit, v) = intersect_local(a, pa, b, pb, eps, start);
    (hit, pa.transform_vector(v))
}

/// Boolean GJK for any pair from the centre difference, without a direction to return (no
/// work the answer does not need).
pub fn intersect_gjk_cold(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    intersect_local(a, pa, b, pb, eps, None).0
}

/// The boolean GJK in A's frame: `start` is the first direction (A's frame), `None` for the
/// centre difference. Returns the answer and the last direction (A's frame).
#[inline(always)]
fn intersect_local(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, start: Option<Vec3>) -> (bool, Vec3) {
    if let (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) = (a, b)
        && let (Some(la), Some(lb)) = (ha.vertex_lanes(), hb.vertex_lanes())
    {
        // Small hulls (boxes, wedges): 8-lane support queries, SIMD where the CPU has it.
        return super::gjk_bool_hull8::intersect_hull8(la, lb, pa, pb, start, eps);
    }
    let rel = pa.inv_mul(pb);
    let r = rounding(a) + rounding(b);
    let start = start.unwrap_or(-rel.translation);
    let rel = Relative::from_pose(rel);
    match (a, b) {
        // The common polytope pairs get support functions without any shape dispatch.
        // Large hulls climb their vertex graphs (`ConvexHull::support`) instead of scanning.
        (Shape::ConvexHull(ha), Shape::ConvexHull(hb))
            if ha.vertices().len().max(hb.vertices().len()) > crate::geometry::ConvexHull::CLIMB_MIN_VERTICES =>
        {
            intersect_cores(|d| ha.support(d), |d| rel.support(d, |e| hb.support(e)), start, r, eps)
        }
        (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) => {
            let (va, vb) = (ha.vertices(), hb.vertices());
            intersect_cores(|d| support_points(va, d), |d| rel.support(d, |e| support_points(vb, e)), start, r, eps)
        }
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => {
            let (ha, hb) = (ca.half_extents, cb.half_extents);
            intersect_cores(|d| box_support(ha, d), |d| rel.support(d, |e| box_support(hb, e)), start, r, eps)
        }
        _ => intersect_cores(|d| a.core_support(d).0, |d| rel.support(d, |e| b.core_support(e).0), start, r, eps),
    }
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
        Shape::Cuboid(_) | Shape::ConvexHull(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => 0.0,
    }
}
