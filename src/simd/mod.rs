//! Which wide instruction sets this CPU runs: the one place the engine asks. The answers are
//! detected on the first question and kept in one byte, so each later question is one load.
//!
//! Two kinds of code depend on the answer:
//! - kernels written with AVX/AVX2 intrinsics (support queries, EPA's row scans, the solver's
//!   lanes, the broad phase's box scans, the batch pair tests), each beside a portable or SSE2
//!   twin that gives the same bits on NaN-free inputs. A routine's kernels are an enum that
//!   implements [`Kernels`]: its ladder names each kernel with the [`Level`] it needs, and
//!   `best()` (the widest this CPU runs) and `available()` (for tests) come from the ladder;
//! - whole routines compiled twice from one source, once for the x86-64 baseline and once
//!   with the x86-64-v3 features (`#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]`
//!   on an `unsafe fn …_v3` that calls the `#[inline(always)]` body): the same operations in
//!   the same order (rustc never fuses a multiply and an add on its own, and FMA is not
//!   enabled), so the same bits, in fewer instructions (three-operand VEX forms, `tzcnt`) and
//!   with the AVX kernels inlined instead of called. The copies are kernels too: [`Compiled`].
//!
//! Either way a routine asks `K::best()` of its [`Kernels`] enum and matches on the answer.

pub(crate) mod boxes;
pub(crate) mod corners;
pub(crate) mod f32x4;
pub(crate) mod f32x8;
pub(crate) mod lanes8;
pub(crate) mod slots;

/// Asks the CPU to start loading the cache line at `p` ahead of its use: a hint that never
/// faults, whatever the address, and does nothing off x86-64.
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE is part of every x86_64 CPU; a prefetch never faults, whatever the address.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Writes `value` into `slot`, on x86-64 past the caches (streaming stores): for records written
/// once and read next by another agent (the GPU upload), which need not evict the lines other
/// data is read through, nor read each line before writing it. [`stores_done`] ends a run of
/// them. `T` must be aligned to 16 bytes and a whole number of 16-byte lanes (checked when
/// compiled).
///
/// # Safety
/// `T` has no padding bytes: every byte of `value` is initialised.
#[cfg_attr(not(feature = "gui"), allow(dead_code))]
#[inline(always)]
pub(crate) unsafe fn store_streaming<T: Copy>(slot: &mut std::mem::MaybeUninit<T>, value: T) {
    const { assert!(std::mem::align_of::<T>() == 16 && std::mem::size_of::<T>().is_multiple_of(16)) };
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; `slot` is valid for a write of a `T`, aligned to 16 (as
    // `_mm_stream_si128` requires) and a whole number of 16-byte lanes (checked above), each
    // written from `value`'s bytes, all initialised (the caller's promise).
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_stream_si128};
        let (src, dst) = ((&raw const value).cast::<__m128i>(), slot.as_mut_ptr().cast::<__m128i>());
        for k in 0..std::mem::size_of::<T>() / 16 {
            _mm_stream_si128(dst.add(k), _mm_loadu_si128(src.add(k)));
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    slot.write(value);
}

/// Orders the streaming stores ([`store_streaming`]) made so far before whatever follows, so
/// every thread that later reads what they wrote sees it.
#[cfg_attr(not(feature = "gui"), allow(dead_code))]
#[inline(always)]
pub(crate) fn stores_done() {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

/// Appends to a `Vec` without a branch per item (a compress store, one item at a time): each
/// item is written to the next free slot, and the length moves past it only when it is kept.
/// Room for `room` items is reserved when it is made; a push beyond that panics. The `Vec`
/// takes the kept items when the `Compact` is dropped.
pub(crate) struct Compact<'v, T: Copy> {
    vec: &'v mut Vec<T>,
    start: *mut T,
    next: *mut T,
    /// One past the last reserved slot.
    end: *mut T,
}

impl<'v, T: Copy> Compact<'v, T> {
    /// Appends to `vec`, with room for `room` more items.
    pub(crate) fn new(vec: &'v mut Vec<T>, room: usize) -> Self {
        vec.reserve(room);
        let start = vec.spare_capacity_mut().as_mut_ptr().cast::<T>();
        Compact { start, next: start, end: start.wrapping_add(room), vec }
    }

    /// Writes `x` to the next slot; keeps it if `keep`.
    #[inline(always)]
    pub(crate) fn push(&mut self, x: T, keep: bool) {
        assert!(self.next < self.end, "more items than the room reserved");
        // SAFETY: `next` is below `end`, within the capacity reserved in `new`, which the
        // exclusive borrow of the `Vec` keeps.
        unsafe {
            self.next.write(x);
            self.next = self.next.add(keep as usize);
        }
    }
}

impl<T: Copy> Drop for Compact<'_, T> {
    fn drop(&mut self) {
        // SAFETY: `next` advanced from `start` (the end of the `Vec`'s items) within the
        // reserved capacity, and every slot it passed was written.
        unsafe {
            let kept = self.next.offset_from(self.start) as usize;
            self.vec.set_len(self.vec.len() + kept);
        }
    }
}

