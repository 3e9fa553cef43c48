//! Random shots at thin walls: any shape, 1–10 cm, 10–1,000 m/s within 60° of the wall's
//! normal, any orientation, spinning up to 100 rad/s, walls 1 mm–1 cm thick. With `toi` (every
//! shot a bullet) and with `speculative` no centre ever crosses the wall (docs/ccd.md).
//! And kinematic paddles at 50 m/s through a pile push every body they meet and let none
//! through. Fixed seeds; a failure prints the case.

use super::common::{KINDS, bullet, rotation, settings, shape, wall, world};
use collidoscope::ccd::CcdMode;
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::{Body, BodyKind, Material, Shape};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// What `speculative` is claimed to stop every time (docs/ccd.md): every shape of 1–10 cm,
/// 10–1,000 m/s within 60° of the normal, spinning up to 100 rad/s, walls from 1 mm. A body
/// turning more than `ccd::MAX_ROW_TURN` in a step is swept by time of impact against static
/// bodies (its rows do not describe such a turn).
const SPECULATIVE_LIMIT: Real = 1000.0;
const SPECULATIVE_MAX_SPIN: Real = 100.0;
const SPECULATIVE_MIN_WALL: Real = 0.001;

/// `CCD_CASES` raises the case count and `CCD_SEED` changes the seed for a longer hunt.
fn config(cases: u32) -> Config {
    crate::seeded::config(cases, 0x5eed_0022, Some("CCD_CASES"), Some("CCD_SEED"))
}

#[derive(Clone, Debug)]
struct Shot {
    kind: &'static str,
    size: Real,
    aspect: Real,
    speed: Real,
    /// Angle from the wall's normal, rad.
    tilt: Real,
    azimuth: Real,
    orientation: [Real; 3],
    spin: Vec3,
    thickness: Real,
    /// Fraction of the first step at which the shot reaches the wall.
    lead: Real,
}

fn shot(
    kinds: &'static [&'static str],
    speeds: std::ops::Range<Real>,
    max_spin: Real,
    min_wall: Real,
) -> impl Strategy<Value = Shot> {
    (
        (0..kinds.len(), 0.01f32..0.1, 0.0f32..1.0, speeds),
        (0.0f32..60f32.to_radians(), 0.0f32..std::f32::consts::TAU, [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0]),
        (prop::array::uniform3(-1.0f32..1.0), 0.0f32..=max_spin, min_wall..0.01, 0.05f32..0.95),
    )
        .prop_map(|((kind, size, aspect, speed), (tilt, azimuth, orientation), (axis, rate, thickness, lead))| {
            let spin = Vec3::from(axis).normalize_or(Vec3::Y) * rate;
            Shot { kind: kinds[kind], size, aspect, speed, tilt, azimuth, orientation, spin, thickness, lead }
        })
}

/// Half the wall's height and width.
const WALL_HALF_SIZE: Real = 2.0;

/// Fires the shot at a wall whose faces are x = ±thickness/2; returns the x at which the body's
/// centre crossed the wall's middle plane within the wall (0 if it never did) over 12 steps.
/// A body that slides along the wall past its edge and drifts round it has not gone through.
fn fire(s: &Shot, mode: CcdMode) -> Real {
    // With time of impact every shot is a bullet, so that the pass, not the speed threshold,
    // decides (below the threshold a body gets speculative contacts, with their limits).
    let dir = Vec3::new(s.tilt.cos(), s.tilt.sin() * s.azimuth.cos(), s.tilt.sin() * s.azimuth.sin());
    let body_shape: Shape = shape(s.kind, s.size, s.aspect);
    let dt = settings(mode, false).dt;
    let reach = body_shape.bounding_radius();
    // Clear of the wall, and aimed at its centre, reached at `lead` of the first step.
    let back = (0.5 * s.thickness + reach) / dir.x + s.speed * dt * s.lead;
    let mut b = bullet(body_shape, Pose::new(-dir * back, rotation(s.orientation)), dir * s.speed, s.spin);
    b.bullet = mode == CcdMode::Toi;
    let mut w = world(settings(mode, false), [wall(s.thickness, WALL_HALF_SIZE), b]);
    let mut before = w.bodies()[1].pose.translation;
    for _ in 0..12 {
        w.step();
        let now = w.bodies()[1].pose.translation;
        if before.x < 0.0 && now.x >= 0.0 {
            let f = -before.x / (now.x - before.x);
            let at = before.lerp(now, f);
            if at.y.abs() < WALL_HALF_SIZE && at.z.abs() < WALL_HALF_SIZE {
                return now.x;
            }
        }
        before = now;
    }
    0.0
}

