//! Issue 22's table: scenes/tunneling.ron (a 1 cm wall, 200 m/s, 120 steps) with only the
//! bullet's shape changed. Every bullet passes through with CCD off and stops on the near side
//! of the wall with `speculative` and with `toi`. And the CCD lesson scenes show what they say.

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
        ("hull 10 cm", super::common::shape("hull", 0.1, 0.3)),
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

/// Loads a lesson scene with the given CCD mode.
fn lesson(name: &str, mode: CcdMode) -> collidoscope::World {
    let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    let mut w = Scene::load(&path).unwrap().build().unwrap();
    let mut settings = w.settings.clone();
    settings.ccd = mode;
    w.set_settings(settings);
    w
}

/// The largest centre x each dynamic body reaches over `steps`, by name.
fn furthest(w: &mut collidoscope::World, steps: usize) -> Vec<(String, f32)> {
    let mut out: Vec<(String, f32)> = w
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| (b.name.clone().unwrap_or_default(), f32::NEG_INFINITY))
        .collect();
    for _ in 0..steps {
        w.step();
        for (o, b) in out.iter_mut().zip(w.bodies().iter().filter(|b| b.is_dynamic())) {
            o.1 = o.1.max(b.pose.translation.x);
        }
    }
    out
}

#[test]
fn the_every_shape_lesson_stops_all_four_bullets() {
    for (name, x) in furthest(&mut lesson("tunneling_shapes", CcdMode::Off), 30) {
        assert!(x > 1.0, "off: {name} should pass, reached {x}");
    }
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        for (name, x) in furthest(&mut lesson("tunneling_shapes", mode), 120) {
            assert!(x < NEAR_FACE, "{mode:?}: {name}'s centre reached {x}");
        }
    }
}

/// The compound lesson: each child is swept, so no body's centre and no child's centre is ever
/// past the wall's near face.
#[test]
fn the_compound_lesson_stops_all_three() {
    for (name, x) in furthest(&mut lesson("tunneling_compounds", CcdMode::Off), 30) {
        assert!(x > 1.0, "off: {name} should pass, reached {x}");
    }
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        let mut w = lesson("tunneling_compounds", mode);
        for _ in 0..120 {
            w.step();
            for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
                let Shape::Compound(c) = &b.shape else { unreachable!() };
                let children = c.children().iter().map(|k| b.pose.transform_point(k.pose.translation));
                for p in children.chain([b.pose.translation]) {
                    assert!(p.x < NEAR_FACE, "{mode:?}: {:?} (or a child) at {p}, step {}", b.name, w.step_count());
                }
            }
        }
    }
}

#[test]
fn the_spinning_plate_passes_without_ccd_and_stops_with_it() {
    let (_, x) = furthest(&mut lesson("tunneling_spinning_plate", CcdMode::Off), 60)[0].clone();
    assert!(x > 1.0, "off: the plate should pass, reached {x}");
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        let (_, x) = furthest(&mut lesson("tunneling_spinning_plate", mode), 60)[0].clone();
        assert!(x < 0.0, "{mode:?}: the plate's centre reached {x}");
    }
}

#[test]
fn the_crossing_plates_meet_with_time_of_impact() {
    // Returns the impacts between the plates and plate A's sideways speed after 10 steps.
    let run = |mode| {
        let mut w = lesson("tunneling_crossing", mode);
        let mut impacts = 0;
        for _ in 0..10 {
            w.step();
            impacts += w.toi_events().iter().filter(|e| e.body.max(e.other) == 1 && e.body.min(e.other) == 0).count();
        }
        (impacts, w.bodies()[0].linvel.y)
    };
    let (impacts, vy) = run(CcdMode::Off);
    assert!(impacts == 0 && vy == 0.0, "off: they fly past each other untouched");
    // B (moving along +y) strikes A: A is pushed along +y.
    let (impacts, vy) = run(CcdMode::Toi);
    assert!(impacts >= 1 && vy > 10.0, "toi: {impacts} impacts, A's sideways speed {vy}");
}
