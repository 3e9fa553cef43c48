//! Shapes and worlds shared by the CCD tests.
#![allow(dead_code)]

use collidoscope::ccd::CcdMode;
use collidoscope::geometry::ConvexHull;
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};
use std::sync::Arc;

/// The shape kinds CCD is tested on.
pub const KINDS: [&str; 4] = ["sphere", "cuboid", "capsule", "hull"];

/// A shape of `kind` whose largest extent is about `size` (m); `aspect` in [0, 1] thins the
/// non-spheres (0: as thick as long, 1: a fifth as thick).
pub fn shape(kind: &str, size: Real, aspect: Real) -> Shape {
    let thin = 1.0 - 0.8 * aspect;
    match kind {
        "sphere" => Shape::sphere(0.5 * size),
        "cuboid" => Shape::cuboid(Vec3::new(0.5 * size, 0.5 * size * thin, 0.35 * size)),
        "capsule" => Shape::capsule(0.5 * size * (1.0 - 0.5 * thin), 0.25 * size * thin.max(0.3)),
        "hull" => {
            // A lopsided octahedron: pointed, sloped faces, no symmetry plane through the centre.
            let (a, t) = (0.5 * size, 0.5 * size * thin);
            let pts = [
                Vec3::new(a, 0.1 * t, 0.0),
                Vec3::new(-0.7 * a, 0.0, 0.1 * t),
                Vec3::new(0.0, t, 0.0),
                Vec3::new(0.1 * a, -0.8 * t, 0.0),
                Vec3::new(0.0, 0.0, 0.6 * a),
                Vec3::new(0.05 * a, 0.1 * t, -0.5 * a),
            ];
            Shape::ConvexHull(Arc::new(ConvexHull::new(&pts).unwrap()))
        }
        other => panic!("no shape kind {other}"),
    }
}

/// Settings for a CCD test: no gravity unless asked, the given mode.
pub fn settings(ccd: CcdMode, gravity: bool) -> Settings {
    Settings { ccd, gravity: if gravity { Vec3::new(0.0, -9.81, 0.0) } else { Vec3::ZERO }, ..Default::default() }
}

/// A dynamic body of steel-like density with no bounce.
pub fn bullet(shape: Shape, pose: Pose, linvel: Vec3, angvel: Vec3) -> Body {
    let material = Material { restitution: 0.0, friction: 0.3, density: 7800.0 };
    Body::new(BodyKind::Dynamic, shape, pose, material).with_velocity(linvel, angvel)
}

/// A static wall `thickness` thick whose faces are the planes x = ±thickness/2.
pub fn wall(thickness: Real, half_size: Real) -> Body {
    Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(0.5 * thickness, half_size, half_size)),
        Pose::IDENTITY,
        Material::default(),
    )
}

/// A world of the given bodies.
pub fn world(settings: Settings, bodies: impl IntoIterator<Item = Body>) -> World {
    let mut w = World::new(settings);
    for b in bodies {
        w.add_body(b);
    }
    w
}

/// A rotation from three numbers in [0, 1).
pub fn rotation(u: [Real; 3]) -> Quat {
    let axis = Vec3::new(u[0] - 0.5, u[1] - 0.5, 0.3).normalize();
    Quat::from_axis_angle(axis, u[2] * std::f32::consts::TAU)
}

/// A triangle mesh of `cells` x `cells` squares (two triangles each) spanning [-half, half] in
/// two coordinates, laid out as a floor facing +y and placed by `place(x, z)`: a turn of the
/// floor keeps the winding, so the normals turn with it.
pub fn grid_mesh(half: Real, cells: u32, place: impl Fn(Real, Real) -> Vec3) -> Shape {
    let cell = 2.0 * half / cells as Real;
    let v = (0..=cells)
        .flat_map(|r| (0..=cells).map(move |c| (c as Real * cell - half, r as Real * cell - half)))
        .map(|(x, z)| place(x, z))
        .collect();
    let mut t = Vec::new();
    for r in 0..cells {
        for c in 0..cells {
            let i = r * (cells + 1) + c;
            t.push([i, i + cells + 1, i + cells + 2]);
            t.push([i, i + cells + 2, i + 1]);
        }
    }
    Shape::TriangleMesh(Arc::new(collidoscope::geometry::TriangleMesh::new(v, t).unwrap()))
}

/// How far past a wall's face (at x = `wall_x`) a box of half width 0.1 m gets over 30 steps at
/// the default settings (`Speculative`), set sliding along +x at `speed` from x = 0.3 on a floor
/// whose top is at y = `floor_top`, both parts of the static `surface`; 0 when it stops before.
pub fn slide_into_wall(surface: &Shape, floor_top: Real, wall_x: Real, speed: Real) -> Real {
    let mut w = World::new(Settings::default());
    assert_eq!(w.settings.ccd, CcdMode::Speculative);
    w.add_body(Body::new(BodyKind::Static, surface.clone(), Pose::IDENTITY, Material::default()));
    let half = 0.1;
    let start = Pose::from_translation(Vec3::new(0.3, floor_top + half, 0.0));
    let b = w.add_body(
        Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(half)), start, Material::default())
            .with_velocity(Vec3::new(speed, 0.0, 0.0), Vec3::ZERO),
    );
    let mut deepest: Real = 0.0;
    for _ in 0..30 {
        w.step();
        deepest = deepest.max(w.bodies()[b].pose.translation.x + half - wall_x);
    }
    deepest
}
