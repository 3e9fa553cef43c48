//! Joints against the answers physics gives: a pendulum's period and energy, a motor's speed, a
//! limit, a rope's length, a heavy chain's stretch; and the same bits on one and two threads.

use collidoscope::dynamics::joints::{DistanceMode, Joint, JointKind, LimitState, Motor};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::{Body, BodyKind, Material, Scene, Settings, Shape, World};

pub(super) const G: Real = 9.81;

fn scene(name: &str) -> Scene {
    Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A joint of `kind` from the world at `pivot` to body `b`'s `anchor_b`, axis z.
pub(super) fn to_world(kind: JointKind, pivot: Vec3, b: usize, anchor_b: Vec3) -> Joint {
    Joint {
        name: None,
        a: None,
        b: Some(b as u32),
        anchor_a: pivot,
        anchor_b,
        axis_a: Vec3::Z,
        axis_b: Vec3::Z,
        rest: Quat::IDENTITY,
        kind,
        collide: false,
        break_force: None,
    }
}

fn frictionless() -> Material {
    Material { friction: 0.0, ..Default::default() }
}

/// A 2 cm ball hung on a rod of `length` from (0, 3, 0), pulled `angle` degrees aside.
pub(super) fn pendulum(settings: Settings, length: Real, angle: Real) -> World {
    let mut w = World::new(settings);
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    let a = angle.to_radians();
    let at = pivot + length * Vec3::new(a.sin(), -a.cos(), 0.0);
    let ball =
        w.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(0.02), Pose::from_translation(at), frictionless()));
    let rod = JointKind::Distance { length, mode: DistanceMode::Rod };
    w.add_joint(to_world(rod, pivot, ball, Vec3::ZERO)).unwrap();
    w
}

fn energy(w: &World) -> f64 {
    w.bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| b.kinetic_energy() as f64 + b.mass() as f64 * G as f64 * b.pose.translation.y as f64)
        .sum()
}

/// The mean period of the first `n` full swings, from the times the ball crosses x = 0 going
/// right (interpolated within the step).
fn period(w: &mut World, body: usize, n: usize) -> f64 {
    let dt = w.settings.dt as f64;
    let x0 = w.bodies()[body].pose.translation.x as f64;
    swing_period(dt, x0, n, || {
        w.step();
        w.bodies()[body].pose.translation.x as f64
    })
}

/// The mean period of the first `n` full swings of a ball at `x0` that `step` advances by `dt`,
/// returning its new x.
pub(super) fn swing_period(dt: f64, x0: f64, n: usize, mut step: impl FnMut() -> f64) -> f64 {
    let mut crossings = Vec::new();
    let mut last = x0;
    let mut t = 0.0;
    while crossings.len() <= n {
        let x = step();
        t += dt;
        if last < 0.0 && x >= 0.0 {
            crossings.push(t - dt * x / (x - last));
        }
        last = x;
        assert!(t < 100.0, "the pendulum stopped swinging");
    }
    (crossings[n] - crossings[0]) / n as f64
}

#[test]
fn small_angle_pendulum_period_is_two_pi_root_l_over_g() {
    for length in [0.5, 1.0, 2.0] {
        let mut w = pendulum(Settings { sleeping: false, ..Settings::default() }, length, 3.0);
        let measured = period(&mut w, 0, 10);
        let exact = 2.0 * std::f64::consts::PI * (length as f64 / G as f64).sqrt();
        let err = (measured / exact - 1.0).abs();
        println!("L = {length} m: period {measured:.5} s, 2π√(L/g) = {exact:.5} s, error {:.3}%", err * 100.0);
        assert!(err < 0.005, "L = {length} m: period {measured} s against {exact} s ({:.3}%)", err * 100.0);
    }
}

#[test]
fn frictionless_pendulum_keeps_its_energy_for_a_minute() {
    // At the defaults (sleeping on: a swinging pendulum never rests).
    let mut w = pendulum(Settings::default(), 1.0, 60.0);
    let e0 = energy(&w);
    // Measured from the lowest point: the swing's energy.
    let bottom = (w.bodies()[0].mass() * G * (3.0 - 1.0)) as f64;
    let steps = (60.0 / w.settings.dt) as usize;
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        w.step();
        worst = worst.max(((energy(&w) - e0) / (e0 - bottom)).abs());
    }
    let lost = (e0 - energy(&w)) / (e0 - bottom);
    println!("60° pendulum, 60 s: lost {:.4}% of its swing energy, largest change {:.4}%", lost * 100.0, worst * 100.0);
    assert!(lost.abs() < 0.01, "lost {:.3}% of its energy", lost * 100.0);
    // Within a swing the energy breathes by about 1% (the rod's soft correction), never more.
    assert!(worst < 0.02, "its energy strayed {:.3}%", worst * 100.0);
}

