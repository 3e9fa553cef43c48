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
/// top box jitter at up to 0.14 m/s, sink about 2.5 cm and sleep late; 8 iterations cut the jitter
/// to about half; warm starting back on stops it; slop sets the resting depth only.
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

    // Warm starting off: jitter at 0.005-0.14 m/s that never stops, the stack sinks ~2.5 cm.
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
    assert!((0.03..0.07).contains(&speed.mean) && speed.max < 0.2, "jitters at up to 0.14 m/s, 0.04 on average");
    assert!(speed.min > 0.002, "and never comes to rest: {}", speed.min);
    assert!((0.015..0.035).contains(&sink), "sinks about 2.5 cm: {sink}");
    assert!(speed.mean > 50.0 * still.max.max(1e-4), "measurably more than the defaults");

    // ... and with sleeping on, takes several times as long to fall asleep.
    let mut sleepy = load("jitter.ron", |s| s.warm_starting = false);
    let slept_at = (0..600).find(|_| {
        sleepy.step();
        asleep_all(&sleepy)
    });
    println!("warm starting off: the whole stack asleep at step {slept_at:?}");
    let quick = asleep_at.unwrap();
    assert!(slept_at.is_none_or(|s| s >= 4 * quick), "with warm starting off the stack sleeps late: {slept_at:?}");

    // 8 iterations: about half the jitter.
    let mut more = load("jitter.ron", |s| {
        s.sleeping = false;
        s.warm_starting = false;
        s.iterations = 8;
    });
    let eight = series(&trace(&mut more, top, 120, 600), SPEED);
    let ratio = eight.mean / speed.mean;
    println!("8 iterations: top speed mean {:.3} m/s, {ratio:.2} of one iteration's", eight.mean);
    assert!((0.3..0.7).contains(&ratio), "about half: {ratio}");

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

/// Steps until every dynamic body is asleep; the step it happened, or `None` within `max`.
fn asleep_by(w: &mut World, max: u64) -> Option<u64> {
    while w.step_count() < max {
        w.step();
        if asleep_all(w) {
            return Some(w.step_count());
        }
    }
    None
}

/// The fastest any dynamic body moves over steps `from..to`, and the highest body's height at `to`.
fn fastest_and_top(w: &mut World, from: u64, to: u64) -> (f32, f32) {
    while w.step_count() < from {
        w.step();
    }
    let mut fastest: f32 = 0.0;
    while w.step_count() < to {
        w.step();
        for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
            fastest = fastest.max(b.linvel.length());
        }
    }
    let top = w.bodies().iter().filter(|b| b.is_dynamic()).map(|b| b.pose.translation.y).fold(f32::MIN, f32::max);
    (fastest, top)
}

/// The largest horizontal distance a dynamic body moved from where the scene put it.
fn spread(w: &World, start: &[collidoscope::math::Vec3]) -> f32 {
    w.bodies()
        .iter()
        .zip(start)
        .filter(|(b, _)| b.is_dynamic())
        .map(|(b, s)| (b.pose.translation - *s).with_y(0.0).length())
        .fold(0.0, f32::max)
}

/// The deepest contact point between bodies `a` and `b`, m.
fn depth(w: &World, a: u32, b: u32) -> f32 {
    w.contacts()
        .iter()
        .filter(|c| (c.a.min(c.b), c.a.max(c.b)) == (a, b))
        .flat_map(|c| c.manifold.points().iter().map(|p| p.depth))
        .fold(0.0, f32::max)
}

/// Degrees between a body's up axis and the world's.
fn tilt_deg(b: &collidoscope::Body) -> f32 {
    (b.pose.rotation * collidoscope::math::Vec3::Y).angle_between(collidoscope::math::Vec3::Y).to_degrees()
}

/// box_stack.ron: it falls asleep within a couple of seconds; warm starting off makes it jitter
/// and come apart within 8 s; slop 0 alone leaves it still; one substep sags it about 7 cm.
#[test]
fn box_stack_lesson_claims() {
    let at = asleep_by(&mut load("box_stack.ron", |_| {}), 600);
    let (still, top) = fastest_and_top(&mut load("box_stack.ron", |s| s.sleeping = false), 120, 480);
    let (ws, _) = fastest_and_top(
        &mut load("box_stack.ron", |s| {
            s.sleeping = false;
            s.warm_starting = false
        }),
        120,
        480,
    );
    let (slop0, _) = fastest_and_top(
        &mut load("box_stack.ron", |s| {
            s.sleeping = false;
            s.slop = 0.0
        }),
        120,
        480,
    );
    let (_, sag_top) = fastest_and_top(
        &mut load("box_stack.ron", |s| {
            s.sleeping = false;
            s.substeps = 1
        }),
        120,
        480,
    );
    println!(
        "box_stack: asleep at {at:?}; fastest body: defaults {still:.1e}, warm starting off {ws:.3}, slop 0 {slop0:.1e} m/s; top {top:.4} m, with 1 substep {sag_top:.4} m"
    );
    assert!(at.is_some_and(|s| s <= 120), "asleep within a couple of seconds");
    assert!(still < 1e-3 && slop0 < 1e-3, "still at the defaults and with slop 0");
    assert!(ws > 2.0, "warm starting off: it comes apart within 8 s ({ws} m/s)");
    assert!((0.04..0.1).contains(&(top - sag_top)), "one substep sags it about 7 cm: {} m", top - sag_top);
}

