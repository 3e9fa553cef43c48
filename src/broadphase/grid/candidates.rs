//! The grid's candidate pairs (pairs that count in a cell both share), kept from step to step in
//! canonical order. A pair stops or starts being a candidate only when one of its bodies changes
//! cells, so an update drops the pairs of the bodies that moved and merges in their new ones;
//! every candidate is then tested exactly, in order, which yields the pairs already sorted.

use super::Grid;
use super::cells::{ALL_FIRST, BODY_MASK, FIRST_SHIFT};
use super::packed::{HIT, KEPT, PackedBox, overlap_mask, prefetch};
use crate::broadphase::canonical::PairKeys;

/// Above this fraction of bodies moved (or after a rebuild) the list is regenerated from the
/// cells rather than patched.
const REGENERATE_FRACTION: usize = 8;

/// How many candidates ahead the passes prefetch the second box of a pair (at a random index:
/// waiting for it was the largest single cost of the pass).
const AHEAD: usize = 32;

/// Candidate pairs, as keys `i << 32 | j` with `i < j`, ascending.
#[derive(Default)]
pub(super) struct Candidates {
    pub keys: Vec<u64>,
    /// Bodies whose cells changed in this update.
    moved: Vec<u32>,
    /// `moved` as flags, indexed by body.
    is_moved: Vec<bool>,
    /// Candidates found for the moved bodies, and the merge buffer.
    found: PairKeys,
    merged: Vec<u64>,
    /// Set when the table was rebuilt: the list must be regenerated.
    stale: bool,
}

#[inline]
fn key(i: u32, j: u32) -> u64 {
    ((i.min(j) as u64) << 32) | i.max(j) as u64
}

impl Candidates {
    /// Forgets everything: the table was rebuilt.
    pub fn invalidate(&mut self) {
        self.stale = true;
        self.keys.clear();
    }

    /// Notes that body `i` changed cells (or left or joined the table).
    #[inline]
    pub fn note_moved(&mut self, i: u32) {
        if !self.stale {
            self.moved.push(i);
        }
    }
}

