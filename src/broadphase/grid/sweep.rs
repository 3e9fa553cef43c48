//! The grid's pair sweep: every pair of bodies listed in one cell, counted only in the first
//! cell both share. Cells hold a few bodies each and whether a pair passes is a coin flip to the
//! branch predictor, so a cell of up to eight is tested with SSE2, one body against all the
//! others at once into a bitmask; fuller cells take the scalar loop, which is also the
//! definition the vector path follows.

use super::cells::{ALL_FIRST, BODY_MASK, FIRST_SHIFT};
use crate::broadphase::canonical::PairKeys;
use crate::geometry::Aabb;

/// The most entries the vector path takes.
const LANES: usize = 8;

/// Records the overlapping pairs among the entries `e` of one cell that count in this cell;
/// returns how many pairs counted here (the candidates).
#[inline]
pub(super) fn cell_pairs(e: &[u32], aabbs: &[Aabb], keys: &mut PairKeys) -> u64 {
    if e.len() < 2 {
        return 0;
    }
    #[cfg(target_arch = "x86_64")]
    if e.len() <= LANES {
        return cell_pairs_sse2(e, aabbs, keys);
    }
    cell_pairs_scalar(e, aabbs, keys)
}

/// `Aabb::overlaps` without short-circuits: one branch instead of six hard-to-predict ones.
#[inline(always)]
fn overlaps(a: &Aabb, b: &Aabb) -> bool {
    (a.min.x <= b.max.x)
        & (b.min.x <= a.max.x)
        & (a.min.y <= b.max.y)
        & (b.min.y <= a.max.y)
        & (a.min.z <= b.max.z)
        & (b.min.z <= a.max.z)
}

/// One pair at a time.
pub(super) fn cell_pairs_scalar(e: &[u32], aabbs: &[Aabb], keys: &mut PairKeys) -> u64 {
    let mut candidates = 0;
    for (p, &a) in e.iter().enumerate() {
        let (fa, ia) = (a >> FIRST_SHIFT, a & BODY_MASK);
        let ba = &aabbs[ia as usize];
        for &b in &e[p + 1..] {
            // Test the pair only in the first cell both share.
            if (fa | b >> FIRST_SHIFT) != ALL_FIRST {
                continue;
            }
            candidates += 1;
            let ib = b & BODY_MASK;
            if overlaps(ba, &aabbs[ib as usize]) {
                keys.push(ia, ib);
            }
        }
    }
    candidates
}

/// Up to eight entries: the cell's boxes are gathered into lanes (NaN in the unused ones, which
/// no test passes), then each body is tested against the lanes after it, four at a time.
#[cfg(target_arch = "x86_64")]
pub(super) fn cell_pairs_sse2(e: &[u32], aabbs: &[Aabb], keys: &mut PairKeys) -> u64 {
    use std::arch::x86_64::*;
    let k = e.len();
    debug_assert!((2..=LANES).contains(&k));
    let mut lo = [[f32::NAN; LANES]; 3];
    let mut hi = [[f32::NAN; LANES]; 3];
    let mut first = [0i32; LANES];
    let mut id = [0u32; LANES];
    for (j, &x) in e.iter().enumerate() {
        let b = &aabbs[(x & BODY_MASK) as usize];
        for a in 0..3 {
            lo[a][j] = b.min[a];
            hi[a][j] = b.max[a];
        }
        first[j] = (x >> FIRST_SHIFT) as i32;
        id[j] = x & BODY_MASK;
    }
    let halves = if k <= 4 { 1 } else { 2 };
    let in_cell = (1u32 << k) - 1;
    let mut candidates = 0u64;
    // SAFETY: SSE2 is part of the x86-64 baseline, and every load reads four lanes at offset 0
    // or 4 of an eight-lane local array.
    unsafe {
        let load = |v: &[f32; LANES], h: usize| _mm_loadu_ps(v.as_ptr().add(4 * h));
        let l: [[__m128; 2]; 3] = std::array::from_fn(|a| [load(&lo[a], 0), load(&lo[a], 1)]);
        let u: [[__m128; 2]; 3] = std::array::from_fn(|a| [load(&hi[a], 0), load(&hi[a], 1)]);
        let f = [
            _mm_loadu_si128(first.as_ptr() as *const __m128i),
            _mm_loadu_si128(first.as_ptr().add(4) as *const __m128i),
        ];
        let all_first = _mm_set1_epi32(ALL_FIRST as i32);
        for p in 0..k - 1 {
            let fa = _mm_set1_epi32(first[p]);
            let ql: [__m128; 3] = std::array::from_fn(|a| _mm_set1_ps(lo[a][p]));
            let qh: [__m128; 3] = std::array::from_fn(|a| _mm_set1_ps(hi[a][p]));
            let (mut owned, mut hit) = (0u32, 0u32);
            for h in 0..halves {
                // The pair counts here when, on every axis, one of the two ranges starts here.
                let own = _mm_castsi128_ps(_mm_cmpeq_epi32(_mm_or_si128(fa, f[h]), all_first));
                // `cmple` is false when either side is NaN, as `<=` is.
                let mut ov = own;
                for a in 0..3 {
                    ov = _mm_and_ps(ov, _mm_and_ps(_mm_cmple_ps(ql[a], u[a][h]), _mm_cmple_ps(l[a][h], qh[a])));
                }
                owned |= (_mm_movemask_ps(own) as u32) << (4 * h);
                hit |= (_mm_movemask_ps(ov) as u32) << (4 * h);
            }
            let after = in_cell & !((2u32 << p) - 1);
            candidates += (owned & after).count_ones() as u64;
            let mut m = hit & after;
            while m != 0 {
                keys.push(id[p], id[m.trailing_zeros() as usize]);
                m &= m - 1;
            }
        }
    }
    candidates
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::{Real, Vec3};
    use crate::scene::SplitMix64;

    /// Both paths find the same pairs and candidates on random cells (lattice boxes with many
    /// touching faces, random first-cell flags, a NaN box now and then).
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn vector_cells_match_the_scalar_loop() {
        let mut rng = SplitMix64::new(17);
        let aabbs: Vec<Aabb> = (0..64)
            .map(|k| {
                let mut r = |lo: Real, hi: Real| (rng.range(lo, hi) * 2.0).round() * 0.5;
                let min = Vec3::new(r(0.0, 3.0), r(0.0, 3.0), r(0.0, 3.0));
                let b = Aabb::new(min, min + Vec3::new(r(0.0, 2.0), r(0.0, 2.0), r(0.0, 2.0)));
                if k % 13 == 5 { Aabb::new(Vec3::splat(Real::NAN), b.max) } else { b }
            })
            .collect();
        for trial in 0..2000u64 {
            let k = 2 + (trial % 7) as usize;
            let e: Vec<u32> = (0..k)
                .map(|j| {
                    let body = ((trial * 7 + j as u64 * 13) % 64) as u32;
                    body | (((rng.next_u64() % 8) as u32) << FIRST_SHIFT)
                })
                .collect();
            let (mut a, mut b) = (PairKeys::default(), PairKeys::default());
            let ca = cell_pairs_scalar(&e, &aabbs, &mut a);
            let cb = cell_pairs_sse2(&e, &aabbs, &mut b);
            let (mut pa, mut pb) = (Vec::new(), Vec::new());
            a.finish(64, &mut pa);
            b.finish(64, &mut pb);
            assert_eq!((ca, pa), (cb, pb), "cell {e:?}");
        }
    }
}