/// tower.ron: "with substeps 1, iterations 1 and warm_starting false it sags into itself and
/// topples"; pyramid.ron: "Lower substeps to 1 or turn off warm starting to watch it slump".
#[test]
fn tower_and_pyramid_lesson_claims() {
    let mut w = load("tower.ron", |s| {
        s.substeps = 1;
        s.iterations = 1;
        s.warm_starting = false;
    });
    let start: Vec<_> = w.bodies().iter().map(|b| b.pose.translation).collect();
    let (_, top0) = fastest_and_top(&mut load("tower.ron", |s| s.sleeping = false), 0, 600);
    let (_, top) = fastest_and_top(&mut w, 0, 600);
    let spread = spread(&w, &start);
    println!("tower: top {top0:.3} m at the defaults, {top:.3} m bad; spread {spread:.2} m");
    assert!(top0 > 9.4 && top < 3.0 && spread > 1.0, "the tower stands, and with the bad settings topples");

    let (_, good) = fastest_and_top(&mut load("pyramid.ron", |s| s.sleeping = false), 0, 300);
    let (_, one) = fastest_and_top(
        &mut load("pyramid.ron", |s| {
            s.sleeping = false;
            s.substeps = 1
        }),
        0,
        300,
    );
    let (_, cold) = fastest_and_top(
        &mut load("pyramid.ron", |s| {
            s.sleeping = false;
            s.warm_starting = false
        }),
        0,
        300,
    );
    println!("pyramid top after 5 s: {good:.3} m, 1 substep {one:.3} m, warm starting off {cold:.3} m");
    assert!(good - one > 0.05 && good - cold > 1.0, "both slump");
}

/// mixed_stack.ron and staggered_wall.ron: "stands and falls asleep within a second", with
/// their resting depth and tilt.
#[test]
fn mixed_stack_and_wall_lesson_claims() {
    let mut w = load("mixed_stack.ron", |_| {});
    let start: Vec<_> = w.bodies().iter().map(|b| b.pose.translation).collect();
    let at = asleep_by(&mut w, 600);
    let (cube, base, slab) = (body(&w, "cube") as u32, body(&w, "base") as u32, body(&w, "slab") as u32);
    let (under, over) = (depth(&w, base.min(cube), base.max(cube)), depth(&w, cube.min(slab), cube.max(slab)));
    let deepest = w.contacts().iter().flat_map(|c| c.manifold.points().iter().map(|p| p.depth)).fold(0.0, f32::max);
    println!(
        "mixed_stack: asleep at {at:?}, moved {:.1} mm; depth base-cube {:.2} mm, cube-slab {:.2} mm, deepest {:.2} mm",
        spread(&w, &start) * 1e3,
        under * 1e3,
        over * 1e3,
        deepest * 1e3
    );
    assert!(at.is_some_and(|s| s <= 60) && spread(&w, &start) < 0.02, "stands and sleeps within a second");
    assert!(under.max(over) == deepest, "the deepest contacts are below and above the cube");
    assert!((0.0025..0.004).contains(&under) && (0.0025..0.004).contains(&over), "3 to 3.6 mm deep");

    let mut w = load("staggered_wall.ron", |_| {});
    let at = asleep_by(&mut w, 600);
    let tilt = w.bodies().iter().filter(|b| b.is_dynamic()).map(tilt_deg).fold(0.0, f32::max);
    println!("staggered_wall: asleep at {at:?}, largest tilt {tilt:.2} deg");
    assert!(at.is_some_and(|s| s <= 60), "asleep within a second");
    assert!((0.1..0.5).contains(&tilt), "settled tilt about 0.25 deg: {tilt}");
}

