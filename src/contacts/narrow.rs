//! The narrow phase over a step's candidate pairs: one kernel ([`PairTest::process_pair`])
//! answers a pair from its body-pair cache entry or tests it afresh; runs of pairs are tested
//! on whichever thread takes them and their contacts laid side by side in pair order.

use super::pair_cache::{self, BodyInfo, Make, PairEntry, Rebuild};
use super::{ContactStore, seek};
use crate::ccd;
use crate::dynamics::solver::Contact;
use crate::dynamics::{Body, BodyKind, Rotations};
use crate::math::Real;
use crate::narrowphase::{self, Manifold, Tolerance};
use crate::parallel::{self, Bodies, Crew};
use crate::settings::Settings;
use std::sync::atomic::{AtomicU32, Ordering};

/// What a step's narrow phase reads.
#[derive(Clone, Copy)]
pub struct NarrowInput<'a> {
    /// The bodies.
    pub bodies: &'a [Body],
    /// Per body: its contacts reach as far as it can move this step (speculative CCD).
    pub reach: &'a [bool],
    /// Per body: the time-of-impact pass sweeps it this step (`ccd::needs_ccd`: with `Toi`
    /// only).
    pub swept: &'a [bool],
    /// The candidate pairs, sorted.
    pub pairs: &'a [(u32, u32)],
    /// The cuboids' rotation matrices, where built.
    pub rotations: &'a Rotations,
    /// The settings of the step.
    pub settings: &'a Settings,
    /// The bodies whose records the pairs read: all, or the bodies of the pairs (ascending)
    /// when there are few pairs among many bodies (a ball rolling past a pile asleep).
    pub which: Bodies<'a>,
}

/// One step's pair test: everything [`PairTest::process_pair`] reads besides the pair.
struct PairTest<'a> {
    bodies: &'a [Body],
    info: &'a [BodyInfo],
    pushed: &'a [ccd::Pushed],
    rotations: &'a Rotations,
    settings: &'a Settings,
    tol: Tolerance,
    /// Pairs may reuse their cache entry (with warm starting, a positive distance).
    caching: bool,
}

