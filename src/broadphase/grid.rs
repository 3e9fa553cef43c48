//! Uniform grid with hashed cells. Each body is listed in every cell its box touches; a pair is
//! tested only in the first cell both share (the cell holding the overlap's minimum corner), so
//! a body spanning many cells never yields a duplicate. Bodies spanning more than
//! [`MAX_CELLS_PER_BODY`] cells are kept in a side list and tested against all.
//!
//! The cells persist from step to step: an update checks each body's cell range (four
//! coordinates at a time) and moves only the bodies whose range changed. The candidate pairs
//! (those that count in a shared cell) persist too, in canonical order: only the moved bodies'
//! pairs are dropped and found again, and every candidate is then tested exactly, in order.

mod candidates;
mod cells;
mod packed;
mod query;

use super::canonical::PairKeys;
use super::draw::{MAX_DRAWN_BOXES, count_color};
use super::{
    BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, debug_validate,
    pairs_with_outsiders,
};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::{Real, Vec3};
use candidates::Candidates;
use cells::{BODY_MASK, CellTable, FIRST_SHIFT, MAX_TABLE_BODIES};
use packed::{Bounds, MOVED, PackedBox, same_cells};

/// The table indexes cells directly over the bodies' bounds when that box holds at most this
/// many cells per body (plus a few thousand); otherwise, and outside the box, it hashes.
const DENSE_CELLS_PER_BODY: usize = 32;

/// How many moved bodies ahead the relisting prefetches cells (they lie at random in the table,
/// and waiting for them was most of a moved body's cost).
const MOVES_AHEAD: usize = 4;

/// A body covering more cells than this goes to the oversized list instead of the table.
pub const MAX_CELLS_PER_BODY: u64 = 64;

/// Cell coordinates are clamped to `±2^20` so that three fit in one 64-bit key. Clamping is
/// monotone, so two overlapping boxes still share a cell; far-away bodies just share more.
const COORD_BITS: u32 = 21;
const COORD_LIMIT: i64 = 1 << (COORD_BITS - 1);

/// The cell size [`suggest_cell_size`] proposes, as a multiple of the mean AABB extent.
pub(super) const SUGGESTED_CELL_FACTOR: Real = 2.0;

/// A cell size for `aabbs`: `SUGGESTED_CELL_FACTOR` times their mean extent, so that a typical
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

/// The cells one body covers, inclusive; `cells == 0` marks a body not in the table (oversized,
/// non-finite, or not yet inserted).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct CellRange {
    lo: [i32; 3],
    hi: [i32; 3],
    cells: u32,
}

impl CellRange {
    /// The range stored as floats in `rows` (see [`PackedBox::cells`]); the empty range for a
    /// body not in the table. Recomputing it costs a few conversions, where a separate array of
    /// ranges cost a cache miss per moved body.
    #[inline]
    fn of_rows(rows: &PackedBox) -> CellRange {
        if rows.lo[0].is_nan() {
            return CellRange::default();
        }
        let (lo, hi) = (rows.lo.map(|v| v as i32), rows.hi.map(|v| v as i32));
        let (lo, hi) = ([lo[0], lo[1], lo[2]], [hi[0], hi[1], hi[2]]);
        let cells = (0..3).map(|a| (hi[a] - lo[a] + 1) as u32).product();
        CellRange { lo, hi, cells }
    }

    /// Calls `f(key, first)` for every cell of the range; `first` has bit `a` set when the cell
    /// is the range's first on axis `a`.
    #[inline]
    fn for_each_cell(&self, mut f: impl FnMut(u64, u32)) {
        if self.cells == 0 {
            return;
        }
        for z in self.lo[2]..=self.hi[2] {
            let fz = ((z == self.lo[2]) as u32) << 2;
            for y in self.lo[1]..=self.hi[1] {
                let fy = fz | ((y == self.lo[1]) as u32) << 1;
                for x in self.lo[0]..=self.hi[0] {
                    f(pack([x, y, z]), fy | (x == self.lo[0]) as u32);
                }
            }
        }
    }
}

