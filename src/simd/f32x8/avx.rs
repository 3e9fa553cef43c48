//! The AVX lanes. An [`Avx`] value only exists inside functions compiled with
//! `#[target_feature(enable = "avx")]`, which are only called once [`crate::simd::avx`] found
//! AVX: that is what makes the intrinsics below sound to call.

use super::{F32x8, Lane, W};
use std::arch::x86_64::*;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// Eight lanes in one 256-bit register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx(__m256);

macro_rules! avx_op {
    ($trait:ident, $f:ident, $intr:ident) => {
        impl $trait for Avx {
            type Output = Avx;
            #[inline(always)]
            fn $f(self, o: Avx) -> Avx {
                // SAFETY: see the module comment: AVX is present wherever an `Avx` exists.
                Avx(unsafe { $intr(self.0, o.0) })
            }
        }
    };
}
avx_op!(Add, add, _mm256_add_ps);
avx_op!(Sub, sub, _mm256_sub_ps);
avx_op!(Mul, mul, _mm256_mul_ps);

impl AddAssign for Avx {
    #[inline(always)]
    fn add_assign(&mut self, o: Avx) {
        *self = *self + o;
    }
}

impl SubAssign for Avx {
    #[inline(always)]
    fn sub_assign(&mut self, o: Avx) {
        *self = *self - o;
    }
}

/// Transposes an 8×8 block of floats held as eight rows.
#[inline(always)]
fn transpose(r: [__m256; 8]) -> [__m256; 8] {
    // SAFETY: see the module comment; these are register-only AVX shuffles.
    unsafe {
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(s0, s4),
            _mm256_permute2f128_ps::<0x20>(s1, s5),
            _mm256_permute2f128_ps::<0x20>(s2, s6),
            _mm256_permute2f128_ps::<0x20>(s3, s7),
            _mm256_permute2f128_ps::<0x31>(s0, s4),
            _mm256_permute2f128_ps::<0x31>(s1, s5),
            _mm256_permute2f128_ps::<0x31>(s2, s6),
            _mm256_permute2f128_ps::<0x31>(s3, s7),
        ]
    }
}