proptest! {
    #![proptest_config(config(300))]

    #[test]
    fn toi_keeps_every_body_on_the_near_side(s in shot(&KINDS, 10.0..1000.0, 100.0, 0.001)) {
        let x = fire(&s, CcdMode::Toi);
        prop_assert!(x == 0.0, "went through: centre at x = {x}, wall faces at ±{}", 0.5 * s.thickness);
    }
}

proptest! {
    #![proptest_config(config(2000))]

    #[test]
    fn speculative_keeps_every_body_on_the_near_side(s in shot(&KINDS, 10.0..SPECULATIVE_LIMIT, SPECULATIVE_MAX_SPIN, SPECULATIVE_MIN_WALL)) {
        let x = fire(&s, CcdMode::Speculative);
        prop_assert!(x == 0.0, "went through: centre at x = {x}, wall faces at ±{}", 0.5 * s.thickness);
    }
}

/// Shots CCD off lets through: the wall and speeds above are a real test.
#[test]
fn without_ccd_fast_shots_tunnel() {
    let s = Shot {
        kind: "cuboid",
        size: 0.05,
        aspect: 0.5,
        speed: 300.0,
        tilt: 0.3,
        azimuth: 1.0,
        orientation: [0.2, 0.4, 0.6],
        spin: Vec3::new(0.0, 50.0, 0.0),
        thickness: 0.005,
        lead: 0.5,
    };
    assert!(fire(&s, CcdMode::Off) > 1.0);
    assert_eq!(fire(&s, CcdMode::Toi), 0.0);
}

/// A pile of mixed bodies on a floor, settled for `settle` steps, and a kinematic paddle (1 cm
/// thick, 0.8 × 0.6 m) at 50 m/s toward it, its lower edge 2 mm above the floor: the world, the
/// pile's bodies and the paddle's index.
fn paddle_world(mode: CcdMode, kinds: &[&str], settle: usize) -> (collidoscope::World, Vec<usize>, usize) {
    let mut w = world(settings(mode, true), []);
    w.add_body(floor(30.0));
    let mut pile = Vec::new();
    for ix in 0..4 {
        for iy in 0..3 {
            for iz in 0..4 {
                let kind = kinds[(ix + iy + iz) % kinds.len()];
                let p = Vec3::new(ix as Real * 0.09, 0.05 + iy as Real * 0.09, (iz as Real - 1.5) * 0.09);
                let material = Material { restitution: 0.0, friction: 0.5, density: 1000.0 };
                let shape = shape(kind, 0.06, 0.3);
                pile.push(w.add_body(Body::new(BodyKind::Dynamic, shape, Pose::from_translation(p), material)));
            }
        }
    }
    for _ in 0..settle {
        w.step();
    }
    let k = w.add_body(paddle());
    (w, pile, k)
}

/// A static floor 1 m thick whose top is the plane y = 0, `half_length` metres each way along x.
fn floor(half_length: Real) -> Body {
    Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(half_length, 0.5, 3.0)),
        Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        Material::default(),
    )
}

/// The kinematic paddle (1 cm thick, [`PADDLE_HALF`]) at x = -1 m, its lower edge 2 mm above the
/// floor, moving at 50 m/s along +x.
fn paddle() -> Body {
    let (half_y, half_z) = PADDLE_HALF;
    Body::new(
        BodyKind::Kinematic,
        Shape::cuboid(Vec3::new(0.005, half_y, half_z)),
        Pose::from_translation(Vec3::new(-1.0, half_y + 0.002, 0.0)),
        Material::default(),
    )
    .with_velocity(Vec3::new(50.0, 0.0, 0.0), Vec3::ZERO)
}

