//! The AVX2 kernel's support queries: each hull's 8 lanes in three 256-bit registers
//! ([`crate::simd::lanes8::avx`]).

use super::Supports;
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

// SAFETY (both `unsafe` blocks): an `Avx2` is only built inside `intersect_avx2`, which
// runs on AVX2 CPUs.
impl Supports for Avx2<'_> {
    #[inline(always)]
    fn w(&self, d: Vec3A) -> Vec3A {
        let (ia, ib) = unsafe { (first_extreme::<true>(self.ra.dots(d)), first_extreme::<false>(self.rb.dots(d))) };
        point(self.a, ia) - point(self.b, ib)
    }
    #[inline(always)]
    fn w_both(&self, d: Vec3A) -> (Vec3A, Vec3A) {
        let ((a_hi, a_lo), (b_hi, b_lo)) = unsafe {
            let (da, db) = (self.ra.dots(d), self.rb.dots(d));
            (
                (first_extreme::<true>(da), first_extreme::<false>(da)),
                (first_extreme::<true>(db), first_extreme::<false>(db)),
            )
        };
        (point(self.a, a_hi) - point(self.b, b_lo), point(self.a, a_lo) - point(self.b, b_hi))
    }
}
