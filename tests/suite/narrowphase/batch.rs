//! The batch kernels and the intersection-only GJK against the scalar reference functions, on
//! every backend this CPU runs. Fixed seeds; a failure prints the pair.

use collidoscope::geometry::{Aabb, ConvexHull, Cuboid, Shape, Sphere};
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::batch::{self, AabbSoa, Backend, QuatSoa, Vec3Soa};
use collidoscope::narrowphase::{MinkowskiPair, gjk, intersect_gjk_warm};
use collidoscope::narrowphase::{
    distance, intersect_gjk, intersect_sphere_aabb, intersect_sphere_cuboid, intersect_sphere_sphere,
};
use collidoscope::scene::SplitMix64 as Rng;
use std::sync::Arc;

const EPS: Real = 1e-6;
const N: usize = 4099; // not a multiple of 8: the kernels' tails run too

/// Scalar and batch may round differently; they must agree unless the pair sits within
/// `band` of the touching boundary (`margin` = squared distance minus reach²).
fn agree(batch: bool, scalar: bool, margin: Real, band: Real) -> bool {
    batch == scalar || margin.abs() <= band
}

#[test]
fn sphere_sphere_batch_matches_scalar() {
    let mut rng = Rng::new(1);
    let pairs: Vec<(Vec3, Real, Vec3, Real)> =
        (0..N).map(|_| (rng.vec3(-2.0, 2.0), rng.range(0.1, 1.5), rng.vec3(-2.0, 2.0), rng.range(0.1, 1.5))).collect();
    let ca: Vec3Soa = pairs.iter().map(|p| p.0).collect();
    let cb: Vec3Soa = pairs.iter().map(|p| p.2).collect();
    let ra: Vec<Real> = pairs.iter().map(|p| p.1).collect();
    let rb: Vec<Real> = pairs.iter().map(|p| p.3).collect();
    for backend in Backend::available() {
        let mut out = vec![false; N];
        batch::intersect_sphere_sphere(&ca, &ra, &cb, &rb, EPS, backend, &mut out).unwrap();
        let mut hits = 0;
        for (i, &(a, r1, b, r2)) in pairs.iter().enumerate() {
            let want = intersect_sphere_sphere(
                &Sphere { radius: r1 },
                &Pose::from_translation(a),
                &Sphere { radius: r2 },
                &Pose::from_translation(b),
                EPS,
            );
            assert_eq!(out[i], want, "{backend:?} pair {i}: {:?}", pairs[i]);
            hits += want as usize;
        }
        assert!(hits > N / 10 && hits < N * 9 / 10, "{hits} hits: the data should mix both answers");
    }
}

#[test]
fn sphere_aabb_batch_matches_scalar() {
    let mut rng = Rng::new(2);
    let pairs: Vec<(Vec3, Real, Aabb)> = (0..N)
        .map(|_| {
            (
                rng.vec3(-2.0, 2.0),
                rng.range(0.1, 1.0),
                Aabb::from_center_half_extents(rng.vec3(-0.5, 0.5), rng.vec3(0.1, 1.0)),
            )
        })
        .collect();
    let c: Vec3Soa = pairs.iter().map(|p| p.0).collect();
    let r: Vec<Real> = pairs.iter().map(|p| p.1).collect();
    let b: AabbSoa = pairs.iter().map(|p| p.2).collect();
    for backend in Backend::available() {
        let mut out = vec![false; N];
        batch::intersect_sphere_aabb(&c, &r, &b, EPS, backend, &mut out).unwrap();
        for (i, &(c, r, b)) in pairs.iter().enumerate() {
            assert_eq!(out[i], intersect_sphere_aabb(c, r, &b, EPS), "{backend:?} pair {i}: {:?}", pairs[i]);
        }
    }
}

