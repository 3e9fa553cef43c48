//! Issue 19: boxes, capsules and spheres dropped on a tessellated floor (triangle mesh) and on
//! a height field (scenes/mesh_terrain.ron) come to rest on the surface: none falls through,
//! each rests within the slop, and scene checks reject dynamic meshes and bad geometry.

use collidoscope::geometry::Ray;
use collidoscope::math::Vec3;
use collidoscope::narrowphase::{Tolerance, contact_analytic};
use collidoscope::scene::Scene;

#[test]
fn bodies_come_to_rest_on_the_mesh_and_the_height_field() {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/mesh_terrain.ron")).unwrap();
    let mut w = scene.build().unwrap();
    let slop = w.settings.slop;
    // 4 s at 60 Hz.
    for _ in 0..240 {
        w.step();
    }
    let bodies = w.bodies();
    let surfaces: Vec<usize> = (0..bodies.len()).filter(|&i| bodies[i].shape.is_mesh()).collect();
    assert_eq!(surfaces.len(), 2);
    let tol = Tolerance { margin: 0.05, epsilon: 1e-6 };
    for (i, b) in bodies.iter().enumerate().filter(|(_, b)| b.is_dynamic()) {
        let name = b.name.clone().unwrap_or_default();
        // Above the surface: the ray down from high above its centre meets a surface below it.
        let top = Ray::new(b.pose.translation + Vec3::Y * 20.0, Vec3::NEG_Y);
        let ground = w.ray_cast(&top, 40.0).filter(|(j, _)| surfaces.contains(j));
        let under = surfaces
            .iter()
            .filter_map(|&s| collidoscope::geometry::ray_cast(&bodies[s].shape, &bodies[s].pose, &top, 40.0))
            .map(|h| h.point.y)
            .fold(f32::NEG_INFINITY, f32::max);
        assert!(
            b.pose.translation.y > under,
            "{name} ({i}) fell through: centre {:?}, surface at {under} ({ground:?})",
            b.pose.translation
        );
        // Spheres and capsules may still roll (nothing resists rolling: over the hills, up and
        // down); boxes stand still, and everything touches its surface (below).
        if matches!(b.shape, collidoscope::geometry::Shape::Cuboid(_)) {
            assert!(
                b.linvel.length() < 0.05 && b.angvel.length() < 0.2,
                "{name} still moving: {:?} {:?}",
                b.linvel,
                b.angvel
            );
        }
        // Resting: touching one surface, sunk no deeper than the slop and a millimetre.
        let depth = surfaces
            .iter()
            .filter_map(|&s| contact_analytic(&bodies[s].shape, &bodies[s].pose, &b.shape, &b.pose, tol))
            .map(|m| m.max_depth())
            .fold(f32::NEG_INFINITY, f32::max);
        println!("{name}: depth {depth}");
        // On the flat floor and on the hills (a manifold per direction its triangles push),
        // within the slop and a millimetre.
        let bar = slop + 1e-3;
        assert!(depth > -0.005 && depth < bar, "{name}: depth {depth} (slop {slop})");
    }
}

#[test]
fn scene_checks_name_the_mesh_problem() {
    let check = |body: &str| Scene::parse(&format!("(bodies: [{body}])"), "t.ron").unwrap_err().to_string();
    let e = check("(name: \"rock\", shape: TriangleMesh(vertices: [(0,0,0), (1,0,0), (0,0,1)], indices: [(0, 2, 1)]))");
    assert!(e.contains("bodies[0].kind") && e.contains("rock") && e.contains("Static or Kinematic"), "{e}");
    let e = check("(kind: Static, shape: TriangleMesh(vertices: [(0,0,0), (1,0,0), (0,0,1)], indices: [(0, 2, 5)]))");
    assert!(e.contains("bodies[0].shape") && e.contains("triangle 0 refers to vertex 5"), "{e}");
    let e = check("(kind: Static, shape: TriangleMesh(vertices: [(0,0,0), (1,0,0), (2,0,0)], indices: [(0, 2, 1)]))");
    assert!(e.contains("triangle 0 is degenerate"), "{e}");
    let e = check("(kind: Static, shape: TriangleMesh(vertices: [], indices: []))");
    assert!(e.contains("empty"), "{e}");
    let e = check("(kind: Static, shape: HeightField(cell: 0.5, heights: [[0, 0, 0], [0, 0]]))");
    assert!(e.contains("heights[1] has 2 values"), "{e}");
    let e = check("(kind: Static, shape: HeightField(cell: 0, heights: [[0, 0], [0, 0]]))");
    assert!(e.contains("cell: 0 m is out of range"), "{e}");
    let e = check("(kind: Static, shape: HeightField(cell: 1, heights: [[0, 0], [0, 1e9]]))");
    assert!(e.contains("heights[1][1]: 1000000000 m is out of range"), "{e}");
    let e = check("(kind: Static, shape: HeightField(cell: 1, heights: [[0, 0], [0, NaN]]))");
    assert!(e.contains("heights[1][1]: NaN is not a finite number"), "{e}");
    let ok =
        Scene::parse("(bodies: [(kind: Kinematic, shape: HeightField(cell: 1, heights: [[0, 0], [0, 1]]))])", "t.ron");
    assert!(ok.is_ok(), "{ok:?}");
}

