//! Boxes as structure-of-arrays, tested eight (AVX) or four (SSE2) candidates at a time into a
//! bitmask whose set bits are walked afterwards: the kernel of brute force, of sweep and prune
//! and of testing oversized bodies against all. A portable path does the same eight at a time in
//! plain Rust; all paths are checked against [`Aabb::overlaps`].

use crate::geometry::Aabb;
use crate::math::Real;
use crate::simd::{Kernels, Level};

/// Which instruction set the scan uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// Plain Rust, eight boxes per mask (chosen only where no vector kernel exists, and by tests).
    #[cfg_attr(target_arch = "x86_64", allow(dead_code))]
    Portable,
    /// 128-bit SSE2 (always present on x86-64), four boxes per mask.
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// 256-bit AVX, eight boxes per mask; detected at run time.
    #[cfg(target_arch = "x86_64")]
    Avx,
}

impl Kernels for Kernel {
    #[cfg(target_arch = "x86_64")]
    const LADDER: &'static [(Kernel, Level)] =
        &[(Kernel::Avx, Level::Avx), (Kernel::Sse2, Level::Baseline), (Kernel::Portable, Level::Baseline)];
    #[cfg(not(target_arch = "x86_64"))]
    const LADDER: &'static [(Kernel, Level)] = &[(Kernel::Portable, Level::Baseline)];
}

/// A query box in the arrays' axis order: `[min0, min1, min2, max0, max1, max2]`.
pub(crate) type Query = [Real; 6];

pub(crate) struct SoaBoxes {
    /// Minima per stored axis; stored axis 0 is the sweep axis when loaded with one.
    lo: [Vec<Real>; 3],
    hi: [Vec<Real>; 3],
    /// World axis of each stored axis.
    axes: [usize; 3],
    kernel: Kernel,
}

impl Default for SoaBoxes {
    fn default() -> Self {
        SoaBoxes { lo: Default::default(), hi: Default::default(), axes: [0, 1, 2], kernel: Kernel::best() }
    }
}

