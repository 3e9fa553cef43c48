//! EPA's work over the face slots, 8 slots to a row: which faces a point is in front of, which
//! face is nearest the origin, and the planes of four new faces at once. On x86-64 they run on
//! SSE2 (part of every x86-64 CPU, so no run-time check); elsewhere, and as the tests' reference, in plain Rust with the
//! same operations in the same order (the same bits).

use crate::math::{Real, Vec3};
use crate::simd::Avx;

/// Rows of face slots.
pub(crate) const ROWS: usize = 16;

/// One coordinate of every face slot, 8 slots to a row, aligned for 16-byte loads.
#[repr(C, align(32))]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Slots(pub [Real; 8 * ROWS]);

/// Bit `k` for each slot `k` of the first `N` rows: the plane of the slot (normal
/// `(nx, ny, nz)`, distance `d`) has `p` strictly in front (`(nx px + ny py) + nz pz > d`,
/// `Vec3::dot`'s order). Slots with an infinite distance are never set.
#[inline(always)]
pub(crate) fn seen_mask<const N: usize>(nx: &Slots, ny: &Slots, nz: &Slots, d: &Slots, p: Vec3) -> u128 {
    #[cfg(target_arch = "x86_64")]
    {
        seen_mask_sse2::<N>(nx, ny, nz, d, p)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        seen_mask_portable::<N>(nx, ny, nz, d, p)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn seen_mask_portable<const N: usize>(nx: &Slots, ny: &Slots, nz: &Slots, d: &Slots, p: Vec3) -> u128 {
    let mut mask = 0u128;
    for k in 0..(8 * N).min(8 * ROWS) {
        mask |= ((nx.0[k] * p.x + ny.0[k] * p.y + nz.0[k] * p.z > d.0[k]) as u128) << k;
    }
    mask
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn seen_mask_sse2<const N: usize>(nx: &Slots, ny: &Slots, nz: &Slots, d: &Slots, p: Vec3) -> u128 {
    use std::arch::x86_64::*;
    let mut mask = 0u128;
    // SAFETY: SSE2 is part of every x86-64 CPU; the slots are 32-byte aligned and the loads at
    // `4 q` for `q < 2 N <= 2 ROWS` are aligned and in bounds.
    unsafe {
        let (px, py, pz) = (_mm_set1_ps(p.x), _mm_set1_ps(p.y), _mm_set1_ps(p.z));
        for q in 0..(2 * N).min(2 * ROWS) {
            let o = 4 * q;
            let xy = _mm_add_ps(
                _mm_mul_ps(_mm_load_ps(nx.0.as_ptr().add(o)), px),
                _mm_mul_ps(_mm_load_ps(ny.0.as_ptr().add(o)), py),
            );
            let dot = _mm_add_ps(xy, _mm_mul_ps(_mm_load_ps(nz.0.as_ptr().add(o)), pz));
            let m = _mm_movemask_ps(_mm_cmpgt_ps(dot, _mm_load_ps(d.0.as_ptr().add(o)))) as u32;
            mask |= (m as u128) << o;
        }
    }
    mask
}

/// The first slot holding the smallest distance over the first `N` rows (slot 0 if all are
/// infinite).
#[inline(always)]
pub(crate) fn nearest_slot<const N: usize>(d: &Slots) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        nearest_slot_sse2::<N>(d)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        nearest_slot_portable::<N>(d)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn nearest_slot_portable<const N: usize>(d: &Slots) -> usize {
    let d = &d.0[..(8 * N).min(8 * ROWS)];
    let mut m = Real::INFINITY;
    for &x in d {
        m = if x < m { x } else { m };
    }
    d.iter().position(|&x| x == m).unwrap_or(0)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn nearest_slot_sse2<const N: usize>(d: &Slots) -> usize {
    use std::arch::x86_64::*;
    let q_end = (2 * N).min(2 * ROWS);
    // SAFETY: SSE2 is part of every x86-64 CPU; the slots are 32-byte aligned and the loads at
    // `4 q` for `q < 2 N <= 2 ROWS` are aligned and in bounds.
    unsafe {
        let p = d.0.as_ptr();
        let mut m = _mm_set1_ps(Real::INFINITY);
        for q in 0..q_end {
            m = _mm_min_ps(m, _mm_load_ps(p.add(4 * q)));
        }
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b01_00_11_10>(m, m));
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b10_11_00_01>(m, m));
        // Every slot's match, then the first: no early exit to mispredict.
        let mut hits = 0u128;
        for q in 0..q_end {
            hits |= (_mm_movemask_ps(_mm_cmpeq_ps(_mm_load_ps(p.add(4 * q)), m)) as u128) << (4 * q);
        }
        // All infinite slots match too; nothing matches only for NaN.
        (hits.trailing_zeros() as usize) & (8 * ROWS - 1)
    }
}

/// [`nearest_slot`] with one 256-bit register per row on the [`Avx::Avx`] kernel: the same
/// slot.
#[inline(always)]
pub(crate) fn nearest_slot_fast<const N: usize>(kernel: Avx, d: &Slots) -> usize {
    match kernel {
        // SAFETY: `Avx::Avx` is only chosen where the CPU runs AVX ([`crate::simd::Kernels`]).
        #[cfg(target_arch = "x86_64")]
        Avx::Avx => unsafe { nearest_slot_avx::<N>(d) },
        _ => nearest_slot::<N>(d),
    }
}

/// [`seen_mask`] (with one 256-bit register per row on the [`Avx::Avx`] kernel) and, in the
/// same pass, the first slot holding the smallest distance
/// among the faces not seen, with that distance (the nearest face that stays: read before the
/// expansion writes the slots, so the scan never waits on those stores).
#[inline(always)]
pub(crate) fn scan_fast<const N: usize>(
    kernel: Avx,
    nx: &Slots,
    ny: &Slots,
    nz: &Slots,
    d: &Slots,
    p: Vec3,
) -> (u128, usize, Real) {
    match kernel {
        // SAFETY: `Avx::Avx` is only chosen where the CPU runs AVX ([`crate::simd::Kernels`]).
        #[cfg(target_arch = "x86_64")]
        Avx::Avx => unsafe { scan_avx::<N>(nx, ny, nz, d, p) },
        _ => scan_portable::<N>(nx, ny, nz, d, p),
    }
}

#[inline(always)]
pub(crate) fn scan_portable<const N: usize>(
    nx: &Slots,
    ny: &Slots,
    nz: &Slots,
    d: &Slots,
    p: Vec3,
) -> (u128, usize, Real) {
    let seen = seen_mask::<N>(nx, ny, nz, d, p);
    let (mut slot, mut min) = (0, Real::INFINITY);
    let mut first_inf = None;
    for k in 0..(8 * N).min(8 * ROWS) {
        let x = if (seen >> k) & 1 != 0 { Real::INFINITY } else { d.0[k] };
        if x < min {
            (slot, min) = (k, x);
        }
        if x == Real::INFINITY && first_inf.is_none() {
            first_inf = Some(k);
        }
    }
    if min == Real::INFINITY {
        slot = first_inf.unwrap_or(0);
    }
    (seen, slot, min)
}

/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn scan_avx<const N: usize>(nx: &Slots, ny: &Slots, nz: &Slots, d: &Slots, p: Vec3) -> (u128, usize, Real) {
    use std::arch::x86_64::*;
    let (mut mask, mut hits) = (0u128, 0u128);
    // SAFETY: AVX is enabled on this function; the slots are 32-byte aligned and the loads at
    // `8 r` for `r < N <= ROWS` are aligned and in bounds.
    unsafe {
        let inf = _mm256_set1_ps(Real::INFINITY);
        let (px, py, pz) = (_mm256_set1_ps(p.x), _mm256_set1_ps(p.y), _mm256_set1_ps(p.z));
        let mut kept = [inf; ROWS];
        let mut m = inf;
        for (r, kept) in kept.iter_mut().enumerate().take(N.min(ROWS)) {
            let o = 8 * r;
            let xy = _mm256_add_ps(
                _mm256_mul_ps(_mm256_load_ps(nx.0.as_ptr().add(o)), px),
                _mm256_mul_ps(_mm256_load_ps(ny.0.as_ptr().add(o)), py),
            );
            let dot = _mm256_add_ps(xy, _mm256_mul_ps(_mm256_load_ps(nz.0.as_ptr().add(o)), pz));
            let dist = _mm256_load_ps(d.0.as_ptr().add(o));
            let gt = _mm256_cmp_ps::<_CMP_GT_OQ>(dot, dist);
            mask |= (_mm256_movemask_ps(gt) as u32 as u128) << o;
            *kept = _mm256_blendv_ps(dist, inf, gt);
            m = _mm256_min_ps(m, *kept);
        }
        let m = _mm_min_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps::<1>(m));
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b01_00_11_10>(m, m));
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b10_11_00_01>(m, m));
        let min = _mm_cvtss_f32(m);
        let m = _mm256_set_m128(m, m);
        for (r, kept) in kept.iter().enumerate().take(N.min(ROWS)) {
            let eq = _mm256_cmp_ps::<_CMP_EQ_OQ>(*kept, m);
            hits |= (_mm256_movemask_ps(eq) as u32 as u128) << (8 * r);
        }
        (mask, (hits.trailing_zeros() as usize) & (8 * ROWS - 1), min)
    }
}

