use super::*;
use crate::peer::tests::{MASS_SCENE, rel, scene};

#[test]
fn mapped_bodies_have_the_same_masses_and_inertias_in_jolt() {
    let s = scene(MASS_SCENE);
    let world = s.build().unwrap();
    let jw = JoltWorld::from_world(&world).unwrap();
    for (i, b) in world.bodies().iter().enumerate() {
        let mp = b.shape.mass_properties(b.material.density);
        let (mass, inertia, com) = jw.mass_properties(i).expect("a dynamic body");
        let dm = (mass - mp.mass).abs() / mp.mass;
        assert!(dm < 1e-5, "body {i} ({}): mass {} vs Jolt {mass}", b.shape.describe(), mp.mass);
        // Both tensors about the centre of mass, in the body's frame.
        let (ci, ji) = (mp.inertia.to_cols_array(), inertia.to_cols_array());
        assert!(rel(ci, ji) < 1e-5, "body {i} ({}): inertia {ci:?} vs Jolt {ji:?}", b.shape.describe());
        // Hulls and compounds are re-centred: Jolt finds their centre of mass at the origin.
        assert!(com.length() < 1e-5, "body {i}: Jolt's centre of mass {com:?}");
        assert_eq!(jw.world().bodies()[i].pose.translation, b.pose.translation, "body {i}");
    }
}

#[test]
fn static_meshes_and_height_fields_carry_bodies_in_jolt() {
    let s = scene(
        "(settings: (sleeping: false), bodies: [
            (kind: Static, shape: TriangleMesh(vertices: [(-3, 0, -3), (3, 0, -3), (3, 0, 3), (-3, 0, 3)],
                                               indices: [(0, 2, 1), (0, 3, 2)])),
            (shape: Sphere(radius: 0.25), position: (0, 1, 0)),
            (kind: Static, shape: HeightField(cell: 1, heights: [[0, 0, 0], [0, 0, 0], [0, 0, 0]]), position: (10, 0, 0)),
            (shape: Cuboid(half_extents: (0.2, 0.2, 0.2)), position: (10.2, 1, 0.3)),
        ])",
    );
    let mut jw = JoltWorld::from_world(&s.build().unwrap()).unwrap();
    for _ in 0..120 {
        jw.step();
    }
    let y = |i: usize| jw.world().bodies()[i].pose.translation.y;
    assert!((y(1) - 0.25).abs() < 0.03, "ball on the mesh at {}", y(1));
    assert!((y(3) - 0.2).abs() < 0.03, "box on the height field at {}", y(3));
    assert!(jw.profile().contacts > 0 && jw.profile().total_ms > 0.0);
}

#[test]
fn the_jolt_path_is_deterministic_run_to_run() {
    let text = "(bodies: [(kind: Static, shape: Cuboid(half_extents: (10, 0.5, 10)), position: (0, -0.5, 0))],
        generators: [Rain(count: 60, seed: 3, min: (-2, 1, -2), max: (2, 6, 2),
            shapes: [Sphere(radius: 0.3), Cuboid(half_extents: (0.3, 0.2, 0.25)), Capsule(half_height: 0.3, radius: 0.2)])])";
    let run = || {
        let mut jw = JoltWorld::from_world(&scene(text).build().unwrap()).unwrap();
        (0..90)
            .map(|_| {
                jw.step();
                jw.world().hash()
            })
            .collect::<Vec<u64>>()
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert_ne!(a[0], a[89], "bodies fell and touched");
}

#[test]
fn a_bullet_is_swept_by_linear_cast_and_does_not_tunnel_in_jolt() {
    // A 5 cm ball at 400 m/s towards a 10 cm wall: 6.7 m a step, so without a sweep it passes.
    let text = |ccd: &str| {
        format!(
            "(settings: (gravity: (0, 0, 0), ccd: {ccd}), bodies: [
                (kind: Static, shape: Cuboid(half_extents: (0.05, 2, 2)), position: (5, 0, 0)),
                (shape: Sphere(radius: 0.05), bullet: true, linear_velocity: (400, 0, 0)),
            ])"
        )
    };
    let end_x = |ccd: &str| {
        let mut jw = JoltWorld::from_world(&scene(&text(ccd)).build().unwrap()).unwrap();
        for _ in 0..3 {
            jw.step();
        }
        jw.world().bodies()[1].pose.translation.x
    };
    assert!(end_x("Off") > 5.0, "without CCD the bullet passes the wall: {}", end_x("Off"));
    for ccd in ["Speculative", "Toi"] {
        assert!(end_x(ccd) < 5.0, "{ccd}: the bullet stops before the wall, at {}", end_x(ccd));
    }
}

#[test]
fn settings_changes_reach_jolt() {
    // With a static body too, which has no motion properties in Jolt to set.
    let text = "(settings: (gravity: (0, -9.81, 0)), bodies: [(shape: Sphere(radius: 0.5)),
        (kind: Static, shape: Cuboid(half_extents: (1, 1, 1)), position: (0, 50, 0))])";
    let mut jw = JoltWorld::from_world(&scene(text).build().unwrap()).unwrap();
    let mut s = jw.world().settings.clone();
    s.gravity = Vec3::new(0.0, 0.0, -2.0);
    jw.set_settings(s);
    for _ in 0..60 {
        jw.step();
    }
    let v = jw.world().bodies()[0].linvel;
    assert!((v.z + 2.0).abs() < 0.01 && v.y.abs() < 1e-4, "one second of the new gravity: {v:?}");
}
