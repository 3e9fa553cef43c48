//! The substeps' passes over the rows, on one thread or on a pool. In parallel, the bundles of
//! one colour are shared among the threads (no two share a moving body, so each bundle reads
//! and writes what it would in order), the overflow runs on one thread after its colours, and
//! the integration between passes is split by body: every body's arithmetic is the serial
//! path's, in the same order, so the results are the same bits for any thread count.

use super::lanes::{States, W};
use super::rows::{self, BodyState, PassParams, RESTITUTION_SWEEPS, RestitutionParams};
use super::{Body, CacheEntry, CachedImpulse, Contact, Motion, Solver, StepContext, WarmCache, prepare, wide};
use crate::dynamics::joints::JointState;
use crate::math::{Real, Vec3};
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::parallel::{self, Crew, Job, SharedMut};

pub(super) use crate::parallel::BODY_BLOCK;
/// Fewest bundles per block of a colour's pass.
const BUNDLE_BLOCK: usize = 8;
/// Gravity and integration run over the moving bodies alone when fewer than one body in this
/// many moves (`Work::GravityMovers`).
const SPARSE_MOVERS: usize = 4;

/// One job of the passes.
#[derive(Clone, Copy, Debug)]
pub(super) enum Work {
    Gravity(Vec3),
    /// Gravity and integration over the bodies that move alone (`Solver::movers`), on one
    /// thread: a world mostly asleep skips the rest.
    GravityMovers(Vec3),
    IntegrateMovers,
    /// Bundles from `first` on (one colour's).
    WarmStart {
        first: usize,
    },
    Solve {
        first: usize,
        k: PassParams,
    },
    Restitution {
        first: usize,
        k: RestitutionParams,
    },
    /// The stop of the bundles with a one-sided lane (`Solver::stop_list`), from `first` on
    /// (one colour's): `wide::stop`.
    Stop {
        first: usize,
        k: PassParams,
    },
    OverflowWarmStart,
    OverflowSolve(PassParams),
    OverflowStop(PassParams),
    OverflowRestitution(RestitutionParams),
    /// The second copy of the driven bodies' one-sided rows (`Solver::pinned`).
    PinnedWarmStart,
    PinnedSolve(PassParams),
    /// The joints' rows (`crate::dynamics::joints`), with position correction or without.
    /// The start of a substep's joint work: last substep's impulses applied when warm
    /// starting; the joint forest factored in the step's first substep (the relax pass
    /// factors it for the next).
    JointsWarmStart(bool, bool),
    JointsSolve(bool),
    Integrate,
}

/// Adds gravity's velocity to the awake dynamic bodies.
#[inline]
pub(super) fn gravity(states: &mut [BodyState], motion: &[Motion], dv: Vec3) {
    for (s, m) in states.iter_mut().zip(motion) {
        if m.dynamic {
            s.v += dv;
        }
    }
}

/// Moves the bodies by their velocities over one substep.
#[inline]
pub(super) fn integrate(states: &mut [BodyState], motion: &mut [Motion], h: Real, max_w: Real) {
    for (s, m) in states.iter_mut().zip(motion) {
        if !m.moves {
            continue;
        }
        let w2 = s.w.length_squared();
        if w2 > max_w * max_w {
            s.w *= max_w / w2.sqrt();
        }
        s.dp += s.v * h;
        s.dtheta += s.w * h;
        m.dq = Body::integrate_rotation(m.dq, s.w, h);
    }
}

impl Solver {
    /// The bundles of each colour: `ranges[c]..ranges[c + 1]`, into `ranges`.
    fn colour_bundles(&self, ranges: &mut Vec<usize>) {
        ranges.clear();
        ranges.push(0);
        for c in 0..self.colouring.colours() {
            ranges.push(ranges.last().unwrap() + self.colouring.colour(c).len().div_ceil(W));
        }
    }

