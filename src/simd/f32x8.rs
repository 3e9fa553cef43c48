//! Eight `f32` lanes: [`F32x8`] stores them, a [`Lane`] computes with them. Kernels are written
//! once, generic over `Lane`: [`Portable`] is plain Rust for any CPU, [`avx::Avx`] uses AVX
//! instructions. Every operation is one IEEE-rounded step per lane (no fused multiply-add), so
//! both give bit-identical results. [`V3`] is a three-vector per lane.

use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};

/// Lanes per value.
pub(crate) const W: usize = 8;

/// Eight lanes in memory, aligned for one 256-bit load.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct F32x8(pub [f32; W]);

/// Arithmetic on eight lanes.
pub(crate) trait Lane:
    Copy + Add<Output = Self> + Sub<Output = Self> + Mul<Output = Self> + AddAssign + SubAssign
{
    /// How many of the eight lanes it computes: the first `LANES` ([`Few`] computes fewer, and
    /// its loads read, and its stores write, only those).
    const LANES: usize = W;
    /// The lanes stored in `f`.
    fn load(f: &F32x8) -> Self;
    /// Eight floats from memory that need not be aligned.
    fn load_unaligned(f: &[f32; W]) -> Self;
    /// Writes the lanes into `f`.
    fn store(self, f: &mut F32x8);
    /// `x` in every lane.
    fn splat(x: f32) -> Self;
    /// `self / o`, lane by lane.
    fn div(self, o: Self) -> Self;
    /// The square root of each lane.
    fn sqrt(self) -> Self;
    /// `self` where `self > o`, else `o` (as `maxps`).
    fn max(self, o: Self) -> Self;
    /// `self` where `self < o`, else `o` (as `minps`).
    fn min(self, o: Self) -> Self;
    /// Per lane: `yes` where `self > o`, else `no`.
    fn gt_select(self, o: Self, yes: Self, no: Self) -> Self;
    /// Bit `i` set where lane `i` of `self` is `<=` that of `o` (clear where either is NaN).
    fn le_bits(self, o: Self) -> u32;
    /// `-self`, the sign bit flipped (so `-0.0` from `0.0`, unlike `0 - self`).
    fn neg(self) -> Self;
    /// `self`'s magnitude with `sign`'s sign bit (as `f32::copysign`).
    fn copysign(self, sign: Self) -> Self;
    /// Eight rows of eight floats, transposed: lane `i` of `out[k]` is float `k` of row `i`.
    ///
    /// # Safety
    /// Each `rows[i]` points at eight readable floats (any alignment).
    unsafe fn load_transposed(rows: [*const f32; W]) -> [Self; 8];
    /// As [`Lane::load_transposed`] with four floats a row: lane `i` of `out[k]` is float `k`
    /// of row `i`, `k < 4`.
    ///
    /// # Safety
    /// Each `rows[i]` points at four readable floats (any alignment).
    unsafe fn load_transposed4(rows: [*const f32; W]) -> [Self; 4];
    /// The inverse of [`Lane::load_transposed`]: float `k` of row `i` becomes lane `i` of
    /// `cols[k]`, for the rows whose bit is set in `mask` (the others are left as they are).
    ///
    /// # Safety
    /// Each `rows[i]` whose bit is set points at eight writable floats (any alignment).
    unsafe fn store_transposed(cols: [Self; 8], rows: [*mut f32; W], mask: u8);
}

