use super::*;
use crate::Scene;

pub(super) fn scene(text: &str) -> Scene {
    Scene::parse(text, "test.ron").unwrap()
}

/// Relative difference of two tensors, by the larger one's largest entry.
pub(super) fn rel(a: [f32; 9], b: [f32; 9]) -> f32 {
    let scale = a.iter().chain(&b).fold(0.0f32, |m, x| m.max(x.abs()));
    a.iter().zip(&b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max) / scale
}

/// One body of each shape whose mass properties a peer engine computes itself, posed off the
/// origin and rotated: each peer's mass test checks its masses and inertias against ours.
pub(super) const MASS_SCENE: &str = "(bodies: [
    (shape: Sphere(radius: 0.3), material: (density: 700)),
    (shape: Cuboid(half_extents: (0.5, 0.2, 1.5)), rotation: Euler(10, 20, 30)),
    (shape: Capsule(half_height: 0.6, radius: 0.25), material: (density: 2500)),
    (shape: ConvexHull(points: [(1, 1, 1), (2, 1, 1), (1, 2.5, 1), (1, 1, 1.7), (1.8, 1.9, 1.4)]),
     position: (3, 0, 0), rotation: AxisAngle((1, 1, 0), 40)),
    (shape: Compound(children: [
        (shape: Cuboid(half_extents: (0.4, 0.1, 0.1))),
        (shape: Sphere(radius: 0.2), position: (0.5, 0.1, 0)),
     ]), position: (-3, 1, 0)),
])";

#[test]
fn mapped_bodies_have_the_same_masses_and_inertias() {
    let s = scene(MASS_SCENE);
    let world = s.build().unwrap();
    let rw = RapierWorld::from_world(&world);
    for (i, b) in world.bodies().iter().enumerate() {
        let mp = b.shape.mass_properties(b.material.density);
        let rb = rw.rapier_body(i);
        let rm = &rb.mass_properties().local_mprops;
        let dm = (rm.mass() - mp.mass).abs() / mp.mass;
        assert!(dm < 1e-5, "body {i} ({}): mass {} vs rapier {}", b.shape.describe(), mp.mass, rm.mass());
        // Both tensors about the centre of mass, in the body's frame.
        let ri = rm.reconstruct_inertia_matrix().to_cols_array();
        let ci = mp.inertia.to_cols_array();
        assert!(rel(ci, ri) < 1e-5, "body {i} ({}): inertia {ci:?} vs rapier {ri:?}", b.shape.describe());
        // Hulls and compounds are re-centred: rapier finds their centre of mass at the origin.
        assert!(rm.local_com.length() < 1e-5, "body {i}: rapier's centre of mass {:?}", rm.local_com);
        // Same starting pose.
        assert_eq!(rw.bodies()[i].pose, b.pose, "body {i}");
    }
}

/// Runs `text` in every engine of this build for `steps`, returning each engine's bodies after
/// every step.
fn every_engine(text: &str, steps: usize) -> Vec<(&'static str, Vec<Vec<crate::Body>>)> {
    every_engine_with(text, steps, |_| {})
}

/// As [`every_engine`], with `change` made to each engine's settings after it is built (as the
/// Settings panel does to a running A/B pair).
fn every_engine_with(
    text: &str,
    steps: usize,
    change: impl Fn(&mut crate::world::Settings),
) -> Vec<(&'static str, Vec<Vec<crate::Body>>)> {
    let s = scene(text);
    Engine::ALL
        .iter()
        .map(|&engine| {
            let mut world = s.build().unwrap();
            let mut peer = (engine != Engine::Collidoscope).then(|| PeerWorld::new(engine, &world).unwrap());
            let mut settings = world.settings.clone();
            change(&mut settings);
            if settings != world.settings {
                match &mut peer {
                    Some(p) => p.set_settings(settings),
                    None => world.set_settings(settings),
                }
            }
            let run = (0..steps)
                .map(|_| match &mut peer {
                    Some(p) => {
                        p.step();
                        p.world().bodies().to_vec()
                    }
                    None => {
                        world.step();
                        world.bodies().to_vec()
                    }
                })
                .collect();
            (engine.cli_name(), run)
        })
        .collect()
}

