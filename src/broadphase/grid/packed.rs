//! The grid's per-body copies for its two hot loops: each box as two aligned rows `(min, m)` and
//! `(max, 0)`, written in every update, so the exact test of a candidate reads one 32-byte line
//! per body (`m` is 1 for a body that changed cells, which the same test reports); and each
//! body's cell range as floats, so the update checks "same cells" with a multiply and four
//! compares instead of a floor.

use crate::geometry::Aabb;

/// One body's box, SSE-ready. Lane 3 is zero in both rows, except that `lo[3]` is set to
/// [`MOVED`] for a body that changed cells: the overlap mask's bit 3 is then clear.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(super) struct PackedBox {
    pub lo: [f32; 4],
    pub hi: [f32; 4],
}

impl PackedBox {
    #[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
    #[inline(always)]
    pub(super) fn of_scalar(b: &Aabb) -> PackedBox {
        PackedBox { lo: [b.min.x, b.min.y, b.min.z, 0.0], hi: [b.max.x, b.max.y, b.max.z, 0.0] }
    }

    /// [`PackedBox::of_scalar`] with two unaligned loads and two SSE2 lane moves.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub(super) fn of(b: &Aabb) -> PackedBox {
        use std::arch::x86_64::*;
        use std::mem::{offset_of, size_of};
        // The loads below read an `Aabb` as six consecutive floats.
        const _: () = assert!(offset_of!(Aabb, min) == 0 && offset_of!(Aabb, max) == 12 && size_of::<Aabb>() == 24);
        let mut out = PackedBox::default();
        // SAFETY: SSE2 is part of the x86-64 baseline; both 16-byte loads lie inside the 24-byte
        // box (floats 0–3 and 2–5), and the stores go to `out`'s aligned rows.
        unsafe {
            let f = (b as *const Aabb).cast::<f32>();
            let first3 = _mm_castsi128_ps(_mm_set_epi32(0, -1, -1, -1));
            let lo = _mm_and_ps(_mm_loadu_ps(f), first3);
            let hi = _mm_castsi128_ps(_mm_srli_si128::<4>(_mm_castps_si128(_mm_loadu_ps(f.add(2)))));
            _mm_store_ps(out.lo.as_mut_ptr(), lo);
            _mm_store_ps(out.hi.as_mut_ptr(), hi);
        }
        out
    }

    #[cfg(not(target_arch = "x86_64"))]
    #[inline(always)]
    pub fn of(b: &Aabb) -> PackedBox {
        PackedBox::of_scalar(b)
    }

    /// A cell range as floats, `(lo, 0)` and `(hi, 0)`; `None` (a body not in the table) gives
    /// rows no scaled coordinate lies in, so [`same_cells`] fails.
    pub(super) fn cells(range: Option<([i32; 3], [i32; 3])>) -> PackedBox {
        match range {
            Some((lo, hi)) => PackedBox {
                lo: [lo[0] as f32, lo[1] as f32, lo[2] as f32, 0.0],
                hi: [hi[0] as f32, hi[1] as f32, hi[2] as f32, 0.0],
            },
            None => PackedBox { lo: [f32::NAN; 4], hi: [f32::NAN; 4] },
        }
    }
}

/// The value of `lo[3]` that marks a moved body.
pub(super) const MOVED: f32 = 1.0;

/// Bit 3 of [`overlap_mask`]: neither body is marked moved.
pub(super) const KEPT: i32 = 0b1000;
/// Bits 0–2 of [`overlap_mask`]: the boxes overlap on every axis.
pub(super) const HIT: i32 = 0b0111;

/// True when box `b`, scaled by `inv`, lies in exactly the cells `c` (from [`PackedBox::cells`])
/// and is ordered (`min <= max`): then `Grid::range_of(b)` is that range. Lane 3 of `b.lo`
/// must be zero. For a coordinate `s = v * inv` and cell `k`, `k <= s < k + 1` is exactly
/// `cell_coord(v) == k` (the clamp cannot move a value already in `[k, k + 1)` of a cell within
/// the key's range), and it also implies `v` is finite.
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
pub(super) fn same_cells_scalar(b: &PackedBox, c: &PackedBox, inv: f32) -> bool {
    (0..4).fold(true, |ok, k| {
        let (s, t) = (b.lo[k] * inv, b.hi[k] * inv);
        ok & (s >= c.lo[k]) & (s < c.lo[k] + 1.0) & (t >= c.hi[k]) & (t < c.hi[k] + 1.0) & (b.lo[k] <= b.hi[k])
    })
}

