//! The AVX2 kernel's support queries: each hull's 8 lanes in three 256-bit registers
//! ([`crate::simd::lanes8::avx`]).

use crate::narrowphase::gjk::boolean::DifferenceSupport;
use crate::simd::lanes8::avx::{Regs, first_extreme};
use crate::simd::lanes8::{Rows, point};
use glam::Vec3A;

/// The pair for the AVX2 kernel: lanes in registers for the dot products, in memory for
/// fetching the chosen point.
pub(super) struct Avx2<'l> {
    pub(super) a: &'l Rows,
    pub(super) b: &'l Rows,
    pub(super) ra: Regs,
    pub(super) rb: Regs,
}

// SAFETY: an `Avx2` is only built inside `intersect_avx2`, which
// runs on AVX2 CPUs.
impl DifferenceSupport<Vec3A> for Avx2<'_> {
    #[inline(always)]
    fn w(&self, d: Vec3A) -> Vec3A {
        let (ia, ib) = unsafe { (first_extreme::<true>(self.ra.dots(d)), first_extreme::<false>(self.rb.dots(d))) };
        point(self.a, ia) - point(self.b, ib)
    }
}
