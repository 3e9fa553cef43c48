//! Eight `f32` lanes: [`F`] stores them, a [`Lane`] computes with them. The kernels are
//! written once, generic over `Lane`: [`Portable`] is plain Rust for any CPU, [`avx::Avx`] uses
//! AVX instructions. Every operation is one IEEE-rounded step per lane (no fused multiply-add),
//! so both give bit-identical results.

use super::rows::BodyState;
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// Lanes per bundle.
pub(super) const W: usize = 8;

/// Eight lanes in memory.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(super) struct F(pub [f32; W]);

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

    /// State `i`, read.
    ///
    /// # Safety
    /// `i < len`, and no other thread writes state `i` meanwhile.
    #[inline(always)]
    unsafe fn get(&self, i: usize) -> BodyState {
        // SAFETY: the caller's.
        unsafe { *self.ptr.add(i) }
    }

    /// State `i`, for writing.
    ///
    /// # Safety
    /// `i < len`, and no other thread reads or writes state `i` meanwhile.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    unsafe fn get_mut(&self, i: usize) -> &mut BodyState {
        // SAFETY: the caller's.
        unsafe { &mut *self.ptr.add(i) }
    }

    fn check(&self, idx: &[u32; W]) {
        let max = idx.iter().fold(0, |m, &i| m.max(i));
        assert!((max as usize) < self.len, "body index {max} out of range");
    }
}