impl Lane for Avx {
    #[inline(always)]
    fn load(f: &F32x8) -> Self {
        // SAFETY: `F32x8` is 32-byte aligned and holds eight floats; AVX as in the module comment.
        Avx(unsafe { _mm256_load_ps(f.0.as_ptr()) })
    }
    #[inline(always)]
    fn load_unaligned(f: &[f32; W]) -> Self {
        // SAFETY: eight floats, unaligned load; AVX as in the module comment.
        Avx(unsafe { _mm256_loadu_ps(f.as_ptr()) })
    }
    #[inline(always)]
    fn store(self, f: &mut F32x8) {
        // SAFETY: as in `load`.
        unsafe { _mm256_store_ps(f.0.as_mut_ptr(), self.0) }
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_set1_ps(x) })
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_div_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_sqrt_ps(self.0) })
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        // `maxps(a, b)` is `a > b ? a : b`, as `Portable::max`.
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_max_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_min_ps(self.0, o.0) })
    }
    #[inline(always)]
    fn gt_select(self, o: Self, yes: Self, no: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe {
            let m = _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0);
            Avx(_mm256_blendv_ps(no.0, yes.0, m))
        }
    }
    #[inline(always)]
    fn le_bits(self, o: Self) -> u32 {
        // SAFETY: see the module comment.
        unsafe { _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(self.0, o.0)) as u32 }
    }
    #[inline(always)]
    fn neg(self) -> Self {
        // SAFETY: see the module comment.
        Avx(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        // SAFETY: see the module comment.
        unsafe {
            let bit = _mm256_set1_ps(-0.0);
            Avx(_mm256_or_ps(_mm256_andnot_ps(bit, self.0), _mm256_and_ps(bit, sign.0)))
        }
    }
    #[inline(always)]
    unsafe fn load_transposed(rows: [*const f32; W]) -> [Self; 8] {
        // SAFETY: each row holds eight readable floats (the caller's); AVX as in the module
        // comment.
        let r = std::array::from_fn(|i| unsafe { _mm256_loadu_ps(rows[i]) });
        transpose(r).map(Avx)
    }
    #[inline(always)]
    unsafe fn load_transposed4(rows: [*const f32; W]) -> [Self; 4] {
        // SAFETY: each row holds four readable floats (the caller's); AVX as in the module
        // comment.
        unsafe {
            // Rows i and i + 4 in the two halves of one register, then a 4×4 transpose in each
            // half.
            let q: [__m256; 4] = std::array::from_fn(|i| {
                _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(rows[i])), _mm_loadu_ps(rows[i + 4]))
            });
            let t0 = _mm256_unpacklo_ps(q[0], q[1]);
            let t1 = _mm256_unpackhi_ps(q[0], q[1]);
            let t2 = _mm256_unpacklo_ps(q[2], q[3]);
            let t3 = _mm256_unpackhi_ps(q[2], q[3]);
            [
                Avx(_mm256_shuffle_ps::<0x44>(t0, t2)),
                Avx(_mm256_shuffle_ps::<0xEE>(t0, t2)),
                Avx(_mm256_shuffle_ps::<0x44>(t1, t3)),
                Avx(_mm256_shuffle_ps::<0xEE>(t1, t3)),
            ]
        }
    }
    #[inline(always)]
    unsafe fn store_transposed(cols: [Self; 8], rows: [*mut f32; W], mask: u8) {
        let r = transpose(cols.map(|c| c.0));
        if mask == 0xFF {
            // Every lane (the common case): no branch per lane.
            for (i, row) in r.into_iter().enumerate() {
                // SAFETY: as below.
                unsafe { _mm256_storeu_ps(rows[i], row) }
            }
            return;
        }
        for (i, row) in r.into_iter().enumerate() {
            if mask & (1 << i) != 0 {
                // SAFETY: the row holds eight writable floats (the caller's); AVX as in the
                // module comment.
                unsafe { _mm256_storeu_ps(rows[i], row) }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::Portable;
    use super::*;

    fn lanes(a: Avx) -> [u32; W] {
        let mut f = F32x8::default();
        a.store(&mut f);
        f.0.map(f32::to_bits)
    }

    fn of(p: Portable) -> Avx {
        Avx::load(&F32x8(p.0))
    }

    /// The AVX transposes give the portable ones' lanes (`src` holds 8 rows of 12 floats).
    #[target_feature(enable = "avx")]
    pub(in crate::simd) fn transposes_match(src: &[f32], p8: [Portable; 8], p4: [Portable; 4]) {
        let rows: [*const f32; W] = std::array::from_fn(|i| src[i * 12..].as_ptr());
        // SAFETY: each row starts 12 floats apart in `src`, which holds 8 rows of 12.
        let (a8, a4) = unsafe { (Avx::load_transposed(rows), Avx::load_transposed4(rows.map(|r| r.wrapping_add(8)))) };
        for k in 0..8 {
            assert_eq!(lanes(a8[k]), p8[k].0.map(f32::to_bits), "float {k}");
        }
        for k in 0..4 {
            assert_eq!(lanes(a4[k]), p4[k].0.map(f32::to_bits), "float {}", k + 8);
        }
        let mut out = vec![0.0f32; W * 12];
        let dst: [*mut f32; W] = std::array::from_fn(|i| out[i * 12..].as_mut_ptr());
        // SAFETY: as above, written.
        unsafe { Avx::store_transposed(a8, dst, 0b0110_1001) };
        let mut want = vec![0.0f32; W * 12];
        let dst: [*mut f32; W] = std::array::from_fn(|i| want[i * 12..].as_mut_ptr());
        // SAFETY: as above, written.
        unsafe { Portable::store_transposed(p8, dst, 0b0110_1001) };
        assert_eq!(out, want);
    }

    /// Every lane operation gives the portable bits.
    #[target_feature(enable = "avx")]
    pub(in crate::simd) fn comparisons_match(a: Portable, b: Portable) {
        let (x, y) = (of(a), of(b));
        let p = |l: Portable| l.0.map(f32::to_bits);
        assert_eq!(x.le_bits(y), a.le_bits(b));
        assert_eq!(lanes(x.max(y)), p(a.max(b)));
        assert_eq!(lanes(x.min(y)), p(a.min(b)));
        assert_eq!(lanes(x.gt_select(y, x + y, x - y)), p(a.gt_select(b, a + b, a - b)));
        assert_eq!(lanes(x.neg()), p(a.neg()));
        assert_eq!(lanes(x.copysign(y)), p(a.copysign(b)));
        assert_eq!(lanes(x.div(y)), p(a.div(b)));
        assert_eq!(lanes(x.sqrt()), p(a.sqrt()));
        assert_eq!(lanes(x * y), p(a * b));
    }
}
