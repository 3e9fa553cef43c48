//! The scene syntax of compounds: children with positions and rotations, the body placed at
//! the children's origin, errors that name the child, and a round trip through a snapshot.

use collidoscope::math::Vec3;
use collidoscope::{Scene, Shape};

const SCENE: &str = r#"(
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0)),
        (name: "l", shape: Compound(children: [
            (shape: Cuboid(half_extents: (1, 0.25, 0.25))),
            (shape: Sphere(radius: 0.3), position: (1, 0.5, 0)),
            (shape: Capsule(half_height: 0.4, radius: 0.1), position: (-1, 0.5, 0), rotation: Euler(0, 0, 90)),
            (shape: ConvexHull(points: [(0, 0, 0), (0.2, 0, 0), (0, 0.2, 0), (0, 0, 0.2)]), position: (0, 0.25, 0)),
        ]), position: (0, 2, 0)),
    ],
)"#;

#[test]
fn a_compound_scene_loads_and_keeps_its_geometry_in_place() {
    let w = Scene::parse(SCENE, "c.ron").unwrap().build().unwrap();
    let b = &w.bodies()[1];
    let Shape::Compound(c) = &b.shape else { panic!("not a compound: {:?}", b.shape) };
    assert_eq!(c.children().len(), 4);
    // The sphere child's world centre is where the scene put it, whatever the re-centring.
    let sphere = b.pose.transform_point(c.children()[1].pose.translation);
    assert!((sphere - Vec3::new(1.0, 2.5, 0.0)).length() < 1e-5, "{sphere}");
    let cap = &c.children()[2];
    assert!((b.pose.transform_vector(cap.pose.rotation * Vec3::Y) - Vec3::NEG_X).length() < 1e-5);
    // Saved and loaded again: the same shape and pose.
    let text = ron::to_string(&w.snapshot()).unwrap();
    let snap: collidoscope::world::Snapshot = ron::from_str(&text).unwrap();
    let mut w2 = collidoscope::World::new(Default::default());
    w2.restore(&snap).unwrap();
    let desc = |b: &collidoscope::Body| collidoscope::scene::BodyDesc::from_body(b).shape;
    assert_eq!(desc(&w2.bodies()[1]), desc(b));
    assert_eq!(w2.bodies()[1].pose, b.pose);
}

#[test]
fn errors_name_the_child() {
    let bad = |children: &str| {
        let text = format!("(bodies: [(shape: Compound(children: [{children}]))])");
        Scene::parse(&text, "bad.ron").unwrap_err().to_string()
    };
    let e = bad("");
    assert!(e.contains("bodies[0].shape") && e.contains("the compound is empty"), "{e}");
    let e = bad("(shape: Sphere(radius: 1)), (shape: HeightField(cell: 1, heights: [[0, 0], [0, 0]]))");
    assert!(e.contains("children[1].shape: a compound's children are"), "{e}");
    let e = bad("(shape: Compound(children: [(shape: Sphere(radius: 1))]))");
    assert!(e.contains("children[0].shape: a compound's children are"), "{e}");
    let e = bad("(shape: Sphere(radius: 1)), (shape: ConvexHull(points: [(0, 0, 0), (1, 0, 0), (0, 1, 0)]))");
    assert!(e.contains("children[1].shape"), "{e}");
    // Read by the parser's own checks: the message names the line and column.
    let e = bad("(shape: Sphere(radius: 1), position: (1e9, 0, 0))");
    assert!(e.contains("bad.ron:1:") && e.contains("out of range"), "{e}");
}