impl Grid {
    /// Brings the candidate list up to date after [`Grid::refresh`] and tests every candidate
    /// exactly, in order, writing the overlapping pairs to `pairs` (which therefore come out in
    /// canonical order). With few bodies moved, dropping their old pairs, merging in their new
    /// ones and testing is one pass over the list.
    pub(super) fn update_and_test_candidates(&mut self, n: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let c = &mut self.candidates;
        // Bodies beyond `n` have left: their pairs cannot be tested, so the list is regenerated.
        if c.stale || c.moved.len() > n / REGENERATE_FRACTION || c.moved.iter().any(|&i| i as usize >= n) {
            c.moved.clear();
            c.stale = false;
            c.found.clear();
            for (_, e) in self.table.slots() {
                for (p, &a) in e.iter().enumerate() {
                    let fa = a >> FIRST_SHIFT;
                    for &b in &e[p + 1..] {
                        if (fa | b >> FIRST_SHIFT) == ALL_FIRST {
                            c.found.push(a & BODY_MASK, b & BODY_MASK);
                        }
                    }
                }
            }
            c.keys.clear();
            c.keys.extend_from_slice(c.found.sorted(n));
            test_keys(&c.keys, &self.packed, pairs);
            return;
        }
        if c.moved.is_empty() {
            test_keys(&c.keys, &self.packed, pairs);
            return;
        }
        c.is_moved.clear();
        c.is_moved.resize(n, false);
        for &i in &c.moved {
            c.is_moved[i as usize] = true;
        }
        let is_moved = &c.is_moved;
        // The moved bodies' pairs in their new cells; a pair of two moved bodies is found from
        // the lower one only.
        c.found.clear();
        for &i in &c.moved {
            let Some(r) = self.cell_rows.get(i as usize).map(super::CellRange::of_rows) else { continue };
            let table = &self.table;
            r.for_each_cell(|cell, first| {
                for &x in table.get(cell) {
                    let j = x & BODY_MASK;
                    if j != i && (first | x >> FIRST_SHIFT) == ALL_FIRST && (!is_moved[j as usize] || i < j) {
                        c.found.push(i, j);
                    }
                }
            });
        }
        // One pass: the old list without the moved bodies' pairs (found by the overlap mask's
        // KEPT bit, from the same loads as the test), merged with the new ones, and each
        // candidate of the result tested as it is written.
        let fresh = c.found.sorted(n);
        let total = c.keys.len() + fresh.len();
        c.merged.clear();
        c.merged.reserve(total);
        pairs.reserve(total);
        let boxes = &self.packed[..];
        let mut w = Writer {
            merged: c.merged.spare_capacity_mut().as_mut_ptr().cast(),
            pairs: pairs.spare_capacity_mut().as_mut_ptr().cast(),
            nm: 0,
            np: 0,
        };
        let mut f = 0;
        let mut next = fresh.first().copied().unwrap_or(u64::MAX);
        for_each_prefetching(&c.keys, boxes, |k| {
            let m = overlap_mask(&boxes[(k >> 32) as usize], &boxes[k as u32 as usize]);
            if m & KEPT == 0 {
                return;
            }
            // SAFETY (both calls): at most `total` keys are written (each old key once, each
            // fresh key once) and both buffers have room for `total`.
            if next < k {
                (w, next) = unsafe { w.fresh_until(fresh, &mut f, k, boxes) };
            }
            unsafe { w.write(k, m == KEPT | HIT) };
        });
        // SAFETY: as above; the remaining fresh keys complete the `total`.
        (w, _) = unsafe { w.fresh_until(fresh, &mut f, u64::MAX, boxes) };
        let (nm, np) = (w.nm, w.np);
        // SAFETY: the first `nm` (and `np`) slots were written above, within the capacity.
        unsafe {
            c.merged.set_len(nm);
            pairs.set_len(np);
        }
        std::mem::swap(&mut c.keys, &mut c.merged);
        for &i in &c.moved {
            if let Some(m) = c.is_moved.get_mut(i as usize) {
                *m = false;
            }
        }
        c.moved.clear();
    }

    /// The candidate list regenerated from scratch, for `validate`.
    pub(super) fn candidates_from_cells(&self) -> Vec<u64> {
        let mut v = Vec::new();
        for (_, e) in self.table.slots() {
            for (p, &a) in e.iter().enumerate() {
                for &b in &e[p + 1..] {
                    if (a >> FIRST_SHIFT | b >> FIRST_SHIFT) == ALL_FIRST {
                        v.push(key(a & BODY_MASK, b & BODY_MASK));
                    }
                }
            }
        }
        v.sort_unstable();
        v
    }
}

/// The fused pass's output: the merged candidate list and the overlapping pairs, written
/// through raw pointers into reserved capacity. Passed by value, so the hot loop keeps it in
/// registers.
#[derive(Clone, Copy)]
struct Writer {
    merged: *mut u64,
    pairs: *mut (u32, u32),
    nm: usize,
    np: usize,
}

impl Writer {
    /// Appends candidate `k` to the list and, if `hit`, its pair to the pairs.
    ///
    /// # Safety
    /// Both buffers must have room for one more entry.
    #[inline(always)]
    unsafe fn write(&mut self, k: u64, hit: bool) {
        // SAFETY: the caller guarantees room at `nm` and `np <= nm`.
        unsafe {
            self.merged.add(self.nm).write(k);
            self.pairs.add(self.np).write(((k >> 32) as u32, k as u32));
        }
        self.nm += 1;
        self.np += hit as usize;
    }

