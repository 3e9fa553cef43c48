//! A mesh file as a compound of convex hulls (parry3d's V-HACD): scenes/assets/u.obj, a 3 x 2
//! x 1 m block with a 1 x 1 m notch (volume 5 m³), cut into at least two hulls whose union
//! holds the block's volume within 10% (by counting a fixed grid of points), and a ball dropped
//! into the notch comes to rest inside it, on its floor.

use collidoscope::math::{Real, Vec3};
use collidoscope::{Scene, Shape};

const SCENE: &str = r#"(
    bodies: [
        (name: "u", kind: Static, shape: Compound(file: "assets/u.obj", decomposition: (resolution: 64))),
        (name: "ball", shape: Sphere(radius: 0.3), position: (0.05, 3, 0.1)),
    ],
)"#;

fn scene_path() -> String {
    format!("{}/scenes/u_test.ron", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn the_u_decomposes_into_hulls_that_hold_its_volume() {
    let w = Scene::parse(SCENE, scene_path()).unwrap().build().unwrap();
    let b = &w.bodies()[0];
    let Shape::Compound(c) = &b.shape else { panic!("{:?}", b.shape) };
    assert!(c.children().len() >= 2, "{} hulls", c.children().len());
    // Points on a 5 cm grid over the block's box, in the file's frame (the body's position is
    // the file's origin; the compound is re-centred on its centre of mass).
    let step = 0.05;
    let inside = |p: Vec3| {
        let local = b.pose.inverse_transform_point(p);
        c.children().iter().any(|k| {
            let Shape::ConvexHull(h) = &k.shape else { panic!("a child is not a hull") };
            let q = k.pose.inverse_transform_point(local);
            h.faces().iter().all(|f| f.normal.dot(q) <= f.offset + 1e-5)
        })
    };
    let (mut count, mut outside_block) = (0usize, 0usize);
    for i in 0..64 {
        for j in 0..44 {
            for k in 0..24 {
                let p = Vec3::new(
                    -1.6 + (i as Real + 0.5) * step,
                    -0.1 + (j as Real + 0.5) * step,
                    -0.6 + (k as Real + 0.5) * step,
                );
                if inside(p) {
                    count += 1;
                    let in_block = p.x.abs() <= 1.5 && (0.0..=2.0).contains(&p.y) && p.z.abs() <= 0.5;
                    let in_notch = p.x.abs() < 0.5 && p.y > 1.0;
                    if !in_block || in_notch {
                        outside_block += 1;
                    }
                }
            }
        }
    }
    let cell = step * step * step;
    let volume = count as Real * cell;
    assert!((volume - 5.0).abs() < 0.5, "the hulls hold {volume} m³, the block 5 m³");
    assert!((outside_block as Real * cell) < 0.5, "{} m³ of hull outside the block", outside_block as Real * cell);
}

#[test]
fn a_ball_dropped_into_the_notch_rests_inside_it() {
    let mut w = Scene::parse(SCENE, scene_path()).unwrap().build().unwrap();
    for _ in 0..240 {
        w.step();
    }
    let ball = &w.bodies()[1];
    let p = ball.pose.translation;
    assert!(p.x.abs() < 0.5 - 0.3 + 0.02 && p.z.abs() < 0.5, "the ball is at {p}, outside the notch");
    assert!((p.y - 1.3).abs() < 0.02, "the ball's centre is at y = {}, the notch floor at 1 m", p.y);
    assert!(ball.linvel.length() < 0.05, "the ball still moves at {}", ball.linvel);
}

#[test]
fn decomposition_errors_name_the_field() {
    let bad = |shape: &str| {
        let text = format!("(bodies: [(kind: Static, shape: {shape})])");
        Scene::parse(&text, scene_path()).unwrap_err().to_string()
    };
    let e = bad(r#"Compound(file: "assets/u.obj", decomposition: (resolution: 2))"#);
    assert!(e.contains("bodies[0].shape") && e.contains("decomposition.resolution"), "{e}");
    let e = bad(r#"Compound(file: "assets/missing.obj")"#);
    assert!(e.contains("file \"assets/missing.obj\"") && e.contains("cannot read"), "{e}");
    let e = bad(r#"Compound(file: "assets/u.obj", children: [(shape: Sphere(radius: 1))])"#);
    assert!(e.contains("give either a file or children"), "{e}");
    let e = bad(r#"Compound(children: [(shape: Sphere(radius: 1))], decomposition: (resolution: 32))"#);
    assert!(e.contains("give a file too"), "{e}");
}
