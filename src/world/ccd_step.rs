//! The step's continuous collision detection: which bodies are swept and which get
//! speculative reach (before the broad phase), and the time-of-impact pass (after the solver).

use super::{BODY_BLOCK, StepProfile, StepState, World};
use crate::ccd::{self, CcdMode, CcdMotion, ToiEvent};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::math::Vec3;
use crate::parallel::{self, Bodies};
use crate::timer::Laps;

/// Which bodies CCD handles this step, and what it did in the last.
#[derive(Clone, Debug, Default)]
pub(super) struct CcdState {
    /// Per body: swept by the time-of-impact pass this step.
    pub fast: Vec<bool>,
    /// Per body: its contacts reach as far as it can move this step (speculative CCD).
    pub reach: Vec<bool>,
    /// With CCD on: every body's angular velocity at the start of the step, rad/s (zero for a
    /// body at rest).
    pub start_spins: Vec<Vec3>,
    /// The entries of `fast`, `reach` and `start_spins` the last step may have set.
    pub set_last: parallel::SetLast,
    /// The sweeps of the bodies CCD handled in the last step.
    pub motions: Vec<CcdMotion>,
    /// The impacts the time-of-impact pass resolved in the last step.
    pub events: Vec<ToiEvent>,
    /// The time-of-impact pass's working lists.
    pub toi_scratch: ccd::ToiScratch,
}

impl World {
    /// Which bodies are swept by time of impact and which get speculative reach; with CCD on,
    /// every body's spin at the start of the step, for the time-of-impact pass (which takes their
    /// start poses from the guard: [`super::guard::Guard::start_poses`]).
    pub(super) fn prepare_ccd(&mut self, st: &mut StepState) {
        let (bodies, settings, crew) = (&self.bodies, &self.settings, st.crew.as_ref());
        let n = bodies.len();
        // Every entry is written below.
        self.ccd.fast.resize(n, false);
        self.ccd.reach.resize(n, false);
        // A body at rest (static or asleep) is neither swept nor given reach; the flags say so
        // without reading the body.
        let resting = self.idle.resting(n);
        let rests = |i: usize| resting.get(i).copied().unwrap_or(false);
        let which = st.lists.movers.bodies(n, false);
        // A pass over the movers finds every other entry at rest's values (no flag, no spin):
        // it puts back those the last such pass set.
        let ccd_on = settings.ccd != CcdMode::Off;
        let state = &mut self.ccd;
        if ccd_on {
            state.start_spins.resize(n, Vec3::ZERO);
        }
        let (fast, reach, spins) = (&mut state.fast, &mut state.reach, &mut state.start_spins);
        match state.set_last.before(n, which) {
            None => {
                fast.fill(false);
                reach.fill(false);
                spins.fill(Vec3::ZERO);
            }
            Some(set) => set.iter().map(|&i| i as usize).for_each(|i| {
                (fast[i], reach[i]) = (false, false);
                if ccd_on {
                    spins[i] = Vec3::ZERO;
                }
            }),
        }
        if let Bodies::Listed(list) = which {
            debug_assert!(
                (0..n)
                    .filter(|i| list.binary_search(&(*i as u32)).is_err())
                    .all(|i| { !fast[i] && !reach[i] && spins.get(i).is_none_or(|s| *s == Vec3::ZERO) })
            );
        }
        // (A function, inlined at both calls.)
        #[inline(always)]
        fn flags(b: &crate::dynamics::Body, rests: bool, settings: &crate::settings::Settings) -> (bool, bool) {
            match rests {
                true => (false, false),
                false => (ccd::needs_ccd(b, settings), ccd::needs_reach(b, settings)),
            }
        }
        match which {
            Bodies::Listed(movers) => movers.iter().for_each(|&i| {
                (self.ccd.fast[i as usize], self.ccd.reach[i as usize]) =
                    flags(&bodies[i as usize], rests(i as usize), settings);
            }),
            Bodies::All(_) => {
                let out = (&mut self.ccd.fast[..], &mut self.ccd.reach[..]);
                parallel::fill(crew, out, BODY_BLOCK, |r, (fast, reach)| {
                    for (k, i) in r.enumerate() {
                        (fast[k], reach[k]) = flags(&bodies[i], rests(i), settings);
                    }
                });
            }
        }
        // With CCD on, a body that turns faster than its speculative rows describe is swept
        // too (`ccd::turns_past_rows`), also one slow enough to have no reach (a small body
        // spinning against a wall).
        if !ccd_on {
            self.ccd.start_spins.clear();
            return;
        }
        // A body asleep does not turn; a static body's spin is never read.
        which.fill(crew, &mut self.ccd.start_spins, |i| if rests(i) { Vec3::ZERO } else { bodies[i].angvel });
    }