    /// Writes the fresh candidates from `fresh[*f]` up to (not including) `until`, testing each;
    /// returns the writer and the next fresh key (`u64::MAX` when none is left). Out of line:
    /// it runs for few of the candidates.
    ///
    /// # Safety
    /// Both buffers must have room for every fresh key still to be written.
    #[inline(never)]
    unsafe fn fresh_until(mut self, fresh: &[u64], f: &mut usize, until: u64, boxes: &[PackedBox]) -> (Writer, u64) {
        while let Some(&k) = fresh.get(*f) {
            if k >= until {
                return (self, k);
            }
            let hit = overlap_mask(&boxes[(k >> 32) as usize], &boxes[k as u32 as usize]) & HIT == HIT;
            // SAFETY: the caller guarantees room for this fresh key.
            unsafe { self.write(k, hit) };
            *f += 1;
        }
        (self, u64::MAX)
    }
}

/// Calls `f` on every key in order, first prefetching the box of the second body of the key
/// [`AHEAD`] places on (without a bounds check per key: the last keys run in a second loop).
#[inline(always)]
fn for_each_prefetching(keys: &[u64], boxes: &[PackedBox], mut f: impl FnMut(u64)) {
    let split = keys.len().saturating_sub(AHEAD);
    for (&k, &a) in keys[..split].iter().zip(&keys[AHEAD.min(keys.len())..]) {
        prefetch(boxes.as_ptr().wrapping_add(a as u32 as usize));
        f(k);
    }
    for &k in &keys[split..] {
        f(k);
    }
}

/// Writes to `pairs` the candidates (keys `i << 32 | j`) whose boxes overlap, in order.
fn test_keys(keys: &[u64], boxes: &[PackedBox], pairs: &mut Vec<(u32, u32)>) {
    pairs.reserve(keys.len());
    let out = pairs.spare_capacity_mut();
    let mut np = 0;
    for_each_prefetching(keys, boxes, |k| {
        let (i, j) = ((k >> 32) as u32, k as u32);
        let hit = overlap_mask(&boxes[i as usize], &boxes[j as usize]) & HIT == HIT;
        // SAFETY: `np` counts hits among the keys seen so far, so `np < keys.len()`, which the
        // spare capacity holds.
        unsafe { out.get_unchecked_mut(np).write((i, j)) };
        np += hit as usize;
    });
    // SAFETY: the first `np` slots were written above, within the capacity.
    unsafe { pairs.set_len(pairs.len() + np) };
}

#[cfg(test)]
mod tests {
    use crate::broadphase::{BroadPhase, BroadPhaseParams, BruteForce, Grid};
    use crate::geometry::Aabb;
    use crate::math::{Real, Vec3};
    use crate::scene::SplitMix64;

    /// Few bodies change cells per step, so the list is patched rather than regenerated; it
    /// must still give exactly brute force's pairs, also as bodies leave, join and grow huge.
    #[test]
    fn patched_list_matches_brute_force() {
        let mut rng = SplitMix64::new(23);
        let n = 1500;
        let mut centres: Vec<Vec3> =
            (0..n).map(|_| Vec3::new(rng.range(0.0, 20.0), rng.range(0.0, 20.0), rng.range(0.0, 20.0))).collect();
        let halves: Vec<Real> = (0..n).map(|_| rng.range(0.2, 0.7)).collect();
        let params = BroadPhaseParams { grid_cell_size: 2.0 };
        let (mut grid, mut brute) = (Grid::default(), BruteForce::default());
        let (mut got, mut expect) = (Vec::new(), Vec::new());
        for step in 0..40 {
            for c in &mut centres {
                *c += Vec3::new(rng.range(-0.05, 0.05), rng.range(-0.05, 0.05), rng.range(-0.05, 0.05));
            }
            let count = if (10..20).contains(&step) { n - 7 } else { n };
            let mut aabbs: Vec<Aabb> =
                (0..count).map(|i| Aabb::from_center_half_extents(centres[i], Vec3::splat(halves[i]))).collect();
            if step % 9 == 4 {
                aabbs[step] = Aabb::from_center_half_extents(centres[step], Vec3::splat(30.0));
            }
            grid.update(&aabbs, &params, &mut got);
            brute.update(&aabbs, &params, &mut expect);
            assert_eq!(got, expect, "step {step}");
        }
    }
}
