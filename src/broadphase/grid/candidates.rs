//! The grid's candidate pairs (pairs that count in a cell both share), kept from step to step in
//! canonical order. A pair stops or starts being a candidate only when one of its bodies changes
//! cells, so an update drops the pairs of the bodies that moved and merges in their new ones;
//! every candidate is then tested exactly, in order, which yields the pairs already sorted.

use super::cells::{ALL_FIRST, BODY_MASK, CellTable, FIRST_SHIFT};
use super::packed::{HIT, KEPT, PackedBox, overlap_mask, prefetch};
use super::{CellRange, Grid};
use crate::broadphase::canonical::{PairKeys, radix_sort};
use crate::simd::Compact;

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
    /// Every candidate, when the list is regenerated.
    found: PairKeys,
    /// The moved bodies' new candidates `(i, j)`: `up` those with `i` the moved body (found in
    /// ascending order of `i`, each body's sorted as it is found), `down` those with `j` the
    /// moved body (ascending `j`, sorted on `i` before the merge).
    up: Vec<u64>,
    down: Vec<u64>,
    /// `up` and `down` merged, the radix sort's buffers, and the merged list.
    fresh: Vec<u64>,
    scratch: Vec<u64>,
    counts: Vec<u32>,
    merged: Vec<u64>,
    /// Set when the table was rebuilt: the list must be regenerated.
    stale: bool,
    /// Set by [`Candidates::start_patch`] when this update patches the list.
    patching: bool,
}

#[inline]
fn key(i: u32, j: u32) -> u64 {
    ((i.min(j) as u64) << 32) | i.max(j) as u64
}

impl Candidates {
    /// Forgets everything: the table was rebuilt.
    pub(super) fn invalidate(&mut self) {
        self.stale = true;
        self.keys.clear();
    }

    /// Notes that body `i` changed cells (or left or joined the table).
    #[inline]
    pub(super) fn note_moved(&mut self, i: u32) {
        if !self.stale {
            self.moved.push(i);
        }
    }

    /// Called once every moved body of an update over `n` bodies is noted, before they are
    /// relisted: decides whether the list will be patched (few bodies moved, none left) or
    /// regenerated, and if patched, flags the moved bodies for [`Candidates::find_fresh`].
    pub(super) fn start_patch(&mut self, n: usize) -> bool {
        self.patching = !self.stale
            && !self.moved.is_empty()
            && self.moved.len() <= n / REGENERATE_FRACTION
            && self.moved.iter().all(|&i| (i as usize) < n);
        self.up.clear();
        self.down.clear();
        if self.patching {
            self.is_moved.clear();
            self.is_moved.resize(n, false);
            for &i in &self.moved {
                self.is_moved[i as usize] = true;
            }
        }
        self.patching
    }

    /// Records the candidates of moved body `i`, just relisted in the cells of `r`. Moved
    /// bodies are relisted in ascending order, so a moved neighbour `j < i` is already in its
    /// new cells and one `j > i` is not yet: a pair of two moved bodies is found from the
    /// higher one.
    #[inline]
    pub(super) fn find_fresh(&mut self, i: u32, r: &CellRange, table: &CellTable) {
        let (is_moved, up, down) = (&self.is_moved, &mut self.up, &mut self.down);
        let start = up.len();
        r.for_each_cell(|cell, first| {
            for &x in table.get(cell) {
                let j = x & BODY_MASK;
                if j != i && (first | x >> FIRST_SHIFT) == ALL_FIRST && (j < i || !is_moved[j as usize]) {
                    if j > i {
                        up.push(key(i, j));
                    } else {
                        down.push(key(i, j));
                    }
                }
            }
        });
        // A body has a handful of candidates: insertion sort.
        for a in start + 1..up.len() {
            let k = up[a];
            let mut b = a;
            while b > start && up[b - 1] > k {
                up[b] = up[b - 1];
                b -= 1;
            }
            up[b] = k;
        }
    }

    /// The moved bodies' candidates in canonical order: `down` sorted on `i` (a stable sort, so
    /// each `i`'s keys stay in ascending `j`), merged with `up`.
    fn sort_fresh(&mut self, n: usize) {
        sort_on_first(&mut self.down, &mut self.scratch, &mut self.counts, n);
        let (up, down) = (&self.up, &self.down);
        self.fresh.clear();
        self.fresh.reserve(up.len() + down.len());
        let (mut a, mut b) = (0, 0);
        while a < up.len() && b < down.len() {
            if up[a] < down[b] {
                self.fresh.push(up[a]);
                a += 1;
            } else {
                self.fresh.push(down[b]);
                b += 1;
            }
        }
        self.fresh.extend_from_slice(&up[a..]);
        self.fresh.extend_from_slice(&down[b..]);
    }
}

