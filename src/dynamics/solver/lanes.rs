//! The solver's lanes: the eight-lane types of [`crate::simd::f32x8`] (stored as [`F`],
//! computed as a [`Lane`]: [`Portable`] or [`avx::Avx`], bit-identical), plus what only the
//! solver does with them: reading its records ([`Floats`]) into lanes with 8×8 transposes, and
//! gathering the body states of eight constraints into lanes and scattering them back. Every
//! `unsafe` of the solver's kernels is here: the records' layouts, once, and the states the
//! threads share ([`States`]), whose one contract is taken on where they are made.

use super::prepare::BodyMass;
use super::rows::BodyState;
use super::{Kept, MAX_MANIFOLD_POINTS};
use crate::math::Vec3;
use crate::narrowphase::ContactPoint;
pub(super) use crate::simd::f32x8::{F32x8 as F, V3, W};

/// Floats per [`BodyState`], which is read and written eight floats at a time.
pub(super) const STATE_FLOATS: usize = 12;
const _: () = assert!(std::mem::size_of::<BodyState>() == STATE_FLOATS * 4);

/// A record the lanes read and write as floats: `repr(C)`, [`Floats::FLOATS`] `f32`s in a row
/// and nothing else, so that any bits are a valid record.
///
/// # Safety
/// The type is exactly `FLOATS` `f32`s, without padding.
pub(super) unsafe trait Floats {
    /// How many floats.
    const FLOATS: usize;
}

// SAFETY (each): `repr(C)` structs (or arrays of them) of `f32` fields only (`Vec3` is three),
// whose sizes the asserts check: a `BodyMass` is inverse inertia 0–8, centre 9–11, inverse mass
// 12, friction 13, restitution 14 and a pad float 15; a `ContactPoint` is point, depth, id (a
// float's bits); a `Kept` is five vectors (15).
unsafe impl Floats for BodyMass {
    const FLOATS: usize = 16;
}
unsafe impl Floats for BodyState {
    const FLOATS: usize = STATE_FLOATS;
}
unsafe impl Floats for [ContactPoint; MAX_MANIFOLD_POINTS] {
    const FLOATS: usize = 5 * MAX_MANIFOLD_POINTS;
}
unsafe impl Floats for [Vec3; MAX_MANIFOLD_POINTS] {
    const FLOATS: usize = 3 * MAX_MANIFOLD_POINTS;
}
unsafe impl Floats for [Kept; MAX_MANIFOLD_POINTS] {
    const FLOATS: usize = 15 * MAX_MANIFOLD_POINTS;
}
unsafe impl Floats for [f32; 8] {
    const FLOATS: usize = 8;
}
const _: () = {
    use std::mem::size_of;
    assert!(size_of::<BodyMass>() == 4 * BodyMass::FLOATS);
    assert!(size_of::<[ContactPoint; MAX_MANIFOLD_POINTS]>() == 4 * 5 * MAX_MANIFOLD_POINTS);
    assert!(size_of::<[Vec3; MAX_MANIFOLD_POINTS]>() == 4 * 3 * MAX_MANIFOLD_POINTS);
    assert!(size_of::<[Kept; MAX_MANIFOLD_POINTS]>() == 4 * 15 * MAX_MANIFOLD_POINTS);
};

/// What an empty lane reads: zeros, as many as any load takes.
static ZERO_ROW: [f32; 8] = [0.0; 8];

/// The first of `N` floats `at..` of `row`, or of the zero row.
#[inline(always)]
fn at<T: Floats, const N: usize>(row: Option<&T>, at: usize) -> *const f32 {
    assert!(at + N <= T::FLOATS, "floats {at}..{} out of {}", at + N, T::FLOATS);
    row.map_or(ZERO_ROW.as_ptr(), |r| (r as *const T).cast::<f32>().wrapping_add(at))
}

/// Floats `at..at + 8` of each record, transposed: lane `i` of `out[k]` is float `at + k` of
/// `rows[i]` (zero for `None`).
#[inline(always)]
pub(super) fn load8<L: Lane, T: Floats>(rows: [Option<&T>; W], from: usize) -> [L; 8] {
    // SAFETY: each pointer is to eight floats within its record ([`at`] checks) or the zero row.
    unsafe { L::load_transposed(rows.map(|r| at::<T, 8>(r, from))) }
}

