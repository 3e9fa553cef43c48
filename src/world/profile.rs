use crate::broadphase::{BroadPhaseKind, BroadPhaseStats};

/// Time per phase (ms) and counters for one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepProfile {
    /// Wall-clock time of the whole step, ms.
    pub total_ms: f64,
    /// Broad phase, ms (with the world's box building and pair filtering).
    pub broad_phase_ms: f64,
    /// Narrow phase, ms.
    pub narrow_phase_ms: f64,
    /// CCD preparation (with the step's setup: the finite-state check of the bodies) and time
    /// of impact (with the finite-state check after the solver), ms.
    pub ccd_ms: f64,
    /// Solver, ms: waking touched islands, warm-start matching, setup, passes and the substeps'
    /// integration (which runs among the passes).
    pub solve_ms: f64,
    /// The solver's final write-back of poses and velocities to the bodies, ms.
    pub integrate_ms: f64,
    /// Bodies in the world.
    pub bodies: u32,
    /// Dynamic bodies awake after the step.
    pub awake_bodies: u32,
    /// Bodies asleep after the step.
    pub sleeping_bodies: u32,
    /// Candidate pairs from the broad phase (after filtering static–static and asleep pairs).
    pub pairs: u32,
    /// Pairs the narrow phase answered: tested, or from the body-pair cache.
    pub narrow_tests: u32,
    /// Of those, the pairs answered from the body-pair cache (`Settings::pair_cache_distance`).
    pub pair_cache_hits: u32,
    /// Manifolds with at least one point.
    pub manifolds: u32,
    /// Contact points in all manifolds.
    pub contacts: u32,
    /// Time-of-impact events resolved by CCD.
    pub toi_events: u32,
    /// Bodies whose state became non-finite in this step and were frozen ([`crate::world::Fault`]).
    pub faults: u32,
    /// The structure that ran the broad phase (the one picked, when the setting is `Auto`).
    pub broad_phase: BroadPhaseKind,
    /// Candidate pairs left out because the step found more than
    /// [`crate::world::MAX_PAIRS`]: those bodies do not collide in this step.
    pub pairs_dropped: u32,
    /// Counters of the broad-phase update. When [`broad_phase_reused`](Self::broad_phase_reused),
    /// the pair and structure counters of the update reused, and zero work (tests, swaps,
    /// re-inserts, times).
    pub broad: BroadPhaseStats,
    /// The broad phase did not run: every dynamic body slept and nothing changed since its last
    /// update, whose pairs were reused. `broad_phase_ms` is the time that check took. If no
    /// contact was found and there is no kinematic body, nothing could move: the solver and the
    /// sleep update did not run either (`solve_ms` and `integrate_ms` are zero).
    pub broad_phase_reused: bool,
}

/// The phases a step times, in order.
pub const PHASES: [&str; 5] = ["broad_phase", "narrow_phase", "ccd", "solve", "integrate"];

impl StepProfile {
    /// The phase times in the order of [`PHASES`].
    pub fn phase_ms(&self) -> [f64; 5] {
        [self.broad_phase_ms, self.narrow_phase_ms, self.ccd_ms, self.solve_ms, self.integrate_ms]
    }

    /// The CSV header; the columns match [`StepProfile::csv_row`].
    pub const CSV_HEADER: &'static str = "step,total_ms,broad_phase_ms,narrow_phase_ms,ccd_ms,solve_ms,integrate_ms,bodies,pairs,contacts,narrow_tests,manifolds,toi_events,sleeping,aabb_tests,bp_nodes,bp_depth,bp_swaps,bp_candidates,bp_true_overlaps,bp_false_positive_ratio,bp_update_ms,bp_pairs_ms,bp_reinserted,bp_reused,faults,pairs_dropped,bp_structure";

    /// One CSV row; the columns match [`StepProfile::CSV_HEADER`].
    pub fn csv_row(&self, step: u64) -> String {
        format!(
            "{step},{:.6},{:.6},{:.6},{:.6},{:.6},{:.6},{},{},{},{},{},{},{},{},{},{},{},{},{},{:.6},{:.6},{:.6},{},{},{},{},{}",
            self.total_ms,
            self.broad_phase_ms,
            self.narrow_phase_ms,
            self.ccd_ms,
            self.solve_ms,
            self.integrate_ms,
            self.bodies,
            self.pairs,
            self.contacts,
            self.narrow_tests,
            self.manifolds,
            self.toi_events,
            self.sleeping_bodies,
            self.broad.aabb_tests,
            self.broad.nodes,
            self.broad.depth,
            self.broad.swaps,
            self.broad.candidate_pairs,
            self.broad.true_overlaps,
            self.broad.false_positive_ratio(),
            self.broad.update_ms,
            self.broad.pairs_ms,
            self.broad.reinserted,
            self.broad_phase_reused as u8,
            self.faults,
            self.pairs_dropped,
            self.broad_phase.cli_name(),
        )
    }
}