#[test]
fn a_dropped_ball_falls_and_rests_as_the_closed_form_says_in_every_engine() {
    // 3 m of free fall from the floor's top: lands at t = sqrt(2 h / g) = 0.782 s.
    let text = "(settings: (gravity: (0, -9.81, 0)), bodies: [
        (kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0)),
        (shape: Sphere(radius: 0.5), position: (0, 3.5, 0)),
    ])";
    let (g, dt, y0, r) = (9.81f32, 1.0f32 / 60.0, 3.5f32, 0.5f32);
    for (engine, run) in every_engine(text, 150) {
        // In flight (the first 40 steps, 0.67 s): y = y0 - g t^2 / 2, within what a first-order
        // integrator loses, g dt t / 2.
        for (n, bodies) in run.iter().enumerate().take(40) {
            let t = (n + 1) as f32 * dt;
            let exact = y0 - 0.5 * g * t * t;
            let y = bodies[1].pose.translation.y;
            assert!((y - exact).abs() <= 0.5 * g * dt * t + 1e-4, "{engine}: step {n}: y {y} vs {exact}");
        }
        // At rest on the floor after 2.5 s: centre one radius up, still.
        let ball = &run.last().unwrap()[1];
        assert!((ball.pose.translation.y - r).abs() < 0.01, "{engine}: rests at {}", ball.pose.translation.y);
        assert!(ball.linvel.length() < 0.05, "{engine}: still moving at {:?}", ball.linvel);
    }
}

#[test]
fn a_sliding_box_stops_where_coulomb_friction_says_in_every_engine() {
    // v0 = 3 m/s, mu = 0.5 on both: decelerates at mu g, stops after v0^2 / (2 mu g) = 0.917 m
    // at t = v0 / (mu g) = 0.612 s.
    let text = "(settings: (gravity: (0, -9.81, 0), sleeping: false), bodies: [
        (kind: Static, shape: Cuboid(half_extents: (10, 0.5, 10)), position: (0, -0.5, 0),
         material: (friction: 0.5)),
        (shape: Cuboid(half_extents: (0.25, 0.25, 0.25)), position: (0, 0.25, 0),
         linear_velocity: (3, 0, 0), material: (friction: 0.5)),
    ])";
    let (v0, mu, g, dt) = (3.0f32, 0.5f32, 9.81f32, 1.0f32 / 60.0);
    let stop = v0 * v0 / (2.0 * mu * g);
    for (engine, run) in every_engine(text, 60) {
        // Mid-slide (t = 0.3 s): v = v0 - mu g t.
        let mid = &run[17][1];
        let exact_v = v0 - mu * g * 18.0 * dt;
        assert!((mid.linvel.x - exact_v).abs() < 0.05, "{engine}: v {} vs {exact_v}", mid.linvel.x);
        let end = &run.last().unwrap()[1];
        let x = end.pose.translation.x;
        assert!((x - stop).abs() < 0.02 * stop + 0.01, "{engine}: stopped at {x} vs {stop}");
        assert!(end.linvel.length() < 0.01, "{engine}: still moving at {:?}", end.linvel);
    }
}

#[test]
fn a_ball_bounces_back_at_restitution_times_its_impact_speed_in_every_engine() {
    // Dropped from 2 m onto a floor with e = 0.5 on both (combined by max): it hits at
    // v = sqrt(2 g h) = 6.26 m/s and leaves at e v = 3.13 m/s, well above the 1 m/s threshold.
    let text = "(settings: (gravity: (0, -9.81, 0), sleeping: false), bodies: [
        (kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0),
         material: (restitution: 0.5)),
        (shape: Sphere(radius: 0.25), position: (0, 2.25, 0), material: (restitution: 0.5)),
    ])";
    assert_rebound(every_engine(text, 60), 0.5);
}

