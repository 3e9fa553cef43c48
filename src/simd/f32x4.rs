//! Four `f32` lanes in one 128-bit register: SSE2 on x86-64 (part of its baseline, so there is
//! nothing to detect), plain Rust elsewhere, with the same answers (the comparisons are ordered:
//! false where a lane is NaN; `min`/`max` return the second operand unless the first is
//! strictly smaller/larger, as `minps`/`maxps`).

use std::ops::{Add, BitAnd, Deref, DerefMut, Mul, Sub};

/// Four floats aligned for one 128-bit load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub(crate) struct Row4(pub [f32; 4]);

impl Deref for Row4 {
    type Target = [f32; 4];
    #[inline(always)]
    fn deref(&self) -> &[f32; 4] {
        &self.0
    }
}

impl DerefMut for Row4 {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [f32; 4] {
        &mut self.0
    }
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// Four lanes in a register.
#[derive(Clone, Copy, Debug)]
pub(crate) struct F32x4(#[cfg(target_arch = "x86_64")] __m128, #[cfg(not(target_arch = "x86_64"))] [f32; 4]);

/// Four lane-wise answers of a comparison.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Mask4(#[cfg(target_arch = "x86_64")] __m128, #[cfg(not(target_arch = "x86_64"))] [bool; 4]);

/// Lane-wise `f(a, b)`, portable build.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn zip<T>(a: [f32; 4], b: [f32; 4], f: impl Fn(f32, f32) -> T) -> [T; 4] {
    std::array::from_fn(|i| f(a[i], b[i]))
}

// SAFETY (every `unsafe` block below): SSE2 is part of every x86-64 CPU; `Row4` is 16-byte
// aligned, the other loads and stores are unaligned ones of four floats in bounds.
impl F32x4 {
    /// The lanes of `r`.
    #[inline(always)]
    pub(crate) fn load(r: &Row4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_load_ps(r.0.as_ptr()) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(r.0)
    }

    /// Four floats that need not be aligned.
    #[inline(always)]
    pub(crate) fn load_unaligned(r: &[f32; 4]) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_loadu_ps(r.as_ptr()) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(*r)
    }

    /// Writes the lanes into `r`, which need not be aligned.
    #[inline(always)]
    pub(crate) fn store_unaligned(self, r: &mut [f32; 4]) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        unsafe {
            _mm_storeu_ps(r.as_mut_ptr(), self.0)
        };
        #[cfg(not(target_arch = "x86_64"))]
        {
            *r = self.0;
        }
    }

    /// `x` in every lane.
    #[inline(always)]
    pub(crate) fn splat(x: f32) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_set1_ps(x) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4([x; 4])
    }

    /// `self / o`, lane by lane.
    #[inline(always)]
    pub(crate) fn div(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_div_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| a / b))
    }

    /// `self` where `self < o`, else `o` (as `minps`).
    #[inline(always)]
    pub(crate) fn min(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_min_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| if a < b { a } else { b }))
    }

    /// `self` where `self > o`, else `o` (as `maxps`).
    #[inline(always)]
    pub(crate) fn max(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_max_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| if a > b { a } else { b }))
    }

    /// `self <= o`, lane by lane.
    #[inline(always)]
    pub(crate) fn le(self, o: F32x4) -> Mask4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return Mask4(unsafe { _mm_cmple_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        Mask4(zip(self.0, o.0, |a, b| a <= b))
    }

    /// `self < o`, lane by lane.
    #[inline(always)]
    pub(crate) fn lt(self, o: F32x4) -> Mask4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return Mask4(unsafe { _mm_cmplt_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        Mask4(zip(self.0, o.0, |a, b| a < b))
    }

    /// `self >= o`, lane by lane.
    #[inline(always)]
    pub(crate) fn ge(self, o: F32x4) -> Mask4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return Mask4(unsafe { _mm_cmpge_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        Mask4(zip(self.0, o.0, |a, b| a >= b))
    }
}

impl Add for F32x4 {
    type Output = F32x4;
    #[inline(always)]
    fn add(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_add_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| a + b))
    }
}

impl Sub for F32x4 {
    type Output = F32x4;
    #[inline(always)]
    fn sub(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_sub_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| a - b))
    }
}

