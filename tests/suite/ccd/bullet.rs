//! CCD triggers: the bullet flag sweeps a body below the speed threshold (slower bodies get
//! speculative contacts), and the time-of-impact pass keeps restitution, counts its events and
//! reports sweeps for drawing.

use collidoscope::ccd::CcdMode;
use collidoscope::debug_draw::{DebugDraw, DrawCategory};
use collidoscope::math::{Pose, Vec3};
use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};

/// A 2 cm ball at `speed` toward a 2 mm wall at x = 0, no gravity; returns the world.
fn shoot(ccd: CcdMode, speed: f32, bullet: bool, restitution: f32) -> World {
    let settings = Settings { gravity: Vec3::ZERO, ccd, ccd_speed_threshold: 50.0, ..Default::default() };
    let mut w = World::new(settings);
    w.add_body(Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(0.001, 1.0, 1.0)),
        Pose::IDENTITY,
        Material::default(),
    ));
    let material = Material { restitution, friction: 0.0, density: 1000.0 };
    let mut ball = Body::new(BodyKind::Dynamic, Shape::sphere(0.02), Pose::from_translation(Vec3::X * -1.23), material)
        .with_velocity(Vec3::X * speed, Vec3::ZERO);
    ball.bullet = bullet;
    w.add_body(ball);
    w
}

/// Steps the world `steps` times; returns the ball's x and the TOI events counted.
fn run(w: &mut World, steps: usize) -> (f32, u32) {
    let mut events = 0;
    for _ in 0..steps {
        w.step();
        events += w.profile().toi_events;
    }
    (w.bodies()[1].pose.translation.x, events)
}

#[test]
fn the_bullet_flag_sweeps_a_body_below_the_speed_threshold() {
    // 30 m/s is 0.5 m per step: far more than the wall and ball together.
    let (x, _) = run(&mut shoot(CcdMode::Off, 30.0, true, 0.0), 10);
    assert!(x > 0.5, "CCD off: even a bullet tunnels, x = {x}");
    // Below the threshold, time of impact leaves the plain ball to speculative contacts; the
    // bullet it sweeps. Both stop at the wall.
    let (plain_x, plain_events) = run(&mut shoot(CcdMode::Toi, 30.0, false, 0.0), 10);
    let (bullet_x, bullet_events) = run(&mut shoot(CcdMode::Toi, 30.0, true, 0.0), 10);
    assert_eq!(plain_events, 0, "not a bullet and slower than the threshold: not swept");
    assert!(bullet_events >= 1, "the bullet is swept");
    for (what, x) in [("plain", plain_x), ("bullet", bullet_x)] {
        assert!(x < -0.02 && x > -0.1, "{what}: stops at the wall, x = {x}");
    }
    // Speculative contacts reach as far as any moving body goes: the flag changes nothing.
    for bullet in [false, true] {
        let (x, events) = run(&mut shoot(CcdMode::Speculative, 30.0, bullet, 0.0), 10);
        assert!(x < -0.02 && x > -0.1 && events == 0, "speculative, bullet {bullet}: x = {x}");
    }
}

#[test]
fn toi_keeps_restitution_and_counts_events() {
    let mut w = shoot(CcdMode::Toi, 120.0, false, 1.0);
    let mut events = 0;
    let mut drawn = false;
    for _ in 0..20 {
        w.step();
        events += w.profile().toi_events;
        if w.profile().toi_events > 0 {
            let mut d = DebugDraw::default();
            w.debug_draw(&mut d);
            drawn = d.points.iter().any(|p| p.category == DrawCategory::Ccd)
                && d.lines.iter().any(|l| l.category == DrawCategory::Ccd);
            assert_eq!(w.toi_events().len() as u32, w.profile().toi_events);
        }
    }
    assert_eq!(events, 1, "one impact");
    assert!(drawn, "the sweep and impact are drawn");
    let b = &w.bodies()[1];
    assert!(b.pose.translation.x < 0.0, "bounced back on the near side");
    assert!((b.linvel.x + 120.0).abs() < 1.0, "an elastic bounce keeps the speed: {:?}", b.linvel);
}

/// The CCD layer draws the sweeps that carry a body past its own size, not the ones of a body
/// swept for its turn alone: a cube tumbling in place under speculative CCD has a sweep whose box
/// is hardly bigger than its own, which drawn read as its broad-phase box.
#[test]
fn the_ccd_layer_draws_sweeps_that_carry_a_body_past_its_size() {
    let sweeps_drawn = |v: Vec3| {
        let settings = Settings { gravity: Vec3::ZERO, ..Default::default() };
        let mut w = World::new(settings);
        let cube = Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.2)), Pose::IDENTITY, Material::default())
            .with_velocity(v, Vec3::new(0.0, 0.0, 80.0));
        w.add_body(cube);
        w.step();
        assert!(!w.ccd_motions().is_empty(), "the spinning cube is swept for its turn");
        let mut d = DebugDraw::default();
        w.debug_draw(&mut d);
        d.lines.iter().filter(|l| l.category == DrawCategory::Ccd).count()
    };
    assert_eq!(sweeps_drawn(Vec3::X * 0.5), 0, "tumbling in place: 8 mm a step");
    assert!(sweeps_drawn(Vec3::X * 30.0) > 0, "half a metre a step, past its 20 cm half size");
}
