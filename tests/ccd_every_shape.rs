//! Issue 22's table: scenes/tunneling.ron (a 1 cm wall, 200 m/s, 120 steps) with only the
//! bullet's shape changed. Every bullet passes through with CCD off and stops on the near side
//! of the wall with `speculative` and with `toi`.

mod ccd_common;

use collidoscope::ccd::CcdMode;
use collidoscope::math::Vec3;
use collidoscope::{Scene, Shape};

const SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/tunneling.ron");
/// The wall's near face: its half thickness is 5 mm.
const NEAR_FACE: f32 = -0.005;

fn bullets() -> Vec<(&'static str, Shape)> {
    vec![
        ("sphere r 5 cm (the scene as shipped)", Shape::sphere(0.05)),
        ("cube 10 cm", Shape::cuboid(Vec3::new(0.05, 0.05, 0.05))),
        ("box 4 x 10 x 6 cm", Shape::cuboid(Vec3::new(0.02, 0.05, 0.03))),
        ("capsule h 5 cm r 2 cm", Shape::capsule(0.05, 0.02)),
        ("capsule h 10 cm r 5 cm", Shape::capsule(0.1, 0.05)),
        ("hull 10 cm", ccd_common::shape("hull", 0.1, 0.3)),
    ]
}

/// Runs the scene with the bullet's shape replaced; returns the bullet's final centre x and the
/// largest x its centre reached.
fn run(shape: &Shape, mode: CcdMode, steps: usize) -> (f32, f32) {
    let scene = Scene::load(SCENE).unwrap();
    let mut w = scene.build().unwrap();
    let mut settings = w.settings.clone();
    settings.ccd = mode;
    w.set_settings(settings);
    let i = w.bodies().iter().position(|b| b.name.as_deref() == Some("bullet")).unwrap();
    let b = w.body_mut(i);
    b.shape = shape.clone();
    b.update_mass();
    let mut furthest = f32::NEG_INFINITY;
    for _ in 0..steps {
        w.step();
        furthest = furthest.max(w.bodies()[i].pose.translation.x);
    }
    (w.bodies()[i].pose.translation.x, furthest)
}

#[test]
fn every_bullet_tunnels_without_ccd() {
    for (name, shape) in bullets() {
        let (x, _) = run(&shape, CcdMode::Off, 60);
        assert!(x > 1.0, "{name}: expected it far beyond the wall with CCD off, x = {x}");
    }
}

#[test]
fn every_bullet_stops_on_the_near_side_in_both_modes() {
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        for (name, shape) in bullets() {
            let (x, furthest) = run(&shape, mode, 120);
            // The centre never enters the wall, and the bullet ends at rest near it.
            assert!(furthest < NEAR_FACE, "{mode:?} {name}: the centre reached x = {furthest}");
            assert!(x > -0.5, "{mode:?} {name}: ended at x = {x}, far from the wall");
        }
    }
}
