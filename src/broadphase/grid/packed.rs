//! The grid's per-body copies for its two hot loops: each box as two aligned rows `(min, m)` and
//! `(max, 0)`, written in every update, so the exact test of a candidate reads one 32-byte line
//! per body (`m` is 1 for a body that changed cells, which the same test reports); and each
//! body's cell range as floats, so the update checks "same cells" with a multiply and four
//! compares instead of a floor.

use crate::geometry::Aabb;
use crate::simd::f32x4::{F32x4, Row4, rows_of_box};

/// One body's box, SSE-ready. Lane 3 is zero in both rows, except that `lo[3]` is set to
/// [`MOVED`] for a body that changed cells: the overlap mask's bit 3 is then clear.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(super) struct PackedBox {
    pub lo: Row4,
    pub hi: Row4,
}

impl PackedBox {
    #[cfg(test)]
    #[inline(always)]
    pub(super) fn of_scalar(b: &Aabb) -> PackedBox {
        PackedBox { lo: Row4([b.min.x, b.min.y, b.min.z, 0.0]), hi: Row4([b.max.x, b.max.y, b.max.z, 0.0]) }
    }

    /// [`PackedBox::of_scalar`], the box read as six floats ([`rows_of_box`]).
    #[inline(always)]
    pub(super) fn of(b: &Aabb) -> PackedBox {
        let [lo, hi] = rows_of_box(b);
        PackedBox { lo, hi }
    }

    /// A cell range as floats, `(lo, 0)` and `(hi, 0)`; `None` (a body not in the table) gives
    /// rows no scaled coordinate lies in, so [`same_cells`] fails.
    pub(super) fn cells(range: Option<([i32; 3], [i32; 3])>) -> PackedBox {
        match range {
            Some((lo, hi)) => PackedBox {
                lo: Row4([lo[0] as f32, lo[1] as f32, lo[2] as f32, 0.0]),
                hi: Row4([hi[0] as f32, hi[1] as f32, hi[2] as f32, 0.0]),
            },
            None => PackedBox { lo: Row4([f32::NAN; 4]), hi: Row4([f32::NAN; 4]) },
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
#[cfg(test)]
#[inline(always)]
pub(super) fn same_cells_scalar(b: &PackedBox, c: &PackedBox, inv: f32) -> bool {
    (0..4).fold(true, |ok, k| {
        let (s, t) = (b.lo[k] * inv, b.hi[k] * inv);
        ok & (s >= c.lo[k]) & (s < c.lo[k] + 1.0) & (t >= c.hi[k]) & (t < c.hi[k] + 1.0) & (b.lo[k] <= b.hi[k])
    })
}

/// [`same_cells_scalar`] on four lanes.
#[inline(always)]
pub(super) fn same_cells(b: &PackedBox, c: &PackedBox, inv: f32) -> bool {
    let (lo, hi) = (F32x4::load(&b.lo), F32x4::load(&b.hi));
    let (clo, chi) = (F32x4::load(&c.lo), F32x4::load(&c.hi));
    let (s, t, one) = (lo * F32x4::splat(inv), hi * F32x4::splat(inv), F32x4::splat(1.0));
    let in_lo = s.ge(clo) & s.lt(clo + one);
    let in_hi = t.ge(chi) & t.lt(chi + one);
    (in_lo & in_hi & lo.le(hi)).bits() == 0xf
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
        let lo = F32x4::load(&b.lo).min(F32x4::load_unaligned(&self.lo));
        let hi = F32x4::load(&b.hi).max(F32x4::load_unaligned(&self.hi));
        lo.store_unaligned(&mut self.lo);
        hi.store_unaligned(&mut self.hi);
    }

    pub(super) fn aabb(&self) -> Aabb {
        let v = |r: [f32; 4]| crate::math::Vec3::new(r[0], r[1], r[2]);
        Aabb { min: v(self.lo), max: v(self.hi) }
    }
}

/// Bit `k` set when `a.lo[k] <= b.hi[k]` and `b.lo[k] <= a.hi[k]`: bits [`HIT`] are
/// `Aabb::overlaps`, bit [`KEPT`] says neither body is marked moved (portable definition).
#[cfg(test)]
#[inline(always)]
pub(super) fn overlap_mask_scalar(a: &PackedBox, b: &PackedBox) -> i32 {
    (0..4).fold(0, |m, k| m | (((a.lo[k] <= b.hi[k]) & (b.lo[k] <= a.hi[k])) as i32) << k)
}

/// [`overlap_mask_scalar`] on four lanes: two compares and one mask.
#[inline(always)]
pub(super) fn overlap_mask(a: &PackedBox, b: &PackedBox) -> i32 {
    let (alo, ahi) = (F32x4::load(&a.lo), F32x4::load(&a.hi));
    let (blo, bhi) = (F32x4::load(&b.lo), F32x4::load(&b.hi));
    (alo.le(bhi) & blo.le(ahi)).bits()
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