/// As [`load8`] with four floats a record.
#[inline(always)]
pub(super) fn load4<L: Lane, T: Floats>(rows: [Option<&T>; W], from: usize) -> [L; 4] {
    // SAFETY: as in `load8`, four floats.
    unsafe { L::load_transposed4(rows.map(|r| at::<T, 4>(r, from))) }
}

/// The inverse of [`load8`]: float `k` of record `i` becomes lane `i` of `cols[k]`, for every
/// record, at floats `0..8`.
#[inline(always)]
pub(super) fn store8<L: Lane, T: Floats>(cols: [L; 8], rows: [&mut T; W]) {
    assert!(T::FLOATS >= 8);
    // SAFETY: each pointer is to eight floats of its own record, borrowed exclusively.
    unsafe { L::store_transposed(cols, rows.map(|r| (r as *mut T).cast::<f32>()), 0xFF) }
}

/// The solver's body states as the passes read and write them: a pointer and a length, so that
/// threads solving bundles of one colour side by side each reach the states of their own bodies
/// without any of them borrowing the whole slice. Its gathers and scatters are safe because of
/// the contract of [`States::new`], which the runner of the passes takes on.
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
    /// The states of `states`, for the passes.
    ///
    /// # Safety
    /// `states` stays borrowed while any copy is used, and while a copy is used:
    /// - every bundle it gathers or scatters has indices checked against `states`
    ///   ([`check_indices`]);
    /// - no other thread reads or writes the states a bundle writes (its moving bodies' lanes,
    ///   `writes_a`/`writes_b`), nor writes any state a bundle reads: bundles of one colour on
    ///   different threads meet this, as they share no moving body and no body that does not
    ///   move is written;
    /// - [`States::slice`] and [`States::range`] as they say.
    pub(super) unsafe fn new(states: &mut [BodyState]) -> Self {
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

/// The rows of eight bodies' states ([`States::rows`]), computed once for a bundle's gather and
/// scatter.
#[derive(Clone, Copy)]
pub(super) struct StateRows([*mut f32; W]);

impl States {
    /// Where the states `idx` are. The indices are not checked here (that would cost the
    /// passes' innermost loop a compare per lane): `States::new`'s contract has them checked.
    /// Only the rows of the lanes `L` computes are found (the others are never read or
    /// written).
    #[inline(always)]
    pub(super) fn rows<L: Lane>(&self, idx: &[u32; W]) -> StateRows {
        debug_assert!(idx.iter().all(|&i| (i as usize) < self.len), "body index out of range");
        let base = self.ptr.cast::<f32>();
        StateRows(std::array::from_fn(|i| {
            if i < L::LANES { base.wrapping_add(idx[i] as usize * STATE_FLOATS) } else { base }
        }))
    }

    /// Floats 0..8 of the states at `rows` (v, w, dp.x, dp.y), one lane per state: `out[k]`
    /// holds float `k` of every lane.
    #[inline(always)]
    pub(super) fn gather<L: Lane>(&self, rows: StateRows) -> [L; 8] {
        // SAFETY: each row starts a state (`States::new`'s contract: indices checked), which
        // holds twelve floats, not written by other threads meanwhile (the same contract).
        unsafe { L::load_transposed(rows.0.map(|p| p.cast_const())) }
    }

    /// All twelve floats of the states at `rows` (v, w, dp, dθ), as `gather`.
    #[inline(always)]
    pub(super) fn gather_all<L: Lane>(&self, rows: StateRows) -> [L; STATE_FLOATS] {
        let p = rows.0.map(|p| p.cast_const());
        // SAFETY: as in `gather`: floats 0..8 and 8..12 lie within each state.
        let (lo, hi) = unsafe { (L::load_transposed(p), L::load_transposed4(p.map(|q| q.wrapping_add(8)))) };
        std::array::from_fn(|k| if k < 8 { lo[k] } else { hi[k - 8] })
    }

    /// The inverse of `gather`: writes `cols` back into floats 0..8 of the states at the rows
    /// whose bit is set in `mask` (the others are left as they are).
    #[inline(always)]
    pub(super) fn scatter<L: Lane>(&self, cols: [L; 8], rows: StateRows, mask: u8) {
        // SAFETY: as in `gather`; no other thread reads or writes the states a bundle writes
        // (`States::new`'s contract).
        unsafe { L::store_transposed(cols, rows.0, mask) }
    }
}

pub(super) use crate::simd::f32x8::Lane;
