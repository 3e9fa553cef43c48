use super::{BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, create};
use crate::debug_draw::DebugDraw;
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::Real;
use crate::parallel::Bodies;

/// Up to this many bodies brute force is the fastest structure (its tests are a few
/// nanoseconds each and it keeps no state).
const BRUTE_FORCE_MAX: usize = 256;

/// The default broad phase: picks a structure for the scene and delegates to it. Brute force
/// for small scenes; above `BRUTE_FORCE_MAX` bodies a hashed grid whose cell is twice the
/// median box size (boxes too large for the grid are paired separately by the grid itself). The
/// choice is made again when the body count changes by more than a quarter. Every structure
/// returns the same pairs, so the choice never changes the simulation, only its speed.
///
/// While few boxes differ from those the structure last indexed (a ball rolling past a pile
/// asleep), the structure is left as it is: the pairs are its pairs among the boxes that did not
/// change, and the changed boxes tested against every box ([`Moved`]). The same pairs, in the
/// same order, for a few tests per changed box instead of a pass over every body.
pub struct Auto {
    inner: Box<dyn BroadPhase>,
    cell_size: Real,
    /// The body count the current choice was made for; `usize::MAX` before the first update.
    chosen_for: usize,
    /// The boxes the structure last indexed, the pairs and counters it returned for them, and
    /// the boxes that differ from them now.
    moved: Moved,
}

impl Default for Auto {
    fn default() -> Self {
        Auto {
            inner: create(BroadPhaseKind::BruteForce),
            cell_size: 1.0,
            chosen_for: usize::MAX,
            moved: Moved::default(),
        }
    }
}

/// At most this share of the boxes (one in `MOVED_SHARE`) may differ from the indexed ones for
/// an update to leave the structure as it is: each changed box is tested against every box, a
/// few instructions a test on eight lanes, against a few hundred a body for a grid's update.
const MOVED_SHARE: usize = 16;

/// [`Auto`]'s record of the structure's last update and of the boxes that changed since.
#[derive(Default)]
struct Moved {
    /// The boxes of the structure's last update (empty: none kept).
    indexed: Vec<Aabb>,
    /// The pairs that update returned, and its counters.
    pairs: Vec<(u32, u32)>,
    stats: BroadPhaseStats,
    /// The bodies whose boxes differ from `indexed`, ascending, and a mark per body.
    list: Vec<u32>,
    mark: Vec<bool>,
    /// The changed boxes' pairs, before merging, and one changed box's overlaps.
    fresh: Vec<(u32, u32)>,
    near: Vec<u32>,
    /// Full updates to run before the next is kept: while many boxes change (a busy scene)
    /// an update is kept only now and then, to see whether the scene has come to rest.
    skip: u32,
    /// The kept update's pairs among the unchanged boxes, for the changed boxes `kept_for`
    /// (valid while `kept_valid`): while the same boxes are the changed ones (a ball rolling
    /// on), the pairs are these with the changed boxes' merged in.
    kept: Vec<(u32, u32)>,
    kept_for: Vec<u32>,
    kept_valid: bool,
    /// A working list of [`Moved::find`].
    scratch: Vec<u32>,
}

/// Full updates run unkept after a kept one that too many boxes left.
const BUSY_SKIP: u32 = 7;

impl Moved {
    /// Forgets the kept update.
    fn clear(&mut self) {
        self.indexed.clear();
        self.list.clear();
        self.mark.clear();
        self.kept_valid = false;
    }

    /// Keeps the structure's update of `aabbs`: its pairs and counters.
    fn keep(&mut self, aabbs: &[Aabb], pairs: &[(u32, u32)], stats: BroadPhaseStats) {
        self.clear();
        self.indexed.extend_from_slice(aabbs);
        self.mark.resize(aabbs.len(), false);
        self.pairs.clear();
        self.pairs.extend_from_slice(pairs);
        self.stats = stats;
    }