    /// Every substep's passes, then restitution: a sequence of jobs, each finished before the
    /// next starts, whose blocks the threads of `crew` share (one block per job without a crew).
    pub(super) fn passes(
        &mut self,
        crew: Option<&Crew>,
        isa: wide::Isa,
        p: &StepContext,
        joint_states: &mut [JointState],
        moved: Option<&[u32]>,
    ) {
        let threads = parallel::threads(crew);
        let mut ranges = std::mem::take(&mut self.colour_ranges);
        self.colour_bundles(&mut ranges);
        let bodies = self.motion.len();
        let overflow = !self.overflow.is_empty();
        let pinned = !self.pinned.is_empty();
        let joints = !self.joints.is_empty();
        // The list is rebuilt every step in the buffer of the last (a dozen growths a step
        // otherwise, a twentieth of a small scene's step).
        let mut jobs = std::mem::take(&mut self.pass_jobs);
        jobs.clear();
        // The bundles with a lane against a body that does not move, colour by colour.
        let mut stops = std::mem::take(&mut self.stop_list);
        let mut stop_ranges = std::mem::take(&mut self.stop_ranges);
        stops.clear();
        stop_ranges.clear();
        stop_ranges.push(0);
        for c in ranges.windows(2) {
            stops.extend((c[0]..c[1]).filter(|&b| self.bundles[b].any_one_sided()).map(|b| b as u32));
            stop_ranges.push(stops.len());
        }
        // Jobs over items listed colour by colour (`starts[c]..starts[c + 1]` colour `c`'s).
        let by_colour = |jobs: &mut Vec<Job<Work>>, starts: &[usize], work: &dyn Fn(usize) -> Work| {
            if threads == 1 {
                // One thread solves the colours one after the other, bundle after bundle: one
                // job over them all does the same in the same order, without a call per colour.
                let all = *starts.last().unwrap();
                if all > 0 {
                    jobs.push(Job::new(work(0), all, BUNDLE_BLOCK, 1));
                }
                return;
            }
            for c in starts.windows(2).filter(|c| c[1] > c[0]) {
                jobs.push(Job::new(work(c[0]), c[1] - c[0], BUNDLE_BLOCK, threads));
            }
        };
        let colours = |jobs: &mut Vec<Job<Work>>, work: &dyn Fn(usize) -> Work| by_colour(jobs, &ranges, work);
        let stop =
            |jobs: &mut Vec<Job<Work>>, k: PassParams| by_colour(jobs, &stop_ranges, &|first| Work::Stop { first, k });
        // With few bodies moving and one thread, the per-body passes run over those alone.
        self.movers.clear();
        if threads == 1 {
            // (Only the bodies of `moved` can move, when it lists them.)
            let motion = &self.motion;
            match moved {
                Some(list) => self.movers.extend(list.iter().filter(|&&i| motion[i as usize].moves)),
                None => self.movers.extend(motion.iter().enumerate().filter(|(_, m)| m.moves).map(|(i, _)| i as u32)),
            }
        }
        let sparse = threads == 1 && self.movers.len() * SPARSE_MOVERS < bodies;
        for substep in 0..p.substeps {
            match sparse {
                true => jobs.push(Job::new(Work::GravityMovers(p.gravity * p.h), 1, 1, 1)),
                false => jobs.push(Job::new(Work::Gravity(p.gravity * p.h), bodies, BODY_BLOCK, threads)),
            }
            if joints {
                jobs.push(Job::new(Work::JointsWarmStart(p.warm_starting, substep == 0), 1, 1, 1));
            }
            if p.warm_starting {
                colours(&mut jobs, &|first| Work::WarmStart { first });
                if overflow {
                    jobs.push(Job::new(Work::OverflowWarmStart, 1, 1, 1));
                }
                if pinned {
                    jobs.push(Job::new(Work::PinnedWarmStart, 1, 1, 1));
                }
            }
            for it in 0..p.iterations {
                let k = PassParams { first_point: substep + it, ..p.solve };
                if joints {
                    jobs.push(Job::new(Work::JointsSolve(true), 1, 1, 1));
                }
                colours(&mut jobs, &|first| Work::Solve { first, k });
                if overflow {
                    jobs.push(Job::new(Work::OverflowSolve(k), 1, 1, 1));
                }
                if pinned {
                    jobs.push(Job::new(Work::PinnedSolve(k), 1, 1, 1));
                }
                // The contacts with bodies that do not move, stopped: the pass ends on them, so a
                // body pressed into the floor by another leaves the pass not sinking into it.
                stop(&mut jobs, k);
                if overflow {
                    jobs.push(Job::new(Work::OverflowStop(k), 1, 1, 1));
                }
            }
            match sparse {
                true => jobs.push(Job::new(Work::IntegrateMovers, 1, 1, 1)),
                false => jobs.push(Job::new(Work::Integrate, bodies, BODY_BLOCK, threads)),
            }
            let k = PassParams { first_point: substep + 2, track_impulses: self.any_bounce, ..p.relax };
            if joints {
                jobs.push(Job::new(Work::JointsSolve(false), 1, 1, 1));
            }
            colours(&mut jobs, &|first| Work::Solve { first, k });
            if overflow {
                jobs.push(Job::new(Work::OverflowSolve(k), 1, 1, 1));
            }
            if pinned {
                jobs.push(Job::new(Work::PinnedSolve(k), 1, 1, 1));
            }
        }
        if self.any_bounce {
            let k = RestitutionParams { threshold: p.restitution_threshold, inv_h: p.relax.inv_h };
            for _ in 0..RESTITUTION_SWEEPS {
                colours(&mut jobs, &|first| Work::Restitution { first, k });
                if !self.overflow.is_empty() {
                    jobs.push(Job::new(Work::OverflowRestitution(k), 1, 1, 1));
                }
            }
        }

        let (h, max_w) = (p.h, p.max_w);
        // The body states, and after them the dummy of empty lanes (which no pass writes).
        // SAFETY: `build::bundle` checked each bundle's indices against these states; the
        // blocks below use them as `States::new` asks (see the runner's argument below).
        let all = unsafe { States::new(&mut self.states) };
        let motion = SharedMut::new(&mut self.motion);
        let bundles = SharedMut::new(&mut self.bundles);
        let bounces = SharedMut::new(&mut self.bounces);
        let overflow = SharedMut::new(&mut self.overflow);
        let pinned = SharedMut::new(&mut self.pinned);
        let overflow_info = &self.overflow_info;
        let movers = &self.movers;
        let (joint_rows, joint_states) = (&self.joints, SharedMut::new(joint_states));
        // SAFETY (every block below): `build::bundle` checked each bundle's indices against these
        // states. The blocks of one job touch disjoint parts: body ranges
        // of their own; bundles of one colour, which share no moving body and write no state of
        // a body that does not move (`States::new`'s contract); the overflow and the joints are
        // one block each, alone in their job. The runner starts a job only once the one before it has finished.
        parallel::run_jobs(crew, &jobs, |work, r| unsafe {
            match *work {
                Work::Gravity(dv) => gravity(all.range(r.clone()), motion.range(r), dv),
                Work::Integrate => integrate(all.range(r.clone()), motion.range(r), h, max_w),
                // One block alone in its job: no other thread touches the states meanwhile.
                Work::GravityMovers(dv) => {
                    let (states, motion) = (all.slice(), motion.range(0..motion.len()));
                    for &i in movers {
                        let i = i as usize;
                        gravity(&mut states[i..i + 1], &motion[i..i + 1], dv);
                    }
                }
                Work::IntegrateMovers => {
                    let (states, motion) = (all.slice(), motion.range(0..motion.len()));
                    for &i in movers {
                        let i = i as usize;
                        integrate(&mut states[i..i + 1], &mut motion[i..i + 1], h, max_w);
                    }
                }
                Work::WarmStart { first } => {
                    wide::warm_start(isa, bundles.range(first + r.start..first + r.end), all);
                }
                Work::Solve { first, k } => {
                    let r = first + r.start..first + r.end;
                    wide::solve(isa, bundles.range(r.clone()), bounces.range(r), all, &k);
                }
                Work::Restitution { first, k } => {
                    let r = first + r.start..first + r.end;
                    wide::restitution(isa, bundles.range(r.clone()), bounces.range(r), all, &k);
                }
                Work::Stop { first, k } => wide::stop(isa, &bundles, &stops[first + r.start..first + r.end], all, &k),
                Work::OverflowWarmStart => rows::warm_start(overflow.range(0..overflow.len()), all.slice()),
                Work::OverflowSolve(k) => rows::solve(overflow.range(0..overflow.len()), all.slice(), &k),
                Work::OverflowStop(k) => rows::stop(overflow.range(0..overflow.len()), all.slice(), &k),
                Work::PinnedWarmStart => rows::warm_start(pinned.range(0..pinned.len()), all.slice()),
                Work::PinnedSolve(k) => rows::solve(pinned.range(0..pinned.len()), all.slice(), &k),
                Work::JointsWarmStart(..) | Work::JointsSolve(_) => {
                    let turns: &[Motion] = motion.range(0..motion.len());
                    let dq = |i: usize| turns.get(i).map_or(crate::math::Quat::IDENTITY, |m| m.dq);
                    let states = joint_states.range(0..joint_states.len());
                    match *work {
                        Work::JointsSolve(bias) => joint_rows.solve(states, all.slice(), &dq, bias),
                        Work::JointsWarmStart(warm, factor) => {
                            joint_rows.warm_start(states, all.slice(), &dq, (warm, factor))
                        }
                        _ => unreachable!(),
                    }
                }
                Work::OverflowRestitution(k) => {
                    rows::restitution(overflow.range(0..overflow.len()), overflow_info, all.slice(), &k)
                }
            }
        });
        self.pass_jobs = jobs;
        self.colour_ranges = ranges;
        self.stop_list = stops;
        self.stop_ranges = stop_ranges;
    }

