//! The grid's persistent cell table: a hash map from cell key to a slot holding the cell's
//! entries. Cells live from step to step, so a body is only moved when its cell range changes.

use super::unpack;
use crate::geometry::InvariantError;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// An entry is a body index with three flags above it: bit `FIRST_SHIFT + a` is set when the
/// body's cell range starts in this cell on axis `a`. A pair is tested only in the first cell
/// both share, which is the cell where, on every axis, one of the two ranges starts.
pub(super) const FIRST_SHIFT: u32 = 29;
/// The body bits of an entry.
pub(super) const BODY_MASK: u32 = (1 << FIRST_SHIFT) - 1;
/// Bodies with an index this large do not fit an entry; they go to the oversized list.
pub(super) const MAX_TABLE_BODIES: usize = 1 << FIRST_SHIFT;
/// All three first-cell flags, shifted down.
pub(super) const ALL_FIRST: u32 = 0b111;

/// Multiply-fold hash of a cell key: good high and low bits from one 128-bit product.
#[derive(Default)]
pub(super) struct CellHasher(u64);

impl Hasher for CellHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0 ^ b as u64);
        }
    }

    #[inline]
    fn write_u64(&mut self, key: u64) {
        let m = (key ^ self.0) as u128 * 0x9e37_79b9_7f4a_7c15;
        self.0 = (m as u64) ^ ((m >> 64) as u64);
    }
}

/// Entries a cell holds in place; a fuller cell keeps them all in its spill vector.
const INLINE: usize = 7;

/// One cell's entries (see [`FIRST_SHIFT`]), in no particular order. Cells sit side by side in
/// one array, so the pair sweep reads them sequentially instead of chasing a pointer per cell.
#[derive(Clone, Copy, Default)]
#[repr(align(32))]
pub(super) struct Cell {
    len: u32,
    inline: [u32; INLINE],
}

#[derive(Default)]
pub(super) struct CellTable {
    map: HashMap<u64, u32, BuildHasherDefault<CellHasher>>,
    /// Slots; the free ones are empty and listed in `free`.
    cells: Vec<Cell>,
    /// Each slot's cell key.
    keys: Vec<u64>,
    /// The entries of slots holding more than [`INLINE`]; empty otherwise.
    spill: Vec<Vec<u32>>,
    free: Vec<u32>,
    /// Occupied cells.
    used: u32,
    /// `sizes[k]`: how many cells hold `k` entries (index 0 unused), so the fullest cell is
    /// known without a pass over the table.
    sizes: Vec<u32>,
    /// Inside this box of cells a cell's slot is found by direct indexing instead of hashing.
    dense: Dense,
}

/// A box of cells indexed directly: `slot[index]` is the cell's slot or [`NO_SLOT`].
#[derive(Default)]
struct Dense {
    lo: [i32; 3],
    dims: [i32; 3],
    slot: Vec<u32>,
}

const NO_SLOT: u32 = u32::MAX;

impl CellTable {
    /// Empties the table. Cells from `lo` to `hi` (inclusive) will be found by direct indexing
    /// when that box holds at most `max_cells`; others by hashing.
    pub(super) fn clear(&mut self, lo: [i32; 3], hi: [i32; 3], max_cells: usize) {
        self.map.clear();
        self.free.clear();
        for (k, c) in self.cells.iter_mut().enumerate().rev() {
            c.len = 0;
            self.spill[k].clear();
            self.free.push(k as u32);
        }
        self.used = 0;
        self.sizes.clear();
        let dims: [i64; 3] = std::array::from_fn(|a| (hi[a] as i64 - lo[a] as i64 + 1).max(0));
        let volume = dims.iter().product::<i64>() as usize;
        self.dense.slot.clear();
        if volume <= max_cells {
            self.dense.lo = lo;
            self.dense.dims = dims.map(|d| d as i32);
            self.dense.slot.resize(volume, NO_SLOT);
        }
    }

    /// Cells holding at least one body.
    pub(super) fn in_use(&self) -> u32 {
        self.used
    }

    /// The most entries in one cell.
    pub(super) fn most(&self) -> usize {
        self.sizes.iter().rposition(|&c| c != 0).unwrap_or(0)
    }

