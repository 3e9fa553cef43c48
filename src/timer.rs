//! The step's stopwatch: the world's step and the solver time their phases one after another on
//! one [`Laps`], which reads the clock once where one phase ends and the next begins, so no phase
//! is timed by hand-paired start and stop calls.
//!
//! The clock is [`quanta`]'s: the CPU's time-stamp counter where it runs at a constant rate
//! (calibrated once per process against the system's monotonic clock), else that clock. A reading
//! costs about a third of `std::time::Instant::now` (12 ns against 33 ns on the 2-core VM the
//! benchmarks run on), and a step reads it about ten times, where a tiny scene's step (a
//! pendulum's) takes 3 µs.

use std::sync::OnceLock;

/// The process's clock, calibrated at its first use.
fn clock() -> &'static quanta::Clock {
    static CLOCK: OnceLock<quanta::Clock> = OnceLock::new();
    CLOCK.get_or_init(quanta::Clock::new)
}

/// A reading of the step's clock (raw counter ticks): [`Stamp::ms_since`] turns two into
/// milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Stamp(u64);

impl Stamp {
    /// Reads the clock.
    #[inline]
    pub fn now() -> Self {
        Stamp(clock().raw())
    }

    /// Milliseconds from `earlier` to this reading (0 if the counter reads lower).
    #[inline]
    pub fn ms_since(self, earlier: Stamp) -> f64 {
        clock().delta_as_nanos(earlier.0, self.0) as f64 * 1e-6
    }

    /// Milliseconds from this reading to now.
    pub fn elapsed_ms(self) -> f64 {
        Stamp::now().ms_since(self)
    }
}

/// Times consecutive phases: each [`Laps::lap`] adds the time since the one before (or since the
/// start) to a phase's slot, with one reading of the clock. Timing n phases this way reads the
/// clock n + 1 times, half as often as a start and a stop per phase.
#[derive(Clone, Copy, Debug)]
pub struct Laps {
    start: Stamp,
    last: Stamp,
}

impl Laps {
    /// Starts the watch.
    pub fn start() -> Self {
        let now = Stamp::now();
        Laps { start: now, last: now }
    }

    /// Adds the time since the last lap (or the start) to `slot`, ms: everything done since
    /// counts to that phase.
    pub fn lap(&mut self, slot: &mut f64) {
        let now = Stamp::now();
        *slot += now.ms_since(self.last);
        self.last = now;
    }

    /// The time since the start, ms.
    pub fn total_ms(&self) -> f64 {
        self.start.elapsed_ms()
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