    /// Sweeps the fast and fast-turning bodies from their start poses and stops them at their
    /// first impact. With CCD on, the time since the last lap counts as CCD.
    pub(super) fn time_of_impact(&mut self, st: &mut StepState, p: &mut StepProfile, laps: &mut Laps) {
        st.lists.turning.clear();
        if self.settings.ccd == CcdMode::Off {
            return;
        }
        let (bodies, settings, crew) = (&self.bodies, &self.settings, st.crew.as_ref());
        let n = bodies.len();
        // The bodies that may have moved (the pass itself has not run yet).
        let which = st.lists.movers.bodies(n, st.woke);
        let lists = (&mut st.lists.turning, &mut st.lists.by_kinematic, &mut st.lists.contact_marks);
        let (turning, touched, marks) = lists;
        turning.resize(n, false);
        let (starts, spins) = (self.guard.start_poses(), &self.ccd.start_spins);
        // Bodies at rest since the broad phase (when no body woke in the step) neither turn nor
        // leave their rows.
        let resting = if st.woke { &[][..] } else { self.idle.resting(n) };
        let rests = |i: usize| resting.get(i).copied().unwrap_or(false);
        which.fill(crew, turning, |k| {
            !rests(k) && ccd::turns_past_rows(&bodies[k], starts[k].rotation, spins[k], settings)
        });
        // And bodies the solver drove through their rows against static bodies, or out of
        // the box their pairs were found in.
        let (contacts, aabbs) = (self.contacts.contacts(), &self.aabbs);
        ccd::left_their_rows(
            bodies,
            starts,
            contacts,
            aabbs,
            settings.slop,
            turning,
            touched,
            marks,
            (resting, which),
            crew,
        );
        let mut swept = false;
        which.each(|i| swept |= self.ccd.fast[i] || turning[i]);
        if swept {
            st.swept = true;
            p.toi_events = ccd::resolve_toi(
                &mut self.bodies,
                self.guard.start_poses(),
                &self.ccd.fast,
                &st.lists.turning,
                &st.lists.by_kinematic,
                self.broad_phase.as_ref(),
                &self.aabbs,
                &self.settings,
                &mut self.ccd.motions,
                &mut self.ccd.events,
                &mut self.ccd.toi_scratch,
                crew,
            );
            // It wakes the bodies it moves, which may fall asleep again in the step.
            self.idle.forget_boxes();
            let all = Bodies::All(self.bodies.len());
            self.guard.check(&mut self.bodies, self.step_count + 1, "ccd", st.crew.as_ref(), all);
            self.contacts.forget_impulses_of(&self.guard.frozen());
        }
        laps.lap(&mut p.ccd_ms);
    }

    /// Swept volumes of the fast bodies, their paths, and the impacts that stopped them.
    pub(super) fn debug_draw_ccd(&self, draw: &mut DebugDraw) {
        const MOTION: [f32; 4] = [1.0, 0.55, 0.0, 0.8];
        const IMPACT: [f32; 4] = [1.0, 0.1, 0.1, 1.0];
        const MOTION_BOX: [f32; 4] = [1.0, 0.55, 0.0, 0.35];
        let mut struck: Vec<u32> = self.ccd.events.iter().map(|e| e.body).collect();
        struck.sort_unstable();
        for s in &self.ccd.motions {
            let shape = &self.bodies[s.body as usize].shape;
            // A sweep that moved its body's centre less than its own half thickness and hit
            // nothing (a rock tumbling in a rain, swept for its turn): its box is hardly bigger
            // than the body's broad-phase box and would read as one. Left out, so the layer shows
            // the sweeps that carry a body past its own size and the ones that stopped.
            let half = shape.local_aabb().half_extents().min_element();
            let travel = s.from.translation.distance(s.to.translation);
            if travel < half && struck.binary_search(&s.body).is_err() {
                continue;
            }
            // The shape where the sweep starts and where it would end, the path of its centre
            // between, and the box the sweep was tested in.
            ccd::shape_outline(draw, DrawCategory::Ccd, shape, &s.from, MOTION);
            ccd::shape_outline(draw, DrawCategory::Ccd, shape, &s.to, MOTION);
            draw.aabb(DrawCategory::Ccd, &s.aabb, MOTION_BOX);
            draw.line(DrawCategory::Ccd, s.from.translation, s.to.translation, MOTION);
            draw.point(DrawCategory::Ccd, s.from.translation, 5.0, MOTION);
        }
        for e in &self.ccd.events {
            draw.point(DrawCategory::Ccd, e.point, 9.0, IMPACT);
            draw.point(DrawCategory::Ccd, e.center, 6.0, IMPACT);
            draw.line(DrawCategory::Ccd, e.point, e.point - e.normal * 0.25, IMPACT);
        }
    }
}
