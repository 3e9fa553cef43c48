//! Each lesson scene's description makes claims a user can check in the app; these tests check
//! them headless, on the numbers the Inspector's per-body plot shows (`record::BodyTrace`).
//! A failure means the description no longer tells the truth: fix the scene or its text.

use collidoscope::record::BodyTrace;
use collidoscope::world::Settings;
use collidoscope::{Scene, World};

fn load(name: &str, change: impl Fn(&mut Settings)) -> World {
    let scene = Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut w = scene.build().unwrap();
    let mut s = w.settings.clone();
    change(&mut s);
    w.set_settings(s);
    w
}

fn body(w: &World, name: &str) -> usize {
    w.bodies().iter().position(|b| b.name.as_deref() == Some(name)).unwrap()
}

/// One series of a body's trace over steps `from..to`: (mean, min, max, last).
struct Series {
    mean: f64,
    min: f64,
    max: f64,
    last: f64,
}

/// Steps to `from`, then traces `body` to `to`, as the Inspector does once it is selected.
fn trace(w: &mut World, body: usize, from: u64, to: u64) -> BodyTrace {
    while w.step_count() < from {
        w.step();
    }
    let mut t = BodyTrace::new((to - from) as usize);
    t.follow(Some(body));
    while w.step_count() < to {
        w.step();
        t.observe(w);
    }
    t
}

fn series(t: &BodyTrace, k: usize) -> Series {
    let v: Vec<f64> = t.series(k).map(|p| p[1]).collect();
    Series {
        mean: v.iter().sum::<f64>() / v.len() as f64,
        min: v.iter().copied().fold(f64::INFINITY, f64::min),
        max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        last: *v.last().unwrap(),
    }
}

const HEIGHT: usize = 0;
const SPEED: usize = 1;
const POINTS: usize = 3;
const PENETRATION: usize = 4;

fn asleep_all(w: &World) -> bool {
    w.bodies().iter().filter(|b| b.is_dynamic()).all(|b| b.is_asleep())
}

/// scenes/jitter.ron: with the defaults the stack rests and sleeps; warm starting off makes the
/// top box jitter at up to 0.2 m/s, sink about 2.5 cm and never sleep; 8 iterations cut the jitter
/// to about a quarter; warm starting back on stops it; slop sets the resting depth only.
#[test]
fn jitter_lesson_shows_what_it_promises() {
    // Defaults: asleep within a second.
    let mut w = load("jitter.ron", |_| {});
    let top = body(&w, "top box");
    let asleep_at = (0..600).find(|_| {
        w.step();
        asleep_all(&w)
    });
    println!("defaults: the whole stack asleep at step {asleep_at:?}");
    assert!(asleep_at.is_some_and(|s| s <= 60), "asleep within a second: {asleep_at:?}");

    // Sleeping off: the top box's speed stays at 0.
    let mut calm = load("jitter.ron", |s| s.sleeping = false);
    let t = trace(&mut calm, top, 120, 600);
    let (still, rest_height) = (series(&t, SPEED), series(&t, HEIGHT).last);
    println!("sleeping off: top speed max {:.5} m/s, height {rest_height:.4} m", still.max);
    assert!(still.max < 1e-3, "the top box rests: {} m/s", still.max);

    // Warm starting off: jitter at 0.05-0.2 m/s that never stops, the stack sinks ~2 cm.
    let mut bad = load("jitter.ron", |s| {
        s.sleeping = false;
        s.warm_starting = false;
    });
    let t = trace(&mut bad, top, 120, 600);
    let (speed, height, points) = (series(&t, SPEED), series(&t, HEIGHT), series(&t, POINTS));
    let sink = rest_height - height.last;
    println!(
        "warm starting off: top speed mean {:.3} min {:.3} max {:.3} m/s, sunk {:.1} mm, contact points {}-{}",
        speed.mean,
        speed.min,
        speed.max,
        sink * 1e3,
        points.min,
        points.max
    );
    assert!((0.05..0.12).contains(&speed.mean) && speed.max < 0.25, "jitters at up to 0.2 m/s, 0.08 on average");
    assert!(speed.min > 0.002, "and never comes to rest: {}", speed.min);
    assert!((0.015..0.035).contains(&sink), "sinks about 2.5 cm: {sink}");
    assert!(speed.mean > 50.0 * still.max.max(1e-4), "measurably more than the defaults");

    // ... and never falls asleep with sleeping on.
    let mut sleepy = load("jitter.ron", |s| s.warm_starting = false);
    let slept = (0..600).any(|_| {
        sleepy.step();
        sleepy.bodies().iter().any(|b| b.is_asleep())
    });
    assert!(!slept, "with warm starting off no box ever sleeps");

    // 8 iterations: about a quarter of the jitter.
    let mut more = load("jitter.ron", |s| {
        s.sleeping = false;
        s.warm_starting = false;
        s.iterations = 8;
    });
    let eight = series(&trace(&mut more, top, 120, 600), SPEED);
    let ratio = eight.mean / speed.mean;
    println!("8 iterations: top speed mean {:.3} m/s, {ratio:.2} of one iteration's", eight.mean);
    assert!((0.1..0.4).contains(&ratio), "about a quarter: {ratio}");

    // Warm starting back on: it stops.
    let mut s = bad.settings.clone();
    s.warm_starting = true;
    bad.set_settings(s);
    let stop = bad.step_count();
    let after = series(&trace(&mut bad, top, stop + 180, stop + 300), SPEED);
    println!("warm starting back on: top speed max {:.5} m/s from 3 s later", after.max);
    assert!(after.max < 2e-3, "it stops: {}", after.max);
}

#[test]
fn jitter_lesson_slop_sets_the_resting_depth_not_the_jitter() {
    let depth_at = |slop: f32| {
        let mut w = load("jitter.ron", |s| {
            s.sleeping = false;
            s.slop = slop;
        });
        let top = body(&w, "top box");
        let t = trace(&mut w, top, 120, 360);
        (series(&t, PENETRATION).mean, series(&t, SPEED).max)
    };
    let (d0, v0) = depth_at(0.0);
    let (d1, v1) = depth_at(0.001);
    let (d5, v5) = depth_at(0.005);
    println!(
        "top box penetration: slop 0 {:.2} mm, 1 mm {:.2} mm, 5 mm {:.2} mm; fastest {:.1e} {:.1e} {:.1e} m/s",
        d0 * 1e3,
        d1 * 1e3,
        d5 * 1e3,
        v0,
        v1,
        v5
    );
    assert!((0.0006..0.0015).contains(&d1), "about 1 mm at the default slop: {d1}");
    assert!(d0 < 0.65 * d1 && d0 > 0.3 * d1, "about half at slop 0: {d0}");
    assert!((0.002..0.004).contains(&d5), "3 mm at slop 5 mm: {d5}");
    assert!(v0.max(v1).max(v5) < 1e-3, "slop alone makes no jitter");
}
