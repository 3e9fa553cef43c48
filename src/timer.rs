//! The phase timer: a scope guard that adds the time it lived to a slot of a profile, used by
//! the world's step and the solver alike, so no phase is timed by hand-paired start and stop
//! calls.

use std::time::Instant;

/// Adds the time from its creation to its drop, in ms, to a slot.
pub struct PhaseTimer<'a> {
    slot: &'a mut f64,
    start: Instant,
}

impl<'a> PhaseTimer<'a> {
    /// Starts timing; the time is added to `slot` when the guard drops.
    pub fn new(slot: &'a mut f64) -> Self {
        Self { slot, start: Instant::now() }
    }
}

impl Drop for PhaseTimer<'_> {
    fn drop(&mut self) {
        *self.slot += self.start.elapsed().as_secs_f64() * 1e3;
    }
}