impl PairTest<'_> {
    /// One pair's contacts (pushed to `out`: a mesh pair may have several manifolds) and its
    /// body-pair cache entry (written to `entry`), from the pair and its last entry alone:
    /// pairs can be tested in any order, on any thread, and the contacts kept in pair order.
    /// Whether the cache answered: the caller then rebuilds the entry's manifold. A tested
    /// pair's new entry is queued in `make` for slot `slot`, made eight at a time.
    #[inline(always)]
    fn process_pair(
        &self,
        (a, b): (u32, u32),
        old: Option<&PairEntry>,
        (slot, entry): (usize, &mut PairEntry),
        make: &mut Make,
        out: &mut Vec<Contact>,
    ) -> bool {
        let (settings, dt) = (self.settings, self.settings.dt);
        let (ia, ib) = (&self.info[a as usize], &self.info[b as usize]);
        let kinds = ia.kinds | ib.kinds;
        let mesh = kinds & pair_cache::MESH != 0;
        let compound = kinds & pair_cache::COMPOUND != 0;
        let (ba, bb) = (&self.bodies[a as usize], &self.bodies[b as usize]);
        // Either body's own reach, or a push from a body with reach; and then only where the
        // pair can close farther in the step than the plain margin covers: bodies that move
        // together (a sagging stack, bodies falling side by side) are a slow pair.
        let flagged = kinds & pair_cache::REACH != 0;
        // A pair with a body the time-of-impact pass sweeps, which already touches at the start
        // of the step: the pass leaves it to the contacts (`ccd::time_of_impact`), so its rows
        // reach as a pair with reach does (a hull its impact leaves spinning turns its corners
        // into the floor it touches). One that does not touch yet is the pass's.
        let swept = kinds & pair_cache::SWEPT != 0;
        let with_static = ba.kind == BodyKind::Static || bb.kind == BodyKind::Static;
        let (pa, pb) = (&self.pushed[a as usize], &self.pushed[b as usize]);
        let pushed = if flagged { ccd::Pushed::of_pair(pa, pb, with_static) } else { 0.0 };
        let motion = ccd::PairMotion { dt, spin: ia.spin + ib.spin, pushed };
        let closing = if flagged || swept { ccd::pair_reach(ba, bb, motion) } else { 0.0 };
        let outruns = (flagged || swept) && ccd::outruns_margin(closing, settings);
        let reach = flagged && outruns;
        let reach_if_touching = swept && outruns && !reach;
        // Pairs with reach (whose margin changes with their speed) are tested every step; others
        // (compound pairs too) reuse their last result while the body that is not a mesh stays
        // near where it was relative to the other. Only with warm starting, where the solver
        // keeps contacts (contact recycling) and the narrow phase's manifold mostly checks them:
        // without it, every step's rows come straight from the narrow phase.
        let cached = !reach && !reach_if_touching && self.caching;
        let distance = settings.pair_cache_distance;
        let holds = |e: &PairEntry| match ib.kinds & pair_cache::MESH != 0 {
            false => e.holds(&ba.pose, &bb.pose, ib.radius, distance),
            true => e.holds_for_a(&ba.pose, &bb.pose, ia.radius, distance),
        };
        if let Some(e) = old.filter(|e| cached && holds(e)) {
            // Its manifold is rebuilt by the caller, eight entries at a time.
            *entry = *e;
            return true;
        }
        let mut tol = self.tol;
        if reach {
            // Reach as far as the pair can close in this step.
            tol.margin += closing;
        }
        // The pair's manifolds: a mesh or compound pair's, one per direction its triangles or
        // child contacts push; one at most for any other, a convex pair's straight from the
        // narrow phase.
        let (method, edges) = (settings.narrow_phase, settings.internal_edges);
        let manifolds = |tol| {
            narrowphase::contact_manifolds_with_edges(&ba.shape, &ba.pose, &bb.shape, &bb.pose, tol, method, edges)
        };
        let (mut all, one);
        let (mut first, mut more): (Option<&Manifold>, &[Manifold]) = if compound || mesh {
            all = manifolds(tol);
            (all.first(), all.as_slice())
        } else {
            let rotations = || (self.rotations.get(a as usize, ba), self.rotations.get(b as usize, bb));
            one = if bounds_apart(ba, bb, (ia.radius, ib.radius), tol) {
                None
            } else {
                narrowphase::contact_with_rotations(&ba.shape, &ba.pose, &bb.shape, &bb.pose, rotations, tol, method)
            };
            (one.as_ref(), &[])
        };
        let touches =
            reach_if_touching && first.into_iter().chain(more).any(|m| m.max_depth() >= -ccd::toi_target(settings));
        if touches {
            tol.margin += closing;
            // A mesh's or compound's manifolds hold the triangles or children within the margin:
            // taken again at the pair's reach. A convex pair's speculative points are rebuilt
            // from its manifold below.
            if compound || mesh {
                all = manifolds(tol);
                (first, more) = (all.first(), all.as_slice());
            }
        }
        let m = first.filter(|m| !m.is_empty());
        let rest = more.get(1..).unwrap_or_default();
        // Every leading corner gets its own speculative point.
        let to_contact = |m: &Manifold| Contact {
            a,
            b,
            manifold: if reach || touches {
                ccd::speculative_contact(m, ba, bb, motion, tol.margin, settings.slop)
            } else {
                *m
            },
        };
        // The cache keeps one manifold: a mesh or compound pair with more is tested every step.
        // Its entry is made with the batch's others.
        if cached && rest.is_empty() {
            make.push(slot, (a, b), &ba.pose, &bb.pose, m);
        } else {
            *entry = PairEntry::invalid((a, b));
        }
        out.extend(m.map(to_contact));
        out.extend(rest.iter().map(to_contact));
        false
    }

    /// The contacts of a run of pairs (into `out`), with their cache entries written to
    /// `entries`, from last step's entries `old`: how many the cache answered.
    fn run(&self, old: &[PairEntry], pairs: &[(u32, u32)], entries: &mut [PairEntry], out: &mut Run) -> u32 {
        let Run { contacts: out, point_counts: counts } = out;
        let Some(first) = pairs.first() else { return 0 };
        let mut cursor = old.partition_point(|e| e.pair < *first);
        let mut hits = 0;
        let mut rebuild = Rebuild::default();
        let mut make = Make::default();
        for (k, pair) in pairs.iter().enumerate() {
            // B jumps through the bodies: ask for the pose and shape of the B a few pairs on.
            if let Some(&(_, b)) = pairs.get(k + 4) {
                let body = &self.bodies[b as usize];
                crate::simd::prefetch(&body.pose);
                crate::simd::prefetch(&body.shape);
            }
            let last = seek(old, &mut cursor, *pair, |e| e.pair).map(|i| &old[i]);
            let before = out.len();
            let hit = self.process_pair(*pair, last, (k, &mut entries[k]), &mut make, out);
            // The contacts just written, still in the nearest cache.
            counts.extend(out[before..].iter().map(|c| c.manifold.len() as u8));
            hits += hit as u32;
            if hit && entries[k].len > 0 {
                let (a, b) = (&self.bodies[pair.0 as usize].pose, &self.bodies[pair.1 as usize].pose);
                // Rebuilt with the entry's points below.
                out.push(Contact { a: pair.0, b: pair.1, manifold: Manifold::default() });
                counts.push(entries[k].len);
                if rebuild.push(out.len() - 1, &entries[k], a, b) {
                    rebuild.finish(out, |c| &mut c.manifold);
                }
            }
            if make.is_full() {
                make.finish(entries);
            }
        }
        rebuild.finish(out, |c| &mut c.manifold);
        make.finish(entries);
        hits
    }
}

