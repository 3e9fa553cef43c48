//! Many spheres against many boxes at once (the reference article's scene): the boxes in
//! structure-of-arrays layout, eight boxes per step against one sphere.

use super::Backend;
use crate::geometry::Cuboid;
use crate::math::{Mat3, Pose, Real, Vec3};

/// Boxes per step of the kernels.
const LANES: usize = 8;

/// Oriented boxes stored field by field: centre, rotation columns, half extents and bounding
/// radius, one array each, padded to a multiple of 8 with boxes that never touch anything.
#[derive(Clone, Debug, Default)]
pub struct ObbSoa {
    c: [Vec<Real>; 3],
    /// `r[3 * col + row]`: the rotation matrix, column-major.
    r: [Vec<Real>; 9],
    h: [Vec<Real>; 3],
    bound: Vec<Real>,
    len: usize,
}

impl ObbSoa {
    /// The boxes in structure-of-arrays layout, padded to whole chunks of 8.
    pub fn new(boxes: &[(Cuboid, Pose)]) -> Self {
        let mut s = Self { len: boxes.len(), ..Self::default() };
        for (b, p) in boxes {
            let m = Mat3::from_quat(p.rotation);
            for k in 0..3 {
                s.c[k].push(p.translation[k]);
                s.h[k].push(b.half_extents[k]);
            }
            for (col, axis) in [m.x_axis, m.y_axis, m.z_axis].iter().enumerate() {
                for row in 0..3 {
                    s.r[3 * col + row].push(axis[row]);
                }
            }
            s.bound.push(b.half_extents.length());
        }
        // Padding lanes sit at NaN, where every comparison fails; the kernels mask them too.
        let padded = boxes.len().div_ceil(LANES) * LANES;
        for v in s.c.iter_mut() {
            v.resize(padded, Real::NAN);
        }
        for v in s.r.iter_mut().chain(s.h.iter_mut()).chain(std::iter::once(&mut s.bound)) {
            v.resize(padded, 0.0);
        }
        s
    }