/// Lanes as a plain array, one scalar operation per lane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Portable(pub [f32; W]);

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
    fn load(f: &F32x8) -> Self {
        Portable(f.0)
    }
    #[inline(always)]
    fn load_unaligned(f: &[f32; W]) -> Self {
        Portable(*f)
    }
    #[inline(always)]
    fn store(self, f: &mut F32x8) {
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
    fn le_bits(self, o: Self) -> u32 {
        (0..W).fold(0, |m, i| m | ((self.0[i] <= o.0[i]) as u32) << i)
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
    unsafe fn load_transposed(rows: [*const f32; W]) -> [Self; 8] {
        // SAFETY: each row holds eight readable floats (the caller's).
        let r: [[f32; 8]; W] = std::array::from_fn(|i| unsafe { rows[i].cast::<[f32; 8]>().read_unaligned() });
        std::array::from_fn(|k| Portable(std::array::from_fn(|i| r[i][k])))
    }
    #[inline(always)]
    unsafe fn load_transposed4(rows: [*const f32; W]) -> [Self; 4] {
        // SAFETY: each row holds four readable floats (the caller's).
        let r: [[f32; 4]; W] = std::array::from_fn(|i| unsafe { rows[i].cast::<[f32; 4]>().read_unaligned() });
        std::array::from_fn(|k| Portable(std::array::from_fn(|i| r[i][k])))
    }
    #[inline(always)]
    unsafe fn store_transposed(cols: [Self; 8], rows: [*mut f32; W], mask: u8) {
        for (i, &row) in rows.iter().enumerate().filter(|&(i, _)| mask & (1 << i) != 0) {
            let r: [f32; 8] = std::array::from_fn(|k| cols[k].0[i]);
            // SAFETY: the row holds eight writable floats (the caller's).
            unsafe { row.cast::<[f32; 8]>().write_unaligned(r) };
        }
    }
}

/// The first `N` of the eight lanes, one scalar operation per lane: the arithmetic of
/// [`Portable`] on those lanes alone, so a kernel run on `Few` gives those lanes the bits it gives
/// them on eight. For work that fills only a lane or two of the eight (a colour of one or two
/// contacts), where the eight-lane set-up costs more than the work. Loads read lanes `0..N`,
/// stores write only them, and the transposes read and write only rows `0..N`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Few<const N: usize>(pub [f32; N]);

impl<const N: usize> Few<N> {
    #[inline(always)]
    fn map2(self, o: Self, f: impl Fn(f32, f32) -> f32) -> Self {
        Few(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }
}

impl<const N: usize> Add for Few<N> {
    type Output = Self;
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        self.map2(o, |a, b| a + b)
    }
}
impl<const N: usize> Sub for Few<N> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        self.map2(o, |a, b| a - b)
    }
}
impl<const N: usize> Mul for Few<N> {
    type Output = Self;
    #[inline(always)]
    fn mul(self, o: Self) -> Self {
        self.map2(o, |a, b| a * b)
    }
}
impl<const N: usize> AddAssign for Few<N> {
    #[inline(always)]
    fn add_assign(&mut self, o: Self) {
        *self = *self + o;
    }
}
impl<const N: usize> SubAssign for Few<N> {
    #[inline(always)]
    fn sub_assign(&mut self, o: Self) {
        *self = *self - o;
    }
}