/// Arithmetic on eight lanes.
pub(super) trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + AddAssign + SubAssign
{
    fn load(f: &F) -> Self;
    fn store(self, f: &mut F);
    fn splat(x: f32) -> Self;
    fn div(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    /// `self` where `self > o`, else `o` (as `maxps`).
    fn max(self, o: Self) -> Self;
    /// `self` where `self < o`, else `o` (as `minps`).
    fn min(self, o: Self) -> Self;
    /// Per lane: `yes` where `self > o`, else `no`.
    fn gt_select(self, o: Self, yes: Self, no: Self) -> Self;
    /// `-self`, the sign bit flipped (so `-0.0` from `0.0`, unlike `0 - self`).
    fn neg(self) -> Self;
    /// `self`'s magnitude with `sign`'s sign bit (as `f32::copysign`).
    fn copysign(self, sign: Self) -> Self;
    /// Floats 0..8 of the states `idx` (v, w, dp.x, dp.y), one lane per state: `out[k]` holds
    /// float `k` of every lane.
    ///
    /// # Safety
    /// No other thread writes these states meanwhile.
    unsafe fn gather(states: States, idx: &[u32; W]) -> [Self; 8];
    /// All twelve floats of the states `idx` (v, w, dp, dθ), as `gather`.
    ///
    /// # Safety
    /// As `gather`.
    unsafe fn gather_all(states: States, idx: &[u32; W]) -> [Self; STATE_FLOATS];
    /// The inverse of `gather`: writes `cols` back into floats 0..8 of the states of the lanes
    /// whose bit is set in `mask` (the others are left as they are).
    ///
    /// # Safety
    /// No other thread reads or writes the states written meanwhile.
    unsafe fn scatter(cols: [Self; 8], states: States, idx: &[u32; W], mask: u8);
}

#[inline(always)]
fn state_floats(s: &BodyState) -> [f32; STATE_FLOATS] {
    [s.v.x, s.v.y, s.v.z, s.w.x, s.w.y, s.w.z, s.dp.x, s.dp.y, s.dp.z, s.dtheta.x, s.dtheta.y, s.dtheta.z]
}

#[inline(always)]
fn set_state_floats(s: &mut BodyState, f: &[f32; STATE_FLOATS]) {
    s.v = glam::Vec3::new(f[0], f[1], f[2]);
    s.w = glam::Vec3::new(f[3], f[4], f[5]);
    s.dp = glam::Vec3::new(f[6], f[7], f[8]);
    s.dtheta = glam::Vec3::new(f[9], f[10], f[11]);
}

/// Lanes as a plain array, one scalar operation per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Portable(pub [f32; W]);

macro_rules! portable_op {
    ($trait:ident, $f:ident, $assign:ident, $fa:ident, $op:tt) => {
        impl $trait for Portable {
            type Output = Portable;
            #[inline(always)]
            fn $f(self, o: Portable) -> Portable {
                Portable(std::array::from_fn(|i| self.0[i] $op o.0[i]))
            }
        }
        impl $assign for Portable {
            #[inline(always)]
            fn $fa(&mut self, o: Portable) {
                *self = *self $op o;
            }
        }
    };
}
portable_op!(Add, add, AddAssign, add_assign, +);
portable_op!(Sub, sub, SubAssign, sub_assign, -);
impl Mul for Portable {
    type Output = Portable;
    #[inline(always)]
    fn mul(self, o: Portable) -> Portable {
        Portable(std::array::from_fn(|i| self.0[i] * o.0[i]))
    }
}

impl Lane for Portable {
    #[inline(always)]
    fn load(f: &F) -> Self {
        Portable(f.0)
    }
    #[inline(always)]
    fn store(self, f: &mut F) {
        f.0 = self.0;
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Portable([x; W])
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        Portable(std::array::from_fn(|i| self.0[i] / o.0[i]))
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Portable(self.0.map(f32::sqrt))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        Portable(std::array::from_fn(|i| if self.0[i] > o.0[i] { self.0[i] } else { o.0[i] }))
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        Portable(std::array::from_fn(|i| if self.0[i] < o.0[i] { self.0[i] } else { o.0[i] }))
    }
    #[inline(always)]
    fn gt_select(self, o: Self, yes: Self, no: Self) -> Self {
        Portable(std::array::from_fn(|i| if self.0[i] > o.0[i] { yes.0[i] } else { no.0[i] }))
    }
    #[inline(always)]
    fn neg(self) -> Self {
        Portable(self.0.map(|x| -x))
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        Portable(std::array::from_fn(|i| self.0[i].copysign(sign.0[i])))
    }
    #[inline(always)]
    unsafe fn gather(states: States, idx: &[u32; W]) -> [Self; 8] {
        // SAFETY: the caller's.
        let all = unsafe { Self::gather_all(states, idx) };
        std::array::from_fn(|k| all[k])
    }
    #[inline(always)]
    unsafe fn gather_all(states: States, idx: &[u32; W]) -> [Self; STATE_FLOATS] {
        states.check(idx);
        // SAFETY: indices checked; no concurrent writes by the caller's contract.
        let rows: [[f32; STATE_FLOATS]; W] =
            std::array::from_fn(|i| state_floats(&unsafe { states.get(idx[i] as usize) }));
        std::array::from_fn(|k| Portable(std::array::from_fn(|i| rows[i][k])))
    }
    #[inline(always)]
    unsafe fn scatter(cols: [Self; 8], states: States, idx: &[u32; W], mask: u8) {
        states.check(idx);
        for (i, &j) in idx.iter().enumerate().filter(|&(i, _)| mask & (1 << i) != 0) {
            // SAFETY: index checked; exclusive by the caller's contract.
            let s = unsafe { states.get_mut(j as usize) };
            let mut f = state_floats(s);
            for k in 0..8 {
                f[k] = cols[k].0[i];
            }
            set_state_floats(s, &f);
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(super) mod avx {
    //! The AVX lanes. An [`Avx`] value only exists inside functions compiled with
    //! `#[target_feature(enable = "avx")]`, which are only called once [`crate::simd::avx`]
    //! found AVX: that is what makes the intrinsics below sound to call.

    use super::{F, Lane, STATE_FLOATS, States, W};
    use std::arch::x86_64::*;
    use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

    #[derive(Clone, Copy, Debug)]
    pub(crate) struct Avx(__m256);

    macro_rules! avx_op {
        ($trait:ident, $f:ident, $intr:ident) => {
            impl $trait for Avx {
                type Output = Avx;
                #[inline(always)]
                fn $f(self, o: Avx) -> Avx {
                    // SAFETY: see the module comment: AVX is present wherever an `Avx` exists.
                    Avx(unsafe { $intr(self.0, o.0) })
                }
            }
        };
    }
    avx_op!(Add, add, _mm256_add_ps);
    avx_op!(Sub, sub, _mm256_sub_ps);
    avx_op!(Mul, mul, _mm256_mul_ps);

    impl AddAssign for Avx {
        #[inline(always)]
        fn add_assign(&mut self, o: Avx) {
            *self = *self + o;
        }
    }

    impl SubAssign for Avx {
        #[inline(always)]
        fn sub_assign(&mut self, o: Avx) {
            *self = *self - o;
        }
    }

    /// Transposes an 8×8 block of floats held as eight rows.
    #[inline(always)]
    fn transpose(r: [__m256; 8]) -> [__m256; 8] {
        // SAFETY: see the module comment; these are register-only AVX shuffles.
        unsafe {
            let t0 = _mm256_unpacklo_ps(r[0], r[1]);
            let t1 = _mm256_unpackhi_ps(r[0], r[1]);
            let t2 = _mm256_unpacklo_ps(r[2], r[3]);
            let t3 = _mm256_unpackhi_ps(r[2], r[3]);
            let t4 = _mm256_unpacklo_ps(r[4], r[5]);
            let t5 = _mm256_unpackhi_ps(r[4], r[5]);
            let t6 = _mm256_unpacklo_ps(r[6], r[7]);
            let t7 = _mm256_unpackhi_ps(r[6], r[7]);
            let s0 = _mm256_shuffle_ps::<0x44>(t0, t2);
            let s1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
            let s2 = _mm256_shuffle_ps::<0x44>(t1, t3);
            let s3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
            let s4 = _mm256_shuffle_ps::<0x44>(t4, t6);
            let s5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
            let s6 = _mm256_shuffle_ps::<0x44>(t5, t7);
            let s7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
            [
                _mm256_permute2f128_ps::<0x20>(s0, s4),
                _mm256_permute2f128_ps::<0x20>(s1, s5),
                _mm256_permute2f128_ps::<0x20>(s2, s6),
                _mm256_permute2f128_ps::<0x20>(s3, s7),
                _mm256_permute2f128_ps::<0x31>(s0, s4),
                _mm256_permute2f128_ps::<0x31>(s1, s5),
                _mm256_permute2f128_ps::<0x31>(s2, s6),
                _mm256_permute2f128_ps::<0x31>(s3, s7),
            ]
        }
    }

    /// The first float of each state `idx`, after one check that every index is in range (a
    /// check per lane costs a compare and a branch each, in the passes' innermost loop).
    #[inline(always)]
    fn state_ptrs(states: States, idx: &[u32; W]) -> [*mut f32; W] {
        states.check(idx);
        let base = states.ptr.cast::<f32>();
        std::array::from_fn(|i| base.wrapping_add(idx[i] as usize * STATE_FLOATS))
    }

    impl Lane for Avx {
        #[inline(always)]
        fn load(f: &F) -> Self {
            // SAFETY: `F` is 32-byte aligned and holds eight floats; AVX as in the module comment.
            Avx(unsafe { _mm256_load_ps(f.0.as_ptr()) })
        }
        #[inline(always)]
        fn store(self, f: &mut F) {
            // SAFETY: as in `load`.
            unsafe { _mm256_store_ps(f.0.as_mut_ptr(), self.0) }
        }
        #[inline(always)]
        fn splat(x: f32) -> Self {
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_set1_ps(x) })
        }
        #[inline(always)]
        fn div(self, o: Self) -> Self {
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_div_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn sqrt(self) -> Self {
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_sqrt_ps(self.0) })
        }
        #[inline(always)]
        fn max(self, o: Self) -> Self {
            // `maxps(a, b)` is `a > b ? a : b`, as `Portable::max`.
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_max_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn min(self, o: Self) -> Self {
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_min_ps(self.0, o.0) })
        }
        #[inline(always)]
        fn gt_select(self, o: Self, yes: Self, no: Self) -> Self {
            // SAFETY: see the module comment.
            unsafe {
                let m = _mm256_cmp_ps::<_CMP_GT_OQ>(self.0, o.0);
                Avx(_mm256_blendv_ps(no.0, yes.0, m))
            }
        }
        #[inline(always)]
        fn neg(self) -> Self {
            // SAFETY: see the module comment.
            Avx(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
        }
        #[inline(always)]
        fn copysign(self, sign: Self) -> Self {
            // SAFETY: see the module comment.
            unsafe {
                let bit = _mm256_set1_ps(-0.0);
                Avx(_mm256_or_ps(_mm256_andnot_ps(bit, self.0), _mm256_and_ps(bit, sign.0)))
            }
        }
        #[inline(always)]
        unsafe fn gather(states: States, idx: &[u32; W]) -> [Self; 8] {
            let p = state_ptrs(states, idx);
            // SAFETY: each pointer is the start of a state in `states` (`state_ptrs` checked the
            // indices), which holds twelve floats, not written by other threads meanwhile (the
            // caller's contract); AVX as in the module comment.
            let rows = std::array::from_fn(|i| unsafe { _mm256_loadu_ps(p[i]) });
            transpose(rows).map(Avx)
        }
        #[inline(always)]
        unsafe fn gather_all(states: States, idx: &[u32; W]) -> [Self; STATE_FLOATS] {
            let p = state_ptrs(states, idx);
            // SAFETY: as in `gather`: floats 0..8 and 8..12 lie within each state.
            unsafe {
                let lo = transpose(std::array::from_fn(|i| _mm256_loadu_ps(p[i])));
                // Floats 8..12, states i and i + 4 in the two halves of one register, then a 4×4
                // transpose in each half.
                let q: [__m256; 4] = std::array::from_fn(|i| {
                    _mm256_insertf128_ps::<1>(
                        _mm256_castps128_ps256(_mm_loadu_ps(p[i].add(8))),
                        _mm_loadu_ps(p[i + 4].add(8)),
                    )
                });
                let t0 = _mm256_unpacklo_ps(q[0], q[1]);
                let t1 = _mm256_unpackhi_ps(q[0], q[1]);
                let t2 = _mm256_unpacklo_ps(q[2], q[3]);
                let t3 = _mm256_unpackhi_ps(q[2], q[3]);
                let hi = [
                    _mm256_shuffle_ps::<0x44>(t0, t2),
                    _mm256_shuffle_ps::<0xEE>(t0, t2),
                    _mm256_shuffle_ps::<0x44>(t1, t3),
                    _mm256_shuffle_ps::<0xEE>(t1, t3),
                ];
                std::array::from_fn(|k| Avx(if k < 8 { lo[k] } else { hi[k - 8] }))
            }
        }
        #[inline(always)]
        unsafe fn scatter(cols: [Self; 8], states: States, idx: &[u32; W], mask: u8) {
            let p = state_ptrs(states, idx);
            let rows = transpose(cols.map(|c| c.0));
            for (i, row) in rows.into_iter().enumerate() {
                if mask & (1 << i) != 0 {
                    // SAFETY: as in `gather`; no other thread reads or writes these states
                    // meanwhile (the caller's contract).
                    unsafe { _mm256_storeu_ps(p[i], row) }
                }
            }
        }
    }
}

/// A three-vector per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) struct V3<L> {
    pub x: L,
    pub y: L,
    pub z: L,
}

