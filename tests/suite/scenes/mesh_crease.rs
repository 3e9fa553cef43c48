//! Issue 19, the crease: a box resting across the crease of a V-shaped valley whose two faces
//! are 40° apart (beyond the 25° within which one manifold normal serves several triangles).
//! With one manifold per pair the box is pushed along one face's normal only and sinks into the
//! other face; with one manifold per face it rests on both within the slop.

use collidoscope::math::{Real, Vec3};
use collidoscope::scene::Scene;

/// Half the angle between the valley's faces: each rises at 20°.
const SLOPE_DEG: Real = 20.0;

/// A V-shaped valley along z (4 m across, 4 m long, its crease on the z axis) and a box of
/// `half` extents at `x`, turned `yaw` degrees about the vertical, dropped from 2 cm above
/// where its lowest corners would touch.
fn valley_scene(half: Vec3, x: Real, yaw: Real, mesh: bool) -> String {
    let h = 2.0 * SLOPE_DEG.to_radians().tan();
    let floor = if mesh {
        format!(
            "TriangleMesh(vertices: [(-2, {h}, -2), (0, 0, -2), (2, {h}, -2), (-2, {h}, 2), (0, 0, 2), (2, {h}, 2)], \
             indices: [(0, 3, 4), (0, 4, 1), (1, 4, 5), (1, 5, 2)])"
        )
    } else {
        // The same valley as a height field of 4 x 2 cells of 1 m (rows along z).
        let row = format!("[{h}, {}, 0, {}, {h}]", h / 2.0, h / 2.0);
        format!("HeightField(cell: 1, heights: [{row}, {row}, {row}])")
    };
    let reach = half.x * yaw.to_radians().cos().abs() + half.z * yaw.to_radians().sin().abs();
    let y = (x.abs() + reach) * SLOPE_DEG.to_radians().tan() + half.y + 0.02;
    format!(
        "(bodies: [(kind: Static, shape: {floor}), \
         (name: \"box\", shape: Cuboid(half_extents: ({}, {}, {})), position: ({x}, {y}, 0), rotation: Euler(0, {yaw}, 0))])",
        half.x, half.y, half.z
    )
}

/// How deep the box's deepest corner is below the valley's surface (the distance to the plane
/// of the face on its side), m: negative when every corner is clear.
fn deepest_corner(w: &collidoscope::World) -> Real {
    let b = &w.bodies()[1];
    let collidoscope::geometry::Shape::Cuboid(c) = &b.shape else { unreachable!() };
    let (s, cs) = (SLOPE_DEG.to_radians().sin(), SLOPE_DEG.to_radians().cos());
    (0..8)
        .map(|i| {
            let corner = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            ) * c.half_extents;
            let v = b.pose.transform_point(corner);
            // The face on the corner's side: normal (∓sin, cos, 0) through the crease.
            let n = Vec3::new(-s * v.x.signum(), cs, 0.0);
            -n.dot(v)
        })
        .fold(Real::NEG_INFINITY, Real::max)
}

/// Boxes across the crease, centred and off centre, square and turned, on a triangle mesh and
/// on a height field: after 2 s each is still and, over its last 20 steps, its deepest corner
/// is within the slop of the face on its side. With one manifold per pair the centred box sinks
/// 16 mm into one face and keeps sliding.
#[test]
fn a_box_across_a_crease_rests_on_both_faces_within_the_slop() {
    let cases = [(0.0, 0.0), (0.12, 0.0), (-0.08, 30.0), (0.05, 90.0)];
    for mesh in [true, false] {
        for (x, yaw) in cases {
            let text = valley_scene(Vec3::new(0.5, 0.2, 0.4), x, yaw, mesh);
            let scene = Scene::parse(&text, "crease.ron").unwrap_or_else(|e| panic!("{e}\n{text}"));
            let mut w = scene.build().unwrap();
            let slop = w.settings.slop;
            let mut worst: Real = 0.0;
            for k in 0..120 {
                w.step();
                if k >= 100 {
                    worst = worst.max(deepest_corner(&w));
                }
            }
            let b = &w.bodies()[1];
            let case = format!("{} at x = {x}, turned {yaw}°", if mesh { "mesh" } else { "height field" });
            println!("{case}: deepest corner {:.3} mm over the last 20 steps", worst * 1e3);
            assert!(worst <= slop, "{case}: a corner {:.3} mm deep (slop {} mm)", worst * 1e3, slop * 1e3);
            assert!(b.linvel.length() < 0.01 && b.angvel.length() < 0.05, "{case}: still moving {:?}", b.linvel);
        }
    }
}

/// The pair panel's trace of the resting box shows the world's manifolds: as many as the world
/// made for the pair, the same normals and depths, with the scene's internal-edge mode.
#[test]
fn the_pair_trace_shows_every_manifold_of_the_crease() {
    use collidoscope::narrowphase::{Tolerance, explain_with_edges};
    let scene = Scene::parse(&valley_scene(Vec3::new(0.5, 0.2, 0.4), 0.0, 0.0, true), "crease.ron").unwrap();
    let mut w = scene.build().unwrap();
    // Awake, so the world keeps making the pair's contacts.
    let mut awake = w.settings.clone();
    awake.sleeping = false;
    w.set_settings(awake);
    for _ in 0..60 {
        w.step();
    }
    let s = &w.settings;
    let tol = Tolerance { margin: s.speculative_distance, epsilon: s.contact_epsilon };
    let (floor, b) = (&w.bodies()[0], &w.bodies()[1]);
    let t = explain_with_edges(&floor.shape, &floor.pose, &b.shape, &b.pose, tol, s.narrow_phase, s.internal_edges);
    let traced: Vec<_> = t.manifold.iter().chain(&t.more).collect();
    assert!(traced.len() >= 2, "one manifold per face: {traced:?}");
    // The world's contacts were made at the start of the last step; the trace at its end: the
    // box is at rest, so they agree to rounding.
    let world: Vec<_> = w.contacts().iter().map(|c| &c.manifold).collect();
    assert_eq!(traced.len(), world.len(), "{traced:?}\n{world:?}");
    for (t, m) in traced.iter().zip(&world) {
        assert!(t.normal.dot(m.normal) > 0.999, "{:?} vs {:?}", t.normal, m.normal);
        assert!((t.max_depth() - m.max_depth()).abs() < 1e-3, "{} vs {}", t.max_depth(), m.max_depth());
    }
}
