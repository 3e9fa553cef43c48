//! The step's stopwatch: the world's step and the solver time their phases one after another on
//! one [`Laps`], which reads the clock once where one phase ends and the next begins, so no phase
//! is timed by hand-paired start and stop calls.

use std::time::Instant;

/// Times consecutive phases: each [`Laps::lap`] adds the time since the one before (or since the
/// start) to a phase's slot, with one reading of the clock. Timing n phases this way reads the
/// clock n + 1 times, half as often as a start and a stop per phase.
#[derive(Clone, Copy, Debug)]
pub struct Laps {
    start: Instant,
    last: Instant,
}

impl Laps {
    /// Starts the watch.
    pub fn start() -> Self {
        let now = Instant::now();
        Laps { start: now, last: now }
    }

    /// Adds the time since the last lap (or the start) to `slot`, ms: everything done since
    /// counts to that phase.
    pub fn lap(&mut self, slot: &mut f64) {
        let now = Instant::now();
        *slot += (now - self.last).as_secs_f64() * 1e3;
        self.last = now;
    }

    /// The time since the start, ms.
    pub fn total_ms(&self) -> f64 {
        self.start.elapsed().as_secs_f64() * 1e3
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn laps_add_up_to_the_total() {
        let mut laps = Laps::start();
        let (mut a, mut b) = (0.0, 0.0);
        std::thread::sleep(std::time::Duration::from_millis(2));
        laps.lap(&mut a);
        std::thread::sleep(std::time::Duration::from_millis(1));
        laps.lap(&mut b);
        laps.lap(&mut b);
        let total = laps.total_ms();
        assert!(a >= 2.0 && b >= 1.0, "{a} {b}");
        assert!(a + b <= total, "{a} + {b} > {total}");
    }
}
