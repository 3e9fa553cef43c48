//! Boolean GJK for two hulls of at most 8 vertices (boxes, wedges, perturbed cubes): both
//! vertex sets as 8 lanes per coordinate, B's moved into A's frame once, the simplex kept in
//! SIMD registers (`Vec3A`). On x86-64 CPUs with AVX2 the support queries run 8 lanes in one
//! register; elsewhere a portable version gives the same bits (same operations, same order).

use crate::math::{Mat3, Pose, Real, Vec3};
use crate::narrowphase::gjk::boolean::{MAX_BOOL_STEPS, intersect_cores_distance, search_start};
use crate::narrowphase::gjk::voronoi::{Tetrahedron, edge, tetrahedron, towards_origin, triangle};
use crate::simd::lanes8::{self, Lanes, Rows, dots_portable, first_extreme_portable, point};
use crate::simd::{Kernels, Level};
use glam::Vec3A;

/// Which instruction set the support queries run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hull8Kernel {
    /// Plain Rust (whatever the compiler vectorises it to).
    Portable,
    /// 8 lanes in one 256-bit AVX2 register; only offered when the CPU has it.
    Avx2,
}

impl Kernels for Hull8Kernel {
    const LADDER: &'static [(Hull8Kernel, Level)] =
        &[(Hull8Kernel::Avx2, Level::Avx2), (Hull8Kernel::Portable, Level::Baseline)];
}

impl Hull8Kernel {
    /// The fastest kernel this CPU runs.
    pub fn best() -> Hull8Kernel {
        <Hull8Kernel as Kernels>::best()
    }
}

/// Support queries on the two lane sets, each point the first lane holding the extreme dot
/// product.
trait Supports {
    /// The support of the difference A - B along `d`: A's farthest vertex along `d` minus B's
    /// farthest along `-d` (its nearest along `d`).
    fn w(&self, d: Vec3A) -> Vec3A;
    /// The supports along `d` and `-d`, from one set of dot products per hull.
    fn w_both(&self, d: Vec3A) -> (Vec3A, Vec3A);
}

/// The pair for the portable kernel.
struct Portable<'l> {
    a: &'l Rows,
    b: &'l Rows,
}

