//! Many spheres against many boxes at once (the reference article's scene): structure-of-arrays
//! layout so the compiler can run the per-pair arithmetic several lanes at a time.

use super::touching;
use crate::geometry::Cuboid;
use crate::math::{Mat3, Pose, Real, Vec3};

/// Oriented boxes stored field by field: centre, rotation columns, half extents and bounding
/// radius, one array each.
#[derive(Clone, Debug, Default)]
pub struct ObbSoa {
    c: [Vec<Real>; 3],
    /// `r[3 * col + row]`: the rotation matrix, column-major.
    r: [Vec<Real>; 9],
    h: [Vec<Real>; 3],
    bound: Vec<Real>,
}

impl ObbSoa {
    pub fn new(boxes: &[(Cuboid, Pose)]) -> Self {
        let mut s = Self::default();
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
        s
    }

    pub fn len(&self) -> usize {
        self.bound.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bound.is_empty()
    }
}

/// Every (sphere, box) pair that touches (`d² <= r² + eps`, closest point by clamping in the
/// box's frame), appended to `out` in sphere-major order. `pretest` first rejects pairs whose
/// bounding spheres are apart; the answer is the same either way. `mask` is scratch space.
pub fn spheres_vs_obbs(
    spheres: &[(Vec3, Real)],
    boxes: &ObbSoa,
    eps: Real,
    pretest: bool,
    mask: &mut Vec<u8>,
    out: &mut Vec<(u32, u32)>,
) {
    let n = boxes.len();
    mask.clear();
    mask.resize(n, 0);
    // Slices of one known length let the compiler drop bounds checks and vectorise the loops.
    let [cx, cy, cz] = [&boxes.c[0][..n], &boxes.c[1][..n], &boxes.c[2][..n]];
    let [hx, hy, hz] = [&boxes.h[0][..n], &boxes.h[1][..n], &boxes.h[2][..n]];
    let r: [&[Real]; 9] = std::array::from_fn(|k| &boxes.r[k][..n]);
    let bound = &boxes.bound[..n];
    let mask = &mut mask[..n];
    for (i, &(s, rad)) in spheres.iter().enumerate() {
        let rr = rad * rad + eps;
        let exact = |j: usize| -> bool {
            let (dx, dy, dz) = (s.x - cx[j], s.y - cy[j], s.z - cz[j]);
            // Into the box's frame: the transpose of the rotation times d.
            let lx = r[0][j] * dx + r[1][j] * dy + r[2][j] * dz;
            let ly = r[3][j] * dx + r[4][j] * dy + r[5][j] * dz;
            let lz = r[6][j] * dx + r[7][j] * dy + r[8][j] * dz;
            let ex = lx - lx.max(-hx[j]).min(hx[j]);
            let ey = ly - ly.max(-hy[j]).min(hy[j]);
            let ez = lz - lz.max(-hz[j]).min(hz[j]);
            touching(ex * ex + ey * ey + ez * ez, 0.0, rr)
        };
        if pretest {
            for (j, m) in mask.iter_mut().enumerate() {
                let (dx, dy, dz) = (s.x - cx[j], s.y - cy[j], s.z - cz[j]);
                let reach = rad + bound[j];
                *m = touching(dx * dx + dy * dy + dz * dz, reach, eps) as u8;
            }
            for (j, &m) in mask.iter().enumerate() {
                if m != 0 && exact(j) {
                    out.push((i as u32, j as u32));
                }
            }
        } else {
            for (j, m) in mask.iter_mut().enumerate() {
                *m = exact(j) as u8;
            }
            for (j, &m) in mask.iter().enumerate() {
                if m != 0 {
                    out.push((i as u32, j as u32));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Sphere;
    use crate::math::Quat;
    use crate::narrowphase::intersect_sphere_cuboid;

    #[test]
    fn batch_matches_pairwise_tests_with_and_without_pretest() {
        let mut seed = 12345u32;
        let mut rnd = |lo: Real, hi: Real| {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            lo + (hi - lo) * (seed >> 8) as Real / (1u32 << 24) as Real
        };
        let spheres: Vec<(Vec3, Real)> =
            (0..60).map(|_| (Vec3::new(rnd(0.0, 10.0), rnd(0.0, 10.0), rnd(0.0, 10.0)), rnd(0.2, 1.0))).collect();
        let boxes: Vec<(Cuboid, Pose)> = (0..70)
            .map(|_| {
                let q = Quat::from_euler(glam::EulerRot::XYZ, rnd(0.0, 6.3), rnd(0.0, 6.3), rnd(0.0, 6.3));
                let c = Cuboid { half_extents: Vec3::new(rnd(0.2, 1.0), rnd(0.2, 1.0), rnd(0.2, 1.0)) };
                (c, Pose::new(Vec3::new(rnd(0.0, 10.0), rnd(0.0, 10.0), rnd(0.0, 10.0)), q))
            })
            .collect();
        let soa = ObbSoa::new(&boxes);
        let mut expected = Vec::new();
        for (i, &(c, r)) in spheres.iter().enumerate() {
            for (j, (b, p)) in boxes.iter().enumerate() {
                if intersect_sphere_cuboid(&Sphere { radius: r }, &Pose::from_translation(c), b, p, 1e-6) {
                    expected.push((i as u32, j as u32));
                }
            }
        }
        assert!(!expected.is_empty());
        for pretest in [false, true] {
            let (mut mask, mut out) = (Vec::new(), Vec::new());
            spheres_vs_obbs(&spheres, &soa, 1e-6, pretest, &mut mask, &mut out);
            assert_eq!(out, expected, "pretest {pretest}");
        }
    }
}