/// thin_column.ron: about 16 mm at the lowest joint between boxes and asleep after about a
/// second at the defaults; with sleeping off it stands within 1 mm and 0.05° over 20 s.
#[test]
fn thin_column_lesson_claims() {
    let mut w = load("thin_column.ron", |_| {});
    let at = asleep_by(&mut w, 600);
    let lowest = w
        .bodies()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_dynamic())
        .min_by(|a, b| a.1.pose.translation.y.total_cmp(&b.1.pose.translation.y))
        .map(|(i, _)| i as u32)
        .unwrap();
    let floor = body(&w, "floor") as u32;
    let joint = depth(&w, floor.min(lowest), floor.max(lowest));
    let (deepest, pair) = w
        .contacts()
        .iter()
        .flat_map(|c| c.manifold.points().iter().map(move |p| (p.depth, (c.a, c.b))))
        .fold((0.0, (0, 0)), |m, x| if x.0 > m.0 { x } else { m });
    let heights = (w.bodies()[pair.0 as usize].pose.translation.y, w.bodies()[pair.1 as usize].pose.translation.y);
    println!(
        "thin_column: asleep at {at:?}; floor joint {:.1} mm, deepest joint {:.1} mm between {pair:?} at {heights:?}",
        joint * 1e3,
        deepest * 1e3
    );

    let mut awake = load("thin_column.ron", |s| s.sleeping = false);
    for _ in 0..120 {
        awake.step();
    }
    let start: Vec<_> = awake.bodies().iter().map(|b| b.pose.translation).collect();
    for _ in 0..1200 {
        awake.step();
    }
    let drift = awake
        .bodies()
        .iter()
        .zip(&start)
        .filter(|(b, _)| b.is_dynamic())
        .map(|(b, s)| (b.pose.translation - *s).length())
        .fold(0.0, f32::max);
    let tilt = awake.bodies().iter().filter(|b| b.is_dynamic()).map(tilt_deg).fold(0.0, f32::max);
    println!("thin_column, sleeping off, 20 s: drift {:.2} mm, tilt {tilt:.3} deg", drift * 1e3);
    assert!(at.is_some_and(|s| s <= 90), "asleep after about a second");
    let (a, b) = (pair.0.min(pair.1), pair.0.max(pair.1));
    assert!(a == lowest && b == lowest + 1, "the deepest joint is the lowest one between boxes: {pair:?}");
    assert!((0.012..0.02).contains(&deepest), "about 16 mm: {deepest}");
    assert!(drift < 1e-3 && tilt < 0.05, "stands within 1 mm and 0.05 deg over 20 s");
}

/// `many_pyramids.ron`: "each pyramid should stand and fall asleep on its own" — all 10,780
/// cubes asleep within a second, none moved more than 5 mm sideways or tilted more than 1°.
#[test]
fn many_pyramids_lesson_claims() {
    let mut w = load("many_pyramids.ron", |_| {});
    let start: Vec<_> = w.bodies().iter().map(|b| b.pose.translation).collect();
    let asleep = asleep_by(&mut w, 60);
    assert!(asleep.is_some(), "not all asleep after 1 s");
    let moved = spread(&w, &start);
    let tilt = w.bodies().iter().filter(|b| b.is_dynamic()).map(tilt_deg).fold(0.0, f32::max);
    assert!(moved < 0.005 && tilt < 1.0, "a cube moved {moved} m or tilted {tilt}°");
}

/// `sphere_vs_rotated_box.ron`: three spheres fall onto the cube standing on its corner, touch
/// it, bounce and roll off; every contact normal points from the sphere's centre through the
/// closest point of the cube (the local-frame clamp) while the centre is outside the cube, and
/// none of them stays on the cube.
#[test]
fn sphere_vs_rotated_box_lesson_claims() {
    let mut w = load("sphere_vs_rotated_box.ron", |_| {});
    let cube = body(&w, "rotated cube") as u32;
    let spheres: Vec<u32> = ["on the corner", "on an edge", "on a face"].iter().map(|n| body(&w, n) as u32).collect();
    let mut touched = [false; 3];
    while w.step_count() < 600 {
        // The step's contacts are made from the poses it starts from.
        let before: Vec<_> = spheres.iter().map(|&s| w.bodies()[s as usize].pose.translation).collect();
        w.step();
        for c in w.contacts().iter().filter(|c| c.a == cube || c.b == cube) {
            let Some(k) = spheres.iter().position(|&s| s == c.a || s == c.b) else { continue };
            // Touching, or about to (a speculative point stops a sphere at the surface).
            let Some(p) = c.manifold.points().first() else { continue };
            touched[k] = true;
            let centre = before[k];
            // (A centre that went inside the cube, a fast fall's first step there, is pushed out
            // along the nearest face instead.)
            let local = w.bodies()[cube as usize].pose.inverse_transform_point(centre);
            if local.abs().max_element() < 1.0 {
                continue;
            }
            // The normal runs from A to B; from the cube to the sphere here or the other way.
            let n = if c.a == cube { c.manifold.normal } else { -c.manifold.normal };
            let along = (centre - p.point).normalize();
            assert!(n.dot(along) > 0.9998, "step {}: sphere {k}'s normal {n} against {along}", w.step_count());
        }
    }
    assert_eq!(touched, [true; 3], "each sphere reaches the cube");
    let resting_on_cube: Vec<u32> = w
        .contacts()
        .iter()
        .filter(|c| (c.a == cube || c.b == cube) && c.manifold.points().iter().any(|p| p.depth >= 0.0))
        .map(|c| if c.a == cube { c.b } else { c.a })
        .collect();
    assert!(resting_on_cube.is_empty(), "spheres still on the cube after 10 s: {resting_on_cube:?}");
}
