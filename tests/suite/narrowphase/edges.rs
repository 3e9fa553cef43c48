//! Issue 5 edge cases, both methods: touching, deep penetration, coincident centres, parallel
//! faces, near-degenerate hulls; and a cuboid without rotation answering like the AABB path.

use collidoscope::geometry::{Aabb, ConvexHull, Ray, Shape, ray_aabb, ray_cast};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::narrowphase::{
    NarrowPhaseKind, Tolerance, contact, distance, intersect, intersect_cuboid_cuboid, intersect_sphere_aabb,
    intersect_sphere_cuboid,
};
use std::sync::Arc;

const EPS: Real = 1e-6;
const TOL: Tolerance = Tolerance { margin: 0.0, epsilon: EPS };

fn hull(points: &[Vec3]) -> Shape {
    Shape::ConvexHull(Arc::new(ConvexHull::new(points).unwrap()))
}

fn box_points(h: Vec3) -> Vec<Vec3> {
    (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
            Vec3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z)
        })
        .collect()
}

fn all_shapes() -> Vec<Shape> {
    vec![
        Shape::sphere(0.5),
        Shape::cuboid(Vec3::new(0.5, 0.4, 0.6)),
        Shape::capsule(0.5, 0.3),
        hull(&box_points(Vec3::new(0.5, 0.3, 0.4))),
    ]
}

#[test]
fn touching_faces_count_as_contact_with_zero_depth() {
    let a = Shape::cuboid(Vec3::splat(0.5));
    let pb = Pose::from_translation(Vec3::new(0.2, 1.0, -0.1));
    let d = distance(&a, &Pose::IDENTITY, &a, &pb);
    assert!(d.distance.abs() < 1e-5, "{d:?}");
    for method in NarrowPhaseKind::ALL.iter().copied() {
        assert!(intersect(&a, &Pose::IDENTITY, &a, &pb, EPS, method), "{method:?}");
        let m = contact(&a, &Pose::IDENTITY, &a, &pb, TOL, method).unwrap_or_else(|| panic!("{method:?}"));
        assert_eq!(m.len(), 4, "{method:?} {m:?}");
        assert!((m.normal - Vec3::Y).length() < 1e-4, "{method:?} {m:?}");
        assert!(m.points().iter().all(|p| p.depth.abs() < 1e-5), "{method:?} {m:?}");
    }
    // Spheres exactly r apart: d² = r², inside the epsilon rule; a hair farther is not.
    let s = Shape::sphere(0.5);
    for method in NarrowPhaseKind::ALL.iter().copied() {
        assert!(intersect(&s, &Pose::IDENTITY, &s, &Pose::from_translation(Vec3::X), EPS, method));
        assert!(!intersect(&s, &Pose::IDENTITY, &s, &Pose::from_translation(Vec3::X * 1.01), EPS, method));
    }
}

#[test]
fn deep_penetration_pushes_out_the_short_way() {
    let big = Shape::cuboid(Vec3::splat(2.0));
    let small = Shape::cuboid(Vec3::splat(0.5));
    let pb = Pose::from_translation(Vec3::new(0.1, 1.0, 0.0));
    // The small box leaves through the top: its bottom (0.5) must rise to the top face (2.0).
    let d = distance(&big, &Pose::IDENTITY, &small, &pb);
    assert!((d.distance + 1.5).abs() < 1e-3, "{d:?}");
    assert!((d.normal - Vec3::Y).length() < 1e-3, "{d:?}");
    for method in NarrowPhaseKind::ALL.iter().copied() {
        let m = contact(&big, &Pose::IDENTITY, &small, &pb, TOL, method).unwrap();
        assert!((m.normal - Vec3::Y).length() < 1e-3, "{method:?} {m:?}");
        assert!((m.max_depth() - 1.5).abs() < 1e-3, "{method:?} {m:?}");
    }
}

#[test]
fn coincident_centres_give_finite_unit_answers_for_every_pair() {
    let shapes = all_shapes();
    for a in &shapes {
        for b in &shapes {
            let d = distance(a, &Pose::IDENTITY, b, &Pose::IDENTITY);
            assert!(d.distance < 0.0 && d.distance.is_finite(), "{a:?} {b:?} {d:?}");
            assert!((d.normal.length() - 1.0).abs() < 1e-4, "{a:?} {b:?} {d:?}");
            for method in NarrowPhaseKind::ALL.iter().copied() {
                assert!(intersect(a, &Pose::IDENTITY, b, &Pose::IDENTITY, EPS, method));
                let m = contact(a, &Pose::IDENTITY, b, &Pose::IDENTITY, TOL, method)
                    .unwrap_or_else(|| panic!("{method:?} {a:?} {b:?}"));
                assert!((m.normal.length() - 1.0).abs() < 1e-4, "{method:?} {a:?} {b:?} {m:?}");
                assert!(m.points().iter().all(|p| p.point.is_finite() && p.depth > 0.0), "{method:?} {m:?}");
                // The depth is the shallowest way out: the same for both methods.
                assert!((m.max_depth() + d.distance).abs() < 0.05, "{method:?} {a:?} {b:?} {m:?} {d:?}");
            }
        }
    }
}

