//! The floating-point mode the engine steps in: subnormal numbers (below about 1.2e-38 in
//! `f32`) are flushed to zero, as results and as inputs, while a step runs.
//!
//! Velocities, impulses and joint errors that decay towards zero pass through the subnormal
//! range, and on many x86-64 processors (Intel's among them) every operation on a subnormal
//! takes a microcode assist of about a hundred cycles: a ragdoll's step took 2.6 times as long
//! with them as without. No physical quantity here is that small, so the step flushes them, as
//! other engines do during their update. The mode is set on the thread that calls
//! [`crate::world::World::step`] for the step's duration and on each worker thread of a shared
//! step while it works, so a step's results do not depend on the thread count. Elsewhere
//! (queries, drawing, tests of single shape pairs) the thread's own mode applies.

/// Flushes subnormals to zero on this thread until dropped, then restores the mode it found.
#[must_use = "the mode is restored when the guard is dropped"]
pub struct FlushSubnormals {
    #[cfg(target_arch = "x86_64")]
    saved: u32,
}

/// MXCSR's flush-to-zero (results) and denormals-are-zero (inputs) bits.
#[cfg(target_arch = "x86_64")]
const FTZ_DAZ: u32 = (1 << 15) | (1 << 6);

impl FlushSubnormals {
    /// Sets the mode on this thread.
    pub fn new() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            let saved = read_mxcsr();
            write_mxcsr(saved | FTZ_DAZ);
            FlushSubnormals { saved }
        }
        #[cfg(not(target_arch = "x86_64"))]
        FlushSubnormals {}
    }

    /// Whether this thread flushes subnormals now.
    pub fn active() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            read_mxcsr() & FTZ_DAZ == FTZ_DAZ
        }
        #[cfg(not(target_arch = "x86_64"))]
        false
    }
}

impl Default for FlushSubnormals {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FlushSubnormals {
    fn drop(&mut self) {
        #[cfg(target_arch = "x86_64")]
        write_mxcsr(self.saved);
    }
}

#[cfg(target_arch = "x86_64")]
fn read_mxcsr() -> u32 {
    let mut value = 0u32;
    // SAFETY: `stmxcsr` stores the 32-bit control register to the given address, which is a
    // live, aligned `u32`.
    unsafe { std::arch::asm!("stmxcsr [{}]", in(reg) &mut value, options(nostack, preserves_flags)) };
    value
}

#[cfg(target_arch = "x86_64")]
fn write_mxcsr(value: u32) {
    // SAFETY: `ldmxcsr` loads the control register from a live, aligned `u32`; the values
    // written are the register's own with only the FTZ and DAZ bits changed, which mask no
    // exception and change no rounding.
    // Not marked as leaving memory alone, so the compiler moves no load or store across it.
    unsafe { std::arch::asm!("ldmxcsr [{}]", in(reg) &value, options(nostack, preserves_flags)) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Within the guard a product below the normal range is zero and a subnormal input reads
    /// as zero; after it, both are what IEEE 754 gives. (Each operand goes through `black_box`
    /// at each use, so the compiler, which assumes one floating-point mode, cannot reuse a
    /// result computed under the other.)
    #[test]
    #[cfg(target_arch = "x86_64")]
    fn subnormals_are_flushed_inside_the_guard_only() {
        use std::hint::black_box as opaque;
        let tiny_product = || opaque(opaque(1e-30f32) * opaque(1e-15f32));
        let subnormal_sum = || opaque(opaque(f32::from_bits(1)) + opaque(0.0f32));
        assert!(!FlushSubnormals::active());
        assert!(tiny_product() > 0.0 && subnormal_sum() > 0.0);
        {
            let _g = FlushSubnormals::new();
            assert!(FlushSubnormals::active());
            assert_eq!(tiny_product(), 0.0);
            assert_eq!(subnormal_sum(), 0.0);
        }
        assert!(!FlushSubnormals::active());
        assert!(tiny_product() > 0.0 && subnormal_sum() > 0.0);
    }
}