    /// Records that a cell went from `from` to `to` entries.
    #[inline]
    fn resize_count(&mut self, from: usize, to: usize) {
        if to >= self.sizes.len() {
            self.sizes.resize(to + 1, 0);
        }
        self.sizes[from] -= (from != 0) as u32;
        self.sizes[to] += (to != 0) as u32;
    }

    /// The direct index of cell `key`, if it lies in the dense box.
    #[inline]
    fn dense_index(&self, key: u64) -> Option<usize> {
        if self.dense.slot.is_empty() {
            return None;
        }
        let c = unpack(key);
        let (lo, dims) = (self.dense.lo, self.dense.dims);
        let d: [i32; 3] = std::array::from_fn(|a| c[a].wrapping_sub(lo[a]));
        if (0..3).all(|a| (d[a] as u32) < dims[a] as u32) {
            Some(((d[2] as usize * dims[1] as usize) + d[1] as usize) * dims[0] as usize + d[0] as usize)
        } else {
            None
        }
    }

    /// Asks the cache for the slots of the occupied cells from `lo` to `hi` (inclusive) that are
    /// indexed directly: a moved body's cells lie at random places in the table.
    #[inline]
    pub(super) fn prefetch(&self, lo: [i32; 3], hi: [i32; 3]) {
        let (dlo, dims) = (self.dense.lo, self.dense.dims);
        let clip = |a: usize| {
            let l = (lo[a].saturating_sub(dlo[a])).max(0);
            let h = (hi[a].saturating_sub(dlo[a])).min(dims[a] - 1);
            (l as usize, h as usize, l <= h)
        };
        let ((x0, x1, okx), (y0, y1, oky), (z0, z1, okz)) = (clip(0), clip(1), clip(2));
        if self.dense.slot.is_empty() || !(okx && oky && okz) {
            return;
        }
        let (dx, dy) = (dims[0] as usize, dims[1] as usize);
        for z in z0..=z1 {
            for y in y0..=y1 {
                let row = (z * dy + y) * dx;
                for &s in self.dense.slot.get(row + x0..=row + x1).unwrap_or(&[]) {
                    if s != NO_SLOT {
                        crate::simd::prefetch(self.cells.as_ptr().wrapping_add(s as usize));
                    }
                }
            }
        }
    }

    /// The slot of cell `key`, if occupied.
    #[inline]
    fn find(&self, key: u64) -> Option<u32> {
        match self.dense_index(key) {
            Some(i) => Some(self.dense.slot[i]).filter(|&s| s != NO_SLOT),
            None => self.map.get(&key).copied(),
        }
    }

    /// Points cell `key` at `slot` (or at nothing).
    #[inline]
    fn assign(&mut self, key: u64, slot: Option<u32>) {
        match (self.dense_index(key), slot) {
            (Some(i), s) => self.dense.slot[i] = s.unwrap_or(NO_SLOT),
            (None, Some(s)) => {
                self.map.insert(key, s);
            }
            (None, None) => {
                self.map.remove(&key);
            }
        }
    }

    /// The entries of slot `s` (empty for a free slot).
    #[inline]
    pub(super) fn entries(&self, s: usize) -> &[u32] {
        let c = &self.cells[s];
        if c.len as usize <= INLINE { &c.inline[..c.len as usize] } else { &self.spill[s] }
    }