    /// Finds the boxes that differ from the indexed ones; false when the update cannot be
    /// kept (none kept, another body count, or more than one box in [`MOVED_SHARE`] changed).
    /// With `changed` (ascending), the caller's word that only those boxes can differ from the
    /// last call's: the boxes that differ are then among those and the ones that differed at
    /// the last call, and no other is looked at; and each box it names is taken as changed
    /// even if it is the same (so that every pair with one is a fresh pair, [`Moved::pairs`]).
    fn find(&mut self, aabbs: &[Aabb], changed: Option<&[u32]>) -> bool {
        if self.indexed.is_empty() || self.indexed.len() != aabbs.len() {
            return false;
        }
        let mut seen = std::mem::take(&mut self.scratch);
        seen.clear();
        let look = match changed {
            None => Bodies::All(aabbs.len()),
            Some(changed) => {
                merge_sorted(self.list.iter().copied(), changed.iter().copied(), &mut seen);
                // Both lists may name a box: it is looked at once.
                seen.dedup();
                Bodies::Listed(&seen)
            }
        };
        for &i in &self.list {
            self.mark[i as usize] = false;
        }
        self.list.clear();
        let limit = aabbs.len() / MOVED_SHARE;
        let mut kept = true;
        let named = |i: usize| changed.is_some_and(|c| c.binary_search(&(i as u32)).is_ok());
        for i in look.iter().filter(|&i| named(i) || !aabbs[i].same_bits(&self.indexed[i])) {
            if self.list.len() == limit {
                self.clear();
                self.skip = BUSY_SKIP;
                kept = false;
                break;
            }
            self.list.push(i as u32);
            self.mark[i] = true;
        }
        self.scratch = seen;
        kept
    }

    /// The pairs of `aabbs` (the structure's among the unchanged boxes, and every changed box's),
    /// in canonical order, into `out`; with `touching`, only those with a box it names.
    fn pairs(
        &mut self,
        inner: &dyn BroadPhase,
        aabbs: &[Aabb],
        touching: Option<&[u32]>,
        out: &mut Vec<(u32, u32)>,
    ) -> BroadPhaseStats {
        let t0 = crate::timer::Stamp::now();
        let tests = self.fresh_pairs(inner, aabbs);
        out.clear();
        match touching {
            // Every box named is a changed one (`find`): its pairs are fresh pairs.
            Some(named) => {
                out.extend_from_slice(&self.fresh);
                super::keep_touching(out, named);
            }
            // The fresh pairs (each with a changed box) go between the kept ones (with none).
            None => {
                let mut from = 0;
                for &f in self.fresh.iter() {
                    let to = from + self.kept[from..].partition_point(|&p| p < f);
                    out.extend_from_slice(&self.kept[from..to]);
                    out.push(f);
                    from = to;
                }
                out.extend_from_slice(&self.kept[from..]);
            }
        }
        BroadPhaseStats {
            candidate_pairs: tests.min(u32::MAX as u64) as u32,
            true_overlaps: (self.kept.len() + self.fresh.len()) as u32,
            aabb_tests: tests,
            swaps: 0,
            reinserted: 0,
            update_ms: 0.0,
            pairs_ms: t0.elapsed_ms(),
            ..self.stats
        }
    }

    /// The pairs with a changed box (`fresh`, in canonical order), and the kept update's pairs
    /// among the unchanged boxes (`kept`); the box tests made. Each changed box's overlaps are
    /// the structure's answer for it among the unchanged boxes, and a test against each
    /// changed box.
    fn fresh_pairs(&mut self, inner: &dyn BroadPhase, aabbs: &[Aabb]) -> u64 {
        let (list, mark) = (&self.list, &self.mark);
        let (fresh, near) = (&mut self.fresh, &mut self.near);
        fresh.clear();
        let mut tests = 0u64;
        for &m in list {
            let aabb = &aabbs[m as usize];
            near.clear();
            inner.query_aabb(aabbs, aabb, near);
            tests += (near.len() + list.len()) as u64;
            patch(list, mark, aabbs, near, 0, |b| b.overlaps(aabb));
            // A pair of two changed boxes once, from the lower index.
            let others = near.iter().filter(|&&j| j != m && !(mark[j as usize] && j < m));
            fresh.extend(others.map(|&j| (m.min(j), m.max(j))));
        }
        fresh.sort_unstable();
        if !(self.kept_valid && self.kept_for == *list) {
            self.kept.clear();
            self.kept.extend(self.pairs.iter().copied().filter(|&(a, b)| !mark[a as usize] && !mark[b as usize]));
            self.kept_for.clone_from(list);
            self.kept_valid = true;
        }
        tests
    }

    /// `out` less the changed bodies, with those of them whose box passes `hit` added.
    fn patch(&self, aabbs: &[Aabb], out: &mut Vec<u32>, start: usize, hit: impl Fn(&Aabb) -> bool) {
        patch(&self.list, &self.mark, aabbs, out, start, hit);
    }
}

/// `out[start..]` less the bodies `list` names (marked in `mark`), with those of them whose box
/// passes `hit` added.
fn patch(list: &[u32], mark: &[bool], aabbs: &[Aabb], out: &mut Vec<u32>, start: usize, hit: impl Fn(&Aabb) -> bool) {
    if list.is_empty() {
        return;
    }
    let mut k = start;
    for r in start..out.len() {
        if !mark.get(out[r] as usize).copied().unwrap_or(false) {
            out[k] = out[r];
            k += 1;
        }
    }
    out.truncate(k);
    out.extend(list.iter().copied().filter(|&m| aabbs.get(m as usize).is_some_and(&hit)));
}

