//! Boolean GJK for two hulls of at most 8 vertices (boxes, wedges, perturbed cubes): the one
//! boolean GJK loop (`gjk::boolean::intersect_regions`) with both vertex sets as 8 lanes per
//! coordinate, B's moved into A's frame once, the simplex kept in SIMD registers (`Vec3A`). On
//! x86-64 CPUs with AVX2 the support queries run 8 lanes in one register; elsewhere a portable
//! version gives the same bits (same operations, same order).

use crate::math::{Mat3, Pose, Real, Vec3};
use crate::narrowphase::gjk::boolean::{DifferenceSupport, intersect_cores_distance, intersect_regions, search_start};
use crate::simd::lanes8::{self, Lanes, Rows, dots_portable, first_extreme_portable, point};
use crate::simd::{Kernels, Level};
use glam::Vec3A;

/// Which instruction set the support queries run on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hull8Kernel {
    /// Plain Rust (whatever the compiler vectorises it to).
    Portable,
    /// 8 lanes in one 256-bit AVX2 register; only offered when the CPU has it.
    Avx2,
}

impl Kernels for Hull8Kernel {
    const LADDER: &'static [(Hull8Kernel, Level)] =
        &[(Hull8Kernel::Avx2, Level::Avx2), (Hull8Kernel::Portable, Level::Baseline)];
}

/// The pair for the portable kernel.
struct Portable<'l> {
    a: &'l Rows,
    b: &'l Rows,
}

/// The support of the difference A - B: A's farthest vertex along `d` minus B's farthest along
/// `-d` (its nearest along `d`), each the first lane holding the extreme dot product.
impl DifferenceSupport<Vec3A> for Portable<'_> {
    #[inline(always)]
    fn w(&self, d: Vec3A) -> Vec3A {
        let (da, db) = (dots_portable(self.a, d), dots_portable(self.b, d));
        point(self.a, first_extreme_portable(&da, true)) - point(self.b, first_extreme_portable(&db, false))
    }
}

/// The pair for the AVX2 kernel: lanes in registers for the dot products
/// ([`lanes8::avx::PairRegs`]), in memory for fetching the chosen point.
#[cfg(target_arch = "x86_64")]
struct Avx2<'l> {
    a: &'l Rows,
    b: &'l Rows,
    regs: lanes8::avx::PairRegs,
}

#[cfg(target_arch = "x86_64")]
impl DifferenceSupport<Vec3A> for Avx2<'_> {
    #[inline(always)]
    fn w(&self, d: Vec3A) -> Vec3A {
        let (ia, ib) = self.regs.extremes(d);
        point(self.a, ia) - point(self.b, ib)
    }
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
    let decided = intersect_regions(Portable { a: la, b: &b.0 }, start.into(), eps);
    finish(la, &b.0, decided, start, eps)
}

/// [`intersect_portable`] on AVX2 registers, compiled with AVX2 ([`lanes8::avx::with_pair`]);
/// `None` where the CPU lacks AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn intersect_avx2(la: &Rows, lb: &Rows, pa: &Pose, pb: &Pose, start: Option<Vec3>, eps: Real) -> Option<(bool, Vec3)> {
    let (rot, offset) = relative(pa, pb);
    let start = search_start(start.unwrap_or(-offset));
    let mut moved = Lanes([[0.0; 8]; 3]);
    lanes8::avx::with_pair(la, lb, &rot, offset, &mut moved, |regs, b| {
        let decided = intersect_regions(Avx2 { a: la, b: &b.0, regs }, start.into(), eps);
        finish(la, &b.0, decided, start, eps)
    })
}

/// Do hulls A and B (vertex lanes from [`crate::geometry::ConvexHull::vertex_lanes`]) lie within
/// `sqrt(eps)` of each other? `start` is the first search direction in A's frame (`None` for
/// the centre difference). Returns the answer and the last direction (A's frame).
#[inline]
pub(crate) fn intersect_hull8(
    la: &Rows,
    lb: &Rows,
    pa: &Pose,
    pb: &Pose,
    start: Option<Vec3>,
    eps: Real,
) -> (bool, Vec3) {
    // AVX2 where the CPU has it (checked inside), else the portable kernel.
    intersect_hull8_with(Hull8Kernel::Avx2, la, lb, pa, pb, start, eps)
}

/// [`intersect_hull8`] on a chosen kernel (the tests run both); AVX2 falls back to the
/// portable kernel on CPUs without it.
#[inline(always)]
pub(crate) fn intersect_hull8_with(
    kernel: Hull8Kernel,
    la: &Rows,
    lb: &Rows,
    pa: &Pose,
    pb: &Pose,
    start: Option<Vec3>,
    eps: Real,
) -> (bool, Vec3) {
    #[cfg(target_arch = "x86_64")]
    if kernel == Hull8Kernel::Avx2
        && let Some(answer) = intersect_avx2(la, lb, pa, pb, start, eps)
    {
        return answer;
    }
    let _ = kernel;
    intersect_portable(la, lb, pa, pb, start, eps)
}

#[cfg(test)]
mod tests;