/// # Safety
/// The CPU must support AVX.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
#[inline]
unsafe fn nearest_slot_avx<const N: usize>(d: &Slots) -> usize {
    use std::arch::x86_64::*;
    // SAFETY: AVX is enabled on this function; the slots are 32-byte aligned and the loads at
    // `8 r` for `r < N <= ROWS` are aligned and in bounds.
    unsafe {
        let p = d.0.as_ptr();
        let mut m = _mm256_set1_ps(Real::INFINITY);
        for r in 0..N.min(ROWS) {
            m = _mm256_min_ps(m, _mm256_load_ps(p.add(8 * r)));
        }
        let m = _mm_min_ps(_mm256_castps256_ps128(m), _mm256_extractf128_ps::<1>(m));
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b01_00_11_10>(m, m));
        let m = _mm_min_ps(m, _mm_shuffle_ps::<0b10_11_00_01>(m, m));
        let m = _mm256_set_m128(m, m);
        let mut hits = 0u128;
        for r in 0..N.min(ROWS) {
            let eq = _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_load_ps(p.add(8 * r)), m);
            hits |= (_mm256_movemask_ps(eq) as u32 as u128) << (8 * r);
        }
        (hits.trailing_zeros() as usize) & (8 * ROWS - 1)
    }
}

/// A polytope vertex padded to 16 bytes, for one aligned load.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Point4(pub [Real; 4]);

