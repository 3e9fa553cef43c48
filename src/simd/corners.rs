//! A posed box's eight corners (or a small hull's vertices) in the world, four at a time: bit
//! for bit what `pose.transform_point` gives each, for a fraction of its instructions (the
//! speculative manifold moves up to sixteen corners a pair to the world every step).
//!
//! On x86-64 glam rotates a vector by a quaternion with SSE2 as
//! `p (w² − b·b) + b (2 p·b) + (b × p) 2w`, `b` the quaternion's vector part, with each sum and
//! product one IEEE-rounded step per lane and no fused multiply-add. Here the same steps run
//! with each lane a corner, so every corner comes out with the same bits; the test below holds
//! this against glam itself. Elsewhere the corners are glam's, one by one.

use crate::math::{Pose, Vec3};

/// Corner `i` of the box of half extents `h` in `pose`, for `i` in `0..8`, numbered as
/// [`crate::geometry::Aabb::corner`] (bit 0: +x, bit 1: +y, bit 2: +z).
#[inline(always)]
pub(crate) fn posed_box_corners(pose: &Pose, h: Vec3) -> [Vec3; 8] {
    // −h, +h alternately along x, in pairs along y, in fours along z. Scaling by ±1 is exact,
    // so these are exactly the corners' coordinates.
    let sign = |i: usize, bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
    let lanes = [
        std::array::from_fn(|i| h.x * sign(i, 1)),
        std::array::from_fn(|i| h.y * sign(i, 2)),
        std::array::from_fn(|i| h.z * sign(i, 4)),
    ];
    posed_lanes(pose, &lanes)
}

/// The eight points held as coordinate lanes (`lanes[axis][point]`, as
/// [`crate::geometry::ConvexHull::vertex_lanes`]) moved into the world by `pose`: point `i` is
/// bit for bit `pose.transform_point` of it.
#[inline(always)]
pub(crate) fn posed_lanes(pose: &Pose, lanes: &[[f32; 8]; 3]) -> [Vec3; 8] {
    #[cfg(target_arch = "x86_64")]
    {
        use super::f32x4::F32x4;
        let q = pose.rotation;
        let (b, w) = (Vec3::new(q.x, q.y, q.z), q.w);
        // Scalar steps, each as glam's lanes take them.
        let k1 = F32x4::splat(w * w - ((b.x * b.x + b.y * b.y) + b.z * b.z));
        let w2 = F32x4::splat(w * 2.0);
        let two = F32x4::splat(2.0);
        let [bx, by, bz] = [b.x, b.y, b.z].map(F32x4::splat);
        let [tx, ty, tz] = pose.translation.to_array().map(F32x4::splat);
        let mut out = [Vec3::ZERO; 8];
        for half in 0..2 {
            let load = |axis: usize| F32x4::load_unaligned(lanes[axis][4 * half..4 * half + 4].try_into().unwrap());
            let (px, py, pz) = (load(0), load(1), load(2));
            let dot2 = ((px * bx + py * by) + pz * bz) * two;
            let cx = by * pz - py * bz;
            let cy = bz * px - pz * bx;
            let cz = bx * py - px * by;
            let x = ((px * k1 + bx * dot2) + cx * w2) + tx;
            let y = ((py * k1 + by * dot2) + cy * w2) + ty;
            let z = ((pz * k1 + bz * dot2) + cz * w2) + tz;
            let mut c = [[0.0f32; 4]; 3];
            x.store_unaligned(&mut c[0]);
            y.store_unaligned(&mut c[1]);
            z.store_unaligned(&mut c[2]);
            for k in 0..4 {
                out[4 * half + k] = Vec3::new(c[0][k], c[1][k], c[2][k]);
            }
        }
        out
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        std::array::from_fn(|i| pose.transform_point(Vec3::new(lanes[0][i], lanes[1][i], lanes[2][i])))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::Aabb;
    use crate::math::Quat;
    use crate::rng::SplitMix64;

    #[test]
    fn corners_and_points_have_the_bits_of_a_quaternion_rotation() {
        let mut rng = SplitMix64::new(0xC0_4E45);
        for case in 0..20_000 {
            let axis = rng.unit_vector();
            // Exact right angles and tiny turns too, where rounding differs most.
            let angle = match case % 4 {
                0 => std::f32::consts::FRAC_PI_2 * (case % 7) as f32,
                1 => rng.range(-1e-3, 1e-3),
                _ => rng.range(-7.0, 7.0),
            };
            let pose = Pose {
                rotation: Quat::from_axis_angle(axis, angle),
                translation: Vec3::new(rng.range(-500.0, 500.0), rng.range(-1.0, 40.0), rng.range(-500.0, 500.0)),
            };
            let h = rng.vec3(0.001, 30.0);
            let points: [Vec3; 8] = std::array::from_fn(|_| rng.vec3(-2.0, 2.0) * h);
            let lanes = [points.map(|p| p.x), points.map(|p| p.y), points.map(|p| p.z)];
            for (i, g) in posed_lanes(&pose, &lanes).iter().enumerate() {
                let want = pose.transform_point(points[i]);
                let bits = |v: Vec3| v.to_array().map(f32::to_bits);
                assert_eq!(bits(*g), bits(want), "case {case}: point {i} {} in {pose:?}", points[i]);
            }
            let got = posed_box_corners(&pose, h);
            let b = Aabb::new(-h, h);
            for (i, g) in got.iter().enumerate() {
                let want = pose.transform_point(b.corner(i));
                assert_eq!(
                    g.to_array().map(f32::to_bits),
                    want.to_array().map(f32::to_bits),
                    "case {case}: corner {i} of half extents {h} in {pose:?}: {g} against {want}"
                );
            }
        }
    }
}