    /// Boxes stored (without the padding).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no box is stored.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Every (sphere, box) pair that touches (`d² <= r² + eps`, closest point by clamping in the
/// box's frame), appended to `out` in sphere-major order. `pretest` first rejects pairs whose
/// bounding spheres are apart; the answer is the same either way. Runs on the fastest
/// backend of this CPU.
pub fn spheres_vs_obbs(spheres: &[(Vec3, Real)], boxes: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>) {
    spheres_vs_obbs_with(Backend::best(), spheres, boxes, eps, pretest, out)
}

/// [`spheres_vs_obbs`] on a chosen backend (AVX falls back to portable on CPUs without it).
pub fn spheres_vs_obbs_with(
    backend: Backend,
    spheres: &[(Vec3, Real)],
    boxes: &ObbSoa,
    eps: Real,
    pretest: bool,
    out: &mut Vec<(u32, u32)>,
) {
    #[cfg(target_arch = "x86_64")]
    if backend == Backend::Avx && crate::simd::avx() {
        // SAFETY: the CPU supports AVX, checked just above.
        unsafe { avx::spheres_vs_obbs(spheres, boxes, eps, pretest, out) };
        return;
    }
    let _ = backend;
    portable(spheres, boxes, eps, pretest, out);
}

/// Mask of the lanes of chunk `base` that hold real boxes.
#[inline]
fn valid_lanes(len: usize, base: usize) -> u32 {
    let n = (len - base).min(LANES);
    (1u32 << n) - 1
}

/// Appends `(sphere, base + lane)` for every set bit of `bits`, lowest lane first.
#[inline]
fn push_hits(mut bits: u32, sphere: usize, base: usize, out: &mut Vec<(u32, u32)>) {
    while bits != 0 {
        out.push((sphere as u32, (base + bits.trailing_zeros() as usize) as u32));
        bits &= bits - 1;
    }
}

/// Lanes `base..base + 8` of a padded array.
#[inline]
fn lane_at(v: &[Real], base: usize) -> &[Real; LANES] {
    v[base..base + LANES].try_into().expect("ObbSoa arrays are padded to whole chunks")
}

fn portable(spheres: &[(Vec3, Real)], b: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>) {
    let chunks = b.len.div_ceil(LANES);
    for (i, &(s, rad)) in spheres.iter().enumerate() {
        let rr = rad * rad + eps;
        for ch in 0..chunks {
            let base = ch * LANES;
            let (cx, cy, cz) = (lane_at(&b.c[0], base), lane_at(&b.c[1], base), lane_at(&b.c[2], base));
            let (mut dx, mut dy, mut dz) = ([0.0; LANES], [0.0; LANES], [0.0; LANES]);
            for l in 0..LANES {
                dx[l] = s.x - cx[l];
                dy[l] = s.y - cy[l];
                dz[l] = s.z - cz[l];
            }
            let mut bits = valid_lanes(b.len, base);
            if pretest {
                let bound = lane_at(&b.bound, base);
                let mut near = 0;
                for l in 0..LANES {
                    let reach = rad + bound[l];
                    let d2 = dx[l] * dx[l] + dy[l] * dy[l] + dz[l] * dz[l];
                    near |= ((d2 <= reach * reach + eps) as u32) << l;
                }
                bits &= near;
                if bits == 0 {
                    continue;
                }
            }
            let r: [&[Real; LANES]; 9] = std::array::from_fn(|k| lane_at(&b.r[k], base));
            let (hx, hy, hz) = (lane_at(&b.h[0], base), lane_at(&b.h[1], base), lane_at(&b.h[2], base));
            let mut hit = 0;
            for l in 0..LANES {
                // Into the box's frame: the transpose of the rotation times d.
                let lx = r[0][l] * dx[l] + r[1][l] * dy[l] + r[2][l] * dz[l];
                let ly = r[3][l] * dx[l] + r[4][l] * dy[l] + r[5][l] * dz[l];
                let lz = r[6][l] * dx[l] + r[7][l] * dy[l] + r[8][l] * dz[l];
                let ex = lx - lx.max(-hx[l]).min(hx[l]);
                let ey = ly - ly.max(-hy[l]).min(hy[l]);
                let ez = lz - lz.max(-hz[l]).min(hz[l]);
                hit |= ((ex * ex + ey * ey + ez * ez <= rr) as u32) << l;
            }
            push_hits(bits & hit, i, base, out);
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use super::{LANES, ObbSoa, push_hits, valid_lanes};
    use crate::math::{Real, Vec3};
    use std::arch::x86_64::*;

    /// The portable kernel's arithmetic, operation for operation, on 8 lanes.
    #[target_feature(enable = "avx")]
    pub(super) unsafe fn spheres_vs_obbs(
        spheres: &[(Vec3, Real)],
        b: &ObbSoa,
        eps: Real,
        pretest: bool,
        out: &mut Vec<(u32, u32)>,
    ) {
        let chunks = b.len.div_ceil(LANES);
        let padded = chunks * LANES;
        // Every array holds `padded` values (ObbSoa::new), so each 8-wide load below is in bounds.
        let ptr = |v: &Vec<Real>| -> *const Real {
            assert!(v.len() >= padded);
            v.as_ptr()
        };
        let (cx, cy, cz) = (ptr(&b.c[0]), ptr(&b.c[1]), ptr(&b.c[2]));
        let r: [*const Real; 9] = std::array::from_fn(|k| ptr(&b.r[k]));
        let (hx, hy, hz) = (ptr(&b.h[0]), ptr(&b.h[1]), ptr(&b.h[2]));
        let bound = ptr(&b.bound);
        let eps_v = _mm256_set1_ps(eps);
        let sign = _mm256_set1_ps(-0.0);
        for (i, &(s, rad)) in spheres.iter().enumerate() {
            let (sx, sy, sz) = (_mm256_set1_ps(s.x), _mm256_set1_ps(s.y), _mm256_set1_ps(s.z));
            let rad_v = _mm256_set1_ps(rad);
            let rr = _mm256_set1_ps(rad * rad + eps);
            for ch in 0..chunks {
                let base = ch * LANES;
                // SAFETY: `base + 8 <= padded` and every array is at least `padded` long.
                unsafe {
                    let ld = |p: *const Real| _mm256_loadu_ps(p.add(base));
                    let dx = _mm256_sub_ps(sx, ld(cx));
                    let dy = _mm256_sub_ps(sy, ld(cy));
                    let dz = _mm256_sub_ps(sz, ld(cz));
                    let mut bits = valid_lanes(b.len, base);
                    if pretest {
                        let reach = _mm256_add_ps(rad_v, ld(bound));
                        let d2 = dot(dx, dy, dz, dx, dy, dz);
                        let lim = _mm256_add_ps(_mm256_mul_ps(reach, reach), eps_v);
                        bits &= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(d2, lim)) as u32;
                        if bits == 0 {
                            continue;
                        }
                    }
                    let lx = dot(ld(r[0]), ld(r[1]), ld(r[2]), dx, dy, dz);
                    let ly = dot(ld(r[3]), ld(r[4]), ld(r[5]), dx, dy, dz);
                    let lz = dot(ld(r[6]), ld(r[7]), ld(r[8]), dx, dy, dz);
                    let ex = outside(lx, ld(hx), sign);
                    let ey = outside(ly, ld(hy), sign);
                    let ez = outside(lz, ld(hz), sign);
                    let e2 = dot(ex, ey, ez, ex, ey, ez);
                    bits &= _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_LE_OQ>(e2, rr)) as u32;
                    push_hits(bits, i, base, out);
                }
            }
        }
    }

    /// `ax bx + ay by + az bz`, summed left to right like the portable code.
    #[inline]
    #[target_feature(enable = "avx")]
    fn dot(ax: __m256, ay: __m256, az: __m256, bx: __m256, by: __m256, bz: __m256) -> __m256 {
        let xy = _mm256_add_ps(_mm256_mul_ps(ax, bx), _mm256_mul_ps(ay, by));
        _mm256_add_ps(xy, _mm256_mul_ps(az, bz))
    }

    /// `l - clamp(l, -h, h)`: how far a local coordinate lies outside the slab.
    #[inline]
    #[target_feature(enable = "avx")]
    fn outside(l: __m256, h: __m256, sign: __m256) -> __m256 {
        let neg_h = _mm256_xor_ps(h, sign);
        _mm256_sub_ps(l, _mm256_min_ps(_mm256_max_ps(l, neg_h), h))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Sphere;
    use crate::math::Quat;
    use crate::narrowphase::intersect_sphere_cuboid;

    type Scene = (Vec<(Vec3, Real)>, Vec<(Cuboid, Pose)>);

    fn scene(n_spheres: usize, n_boxes: usize, seed: u32) -> Scene {
        let mut seed = seed;
        let mut rnd = |lo: Real, hi: Real| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            lo + (hi - lo) * (seed >> 8) as Real / (1u32 << 24) as Real
        };
        let spheres: Vec<(Vec3, Real)> = (0..n_spheres)
            .map(|_| (Vec3::new(rnd(0.0, 10.0), rnd(0.0, 10.0), rnd(0.0, 10.0)), rnd(0.2, 1.0)))
            .collect();
        let boxes: Vec<(Cuboid, Pose)> = (0..n_boxes)
            .map(|_| {
                let q = Quat::from_euler(glam::EulerRot::XYZ, rnd(0.0, 6.3), rnd(0.0, 6.3), rnd(0.0, 6.3));
                let c = Cuboid { half_extents: Vec3::new(rnd(0.2, 1.0), rnd(0.2, 1.0), rnd(0.2, 1.0)) };
                (c, Pose::new(Vec3::new(rnd(0.0, 10.0), rnd(0.0, 10.0), rnd(0.0, 10.0)), q))
            })
            .collect();
        (spheres, boxes)
    }

    #[test]
    fn batch_matches_pairwise_tests_on_every_backend_with_and_without_pretest() {
        // 70 boxes: eight full chunks and a partial one of six lanes.
        let (spheres, boxes) = scene(60, 70, 12345);
        let soa = ObbSoa::new(&boxes);
        let mut expected = Vec::new();
        for (i, &(c, r)) in spheres.iter().enumerate() {
            for (j, (b, p)) in boxes.iter().enumerate() {
                if intersect_sphere_cuboid(&Sphere { radius: r }, &Pose::from_translation(c), b, p, 1e-6) {
                    expected.push((i as u32, j as u32));
                }
            }
        }
        assert!(expected.len() > 20, "too few hits to test: {}", expected.len());
        for backend in Backend::available() {
            for pretest in [false, true] {
                let mut out = Vec::new();
                spheres_vs_obbs_with(backend, &spheres, &soa, 1e-6, pretest, &mut out);
                assert_eq!(out, expected, "{backend:?} pretest {pretest}");
            }
        }
    }

    #[test]
    fn backends_agree_exactly_on_a_dense_scene() {
        for n_boxes in [1, 7, 8, 9, 203] {
            let (spheres, boxes) = scene(150, n_boxes, 777 + n_boxes as u32);
            let soa = ObbSoa::new(&boxes);
            let mut reference = Vec::new();
            spheres_vs_obbs_with(Backend::Portable, &spheres, &soa, 1e-6, false, &mut reference);
            for backend in Backend::available() {
                for pretest in [false, true] {
                    let mut out = Vec::new();
                    spheres_vs_obbs_with(backend, &spheres, &soa, 1e-6, pretest, &mut out);
                    assert_eq!(out, reference, "{n_boxes} boxes, {backend:?}, pretest {pretest}");
                }
            }
        }
    }
}