    /// Replaces `cache` with this step's impulses: one entry per contact, in contact order,
    /// which is pair order, so next step's search walks it in step with the contacts. Each
    /// entry names its contact's kept points' pool slot.
    pub(super) fn store_cache(&mut self, contacts: &[Contact], cache: &mut WarmCache, crew: Option<&Crew>) {
        // Every entry is written below (each contact sits in one lane or in the overflow).
        let entries = &mut cache.entries;
        entries.resize(contacts.len(), ((0, 0), [CachedImpulse::default(); MAX_MANIFOLD_POINTS]));
        entries.truncate(contacts.len());
        // Bundle `k`'s lanes in use: (lane, contact).
        let used = |k: usize| {
            let lanes = &self.lanes[k];
            lanes.contact.iter().enumerate().filter(|l| *l.1 != u32::MAX).map(|(i, &m)| (i, m as usize))
        };
        // Lane `i` of bundle `k`'s entry, written in place (contact `m`'s).
        let write = |k: usize, i: usize, m: usize, e: &mut CacheEntry| {
            let (bundle, lanes) = (&self.bundles[k], &self.lanes[k]);
            e.0 = (bundle.a[i], bundle.b[i]);
            let points = contacts[m].manifold.points();
            bundle.ended(i, lanes.len[i] as usize).write_cached(&lanes.ids[i], points, &mut e.1);
        };
        let shared = SharedMut::new(entries);
        parallel::for_blocks(crew, self.bundles.len(), 32, |r| {
            for k in r {
                // The entries are written in colour order, which jumps through the cache: ask
                // for those of the bundle after next while this one is written.
                if let Some(ahead) = self.lanes.get(k + 2) {
                    for &m in ahead.contact.iter().filter(|&&m| (m as usize) < shared.len()) {
                        prepare::prefetch_at(shared.ptr(m as usize));
                    }
                }
                for (i, m) in used(k) {
                    // SAFETY: each contact sits in one lane of one bundle.
                    write(k, i, m, unsafe { shared.get(m) });
                }
            }
        });
        for (k, &m) in self.colouring.overflow.iter().enumerate() {
            let rows = &self.overflow[k];
            let points = contacts[m as usize].manifold.points();
            let cached = prepare::cached_impulses(rows, &self.overflow_info[k], points);
            entries[m as usize] = ((rows.a, rows.b), cached);
        }
        // Each contact's kept points are in its pool slot (`assign_slots`, `recycle`): the
        // entries name them.
        debug_assert_eq!(self.slots.len(), contacts.len());
        std::mem::swap(&mut cache.slots, &mut self.slots);
    }
}