#[test]
fn every_engine_takes_the_restitution_and_friction_overrides_of_the_settings() {
    // The materials say 0; the settings' overrides (the Settings panel, `--set`) say otherwise,
    // in the scene file or changed on a running world, and every engine must follow them.
    let ball = "(settings: (gravity: (0, -9.81, 0), sleeping: false, restitution: Some(0.5)), bodies: [
        (kind: Static, shape: Cuboid(half_extents: (5, 0.5, 5)), position: (0, -0.5, 0)),
        (shape: Sphere(radius: 0.25), position: (0, 2.25, 0)),
    ])";
    assert_rebound(every_engine(ball, 60), 0.5);
    let plain = ball.replace(", restitution: Some(0.5)", "");
    assert_rebound(every_engine_with(&plain, 60, |s| s.restitution = Some(0.5)), 0.5);
    // A box sliding at 3 m/s on materials of friction 0 stops under the override's 0.5 after
    // v0² / (2 μ g) = 0.917 m.
    let slide = "(settings: (gravity: (0, -9.81, 0), sleeping: false), bodies: [
        (kind: Static, shape: Cuboid(half_extents: (10, 0.5, 10)), position: (0, -0.5, 0), material: (friction: 0)),
        (shape: Cuboid(half_extents: (0.25, 0.25, 0.25)), position: (0, 0.25, 0), linear_velocity: (3, 0, 0),
         material: (friction: 0)),
    ])";
    let stop = 3.0f32 * 3.0 / (2.0 * 0.5 * 9.81);
    for (engine, run) in every_engine_with(slide, 60, |s| s.friction = Some(0.5)) {
        let x = run.last().unwrap()[1].pose.translation.x;
        assert!((x - stop).abs() < 0.02 * stop + 0.01, "{engine}: stopped at {x} vs {stop}");
    }
}

/// Each engine's ball (body 1) fell onto the floor and left it at `e` times its impact speed.
fn assert_rebound(runs: Vec<(&'static str, Vec<Vec<crate::Body>>)>, e: f32) {
    for (engine, run) in runs {
        // Fastest fall before the first bounce, fastest rise after it.
        let vy: Vec<f32> = run.iter().map(|b| b[1].linvel.y).collect();
        let hit = vy.iter().position(|&v| v > 0.0).unwrap_or_else(|| panic!("{engine}: never bounced: {vy:?}"));
        let impact = -vy[..hit].iter().copied().fold(0.0, f32::min);
        let rebound = vy[hit..].iter().copied().fold(0.0, f32::max);
        assert!((impact - (2.0f32 * 9.81 * 2.0).sqrt()).abs() < 0.2, "{engine}: impact at {impact} m/s");
        assert!((rebound - e * impact).abs() < 0.06 * e * impact, "{engine}: rebound {rebound} vs {}", e * impact);
    }
}

#[test]
fn the_rapier_path_is_deterministic_run_to_run() {
    let text = "(bodies: [(kind: Static, shape: Cuboid(half_extents: (10, 0.5, 10)), position: (0, -0.5, 0))],
        generators: [Rain(count: 60, seed: 3, min: (-2, 1, -2), max: (2, 6, 2),
            shapes: [Sphere(radius: 0.3), Cuboid(half_extents: (0.3, 0.2, 0.25)), Capsule(half_height: 0.3, radius: 0.2)])])";
    let run = || {
        let mut rw = RapierWorld::from_world(&scene(text).build().unwrap());
        let hashes: Vec<u64> = (0..90)
            .map(|_| {
                rw.step();
                rw.hash()
            })
            .collect();
        hashes
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    // And it did something: bodies fell and touched.
    assert_ne!(a[0], a[89]);
}