impl Point4 {
    pub(crate) fn new(p: Vec3) -> Self {
        Self([p.x, p.y, p.z, 0.0])
    }
}

/// Planes of the four triangles `(pts[e[0]], pts[e[1]], c)` for the edges `e` of `ends`,
/// lane by lane with the scalar face's arithmetic (`n = (b - a) × (c - a)`,
/// `normal = n * (1 / |n|)`, `dist = normal · a`): `(nx, ny, nz, dist)`, a zero normal and an
/// infinite distance where `|n|` is zero or not finite (a sliver). Indices are taken modulo
/// the length of `pts`, a power of two.
#[inline(always)]
pub(crate) fn planes4(pts: &[Point4; 64], ends: [[u8; 2]; 4], c: Vec3) -> [[Real; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        planes4_sse2(pts, ends, c)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        planes4_portable(pts, ends, c)
    }
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn planes4_sse2(pts: &[Point4; 64], ends: [[u8; 2]; 4], c: Vec3) -> [[Real; 4]; 4] {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86-64 CPU; each point is 16-byte aligned (repr align)
    // and indexed in bounds (masked).
    unsafe {
        let ld = |i: u8| _mm_load_ps(pts[i as usize & 63].0.as_ptr());
        let a = transpose_sse2(ends.map(|e| ld(e[0])));
        let b = transpose_sse2(ends.map(|e| ld(e[1])));
        planes_sse2(a, b, (_mm_set1_ps(c.x), _mm_set1_ps(c.y), _mm_set1_ps(c.z)))
    }
}

/// Four points as rows to coordinates as rows.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn transpose_sse2(
    p: [std::arch::x86_64::__m128; 4],
) -> (std::arch::x86_64::__m128, std::arch::x86_64::__m128, std::arch::x86_64::__m128) {
    use std::arch::x86_64::*;
    // SAFETY: SSE2 is part of every x86-64 CPU; register operations only.
    unsafe {
        let (t0, t1) = (_mm_unpacklo_ps(p[0], p[1]), _mm_unpacklo_ps(p[2], p[3]));
        let (t2, t3) = (_mm_unpackhi_ps(p[0], p[1]), _mm_unpackhi_ps(p[2], p[3]));
        (_mm_movelh_ps(t0, t1), _mm_movehl_ps(t1, t0), _mm_movelh_ps(t2, t3))
    }
}

