//! Steps in which nothing can move reuse the last broad-phase update. With every dynamic body
//! asleep, no edit through the world's API and the same settings, the boxes are those of the
//! last update, and every structure's pairs are a function of the boxes alone.

use super::Settings;
use crate::broadphase::BroadPhaseStats;
use crate::dynamics::{Body, BodyKind};
use crate::geometry::Aabb;

/// The last broad-phase update of a step in which every dynamic body slept, kept while it holds.
#[derive(Clone, Debug, Default)]
pub(super) struct IdlePairs {
    /// The structure's pairs before the world's filter, which depends on who sleeps: all of
    /// them, or (when the update kept the boxes of bodies at rest) those with a body not at
    /// rest. Either holds every pair a later quiet step can find active: one with a kinematic
    /// body, which is never at rest.
    candidates: Vec<(u32, u32)>,
    stats: BroadPhaseStats,
    /// The settings of that update while no body can have moved since; `None` otherwise.
    valid_for: Option<Settings>,
    /// The last step was still (no contact, no kinematic body: neither the solver nor the sleep
    /// update ran) after a still step or one that emptied the caches: the world is at a fixed
    /// point of the step, and while it holds a step changes nothing but the step count.
    at_rest: bool,
    /// Per body: its box in the world's list was made while it was static or asleep, and not
    /// swept. While no edit came and no body woke since, such a body has not moved, and its box
    /// is still its box ([`IdlePairs::still_boxes`]).
    still_box: Vec<bool>,
    /// `still_box` describes the boxes: set when they are made, cleared by an edit or a wake.
    boxes_hold: bool,
    /// The bits of the margin the boxes were made with.
    boxes_margin: u32,
    /// Per body: its box was kept in this step's broad phase (still now and when the last was
    /// made, with no edit and no wake since); empty when the step kept no box.
    unchanged: Vec<bool>,
}

/// Whether no dynamic body is awake, so that only kinematic bodies can move in the step.
pub(super) fn quiet(bodies: &[Body]) -> bool {
    bodies.iter().all(|b| !b.is_dynamic() || b.asleep)
}

impl IdlePairs {
    /// Forgets the kept update: a body or the settings may have changed.
    pub(super) fn forget(&mut self) {
        self.valid_for = None;
        self.at_rest = false;
        self.boxes_hold = false;
    }

    /// The boxes made while still may no longer hold, nor may the bodies rest: bodies were woken
    /// (`World::wake_all`, sleeping turned off) or a pass that wakes the bodies it moves (the
    /// time-of-impact pass) ran.
    pub(super) fn forget_boxes(&mut self) {
        self.boxes_hold = false;
    }

    /// The per-body record of boxes made while still (`true`: static or asleep, not swept), and
    /// of boxes kept (`unchanged`), to be written for every body as the boxes are made with
    /// `margin`, after which it describes them; and whether what it holds now describes the
    /// boxes in the world's list for these `n` bodies (made while still with this margin, with
    /// no edit and no wake since: such a body has not moved, and its box is still its box).
    pub(super) fn still_boxes(&mut self, n: usize, margin: f32) -> (bool, &mut [bool], &mut [bool]) {
        // The settings are a public field: a margin changed there is seen here.
        let held = self.boxes_hold && self.still_box.len() == n && self.boxes_margin == margin.to_bits();
        self.still_box.resize(n, false);
        self.unchanged.resize(n, false);
        self.boxes_hold = true;
        self.boxes_margin = margin.to_bits();
        (held, &mut self.still_box, &mut self.unchanged)
    }

    /// Per body, for these `n` bodies: static or asleep when the boxes were last made, with no
    /// edit and no wake since the step that made them ended, so static or asleep now unless a
    /// body woke in this step; empty when unknown.
    pub(super) fn resting(&self, n: usize) -> &[bool] {
        match self.boxes_hold && self.still_box.len() == n {
            true => &self.still_box,
            false => &[],
        }
    }

    /// The bodies whose boxes this step kept (see `unchanged`), for the solver.
    pub(super) fn unchanged(&self) -> &[bool] {
        &self.unchanged
    }

    /// No box was made in this step: none is known unchanged.
    pub(super) fn no_unchanged(&mut self) {
        self.unchanged.clear();
    }

    /// Keeps an update made in a quiet step: `pairs` as the structure returned them.
    pub(super) fn keep(&mut self, pairs: &[(u32, u32)], stats: BroadPhaseStats) {
        self.candidates.clear();
        self.candidates.extend_from_slice(pairs);
        self.stats = stats;
    }

    /// At the end of a step: the kept update still describes the bodies if the step was quiet
    /// (sleeping, static and kinematic bodies only; kinematic boxes are checked at reuse) and
    /// woke nobody, since a body woken and put back to sleep within the step may have moved.
    /// A step that `reused` the kept update (whose settings [`IdlePairs::reusable`] found the
    /// step's) keeps it; a quiet step that made a new one keeps that, for these settings. A
    /// still step (`still`, which reused) leaves the world at the fixed point
    /// [`IdlePairs::at_rest`] names.
    pub(super) fn end_step(&mut self, quiet: bool, woke: bool, (reused, still): (bool, bool), settings: &Settings) {
        // A body woken in the step moved in it.
        self.boxes_hold &= !woke;
        if quiet && !woke {
            if reused {
                self.at_rest = still;
            } else {
                self.valid_for = Some(settings.clone());
                self.at_rest = false;
            }
        } else {
            self.valid_for = None;
            self.at_rest = false;
        }
    }

    /// Whether the world is at rest with these settings: the last step was still and so was
    /// its reuse of the kept update, no edit came since, and the settings are the same, so
    /// the next step would find no pair, no contact and move nothing.
    pub(super) fn at_rest(&self, settings: &Settings) -> bool {
        self.at_rest && self.valid_for.as_ref() == Some(settings)
    }

    /// Whether a quiet step may reuse the kept update: same settings, every body indexed, and
    /// every kinematic body's box (with the step's `margin`) the one the update saw.
    pub(super) fn reusable(
        &self,
        settings: &Settings,
        bodies: &[Body],
        aabbs: &[Aabb],
        indexed: usize,
        margin: f32,
    ) -> bool {
        self.valid_for.as_ref() == Some(settings)
            && indexed == bodies.len()
            && aabbs.len() == bodies.len()
            && bodies
                .iter()
                .zip(aabbs)
                .filter(|(b, _)| b.kind == BodyKind::Kinematic)
                .all(|(b, aabb)| b.aabb().expanded(margin).same_bits(aabb))
    }

    /// The kept update's pairs, before the world's filter (see `candidates`).
    pub(super) fn candidates(&self) -> &[(u32, u32)] {
        &self.candidates
    }

    /// The profile's counters for a step that reused the update: the pairs and the structure
    /// are as the update left them; the work counters are zero, since no work was done.
    pub(super) fn reused_stats(&self) -> BroadPhaseStats {
        BroadPhaseStats { aabb_tests: 0, swaps: 0, reinserted: 0, update_ms: 0.0, pairs_ms: 0.0, ..self.stats }
    }
}