/// The paddle's half height and half width.
const PADDLE_HALF: (Real, Real) = (0.3, 0.4);

/// The paddle run for `steps` steps: the first body found behind the paddle, or too few pushed.
fn paddle_run(mode: CcdMode, kinds: &[&str], settle: usize, steps: usize) -> Result<(), String> {
    let (mut w, pile, k) = paddle_world(mode, kinds, settle);
    let (half_y, half_z) = PADDLE_HALF;
    let start: Vec<Vec3> = pile.iter().map(|&i| w.bodies()[i].pose.translation).collect();
    for step in 0..steps {
        w.step();
        let pp = w.bodies()[k].pose.translation;
        for &i in &pile {
            let c = w.bodies()[i].pose.translation;
            let in_span = (c.y - pp.y).abs() < half_y && (c.z - pp.z).abs() < half_z;
            if in_span && c.x <= pp.x {
                return Err(format!(
                    "{mode:?} settled {settle} steps, step {step}: body {i} ({}) at {c} is behind the paddle at {pp}",
                    w.bodies()[i].shape.describe()
                ));
            }
        }
    }
    let pushed = pile.iter().zip(&start).filter(|&(&i, s)| w.bodies()[i].pose.translation.x > s.x + 1.0).count();
    if pushed < pile.len() * 3 / 4 {
        return Err(format!(
            "{mode:?} settled {settle} steps: only {pushed} of {} bodies were pushed along",
            pile.len()
        ));
    }
    Ok(())
}

/// Every settle length of 10..=120 steps before the paddle starts, 20 steps of the paddle
/// (through the pile, then catching up with the bodies it flung ahead): the settle lengths
/// after which a body ended behind the paddle, with where.
fn paddle_failures(mode: CcdMode) -> Vec<String> {
    (10..=120).filter_map(|settle| paddle_run(mode, &KINDS, settle, 20).err()).collect()
}

/// Time of impact: spheres, boxes, capsules and hulls, every settle length.
#[test]
fn a_kinematic_paddle_pushes_a_pile_with_toi() {
    let failed = paddle_failures(CcdMode::Toi);
    assert!(failed.is_empty(), "{} of 111 settle lengths failed:\n{}", failed.len(), failed.join("\n"));
}

/// Speculative contacts: the paddle's, its pushed bodies' and theirs with the floor and each
/// other hold every body in front of it, whatever the pile's settle length before the paddle
/// starts.
#[test]
fn a_kinematic_paddle_pushes_a_pile_with_speculative_contacts() {
    let failed = paddle_failures(CcdMode::Speculative);
    assert!(failed.is_empty(), "{} of 111 settle lengths failed:\n{}", failed.len(), failed.join("\n"));
}

/// The paddle's push on two threads, every part shared (the second copy of the driven bodies'
/// rows included), gives the same bits as on one.
#[test]
fn the_paddle_push_is_the_same_on_two_threads() {
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        let hashes: Vec<u64> = [1, 2]
            .iter()
            .map(|&threads| {
                let (mut w, _, _) = paddle_world(mode, &KINDS, 41);
                w.set_threads(threads);
                w.set_parallel_min_pairs(0);
                for _ in 0..4 {
                    w.step();
                }
                w.hash()
            })
            .collect();
        assert_eq!(hashes[0], hashes[1], "{mode:?}");
    }
}