impl<const N: usize> Lane for Few<N> {
    const LANES: usize = {
        assert!(N >= 1 && N <= W);
        N
    };
    #[inline(always)]
    fn load(f: &F32x8) -> Self {
        Few(std::array::from_fn(|i| f.0[i]))
    }
    #[inline(always)]
    fn load_unaligned(f: &[f32; W]) -> Self {
        Few(std::array::from_fn(|i| f[i]))
    }
    #[inline(always)]
    fn store(self, f: &mut F32x8) {
        f.0[..N].copy_from_slice(&self.0);
    }
    #[inline(always)]
    fn splat(x: f32) -> Self {
        Few([x; N])
    }
    #[inline(always)]
    fn div(self, o: Self) -> Self {
        self.map2(o, |a, b| a / b)
    }
    #[inline(always)]
    fn sqrt(self) -> Self {
        Few(self.0.map(f32::sqrt))
    }
    #[inline(always)]
    fn max(self, o: Self) -> Self {
        self.map2(o, |a, b| if a > b { a } else { b })
    }
    #[inline(always)]
    fn min(self, o: Self) -> Self {
        self.map2(o, |a, b| if a < b { a } else { b })
    }
    #[inline(always)]
    fn gt_select(self, o: Self, yes: Self, no: Self) -> Self {
        Few(std::array::from_fn(|i| if self.0[i] > o.0[i] { yes.0[i] } else { no.0[i] }))
    }
    #[inline(always)]
    fn le_bits(self, o: Self) -> u32 {
        (0..N).fold(0, |m, i| m | ((self.0[i] <= o.0[i]) as u32) << i)
    }
    #[inline(always)]
    fn neg(self) -> Self {
        Few(self.0.map(|x| -x))
    }
    #[inline(always)]
    fn copysign(self, sign: Self) -> Self {
        self.map2(sign, f32::copysign)
    }
    #[inline(always)]
    unsafe fn load_transposed(rows: [*const f32; W]) -> [Self; 8] {
        // SAFETY: each row holds eight readable floats (the caller's); rows `0..N` are read.
        let r: [[f32; 8]; N] = std::array::from_fn(|i| unsafe { rows[i].cast::<[f32; 8]>().read_unaligned() });
        std::array::from_fn(|k| Few(std::array::from_fn(|i| r[i][k])))
    }
    #[inline(always)]
    unsafe fn load_transposed4(rows: [*const f32; W]) -> [Self; 4] {
        // SAFETY: each row holds four readable floats (the caller's); rows `0..N` are read.
        let r: [[f32; 4]; N] = std::array::from_fn(|i| unsafe { rows[i].cast::<[f32; 4]>().read_unaligned() });
        std::array::from_fn(|k| Few(std::array::from_fn(|i| r[i][k])))
    }
    #[inline(always)]
    unsafe fn store_transposed(cols: [Self; 8], rows: [*mut f32; W], mask: u8) {
        for (i, &row) in rows.iter().enumerate().take(N).filter(|&(i, _)| mask & (1 << i) != 0) {
            let r: [f32; 8] = std::array::from_fn(|k| cols[k].0[i]);
            // SAFETY: the row holds eight writable floats (the caller's).
            unsafe { row.cast::<[f32; 8]>().write_unaligned(r) };
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx;

/// Code written once over the lane type, which [`run`] runs on the lanes the CPU has.
pub(crate) trait OnLanes {
    /// What the code gives back.
    type Out;
    /// The code on lanes `L`.
    fn run<L: Lane>(self) -> Self::Out;
}

/// Runs `code` on AVX lanes, in a copy compiled with AVX (so the lanes are eight to an
/// instruction and the code around them is compiled for AVX too), when `avx` is asked for and
/// the CPU has it; else on [`Portable`] lanes. The same bits either way.
#[inline(always)]
pub(crate) fn run<C: OnLanes>(avx: bool, code: C) -> C::Out {
    #[cfg(target_arch = "x86_64")]
    if avx && super::avx() {
        // SAFETY: the CPU runs AVX, checked just above.
        return unsafe { run_avx(code) };
    }
    let _ = avx;
    code.run::<Portable>()
}

/// [`run`]'s AVX copy.
///
/// # Safety
/// The CPU must run AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
unsafe fn run_avx<C: OnLanes>(code: C) -> C::Out {
    code.run::<avx::Avx>()
}

/// A three-vector per lane.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct V3<L> {
    pub x: L,
    pub y: L,
    pub z: L,
}

impl V3<F32x8> {
    /// The stored lanes, for computing.
    #[inline(always)]
    pub(crate) fn load<L: Lane>(&self) -> V3<L> {
        V3 { x: L::load(&self.x), y: L::load(&self.y), z: L::load(&self.z) }
    }
}

impl<L: Lane> V3<L> {
    /// Writes the lanes into `f`.
    #[inline(always)]
    pub(crate) fn store(self, f: &mut V3<F32x8>) {
        self.x.store(&mut f.x);
        self.y.store(&mut f.y);
        self.z.store(&mut f.z);
    }

    /// `(x ox + y oy) + z oz`.
    #[inline(always)]
    pub(crate) fn dot(self, o: V3<L>) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// The cross product, glam's arithmetic.
    #[inline(always)]
    pub(crate) fn cross(self, o: V3<L>) -> V3<L> {
        V3 { x: self.y * o.z - self.z * o.y, y: self.z * o.x - self.x * o.z, z: self.x * o.y - self.y * o.x }
    }

    /// Every coordinate times `s`.
    #[inline(always)]
    pub(crate) fn scale(self, s: L) -> V3<L> {
        V3 { x: self.x * s, y: self.y * s, z: self.z * s }
    }

    /// Each lane turned by its quaternion `q` (x, y, z, w) as glam computes `q * v` (SSE2
    /// `Quat::mul_vec3a`): `v (w² − b·b) + b (2 v·b) + (b × v) 2w`, each dot product summed x,
    /// y, then z. The same bits as glam, lane by lane.
    #[inline(always)]
    pub(crate) fn rotated(self, q: &[L; 4]) -> V3<L> {
        let (b, w, two) = (V3 { x: q[0], y: q[1], z: q[2] }, q[3], L::splat(2.0));
        let b2 = b.dot(b);
        (self.scale(w * w - b2) + b.scale(self.dot(b) * two)) + b.cross(self).scale(w * two)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The transposing loads and store move each float where the portable lanes put it, on
    /// every kernel this CPU runs.
    #[test]
    fn transposes_agree_with_the_portable_lanes() {
        let src: Vec<f32> = (0..W * 12).map(|i| i as f32 * 0.5 - 7.0).collect();
        let rows: [*const f32; W] = std::array::from_fn(|i| src[i * 12..].as_ptr());
        // SAFETY: each row starts 12 floats apart in `src`, which holds 8 rows of 12.
        let (p8, p4) =
            unsafe { (Portable::load_transposed(rows), Portable::load_transposed4(rows.map(|r| r.wrapping_add(8)))) };
        for k in 0..8 {
            for i in 0..W {
                assert_eq!(p8[k].0[i], src[i * 12 + k]);
                if k < 4 {
                    assert_eq!(p4[k].0[i], src[i * 12 + 8 + k]);
                }
            }
        }
        let mut out = vec![0.0f32; W * 12];
        let dst: [*mut f32; W] = std::array::from_fn(|i| out[i * 12..].as_mut_ptr());
        // SAFETY: as above, written.
        unsafe { Portable::store_transposed(p8, dst, 0b1010_0101) };
        for i in 0..W {
            for k in 0..12 {
                let want = if k < 8 && 0b1010_0101 & (1 << i) != 0 { src[i * 12 + k] } else { 0.0 };
                assert_eq!(out[i * 12 + k], want, "row {i} float {k}");
            }
        }
        #[cfg(target_arch = "x86_64")]
        if crate::simd::avx() {
            // SAFETY: AVX checked just above.
            unsafe { avx::tests::transposes_match(&src, p8, p4) };
        }
    }

    /// `Few` lanes give each operation's bits in their lanes as the portable lanes give them
    /// there (NaN and signed zeros included), and read and write only their own rows.
    #[test]
    fn few_lanes_give_the_portable_bits_in_their_lanes() {
        fn check<const N: usize>(a: [f32; W], b: [f32; W]) {
            let (pa, pb) = (Portable(a), Portable(b));
            let (fa, fb) = (Few::<N>::load(&F32x8(a)), Few::<N>::load(&F32x8(b)));
            let ops: [(&str, Portable, Few<N>); 11] = [
                ("add", pa + pb, fa + fb),
                ("sub", pa - pb, fa - fb),
                ("mul", pa * pb, fa * fb),
                ("div", pa.div(pb), fa.div(fb)),
                ("sqrt", pa.sqrt(), fa.sqrt()),
                ("max", pa.max(pb), fa.max(fb)),
                ("min", pa.min(pb), fa.min(fb)),
                ("gt_select", pa.gt_select(pb, pa * pb, pa - pb), fa.gt_select(fb, fa * fb, fa - fb)),
                ("neg", pa.neg(), fa.neg()),
                ("copysign", pa.copysign(pb), fa.copysign(fb)),
                ("splat", Portable::splat(-0.0), Few::splat(-0.0)),
            ];
            for (name, p, f) in ops {
                let mut out = F32x8([7.0; W]);
                f.store(&mut out);
                for i in 0..W {
                    let want = if i < N { p.0[i] } else { 7.0 };
                    assert_eq!(out.0[i].to_bits(), want.to_bits(), "{name}, {N} lanes, lane {i}: {a:?} {b:?}");
                }
            }
            assert_eq!(fa.le_bits(fb), pa.le_bits(pb) & ((1 << N) - 1), "le_bits, {N} lanes: {a:?} {b:?}");
            let src: Vec<f32> = (0..W * 12).map(|i| i as f32 * 0.5 - 7.0).collect();
            let rows: [*const f32; W] = std::array::from_fn(|i| src[i * 12..].as_ptr());
            // SAFETY: each row starts 12 floats apart in `src`, which holds 8 rows of 12.
            let (p8, f8) = unsafe { (Portable::load_transposed(rows), Few::<N>::load_transposed(rows)) };
            // SAFETY: as above, four floats from float 8 of each row.
            let (p4, f4) = unsafe {
                let rows = rows.map(|r| r.wrapping_add(8));
                (Portable::load_transposed4(rows), Few::<N>::load_transposed4(rows))
            };
            for i in 0..N {
                assert!((0..8).all(|k| f8[k].0[i] == p8[k].0[i]) && (0..4).all(|k| f4[k].0[i] == p4[k].0[i]));
            }
            let mut out = vec![0.0f32; W * 12];
            let dst: [*mut f32; W] = std::array::from_fn(|i| out[i * 12..].as_mut_ptr());
            // SAFETY: as above, written.
            unsafe { Few::<N>::store_transposed(f8, dst, 0xFF) };
            for i in 0..W {
                for k in 0..12 {
                    let want = if i < N && k < 8 { src[i * 12 + k] } else { 0.0 };
                    assert_eq!(out[i * 12 + k], want, "{N} lanes: row {i} float {k}");
                }
            }
        }
        let a = [0.0, -0.0, 1.0, f32::NAN, 2.0, -3.0, 5.0, 0.0];
        let b = [-0.0, 0.0, f32::NAN, 1.0, 2.0, -4.0, 6.0, 1.0];
        // Every pair of values in the first lanes.
        for shift in 0..W {
            let (mut a, mut b) = (a, b);
            a.rotate_left(shift);
            b.rotate_left(shift);
            check::<1>(a, b);
            check::<2>(a, b);
            check::<W>(a, b);
        }
    }

    /// `le_bits` and the selects follow the SSE rules on NaN and signed zeros.
    #[test]
    fn comparisons_follow_sse_rules() {
        let a = Portable([0.0, -0.0, 1.0, f32::NAN, 2.0, -3.0, 5.0, 0.0]);
        let b = Portable([-0.0, 0.0, f32::NAN, 1.0, 2.0, -4.0, 6.0, 1.0]);
        assert_eq!(a.le_bits(b), 0b1101_0011);
        let bits = |l: Portable| l.0.map(f32::to_bits);
        assert_eq!(bits(a.max(b))[..3], [(-0.0f32).to_bits(), 0.0f32.to_bits(), f32::NAN.to_bits()]);
        assert_eq!(bits(a.min(b))[..3], [(-0.0f32).to_bits(), 0.0f32.to_bits(), f32::NAN.to_bits()]);
        assert_eq!(bits(a.neg())[..2], [(-0.0f32).to_bits(), 0.0f32.to_bits()]);
        #[cfg(target_arch = "x86_64")]
        if crate::simd::avx() {
            // SAFETY: AVX checked just above.
            unsafe { avx::tests::comparisons_match(a, b) };
        }
    }
}
