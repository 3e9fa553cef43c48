//! The step's continuous collision detection: which bodies are swept and which get
//! speculative reach (before the broad phase), and the time-of-impact pass (after the solver).

use super::{BODY_BLOCK, StepProfile, StepState, World};
use crate::ccd::{self, CcdMode, CcdMotion, ToiEvent};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::math::Vec3;
use crate::parallel;
use crate::timer::Laps;

/// Which bodies CCD handles this step, and what it did in the last.
#[derive(Clone, Debug, Default)]
pub(super) struct CcdState {
    /// Per body: swept by the time-of-impact pass this step.
    pub fast: Vec<bool>,
    /// Per body: its contacts reach as far as it can move this step (speculative CCD).
    pub reach: Vec<bool>,
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
        parallel::fill(crew, (&mut self.ccd.fast[..], &mut self.ccd.reach[..]), BODY_BLOCK, |r, (fast, reach)| {
            for (k, i) in r.enumerate() {
                let b = &bodies[i];
                (fast[k], reach[k]) = if rests(i) {
                    (false, false)
                } else {
                    (ccd::needs_ccd(b, settings), ccd::needs_reach(b, settings))
                };
            }
        });
        // With CCD on, a body that turns faster than its speculative rows describe is swept
        // too (`ccd::turns_past_rows`), also one slow enough to have no reach (a small body
        // spinning against a wall).
        let spins = &mut st.lists.start_spins;
        if settings.ccd == CcdMode::Off {
            spins.clear();
            return;
        }
        spins.resize(n, Vec3::ZERO);
        // A body asleep does not turn; a static body's spin is never read.
        parallel::fill(crew, &mut spins[..], BODY_BLOCK, |r, out| {
            for (k, i) in r.enumerate() {
                out[k] = if rests(i) { Vec3::ZERO } else { bodies[i].angvel };
            }
        });
    }

    /// Sweeps the fast and fast-turning bodies from their start poses and stops them at their
    /// first impact. With CCD on, the time since the last lap counts as CCD.
    pub(super) fn time_of_impact(&mut self, st: &mut StepState, p: &mut StepProfile, laps: &mut Laps) {
        let lists = &mut st.lists;
        lists.turning.clear();
        if self.settings.ccd == CcdMode::Off {
            return;
        }
        let (bodies, settings, crew) = (&self.bodies, &self.settings, st.crew.as_ref());
        lists.turning.resize(bodies.len(), false);
        let (starts, spins) = (self.guard.start_poses(), &lists.start_spins);
        // Bodies at rest since the broad phase (when no body woke in the step) neither turn nor
        // leave their rows.
        let resting = if st.woke { &[][..] } else { self.idle.resting(bodies.len()) };
        let rests = |i: usize| resting.get(i).copied().unwrap_or(false);
        parallel::fill(crew, &mut lists.turning[..], BODY_BLOCK, |r, out| {
            for (k, o) in r.zip(out) {
                *o = !rests(k) && ccd::turns_past_rows(&bodies[k], starts[k].rotation, spins[k], settings);
            }
        });
        // And bodies the solver drove through their rows against static bodies, or out of
        // the box their pairs were found in.
        let (contacts, aabbs) = (self.contacts.contacts(), &self.aabbs);
        let (turning, touched, marks) = (&mut lists.turning, &mut lists.by_kinematic, &mut lists.contact_marks);
        ccd::left_their_rows(bodies, starts, contacts, aabbs, settings.slop, turning, touched, marks, resting, crew);
        if self.ccd.fast.iter().chain(&lists.turning).any(|&f| f) {
            p.toi_events = ccd::resolve_toi(
                &mut self.bodies,
                self.guard.start_poses(),
                &self.ccd.fast,
                &lists.turning,
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
            self.guard.check(&mut self.bodies, self.step_count + 1, "ccd", st.crew.as_ref());
            self.contacts.forget_impulses_of(&self.guard.frozen());
        }
        laps.lap(&mut p.ccd_ms);
    }

    /// Swept volumes of the fast bodies, their paths, and the impacts that stopped them.
    pub(super) fn debug_draw_ccd(&self, draw: &mut DebugDraw) {
        const MOTION: [f32; 4] = [1.0, 0.55, 0.0, 0.8];
        const IMPACT: [f32; 4] = [1.0, 0.1, 0.1, 1.0];
        const MOTION_BOX: [f32; 4] = [1.0, 0.55, 0.0, 0.35];
        for s in &self.ccd.motions {
            // The shape where the sweep starts and where it would end, the path of its centre
            // between, and the box the sweep was tested in.
            let shape = &self.bodies[s.body as usize].shape;
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