#[test]
fn sphere_obb_batch_matches_scalar() {
    let mut rng = Rng::new(3);
    let pairs: Vec<(Vec3, Real, Pose, Vec3)> = (0..N)
        .map(|_| {
            (
                rng.vec3(-2.0, 2.0),
                rng.range(0.1, 1.0),
                Pose::new(rng.vec3(-0.5, 0.5), rng.rotation()),
                rng.vec3(0.1, 1.0),
            )
        })
        .collect();
    let c: Vec3Soa = pairs.iter().map(|p| p.0).collect();
    let r: Vec<Real> = pairs.iter().map(|p| p.1).collect();
    let bc: Vec3Soa = pairs.iter().map(|p| p.2.translation).collect();
    let q: QuatSoa = pairs.iter().map(|p| p.2.rotation).collect();
    let h: Vec3Soa = pairs.iter().map(|p| p.3).collect();
    for backend in Backend::available() {
        let mut out = vec![false; N];
        batch::intersect_sphere_cuboid(&c, &r, &bc, &q, &h, EPS, backend, &mut out).unwrap();
        let mut hits = 0;
        for (i, &(c, r, pose, h)) in pairs.iter().enumerate() {
            let cube = Cuboid { half_extents: h };
            let want = intersect_sphere_cuboid(&Sphere { radius: r }, &Pose::from_translation(c), &cube, &pose, EPS);
            let local = pose.inverse_transform_point(c);
            let margin = local.distance_squared(local.clamp(-h, h)) - (r * r + EPS);
            assert!(agree(out[i], want, margin, 1e-5), "{backend:?} pair {i}: {:?}", pairs[i]);
            hits += want as usize;
        }
        assert!(hits > N / 10 && hits < N * 9 / 10, "{hits} hits");
    }
}

#[test]
fn aabb_aabb_batch_matches_scalar() {
    let mut rng = Rng::new(4);
    let pairs: Vec<(Aabb, Aabb)> = (0..N)
        .map(|i| {
            let a = Aabb::from_center_half_extents(Vec3::ZERO, rng.vec3(0.1, 1.0));
            // Every 16th pair shares a face exactly: touching counts as overlapping.
            let b = if i % 16 == 0 {
                Aabb::new(Vec3::new(a.max.x, a.min.y, a.min.z), a.max + Vec3::X)
            } else {
                Aabb::from_center_half_extents(rng.vec3(-2.0, 2.0), rng.vec3(0.1, 1.0))
            };
            (a, b)
        })
        .collect();
    let a: AabbSoa = pairs.iter().map(|p| p.0).collect();
    let b: AabbSoa = pairs.iter().map(|p| p.1).collect();
    for backend in Backend::available() {
        let mut out = vec![false; N];
        batch::intersect_aabb_aabb(&a, &b, backend, &mut out).unwrap();
        for (i, (a, b)) in pairs.iter().enumerate() {
            assert_eq!(out[i], a.overlaps(b), "{backend:?} pair {i}: {a:?} {b:?}");
        }
    }
}

#[test]
fn ray_aabb_batch_matches_scalar_including_parallel_and_zero_rays() {
    let mut rng = Rng::new(5);
    let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
    let rays: Vec<(Vec3, Vec3)> = (0..N)
        .map(|i| {
            let o = rng.vec3(-3.0, 3.0);
            let mut d = rng.vec3(-4.0, 4.0);
            match i % 8 {
                // Parallel to one or two slabs, zero length, or starting exactly on a face.
                0 => d.x = 0.0,
                1 => (d.y, d.z) = (0.0, 0.0),
                2 => d = Vec3::ZERO,
                3 => return (Vec3::new(-1.0, o.y, o.z), Vec3::new(0.0, d.y, d.z)),
                _ => {}
            }
            (o, d)
        })
        .collect();
    let o: Vec3Soa = rays.iter().map(|p| p.0).collect();
    let d: Vec3Soa = rays.iter().map(|p| p.1).collect();
    let boxes: AabbSoa = std::iter::repeat_n(b, N).collect();
    for backend in Backend::available() {
        let mut out = vec![0.0; N];
        batch::ray_interval_aabb(&o, &d, 1.0, &boxes, backend, &mut out).unwrap();
        let mut hits = 0;
        for (i, &(o, d)) in rays.iter().enumerate() {
            let want = b.ray_interval(o, d, 1.0).map_or(Real::INFINITY, |(t0, _)| t0);
            assert_eq!(out[i].to_bits(), want.to_bits(), "{backend:?} ray {i}: origin {o:?} dir {d:?}");
            hits += want.is_finite() as usize;
        }
        assert!(hits > N / 10 && hits < N * 9 / 10, "{hits} hits");
    }
}