/// Whether two convex bodies' bounding spheres (`radii`, about their centres of mass) are
/// farther apart than the contact margin, with room to spare for the shape tests' tolerance
/// (`epsilon`, on squared distances) and rounding: then no shape test would find a contact,
/// and none is run.
fn bounds_apart(a: &Body, b: &Body, radii: (Real, Real), tol: Tolerance) -> bool {
    let reach = radii.0 + radii.1 + tol.margin;
    let slack = tol.epsilon.sqrt() + BOUNDS_SLACK * (1.0 + reach);
    a.pose.translation.distance_squared(b.pose.translation) > (reach + slack) * (reach + slack)
}

/// Runs of pairs per thread when the narrow phase is shared. Pairs differ in cost (a cached
/// pair is a rebuild, a fresh one a shape test), so runs of equal length do not take equal
/// time; many runs, handed out one at a time, let the threads finish together (`rain_100k` on
/// 2 threads: the narrow phase 44–45 ms with 4 runs per thread, 39–40 with 16 or 32).
const RUNS_PER_THREAD: usize = 16;

/// The relative room [`bounds_apart`] leaves for rounding in the shape tests.
const BOUNDS_SLACK: Real = 1e-3;

/// One run's contacts and their point counts (`ContactStore::point_counts`), kept from step to
/// step.
#[derive(Debug, Default)]
pub(super) struct Run {
    contacts: Vec<Contact>,
    point_counts: Vec<u8>,
}

