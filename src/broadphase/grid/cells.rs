//! The grid's persistent cell table: a hash map from cell key to a slot holding the cell's
//! entries. Cells live from step to step, so a body is only moved when its cell range changes.

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

/// One occupied (or free, when `entries` is empty) cell.
#[derive(Default)]
pub(super) struct Cell {
    pub key: u64,
    /// Entries in no particular order (see [`FIRST_SHIFT`]).
    pub entries: Vec<u32>,
}

#[derive(Default)]
pub(super) struct CellTable {
    map: HashMap<u64, u32, BuildHasherDefault<CellHasher>>,
    /// Slots; the free ones are empty and listed in `free`.
    pub cells: Vec<Cell>,
    free: Vec<u32>,
}

impl CellTable {
    pub fn clear(&mut self) {
        self.map.clear();
        self.free.clear();
        for (k, c) in self.cells.iter_mut().enumerate().rev() {
            c.entries.clear();
            self.free.push(k as u32);
        }
    }

    /// Cells holding at least one body.
    pub fn in_use(&self) -> u32 {
        self.map.len() as u32
    }

    /// The entries of cell `key`, empty when it is unoccupied.
    #[inline]
    pub fn get(&self, key: u64) -> &[u32] {
        match self.map.get(&key) {
            Some(&slot) => &self.cells[slot as usize].entries,
            None => &[],
        }
    }

    /// Adds `entry` to cell `key`.
    #[inline]
    pub fn insert(&mut self, key: u64, entry: u32) {
        let (cells, free) = (&mut self.cells, &mut self.free);
        let slot = *self.map.entry(key).or_insert_with(|| match free.pop() {
            Some(s) => {
                cells[s as usize].key = key;
                s
            }
            None => {
                cells.push(Cell { key, entries: Vec::new() });
                (cells.len() - 1) as u32
            }
        });
        self.cells[slot as usize].entries.push(entry);
    }

    /// Removes `body`'s entry from cell `key`; an emptied cell is freed. Returns false if the
    /// body was not listed there.
    #[inline]
    pub fn remove(&mut self, key: u64, body: u32) -> bool {
        let Some(&slot) = self.map.get(&key) else { return false };
        let e = &mut self.cells[slot as usize].entries;
        let Some(p) = e.iter().position(|&x| x & BODY_MASK == body) else { return false };
        e.swap_remove(p);
        if e.is_empty() {
            self.map.remove(&key);
            self.free.push(slot);
        }
        true
    }

    /// Checks that the map and the slots agree.
    pub fn validate(&self) -> Result<(), String> {
        let mut used = 0;
        for (s, c) in self.cells.iter().enumerate() {
            if c.entries.is_empty() {
                continue;
            }
            used += 1;
            if self.map.get(&c.key) != Some(&(s as u32)) {
                return Err(format!("slot {s} holds cell {:#x}, which the map does not point to it", c.key));
            }
        }
        if used != self.map.len() || used + self.free.len() != self.cells.len() {
            return Err(format!(
                "{used} occupied slots, {} mapped cells, {} free of {} slots",
                self.map.len(),
                self.free.len(),
                self.cells.len()
            ));
        }
        Ok(())
    }
}