#[test]
fn batch_inputs_of_the_wrong_length_are_an_error() {
    let c: Vec3Soa = [Vec3::ZERO; 3].into_iter().collect();
    let r = vec![1.0; 2];
    let mut out = vec![false; 3];
    let e = batch::intersect_sphere_sphere(&c, &r, &c, &r, EPS, Backend::best(), &mut out).unwrap_err();
    assert_eq!((e.what, e.got, e.want), ("ra", 2, 3));
}

fn random_hull(rng: &mut Rng, n: usize) -> Arc<ConvexHull> {
    let pts: Vec<Vec3> = (0..n).map(|_| rng.vec3(-0.6, 0.6)).collect();
    Arc::new(ConvexHull::new(&pts).expect("hull"))
}

fn random_shape(rng: &mut Rng) -> Shape {
    match (rng.next_real() * 4.0) as u32 {
        0 => Shape::sphere(rng.range(0.2, 0.8)),
        1 => Shape::cuboid(rng.vec3(0.2, 0.8)),
        2 => {
            let h = rng.range(0.1, 0.6);
            Shape::capsule(h, rng.range(0.1, 0.5))
        }
        _ => {
            let n = 8 + (rng.next_real() * 8.0) as usize;
            Shape::ConvexHull(random_hull(rng, n))
        }
    }
}

/// The general GJK (witness points, every step traced) as a boolean: the reference.
fn reference_intersect(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> bool {
    let pair = MinkowskiPair::new(a, pa, b, pb);
    let r = pair.radius();
    let g = gjk(&pair, None, None);
    g.overlapping || g.v.length_squared() <= r * r + EPS
}

#[test]
fn intersection_only_gjk_matches_the_general_gjk() {
    let mut rng = Rng::new(6);
    let mut both = [0usize; 2];
    for i in 0..3000 {
        let (a, b) = (random_shape(&mut rng), random_shape(&mut rng));
        let pa = Pose::new(rng.vec3(-0.3, 0.3), rng.rotation());
        let pb = Pose::new(rng.vec3(-1.5, 1.5), rng.rotation());
        let fast = intersect_gjk(&a, &pa, &b, &pb, EPS);
        let want = reference_intersect(&a, &pa, &b, &pb);
        let d = distance(&a, &pa, &b, &pb).distance;
        assert!(
            fast == want || d.abs() <= 2e-3,
            "case {i}: {a:?} {pa:?} {b:?} {pb:?}: fast {fast}, reference {want}, distance {d}"
        );
        both[want as usize] += 1;
        // Warm-started from the direction the first call returned: the same answer.
        let (first, dir) = intersect_gjk_warm(&a, &pa, &b, &pb, EPS, Vec3::ZERO);
        let nudged = Pose::new(pb.translation + Vec3::splat(1e-3), pb.rotation);
        let warm = intersect_gjk_warm(&a, &pa, &b, &nudged, EPS, dir).0;
        let cold = intersect_gjk_warm(&a, &pa, &b, &nudged, EPS, Vec3::ZERO).0;
        let dn = distance(&a, &pa, &b, &nudged).distance;
        assert_eq!(first, fast);
        assert!(warm == cold || dn.abs() <= 2e-3, "case {i} warm {warm} cold {cold} distance {dn}");
    }
    assert!(both[0] > 300 && both[1] > 300, "{both:?}");
}