impl V3<F> {
    #[inline(always)]
    pub(super) fn load<L: Lane>(&self) -> V3<L> {
        V3 { x: L::load(&self.x), y: L::load(&self.y), z: L::load(&self.z) }
    }
}

impl<L: Lane> V3<L> {
    #[inline(always)]
    pub(super) fn store(self, f: &mut V3<F>) {
        self.x.store(&mut f.x);
        self.y.store(&mut f.y);
        self.z.store(&mut f.z);
    }

    #[inline(always)]
    pub(super) fn dot(self, o: V3<L>) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    #[inline(always)]
    pub(super) fn cross(self, o: V3<L>) -> V3<L> {
        V3 { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }

    #[inline(always)]
    pub(super) fn scale(self, s: L) -> V3<L> {
        V3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
}

impl<L: Lane> Add for V3<L> {
    type Output = V3<L>;
    #[inline(always)]
    fn add(self, o: V3<L>) -> V3<L> {
        V3 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

impl<L: Lane> Sub for V3<L> {
    type Output = V3<L>;
    #[inline(always)]
    fn sub(self, o: V3<L>) -> V3<L> {
        V3 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
}

impl<L: Lane> AddAssign for V3<L> {
    #[inline(always)]
    fn add_assign(&mut self, o: V3<L>) {
        *self = *self + o;
    }
}

impl<L: Lane> SubAssign for V3<L> {
    #[inline(always)]
    fn sub_assign(&mut self, o: V3<L>) {
        *self = *self - o;
    }
}
