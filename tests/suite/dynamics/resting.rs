//! Resting contact and stacking: a lone box, scenes/tower.ron and pyramid.ron stand still for
//! 10 s; sleeping islands fall asleep, and drags, setting changes and impacts wake them.

use collidoscope::math::{Pose, Vec3};
use collidoscope::{Body, BodyKind, Material, Scene, Shape, World};

/// One box resting on a floor, turned 20°.
const LONE_BOX: &str = r#"(
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0)),
        (name: "box", shape: Cuboid(half_extents: (0.5, 0.5, 0.5)), position: (0, 0.5, 0), rotation: Euler(0, 20, 0)),
    ],
)"#;

fn lone_box() -> World {
    Scene::parse(LONE_BOX, "lone_box.ron").unwrap().build().unwrap()
}

fn load(name: &str) -> (Scene, World) {
    let scene = Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let world = scene.build().unwrap();
    (scene, world)
}

/// `tower.ron` after 240 steps, by which it has fallen asleep.
fn tower_asleep() -> (Scene, World) {
    let (scene, mut w) = load("tower.ron");
    for _ in 0..240 {
        w.step();
    }
    (scene, w)
}

/// Steps `world` for `steps` and returns the largest horizontal and vertical distance any
/// dynamic body's centre moved from where it started, and the mean absolute vertical speed of
/// the dynamic bodies over the last half.
fn settle(world: &mut World, steps: usize) -> (f32, f32, f32) {
    let start: Vec<Vec3> = world.bodies().iter().map(|b| b.pose.translation).collect();
    let mut speed_sum = 0.0;
    let mut samples = 0;
    for k in 0..steps {
        world.step();
        if k >= steps / 2 {
            for b in world.bodies().iter().filter(|b| b.is_dynamic()) {
                speed_sum += b.linvel.y.abs();
                samples += 1;
            }
        }
    }
    let (mut horizontal, mut vertical) = (0.0f32, 0.0f32);
    for (b, s) in world.bodies().iter().zip(&start).filter(|(b, _)| b.is_dynamic()) {
        let d = b.pose.translation - *s;
        horizontal = horizontal.max((d.x * d.x + d.z * d.z).sqrt());
        vertical = vertical.max(d.y.abs());
    }
    (horizontal, vertical, speed_sum / samples.max(1) as f32)
}

#[test]
fn a_lone_box_rests_within_a_millimetre_and_sleeps() {
    let mut good = lone_box();
    let (h, v, _) = settle(&mut good, 600);
    let good_drift = h.max(v);
    assert!(good_drift < 1e-3, "with slop and warm starting the box drifts {good_drift} m");
    assert!(good.bodies()[1].is_asleep(), "and falls asleep");
    assert_eq!(good.profile().sleeping_bodies, 1);

    // The lesson's bad case: no slop, no warm starting, no sleeping to hide it.
    let mut bad = lone_box();
    let mut s = bad.settings.clone();
    s.slop = 0.0;
    s.warm_starting = false;
    s.sleeping = false;
    bad.set_settings(s);
    let (h, v, bad_speed) = settle(&mut bad, 600);
    let bad_drift = h.max(v);
    let mut awake = lone_box();
    let mut s = awake.settings.clone();
    s.sleeping = false;
    awake.set_settings(s);
    let (_, _, good_speed) = settle(&mut awake, 600);
    println!(
        "jitter: good drift {:.3} mm, mean |vy| {:.2e} m/s; slop 0 without warm starting: drift {:.3} mm, mean |vy| {:.2e} m/s",
        good_drift * 1e3,
        good_speed,
        bad_drift * 1e3,
        bad_speed
    );
    assert!(bad_speed > good_speed, "the bad settings jitter more ({bad_speed} vs {good_speed})");
}

#[test]
fn tower_of_ten_stands_for_ten_seconds() {
    let (_, mut w) = load("tower.ron");
    assert_eq!(w.bodies().len(), 11);
    let (horizontal, vertical, _) = settle(&mut w, 600);
    // Soft contacts sag in proportion to the load: 0.3 mm per cube carried at 30 Hz.
    assert!(horizontal < 0.02, "a cube of the tower moved {horizontal} m sideways");
    assert!(vertical < 0.05, "the tower sank {vertical} m");
    assert_eq!(w.profile().sleeping_bodies, 10, "the tower falls asleep");
}

#[test]
fn pyramid_of_twenty_rows_stands_for_ten_seconds() {
    let (_, mut w) = load("pyramid.ron");
    assert_eq!(w.bodies().len(), 1 + 210);
    let (horizontal, vertical, _) = settle(&mut w, 600);
    assert!(horizontal < 0.02, "a cube of the pyramid moved {horizontal} m sideways");
    assert!(vertical < 0.06, "the pyramid sank {vertical} m");
    assert_eq!(w.profile().sleeping_bodies, 210, "and fell asleep");
}