/// A 1 × 0.1 × 0.4 m plate (40 kg) on a hinge about the world's y axis through its middle.
pub(super) fn turntable(motor: Option<Motor>, limits: Option<(Real, Real)>) -> World {
    let mut w = World::new(Settings { sleeping: false, ..Settings::default() });
    let plate = w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::cuboid(Vec3::new(0.5, 0.05, 0.2)),
        Pose::from_translation(Vec3::new(0.0, 1.0, 0.0)),
        Material::default(),
    ));
    let mut j = to_world(JointKind::Hinge { limits, motor }, Vec3::new(0.0, 1.0, 0.0), plate, Vec3::ZERO);
    j.axis_a = Vec3::Y;
    j.axis_b = Vec3::Y;
    w.add_joint(j).unwrap();
    w
}

#[test]
fn hinge_motor_reaches_its_target_speed() {
    // I = m (a² + b²) / 12 about y: 40 (1 + 0.16) / 12 = 3.87 kg m²; 10 N·m gives 2.6 rad/s².
    let mut w = turntable(Some(Motor { speed: 3.0, max_force: 10.0 }), None);
    let mut reached = None;
    for step in 0..240 {
        w.step();
        let spin = w.bodies()[0].angvel.y;
        if reached.is_none() && (spin - 3.0).abs() < 0.01 * 3.0 {
            reached = Some(step);
        }
    }
    let spin = w.bodies()[0].angvel;
    println!("motor 3 rad/s, 10 N·m: within 1% at step {reached:?}, {spin} rad/s after 4 s");
    // Torque-limited: it takes at least 3 / 2.59 = 1.16 s (70 steps) to get there.
    assert!(reached.is_some_and(|s| s >= 68), "reached at {reached:?}");
    assert!((spin.y - 3.0).abs() < 1e-3 && spin.x.abs() < 1e-4 && spin.z.abs() < 1e-4, "spin {spin}");
    let report = w.joint_report(0);
    assert!(report.motor.abs() < 1.0, "at speed the motor pushes only a little: {} N·m", report.motor);
}

#[test]
fn hinge_limit_holds_within_a_degree_against_motor_and_gravity() {
    // A motor pushing at its full 200 N·m against a ±30° limit, then a bar hanging on a limit.
    let mut w =
        turntable(Some(Motor { speed: 5.0, max_force: 200.0 }), Some((-30f32.to_radians(), 30f32.to_radians())));
    let mut worst: Real = 0.0;
    for _ in 0..300 {
        w.step();
        worst = worst.max(w.joint_report(0).coordinate.to_degrees());
    }
    let report = w.joint_report(0);
    println!("motor against a 30° limit: largest angle {worst:.3}°, {:?}", report.limit);
    assert!(worst < 31.0, "the limit let the angle reach {worst}°");
    assert_eq!(report.limit, LimitState::AtUpper);

    // A 1 m bar hinged at one end about z, held level by a −10°..+10° limit against gravity.
    let mut w = World::new(Settings { sleeping: false, ..Settings::default() });
    let bar = w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::cuboid(Vec3::new(0.5, 0.02, 0.02)),
        Pose::from_translation(Vec3::new(0.5, 2.0, 0.0)),
        Material::default(),
    ));
    let limits = Some((-10f32.to_radians(), 10f32.to_radians()));
    w.add_joint(to_world(
        JointKind::Hinge { limits, motor: None },
        Vec3::new(0.0, 2.0, 0.0),
        bar,
        Vec3::new(-0.5, 0.0, 0.0),
    ))
    .unwrap();
    let mut lowest: Real = 0.0;
    for _ in 0..600 {
        w.step();
        lowest = lowest.min(w.joint_report(0).coordinate.to_degrees());
    }
    println!("bar on a −10° limit: lowest {lowest:.3}°");
    assert!(lowest > -11.0 && lowest < -9.0, "lowest angle {lowest}°");
}

#[test]
fn ball_cone_limit_holds_within_a_degree() {
    // A bar on a ball joint with a 20° cone about the downward axis, pushed sideways.
    let mut w = World::new(Settings { sleeping: false, ..Settings::default() });
    let bar = w.add_body(
        Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::new(0.02, 0.5, 0.02)),
            Pose::from_translation(Vec3::new(0.0, 1.5, 0.0)),
            Material::default(),
        )
        .with_velocity(Vec3::new(4.0, 0.0, 2.0), Vec3::ZERO),
    );
    let mut j = to_world(
        JointKind::Ball { cone: Some(20f32.to_radians()), twist: None },
        Vec3::new(0.0, 2.0, 0.0),
        bar,
        Vec3::new(0.0, 0.5, 0.0),
    );
    j.axis_a = Vec3::NEG_Y;
    j.axis_b = Vec3::NEG_Y;
    w.add_joint(j).unwrap();
    let mut widest: Real = 0.0;
    for _ in 0..300 {
        w.step();
        let down = w.bodies()[bar].pose.rotation * Vec3::NEG_Y;
        widest = widest.max(down.angle_between(Vec3::NEG_Y).to_degrees());
    }
    println!("ball joint, 20° cone: widest {widest:.3}°");
    assert!(widest < 21.0 && widest > 15.0, "widest {widest}°");
}

