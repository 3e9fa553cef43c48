//! The solver's lanes: the eight-lane types of [`crate::simd::f32x8`] (stored as [`F`],
//! computed as a [`Lane`]: [`Portable`] or [`avx::Avx`], bit-identical), plus the one thing
//! only the solver does with them: gathering the body states of eight constraints into lanes
//! and scattering them back.

use super::rows::BodyState;
#[cfg(target_arch = "x86_64")]
pub(super) use crate::simd::f32x8::avx;
pub(super) use crate::simd::f32x8::{F32x8 as F, Portable, V3, W};

/// Floats per [`BodyState`], which is read and written eight floats at a time.
pub(super) const STATE_FLOATS: usize = 12;
const _: () = assert!(std::mem::size_of::<BodyState>() == STATE_FLOATS * 4);

/// The solver's body states as the passes read and write them: a pointer and a length, so that
/// threads solving bundles of one colour side by side each reach the states of their own bodies
/// without any of them borrowing the whole slice. Whoever makes one from a slice keeps that
/// slice borrowed for as long as the copies are used.
#[derive(Clone, Copy, Debug)]
pub(super) struct States {
    ptr: *mut BodyState,
    len: usize,
}

// SAFETY: `States` is a pointer to body states; the functions that read and write through it
// state what the caller guarantees about which states other threads touch meanwhile.
unsafe impl Send for States {}
// SAFETY: as above.
unsafe impl Sync for States {}

impl States {
    pub(super) fn new(states: &mut [BodyState]) -> Self {
        States { ptr: states.as_mut_ptr(), len: states.len() }
    }

    /// The states as a slice.
    ///
    /// # Safety
    /// No other thread reads or writes any of them while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn slice<'a>(&self) -> &'a mut [BodyState] {
        // SAFETY: `ptr` and `len` come from a live slice (see `new`); exclusivity is the caller's.
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }

    /// States `r` as a slice.
    ///
    /// # Safety
    /// No other thread reads or writes any of them while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(super) unsafe fn range<'a>(&self, r: std::ops::Range<usize>) -> &'a mut [BodyState] {
        assert!(r.start <= r.end && r.end <= self.len, "states {r:?} out of {}", self.len);
        // SAFETY: in bounds (checked); exclusivity is the caller's.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(r.start), r.end - r.start) }
    }
}

/// Panics unless every body index of a bundle (`a` and `b`, each side's eight) names one of
/// `states` states. The passes gather and scatter states by these indices with no check of
/// their own: each bundle is checked once, as it is built (`build::bundle`), against the
/// states the passes then use, instead of once per pass.
pub(super) fn check_indices(states: usize, a: &[u32; W], b: &[u32; W]) {
    let max = a.iter().chain(b).fold(0, |m, &i| m.max(i));
    assert!((max as usize) < states, "body index {max} out of range of {states} states");
}

/// Eight-lane arithmetic ([`crate::simd::f32x8::Lane`]) with the body states' gathers and
/// scatter, which every lane type does through its transposing loads and store.
pub(super) trait Lane: crate::simd::f32x8::Lane {
    /// Floats 0..8 of the states at `rows` ([`state_rows`]: v, w, dp.x, dp.y), one lane per
    /// state: `out[k]` holds float `k` of every lane.
    ///
    /// # Safety
    /// Every row starts one of the states (the indices named states: see [`check_indices`]),
    /// and no other thread writes these states meanwhile.
    #[inline(always)]
    unsafe fn gather(rows: [*mut f32; W]) -> [Self; 8] {
        // SAFETY: each row starts a state, which holds twelve floats, not written by other
        // threads meanwhile (the caller's).
        unsafe { Self::load_transposed(rows.map(|p| p.cast_const())) }
    }

    /// All twelve floats of the states at `rows` (v, w, dp, dθ), as `gather`.
    ///
    /// # Safety
    /// As `gather`.
    #[inline(always)]
    unsafe fn gather_all(rows: [*mut f32; W]) -> [Self; STATE_FLOATS] {
        let p = rows.map(|p| p.cast_const());
        // SAFETY: as in `gather`: floats 0..8 and 8..12 lie within each state.
        let (lo, hi) = unsafe { (Self::load_transposed(p), Self::load_transposed4(p.map(|q| q.wrapping_add(8)))) };
        std::array::from_fn(|k| if k < 8 { lo[k] } else { hi[k - 8] })
    }

    /// The inverse of `gather`: writes `cols` back into floats 0..8 of the states at the rows
    /// whose bit is set in `mask` (the others are left as they are).
    ///
    /// # Safety
    /// Every row starts one of the states, and no other thread reads or writes the states
    /// written meanwhile.
    #[inline(always)]
    unsafe fn scatter(cols: [Self; 8], rows: [*mut f32; W], mask: u8) {
        // SAFETY: as in `gather`; no other thread reads or writes these states meanwhile (the
        // caller's contract).
        unsafe { Self::store_transposed(cols, rows, mask) }
    }
}

impl<L: crate::simd::f32x8::Lane> Lane for L {}

/// The first float of each state `idx`, computed once for a bundle's gather and scatter. The
/// indices are not checked here (that would cost the passes' innermost loop a compare per
/// lane): the caller guarantees them in range.
#[inline(always)]
pub(super) fn state_rows(states: States, idx: &[u32; W]) -> [*mut f32; W] {
    debug_assert!(idx.iter().all(|&i| (i as usize) < states.len), "body index out of range");
    let base = states.ptr.cast::<f32>();
    std::array::from_fn(|i| base.wrapping_add(idx[i] as usize * STATE_FLOATS))
}
