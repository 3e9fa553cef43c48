//! The AVX support query: a lane set in three 256-bit registers.

use super::{Lanes, Rows};
use crate::math::{Mat3, Vec3};
use glam::Vec3A;
use std::arch::x86_64::*;

/// A lane set held in three 256-bit registers.
#[derive(Clone, Copy)]
pub(crate) struct Regs {
    x: __m256,
    y: __m256,
    z: __m256,
}

impl Regs {
    /// # Safety
    /// The CPU must support AVX.
    #[inline(always)]
    pub(crate) unsafe fn load(l: &Rows) -> Regs {
        // SAFETY: each row holds 8 values (unaligned loads); the caller guarantees AVX.
        unsafe {
            Regs {
                x: _mm256_loadu_ps(l[0].as_ptr()),
                y: _mm256_loadu_ps(l[1].as_ptr()),
                z: _mm256_loadu_ps(l[2].as_ptr()),
            }
        }
    }

    /// The lanes moved by `rot` then `offset`, with [`Lanes::transformed`]'s arithmetic,
    /// stored into `out` (for fetching points) and returned in registers.
    ///
    /// # Safety
    /// The CPU must support AVX.
    #[inline(always)]
    pub(crate) unsafe fn transformed(&self, rot: &Mat3, offset: Vec3, out: &mut Lanes) -> Regs {
        let (c0, c1, c2) = (rot.x_axis, rot.y_axis, rot.z_axis);
        // SAFETY: the caller guarantees AVX.
        let (x, y, z) = unsafe {
            (
                self.row(c0[0], c1[0], c2[0], offset[0]),
                self.row(c0[1], c1[1], c2[1], offset[1]),
                self.row(c0[2], c1[2], c2[2], offset[2]),
            )
        };
        // SAFETY: the caller guarantees AVX; `out` is 32-byte aligned with 8 values a row.
        unsafe {
            _mm256_store_ps(out.0[0].as_mut_ptr(), x);
            _mm256_store_ps(out.0[1].as_mut_ptr(), y);
            _mm256_store_ps(out.0[2].as_mut_ptr(), z);
        }
        Regs { x, y, z }
    }

    /// One coordinate of the moved lanes: `((c0 x + c1 y) + c2 z) + o`.
    ///
    /// # Safety
    /// The CPU must support AVX.
    #[inline(always)]
    unsafe fn row(&self, c0: f32, c1: f32, c2: f32, o: f32) -> __m256 {
        // SAFETY: the caller guarantees AVX.
        unsafe {
            let xy =
                _mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(c0), self.x), _mm256_mul_ps(_mm256_set1_ps(c1), self.y));
            _mm256_add_ps(_mm256_add_ps(xy, _mm256_mul_ps(_mm256_set1_ps(c2), self.z)), _mm256_set1_ps(o))
        }
    }

    /// The lanes' dot products with `d`, with [`super::dots_portable`]'s arithmetic.
    ///
    /// # Safety
    /// The CPU must support AVX.
    #[inline(always)]
    pub(crate) unsafe fn dots(&self, d: Vec3A) -> __m256 {
        // SAFETY: the caller guarantees AVX.
        unsafe {
            _mm256_add_ps(
                _mm256_add_ps(_mm256_mul_ps(self.x, _mm256_set1_ps(d.x)), _mm256_mul_ps(self.y, _mm256_set1_ps(d.y))),
                _mm256_mul_ps(self.z, _mm256_set1_ps(d.z)),
            )
        }
    }
}

/// The first lane holding the maximum (`MAX`) or minimum of `dot`; lane 0 when none
/// matches (NaN). Where some lanes are NaN (`maxps` returns its second operand then) the two
/// halves may reduce to different values; [`first_extreme_sse2`] settles that as SSE2 does.
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
pub(crate) unsafe fn first_extreme<const MAX: bool>(dot: __m256) -> usize {
    // SAFETY: the caller guarantees AVX.
    unsafe { first_match(dot, reduce::<MAX>(dot)) }
}

