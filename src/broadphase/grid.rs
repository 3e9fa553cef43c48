//! Uniform grid with hashed cells. Each body is listed in every cell its box touches; a pair is
//! tested only in the first cell both share (the cell holding the overlap's minimum corner), so
//! a body spanning many cells never yields a duplicate. Bodies spanning more than
//! [`MAX_CELLS_PER_BODY`] cells are kept in a side list and tested against all.
//!
//! The table is rebuilt every update with a counting sort into hash buckets: three linear passes,
//! no allocation once warm, and the same cost whether bodies moved or not.

mod query;

use super::draw::{MAX_DRAWN_BOXES, count_color};
use super::{
    BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, debug_validate, ms_since,
    pairs_with_outsiders,
};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::geometry::{Aabb, Ray};
use crate::math::{Real, Vec3};

/// A body covering more cells than this goes to the oversized list instead of the table.
pub const MAX_CELLS_PER_BODY: u64 = 64;

/// Cell coordinates are clamped to `±2^20` so that three fit in one 64-bit key. Clamping is
/// monotone, so two overlapping boxes still share a cell; far-away bodies just share more.
const COORD_BITS: u32 = 21;
const COORD_LIMIT: i64 = 1 << (COORD_BITS - 1);

/// The cell size [`suggest_cell_size`] proposes, as a multiple of the mean AABB extent.
pub const SUGGESTED_CELL_FACTOR: Real = 2.0;

/// A cell size for `aabbs`: [`SUGGESTED_CELL_FACTOR`] times their mean extent, so that a typical
/// body touches a few cells and a typical cell holds a few bodies. Non-finite boxes are ignored;
/// with none left the answer is 1.
pub fn suggest_cell_size(aabbs: &[Aabb]) -> Real {
    let (mut sum, mut n) = (0f64, 0u64);
    for b in aabbs.iter().filter(|b| b.is_valid()) {
        let e = b.extents();
        sum += (e.x + e.y + e.z) as f64 / 3.0;
        n += 1;
    }
    let mean = if n == 0 { 0.0 } else { (sum / n as f64) as Real };
    let size = mean * SUGGESTED_CELL_FACTOR;
    if size.is_finite() && size > 0.0 { size } else { 1.0 }
}

/// The cells one body covers, inclusive; `cells == 0` marks an oversized body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellRange {
    lo: [i32; 3],
    hi: [i32; 3],
    cells: u32,
}

/// One body listed in one cell.
#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    key: u64,
    body: u32,
}

/// A hashed uniform grid.
pub struct Grid {
    cell_size: Real,
    inv_cell: Real,
    ranges: Vec<CellRange>,
    /// Bodies tested against everything: too many cells, or a non-finite box.
    oversized: Vec<u32>,
    /// `log2` of the bucket count.
    table_bits: u32,
    /// Bucket `b` holds `entries[starts[b]..starts[b + 1]]`, sorted by body.
    starts: Vec<u32>,
    entries: Vec<Entry>,
    /// Entries in body order before the scatter, with their buckets.
    staged: Vec<(Entry, u32)>,
    /// Union of the boxes in the table, to clip rays.
    bounds: Aabb,
}

impl Default for Grid {
    fn default() -> Self {
        Grid {
            cell_size: 1.0,
            inv_cell: 1.0,
            ranges: Vec::new(),
            oversized: Vec::new(),
            table_bits: 0,
            starts: Vec::new(),
            entries: Vec::new(),
            staged: Vec::new(),
            bounds: Aabb::EMPTY,
        }
    }
}

#[inline]
fn cell_coord(v: Real, inv: Real) -> i32 {
    // `as` saturates and maps NaN to 0; the clamp keeps the key packable.
    ((v * inv).floor() as i64).clamp(-COORD_LIMIT, COORD_LIMIT - 1) as i32
}

#[inline]
fn pack(c: [i32; 3]) -> u64 {
    let f = |v: i32| (v as i64 + COORD_LIMIT) as u64;
    f(c[0]) | f(c[1]) << COORD_BITS | f(c[2]) << (2 * COORD_BITS)
}

#[inline]
fn unpack(key: u64) -> [i32; 3] {
    let mask = (1u64 << COORD_BITS) - 1;
    std::array::from_fn(|a| ((key >> (a as u32 * COORD_BITS)) & mask) as i64 as i32 - COORD_LIMIT as i32)
}