#[test]
fn drags_settings_and_impacts_wake_sleeping_islands() {
    let (_, mut w) = tower_asleep();
    assert_eq!(w.profile().sleeping_bodies, 10);
    // A drag wakes the dragged body, and through contact the rest of its island.
    w.body_mut(5).linvel = Vec3::new(0.5, 0.0, 0.0);
    w.step();
    assert_eq!(w.profile().sleeping_bodies, 0, "the whole tower is one island");

    let (_, mut w) = tower_asleep();
    let mut s = w.settings.clone();
    s.gravity = Vec3::new(0.0, -1.62, 0.0);
    w.set_settings(s);
    assert!(w.bodies().iter().all(|b| !b.is_asleep()), "a setting change wakes everything");
    let same = w.settings.clone();
    for _ in 0..240 {
        w.step();
    }
    assert_eq!(w.profile().sleeping_bodies, 10);
    w.set_settings(same);
    assert_eq!(w.profile().sleeping_bodies, 10, "setting the same settings again wakes nothing");
    assert!(w.bodies()[1].is_asleep());

    // A ball dropped on the sleeping tower wakes it when it lands.
    let ball = Body::new(
        BodyKind::Dynamic,
        Shape::sphere(0.3),
        Pose::from_translation(Vec3::new(0.0, 11.0, 0.0)),
        Material::default(),
    );
    let i = w.add_body(ball);
    let mut woke = false;
    for _ in 0..120 {
        w.step();
        if !w.bodies()[10].is_asleep() && w.bodies()[i].linvel.y.abs() < 1.0 {
            woke = true;
            break;
        }
    }
    assert!(woke, "the impact wakes the top cube");
}

#[test]
fn kinematic_bodies_push_and_stationary_ones_let_islands_sleep() {
    let mut w = World::new(Default::default());
    let floor = Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(20.0, 0.5, 5.0)),
        Pose::from_translation(Vec3::Y * -0.5),
        Material::default(),
    );
    w.add_body(floor);
    let pusher = Body::new(
        BodyKind::Kinematic,
        Shape::cuboid(Vec3::new(0.2, 0.5, 1.0)),
        Pose::from_translation(Vec3::new(-2.0, 0.55, 0.0)),
        Material::default(),
    )
    .with_velocity(Vec3::X * 1.0, Vec3::ZERO);
    let p = w.add_body(pusher);
    let crate_ = Body::new(
        BodyKind::Dynamic,
        Shape::cuboid(Vec3::splat(0.5)),
        Pose::from_translation(Vec3::new(0.0, 0.5, 0.0)),
        Material::default(),
    );
    let c = w.add_body(crate_);
    for _ in 0..240 {
        w.step();
    }
    let (px, cx) = (w.bodies()[p].pose.translation.x, w.bodies()[c].pose.translation.x);
    assert!((px - 2.0).abs() < 1e-3, "the kinematic body moves at its velocity, x = {px}");
    assert!(cx > px + 0.65 && cx < px + 0.75, "the crate is pushed ahead: pusher {px}, crate {cx}");
    assert!((w.bodies()[c].linvel.x - 1.0).abs() < 0.1, "and keeps pace: {:?}", w.bodies()[c].linvel);

    // Stopped, the pusher no longer keeps the crate awake.
    w.body_mut(p).linvel = Vec3::ZERO;
    for _ in 0..120 {
        w.step();
    }
    assert!(w.bodies()[c].is_asleep(), "the crate sleeps against a stopped kinematic body");
}

/// A box on the floor struck from above by a ball 10 and 100 times its mass at 3 and 12 m/s
/// (the default `Speculative`): the box's lowest point stays within 2.5 cm of the floor's top
/// (measured 0.8-1.7 cm).
/// Each pass ends on a stop of the floor's contacts (`wide::stop`); without it a pass ends on
/// the ball's rows and the box goes 4.5 cm in (10 times at 12 m/s) and 4.1 cm (100 times).
#[test]
fn a_box_struck_by_a_heavy_ball_is_not_driven_into_the_floor() {
    for density in [10_000.0, 100_000.0] {
        for speed in [3.0, 12.0] {
            let mut w = World::new(collidoscope::Settings { sleeping: false, ..Default::default() });
            let floor = Shape::cuboid(Vec3::new(2.0, 0.5, 2.0));
            w.add_body(Body::new(BodyKind::Static, floor, Pose::from_translation(Vec3::Y * -0.5), Material::default()));
            let cube = Shape::cuboid(Vec3::splat(0.25));
            let block = w.add_body(Body::new(
                BodyKind::Dynamic,
                cube,
                Pose::from_translation(Vec3::Y * 0.25),
                Material::default(),
            ));
            let heavy = Material { density, ..Default::default() };
            let mut ball =
                Body::new(BodyKind::Dynamic, Shape::sphere(0.3), Pose::from_translation(Vec3::Y * 0.95), heavy);
            ball.linvel = Vec3::Y * -speed;
            w.add_body(ball);
            let mut lowest = f32::MAX;
            for _ in 0..120 {
                w.step();
                lowest = lowest.min(w.bodies()[block].pose.translation.y - 0.25);
            }
            println!("ball {density} kg/m3 at {speed} m/s: the box's bottom went to {lowest:.4} m");
            assert!(
                lowest > -0.025,
                "ball {density} kg/m3 at {speed} m/s drove the box {:.3} m into the floor",
                -lowest
            );
        }
    }
}