#[test]
fn parallel_features_give_multi_point_manifolds() {
    let ground = Shape::cuboid(Vec3::new(3.0, 0.5, 3.0));
    let cases = [
        (Shape::cuboid(Vec3::splat(0.5)), Pose::from_translation(Vec3::new(0.3, 0.99, 0.2)), 4, 0.01),
        (
            Shape::capsule(1.0, 0.25),
            Pose::new(Vec3::new(0.0, 0.74, 0.0), Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
            2,
            0.01,
        ),
        (hull(&box_points(Vec3::new(0.6, 0.3, 0.4))), Pose::from_translation(Vec3::new(-0.5, 0.78, 0.0)), 4, 0.02),
    ];
    for (shape, pose, count, depth) in cases {
        for method in NarrowPhaseKind::ALL.iter().copied() {
            let m = contact(&ground, &Pose::IDENTITY, &shape, &pose, TOL, method).unwrap();
            assert_eq!(m.len(), count, "{method:?} {shape:?} {m:?}");
            assert!((m.normal - Vec3::Y).length() < 1e-3, "{method:?} {m:?}");
            for p in m.points() {
                assert!((p.depth - depth).abs() < 1e-3, "{method:?} {shape:?} {m:?}");
            }
            // Swapped: the same points, the normal flipped.
            let s = contact(&shape, &pose, &ground, &Pose::IDENTITY, TOL, method).unwrap();
            assert_eq!(s.len(), count);
            assert!((s.normal + Vec3::Y).length() < 1e-3, "{method:?} {s:?}");
        }
    }
    let cap = Shape::capsule(1.0, 0.5);
    let side = Pose::from_translation(Vec3::new(0.95, 0.3, 0.0));
    for method in NarrowPhaseKind::ALL.iter().copied() {
        let m = contact(&cap, &Pose::IDENTITY, &cap, &side, TOL, method).unwrap();
        assert_eq!(m.len(), 2, "{method:?} {m:?}");
        assert!((m.normal - Vec3::X).length() < 1e-3 && (m.max_depth() - 0.05).abs() < 1e-3, "{method:?} {m:?}");
    }
}

#[test]
fn near_degenerate_hulls_stay_finite_and_agree() {
    // A slab 1e-3 thick and a needle-like tetrahedron.
    let slab = hull(&box_points(Vec3::new(1.0, 0.0005, 1.0)));
    let needle = hull(&[Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 0.002, 0.0), Vec3::new(0.0, 0.0, 0.002)]);
    let others = all_shapes();
    for thin in [&slab, &needle] {
        for o in &others {
            for (i, y) in [-0.2, 0.1, 0.3, 0.6].into_iter().enumerate() {
                let po = Pose::new(Vec3::new(0.3, y, 0.0), Quat::from_rotation_z(0.3 * i as Real));
                let d = distance(thin, &Pose::IDENTITY, o, &po);
                assert!(d.distance.is_finite() && d.normal.is_finite(), "{thin:?} {o:?} {d:?}");
                let ia = intersect(thin, &Pose::IDENTITY, o, &po, EPS, NarrowPhaseKind::Analytic);
                let ig = intersect(thin, &Pose::IDENTITY, o, &po, EPS, NarrowPhaseKind::Gjk);
                assert!(ia == ig || d.distance.abs() < 2e-3, "{o:?} y={y} {ia} {ig} {d:?}");
                for method in NarrowPhaseKind::ALL.iter().copied() {
                    if let Some(m) = contact(thin, &Pose::IDENTITY, o, &po, TOL, method) {
                        assert!(m.normal.is_finite() && m.points().iter().all(|p| p.point.is_finite()));
                    }
                }
            }
        }
    }
}

#[test]
fn unrotated_cuboid_matches_the_aabb_path() {
    let mut seed = 0xdead_beefu32;
    let mut rnd = |lo: Real, hi: Real| {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        lo + (hi - lo) * (seed >> 8) as Real / (1u32 << 24) as Real
    };
    for case in 0..2000 {
        let c = Vec3::new(rnd(-3.0, 3.0), rnd(-3.0, 3.0), rnd(-3.0, 3.0));
        let h = Vec3::new(rnd(0.1, 2.0), rnd(0.1, 2.0), rnd(0.1, 2.0));
        let cube = collidoscope::geometry::Cuboid { half_extents: h };
        let pose = Pose::from_translation(c);
        let aabb = Aabb::from_center_half_extents(c, h);
        let s = Vec3::new(rnd(-5.0, 5.0), rnd(-5.0, 5.0), rnd(-5.0, 5.0));
        let r = rnd(0.1, 2.0);
        let sphere = collidoscope::geometry::Sphere { radius: r };
        assert_eq!(
            intersect_sphere_cuboid(&sphere, &Pose::from_translation(s), &cube, &pose, EPS),
            intersect_sphere_aabb(s, r, &aabb, EPS),
            "case {case}: sphere {s} r {r} box {c} {h}"
        );
        let c2 = Vec3::new(rnd(-3.0, 3.0), rnd(-3.0, 3.0), rnd(-3.0, 3.0));
        let h2 = Vec3::new(rnd(0.1, 2.0), rnd(0.1, 2.0), rnd(0.1, 2.0));
        let cube2 = collidoscope::geometry::Cuboid { half_extents: h2 };
        let aabb2 = Aabb::from_center_half_extents(c2, h2);
        assert_eq!(
            intersect_cuboid_cuboid(&cube, &pose, &cube2, &Pose::from_translation(c2), 0.0),
            aabb.overlaps(&aabb2),
            "case {case}: {aabb:?} {aabb2:?}"
        );
        let ray = Ray::new(Vec3::new(rnd(-6.0, 6.0), rnd(-6.0, 6.0), rnd(-6.0, 6.0)), s - c2);
        let (hit_box, hit_aabb) = (ray_cast(&Shape::Cuboid(cube), &pose, &ray, 1.0), ray_aabb(&aabb, &ray, 1.0));
        assert_eq!(hit_box.is_some(), hit_aabb.is_some(), "case {case}: {ray:?} {aabb:?}");
        if let (Some(x), Some(y)) = (hit_box, hit_aabb) {
            assert!((x.t - y.t).abs() < 1e-5 && (x.normal - y.normal).length() < 1e-5, "case {case}: {x:?} {y:?}");
        }
    }
}
