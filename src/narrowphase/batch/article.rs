//! Many spheres against many boxes at once (the reference article's scene): the boxes in
//! structure-of-arrays layout, eight boxes per step against one sphere.

use super::{Backend, avx_wrapper, run_on};
use crate::geometry::Cuboid;
use crate::math::{Mat3, Pose, Real, Vec3};
use crate::simd::f32x8::{Lane, Portable};

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
    run_on!(backend == Backend::Avx, portable, wide_avx, (spheres, boxes, eps, pretest, out))
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
#[inline(always)]
fn lane_at(v: &[Real], base: usize) -> &[Real; LANES] {
    v[base..base + LANES].try_into().expect("ObbSoa arrays are padded to whole chunks")
}

/// `ax bx + ay by + az bz`, summed left to right.
#[inline(always)]
fn dot<L: Lane>(a: [L; 3], b: [L; 3]) -> L {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// The kernel, eight boxes per step on lanes `L`.
#[inline(always)]
fn kernel<L: Lane>(spheres: &[(Vec3, Real)], b: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>) {
    let chunks = b.len.div_ceil(LANES);
    let eps_v = L::splat(eps);
    for (i, &(s, rad)) in spheres.iter().enumerate() {
        let (sx, sy, sz) = (L::splat(s.x), L::splat(s.y), L::splat(s.z));
        let (rad_v, rr) = (L::splat(rad), L::splat(rad * rad + eps));
        for ch in 0..chunks {
            let base = ch * LANES;
            let ld = |v: &[Real]| L::load_unaligned(lane_at(v, base));
            let d = [sx - ld(&b.c[0]), sy - ld(&b.c[1]), sz - ld(&b.c[2])];
            let mut bits = valid_lanes(b.len, base);
            if pretest {
                let reach = rad_v + ld(&b.bound);
                bits &= dot(d, d).le_bits(reach * reach + eps_v);
                if bits == 0 {
                    continue;
                }
            }
            // Into the box's frame: the transpose of the rotation times d, then how far each
            // local coordinate lies outside the slab, `l - clamp(l, -h, h)`.
            let e: [L; 3] = std::array::from_fn(|k| {
                let l = dot([ld(&b.r[3 * k]), ld(&b.r[3 * k + 1]), ld(&b.r[3 * k + 2])], d);
                let h = ld(&b.h[k]);
                l - l.max(h.neg()).min(h)
            });
            push_hits(bits & dot(e, e).le_bits(rr), i, base, out);
        }
    }
}

fn portable(spheres: &[(Vec3, Real)], b: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>) {
    kernel::<Portable>(spheres, b, eps, pretest, out)
}

#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn wide(spheres: &[(Vec3, Real)], b: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>) {
    kernel::<crate::simd::f32x8::avx::Avx>(spheres, b, eps, pretest, out)
}

avx_wrapper!(wide_avx => wide(spheres: &[(Vec3, Real)], b: &ObbSoa, eps: Real, pretest: bool, out: &mut Vec<(u32, u32)>));

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
