//! The one owner of what a pair of bodies keeps from one step to the next (after rapier's
//! `NarrowPhase`, Box2D v3's `b2ContactSim` and Jolt's `ContactConstraintManager`): the
//! body-pair cache (`pair_cache`), the step's contacts, the warm-start impulses and kept
//! contacts the solver reads and writes ([`WarmCache`]), and what each body's pairs' tests
//! depend on. Pairs are looked up one way ([`seek`]: both lists are sorted by pair, as the
//! contacts are) and forgotten one way, by the reason: a body edited
//! ([`ContactStore::forget_body`]), settings changed ([`ContactStore::forget_pairs`]), bodies
//! frozen ([`ContactStore::forget_impulses_of`]), the world still ([`ContactStore::still`]).
//! One kernel, `narrow::PairTest::process_pair`, tests a pair on whichever thread runs it.

mod narrow;
mod pair_cache;
mod warm;

pub use narrow::NarrowInput;
pub use pair_cache::{CachedPoint, PAIR_CACHE_MAX_TURN, PairEntry};
#[cfg(test)]
pub(crate) use warm::matching;

use crate::dynamics::solver::{CachedImpulse, Contact, StepContext, WarmCache};
use crate::dynamics::{Body, BodyKind};
use crate::math::Real;
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::parallel::Crew;

/// The index of `pair`'s entry in `entries` (sorted by pair, each entry's pair given by `key`),
/// walking on from `*cursor`, which it leaves there: lists walked in pair order are searched in
/// one pass.
#[inline(always)]
pub(crate) fn seek<T>(
    entries: &[T],
    cursor: &mut usize,
    pair: (u32, u32),
    key: impl Fn(&T) -> (u32, u32),
) -> Option<usize> {
    while *cursor < entries.len() && key(&entries[*cursor]) < pair {
        *cursor += 1;
    }
    entries.get(*cursor).filter(|e| key(e) == pair).map(|_| *cursor)
}

/// Every pair's state between steps, and the step's contacts.
#[derive(Debug, Default)]
pub struct ContactStore {
    /// The contacts found in the last step, in pair order.
    contacts: Vec<Contact>,
    /// Per contact: its manifold's point count, written as the contacts are (a pass that only
    /// counts points, as the viewer's shared contact-point pass does, reads these instead of
    /// a line of every contact).
    point_counts: Vec<u8>,
    /// Per candidate pair of the last step, sorted: its last narrow-phase result and the
    /// relative pose it was made at (the body-pair cache).
    pair_cache: Vec<PairEntry>,
    /// This step's entries, one per pair, swapped with `pair_cache` after the narrow phase.
    pair_cache_next: Vec<PairEntry>,
    /// Last step's impulses per pair and each pair's kept contact, which the solver replaces.
    warm: WarmCache,
    /// Per contact: its entry in `warm` (`u32::MAX`: none), found before the solver runs.
    matched: Vec<u32>,
    /// The contacts of each run of pairs that a block tests.
    runs: Vec<narrow::Run>,
    /// Per body, made at the start of the narrow phase: what its pairs' tests depend on.
    pair_info: Vec<pair_cache::BodyInfo>,
    /// Per body: how far what it meets can set it moving this step (`ccd::Pushed`).
    pushed: Vec<crate::ccd::Pushed>,
    /// Per body: its turn times its reach this step, m (`ccd::spin_reach`), for the pushes
    /// and the pairs' margins.
    spin: Vec<Real>,
    /// The working list of `ccd::pushed_reach`: per body, its group's union-find parent.
    push_groups: Vec<u32>,
    /// The contacts of the islands asleep, as the step they fell asleep found them: a pair
    /// with no body awake is not tested, so [`ContactStore::contacts`] leaves them out, while a
    /// resting stack still stands on them (drawn; and solved in the step the island wakes in,
    /// [`ContactStore::wake_resting`]).
    resting: Vec<Contact>,
}

/// A copy keeps the contacts, the body-pair cache and the warm-start cache; the buffers of a
/// step start empty.
impl Clone for ContactStore {
    fn clone(&self) -> Self {
        ContactStore {
            contacts: self.contacts.clone(),
            point_counts: self.point_counts.clone(),
            pair_cache: self.pair_cache.clone(),
            warm: self.warm.clone(),
            resting: self.resting.clone(),
            ..ContactStore::default()
        }
    }
}

impl ContactStore {
    /// The contacts found in the last step, sorted by pair.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Per contact of [`ContactStore::contacts`], its manifold's point count.
    pub fn point_counts(&self) -> &[u8] {
        &self.point_counts
    }