impl Supports for Portable<'_> {
    #[inline(always)]
    fn w(&self, d: Vec3A) -> Vec3A {
        let (da, db) = (dots_portable(self.a, d), dots_portable(self.b, d));
        point(self.a, first_extreme_portable(&da, true)) - point(self.b, first_extreme_portable(&db, false))
    }
    #[inline(always)]
    fn w_both(&self, d: Vec3A) -> (Vec3A, Vec3A) {
        let (da, db) = (dots_portable(self.a, d), dots_portable(self.b, d));
        let (a_hi, a_lo) = (first_extreme_portable(&da, true), first_extreme_portable(&da, false));
        let (b_hi, b_lo) = (first_extreme_portable(&db, true), first_extreme_portable(&db, false));
        (point(self.a, a_hi) - point(self.b, b_lo), point(self.a, a_lo) - point(self.b, b_hi))
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2;

/// Boolean GJK by Voronoi regions (no closest points): the simplex only needs to tell on
/// which side of its features the origin lies. `Some(answer)` when decided; `None` when the
/// pair lies within the touching band (a separating plane closer than the reach) or the
/// simplex degenerates, which the distance GJK then settles. Also returns the last direction
/// (from the origin towards the difference), to warm-start the next call.
#[inline(always)]
fn regions(s: &impl Supports, start: Vec3A, reach2: Real) -> (Option<bool>, Vec3A) {
    // `d` points from the simplex towards the origin; new points are `s.w(d)`.
    // A plane normal to `d` through `a` (with `a · d < 0`) leaves the whole difference on the
    // far side of the origin: apart if farther than the reach, else the distance GJK decides.
    let separated = |ad: Real, d: Vec3A| if ad * ad > reach2 * d.length_squared() { Some(false) } else { None };
    // The first two points along `d0` and `-d0` at once (independent support queries), so
    // that a segment is ready after one round instead of two.
    let d0 = -start;
    let (b, a) = s.w_both(d0);
    // Either may already give a separating plane: `b · d0 < 0` or `a · (-d0) < 0`.
    let (bd, ad) = (b.dot(d0), -a.dot(d0));
    if (bd < 0.0 && separated(bd, d0).is_some()) || (ad < 0.0 && separated(ad, -d0).is_some()) {
        return (Some(false), if bd < 0.0 && separated(bd, d0).is_some() { -d0 } else { d0 });
    }
    let scale2 = a.length_squared().max(b.length_squared()).max(Real::MIN_POSITIVE);
    // Points newest first.
    let (mut p, mut n, mut d) = if bd < 0.0 || ad < 0.0 {
        // A separating plane within the reach: not decided yet, go on from `b` alone.
        ([b; 4], 1, -b)
    } else {
        // The origin lies between the two planes normal to `d0`: keep the feature of the
        // segment `a b` nearest to it.
        let (ab, ao) = (b - a, -a);
        if ab.dot(ao) <= 0.0 {
            ([a; 4], 1, ao)
        } else if (a - b).dot(-b) <= 0.0 {
            ([b; 4], 1, -b)
        } else {
            ([a, b, b, b], 2, towards_origin(ab, ao))
        }
    };
    for _ in 0..MAX_BOOL_STEPS {
        if d.length_squared() <= 1e-10 * scale2 {
            return (None, -d);
        }
        // From a segment, the next point makes a triangle whose normal will point roughly
        // along `m` or `-m` (`m` normal to the segment and to `d`): the points there are
        // fetched in the same round, so that the tetrahedron can be tried one round early.
        let side = (n == 2).then(|| {
            let m = (p[1] - p[0]).cross(d);
            (m, s.w_both(m))
        });
        let a = s.w(d);
        let ad = a.dot(d);
        if ad < 0.0 {
            return (separated(ad, d), -d);
        }
        // `d` points from the kept feature to the origin, so a new point past the origin is
        // progress; none means the origin sits on the feature (rounding has taken over).
        if ad <= p[0].dot(d) {
            return (None, -d);
        }
        let ao = -a;
        let step = match n {
            1 => {
                let b = p[0];
                Some(edge(&mut p, a, b, ao))
            }
            2 => {
                let (b, c) = (p[0], p[1]);
                match (triangle(&mut p, a, b, c, (b - a).cross(c - a), ao), side) {
                    (Some((3, nd)), Some((m, (e_pos, e_neg)))) => {
                        // The origin is above the triangle, along `nd`: take the side point
                        // on that side as the next point, as the next round would along `nd`.
                        let (e, dm) = if nd.dot(m) >= 0.0 { (e_pos, m) } else { (e_neg, -m) };
                        let ed = e.dot(dm);
                        if ed < 0.0 && separated(ed, dm).is_some() {
                            return (Some(false), -dm);
                        }
                        if (e - p[0]).dot(nd) > 0.0 {
                            d = nd;
                            match tetrahedron(&mut p, e, false) {
                                Tetrahedron::Contains => return (Some(true), -d),
                                Tetrahedron::Flat => return (None, -d),
                                Tetrahedron::Next(step) => step,
                            }
                        } else {
                            Some((3, nd))
                        }
                    }
                    (step, _) => step,
                }
            }
            _ => match tetrahedron(&mut p, a, false) {
                Tetrahedron::Contains => return (Some(true), -d),
                Tetrahedron::Flat => return (None, -d),
                Tetrahedron::Next(step) => step,
            },
        };
        match step {
            Some(nd) => (n, d) = nd,
            None => return (None, -d),
        }
    }
    (None, -d)
}

/// B's pose relative to A as a rotation matrix and an offset.
#[inline(always)]
fn relative(pa: &Pose, pb: &Pose) -> (Mat3, Vec3) {
    // The product of two unit quaternions is unit to rounding: no normalising (a square root
    // and a division on the way to every support query).
    let qi = pa.rotation.conjugate();
    (Mat3::from_quat(qi * pb.rotation), qi * (pb.translation - pa.translation))
}

/// The decided answer, or the distance GJK's on the same lanes when the pair lies within the
/// touching band.
#[inline(always)]
fn finish(a: &Rows, b: &Rows, decided: (Option<bool>, Vec3A), start: Vec3, reach2: Real) -> (bool, Vec3) {
    match decided {
        (Some(hit), v) => (hit, v.into()),
        (None, _) => {
            let far =
                |l: &Rows, d: Vec3| Vec3::from(point(l, first_extreme_portable(&dots_portable(l, d.into()), true)));
            let (sa, sb) = (|d| far(a, d), |d| far(b, d));
            intersect_cores_distance(sa, sb, start, 0.0, reach2)
        }
    }
}

#[inline(always)]
fn intersect_portable(la: &Rows, lb: &Rows, pa: &Pose, pb: &Pose, start: Option<Vec3>, eps: Real) -> (bool, Vec3) {
    let (rot, offset) = relative(pa, pb);
    let start = search_start(start.unwrap_or(-offset));
    let b = Lanes(*lb).transformed_portable(&rot, offset);
    let decided = regions(&Portable { a: la, b: &b.0 }, start.into(), eps);
    finish(la, &b.0, decided, start, eps)
}

/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn intersect_avx2(la: &Rows, lb: &Rows, pa: &Pose, pb: &Pose, start: Option<Vec3>, eps: Real) -> (bool, Vec3) {
    let (rot, offset) = relative(pa, pb);
    let start = search_start(start.unwrap_or(-offset));
    let mut b = Lanes([[0.0; 8]; 3]);
    // SAFETY: this function only runs on AVX2 CPUs (its caller checks).
    let (ra, rb) =
        unsafe { (lanes8::avx::Regs::load(la), lanes8::avx::Regs::load(lb).transformed(&rot, offset, &mut b)) };
    let decided = regions(&avx2::Avx2 { a: la, b: &b.0, ra, rb }, start.into(), eps);
    finish(la, &b.0, decided, start, eps)
}

/// Do hulls A and B (vertex lanes from [`crate::geometry::ConvexHull::vertex_lanes`]) lie within
/// `sqrt(eps)` of each other? `start` is the first search direction in A's frame (`None` for
/// the centre difference). Returns the answer and the last direction (A's frame).
#[inline]
pub fn intersect_hull8(la: &Rows, lb: &Rows, pa: &Pose, pb: &Pose, start: Option<Vec3>, eps: Real) -> (bool, Vec3) {
    // AVX2 where the CPU has it (checked inside), else the portable kernel.
    intersect_hull8_with(Hull8Kernel::Avx2, la, lb, pa, pb, start, eps)
}

/// [`intersect_hull8`] on a chosen kernel (for tests and benchmarks); AVX2 falls back to the
/// portable kernel on CPUs without it.
#[inline(always)]
pub fn intersect_hull8_with(
    kernel: Hull8Kernel,
    la: &Rows,
    lb: &Rows,
    pa: &Pose,
    pb: &Pose,
    start: Option<Vec3>,
    eps: Real,
) -> (bool, Vec3) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Hull8Kernel::Avx2 && crate::simd::avx2() {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { intersect_avx2(la, lb, pa, pb, start, eps) };
    }
    let _ = kernel;
    intersect_portable(la, lb, pa, pb, start, eps)
}

#[cfg(test)]
mod tests;