    /// Every slot with its cell key and entries; free slots have no entries.
    pub(super) fn slots(&self) -> impl Iterator<Item = (u64, &[u32])> + '_ {
        (0..self.cells.len()).map(|s| (self.keys[s], self.entries(s)))
    }

    /// The entries of cell `key`, empty when it is unoccupied.
    #[inline]
    pub(super) fn get(&self, key: u64) -> &[u32] {
        match self.find(key) {
            Some(slot) => self.entries(slot as usize),
            None => &[],
        }
    }

    /// Adds `entry` to cell `key`.
    #[inline]
    pub(super) fn insert(&mut self, key: u64, entry: u32) {
        let slot = match self.find(key) {
            Some(s) => s as usize,
            None => {
                let s = match self.free.pop() {
                    Some(s) => {
                        self.keys[s as usize] = key;
                        s
                    }
                    None => {
                        self.cells.push(Cell::default());
                        self.keys.push(key);
                        self.spill.push(Vec::new());
                        (self.cells.len() - 1) as u32
                    }
                };
                self.assign(key, Some(s));
                self.used += 1;
                s as usize
            }
        };
        let c = &mut self.cells[slot];
        let len = c.len as usize;
        if len < INLINE {
            c.inline[len] = entry;
        } else {
            let s = &mut self.spill[slot];
            if len == INLINE {
                s.clear();
                s.extend_from_slice(&c.inline);
            }
            s.push(entry);
        }
        c.len += 1;
        self.resize_count(len, len + 1);
    }

    /// Replaces `body`'s entry in cell `key` with `entry` (the same body, new flags). Returns
    /// false if the body was not listed there.
    #[inline]
    pub(super) fn replace(&mut self, key: u64, body: u32, entry: u32) -> bool {
        let Some(slot) = self.find(key) else { return false };
        let slot = slot as usize;
        let c = &mut self.cells[slot];
        let len = c.len as usize;
        let listed = if len <= INLINE { &mut c.inline[..len] } else { &mut self.spill[slot][..] };
        let Some(x) = listed.iter_mut().find(|x| **x & BODY_MASK == body) else { return false };
        *x = entry;
        true
    }

    /// Removes `body`'s entry from cell `key`; an emptied cell is freed. Returns false if the
    /// body was not listed there.
    #[inline]
    pub(super) fn remove(&mut self, key: u64, body: u32) -> bool {
        let Some(slot) = self.find(key) else { return false };
        let slot = slot as usize;
        let c = &mut self.cells[slot];
        let len = c.len as usize;
        if len <= INLINE {
            let Some(p) = c.inline[..len].iter().position(|&x| x & BODY_MASK == body) else { return false };
            c.inline[p] = c.inline[len - 1];
        } else {
            let s = &mut self.spill[slot];
            let Some(p) = s.iter().position(|&x| x & BODY_MASK == body) else { return false };
            s.swap_remove(p);
            if s.len() == INLINE {
                c.inline.copy_from_slice(s);
                s.clear();
            }
        }
        c.len -= 1;
        self.resize_count(len, len - 1);
        if len == 1 {
            self.assign(key, None);
            self.used -= 1;
            self.free.push(slot as u32);
        }
        true
    }

    /// Checks that the map and the slots agree.
    pub(super) fn validate(&self) -> Result<(), InvariantError> {
        let mut used = 0;
        for (s, (key, e)) in self.slots().enumerate() {
            if e.len() != self.cells[s].len as usize {
                return Err(InvariantError(format!(
                    "slot {s} holds {} entries, its length says {}",
                    e.len(),
                    self.cells[s].len
                )));
            }
            if e.is_empty() {
                continue;
            }
            used += 1;
            if self.find(key) != Some(s as u32) {
                return Err(InvariantError(format!(
                    "slot {s} holds cell {key:#x}, but the index does not point to it"
                )));
            }
        }
        let mut sizes = vec![0u32; 1];
        for (_, e) in self.slots().filter(|(_, e)| !e.is_empty()) {
            if sizes.len() <= e.len() {
                sizes.resize(e.len() + 1, 0);
            }
            sizes[e.len()] += 1;
        }
        let trimmed = &self.sizes[..self.sizes.iter().rposition(|&c| c != 0).map_or(0, |k| k + 1)];
        if sizes[..] != *trimmed && !(sizes.len() == 1 && trimmed.is_empty()) {
            return Err(InvariantError(format!("cell size counts {trimmed:?}, but the cells give {sizes:?}")));
        }
        let indexed = self.map.len() + self.dense.slot.iter().filter(|&&s| s != NO_SLOT).count();
        if used != indexed || used != self.used as usize || used + self.free.len() != self.cells.len() {
            return Err(InvariantError(format!(
                "{used} occupied slots, {indexed} indexed cells, {} free of {} slots",
                self.free.len(),
                self.cells.len()
            )));
        }
        Ok(())
    }
}
