//! `rain_100k`, issue #37's 100,000-body rain: built in code (a scene file of its size would
//! only repeat this), for `benches/parallel.rs` and `tools/rain_probe.rs`.

use collidoscope::World;
use collidoscope::dynamics::{BodyKind, Material};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Generator, Scene, ShapeDesc};

/// 100,000 bodies (spheres, cubes, capsules and rocks of `scenes/rain_1000.ron`) at the spacing
/// of `scenes/broadphase_uniform_rain.ron` (its 56 × 20 × 56 m box for 3,000 bodies, widened to
/// 323 × 20 × 323 m for 100,000), placed clear of each other and falling at 4 m/s onto a static
/// floor; the default settings with sleeping off.
pub fn rain_100k() -> World {
    // 28 m × √(100,000 / 3,000).
    const HALF: f32 = 161.6;
    let mut floor = BodyDesc::new(
        ShapeDesc::Cuboid { half_extents: Vec3::new(HALF + 2.0, 0.5, HALF + 2.0) },
        Vec3::new(0.0, -0.5, 0.0),
    );
    floor.kind = BodyKind::Static;
    let rock = [
        (0.3, 0.0, 0.0),
        (-0.26, 0.04, 0.08),
        (0.0, 0.28, 0.0),
        (0.04, -0.22, 0.04),
        (0.0, 0.0, 0.25),
        (0.08, 0.08, -0.3),
        (-0.15, 0.19, -0.15),
        (0.19, -0.15, 0.19),
    ];
    let scene = Scene {
        bodies: vec![floor],
        generators: vec![Generator::Rain {
            count: 100_000,
            seed: 37,
            min: Vec3::new(-HALF, 0.4, -HALF),
            max: Vec3::new(HALF, 20.0, HALF),
            shapes: vec![
                ShapeDesc::Sphere { radius: 0.25 },
                ShapeDesc::Cuboid { half_extents: Vec3::splat(0.25) },
                ShapeDesc::Capsule { half_height: 0.2, radius: 0.15 },
                ShapeDesc::convex_hull(rock.iter().map(|&(x, y, z)| Vec3::new(x, y, z)).collect()),
            ],
            random_rotation: true,
            linear_velocity: Vec3::new(0.0, -4.0, 0.0),
            material: Material::default(),
            separated: true,
        }],
        ..Scene::default()
    };
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(world.bodies().len(), 100_001);
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    world.set_settings(settings);
    world
}