/// Planes of the triangles `(a, b, c)`, lane by lane, as [`planes4`] computes them.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn planes_sse2(
    (ax, ay, az): (std::arch::x86_64::__m128, std::arch::x86_64::__m128, std::arch::x86_64::__m128),
    (bx, by, bz): (std::arch::x86_64::__m128, std::arch::x86_64::__m128, std::arch::x86_64::__m128),
    (cx, cy, cz): (std::arch::x86_64::__m128, std::arch::x86_64::__m128, std::arch::x86_64::__m128),
) -> [[Real; 4]; 4] {
    use std::arch::x86_64::*;
    let mut out = [[0.0; 4]; 4];
    // SAFETY: SSE2 is part of every x86-64 CPU; the stores go to 4-value arrays, unaligned.
    unsafe {
        let (ux, uy, uz) = (_mm_sub_ps(bx, ax), _mm_sub_ps(by, ay), _mm_sub_ps(bz, az));
        let (vx, vy, vz) = (_mm_sub_ps(cx, ax), _mm_sub_ps(cy, ay), _mm_sub_ps(cz, az));
        let nx = _mm_sub_ps(_mm_mul_ps(uy, vz), _mm_mul_ps(vy, uz));
        let ny = _mm_sub_ps(_mm_mul_ps(uz, vx), _mm_mul_ps(vz, ux));
        let nz = _mm_sub_ps(_mm_mul_ps(ux, vy), _mm_mul_ps(vx, uy));
        let len = _mm_sqrt_ps(_mm_add_ps(_mm_add_ps(_mm_mul_ps(nx, nx), _mm_mul_ps(ny, ny)), _mm_mul_ps(nz, nz)));
        let inv = _mm_div_ps(_mm_set1_ps(1.0), len);
        // Finite and positive (false for NaN).
        let ok = _mm_and_ps(
            _mm_cmplt_ps(len, _mm_set1_ps(Real::INFINITY)),
            _mm_cmpgt_ps(len, _mm_set1_ps(Real::MIN_POSITIVE)),
        );
        let (px, py, pz) = (
            _mm_and_ps(ok, _mm_mul_ps(nx, inv)),
            _mm_and_ps(ok, _mm_mul_ps(ny, inv)),
            _mm_and_ps(ok, _mm_mul_ps(nz, inv)),
        );
        let d = _mm_add_ps(_mm_add_ps(_mm_mul_ps(px, ax), _mm_mul_ps(py, ay)), _mm_mul_ps(pz, az));
        let d = _mm_or_ps(_mm_and_ps(ok, d), _mm_andnot_ps(ok, _mm_set1_ps(Real::INFINITY)));
        for (o, v) in out.iter_mut().zip([px, py, pz, d]) {
            _mm_storeu_ps(o.as_mut_ptr(), v);
        }
    }
    out
}