    /// The impulses the solver applied at contact `k` of [`ContactStore::contacts`] in the last
    /// substep of the last step, one per manifold point in the manifold's order. `None` for a
    /// contact the solver kept no impulses for.
    pub fn impulses(&self, k: usize) -> Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]> {
        let c = self.contacts.get(k)?;
        let pair = (c.a, c.b);
        let entry = self.warm.get(k).filter(|e| e.0 == pair);
        entry.or_else(|| self.warm.iter().find(|e| e.0 == pair)).map(|e| &e.1)
    }

    /// The contacts of the islands asleep, as they were when each fell asleep ([`Self::contacts`]
    /// holds the pairs with a body awake). For drawing what a resting pile stands on.
    pub fn resting(&self) -> &[Contact] {
        &self.resting
    }

    /// An island woke in the step, after the narrow phase (which tests no pair whose bodies
    /// all rest): its resting contacts between the bodies `woken` (ascending) and the static
    /// bodies join the step's, as they were when it fell asleep (its bodies have not moved
    /// since), so that the solver holds the island up in the step it wakes in, as Box2D v3
    /// moves a woken island's contact constraints into the awake set. Without them a body
    /// asleep on the floor, struck by a falling one, was driven 11 cm into the floor in that
    /// step (`broadphase_uniform_rain.ron`, body 845 at step 76). They start without
    /// warm-start impulses. Whether any joined.
    pub fn wake_resting(&mut self, bodies: &[Body], woken: &[u32]) -> bool {
        let is_woken = |i: u32| woken.binary_search(&i).is_ok();
        let joins = |i: u32| is_woken(i) || bodies.get(i as usize).is_some_and(|b| b.kind == BodyKind::Static);
        let contacts = &self.contacts;
        let untested = |c: &Contact| contacts.binary_search_by_key(&(c.a, c.b), |t| (t.a, t.b)).is_err();
        let mut new: Vec<Contact> = (self.resting.iter())
            .filter(|c| (is_woken(c.a) || is_woken(c.b)) && joins(c.a) && joins(c.b) && untested(c))
            .copied()
            .collect();
        if new.is_empty() {
            return false;
        }
        // Stable: a pair's manifolds (a mesh pair across a crease) keep their order.
        new.sort_by_key(|c| (c.a, c.b));
        let old = std::mem::take(&mut self.contacts);
        let old_counts = std::mem::take(&mut self.point_counts);
        self.contacts.reserve(old.len() + new.len());
        self.point_counts.reserve(old.len() + new.len());
        let mut old = old.into_iter().zip(old_counts).peekable();
        for c in new {
            while let Some((o, n)) = old.next_if(|(o, _)| (o.a, o.b) < (c.a, c.b)) {
                self.contacts.push(o);
                self.point_counts.push(n);
            }
            self.contacts.push(c);
            self.point_counts.push(c.manifold.len() as u8);
        }
        for (o, n) in old {
            self.contacts.push(o);
            self.point_counts.push(n);
        }
        true
    }

    /// After the step's sleep update: forgets the resting contacts of islands woken, and keeps
    /// this step's contacts between bodies now all asleep (or static), when `fell` (a body fell
    /// asleep this step).
    pub fn keep_resting(&mut self, bodies: &[Body], fell: bool) {
        let rests = |i: u32| {
            let b = &bodies[i as usize];
            b.kind == BodyKind::Static || b.is_asleep()
        };
        let known = |c: &Contact| (c.a as usize) < bodies.len() && (c.b as usize) < bodies.len();
        let asleep = |c: &Contact| known(c) && rests(c.a) && rests(c.b);
        self.resting.retain(asleep);
        if fell {
            let new = self.contacts.iter().filter(|c| asleep(c)).copied();
            self.resting.extend(new);
        }
    }

    /// The warm-start cache: last step's impulses and kept contacts.
    pub fn warm_cache(&self) -> &WarmCache {
        &self.warm
    }

    /// The body-pair cache, sorted by pair.
    pub fn pair_cache(&self) -> &[PairEntry] {
        &self.pair_cache
    }

    /// Replaces both caches (a snapshot restored; each must be sorted by pair) and drops the
    /// contacts, which the next step finds.
    pub fn restore(&mut self, warm: WarmCache, pair_cache: Vec<PairEntry>) {
        self.contacts.clear();
        self.point_counts.clear();
        self.resting.clear();
        self.warm = warm;
        self.pair_cache = pair_cache;
    }

    /// What the solver solves and updates: the contacts, last step's warm-start cache (which it
    /// replaces) and each contact's entry in it, found here (none without warm starting).
    pub fn for_solver(&mut self, ctx: &StepContext, crew: Option<&Crew>) -> (&[Contact], &mut WarmCache, &[u32]) {
        self.match_warm(ctx.warm_starting(), crew);
        (&self.contacts, &mut self.warm, &self.matched)
    }

    /// A body was edited (moved, reshaped): its pairs are tested afresh.
    pub fn forget_body(&mut self, body: u32) {
        self.pair_cache.retain(|e| e.pair.0 != body && e.pair.1 != body);
    }

    /// The settings changed (margins, methods): every pair is tested afresh.
    pub fn forget_pairs(&mut self) {
        self.pair_cache.clear();
    }

    /// `bodies` were frozen with a non-finite state: the impulses of their pairs came from it
    /// and would carry it into their neighbours at the next step.
    pub fn forget_impulses_of(&mut self, bodies: &[u32]) {
        if !bodies.is_empty() {
            self.warm.retain(|(a, b)| !bodies.contains(&a) && !bodies.contains(&b));
        }
    }

    /// Nothing could move in the step and there are no contacts: the solver does not run, and
    /// the impulses it would have dropped are dropped.
    pub fn still(&mut self) {
        self.warm.clear();
    }
}