/// A 5 cm ball at 100 m/s onto a one-quad mesh floor and onto a height field: without CCD it
/// passes through; speculative contacts and the TOI mode's sweep stop it on the surface.
#[test]
fn a_fast_ball_stops_on_a_mesh_with_ccd() {
    for floor in [
        "TriangleMesh(vertices: [(-2, 0, -2), (-2, 0, 2), (2, 0, 2), (2, 0, -2)], indices: [(0, 1, 2), (0, 2, 3)])",
        "HeightField(cell: 2, heights: [[0, 0, 0], [0, 0, 0], [0, 0, 0]])",
    ] {
        let text = |ccd: &str| {
            format!(
                "(settings: (ccd: {ccd}), bodies: [(kind: Static, shape: {floor}), \
                 (shape: Sphere(radius: 0.05), position: (0.3, 1, 0.2), linear_velocity: (0, -100, 0))])"
            )
        };
        for (ccd, through) in [("Off", true), ("Speculative", false), ("Toi", false)] {
            let s = Scene::parse(&text(ccd), "fast.ron").unwrap();
            let m = collidoscope::sweep::run_point(&s, &s.settings, 60, None).unwrap().metrics;
            assert_eq!(m.tunneled, through as u32, "{ccd} on {floor}: {m:?}");
            let mut w = s.build().unwrap();
            for _ in 0..60 {
                w.step();
            }
            let y = w.bodies()[1].pose.translation.y;
            assert_eq!(y < 0.0, through, "{ccd} on {floor}: ball at y = {y}");
        }
    }
}

/// The pair inspector on a mesh pair shows its manifold, the same as the narrow phase's, in
/// either order, without running GJK on the mesh.
#[test]
fn the_pair_inspector_explains_a_mesh_pair() {
    use collidoscope::geometry::{HeightField, Shape};
    use collidoscope::math::Pose;
    use collidoscope::narrowphase::{NarrowPhaseKind, explain};
    let h = Shape::HeightField(HeightField::new(3, 3, 1.0, vec![0.0; 9]).unwrap().into());
    let b = Shape::cuboid(Vec3::splat(0.2));
    let pb = Pose::from_translation(Vec3::new(0.1, 0.19, 0.3));
    let tol = Tolerance { margin: 0.02, epsilon: 1e-6 };
    let direct = contact_analytic(&h, &Pose::IDENTITY, &b, &pb, tol).unwrap();
    let t = explain(&h, &Pose::IDENTITY, &b, &pb, tol, NarrowPhaseKind::Analytic);
    assert_eq!(t.manifold, Some(direct));
    assert!(t.gjk_simplices.is_empty() && t.minkowski.is_empty());
    let t = explain(&b, &pb, &h, &Pose::IDENTITY, tol, NarrowPhaseKind::Gjk);
    assert_eq!(t.manifold.map(|m| m.normal), Some(-direct.normal));
}

/// `World::add_body` (not only the scene checks) refuses a dynamic mesh or height field, with an
/// error naming the body; static and kinematic ones are added.
#[test]
fn the_world_refuses_a_dynamic_mesh_naming_the_body() {
    use collidoscope::geometry::{HeightField, TriangleMesh};
    use collidoscope::math::Pose;
    use collidoscope::world::AddBodyError;
    use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};
    use std::sync::Arc;
    let tri = TriangleMesh::new(vec![Vec3::ZERO, Vec3::Z, Vec3::X], vec![[0, 1, 2]]).unwrap();
    let mesh = Shape::TriangleMesh(Arc::new(tri));
    let heights = Shape::HeightField(Arc::new(HeightField::new(2, 2, 1.0, vec![0.0; 4]).unwrap()));
    let mut w = World::new(Settings::default());
    w.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(0.1), Pose::IDENTITY, Material::default()));
    let mut rock = Body::new(BodyKind::Dynamic, mesh.clone(), Pose::IDENTITY, Material::default());
    rock.name = Some("rock".into());
    let e = w.try_add_body(rock.clone()).unwrap_err();
    assert!(matches!(e, AddBodyError::DynamicMesh { index: 1, .. }), "{e:?}");
    let msg = e.to_string();
    assert!(msg.contains("body 1 \"rock\"") && msg.contains("triangle mesh") && msg.contains("Static"), "{msg}");
    let e = w.try_add_body(Body::new(BodyKind::Dynamic, heights.clone(), Pose::IDENTITY, Material::default()));
    assert!(e.unwrap_err().to_string().contains("body 1 is a dynamic height field"));
    assert_eq!(w.bodies().len(), 1, "nothing refused was added");
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| w.add_body(rock.clone())));
    let text = panic.unwrap_err().downcast::<String>().map(|s| *s).unwrap_or_default();
    assert!(text.contains("\"rock\""), "{text}");
    rock.kind = BodyKind::Static;
    assert_eq!(w.try_add_body(rock), Ok(1));
    assert_eq!(w.try_add_body(Body::new(BodyKind::Kinematic, heights, Pose::IDENTITY, Material::default())), Ok(2));
}
