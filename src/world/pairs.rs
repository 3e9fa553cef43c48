//! Sorting the broad phase's pairs into one canonical order, whichever structure found them.
//!
//! A counting sort on the first body followed by an insertion sort of each (short) run on the
//! second gives exactly `sort_unstable`'s order in linear time: a sort of 15,000 pairs cost
//! about as much as the large pyramid's whole integration.

/// Buffers kept between steps so that sorting allocates nothing once the scene's size is reached.
#[derive(Clone, Debug, Default)]
pub(super) struct PairSorter {
    /// Per first body: where its run starts in the output (then, while filling, the next slot).
    starts: Vec<u32>,
    out: Vec<(u32, u32)>,
}

impl PairSorter {
    /// Sorts `pairs` (every index below `bodies`) lexicographically.
    pub fn sort(&mut self, pairs: &mut Vec<(u32, u32)>, bodies: usize) {
        if pairs.len() < 64 || pairs.iter().any(|&(a, b)| a as usize >= bodies || b as usize >= bodies) {
            pairs.sort_unstable();
            return;
        }
        self.starts.clear();
        self.starts.resize(bodies + 1, 0);
        for &(a, _) in pairs.iter() {
            self.starts[a as usize + 1] += 1;
        }
        for i in 1..self.starts.len() {
            self.starts[i] += self.starts[i - 1];
        }
        self.out.clear();
        self.out.resize(pairs.len(), (0, 0));
        for &p in pairs.iter() {
            let slot = &mut self.starts[p.0 as usize];
            self.out[*slot as usize] = p;
            *slot += 1;
        }
        // `starts[a]` is now the end of a's run, which is where the next run begins.
        let mut begin = 0;
        for a in 0..bodies {
            let end = self.starts[a] as usize;
            insertion_sort(&mut self.out[begin..end]);
            begin = end;
        }
        std::mem::swap(pairs, &mut self.out);
    }
}

/// Sorts a short run of pairs sharing their first body.
fn insertion_sort(run: &mut [(u32, u32)]) {
    for i in 1..run.len() {
        let p = run[i];
        let mut j = i;
        while j > 0 && run[j - 1] > p {
            run[j] = run[j - 1];
            j -= 1;
        }
        run[j] = p;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Same order as the standard sort, duplicates and all, on the same buffers reused.
        #[test]
        fn matches_sort_unstable(
            bodies in 1usize..200,
            raw in proptest::collection::vec((0u32..1000, 0u32..1000), 0..600),
        ) {
            let n = bodies as u32;
            let mut pairs: Vec<(u32, u32)> = raw.iter().map(|&(a, b)| (a % n, b % n)).collect();
            let mut expected = pairs.clone();
            expected.sort_unstable();
            let mut sorter = PairSorter::default();
            sorter.sort(&mut pairs, bodies);
            prop_assert_eq!(&pairs, &expected);
            pairs.reverse();
            sorter.sort(&mut pairs, bodies);
            prop_assert_eq!(&pairs, &expected);
        }
    }

    #[test]
    fn out_of_range_indices_still_sort() {
        let mut pairs: Vec<(u32, u32)> = (0..100).map(|i| (100 - i, i * 7 % 13)).collect();
        let mut expected = pairs.clone();
        expected.sort_unstable();
        PairSorter::default().sort(&mut pairs, 10);
        assert_eq!(pairs, expected);
    }
}