/// Merges two ascending runs into `out`.
fn merge_sorted<T: PartialOrd + Copy>(a: impl Iterator<Item = T>, b: impl Iterator<Item = T>, out: &mut Vec<T>) {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if x <= y => a.next(),
            (Some(_), Some(_)) | (None, Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
}

impl Auto {
    /// The structure and grid cell size for these boxes.
    pub fn choose(aabbs: &[Aabb]) -> (BroadPhaseKind, Real) {
        if aabbs.len() <= BRUTE_FORCE_MAX {
            return (BroadPhaseKind::BruteForce, 1.0);
        }
        let mut sizes: Vec<Real> = aabbs
            .iter()
            .filter(|b| b.is_valid())
            .map(|b| b.extents().max_element())
            .filter(|s| s.is_finite())
            .collect();
        if sizes.is_empty() {
            return (BroadPhaseKind::BruteForce, 1.0);
        }
        let mid = sizes.len() / 2;
        let (_, median, _) = sizes.select_nth_unstable_by(mid, Real::total_cmp);
        let cell = 2.0 * *median;
        (BroadPhaseKind::Grid, if cell.is_finite() && cell > 1e-3 { cell } else { 1.0 })
    }

    fn rechoose(&mut self, aabbs: &[Aabb]) {
        let n = aabbs.len();
        let changed = self.chosen_for == usize::MAX || n * 4 > self.chosen_for * 5 || n * 5 < self.chosen_for * 4;
        if !changed {
            return;
        }
        let (kind, cell) = Self::choose(aabbs);
        if kind != self.inner.kind() {
            self.inner = create(kind);
        }
        self.cell_size = cell;
        self.chosen_for = n;
        self.moved.clear();
    }

    /// The pairs: from the kept update while few boxes differ from it ([`Moved::find`], told
    /// which may have `changed` if the caller knows), else from the structure's own update;
    /// with `changed`, only the pairs with a box it names.
    fn update_with(
        &mut self,
        aabbs: &[Aabb],
        params: &BroadPhaseParams,
        changed: Option<&[u32]>,
        pairs: &mut Vec<(u32, u32)>,
    ) -> BroadPhaseStats {
        self.rechoose(aabbs);
        match self.moved.find(aabbs, changed) {
            true => self.moved.pairs(self.inner.as_ref(), aabbs, changed, pairs),
            false => {
                let stats = self.full_update(aabbs, params, pairs);
                if let Some(named) = changed {
                    super::keep_touching(pairs, named);
                }
                stats
            }
        }
    }

    /// The structure's own update, kept (unless the scene is busy) for the next.
    fn full_update(
        &mut self,
        aabbs: &[Aabb],
        _params: &BroadPhaseParams,
        pairs: &mut Vec<(u32, u32)>,
    ) -> BroadPhaseStats {
        let stats = self.inner.update(aabbs, &BroadPhaseParams { grid_cell_size: self.cell_size }, pairs);
        match self.moved.skip {
            0 => self.moved.keep(aabbs, pairs, stats),
            _ => self.moved.skip -= 1,
        }
        stats
    }
}

impl BroadPhase for Auto {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::Auto
    }

    fn resolved(&self) -> BroadPhaseKind {
        self.inner.kind()
    }

    fn update(&mut self, aabbs: &[Aabb], params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        self.update_with(aabbs, params, None, pairs)
    }

    fn update_touching(
        &mut self,
        aabbs: &[Aabb],
        params: &BroadPhaseParams,
        changed: &[u32],
        pairs: &mut Vec<(u32, u32)>,
    ) -> BroadPhaseStats {
        self.update_with(aabbs, params, Some(changed), pairs)
    }

    /// The structure's answer for the boxes it indexed, with the changed boxes tested directly.
    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        let start = out.len();
        self.inner.query_aabb(aabbs, aabb, out);
        self.moved.patch(aabbs, out, start, |b| b.overlaps(aabb));
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        let start = out.len();
        self.inner.query_ray(aabbs, ray, max_t, out);
        self.moved.patch(aabbs, out, start, |b| b.ray_interval(ray.origin, ray.dir, max_t).is_some());
    }

    /// The structure's invariants, against the boxes it indexed.
    fn validate(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        match self.moved.list.is_empty() {
            true => self.inner.validate(aabbs),
            false => self.inner.validate(&self.moved.indexed),
        }
    }

    /// The structure as it was last indexed (the changed boxes where they were then).
    fn debug_draw_with(&self, aabbs: &[Aabb], options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        match self.moved.list.is_empty() {
            true => self.inner.debug_draw_with(aabbs, options, draw),
            false => self.inner.debug_draw_with(&self.moved.indexed, options, draw),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadphase::BruteForce;
    use crate::math::Vec3;
    use crate::rng::SplitMix64;

    fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let c = rng.vec3(-20.0, 20.0);
                Aabb::new(c - Vec3::splat(0.3), c + Vec3::splat(rng.range(0.1, 0.6)))
            })
            .collect()
    }

    #[test]
    fn small_scenes_use_brute_force_and_large_ones_a_grid_sized_to_the_bodies() {
        assert_eq!(Auto::choose(&boxes(100, 1)).0, BroadPhaseKind::BruteForce);
        let (kind, cell) = Auto::choose(&boxes(5000, 1));
        assert_eq!(kind, BroadPhaseKind::Grid);
        assert!((0.8..2.0).contains(&cell), "cell {cell}");
    }

    #[test]
    fn pairs_and_queries_with_few_boxes_moved_are_a_full_updates() {
        // A few boxes move in each update (the rest stay, bit for bit), now and then many: the
        // pairs are brute force's (those with a listed box, when only those are asked for), and
        // the queries the full scan's, whichever path ran, with or without the list of the
        // boxes that may have changed.
        let params = BroadPhaseParams { grid_cell_size: 1.0 };
        let mut rng = SplitMix64::new(7);
        for n in [40, 600] {
            let mut b = boxes(n, n as u64);
            let mut auto = Auto::default();
            for update in 0..60 {
                let moving = if update % 13 == 5 { n / 4 } else { (update % 4) as usize };
                // The boxes the caller says may have changed: those moved, and others that did not.
                let mut changed = Vec::new();
                for _ in 0..moving {
                    let i = (rng.next_u64() % n as u64) as usize;
                    let c = rng.vec3(-20.0, 20.0);
                    b[i] = Aabb::new(c - Vec3::splat(0.3), c + Vec3::splat(rng.range(0.1, 2.0)));
                    changed.push(i as u32);
                }
                changed.extend((0..update % 3).map(|_| (rng.next_u64() % n as u64) as u32));
                changed.sort_unstable();
                changed.dedup();
                let (mut got, mut want) = (vec![(9, 9)], Vec::new());
                // Told which boxes changed, and asked for the pairs with a changed box alone, in
                // three updates of four.
                let told = update % 4 != 0;
                let stats = match told {
                    false => auto.update(&b, &params, &mut got),
                    true => auto.update_touching(&b, &params, &changed, &mut got),
                };
                BruteForce::default().update(&b, &params, &mut want);
                assert_eq!(stats.true_overlaps as usize, want.len(), "{n} bodies, update {update}");
                if told {
                    want.retain(|(i, j)| changed.contains(i) || changed.contains(j));
                }
                assert_eq!(got, want, "{n} bodies, update {update}, {moving} moved");
                assert!(auto.validate(&b).is_ok());
                for _ in 0..5 {
                    let c = rng.vec3(-20.0, 20.0);
                    let q = Aabb::new(c - Vec3::splat(1.5), c + Vec3::splat(1.5));
                    let (mut got, mut want) = (vec![u32::MAX], vec![u32::MAX]);
                    auto.query_aabb(&b, &q, &mut got);
                    crate::broadphase::scan_aabb(&b, &q, &mut want);
                    got[1..].sort_unstable();
                    assert_eq!(got, want, "{n} bodies, update {update}: query {q:?}");
                    let ray = Ray::new(c, rng.vec3(-1.0, 1.0));
                    let (mut got, mut want) = (Vec::new(), Vec::new());
                    auto.query_ray(&b, &ray, 10.0, &mut got);
                    crate::broadphase::scan_ray(&b, &ray, 10.0, &mut want);
                    got.sort_unstable();
                    assert_eq!(got, want, "{n} bodies, update {update}: ray {ray:?}");
                }
            }
        }
    }

    #[test]
    fn auto_gives_brute_force_pairs_as_the_scene_grows() {
        let params = BroadPhaseParams { grid_cell_size: 1.0 };
        let mut auto = Auto::default();
        for n in [10, 300, 2000, 50] {
            let b = boxes(n, n as u64);
            let (mut got, mut want) = (Vec::new(), Vec::new());
            auto.update(&b, &params, &mut got);
            BruteForce::default().update(&b, &params, &mut want);
            assert_eq!(got, want, "{n} bodies, {:?}", auto.resolved());
        }
    }
}