/// [`first_extreme`] with the SSE2 query's reduction ([`super::Lanes::support`]): the low
/// half's `pick(lo, hi)` copied to both halves, so that even a dot product with some NaN lanes
/// picks the SSE2 lane (GJK's and EPA's supports keep the SSE2 answers).
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
pub(crate) unsafe fn first_extreme_sse2<const MAX: bool>(dot: __m256) -> usize {
    // SAFETY: the caller guarantees AVX.
    unsafe {
        let m = reduce::<MAX>(dot);
        first_match(dot, _mm256_permute2f128_ps::<0x00>(m, m))
    }
}

/// The extreme of `dot` in every lane (each half reduced on its own).
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
unsafe fn reduce<const MAX: bool>(dot: __m256) -> __m256 {
    // SAFETY: the caller guarantees AVX.
    unsafe {
        let m = pick::<MAX>(dot, _mm256_permute2f128_ps::<1>(dot, dot));
        let m = pick::<MAX>(m, _mm256_permute_ps::<0b01_00_11_10>(m));
        pick::<MAX>(m, _mm256_permute_ps::<0b10_11_00_01>(m))
    }
}

/// The first lane of `dot` equal to `m`'s lane; lane 0 when none is.
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
unsafe fn first_match(dot: __m256, m: __m256) -> usize {
    // SAFETY: the caller guarantees AVX.
    let mask = unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(dot, m)) as u32 };
    (mask.trailing_zeros() & 7) as usize
}

/// Lane-wise maximum (`MAX`) or minimum.
///
/// # Safety
/// The CPU must support AVX.
#[inline(always)]
unsafe fn pick<const MAX: bool>(p: __m256, q: __m256) -> __m256 {
    // SAFETY: the caller guarantees AVX.
    unsafe { if MAX { _mm256_max_ps(p, q) } else { _mm256_min_ps(p, q) } }
}

/// Two lane sets in registers for the support query of their difference: made only by
/// [`with_pair`], inside a copy compiled with AVX2 on a CPU that runs it, so its query is safe.
#[derive(Clone, Copy)]
pub(crate) struct PairRegs {
    a: Regs,
    b: Regs,
}

impl PairRegs {
    /// The first lane of A holding the largest dot product with `d` and the first of B holding
    /// the smallest ([`super::first_extreme_portable`]'s answers on NaN-free products).
    #[inline(always)]
    pub(crate) fn extremes(&self, d: Vec3A) -> (usize, usize) {
        // SAFETY: a `PairRegs` exists only inside `pair_avx2`, which runs on AVX2 CPUs.
        unsafe { (first_extreme::<true>(self.a.dots(d)), first_extreme::<false>(self.b.dots(d))) }
    }
}

/// Runs `f` with A's lanes and B's moved by `rot` then `offset` (also stored into `moved`, for
/// fetching points) in registers, in a copy of `f` compiled with AVX2; `None`, running
/// nothing, where the CPU lacks AVX2. `f` is inlined into that copy, so the queries it makes
/// compile to AVX2 code.
#[inline(always)]
pub(crate) fn with_pair<R>(
    a: &Rows,
    b: &Rows,
    rot: &Mat3,
    offset: Vec3,
    moved: &mut Lanes,
    f: impl FnOnce(PairRegs, &Lanes) -> R,
) -> Option<R> {
    // SAFETY: the CPU runs AVX2, checked first.
    crate::simd::avx2().then(|| unsafe { pair_avx2(a, b, rot, offset, moved, f) })
}

/// [`with_pair`]'s AVX2 copy.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn pair_avx2<R>(
    a: &Rows,
    b: &Rows,
    rot: &Mat3,
    offset: Vec3,
    moved: &mut Lanes,
    f: impl FnOnce(PairRegs, &Lanes) -> R,
) -> R {
    // SAFETY: AVX2 (and so AVX) is enabled on this function.
    let pair = unsafe { PairRegs { a: Regs::load(a), b: Regs::load(b).transformed(rot, offset, moved) } };
    f(pair, moved)
}