/// Planes of the four triangles `tris` of `pts` (corners in the given order), with
/// [`planes4`]'s arithmetic: the start tetrahedron's faces in one go.
#[inline(always)]
pub(crate) fn planes4_tri(pts: &[Point4; 64], tris: [[u8; 3]; 4]) -> [[Real; 4]; 4] {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of every x86-64 CPU; each point is 16-byte aligned (repr align)
        // and indexed in bounds (masked).
        unsafe {
            let ld = |i: u8| _mm_load_ps(pts[i as usize & 63].0.as_ptr());
            let corner = |c: usize| transpose_sse2(tris.map(|t| ld(t[c])));
            planes_sse2(corner(0), corner(1), corner(2))
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        planes4_tri_portable(pts, tris)
    }
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn planes4_tri_portable(pts: &[Point4; 64], tris: [[u8; 3]; 4]) -> [[Real; 4]; 4] {
    let coords = |c: usize| -> [[Real; 4]; 3] {
        std::array::from_fn(|k| std::array::from_fn(|j| pts[tris[j][c] as usize & 63].0[k]))
    };
    planes_portable(coords(0), coords(1), coords(2))
}

#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
pub(crate) fn planes4_portable(pts: &[Point4; 64], ends: [[u8; 2]; 4], c: Vec3) -> [[Real; 4]; 4] {
    let coords = |end: usize| -> [[Real; 4]; 3] {
        std::array::from_fn(|k| std::array::from_fn(|j| pts[ends[j][end] as usize & 63].0[k]))
    };
    planes_portable(coords(0), coords(1), [[c.x; 4], [c.y; 4], [c.z; 4]])
}

/// Planes of the triangles `(a, b, c)` given coordinate by coordinate, lane by lane.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn planes_portable(a: [[Real; 4]; 3], b: [[Real; 4]; 3], c: [[Real; 4]; 3]) -> [[Real; 4]; 4] {
    let [ax, ay, az] = a;
    let u: [[Real; 4]; 3] = std::array::from_fn(|k| std::array::from_fn(|j| b[k][j] - a[k][j]));
    let v: [[Real; 4]; 3] = std::array::from_fn(|k| std::array::from_fn(|j| c[k][j] - a[k][j]));
    let nx: [Real; 4] = std::array::from_fn(|j| u[1][j] * v[2][j] - v[1][j] * u[2][j]);
    let ny: [Real; 4] = std::array::from_fn(|j| u[2][j] * v[0][j] - v[2][j] * u[0][j]);
    let nz: [Real; 4] = std::array::from_fn(|j| u[0][j] * v[1][j] - v[0][j] * u[1][j]);
    let len: [Real; 4] = std::array::from_fn(|j| (nx[j] * nx[j] + ny[j] * ny[j] + nz[j] * nz[j]).sqrt());
    let inv: [Real; 4] = std::array::from_fn(|j| 1.0 / len[j]);
    let ok: [bool; 4] = std::array::from_fn(|j| len[j].is_finite() && len[j] > Real::MIN_POSITIVE);
    let (px, py, pz): ([Real; 4], [Real; 4], [Real; 4]) = (
        std::array::from_fn(|j| if ok[j] { nx[j] * inv[j] } else { 0.0 }),
        std::array::from_fn(|j| if ok[j] { ny[j] * inv[j] } else { 0.0 }),
        std::array::from_fn(|j| if ok[j] { nz[j] * inv[j] } else { 0.0 }),
    );
    let d: [Real; 4] =
        std::array::from_fn(|j| if ok[j] { px[j] * ax[j] + py[j] * ay[j] + pz[j] * az[j] } else { Real::INFINITY });
    [px, py, pz, d]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;
    use crate::simd::Kernels;

    /// Both scans agree with a slot-by-slot reference, on ties, infinities and both row counts.
    #[test]
    fn row_scans_match_a_slot_by_slot_reference() {
        let mut rng = SplitMix64::new(0x00e9_a0b5);
        for case in 0..2000 {
            let mut v = |inf: bool| {
                Slots(std::array::from_fn(|_| {
                    if inf && rng.range(0.0, 1.0) < 0.2 {
                        Real::INFINITY
                    } else {
                        (rng.range(-4.0, 4.0) * 4.0).round() / 4.0
                    }
                }))
            };
            let (nx, ny, nz, d) = (v(false), v(false), v(false), v(true));
            let p = Vec3::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
            let want = |rows: usize| {
                let mut mask = 0u128;
                let (mut near, mut best) = (0, Real::INFINITY);
                for k in 0..rows * 8 {
                    if Vec3::new(nx.0[k], ny.0[k], nz.0[k]).dot(p) > d.0[k] {
                        mask |= 1 << k;
                    }
                    if d.0[k] < best {
                        (near, best) = (k, d.0[k]);
                    }
                }
                (mask, near)
            };
            let (mask, near) = want(4);
            assert_eq!(seen_mask::<4>(&nx, &ny, &nz, &d, p), mask, "case {case}");
            assert_eq!(seen_mask_portable::<4>(&nx, &ny, &nz, &d, p), mask, "case {case}");
            assert_eq!(nearest_slot::<4>(&d), near, "case {case}");
            assert_eq!(nearest_slot_portable::<4>(&d), near, "case {case}");
            let (mask, near) = want(ROWS);
            assert_eq!(seen_mask::<ROWS>(&nx, &ny, &nz, &d, p), mask, "case {case}");
            assert_eq!(seen_mask_portable::<ROWS>(&nx, &ny, &nz, &d, p), mask, "case {case}");
            assert_eq!(nearest_slot::<ROWS>(&d), near, "case {case}");
            assert_eq!(nearest_slot_portable::<ROWS>(&d), near, "case {case}");
            // The AVX versions where the CPU has it, and the SSE2/portable ones through the
            // same entry points.
            for avx in Avx::available() {
                // The nearest face not seen, against a slot-by-slot reference.
                for (rows, scan) in [
                    (4, scan_fast::<4>(avx, &nx, &ny, &nz, &d, p)),
                    (ROWS, scan_fast::<ROWS>(avx, &nx, &ny, &nz, &d, p)),
                ] {
                    let (mask, _) = want(rows);
                    let kept = |k: usize| if (mask >> k) & 1 != 0 { Real::INFINITY } else { d.0[k] };
                    let min = (0..rows * 8).map(kept).fold(Real::INFINITY, Real::min);
                    let slot = (0..rows * 8).position(|k| kept(k) == min).unwrap_or(0);
                    assert_eq!(scan, (mask, slot, min), "case {case} rows {rows} {avx:?}");
                }
                assert_eq!(nearest_slot_fast::<ROWS>(avx, &d), near, "case {case}");
                assert_eq!(nearest_slot_fast::<4>(avx, &d), want(4).1, "case {case}");
            }
        }
    }

    /// Four faces at once give the bits of the face-by-face arithmetic, slivers included.
    /// The scalar face's plane (`make_face`'s arithmetic): unit normal and distance, or a
    /// zero normal at infinite distance for a sliver.
    fn scalar_plane(a: Vec3, b: Vec3, c: Vec3) -> (Vec3, Real) {
        let n = (b - a).cross(c - a);
        let len = n.length();
        if !len.is_finite() || len <= Real::MIN_POSITIVE {
            (Vec3::ZERO, Real::INFINITY)
        } else {
            let normal = n * (1.0 / len);
            (normal, normal.dot(a))
        }
    }

    #[test]
    fn planes_match_the_scalar_face() {
        let mut rng = SplitMix64::new(0x0009_1ae5);
        for case in 0..2000 {
            let mut pts = [Point4::default(); 64];
            for p in pts.iter_mut() {
                *p = Point4::new(Vec3::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0)));
            }
            // Some degenerate triangles: repeated points and points on the edge's line.
            pts[1] = pts[0];
            let ends: [[u8; 2]; 4] = std::array::from_fn(|_| {
                let a = (rng.range(0.0, 8.0) as u8).min(7);
                [a, (a + 1 + (rng.range(0.0, 6.0) as u8).min(5)) % 8]
            });
            let c = if case % 7 == 0 { Vec3::from_slice(&pts[0].0[..3]) } else { rng.unit_vector() * 3.0 };
            let got = planes4(&pts, ends, c);
            assert_eq!(
                planes4_portable(&pts, ends, c).map(|r| r.map(Real::to_bits)),
                got.map(|r| r.map(Real::to_bits))
            );
            for (j, e) in ends.iter().enumerate() {
                let (a, b) =
                    (Vec3::from_slice(&pts[e[0] as usize].0[..3]), Vec3::from_slice(&pts[e[1] as usize].0[..3]));
                let (normal, dist) = scalar_plane(a, b, c);
                let got_n = Vec3::new(got[0][j], got[1][j], got[2][j]);
                assert_eq!((got_n, got[3][j].to_bits()), (normal, dist.to_bits()), "case {case} lane {j}");
            }
            // Triangles with a corner of their own each (the start tetrahedron's faces).
            let tris: [[u8; 3]; 4] = std::array::from_fn(|j| {
                let c = if case % 5 == 0 { ends[j][0] } else { (rng.range(0.0, 64.0) as u8).min(63) };
                [ends[j][0], ends[j][1], c]
            });
            let got = planes4_tri(&pts, tris);
            assert_eq!(
                planes4_tri_portable(&pts, tris).map(|r| r.map(Real::to_bits)),
                got.map(|r| r.map(Real::to_bits)),
                "case {case}"
            );
            for (j, t) in tris.iter().enumerate() {
                let [a, b, c] = t.map(|i| Vec3::from_slice(&pts[i as usize].0[..3]));
                let (normal, dist) = scalar_plane(a, b, c);
                let got_n = Vec3::new(got[0][j], got[1][j], got[2][j]);
                assert_eq!((got_n, got[3][j].to_bits()), (normal, dist.to_bits()), "case {case} tri {j}");
            }
        }
    }
}