/// A body asleep on the floor, struck by a fast falling one, is held up by the floor in the
/// step it wakes in: the narrow phase tests no pair of bodies at rest, and the island woke after
/// it, so that step's solver had no floor under the struck box, which a ball at 24 m/s drove up
/// to 12 cm in, by how early in the step it struck (a 3,000-body rain's pile did the same).
/// Dropped from heights a few centimetres apart, the ball strikes at different times of a step.
#[test]
fn a_body_asleep_struck_by_a_falling_one_is_not_driven_into_the_floor() {
    for height in [29.8, 29.9, 30.0, 30.05, 30.1, 30.2, 30.3] {
        let scene = format!(
            r#"(
            bodies: [
                (name: "floor", kind: Static, shape: Cuboid(half_extents: (3, 0.5, 3)), position: (0, -0.5, 0)),
                (name: "box", shape: Cuboid(half_extents: (0.3, 0.3, 0.3)), position: (0, 0.3, 0)),
                (name: "ball", shape: Sphere(radius: 0.3), position: (0.1, {height}, 0.05)),
            ],
        )"#
        );
        let mut w = Scene::parse(&scene, "struck.ron").unwrap().build().unwrap();
        let (mut slept, mut lowest, mut woken_at) = (false, f32::MAX, None);
        for step in 1..=180 {
            w.step();
            let asleep = w.bodies()[1].is_asleep();
            slept |= asleep;
            if slept && !asleep && woken_at.is_none() {
                woken_at = Some(step);
            }
            lowest = lowest.min(w.bodies()[1].pose.translation.y - 0.3);
        }
        let step =
            woken_at.unwrap_or_else(|| panic!("the case: the box falls asleep and the ball from {height} m wakes it"));
        println!("ball from {height} m: woke the box at step {step}; the box's bottom went to {lowest:.4} m");
        assert!(lowest > -0.01, "ball from {height} m: the woken box went {:.3} m into the floor", -lowest);
    }
}

/// A tower asleep keeps, for drawing, the contacts it fell asleep with: the step leaves its
/// pairs untested, so the contact layers showed nothing under a resting stack. Woken, those
/// join the step's contacts (the step tests only the pairs of the body that woke it), once each;
/// a snapshot restored starts without them.
#[test]
fn a_tower_asleep_keeps_the_contacts_it_fell_asleep_with() {
    let (scene, mut w) = tower_asleep();
    assert_eq!(w.profile().sleeping_bodies, 10);
    assert!(w.contacts().is_empty(), "no pair with a body awake");
    let resting = w.resting_contacts();
    assert_eq!(resting.len(), 10, "the floor and the nine joints of the tower: {resting:?}");
    assert!(resting.iter().all(|c| !c.manifold.is_empty() && c.manifold.max_depth() > -0.01));
    let snap = w.snapshot();
    let pairs: Vec<(u32, u32)> = resting.iter().map(|c| (c.a, c.b)).collect();
    w.body_mut(5).linvel = Vec3::new(0.5, 0.0, 0.0);
    w.step();
    assert_eq!(w.profile().sleeping_bodies, 0, "the island woke");
    let solved: Vec<(u32, u32)> = w.contacts().iter().map(|c| (c.a, c.b)).collect();
    assert_eq!(solved, pairs, "every joint of the tower in the waking step's contacts, once each, in pair order");
    assert_eq!(w.profile().manifolds, 10, "the profile counts them");
    assert!(w.resting_contacts().is_empty(), "none left asleep");
    w.step();
    assert!(w.resting_contacts().is_empty());
    assert!(w.contacts().len() >= 10, "the woken tower's pairs are tested again");
    let mut again = scene.build().unwrap();
    again.restore(&snap).unwrap();
    assert!(again.resting_contacts().is_empty());
}
