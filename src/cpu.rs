//! Which wide instruction sets this CPU runs: the one place the engine asks (std
//! detects the features once per process and caches them, so each question is a load and a
//! bit test).
//!
//! Two kinds of code depend on the answer:
//! - kernels written with AVX/AVX2 intrinsics (support queries, EPA's row scans, the 8-lane
//!   boolean GJK), each beside a portable or SSE2 twin that gives the same bits;
//! - whole routines compiled twice from one source, once for the x86-64 baseline and once
//!   with `#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]` ([`x86_64_v3`]): the same operations in the same order
//!   (no fused multiply-add), so the same bits, in fewer instructions (three-operand VEX
//!   forms, `tzcnt`) and with the AVX kernels inlined instead of called.

/// The CPU runs AVX (256-bit floating-point registers).
#[inline]
pub fn avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The CPU runs AVX2 (and so AVX).
#[inline]
pub fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx") && std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The CPU runs every feature the routines' second copies are compiled with (AVX, AVX2, BMI1,
/// BMI2, LZCNT, POPCNT: the x86-64-v3 level without FMA, which would change the bits). Asked
/// once or twice per pair test, so the six answers are folded into one cached byte.
#[inline]
pub fn x86_64_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::sync::atomic::{AtomicU8, Ordering};
        // 0: not asked yet; 1: no; 2: yes.
        static LEVEL: AtomicU8 = AtomicU8::new(0);
        match LEVEL.load(Ordering::Relaxed) {
            0 => {
                use std::arch::is_x86_feature_detected as has;
                let yes = avx2() && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
                LEVEL.store(1 + yes as u8, Ordering::Relaxed);
                yes
            }
            level => level == 2,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}