/// The measurement behind docs/ccd.md's speculative table: 5,000 seeded shots per shape
/// (1,000 per speed band), the proptest's other ranges; prints how many crossed the wall per
/// shape and band, and fails if any did. `cargo test --no-default-features --test ccd_proptest
/// -- --ignored speculative_over_5000_shots --nocapture` (`CCD_SEED`, `CCD_SHOTS` per band).
#[test]
#[ignore = "a measurement: 20,000 shots"]
fn speculative_over_5000_shots_per_shape() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    const BANDS: [(Real, Real); 5] = [(10.0, 50.0), (50.0, 100.0), (100.0, 200.0), (200.0, 500.0), (500.0, 1000.0)];
    let per_band: usize = std::env::var("CCD_SHOTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1000);
    let mut failures = Vec::new();
    for kind in KINDS {
        let kinds: &'static [&'static str] = match kind {
            "sphere" => &["sphere"],
            "cuboid" => &["cuboid"],
            "capsule" => &["capsule"],
            _ => &["hull"],
        };
        let mut counts = Vec::new();
        for (lo, hi) in BANDS {
            let strategy = shot(kinds, lo..hi, 100.0, 0.001);
            let mut runner = TestRunner::new(config(per_band as u32));
            let mut through = 0;
            for _ in 0..per_band {
                let s = strategy.new_tree(&mut runner).unwrap().current();
                let x = fire(&s, CcdMode::Speculative);
                if x != 0.0 {
                    through += 1;
                    failures.push((s, x));
                }
            }
            counts.push(through);
        }
        println!("{kind}: through per band {BANDS:?}: {counts:?}, total {}", counts.iter().sum::<usize>());
    }
    assert!(failures.is_empty(), "{} shots went through: {failures:#?}", failures.len());
}

/// A box at rest on the floor `gap` metres in front of a static wall 5 cm thick, and a
/// kinematic paddle at 50 m/s toward both: the world, the box's index and the wall's near face.
fn paddle_against_a_wall(mode: CcdMode, gap: Real) -> (collidoscope::World, usize, Real) {
    let mut w = world(settings(mode, true), []);
    w.add_body(floor(5.0));
    w.add_body(Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(0.025, 0.5, 1.0)),
        Pose::from_translation(Vec3::new(gap + 0.025, 0.5, 0.0)),
        Material::default(),
    ));
    let bx = w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::cuboid(Vec3::splat(0.05)),
        Pose::from_translation(Vec3::new(0.0, 0.05, 0.0)),
        Material::default(),
    ));
    for _ in 0..30 {
        w.step();
    }
    w.add_body(paddle());
    (w, bx, gap)
}

/// The paddle cannot stop and neither can the wall: the box between them stays on its side of
/// the wall (at the default `Speculative`), its centre never past the wall's middle. A box
/// the paddle threw out of the box its pairs were found in had no row with the wall and went
/// through it at every gap.
#[test]
fn a_paddle_never_pushes_a_box_through_a_static_wall() {
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        for gap in [0.2, 0.3, 0.5, 0.8, 1.0, 1.5, 2.0] {
            let (mut w, bx, near) = paddle_against_a_wall(mode, gap);
            for step in 0..8 {
                w.step();
                let x = w.bodies()[bx].pose.translation.x;
                let faces = (near, near + 0.05);
                assert!(
                    x < near + 0.025,
                    "{mode:?}, gap {gap} m, step {step}: the box's centre at x = {x}, the wall's faces at {faces:?}"
                );
            }
        }
    }
}

/// Settle lengths past what the tests above run: 121 to 400 steps before the paddle starts, 20
/// steps of it, in both modes; and 10 to 120 over 40 steps. A measurement (560 + 222 runs, about
/// 25 s): with `Speculative` 2 of the 280 long settles (140 and 172) leave a 1.1 cm capsule
/// behind the paddle (docs/ccd.md, *Time of impact*, Limits).
#[test]
#[ignore = "a measurement: 782 paddle runs; two known failures with Speculative"]
fn a_kinematic_paddle_pushes_longer_settled_piles() {
    let mut failed = Vec::new();
    for mode in [CcdMode::Speculative, CcdMode::Toi] {
        failed.extend((121..=400).filter_map(|settle| paddle_run(mode, &KINDS, settle, 20).err()));
        failed.extend((10..=120).filter_map(|settle| paddle_run(mode, &KINDS, settle, 40).err()));
    }
    assert!(failed.is_empty(), "{} of 782 runs failed:\n{}", failed.len(), failed.join("\n"));
}