impl SoaBoxes {
    /// Loads `aabbs` in world axis order.
    pub(crate) fn load<'a>(&mut self, aabbs: impl Iterator<Item = &'a Aabb>) {
        self.load_axes(aabbs, [0, 1, 2]);
    }

    /// Loads `aabbs` with world axis `axes[k]` stored as axis `k`.
    pub(crate) fn load_axes<'a>(&mut self, aabbs: impl Iterator<Item = &'a Aabb>, axes: [usize; 3]) {
        self.axes = axes;
        // Room for them all at once: grown push by push, a fresh set reallocates a dozen
        // times per axis.
        let n = aabbs.size_hint().0;
        for v in self.lo.iter_mut().chain(self.hi.iter_mut()) {
            v.clear();
            v.reserve(n);
        }
        for b in aabbs {
            for (k, &a) in axes.iter().enumerate() {
                self.lo[k].push(b.min[a]);
                self.hi[k].push(b.max[a]);
            }
        }
    }

    /// Forces a kernel (tests compare them all).
    #[cfg(test)]
    pub(crate) fn set_kernel(&mut self, kernel: Kernel) {
        self.kernel = kernel;
    }

    pub(crate) fn len(&self) -> usize {
        self.lo[0].len()
    }

    /// Minima on stored axis 0 (the sweep axis).
    pub(crate) fn lo0(&self) -> &[Real] {
        &self.lo[0]
    }

    /// Maxima on stored axis 0.
    pub(crate) fn hi0(&self) -> &[Real] {
        &self.hi[0]
    }

    /// `aabb` as a query in the stored axis order.
    #[inline]
    pub(crate) fn query_of(&self, aabb: &Aabb) -> Query {
        let a = self.axes;
        [aabb.min[a[0]], aabb.min[a[1]], aabb.min[a[2]], aabb.max[a[0]], aabb.max[a[1]], aabb.max[a[2]]]
    }

    /// Stored box `j` as a query.
    #[inline]
    pub(crate) fn query_at(&self, j: usize) -> Query {
        [self.lo[0][j], self.lo[1][j], self.lo[2][j], self.hi[0][j], self.hi[1][j], self.hi[2][j]]
    }

    /// Calls `hit(j)` for every `j >= from` whose box overlaps `a`, in ascending order.
    #[inline]
    pub(crate) fn overlapping(&self, a: &Aabb, from: usize, hit: impl FnMut(usize)) {
        self.scan::<false>(&self.query_of(a), from, hit);
    }

    /// Calls `hit(j)` for every `j >= from` whose box overlaps the query `q`, in ascending order.
    #[inline]
    pub(crate) fn scan_all(&self, q: &Query, from: usize, hit: impl FnMut(usize)) {
        self.scan::<false>(q, from, hit);
    }

    /// Like [`overlapping`](Self::overlapping) for boxes stored in ascending order of their
    /// stored-axis-0 minimum (sweep order): stops at the first box starting beyond `q`'s
    /// maximum on that axis. Returns how many boxes from `from` on overlap `q` on that axis.
    #[inline]
    pub(crate) fn overlapping_sorted(&self, q: &Query, from: usize, hit: impl FnMut(usize)) -> usize {
        self.scan::<true>(q, from, hit)
    }

    #[inline]
    fn scan<const SORTED: bool>(&self, q: &Query, from: usize, mut hit: impl FnMut(usize)) -> usize {
        let from = from.min(self.len());
        match self.kernel {
            Kernel::Portable => self.scan_portable::<SORTED>(q, from, &mut hit),
            // SAFETY: SSE2 is part of the x86-64 baseline.
            #[cfg(target_arch = "x86_64")]
            Kernel::Sse2 => unsafe { self.scan_sse2::<SORTED>(q, from, &mut hit) },
            // SAFETY: `Kernel::Avx` is only chosen after `crate::simd::avx()`.
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx => unsafe { self.scan_avx::<SORTED>(q, from, &mut hit) },
        }
    }

    /// The exact test of box `j` against `q`; also the definition the vector paths follow.
    #[inline]
    fn test(&self, q: &Query, j: usize) -> bool {
        (q[0] <= self.hi[0][j])
            & (self.lo[0][j] <= q[3])
            & (q[1] <= self.hi[1][j])
            & (self.lo[1][j] <= q[4])
            & (q[2] <= self.hi[2][j])
            & (self.lo[2][j] <= q[5])
    }

    /// The scalar tail shared by all paths, from `j` to the end.
    #[inline]
    fn scan_tail<const SORTED: bool>(&self, q: &Query, mut j: usize, hit: &mut impl FnMut(usize)) -> usize {
        let mut count = 0;
        while j < self.len() {
            // Past the window (or NaN, which no test passes): stop, as the vector paths do.
            let within = self.lo[0][j] <= q[3];
            if SORTED && !within {
                return count;
            }
            count += 1;
            if self.test(q, j) {
                hit(j);
            }
            j += 1;
        }
        count
    }

    fn scan_portable<const SORTED: bool>(&self, q: &Query, from: usize, hit: &mut impl FnMut(usize)) -> usize {
        let m = self.len();
        let (mut j, mut count) = (from, 0);
        while j + 8 <= m {
            let (mut mask, mut within) = (0u32, 0u32);
            for k in 0..8 {
                within |= ((self.lo[0][j + k] <= q[3]) as u32) << k;
                mask |= (self.test(q, j + k) as u32) << k;
            }
            walk(mask, j, hit);
            if SORTED && within != 0xff {
                return count + within.count_ones() as usize;
            }
            count += 8;
            j += 8;
        }
        count + self.scan_tail::<SORTED>(q, j, hit)
    }

    /// # Safety
    /// The CPU must support SSE2 (always true on x86-64).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "sse2")]
    unsafe fn scan_sse2<const SORTED: bool>(&self, q: &Query, from: usize, hit: &mut impl FnMut(usize)) -> usize {
        use std::arch::x86_64::*;
        let m = self.len();
        let ql: [__m128; 3] = std::array::from_fn(|a| _mm_set1_ps(q[a]));
        let qh: [__m128; 3] = std::array::from_fn(|a| _mm_set1_ps(q[3 + a]));
        let (lo, hi) = (&self.lo, &self.hi);
        let (mut j, mut count) = (from, 0);
        while j + 4 <= m {
            // SAFETY: `j + 4 <= m` and every array holds `m` values, so each load is in bounds.
            let (l, h): ([__m128; 3], [__m128; 3]) = unsafe {
                (
                    std::array::from_fn(|a| _mm_loadu_ps(lo[a].as_ptr().add(j))),
                    std::array::from_fn(|a| _mm_loadu_ps(hi[a].as_ptr().add(j))),
                )
            };
            // `cmple` is false when either side is NaN, as `<=` is.
            let within = _mm_cmple_ps(l[0], qh[0]);
            let m0 = _mm_and_ps(within, _mm_cmple_ps(ql[0], h[0]));
            let m1 = _mm_and_ps(_mm_cmple_ps(l[1], qh[1]), _mm_cmple_ps(ql[1], h[1]));
            let m2 = _mm_and_ps(_mm_cmple_ps(l[2], qh[2]), _mm_cmple_ps(ql[2], h[2]));
            let mask = _mm_movemask_ps(_mm_and_ps(m0, _mm_and_ps(m1, m2))) as u32;
            walk(mask, j, hit);
            if SORTED {
                let w = _mm_movemask_ps(within) as u32;
                if w != 0xf {
                    return count + w.count_ones() as usize;
                }
            }
            count += 4;
            j += 4;
        }
        count + self.scan_tail::<SORTED>(q, j, hit)
    }

    /// # Safety
    /// The CPU must support AVX.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    unsafe fn scan_avx<const SORTED: bool>(&self, q: &Query, from: usize, hit: &mut impl FnMut(usize)) -> usize {
        use std::arch::x86_64::*;
        let m = self.len();
        let ql: [__m256; 3] = std::array::from_fn(|a| _mm256_set1_ps(q[a]));
        let qh: [__m256; 3] = std::array::from_fn(|a| _mm256_set1_ps(q[3 + a]));
        let (lo, hi) = (&self.lo, &self.hi);
        let (mut j, mut count) = (from, 0);
        while j + 8 <= m {
            // SAFETY: `j + 8 <= m` and every array holds `m` values, so each load is in bounds.
            let (l, h): ([__m256; 3], [__m256; 3]) = unsafe {
                (
                    std::array::from_fn(|a| _mm256_loadu_ps(lo[a].as_ptr().add(j))),
                    std::array::from_fn(|a| _mm256_loadu_ps(hi[a].as_ptr().add(j))),
                )
            };
            // Ordered, quiet `<=`: false when either side is NaN, as `<=` is.
            let within = _mm256_cmp_ps::<_CMP_LE_OQ>(l[0], qh[0]);
            let m0 = _mm256_and_ps(within, _mm256_cmp_ps::<_CMP_LE_OQ>(ql[0], h[0]));
            let m1 = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(l[1], qh[1]), _mm256_cmp_ps::<_CMP_LE_OQ>(ql[1], h[1]));
            let m2 = _mm256_and_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(l[2], qh[2]), _mm256_cmp_ps::<_CMP_LE_OQ>(ql[2], h[2]));
            let mask = _mm256_movemask_ps(_mm256_and_ps(m0, _mm256_and_ps(m1, m2))) as u32;
            walk(mask, j, hit);
            if SORTED {
                let w = _mm256_movemask_ps(within) as u32;
                if w != 0xff {
                    return count + w.count_ones() as usize;
                }
            }
            count += 8;
            j += 8;
        }
        count + self.scan_tail::<SORTED>(q, j, hit)
    }
}