/// What the CPU runs, one bit per answer, detected on the first question and then read with
/// one load: std's own cache costs a few instructions per feature, and the pair tests ask once
/// or twice per pair.
#[cfg(target_arch = "x86_64")]
mod level {
    use std::sync::atomic::{AtomicU8, Ordering};

    pub(super) const KNOWN: u8 = 1;
    pub(super) const AVX: u8 = 2;
    pub(super) const AVX2: u8 = 4;
    pub(super) const V3: u8 = 8;

    static LEVEL: AtomicU8 = AtomicU8::new(0);

    #[inline]
    pub(super) fn get() -> u8 {
        match LEVEL.load(Ordering::Relaxed) {
            0 => detect(),
            level => level,
        }
    }

    #[cold]
    fn detect() -> u8 {
        use std::arch::is_x86_feature_detected as has;
        // The features the `…_v3` copies are compiled with ([`super::Compiled`]) must all be
        // checked here.
        let avx = has!("avx");
        let avx2 = avx && has!("avx2");
        let v3 = avx2 && has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
        let level = KNOWN | if avx { AVX } else { 0 } | if avx2 { AVX2 } else { 0 } | if v3 { V3 } else { 0 };
        LEVEL.store(level, Ordering::Relaxed);
        level
    }
}

/// The CPU runs AVX (256-bit floating-point registers).
#[inline]
pub(crate) fn avx() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        level::get() & level::AVX != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The CPU runs AVX2 (and so AVX).
#[inline]
pub(crate) fn avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        level::get() & level::AVX2 != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The CPU runs every feature the routines' second copies are compiled with (AVX, AVX2, BMI1,
/// BMI2, LZCNT, POPCNT: the x86-64-v3 level without FMA, which nothing here uses).
#[inline]
pub(crate) fn x86_64_v3() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        level::get() & level::V3 != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// What a kernel needs of the CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Level {
    /// The x86-64 baseline (SSE2), or any CPU for portable code.
    Baseline,
    /// AVX.
    Avx,
    /// AVX2.
    Avx2,
    /// The x86-64-v3 features the `…_v3` copies are compiled with ([`x86_64_v3`]).
    V3,
}

impl Level {
    /// Whether this CPU runs code that needs this level.
    #[inline]
    pub(crate) fn runs(self) -> bool {
        match self {
            Level::Baseline => true,
            Level::Avx => avx(),
            Level::Avx2 => avx2(),
            Level::V3 => x86_64_v3(),
        }
    }
}

/// The kernels of one routine, chosen by what the CPU runs: the one way the engine picks a
/// kernel.
pub(crate) trait Kernels: Copy + 'static {
    /// Every kernel with the level it needs, widest first; the last needs only the baseline.
    const LADDER: &'static [(Self, Level)];

    /// The widest kernel this CPU runs.
    #[inline]
    fn best() -> Self {
        Self::LADDER.iter().find(|(_, level)| level.runs()).expect("a ladder ends at the baseline").0
    }

    /// Every kernel this CPU runs, widest first (for tests and benches).
    fn available() -> Vec<Self> {
        Self::LADDER.iter().filter(|(_, level)| level.runs()).map(|&(k, _)| k).collect()
    }
}

/// The two compiled copies of a routine: with the x86-64-v3 features (an `unsafe fn …_v3`
/// with `#[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]`) or the baseline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compiled {
    /// The x86-64-v3 copy.
    V3,
    /// The baseline copy.
    Baseline,
}

impl Kernels for Compiled {
    const LADDER: &'static [(Self, Level)] = &[(Compiled::V3, Level::V3), (Compiled::Baseline, Level::Baseline)];
}