impl Grid {
    /// The cell size of the last update.
    pub fn cell_size(&self) -> Real {
        self.cell_size
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - self.table_bits)) as usize
    }

    fn range_of(&self, b: &Aabb) -> CellRange {
        let inv = self.inv_cell;
        let lo = [cell_coord(b.min.x, inv), cell_coord(b.min.y, inv), cell_coord(b.min.z, inv)];
        let hi = [cell_coord(b.max.x, inv), cell_coord(b.max.y, inv), cell_coord(b.max.z, inv)];
        let count = (0..3).map(|a| (hi[a] as i64 - lo[a] as i64 + 1).max(0) as u64).product::<u64>();
        let cells = if b.is_valid() && count <= MAX_CELLS_PER_BODY { count as u32 } else { 0 };
        CellRange { lo, hi, cells }
    }

    /// The cell a pair is tested in: the first cell both ranges share.
    #[inline]
    fn owner(a: &CellRange, b: &CellRange) -> [i32; 3] {
        [a.lo[0].max(b.lo[0]), a.lo[1].max(b.lo[1]), a.lo[2].max(b.lo[2])]
    }

    /// The entries of the bucket `key` hashes to.
    fn bucket_entries(&self, key: u64) -> &[Entry] {
        if self.starts.len() < 2 {
            return &[];
        }
        let b = self.bucket(key);
        &self.entries[self.starts[b] as usize..self.starts[b + 1] as usize]
    }

    /// Lists every body in its cells: a counting sort of the entries into hash buckets.
    fn rebuild(&mut self, aabbs: &[Aabb], cell_size: Real) {
        self.cell_size = if cell_size.is_finite() && cell_size > 0.0 { cell_size } else { suggest_cell_size(aabbs) };
        self.inv_cell = 1.0 / self.cell_size;
        self.ranges.clear();
        self.oversized.clear();
        self.bounds = Aabb::EMPTY;
        let mut total = 0usize;
        for (i, b) in aabbs.iter().enumerate() {
            let r = self.range_of(b);
            if r.cells == 0 {
                self.oversized.push(i as u32);
            } else {
                total += r.cells as usize;
                self.bounds = self.bounds.merge(b);
            }
            self.ranges.push(r);
        }
        self.table_bits = (2 * total).max(16).next_power_of_two().trailing_zeros().min(26);
        let buckets = 1usize << self.table_bits;
        self.starts.clear();
        self.starts.resize(buckets + 1, 0);
        self.staged.clear();
        for (i, r) in self.ranges.iter().enumerate() {
            if r.cells == 0 {
                continue;
            }
            for z in r.lo[2]..=r.hi[2] {
                for y in r.lo[1]..=r.hi[1] {
                    for x in r.lo[0]..=r.hi[0] {
                        let key = pack([x, y, z]);
                        let b = self.bucket(key);
                        self.starts[b] += 1;
                        self.staged.push((Entry { key, body: i as u32 }, b as u32));
                    }
                }
            }
        }
        // Inclusive prefix sums, then a backwards scatter that decrements: each bucket ends up
        // starting at its own offset with its bodies in ascending order.
        let mut run = 0u32;
        for s in &mut self.starts[..buckets] {
            run += *s;
            *s = run;
        }
        self.starts[buckets] = run;
        self.entries.clear();
        self.entries.resize(total, Entry::default());
        for &(e, b) in self.staged.iter().rev() {
            let s = &mut self.starts[b as usize];
            *s -= 1;
            self.entries[*s as usize] = e;
        }
    }

    /// Every distinct occupied cell with its body count, bucket by bucket.
    fn for_each_cell(&self, mut f: impl FnMut(u64, u32)) {
        for w in self.starts.windows(2) {
            let e = &self.entries[w[0] as usize..w[1] as usize];
            for (p, a) in e.iter().enumerate() {
                if e[..p].iter().all(|b| b.key != a.key) {
                    f(a.key, 1 + e[p + 1..].iter().filter(|b| b.key == a.key).count() as u32);
                }
            }
        }
    }

    fn cell_box(&self, key: u64) -> Aabb {
        let c = unpack(key);
        let min = Vec3::new(c[0] as Real, c[1] as Real, c[2] as Real) * self.cell_size;
        Aabb::new(min, min + Vec3::splat(self.cell_size))
    }
}