#[test]
fn rope_never_stretches_past_its_length() {
    // A 2 kg ball dropped from beside the anchor falls 1 m before the 1 m rope jerks it.
    let mut w = World::new(Settings { sleeping: false, ..Settings::default() });
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    let ball = w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::sphere(0.078),
        Pose::from_translation(pivot + Vec3::new(0.3, 0.0, 0.0)),
        Material::default(),
    ));
    w.add_joint(to_world(JointKind::Distance { length: 1.0, mode: DistanceMode::Rope }, pivot, ball, Vec3::ZERO))
        .unwrap();
    let mut longest: Real = 0.0;
    let mut shortest = Real::INFINITY;
    for step in 0..600 {
        w.step();
        let d = (w.bodies()[ball].pose.translation - pivot).length();
        longest = longest.max(d);
        if step > 120 {
            shortest = shortest.min(d);
        }
    }
    println!("1 m rope: longest {longest:.5} m; after 2 s never shorter than {shortest:.4} m");
    assert!(longest < 1.01, "the rope reached {longest} m");
    // A slack rope does not pull: without gravity, a ball inside its reach stays put.
    let mut w = World::new(Settings { gravity: Vec3::ZERO, ..Settings::default() });
    let at = pivot + Vec3::new(0.5, 0.0, 0.0);
    let ball =
        w.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(0.078), Pose::from_translation(at), Material::default()));
    w.add_joint(to_world(JointKind::Distance { length: 1.0, mode: DistanceMode::Rope }, pivot, ball, Vec3::ZERO))
        .unwrap();
    for _ in 0..10 {
        w.step();
    }
    assert_eq!(w.bodies()[ball].pose.translation, at, "a slack rope pulled");
}

#[test]
fn jointed_scenes_give_the_same_bits_on_one_and_two_threads() {
    for name in ["chain.ron", "pendulum.ron"] {
        let s = scene(name);
        let run = |threads: usize| {
            let mut w = s.build().unwrap();
            w.set_threads(threads);
            w.set_parallel_min_pairs(0);
            for _ in 0..200 {
                w.step();
            }
            w.hash()
        };
        assert_eq!(run(1), run(2), "{name}");
    }
}

#[test]
fn cradle_on_strings_passes_the_blow_down_the_row_to_the_last_ball() {
    let mut w = scene("newtons_cradle_strings.ron").build().unwrap();
    let ball = |w: &World, k: usize| w.bodies()[k].linvel.x;
    // Ball 1 (body 1) swings down and strikes ball 2; note its speed just before.
    let mut strike = 0.0;
    for steps in 0.. {
        assert!(steps < 120, "ball 1 never reached ball 2");
        strike = ball(&w, 1);
        w.step();
        if ball(&w, 2).abs() > 0.01 {
            break;
        }
    }
    let expected = (2.0 * G * 1.2 * (1.0 - 40f32.to_radians().cos())).sqrt();
    assert!((strike - expected).abs() < 0.02 * expected, "ball 1 strikes at {strike} m/s, free swing {expected}");
    // The blow hops down the row; once ball 5 has it, the others are nearly still.
    let mut v = Vec::new();
    for _ in 0..30 {
        w.step();
        v = (1..=5).map(|k| ball(&w, k)).collect();
        if v[4] > 0.9 * strike {
            break;
        }
    }
    println!("struck at {strike:.4} m/s; then balls 1-5 move at {v:?} m/s");
    assert!(v[4] > 0.95 * strike, "ball 5 leaves at {} of {strike} m/s: {v:?}", v[4]);
    assert!(v[..4].iter().all(|x| x.abs() < 0.05 * strike), "the first four should stop: {v:?}");
}

#[test]
fn double_pendulum_keeps_its_rods_and_its_energy() {
    let mut w = scene("double_pendulum.ron").build().unwrap();
    let e0 = energy(&w);
    let lengths = |w: &World| {
        let p = |k: usize| w.bodies()[k].pose.translation;
        (p(1).distance(Vec3::new(0.0, 2.5, 0.0)), p(2).distance(p(1)))
    };
    assert_eq!(lengths(&w), (1.0, 1.0), "both rods are 1 m");
    let (mut stretch, mut drift): (Real, f64) = (0.0, 0.0);
    for _ in 0..600 {
        w.step();
        let (a, b) = lengths(&w);
        stretch = stretch.max((a - 1.0).abs()).max((b - 1.0).abs());
        drift = drift.max((energy(&w) - e0).abs());
    }
    // Released level from 2.5 m, the lower ball falls up to 2 m: energy scale m g 2 m per ball.
    let scale = w.bodies()[1].mass() as f64 * G as f64 * 2.0;
    println!(
        "double pendulum, 10 s: rods within {:.3} mm of 1 m, energy within {:.3}%",
        stretch * 1e3,
        drift / scale * 1e2
    );
    assert!(stretch < 0.01, "a rod strayed {stretch} m from 1 m");
    assert!(drift < 0.05 * scale, "energy strayed {drift} J of a {scale} J scale");
}