/// Sorts keys `i << 32 | j` (bodies below `n`) stably on `i` alone: least-significant-digit
/// radix passes over the bits of `i`.
fn sort_on_first(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, counts: &mut Vec<u32>, n: usize) {
    let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
    if keys.len() < 64 || bits > 32 {
        keys.sort_unstable();
        return;
    }
    radix_sort(keys, scratch, counts, 32..32 + bits);
}

impl Grid {
    /// Brings the candidate list up to date after [`Grid::refresh`] and tests every candidate
    /// exactly, in order, writing the overlapping pairs to `pairs` (which therefore come out in
    /// canonical order). With few bodies moved, dropping their old pairs, merging in their new
    /// ones and testing is one pass over the list.
    pub(super) fn update_and_test_candidates(&mut self, n: usize, pairs: &mut Vec<(u32, u32)>) {
        pairs.clear();
        let c = &mut self.candidates;
        if c.stale || (!c.patching && !c.moved.is_empty()) {
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
        if !c.patching {
            test_keys(&c.keys, &self.packed, pairs);
            return;
        }
        c.patching = false;
        // One pass: the old list without the moved bodies' pairs (found by the overlap mask's
        // KEPT bit, from the same loads as the test), merged with the new ones, and each
        // candidate of the result tested as it is written.
        c.sort_fresh(n);
        let fresh = &c.fresh[..];
        let total = c.keys.len() + fresh.len();
        c.merged.clear();
        let boxes = &self.packed[..];
        {
            let mut w = Writer { merged: Compact::new(&mut c.merged, total), pairs: Compact::new(pairs, total) };
            let mut f = 0;
            let mut next = fresh.first().copied().unwrap_or(u64::MAX);
            for_each_prefetching(&c.keys, boxes, |k| {
                let m = overlap_mask(&boxes[(k >> 32) as usize], &boxes[k as u32 as usize]);
                if m & KEPT == 0 {
                    return;
                }
                if next < k {
                    next = w.fresh_until(fresh, &mut f, k, boxes);
                }
                w.write(k, m == KEPT | HIT);
            });
            w.fresh_until(fresh, &mut f, u64::MAX, boxes);
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

/// The fused pass's output: the merged candidate list and the overlapping pairs, each
/// written without a branch per candidate ([`Compact`]).
struct Writer<'v> {
    merged: Compact<'v, u64>,
    pairs: Compact<'v, (u32, u32)>,
}

impl Writer<'_> {
    /// Appends candidate `k` to the list and, if `hit`, its pair to the pairs.
    #[inline(always)]
    fn write(&mut self, k: u64, hit: bool) {
        self.merged.push(k, true);
        self.pairs.push(((k >> 32) as u32, k as u32), hit);
    }

    /// Writes the fresh candidates from `fresh[*f]` up to (not including) `until`, testing each;
    /// returns the next fresh key (`u64::MAX` when none is left). Out of line: it runs for few
    /// of the candidates.
    #[inline(never)]
    fn fresh_until(&mut self, fresh: &[u64], f: &mut usize, until: u64, boxes: &[PackedBox]) -> u64 {
        while let Some(&k) = fresh.get(*f) {
            if k >= until {
                return k;
            }
            let hit = overlap_mask(&boxes[(k >> 32) as usize], &boxes[k as u32 as usize]) & HIT == HIT;
            self.write(k, hit);
            *f += 1;
        }
        u64::MAX
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
    let mut out = Compact::new(pairs, keys.len());
    for_each_prefetching(keys, boxes, |k| {
        let (i, j) = ((k >> 32) as u32, k as u32);
        out.push((i, j), overlap_mask(&boxes[i as usize], &boxes[j as usize]) & HIT == HIT);
    });
}

#[cfg(test)]
mod tests {
    use crate::broadphase::{BroadPhase, BroadPhaseParams, BruteForce, Grid};
    use crate::geometry::Aabb;
    use crate::math::{Real, Vec3};
    use crate::rng::SplitMix64;

    /// The stable sort on the lower body gives the same order as sorting the whole keys, on
    /// both of its paths (a comparison sort below 64 keys, radix passes above).
    #[test]
    fn sort_on_first_orders_like_a_full_sort() {
        let mut rng = SplitMix64::new(31);
        let (mut scratch, mut counts) = (Vec::new(), Vec::new());
        for (n, m) in [(50usize, 20usize), (10_000, 900), (70_000, 3000), (3, 200)] {
            // Keys arrive in ascending `j` (the moved body), as `find_fresh` records them.
            let mut keys: Vec<u64> = (0..m)
                .map(|_| (rng.next_u64() % n as u64, rng.next_u64() % n as u64))
                .map(|(i, j)| (i << 32) | j)
                .collect();
            keys.sort_unstable_by_key(|&k| (k as u32, k >> 32));
            keys.dedup();
            let mut expect = keys.clone();
            expect.sort_unstable();
            super::sort_on_first(&mut keys, &mut scratch, &mut counts, n);
            assert_eq!(keys, expect, "n = {n}, m = {m}");
        }
    }

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
