//! Joints in scene files: names and indices, the errors that name the joint and field, saving
//! keeps them, snapshots carry their impulses, the generators' chains and ragdolls.

use collidoscope::dynamics::joints::JointKind;
use collidoscope::{Scene, World};

const BASE: &str = r#"(
    bodies: [
        (name: "post", kind: Static, shape: Cuboid(half_extents: (0.1, 1, 0.1)), position: (0, 1, 0)),
        (name: "door", shape: Cuboid(half_extents: (0.5, 1, 0.02)), position: (0.6, 1, 0)),
        (shape: Sphere(radius: 0.1), position: (0, 3, 0)),
    ],
    joints: [JOINTS],
)"#;

fn parse(joints: &str) -> Result<Scene, String> {
    Scene::parse(&BASE.replace("JOINTS", joints), "test.ron").map_err(|e| e.to_string())
}

#[test]
fn joints_name_bodies_by_name_or_index_and_the_world_by_leaving_a_side_out() {
    let s = parse(
        r#"(name: "hinge", kind: Hinge(limits: (0, 90), motor: (speed: 1, max_force: 30)), a: "post", b: "door",
            anchor_a: (0.1, 0, 0), axis_a: (0, 1, 0)),
           (kind: Rope(length: 1), b: 2, anchor_a: (0, 4, 0))"#,
    )
    .unwrap();
    let w = s.build().unwrap();
    let j = &w.joints()[0];
    assert_eq!((j.a, j.b), (Some(0), Some(1)));
    // B's anchor and axis default to where A's start: the door's left edge, its y axis.
    assert!((j.anchor_b - collidoscope::math::Vec3::new(-0.5, 0.0, 0.0)).length() < 1e-6, "{}", j.anchor_b);
    assert!(
        matches!(j.kind, JointKind::Hinge { limits: Some((lo, hi)), .. } if lo == 0.0 && (hi - 1.570_796_4).abs() < 1e-6)
    );
    assert_eq!((w.joints()[1].a, w.joints()[1].b), (None, Some(2)));
}

#[test]
fn bad_joints_are_errors_that_name_the_joint_and_field() {
    let cases = [
        (r#"(kind: Fixed, a: "post", b: "nobody")"#, "joints[0].b", "\"nobody\""),
        (r#"(kind: Fixed, a: 0, b: 7)"#, "joints[0].b", "names body 7"),
        (r#"(name: "loop", kind: Fixed, a: "door", b: 1)"#, "joints[0].b", "jointed to itself"),
        (r#"(kind: Fixed)"#, "joints[0].b", "both sides are the world"),
        (r#"(kind: Hinge(), b: "door", axis_a: (0, 0, 0))"#, "joints[0].axis_a", "no direction"),
        (r#"(kind: Hinge(limits: (30, -30)), b: "door")"#, "joints[0].kind.limits", "reversed"),
        (r#"(kind: Spring(stiffness: -5), b: 2)"#, "joints[0].kind.stiffness", "not negative"),
        (r#"(kind: Ball(cone: NaN), b: 2)"#, "joints[0].kind.cone", "between 0 and"),
        (r#"(kind: Rod(), b: 2, anchor_a: (NaN, 0, 0))"#, "joints[0].anchor_a", "not finite"),
        (r#"(kind: Fixed, b: 2, break_force: 0)"#, "joints[0].break_force", "positive"),
    ];
    for (joint, field, words) in cases {
        let e = parse(joint).expect_err(joint);
        assert!(e.contains(field) && e.contains(words), "{joint}: {e}");
        assert!(e.starts_with("test.ron: "), "{e}");
    }
    // A joint's name is in the message.
    let e = parse(r#"(name: "loop", kind: Fixed, a: "door", b: 1)"#).unwrap_err();
    assert!(e.contains("joint 0 (\"loop\")"), "{e}");
}

#[test]
fn a_saved_world_keeps_its_joints_and_reloads_to_the_same_run() {
    let s = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/hinge_door.ron")).unwrap();
    let mut w = s.build().unwrap();
    for _ in 0..30 {
        w.step();
    }
    let saved = Scene::from_world(&w, &s);
    let text = saved.to_ron();
    assert!(text.contains("joints:") && text.contains("Hinge("), "{text}");
    let reloaded = Scene::parse(&text, "saved.ron").unwrap();
    let w2 = reloaded.build().unwrap();
    assert_eq!(w2.joints().len(), 1);
    let (a, b) = (&w.joints()[0], &w2.joints()[0]);
    assert_eq!(
        (a.a, a.b, a.anchor_a, a.anchor_b, a.axis_a, a.axis_b, a.rest),
        (b.a, b.b, b.anchor_a, b.anchor_b, b.axis_a, b.axis_b, b.rest)
    );
    assert_eq!(w.joint_report(0).coordinate, w2.joint_report(0).coordinate);
}

#[test]
fn snapshots_carry_joint_impulses_so_a_restored_run_continues_bit_for_bit() {
    for name in ["hinge_door.ron", "chain.ron", "newtons_cradle_strings.ron", "ragdoll.ron"] {
        let s = Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        let mut a = s.build().unwrap();
        for _ in 0..40 {
            a.step();
        }
        let snap = a.snapshot();
        let text = ron::to_string(&snap).unwrap();
        let back: collidoscope::world::Snapshot = ron::from_str(&text).unwrap();
        let mut b: World = s.build().unwrap();
        b.restore(&back).unwrap();
        for _ in 0..60 {
            a.step();
            b.step();
        }
        assert_eq!(a.hash(), b.hash(), "{name}");
    }
}

#[test]
fn generators_make_a_chain_and_a_ragdoll_with_their_joints() {
    let s = Scene::parse("(generators: [Chain(links: 5, end_radius: 0.05), Ragdoll(origin: (3, 0, 0))])", "gen.ron")
        .unwrap();
    let w = s.build().unwrap();
    assert_eq!(w.bodies().len(), 6 + 12);
    assert_eq!(w.joints().len(), 6 + 11);
    // Every joint starts satisfied.
    for k in 0..w.joints().len() {
        let r = w.joint_report(k);
        assert!(r.linear_error < 1e-5 && r.angular_error < 1e-4, "joint {k}: {r:?}");
    }
}
