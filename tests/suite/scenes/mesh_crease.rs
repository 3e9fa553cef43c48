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