impl Mul for F32x4 {
    type Output = F32x4;
    #[inline(always)]
    fn mul(self, o: F32x4) -> F32x4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return F32x4(unsafe { _mm_mul_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        F32x4(zip(self.0, o.0, |a, b| a * b))
    }
}

impl BitAnd for Mask4 {
    type Output = Mask4;
    #[inline(always)]
    fn bitand(self, o: Mask4) -> Mask4 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return Mask4(unsafe { _mm_and_ps(self.0, o.0) });
        #[cfg(not(target_arch = "x86_64"))]
        Mask4(std::array::from_fn(|i| self.0[i] & o.0[i]))
    }
}

impl Mask4 {
    /// Bit `k` set where lane `k` is true.
    #[inline(always)]
    pub(crate) fn bits(self) -> i32 {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: see above.
        return unsafe { _mm_movemask_ps(self.0) };
        #[cfg(not(target_arch = "x86_64"))]
        (0..4).fold(0, |m, k| m | (self.0[k] as i32) << k)
    }
}

/// A box's min and max as two rows ([`rows_of_six`] on its six floats).
#[inline(always)]
pub(crate) fn rows_of_box(b: &crate::geometry::Aabb) -> [Row4; 2] {
    use crate::geometry::Aabb;
    use std::mem::{offset_of, size_of};
    // `rows_of_six` reads an `Aabb` as six consecutive floats.
    const _: () = assert!(offset_of!(Aabb, min) == 0 && offset_of!(Aabb, max) == 12 && size_of::<Aabb>() == 24);
    // SAFETY: an `Aabb` is six consecutive `f32`s (checked above), with `f32`'s alignment.
    rows_of_six(unsafe { &*(b as *const Aabb).cast::<[f32; 6]>() })
}

/// Six consecutive floats as two rows of three, lane 3 zero: `(f0, f1, f2, 0)` and
/// `(f3, f4, f5, 0)` (a box's min and max), with two loads and two lane moves on x86-64.
#[inline(always)]
pub(crate) fn rows_of_six(f: &[f32; 6]) -> [Row4; 2] {
    #[cfg(target_arch = "x86_64")]
    {
        let mut out = [Row4::default(); 2];
        // SAFETY: see above; both 16-byte loads lie inside the six floats (floats 0–3 and 2–5).
        unsafe {
            let f = f.as_ptr();
            let first3 = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            let lo = _mm_and_ps(_mm_loadu_ps(f), first3);
            let hi = _mm_castsi128_ps(_mm_srli_si128::<4>(_mm_castps_si128(_mm_loadu_ps(f.add(2)))));
            _mm_store_ps(out[0].0.as_mut_ptr(), lo);
            _mm_store_ps(out[1].0.as_mut_ptr(), hi);
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    [Row4([f[0], f[1], f[2], 0.0]), Row4([f[3], f[4], f[5], 0.0])]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_of_six_and_masks() {
        let f = [1.0, -2.0, 3.5, f32::NAN, -0.0, 6.0];
        let [lo, hi] = rows_of_six(&f);
        assert_eq!(lo.0.map(f32::to_bits), [1.0f32, -2.0, 3.5, 0.0].map(f32::to_bits));
        assert_eq!(hi.0.map(f32::to_bits), [f32::NAN, -0.0, 6.0, 0.0].map(f32::to_bits));
        let (a, b) = (F32x4::load(&Row4([0.0, 1.0, f32::NAN, 2.0])), F32x4::load_unaligned(&[0.0, 0.5, 1.0, 3.0]));
        assert_eq!(a.le(b).bits(), 0b1001);
        assert_eq!(a.lt(b).bits(), 0b1000);
        assert_eq!(a.ge(b).bits(), 0b0011);
        assert_eq!((a.le(b) & a.ge(b)).bits(), 0b0001);
        let mut r = [1.0; 4];
        a.min(b).store_unaligned(&mut r);
        assert_eq!(r.map(f32::to_bits), [0.0f32, 0.5, 1.0, 2.0].map(f32::to_bits));
        let mut u = [0.0; 4];
        (a.max(b) + F32x4::splat(1.0) * b).store_unaligned(&mut u);
        assert_eq!(u.map(f32::to_bits), [0.0f32, 1.5, 2.0, 6.0].map(f32::to_bits));
    }
}
