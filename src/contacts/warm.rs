//! Each contact's entry in last step's warm-start cache, found before the solver runs.

use super::{ContactStore, seek};
use crate::dynamics::solver::{Contact, WarmCache};
use crate::parallel::{self, Crew};

/// Fewest contacts a block walks (each walk starts with a binary search).
const RUN: usize = 1024;

impl ContactStore {
    /// Finds each contact's entry in last step's warm-start cache (none without warm
    /// starting): both are sorted by pair, so one walk per block of contacts, each starting
    /// where a binary search puts it (the same entries on any thread count).
    pub(super) fn match_warm(&mut self, warm_starting: bool, crew: Option<&Crew>) {
        let n = self.contacts.len();
        self.matched.resize(n, u32::MAX);
        if !warm_starting {
            self.matched.fill(u32::MAX);
            return;
        }
        let (contacts, cache) = (&self.contacts[..], &self.warm);
        parallel::fill(crew, &mut self.matched[..], RUN, |r, out| matching(contacts, cache, r.start, out));
    }
}

/// Fills `out` with the cache entries of contacts `start..start + out.len()`. A pair with several
/// manifolds (a mesh pair across a crease) has them side by side in both lists: the n-th of
/// them takes the pair's n-th entry, if it has one.
pub(crate) fn matching(contacts: &[Contact], cache: &WarmCache, start: usize, out: &mut [u32]) {
    let run = &contacts[start..start + out.len()];
    let Some(first) = run.first() else { return };
    let mut cursor = cache.partition_point(|e| e.0 < (first.a, first.b));
    let same = |c: &Contact, d: &Contact| (c.a, c.b) == (d.a, d.b);
    let mut nth = contacts[..start].iter().rev().take_while(|c| same(c, first)).count();
    for (k, (w, c)) in out.iter_mut().zip(run).enumerate() {
        nth = if k > 0 && same(c, &run[k - 1]) {
            nth + 1
        } else if k > 0 {
            0
        } else {
            nth
        };
        *w = seek(cache, &mut cursor, (c.a, c.b), |e| e.0)
            .map(|e| e + nth)
            .filter(|&e| cache.get(e).is_some_and(|e| e.0 == (c.a, c.b)))
            .map_or(u32::MAX, |e| e as u32);
    }
}
