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
    /// The structure's pairs before the world's filter, which depends on who sleeps.
    candidates: Vec<(u32, u32)>,
    stats: BroadPhaseStats,
    /// The settings of that update while no body can have moved since; `None` otherwise.
    valid_for: Option<Settings>,
    /// The last step was still (no contact, no kinematic body: neither the solver nor the sleep
    /// update ran) after a still step or one that emptied the caches: the world is at a fixed
    /// point of the step, and while it holds a step changes nothing but the step count.
    at_rest: bool,
}

/// Whether no dynamic body is awake, so that only kinematic bodies can move in the step.
pub(super) fn quiet(bodies: &[Body]) -> bool {
    bodies.iter().all(|b| !b.is_dynamic() || b.asleep)
}

/// The same box, bit for bit (a broad phase may order boxes by their bits).
fn same_bits(a: &Aabb, b: &Aabb) -> bool {
    let bits = |x: &Aabb| [x.min, x.max].map(|v| v.to_array().map(f32::to_bits));
    bits(a) == bits(b)
}

impl IdlePairs {
    /// Forgets the kept update: a body or the settings may have changed.
    pub(super) fn forget(&mut self) {
        self.valid_for = None;
        self.at_rest = false;
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
                .all(|(b, aabb)| same_bits(&b.aabb().expanded(margin), aabb))
    }

    /// The kept update's pairs, before the world's filter.
    pub(super) fn candidates(&self) -> &[(u32, u32)] {
        &self.candidates
    }

    /// The profile's counters for a step that reused the update: the pairs and the structure
    /// are as the update left them; the work counters are zero, since no work was done.
    pub(super) fn reused_stats(&self) -> BroadPhaseStats {
        BroadPhaseStats { aabb_tests: 0, swaps: 0, reinserted: 0, update_ms: 0.0, pairs_ms: 0.0, ..self.stats }
    }
}