/// Calls `hit(base + k)` for every set bit `k` of `mask`, lowest first.
#[inline(always)]
fn walk(mut mask: u32, base: usize, hit: &mut impl FnMut(usize)) {
    while mask != 0 {
        hit(base + mask.trailing_zeros() as usize);
        mask &= mask - 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::rng::SplitMix64;

    /// Boxes on a coarse lattice (many touching faces), with NaN, infinite and inverted ones.
    fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|k| {
                let mut r = |lo: Real, hi: Real| (rng.range(lo, hi) * 2.0).round() * 0.5;
                let min = Vec3::new(r(-4.0, 4.0), r(-4.0, 4.0), r(-4.0, 4.0));
                let b = Aabb::new(min, min + Vec3::new(r(0.0, 3.0), r(0.0, 3.0), r(0.0, 3.0)));
                match k % 29 {
                    3 => Aabb::new(Vec3::new(Real::NAN, 0.0, 0.0), b.max),
                    7 => Aabb::new(b.min, Vec3::new(b.max.x, Real::INFINITY, b.max.z)),
                    11 => Aabb::new(b.max, b.min),
                    _ => b,
                }
            })
            .collect()
    }

    #[test]
    fn every_kernel_matches_the_scalar_test() {
        for n in [0, 1, 3, 4, 7, 8, 9, 17, 40, 97] {
            let aabbs = boxes(n, n as u64 + 1);
            for kernel in Kernel::available() {
                let mut soa = SoaBoxes::default();
                soa.set_kernel(kernel);
                soa.load_axes(aabbs.iter(), [1, 2, 0]);
                for (i, a) in aabbs.iter().enumerate() {
                    for from in [0, i, i + 1, n + 3] {
                        let mut got = Vec::new();
                        soa.overlapping(a, from, |j| got.push(j));
                        let expect: Vec<usize> = (from.min(n)..n).filter(|&j| a.overlaps(&aabbs[j])).collect();
                        assert_eq!(got, expect, "{kernel:?}, n = {n}, box {i}, from {from}");
                    }
                }
            }
        }
    }

    #[test]
    fn sorted_scans_stop_at_the_end_of_the_window() {
        for n in [0, 5, 8, 13, 64, 101] {
            let mut aabbs = boxes(n, 3 * n as u64 + 2);
            aabbs.sort_by(|a, b| a.min.z.total_cmp(&b.min.z));
            for kernel in Kernel::available() {
                let mut soa = SoaBoxes::default();
                soa.set_kernel(kernel);
                soa.load_axes(aabbs.iter(), [2, 0, 1]);
                for i in 0..n {
                    let q = soa.query_at(i);
                    let mut got = Vec::new();
                    let window = soa.overlapping_sorted(&q, i + 1, |j| got.push(j));
                    let a = &aabbs[i];
                    let expect: Vec<usize> = (i + 1..n).filter(|&j| a.overlaps(&aabbs[j])).collect();
                    assert_eq!(got, expect, "{kernel:?}, n = {n}, box {i}");
                    let in_window = (i + 1..n).filter(|&j| aabbs[j].min.z <= a.max.z).count();
                    assert_eq!(window, in_window, "{kernel:?}, n = {n}, box {i}: window size");
                }
            }
        }
    }
}