impl ContactStore {
    /// The contact manifold of every candidate pair (with speculative points for pairs that
    /// close fast), in pair order whichever thread tested each, and the pairs' new cache
    /// entries; with a crew, runs of pairs are shared among its threads. How many pairs the
    /// body-pair cache answered.
    pub fn find(&mut self, input: NarrowInput<'_>, crew: Option<&Crew>) -> u32 {
        let NarrowInput { bodies, reach, swept, pairs, rotations, settings, which } = input;
        if pairs.is_empty() {
            // No contact, and no cache entry for the next step: what testing no pair leaves.
            self.contacts.clear();
            self.point_counts.clear();
            self.pair_cache.clear();
            return 0;
        }
        // Each body's turn once a step, for the bodies `which` names (no other body's record is
        // read).
        self.spin.resize(bodies.len(), 0.0);
        which.fill(crew, &mut self.spin, |k| ccd::spin_reach(&bodies[k], settings.dt));
        ccd::pushed_reach(bodies, which, reach, &self.spin, pairs, settings, (&mut self.pushed, &mut self.push_groups));
        self.pair_info.resize(bodies.len(), BodyInfo::default());
        let (pushed, spin) = (&self.pushed, &self.spin);
        which.fill(crew, &mut self.pair_info, |k| {
            BodyInfo::new(&bodies[k], (reach[k], swept[k]), pushed[k].by_any, spin[k])
        });
        let test = PairTest {
            bodies,
            info: &self.pair_info,
            pushed: &self.pushed,
            rotations,
            settings,
            tol: Tolerance { margin: settings.speculative_distance, epsilon: settings.contact_epsilon },
            caching: settings.pair_cache_distance > 0.0 && settings.warm_starting,
        };
        // Runs of pairs, each tested into its own buffer (kept from step to step): one run on
        // one thread, [`RUNS_PER_THREAD`] per thread on more, taken one at a time.
        let threads = parallel::threads(crew);
        let run =
            if threads == 1 { pairs.len().max(1) } else { pairs.len().div_ceil(RUNS_PER_THREAD * threads).max(64) };
        let runs = pairs.len().div_ceil(run);
        self.runs.resize_with(runs.max(self.runs.len()), Run::default);
        self.pair_cache_next.resize(pairs.len(), PairEntry::invalid((0, 0)));
        let (old, hits) = (&self.pair_cache, AtomicU32::new(0));
        let test_run = |pairs: &[(u32, u32)], entries: &mut [PairEntry], out: &mut Run| {
            out.contacts.clear();
            out.point_counts.clear();
            hits.fetch_add(test.run(old, pairs, entries, out), Ordering::Relaxed);
        };
        if runs == 1 {
            // One run: tested here, as the one block below would be, without the list of parts.
            test_run(pairs, &mut self.pair_cache_next, &mut self.runs[0]);
        } else {
            let mut entries: Vec<&mut [PairEntry]> = self.pair_cache_next.chunks_mut(run).collect();
            parallel::fill_each(crew, (&mut self.runs[..runs], &mut entries[..]), |k, (out, entries)| {
                test_run(&pairs[k * run..((k + 1) * run).min(pairs.len())], entries[0], &mut out[0]);
            });
        }
        self.gather(runs, crew);
        std::mem::swap(&mut self.pair_cache, &mut self.pair_cache_next);
        hits.into_inner()
    }

