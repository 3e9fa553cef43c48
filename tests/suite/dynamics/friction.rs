//! Coulomb friction: a box on a ramp stays put below atan(mu) and slides above it with the
//! acceleration g (sin θ - mu cos θ).

use collidoscope::math::{Pose, Quat, Vec3};
use collidoscope::{Body, BodyKind, Material, Scene, Settings, Shape, World};

const MU: f32 = 0.5;
const G: f32 = 9.81;

/// Distance a box slides along a ramp of `degrees` in `seconds`.
fn slide(degrees: f32, seconds: f32) -> f32 {
    let mut w = World::new(Settings { sleeping: false, ..Default::default() });
    let m = Material { restitution: 0.0, friction: MU, density: 1000.0 };
    let q = Quat::from_rotation_z(-degrees.to_radians());
    w.add_body(Body::new(BodyKind::Static, Shape::cuboid(Vec3::new(8.0, 0.2, 1.0)), Pose::new(Vec3::ZERO, q), m));
    let start = q * Vec3::new(-5.0, 0.2 + 0.3, 0.0);
    let b = w.add_body(Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.3)), Pose::new(start, q), m));
    let steps = (seconds / w.settings.dt).round() as usize;
    for _ in 0..steps {
        w.step();
    }
    (w.bodies()[b].pose.translation - start).dot(q * Vec3::X)
}

#[test]
fn a_box_holds_below_the_friction_angle_and_slides_above_it() {
    let critical = MU.atan().to_degrees();
    for degrees in [10.0, critical - 4.0] {
        let d = slide(degrees, 2.0);
        assert!(d.abs() < 0.005, "{degrees}°: below atan(mu) = {critical:.1}° the box should stay, slid {d} m");
    }
    for degrees in [critical + 4.0, 40.0] {
        let t = 1.5;
        let d = slide(degrees, t);
        let th = degrees.to_radians();
        let expected = 0.5 * G * (th.sin() - MU * th.cos()) * t * t;
        println!("{degrees}°: slid {d:.3} m in {t} s, expected {expected:.3} m");
        assert!((d - expected).abs() < 0.1 * expected, "{degrees}°: slid {d} m, expected {expected} m");
    }
}

#[test]
fn ramp_scene_shows_both_cases() {
    let mut w = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ramp.ron")).unwrap().build().unwrap();
    let start: Vec<Vec3> = w.bodies().iter().map(|b| b.pose.translation).collect();
    for _ in 0..90 {
        w.step();
    }
    let moved = |i: usize| w.bodies()[i].pose.translation.distance(start[i]);
    assert!(moved(2) < 0.005, "the box on the 20° ramp stays: moved {}", moved(2));
    assert!(moved(4) > 0.5, "the box on the 33° ramp slides: moved {}", moved(4));
}

#[test]
fn the_friction_setting_overrides_every_bodys_material() {
    // Issue 31: with friction 0 set for every body, the box on the 20° ramp of ramp.ron slides
    // (a = g sin θ) although its own material holds it.
    let run = |friction: Option<f32>| {
        let mut w = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ramp.ron")).unwrap().build().unwrap();
        let s = Settings { friction, ..w.settings.clone() };
        w.set_settings(s);
        let start = w.bodies()[2].pose.translation;
        for _ in 0..60 {
            w.step();
        }
        w.bodies()[2].pose.translation.distance(start)
    };
    assert!(run(None) < 0.005, "its own material holds it");
    let d = run(Some(0.0));
    let expected = 0.5 * G * 20f32.to_radians().sin();
    assert!((d - expected).abs() < 0.1 * expected, "frictionless: slid {d} m in 1 s, expected {expected} m");
}
