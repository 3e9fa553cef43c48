//! The step's stopwatch: the world's step and the solver time their phases one after another on
//! one [`Laps`], which reads the clock once where one phase ends and the next begins, so no phase
//! is timed by hand-paired start and stop calls.
//!
//! The clock is the CPU's time-stamp counter where it runs at a constant rate (x86-64 with an
//! invariant TSC), calibrated once per process against the system's monotonic clock over 0.2 ms;
//! else the system clock itself. A reading of the counter costs a third of
//! `std::time::Instant::now`'s (about 12 ns against 33 ns on the 2-core VM the benchmarks run
//! on), and a step reads it about ten times, where a tiny scene's step (a pendulum's) takes
//! 3 µs.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How the process reads time: the counter with its period, or nanoseconds of the system clock
/// since `base`.
struct Clock {
    counter: bool,
    ms_per_unit: f64,
    base: Instant,
}

/// The process's clock, calibrated at its first use.
#[inline]
fn clock() -> &'static Clock {
    static CLOCK: OnceLock<Clock> = OnceLock::new();
    CLOCK.get_or_init(|| {
        let base = Instant::now();
        match counter::period_ms() {
            Some(ms_per_unit) => Clock { counter: true, ms_per_unit, base },
            None => Clock { counter: false, ms_per_unit: 1e-6, base },
        }
    })
}

#[cfg(target_arch = "x86_64")]
mod counter {
    use super::{Duration, Instant};

    /// Whether the time-stamp counter ticks at one constant rate whatever the core's clock and
    /// sleep state (CPUID's invariant-TSC bit).
    fn invariant() -> bool {
        use std::arch::x86_64::__cpuid;
        #[allow(unused_unsafe)]
        let (max, power) = unsafe { (__cpuid(0x8000_0000).eax, __cpuid(0x8000_0007).edx) };
        max >= 0x8000_0007 && power & (1 << 8) != 0
    }

    #[inline(always)]
    pub(super) fn read() -> u64 {
        #[allow(unused_unsafe)]
        unsafe {
            std::arch::x86_64::_rdtsc()
        }
    }

    /// A system-clock time and the counter read between two of its readings, the counter
    /// standing for their midpoint: the closest of five such brackets (30–40 ns wide on the
    /// benchmark VM), so that an interrupt in one does not count.
    fn pair() -> (Instant, u64) {
        let bracket = || {
            let (a, t, b) = (Instant::now(), read(), Instant::now());
            (b - a, a + (b - a) / 2, t)
        };
        let (_, at, t) = (0..5).map(|_| bracket()).min_by_key(|&(width, ..)| width).expect("five brackets");
        (at, t)
    }

    /// The counter's period, ms, measured over 0.2 ms of the system clock (each end within
    /// about 20 ns: within 2·10⁻⁴ of the rate), or `None` without an invariant counter.
    pub(super) fn period_ms() -> Option<f64> {
        if !invariant() {
            return None;
        }
        let (i0, t0) = pair();
        while i0.elapsed() < Duration::from_micros(200) {
            std::hint::spin_loop();
        }
        let (i1, t1) = pair();
        (t1 > t0).then(|| (i1 - i0).as_secs_f64() * 1e3 / (t1 - t0) as f64)
    }
}

#[cfg(not(target_arch = "x86_64"))]
mod counter {
    pub(super) fn read() -> u64 {
        unreachable!("no counter on this target")
    }

    pub(super) fn period_ms() -> Option<f64> {
        None
    }
}

/// A reading of the step's clock (counter ticks, or nanoseconds of the system clock):
/// [`Stamp::ms_since`] turns two into milliseconds.
#[derive(Clone, Copy, Debug)]
pub struct Stamp(u64);

impl Stamp {
    /// Reads the clock.
    #[inline]
    pub fn now() -> Self {
        let c = clock();
        Stamp(if c.counter { counter::read() } else { c.base.elapsed().as_nanos() as u64 })
    }

    /// Milliseconds from `earlier` to this reading (0 if the clock reads lower: a thread moved
    /// to a core whose counter lags).
    #[inline]
    pub fn ms_since(self, earlier: Stamp) -> f64 {
        self.0.saturating_sub(earlier.0) as f64 * clock().ms_per_unit
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

    /// The step's clock against the system's over 20 ms: within 1% of the system's interval
    /// between the two readings (each reading bracketed by two of the system's, so that a
    /// thread losing its core between them widens the bracket instead of failing the test).
    #[test]
    fn stamps_agree_with_the_system_clock() {
        // Calibrated first, outside the interval.
        Stamp::now();
        let bracket = || {
            let a = Instant::now();
            let s = Stamp::now();
            (a, s, Instant::now())
        };
        let (a0, s0, b0) = bracket();
        std::thread::sleep(Duration::from_millis(20));
        let (a1, s1, b1) = bracket();
        let ours = s1.ms_since(s0);
        let (least, most) = ((a1 - b0).as_secs_f64() * 1e3, (b1 - a0).as_secs_f64() * 1e3);
        assert!(ours >= 0.99 * least && ours <= 1.01 * most, "{ours} ms, the system's {least} to {most} ms");
        assert_eq!(s0.ms_since(s1), 0.0, "an earlier reading is no time after a later one");
    }

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