impl BroadPhase for Grid {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::Grid
    }

    fn update(&mut self, aabbs: &[Aabb], params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = std::time::Instant::now();
        self.rebuild(aabbs, params.grid_cell_size);
        let update_ms = ms_since(t0);

        let t1 = std::time::Instant::now();
        pairs.clear();
        let (mut candidates, mut cells, mut most) = (0u64, 0u32, 0u32);
        for w in self.starts.windows(2) {
            let e = &self.entries[w[0] as usize..w[1] as usize];
            if e.len() == 1 {
                cells += 1;
                most = most.max(1);
                continue;
            }
            for (p, a) in e.iter().enumerate() {
                let ra = &self.ranges[a.body as usize];
                let mut first_of_cell = true;
                let mut in_cell = 1;
                for b in &e[..p] {
                    first_of_cell &= b.key != a.key;
                }
                for b in &e[p + 1..] {
                    if b.key != a.key {
                        continue;
                    }
                    in_cell += 1;
                    let rb = &self.ranges[b.body as usize];
                    if pack(Self::owner(ra, rb)) != a.key {
                        continue;
                    }
                    candidates += 1;
                    if aabbs[a.body as usize].overlaps(&aabbs[b.body as usize]) {
                        pairs.push((a.body, b.body));
                    }
                }
                if first_of_cell {
                    cells += 1;
                    most = most.max(in_cell);
                }
            }
        }
        candidates += pairs_with_outsiders(&self.oversized, aabbs, pairs);
        let stats = BroadPhaseStats {
            candidate_pairs: candidates.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: candidates,
            nodes: cells,
            depth: most,
            swaps: 0,
            reinserted: 0,
            update_ms,
            pairs_ms: ms_since(t1),
        };
        debug_validate(self, aabbs);
        stats
    }

    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        self.query_aabb_impl(aabbs, aabb, out);
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        self.query_ray_impl(aabbs, ray, max_t, out);
    }

    fn validate(&self, aabbs: &[Aabb]) -> Result<(), String> {
        if self.ranges.len() != aabbs.len() {
            return Err(format!("{} bodies but {} cell ranges", aabbs.len(), self.ranges.len()));
        }
        let mut listed = vec![0u32; aabbs.len()];
        for (b, w) in self.starts.windows(2).enumerate() {
            let e = &self.entries[w[0] as usize..w[1] as usize];
            for (k, x) in e.iter().enumerate() {
                if self.bucket(x.key) != b {
                    return Err(format!("body {} is in bucket {b}, not its cell's bucket", x.body));
                }
                if k > 0 && e[k - 1].body > x.body {
                    return Err(format!("bucket {b} is not sorted by body"));
                }
                let r = self.ranges[x.body as usize];
                let c = unpack(x.key);
                if (0..3).any(|a| c[a] < r.lo[a] || c[a] > r.hi[a]) {
                    return Err(format!("body {} is listed in cell {c:?} outside its range", x.body));
                }
                listed[x.body as usize] += 1;
            }
        }
        for (i, (r, b)) in self.ranges.iter().zip(aabbs).enumerate() {
            if *r != self.range_of(b) || listed[i] != r.cells {
                return Err(format!("body {i}: listed in {} cells, its box covers {}", listed[i], r.cells));
            }
            if (r.cells == 0) != self.oversized.binary_search(&(i as u32)).is_ok() {
                return Err(format!("body {i}: the oversized list disagrees with its {} cells", r.cells));
            }
        }
        Ok(())
    }

    /// Occupied cells, blue for one body through to red for the fullest.
    fn debug_draw_with(&self, _aabbs: &[Aabb], _options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        let mut cells = Vec::new();
        self.for_each_cell(|key, n| cells.push((key, n)));
        let most = cells.iter().map(|c| c.1).max().unwrap_or(1);
        // The fullest cells first, so the cap drops the least interesting ones.
        cells.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        for &(key, n) in cells.iter().take(MAX_DRAWN_BOXES) {
            draw.aabb(DrawCategory::BroadPhase, &self.cell_box(key), count_color(n, most));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_round_trip_and_clamp() {
        for c in [[0, 0, 0], [-1, 5, -7], [1 << 19, -(1 << 20), (1 << 20) - 1]] {
            assert_eq!(unpack(pack(c)), c);
        }
        assert_eq!(cell_coord(1e30, 1.0), (COORD_LIMIT - 1) as i32);
        assert_eq!(cell_coord(-0.5, 1.0), -1);
    }

    #[test]
    fn suggestion_follows_the_mean_extent() {
        let boxes = [Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), Aabb::new(Vec3::ZERO, Vec3::splat(3.0))];
        assert_eq!(suggest_cell_size(&boxes), 2.0 * SUGGESTED_CELL_FACTOR);
        assert_eq!(suggest_cell_size(&[]), 1.0);
    }
}