/// A hashed uniform grid.
pub struct Grid {
    cell_size: Real,
    inv_cell: Real,
    /// False until the first update, and after a change of cell size.
    built: bool,
    /// Every body's box of this update, packed for the exact tests (moved bodies marked).
    packed: Vec<PackedBox>,
    /// Every body's cell range as floats ([`PackedBox::cells`]): what the "same cells" check
    /// reads, and the only copy of the range ([`CellRange::of_rows`]).
    cell_rows: Vec<PackedBox>,
    /// Bodies tested against everything: too many cells, or a non-finite box. Ascending.
    oversized: Vec<u32>,
    table: CellTable,
    /// Union of the boxes in the table, to clip rays.
    bounds: Aabb,
    /// Pairs that count in a cell both share, kept in canonical order between updates.
    candidates: Candidates,
    /// The oversized bodies' pairs, before they are put in canonical order.
    keys: PairKeys,
    /// The table's pairs while the oversized bodies' are merged in.
    merge_buf: Vec<(u32, u32)>,
    /// This update's bodies that change cells, ascending, with their old and new ranges.
    moves: Vec<Move>,
    /// This update's bodies that failed the "same cells" check, ascending.
    unsure: Vec<u32>,
}

/// A body changing cells: its old and new ranges.
struct Move {
    body: u32,
    old: CellRange,
    new: CellRange,
}

impl Default for Grid {
    fn default() -> Self {
        Grid {
            cell_size: 1.0,
            inv_cell: 1.0,
            built: false,
            packed: Vec::new(),
            cell_rows: Vec::new(),
            oversized: Vec::new(),
            table: CellTable::default(),
            bounds: Aabb::EMPTY,
            candidates: Candidates::default(),
            keys: PairKeys::default(),
            merge_buf: Vec::new(),
            moves: Vec::new(),
            unsure: Vec::new(),
        }
    }
}

/// The cell coordinate of `v`: `floor(v * inv)` clamped to the key's range (NaN goes to the low
/// end). Exact, and without the library call `floor` costs on baseline x86-64: truncation rounds
/// towards zero, so a negative non-integer steps down one.
#[inline]
fn cell_coord(v: Real, inv: Real) -> i32 {
    let x = (v * inv).max(-(COORD_LIMIT as Real)).min((COORD_LIMIT - 1) as Real);
    let t = x as i32;
    t - ((t as Real) > x) as i32
}

/// The cell holding `p`: [`cell_coord`] of each coordinate. Monotone, so a point below another
/// is in a cell no higher.
#[inline(always)]
pub(crate) fn cell_of(p: Vec3, inv: Real) -> [i32; 3] {
    [cell_coord(p.x, inv), cell_coord(p.y, inv), cell_coord(p.z, inv)]
}