    /// The contacts of the first `runs` runs, side by side in run order (which is pair order).
    fn gather(&mut self, runs: usize, crew: Option<&Crew>) {
        debug_assert!(
            self.runs[..runs].iter().all(|r| r
                .contacts
                .iter()
                .map(|c| c.manifold.len() as u8)
                .eq(r.point_counts.iter().copied())),
            "each contact's point count is its manifold's"
        );
        if runs == 1 {
            let run = &mut self.runs[0];
            std::mem::swap(&mut self.contacts, &mut run.contacts);
            std::mem::swap(&mut self.point_counts, &mut run.point_counts);
            return;
        }
        let found = &self.runs[..runs];
        self.point_counts.clear();
        for f in found {
            self.point_counts.extend_from_slice(&f.point_counts);
        }
        let total = found.iter().map(|f| f.contacts.len()).sum();
        // Every contact is copied over below: only what the list gains is filled first (the
        // whole list, filled on this thread, cost as much as the copy on all of them).
        self.contacts.resize(total, Contact { a: 0, b: 0, manifold: Manifold::default() });
        let mut places = Vec::with_capacity(runs);
        let mut rest = &mut self.contacts[..];
        for f in found {
            let (place, after) = rest.split_at_mut(f.contacts.len());
            places.push(place);
            rest = after;
        }
        parallel::fill(crew, &mut places[..], 1, |r, places| {
            for (place, k) in places.iter_mut().zip(r) {
                place.copy_from_slice(&found[k].contacts);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::Material;
    use crate::geometry::{ConvexHull, Shape};
    use crate::math::{Pose, Quat, Vec3};
    use crate::narrowphase::NarrowPhaseKind;

    /// A sphere, a box, a capsule or an irregular hull of about `size`.
    fn shape(kind: u8, size: Real) -> Shape {
        match kind % 4 {
            0 => Shape::sphere(size),
            1 => Shape::cuboid(Vec3::new(size, 0.4 * size, 0.7 * size)),
            2 => Shape::capsule(size, 0.3 * size),
            _ => {
                let points = [(1.0, 0.0, 0.0), (-0.9, 0.1, 0.3), (0.0, 1.0, 0.0), (0.1, -0.8, 0.1), (0.0, 0.0, 0.9)];
                let points: Vec<Vec3> = points.iter().map(|&(x, y, z)| Vec3::new(x, y, z) * size).collect();
                Shape::ConvexHull(std::sync::Arc::new(ConvexHull::new(&points).unwrap()))
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 4000, rng_seed: proptest::test_runner::RngSeed::Fixed(0x4a44), failure_persistence: None, ..Default::default() })]

        /// Two convex bodies that `bounds_apart` skips get no contact from either method, at
        /// every distance from their bounding spheres touching to past the margin; bodies
        /// within the margin of each other's bounding sphere are never skipped.
        #[test]
        fn a_pair_skipped_as_apart_has_no_contact(
            kinds in (0u8..4, 0u8..4),
            sizes in (0.01f32..2.0, 0.01f32..2.0),
            turns in ((-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2), (-3.2f32..3.2, -3.2f32..3.2, -3.2f32..3.2)),
            dir in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            along in 0.0f32..1.0,
            margin in 0.0f32..0.5,
            epsilon in 0.0f32..1e-4,
        ) {
            let euler = |t: (Real, Real, Real)| Quat::from_euler(glam::EulerRot::XYZ, t.0, t.1, t.2);
            let (sa, sb) = (shape(kinds.0, sizes.0), shape(kinds.1, sizes.1));
            let radii = (sa.bounding_radius(), sb.bounding_radius());
            let tol = Tolerance { margin, epsilon };
            let dir = Vec3::from(dir).normalize_or(Vec3::X);
            let reach = radii.0 + radii.1 + margin;
            let d = radii.0 + radii.1 + along * (margin + 0.1);
            let body = |s: &Shape, p: Pose| Body::new(BodyKind::Dynamic, s.clone(), p, Material::default());
            let a = body(&sa, Pose::new(Vec3::new(0.3, -1.0, 2.0), euler(turns.0)));
            let b = body(&sb, Pose::new(a.pose.translation + dir * d, euler(turns.1)));
            let apart = bounds_apart(&a, &b, radii, tol);
            proptest::prop_assert!(!apart || d > reach, "skipped at {} within reach {}", d, reach);
            for method in [NarrowPhaseKind::Analytic, NarrowPhaseKind::Gjk] {
                let m = narrowphase::contact(&a.shape, &a.pose, &b.shape, &b.pose, tol, method);
                let (ka, kb) = (a.shape.kind(), b.shape.kind());
                proptest::prop_assert!(!apart || m.is_none(), "{:?} {:?} {:?} at {}: {:?}", ka, kb, method, d, m);
            }
        }
    }

    /// Each contact's point count is its manifold's, whether the pairs were tested in one run or
    /// in many on two threads, and with the body-pair cache answering pairs (rebuilt later in
    /// batches) as the pile settles.
    #[test]
    fn point_counts_are_the_manifolds_in_one_run_and_in_many() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/rain_1000.ron");
        for threads in [1, 2] {
            let mut w = crate::Scene::load(path).and_then(|s| s.build()).expect("rain_1000 builds");
            w.set_threads(threads);
            w.set_parallel_min_pairs(64);
            for step in 0..120 {
                w.step();
                let want: Vec<u8> = w.contacts().iter().map(|c| c.manifold.len() as u8).collect();
                assert_eq!(w.contact_point_counts(), &want[..], "{threads} threads, step {step}");
            }
            assert!(w.profile().pair_cache_hits > 0, "{threads} threads: the cache answered no pair");
        }
    }
}