/// Writes a routine compiled twice ([`Compiled`]) once: `compiled_twice! { #[attrs] vis fn
/// name(arg: Type, …) -> Ret = body, name_v3; }` emits `name`, which runs `body` in its
/// x86-64-v3 copy where the CPU has every feature of it and in the baseline copy elsewhere, and
/// that copy, `name_v3`: an `unsafe fn` with the features enabled whose one statement calls
/// `body` (the tests compare the copies bit for bit). `body` must be `#[inline(always)]`, so that
/// each copy compiles the same operations in the same order, for its own target.
///
/// Inside an `impl` block, `compiled_twice! { #[attrs] vis fn name(&self, arg: Type, …) -> Ret
/// = Self::body, name_v3; }` emits the two as methods calling the method `body`.
macro_rules! compiled_twice {
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident(&self $(, $arg:ident: $ty:ty)* $(,)?) $(-> $ret:ty)? = Self::$body:ident, $v3:ident;
    ) => {
        $(#[$attr])*
        $vis fn $name(&self $(, $arg: $ty)*) $(-> $ret)? {
            match <$crate::simd::Compiled as $crate::simd::Kernels>::best() {
                // SAFETY: `best` answers `V3` only where the CPU runs every feature the copy
                // enables (`simd::x86_64_v3` checks each of them).
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Compiled::V3 => unsafe { self.$v3($($arg),*) },
                _ => self.$body($($arg),*),
            }
        }

        #[doc = concat!("The x86-64-v3 copy of [`Self::", stringify!($body), "`] ([`crate::simd::Compiled`]).")]
        ///
        /// # Safety
        /// The CPU must run every enabled feature ([`crate::simd::x86_64_v3`]).
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]
        unsafe fn $v3(&self $(, $arg: $ty)*) $(-> $ret)? {
            self.$body($($arg),*)
        }
    };
    (
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty = $body:path, $v3:ident;
    ) => {
        $(#[$attr])*
        $vis fn $name($($arg: $ty),*) -> $ret {
            match <$crate::simd::Compiled as $crate::simd::Kernels>::best() {
                // SAFETY: `best` answers `V3` only where the CPU runs every feature the copy
                // enables (`simd::x86_64_v3` checks each of them).
                #[cfg(target_arch = "x86_64")]
                $crate::simd::Compiled::V3 => unsafe { $v3($($arg),*) },
                _ => $body($($arg),*),
            }
        }

        #[doc = concat!("The x86-64-v3 copy of [`", stringify!($body), "`] ([`crate::simd::Compiled`]).")]
        ///
        /// # Safety
        /// The CPU must run every enabled feature ([`crate::simd::x86_64_v3`]).
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx,avx2,bmi1,bmi2,lzcnt,popcnt")]
        unsafe fn $v3($($arg: $ty),*) -> $ret {
            $body($($arg),*)
        }
    };
}
pub(crate) use compiled_twice;

/// Defines `$wrapper`, the kernel `$kernel` compiled for AVX (8 lanes): an `unsafe fn` with
/// the feature enabled whose one statement calls the kernel, which must be `#[inline(always)]`
/// so that its loops are vectorised inside the wrapper. [`run_on`] calls it.
macro_rules! avx_wrapper {
    ($wrapper:ident => $kernel:ident($($arg:ident: $ty:ty),* $(,)?)) => {
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx")]
        unsafe fn $wrapper($($arg: $ty),*) {
            $kernel($($arg),*)
        }
    };
}
pub(crate) use avx_wrapper;

/// Calls `$avx` (an [`avx_wrapper`]) when `$wanted` and the CPU has AVX, else `$portable`,
/// with `$args`.
macro_rules! run_on {
    ($wanted:expr, $portable:ident, $avx:ident, ($($a:expr),* $(,)?)) => {{
        #[cfg(target_arch = "x86_64")]
        let avx = $wanted && $crate::simd::avx();
        #[cfg(not(target_arch = "x86_64"))]
        let avx = { let _ = $wanted; false };
        if avx {
            // SAFETY: the CPU supports AVX, checked just above.
            #[cfg(target_arch = "x86_64")]
            unsafe {
                $avx($($a),*)
            }
        } else {
            $portable($($a),*)
        }
    }};
}
pub(crate) use run_on;

/// A kernel on 256-bit AVX registers, or its portable (SSE2) twin: the same bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Avx {
    /// 256-bit AVX intrinsics.
    Avx,
    /// Portable code (SSE2 on x86-64).
    Portable,
}

impl Kernels for Avx {
    const LADDER: &'static [(Self, Level)] = &[(Avx::Avx, Level::Avx), (Avx::Portable, Level::Baseline)];
}

#[cfg(test)]
mod tests {
    /// The cached answers are std's.
    #[test]
    fn cached_answers_match_std() {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            for _ in 0..2 {
                assert_eq!(super::avx(), has!("avx"));
                assert_eq!(super::avx2(), has!("avx") && has!("avx2"));
                let v3 = has!("bmi1") && has!("bmi2") && has!("lzcnt") && has!("popcnt");
                assert_eq!(super::x86_64_v3(), super::avx2() && v3);
            }
        }
    }
}
