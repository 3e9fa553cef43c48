//! The canonical pair order every structure returns: ascending `(i, j)` with `i < j`, so the
//! simulation is the same whichever structure ran. Structures that find pairs in another order
//! collect them here and leave with one LSD radix sort over compact integer keys.

use std::ops::Range;

/// Below this many pairs a comparison sort beats the radix sort's counter passes.
const RADIX_MIN: usize = 128;

/// Pairs gathered in any order, written out in canonical order by [`PairKeys::finish`]. The
/// buffers are kept from step to step, so a warm structure does not allocate.
#[derive(Default)]
pub(super) struct PairKeys {
    keys: Vec<u64>,
    scratch: Vec<u64>,
    counts: Vec<u32>,
}

impl PairKeys {
    /// Forgets the pairs of the last update.
    pub(super) fn clear(&mut self) {
        self.keys.clear();
    }

    /// Records the pair of `i` and `j` (in either order; `i != j`).
    #[inline]
    pub(super) fn push(&mut self, i: u32, j: u32) {
        self.keys.push(((i.min(j) as u64) << 32) | i.max(j) as u64);
    }

    /// Sorts the recorded pairs of bodies below `n` and returns their keys, `i << 32 | j`, in
    /// canonical order.
    pub(super) fn sorted(&mut self, n: usize) -> &[u64] {
        self.sort(n);
        &self.keys
    }

    /// Sorts the recorded pairs of bodies below `n` and writes them to `pairs`, replacing what
    /// was there.
    pub(super) fn finish(&mut self, n: usize, pairs: &mut Vec<(u32, u32)>) {
        self.sort(n);
        pairs.clear();
        pairs.extend(self.keys.iter().map(|&k| ((k >> 32) as u32, k as u32)));
    }

    fn sort(&mut self, n: usize) {
        let bits = usize::BITS - n.saturating_sub(1).leading_zeros();
        if self.keys.len() < RADIX_MIN || bits > 30 {
            self.keys.sort_unstable();
        } else {
            // Pack (i, j) into 2·bits so the sort needs as few passes as the body count allows.
            for k in &mut self.keys {
                *k = ((*k >> 32) << bits) | (*k & 0xffff_ffff);
            }
            radix_sort(&mut self.keys, &mut self.scratch, &mut self.counts, 0..2 * bits);
            let low = (1u64 << bits) - 1;
            for k in &mut self.keys {
                *k = ((*k >> bits) << 32) | (*k & low);
            }
        }
    }
}

/// Sorts `keys` stably on their bits `bits` with least-significant-digit radix passes; the digit
/// width minimises passes × (counters + keys).
pub(crate) fn radix_sort(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, counts: &mut Vec<u32>, bits: Range<u32>) {
    let (m, width) = (keys.len(), bits.end - bits.start);
    let cost = |d: u32| width.div_ceil(d) as usize * ((1usize << d) + m);
    let digit = (4..=16).min_by_key(|&d| cost(d)).unwrap_or(8);
    radix_passes(keys, scratch, counts, bits, digit);
}

/// Sorts `keys` stably on their bits `bits` (from the low end), `digit` bits a pass.
fn radix_passes(keys: &mut Vec<u64>, scratch: &mut Vec<u64>, counts: &mut Vec<u32>, bits: Range<u32>, digit: u32) {
    let mask = (1u64 << digit) - 1;
    scratch.clear();
    scratch.resize(keys.len(), 0);
    let mut shift = bits.start;
    while shift < bits.end {
        counts.clear();
        counts.resize(1 << digit, 0);
        for &k in keys.iter() {
            counts[((k >> shift) & mask) as usize] += 1;
        }
        let mut run = 0;
        for c in counts.iter_mut() {
            (*c, run) = (run, run + *c);
        }
        for &k in keys.iter() {
            let c = &mut counts[((k >> shift) & mask) as usize];
            scratch[*c as usize] = k;
            *c += 1;
        }
        std::mem::swap(keys, scratch);
        shift += digit;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    #[test]
    fn finish_sorts_like_a_comparison_sort() {
        let mut rng = SplitMix64::new(5);
        for (n, m) in [(2usize, 1usize), (10, 40), (1000, 5000), (100_000, 3000), (70_000, 200)] {
            let mut keys = PairKeys::default();
            let mut expect = Vec::new();
            for _ in 0..m {
                let i = (rng.next_u64() % n as u64) as u32;
                let j = (rng.next_u64() % n as u64) as u32;
                if i != j {
                    keys.push(i, j);
                    expect.push((i.min(j), i.max(j)));
                }
            }
            expect.sort_unstable();
            let mut pairs = vec![(9, 9)];
            keys.finish(n, &mut pairs);
            assert_eq!(pairs, expect, "n = {n}, m = {m}");
        }
    }
}
