//! The calling thread's CPU time, for benches that run on a machine shared with other jobs:
//! wall time there counts the time a thread waited for a core, which says nothing about the
//! code. Included by `#[path]` from the benches that time with it.

use std::time::Duration;

/// CPU time of the calling thread (Linux: `CLOCK_THREAD_CPUTIME_ID`); `None` where the system
/// does not report it.
#[cfg(target_os = "linux")]
pub fn thread_cpu_time() -> Option<Duration> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    let mut t = Timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec and the clock id is a Linux constant.
    let ok = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut t) } == 0;
    ok.then(|| Duration::new(t.tv_sec as u64, t.tv_nsec as u32))
}

/// CPU time of the calling thread: not reported here.
#[cfg(not(target_os = "linux"))]
pub fn thread_cpu_time() -> Option<Duration> {
    None
}