/// A cell's coordinates in one key, x in the low bits (so a row of cells along x is a run of
/// consecutive keys).
#[inline]
pub(crate) fn pack(c: [i32; 3]) -> u64 {
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

    #[inline(always)]
    fn range_of(&self, b: &Aabb) -> CellRange {
        let inv = self.inv_cell;
        let (lo, hi) = (cell_of(b.min, inv), cell_of(b.max, inv));
        let count = (0..3).map(|a| (hi[a] as i64 - lo[a] as i64 + 1).max(0) as u64).product::<u64>();
        let cells = if b.is_valid() && count <= MAX_CELLS_PER_BODY { count as u32 } else { 0 };
        CellRange { lo, hi, cells }
    }

    /// The cells body `i` is listed in for box `b`: the empty range if the table cannot hold
    /// it (too many cells, a non-finite box, or an index too large for an entry).
    #[inline]
    fn table_range(&self, i: usize, b: &Aabb) -> CellRange {
        let r = self.range_of(b);
        if r.cells == 0 || i >= MAX_TABLE_BODIES { CellRange::default() } else { r }
    }

    /// Moves body `i` from the cells of `old` to those of `new`. Cells in both keep the body's
    /// entry, rewritten only when its first-cell flags change, so a body that shifts by a cell
    /// touches only the cells it leaves and enters (and those whose flags change).
    fn relist(&mut self, i: u32, old: &CellRange, new: &CellRange) {
        let table = &mut self.table;
        let holds = |r: &CellRange, c: [i32; 3]| r.cells != 0 && (0..3).all(|a| r.lo[a] <= c[a] && c[a] <= r.hi[a]);
        old.for_each_cell(|key, _| {
            if !holds(new, unpack(key)) {
                table.remove(key, i);
            }
        });
        new.for_each_cell(|key, first| {
            let c = unpack(key);
            if !holds(old, c) {
                table.insert(key, i | first << FIRST_SHIFT);
            } else if (0..3).fold(0, |f, a| f | ((c[a] == old.lo[a]) as u32) << a) != first {
                table.replace(key, i, i | first << FIRST_SHIFT);
            }
        });
    }

    /// Brings every body's cells up to date, moving only those whose range changed. Returns
    /// how many moved.
    fn refresh(&mut self, aabbs: &[Aabb], cell_size: Real) -> u32 {
        let size = if cell_size.is_finite() && cell_size > 0.0 { cell_size } else { suggest_cell_size(aabbs) };
        if !self.built || size.to_bits() != self.cell_size.to_bits() {
            self.cell_size = size;
            self.inv_cell = 1.0 / size;
            // Cells around where the bodies are now are indexed directly, when that box is not
            // much larger than the table will be.
            let bounds = aabbs.iter().filter(|b| b.is_valid()).fold(Aabb::EMPTY, |u, b| u.merge(b));
            let inv = self.inv_cell;
            let corner = |v: Vec3, pad: i32| cell_of(v, inv).map(|c| c.saturating_add(pad));
            let (lo, hi) = (corner(bounds.min, -1), corner(bounds.max, 1));
            self.table.clear(lo, hi, DENSE_CELLS_PER_BODY * aabbs.len() + 4096);
            self.cell_rows.clear();
            self.candidates.invalidate();
            self.built = true;
        }
        while self.cell_rows.len() > aabbs.len() {
            let i = self.cell_rows.len() - 1;
            let r = CellRange::of_rows(&self.cell_rows[i]);
            self.cell_rows.pop();
            self.relist(i as u32, &r, &CellRange::default());
            self.candidates.note_moved(i as u32);
        }
        self.cell_rows.resize(aabbs.len(), PackedBox::cells(None));
        self.packed.resize(aabbs.len(), PackedBox::default());
        self.oversized.clear();
        let mut bounds = Bounds::new();
        let mut other_bounds = Aabb::EMPTY;
        self.moves.clear();
        self.unsure.clear();
        let inv = self.inv_cell;
        // The hot loop: a straight copy of each box, checked against the body's cells as floats;
        // the few bodies that fail the check are handled after it.
        let n = aabbs.len();
        for (i, ((b, out), rows)) in aabbs.iter().zip(&mut self.packed[..n]).zip(&self.cell_rows[..n]).enumerate() {
            let p = PackedBox::of(b);
            *out = p;
            if same_cells(&p, rows, inv) {
                bounds.add(&p);
            } else {
                self.unsure.push(i as u32);
            }
        }
        for &i in &self.unsure {
            let (i, b) = (i as usize, &aabbs[i as usize]);
            let old = CellRange::of_rows(&self.cell_rows[i]);
            let r = self.table_range(i, b);
            if r != old {
                self.cell_rows[i] = PackedBox::cells((r.cells != 0).then_some((r.lo, r.hi)));
                self.packed[i].lo[3] = MOVED;
                self.candidates.note_moved(i as u32);
                self.moves.push(Move { body: i as u32, old, new: r });
            }
            if r.cells == 0 {
                self.oversized.push(i as u32);
            } else {
                other_bounds = other_bounds.merge(b);
            }
        }
        self.bounds = bounds.aabb().merge(&other_bounds);
        // The moved bodies are relisted in a second pass, once all are known, so that each
        // one's new candidates can be found right away, while its cells are in cache.
        let patching = self.candidates.start_patch(aabbs.len());
        let moves = std::mem::take(&mut self.moves);
        for (k, m) in moves.iter().enumerate() {
            // The cells a few moves ahead are fetched while this one is relisted.
            if let Some(a) = moves.get(k + MOVES_AHEAD) {
                for r in [&a.old, &a.new].into_iter().filter(|r| r.cells != 0) {
                    self.table.prefetch(r.lo, r.hi);
                }
            }
            self.relist(m.body, &m.old, &m.new);
            if patching {
                self.candidates.find_fresh(m.body, &m.new, &self.table);
            }
        }
        self.moves = moves;
        self.moves.len() as u32
    }

    /// Every occupied cell with its body count.
    fn for_each_cell(&self, mut f: impl FnMut(u64, u32)) {
        for (key, e) in self.table.slots().filter(|(_, e)| !e.is_empty()) {
            f(key, e.len() as u32);
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
        let t0 = crate::timer::Stamp::now();
        let moved = self.refresh(aabbs, params.grid_cell_size);
        let t1 = crate::timer::Stamp::now();
        let update_ms = t1.ms_since(t0);

        let n = aabbs.len();
        self.update_and_test_candidates(n, pairs);
        let mut candidates = self.candidates.keys.len() as u64;
        if !self.oversized.is_empty() {
            // The oversized bodies' pairs, merged into the table's (the two never share a pair).
            let mut keys = std::mem::take(&mut self.keys);
            keys.clear();
            candidates += pairs_with_outsiders(&self.oversized, aabbs, &mut keys);
            let extra = keys.sorted(n);
            self.merge_buf.clear();
            self.merge_buf.append(pairs);
            let (mut a, mut b) = (0, 0);
            let (mine, key_of) = (&self.merge_buf, |k: u64| ((k >> 32) as u32, k as u32));
            while a < mine.len() && b < extra.len() {
                if mine[a] < key_of(extra[b]) {
                    pairs.push(mine[a]);
                    a += 1;
                } else {
                    pairs.push(key_of(extra[b]));
                    b += 1;
                }
            }
            pairs.extend_from_slice(&mine[a..]);
            pairs.extend(extra[b..].iter().map(|&k| key_of(k)));
            self.keys = keys;
        }
        let most = self.table.most();
        let stats = BroadPhaseStats {
            candidate_pairs: candidates.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: candidates,
            nodes: self.table.in_use(),
            depth: most as u32,
            swaps: 0,
            reinserted: moved,
            update_ms,
            pairs_ms: t1.elapsed_ms(),
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

    fn validate(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        if self.cell_rows.len() != aabbs.len() {
            return Err(InvariantError(format!("{} bodies but {} cell ranges", aabbs.len(), self.cell_rows.len())));
        }
        self.table.validate()?;
        if self.candidates.keys != self.candidates_from_cells() {
            return Err(InvariantError("the candidate list disagrees with the cells".into()));
        }
        let mut listed = vec![0u32; aabbs.len()];
        for (key, e) in self.table.slots() {
            let cell = unpack(key);
            for &x in e {
                let body = (x & BODY_MASK) as usize;
                let Some(r) = self.cell_rows.get(body).map(CellRange::of_rows) else {
                    return Err(InvariantError(format!("cell {cell:?} lists body {body}, which does not exist")));
                };
                if (0..3).any(|a| cell[a] < r.lo[a] || cell[a] > r.hi[a]) {
                    return Err(InvariantError(format!("body {body} is listed in cell {cell:?} outside its range")));
                }
                let first = (0..3).fold(0, |f, a| f | ((cell[a] == r.lo[a]) as u32) << a);
                if x >> FIRST_SHIFT != first {
                    return Err(InvariantError(format!("body {body} in cell {cell:?}: wrong first-cell flags")));
                }
                listed[body] += 1;
            }
        }
        for (i, (rows, b)) in self.cell_rows.iter().zip(aabbs).enumerate() {
            let (r, expect) = (CellRange::of_rows(rows), self.table_range(i, b));
            if r != expect || listed[i] != r.cells {
                return Err(InvariantError(format!(
                    "body {i}: listed in {} cells, its box covers {}",
                    listed[i], expect.cells
                )));
            }
            if (r.cells == 0) != self.oversized.binary_search(&(i as u32)).is_ok() {
                return Err(InvariantError(format!(
                    "body {i}: the oversized list disagrees with its {} cells",
                    r.cells
                )));
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

    /// The "same cells" fast path agrees with the full range computation, on boxes with corners
    /// on cell boundaries, negative, far-away (clamped), non-finite and inverted ones.
    #[test]
    fn fast_check_agrees_with_the_full_range() {
        let mut rng = crate::rng::SplitMix64::new(3);
        let mut grid = Grid::default();
        for cell in [0.5, 1.0, 3.7] {
            grid.inv_cell = 1.0 / cell;
            for k in 0..5000 {
                let mut r = |lo: Real, hi: Real| (rng.range(lo, hi) * 4.0).round() * 0.25;
                let min = Vec3::new(r(-9.0, 9.0), r(-9.0, 9.0), r(-9.0, 9.0));
                let b = Aabb::new(min, min + Vec3::new(r(-0.5, 3.0), r(0.0, 3.0), r(0.0, 3.0)));
                let b = match k % 11 {
                    1 => Aabb::new(b.min, Vec3::new(b.max.x, Real::NAN, b.max.z)),
                    2 => Aabb::new(b.min * 1e7, b.max * 1e7),
                    3 => Aabb::new(Vec3::new(Real::NEG_INFINITY, b.min.y, b.min.z), b.max),
                    4 => Aabb::new(b.min * 4e5, b.max * 4e5),
                    _ => b,
                };
                // Against its own range, and against the range of a slightly moved copy.
                let moved = Aabb::new(b.min + Vec3::splat(r(0.0, 0.5)), b.max + Vec3::splat(0.25));
                for other in [b, moved] {
                    let old = grid.range_of(&other);
                    let expect = old.cells != 0 && grid.range_of(&b) == old;
                    let rows = PackedBox::cells((old.cells != 0).then_some((old.lo, old.hi)));
                    let p = PackedBox::of(&b);
                    let fast = same_cells(&p, &rows, grid.inv_cell);
                    assert_eq!(packed::same_cells_scalar(&p, &rows, grid.inv_cell), fast, "{b:?} vs {other:?}");
                    // Exact inside the key's range; beyond it (clamped cells) the check may
                    // send a body down the full path, never wrongly skip it.
                    let limit = (COORD_LIMIT - 1) as Real;
                    let inside = [b.min, b.max].iter().all(|v| (*v * grid.inv_cell).abs().max_element() < limit);
                    assert!(!fast || expect, "{b:?} vs {other:?}");
                    assert!(fast == expect || !inside, "{b:?} vs {other:?}");
                }
            }
        }
    }

    #[test]
    fn suggestion_follows_the_mean_extent() {
        let boxes = [Aabb::new(Vec3::ZERO, Vec3::splat(1.0)), Aabb::new(Vec3::ZERO, Vec3::splat(3.0))];
        assert_eq!(suggest_cell_size(&boxes), 2.0 * SUGGESTED_CELL_FACTOR);
        assert_eq!(suggest_cell_size(&[]), 1.0);
    }
}
