//! Issue 5 ray casts: the closed-form casts (slab, local-frame OBB, sphere, capsule, hull planes)
//! against the GJK ray cast, on random rays with a fixed seed; plus the slab's awkward rays.

use collidoscope::geometry::{Aabb, ConvexHull, Ray, Shape, ray_aabb, ray_cast};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::narrowphase::ray_cast_gjk;
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};
use std::sync::Arc;

fn shapes() -> Vec<Shape> {
    let pts: Vec<Vec3> = (0..12)
        .map(|i| {
            let a = i as Real * 0.9;
            Vec3::new(a.cos() * (1.0 + 0.1 * i as Real), (i as Real * 0.37).sin(), a.sin() * 0.8 + 0.05 * i as Real)
        })
        .collect();
    vec![
        Shape::sphere(0.8),
        Shape::cuboid(Vec3::new(1.0, 0.4, 0.7)),
        Shape::capsule(0.8, 0.35),
        Shape::ConvexHull(Arc::new(ConvexHull::new(&pts).unwrap())),
    ]
}

proptest! {
    #![proptest_config(Config { cases: 3000, rng_seed: RngSeed::Fixed(0x0a11), failure_persistence: None, ..Config::default() })]

    /// Both casts agree on hit or miss (except grazing rays), on t and on the normal.
    #[test]
    fn gjk_cast_matches_closed_forms(
        which in 0usize..4,
        o in prop::array::uniform3(-4.0f32..4.0),
        target in prop::array::uniform3(-1.2f32..1.2),
        angle in 0.0f32..std::f32::consts::TAU,
        len in 0.5f32..2.0,
    ) {
        let shape = &shapes()[which];
        let pose = Pose::new(Vec3::new(0.5, -0.3, 0.2), Quat::from_axis_angle(Vec3::new(1.0, 2.0, 3.0).normalize(), angle));
        let origin = Vec3::from_array(o);
        let ray = Ray::new(origin, (pose.transform_point(Vec3::from_array(target)) - origin) * len);
        let a = ray_cast(shape, &pose, &ray, 1.0);
        let g = ray_cast_gjk(shape, &pose, &ray, 1.0);
        let tol = 2e-3;
        match (a, g) {
            (Some(a), Some(g)) => {
                let scale = ray.dir.length();
                prop_assert!((a.t - g.t).abs() * scale <= tol, "{shape:?} {ray:?}: {a:?} vs {g:?}");
                prop_assert!((a.point - g.point).length() <= tol, "{shape:?} {ray:?}: {a:?} vs {g:?}");
                // Normals differ only where the hit lands on an edge or corner.
                if a.t > 0.0 {
                    prop_assert!(a.normal.dot(g.normal) > 0.9 || on_edge(shape, &pose, a.point), "{shape:?} {ray:?}: {a:?} vs {g:?}");
                }
            }
            (None, None) => {}
            (a, g) => {
                // Grazing: the ray passes within tolerance of the surface, or ends at it.
                let end = ray.at(1.0);
                let near = (0..=200).map(|i| ray.at(i as Real / 200.0)).chain([end]).any(|p| {
                    let s = Shape::sphere(tol * 2.0);
                    collidoscope::narrowphase::distance(shape, &pose, &s, &Pose::from_translation(p)).distance <= tol * 2.0
                });
                prop_assert!(near, "{shape:?} {ray:?}: {a:?} vs {g:?}");
            }
        }
    }
}

/// Whether `p` lies near two faces of a polytope at once (normals are ambiguous there).
fn on_edge(shape: &Shape, pose: &Pose, p: Vec3) -> bool {
    let l = pose.inverse_transform_point(p);
    match shape {
        Shape::Cuboid(c) => (c.half_extents - l.abs()).to_array().iter().filter(|g| g.abs() < 1e-2).count() >= 2,
        Shape::ConvexHull(h) => h.faces().iter().filter(|f| (f.normal.dot(l) - f.offset).abs() < 1e-2).count() >= 2,
        _ => false,
    }
}

#[test]
fn slab_handles_parallel_inside_and_zero_length_rays() {
    let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
    // Parallel to two slabs, hitting the x face.
    let h = ray_aabb(&b, &Ray::new(Vec3::new(-3.0, 0.5, -0.5), Vec3::X), 10.0).unwrap();
    assert_eq!((h.t, h.normal), (2.0, -Vec3::X));
    // Parallel and outside a slab: never hits, no NaN.
    assert!(ray_aabb(&b, &Ray::new(Vec3::new(-3.0, 1.5, 0.0), Vec3::X), 10.0).is_none());
    // Parallel, lying exactly on a face plane: touches (inclusive slabs).
    assert!(ray_aabb(&b, &Ray::new(Vec3::new(-3.0, 1.0, 0.0), Vec3::X), 10.0).is_some());
    // Starting inside: t = 0, normal against the ray.
    let h = ray_aabb(&b, &Ray::new(Vec3::ZERO, Vec3::Y), 10.0).unwrap();
    assert_eq!((h.t, h.normal), (0.0, -Vec3::Y));
    // Zero-length segments: a hit only from inside, for every shape and both casts.
    for s in shapes() {
        let pose = Pose::from_translation(Vec3::new(0.0, 0.0, 3.0));
        assert!(ray_cast(&s, &pose, &Ray::new(Vec3::ZERO, Vec3::ZERO), 1.0).is_none(), "{s:?}");
        assert!(ray_cast_gjk(&s, &pose, &Ray::new(Vec3::ZERO, Vec3::ZERO), 1.0).is_none(), "{s:?}");
        let inside = Ray::new(pose.translation, Vec3::ZERO);
        assert_eq!(ray_cast(&s, &pose, &inside, 1.0).map(|h| h.t), Some(0.0), "{s:?}");
        assert_eq!(ray_cast_gjk(&s, &pose, &inside, 1.0).map(|h| h.t), Some(0.0), "{s:?}");
    }
}
