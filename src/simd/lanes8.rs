//! Up to 8 points stored coordinate by coordinate, 8 lanes per coordinate (unused lanes repeat
//! the first point, which never changes an extreme), and the support query on them: the first
//! lane holding the largest (or smallest) dot product with a direction. GJK's Minkowski pair
//! ([`crate::narrowphase::gjk::closest::closest`], used by the distance GJK, the seed search and EPA) and the boolean hull8
//! GJK (`narrowphase::gjk::hull8`) both query these. Every form gives the same lane on
//! NaN-free dot products: plain Rust (other CPUs, and the tests' reference), SSE2 (the x86-64
//! baseline) and AVX (one 256-bit register per coordinate, [`avx`]). When some lanes' dot
//! products are NaN (an infinite direction against a zero coordinate), SSE2 and AVX still
//! agree, while plain Rust's `max` skips the NaN lanes.

use crate::math::{Mat3, Real, Vec3};
use glam::Vec3A;

/// Up to 8 points, 8 lanes per coordinate.
pub(crate) type Rows = [[Real; 8]; 3];

/// Rows aligned for 256-bit loads and stores.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug)]
pub(crate) struct Lanes(pub Rows);

/// Point `i` of `l`.
#[inline(always)]
pub(crate) fn point(l: &Rows, i: usize) -> Vec3A {
    Vec3A::new(l[0][i], l[1][i], l[2][i])
}

/// The dot products of the lanes with `d`: `(x dx + y dy) + z dz`.
#[inline(always)]
pub(crate) fn dots_portable(l: &Rows, d: Vec3A) -> [Real; 8] {
    let [x, y, z] = l;
    std::array::from_fn(|i| x[i] * d.x + y[i] * d.y + z[i] * d.z)
}

/// The first lane holding the maximum (`max`) or minimum of `dot`; lane 0 when none matches
/// (NaN).
#[inline(always)]
pub(crate) fn first_extreme_portable(dot: &[Real; 8], max: bool) -> usize {
    let pick = |p: Real, q: Real| if max { p.max(q) } else { p.min(q) };
    let m4: [Real; 4] = std::array::from_fn(|i| pick(dot[i], dot[i + 4]));
    let m = pick(pick(m4[0], m4[2]), pick(m4[1], m4[3]));
    let mut mask = 0u32;
    for (i, &di) in dot.iter().enumerate() {
        mask |= ((di == m) as u32) << i;
    }
    (mask.trailing_zeros() & 7) as usize
}

impl Lanes {
    /// The first 8 of `pts`, unused lanes repeating the first point.
    #[cfg(test)]
    pub(crate) fn new(pts: impl Iterator<Item = Vec3>) -> Self {
        let mut l = [[0.0; 8]; 3];
        let mut n = 0;
        for p in pts.take(8) {
            (l[0][n], l[1][n], l[2][n]) = (p.x, p.y, p.z);
            n += 1;
        }
        for i in n.max(1)..8 {
            (l[0][i], l[1][i], l[2][i]) = (l[0][0], l[1][0], l[2][0]);
        }
        Self(l)
    }

    /// Point `i`.
    #[inline(always)]
    pub(crate) fn point(&self, i: usize) -> Vec3 {
        point(&self.0, i).into()
    }

    /// The points moved by `rot` then `offset`, lane by lane: `((c0 x + c1 y) + c2 z) + o`,
    /// the arithmetic of `rot * p + offset`, so the same bits (and those of
    /// [`avx::Regs::transformed`]).
    pub(crate) fn transformed(&self, rot: &Mat3, offset: Vec3) -> Self {
        let (c0, c1, c2) = (rot.x_axis, rot.y_axis, rot.z_axis);
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            let mut out = Self([[0.0; 8]; 3]);
            // SAFETY: SSE2 is part of every x86-64 CPU; the rows are 32-byte aligned (repr
            // align) and hold 8 values, so the accesses at offsets 0 and 4 are aligned and in
            // bounds.
            unsafe {
                for o in [0, 4] {
                    let [x, y, z] = [0, 1, 2].map(|k| _mm_load_ps(self.0[k].as_ptr().add(o)));
                    for (k, row) in out.0.iter_mut().enumerate() {
                        let xy = _mm_add_ps(_mm_mul_ps(_mm_set1_ps(c0[k]), x), _mm_mul_ps(_mm_set1_ps(c1[k]), y));
                        let v = _mm_add_ps(_mm_add_ps(xy, _mm_mul_ps(_mm_set1_ps(c2[k]), z)), _mm_set1_ps(offset[k]));
                        _mm_store_ps(row.as_mut_ptr().add(o), v);
                    }
                }
            }
            out
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            self.transformed_portable(rot, offset)
        }
    }

    /// [`Self::transformed`] in plain Rust (other CPUs, and the reference in tests).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    pub(crate) fn transformed_portable(&self, rot: &Mat3, offset: Vec3) -> Self {
        let (c0, c1, c2) = (rot.x_axis, rot.y_axis, rot.z_axis);
        let [x, y, z] = &self.0;
        Self(std::array::from_fn(|k| std::array::from_fn(|i| c0[k] * x[i] + c1[k] * y[i] + c2[k] * z[i] + offset[k])))
    }

    /// The first of the farthest points along `d` (as a scan with `>` would pick it).
    #[inline(always)]
    pub(crate) fn support(&self, d: Vec3) -> Vec3 {
        self.point(crate::geometry::first_farthest(&self.0, d))
    }

    /// This set's farthest point along `d` and `b`'s along `-d`, on `kernel`: 8 lanes per
    /// register on AVX, else [`Self::support`] each; the same bits.
    #[inline(always)]
    pub(crate) fn support_pair(&self, b: &Lanes, d: Vec3, kernel: super::Avx) -> (Vec3, Vec3) {
        match kernel {
            // SAFETY: `Avx::Avx` is only chosen where the CPU runs AVX ([`super::Kernels`]).
            #[cfg(target_arch = "x86_64")]
            super::Avx::Avx => unsafe { support_pair_avx(self, b, d) },
            _ => (self.support(d), b.support(-d)),
        }
    }

    /// [`Self::support`] in plain Rust (other CPUs, and the reference in tests).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    #[inline(always)]
    pub(crate) fn support_portable(&self, d: Vec3) -> Vec3 {
        self.point(first_extreme_portable(&dots_portable(&self.0, d.into()), true))
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx;

/// A's farthest point along `d` and B's along `-d` (its first nearest along `d`: the same
/// lane, as negating the dot products is exact), 8 lanes per register.
///
/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn support_pair_avx(a: &Lanes, b: &Lanes, d: Vec3) -> (Vec3, Vec3) {
    use avx::{Regs, first_extreme_sse2};
    let d = d.into();
    // SAFETY: AVX is enabled on this function.
    let (ia, ib) = unsafe {
        (first_extreme_sse2::<true>(Regs::load(&a.0).dots(d)), first_extreme_sse2::<false>(Regs::load(&b.0).dots(d)))
    };
    (a.point(ia), b.point(ib))
}