/// [`same_cells_scalar`] with SSE2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn same_cells(b: &PackedBox, c: &PackedBox, inv: f32) -> bool {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; `PackedBox` rows are aligned 16-byte loads.
    unsafe {
        let (lo, hi) = (_mm_load_ps(b.lo.as_ptr()), _mm_load_ps(b.hi.as_ptr()));
        let (clo, chi) = (_mm_load_ps(c.lo.as_ptr()), _mm_load_ps(c.hi.as_ptr()));
        let (s, t, one) = (_mm_mul_ps(lo, _mm_set1_ps(inv)), _mm_mul_ps(hi, _mm_set1_ps(inv)), _mm_set1_ps(1.0));
        let in_lo = _mm_and_ps(_mm_cmpge_ps(s, clo), _mm_cmplt_ps(s, _mm_add_ps(clo, one)));
        let in_hi = _mm_and_ps(_mm_cmpge_ps(t, chi), _mm_cmplt_ps(t, _mm_add_ps(chi, one)));
        _mm_movemask_ps(_mm_and_ps(_mm_and_ps(in_lo, in_hi), _mm_cmple_ps(lo, hi))) == 0xf
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn same_cells(b: &PackedBox, c: &PackedBox, inv: f32) -> bool {
    same_cells_scalar(b, c, inv)
}

pub(super) use crate::simd::prefetch;

/// The union of boxes, kept as two rows (lane 3 is ignored).
pub(super) struct Bounds {
    lo: [f32; 4],
    hi: [f32; 4],
}

impl Bounds {
    pub(super) fn new() -> Bounds {
        Bounds { lo: [f32::INFINITY; 4], hi: [f32::NEG_INFINITY; 4] }
    }

    /// Adds a finite box.
    #[inline(always)]
    pub(super) fn add(&mut self, b: &PackedBox) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE is part of the x86-64 baseline; `b`'s rows are aligned, `self`'s are
            // read and written unaligned.
            unsafe {
                let lo = _mm_min_ps(_mm_load_ps(b.lo.as_ptr()), _mm_loadu_ps(self.lo.as_ptr()));
                let hi = _mm_max_ps(_mm_load_ps(b.hi.as_ptr()), _mm_loadu_ps(self.hi.as_ptr()));
                _mm_storeu_ps(self.lo.as_mut_ptr(), lo);
                _mm_storeu_ps(self.hi.as_mut_ptr(), hi);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        for k in 0..4 {
            self.lo[k] = if b.lo[k] < self.lo[k] { b.lo[k] } else { self.lo[k] };
            self.hi[k] = if b.hi[k] > self.hi[k] { b.hi[k] } else { self.hi[k] };
        }
    }

    pub(super) fn aabb(&self) -> Aabb {
        let v = |r: [f32; 4]| crate::math::Vec3::new(r[0], r[1], r[2]);
        Aabb { min: v(self.lo), max: v(self.hi) }
    }
}

/// Bit `k` set when `a.lo[k] <= b.hi[k]` and `b.lo[k] <= a.hi[k]`: bits [`HIT`] are
/// `Aabb::overlaps`, bit [`KEPT`] says neither body is marked moved (portable definition).
#[cfg_attr(all(target_arch = "x86_64", not(test)), allow(dead_code))]
#[inline(always)]
pub(super) fn overlap_mask_scalar(a: &PackedBox, b: &PackedBox) -> i32 {
    (0..4).fold(0, |m, k| m | (((a.lo[k] <= b.hi[k]) & (b.lo[k] <= a.hi[k])) as i32) << k)
}

/// [`overlap_mask_scalar`] with SSE2: two compares and one mask.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(super) fn overlap_mask(a: &PackedBox, b: &PackedBox) -> i32 {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of the x86-64 baseline; `PackedBox` is 32-byte aligned, so each row
    // is a valid aligned 16-byte load.
    unsafe {
        let (alo, ahi) = (_mm_load_ps(a.lo.as_ptr()), _mm_load_ps(a.hi.as_ptr()));
        let (blo, bhi) = (_mm_load_ps(b.lo.as_ptr()), _mm_load_ps(b.hi.as_ptr()));
        _mm_movemask_ps(_mm_and_ps(_mm_cmple_ps(alo, bhi), _mm_cmple_ps(blo, ahi)))
    }
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
pub(super) fn overlap_mask(a: &PackedBox, b: &PackedBox) -> i32 {
    overlap_mask_scalar(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Real, Vec3};
    use crate::rng::SplitMix64;

    /// The vector test agrees with `Aabb::overlaps`, including touching and zero-thickness boxes.
    #[test]
    fn packed_overlap_matches_aabb_overlaps() {
        let mut rng = SplitMix64::new(5);
        for _ in 0..20000 {
            let mut r = |lo: Real, hi: Real| (rng.range(lo, hi) * 2.0).round() * 0.5;
            let mut b = || {
                let min = Vec3::new(r(-3.0, 3.0), r(-3.0, 3.0), r(-3.0, 3.0));
                Aabb::new(min, min + Vec3::new(r(0.0, 2.0), r(0.0, 2.0), r(0.0, 2.0)))
            };
            let (a, c) = (b(), b());
            assert_eq!(PackedBox::of(&a), PackedBox::of_scalar(&a));
            let (mut pa, mut pc) = (PackedBox::of(&a), PackedBox::of(&c));
            for moved in 0..4 {
                pa.lo[3] = if moved & 1 != 0 { MOVED } else { 0.0 };
                pc.lo[3] = if moved & 2 != 0 { MOVED } else { 0.0 };
                let m = overlap_mask(&pa, &pc);
                assert_eq!(m, overlap_mask_scalar(&pa, &pc));
                assert_eq!(m & HIT == HIT, a.overlaps(&c), "{a:?} {c:?}");
                assert_eq!(m & KEPT != 0, moved == 0);
            }
        }
    }
}
