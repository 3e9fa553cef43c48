//! One-box-deep pyramids (`scenes/large_pyramid.ron`) stand in their plane (z = 0): a wall keeps
//! its contacts, no cube leaves the plane by 5 cm or tilts by 2° in 20 s, with sleeping on or
//! off. A twist or friction impulse that is not carried over correctly from one step to the
//! next (e.g. stored in a basis that flips where the normal's z changes sign) buckles such a wall
//! out of its plane within a few hundred steps.

use collidoscope::{Scene, World};

/// A pyramid of `base` unit cubes on a floor, one cube deep, sleeping on or off.
fn wall(base: u32, sleeping: bool) -> World {
    wall_with(base, sleeping, "")
}

/// [`wall`] with more settings, written as RON fields (`"contact_hertz: 60, substeps: 8"`).
fn wall_with(base: u32, sleeping: bool, settings: &str) -> World {
    let text = format!(
        "(version: 1, name: \"Wall\", description: \"\", settings: (broad_phase: SweepAndPrune, sleeping: {sleeping}, {settings}),
          bodies: [(name: \"floor\", kind: Static, shape: Cuboid(half_extents: ({}, 0.5, 5)), position: (0, -0.5, 0))],
          generators: [Pyramid(base: {base}, half_extent: 0.5)])",
        base as f32 * 0.8 + 5.0
    );
    Scene::parse(&text, "wall.ron").unwrap().build().unwrap()
}

/// What a run shows: contact points after each step, the largest out-of-plane distance any
/// body reached at any step, and how many bodies sleep at the end.
struct Run {
    contacts: Vec<u32>,
    max_drift: f32,
    asleep: u32,
}

fn run(world: &mut World, steps: usize) -> Run {
    let mut r = Run { contacts: Vec::with_capacity(steps), max_drift: 0.0, asleep: 0 };
    for _ in 0..steps {
        world.step();
        r.contacts.push(world.profile().contacts);
        let drift =
            world.bodies().iter().filter(|b| b.is_dynamic()).map(|b| b.pose.translation.z.abs()).fold(0.0, f32::max);
        r.max_drift = r.max_drift.max(drift);
    }
    r.asleep = world.profile().sleeping_bodies;
    r
}

/// Contact points at the end as a fraction of those at `at` steps (the settled wall).
fn kept(r: &Run, at: usize) -> f32 {
    *r.contacts.last().unwrap() as f32 / r.contacts[at - 1] as f32
}

/// Runs a wall of `base` for `steps` and prints what it shows.
fn measure(base: u32, steps: usize, sleeping: bool) -> Run {
    let mut w = wall(base, sleeping);
    let r = run(&mut w, steps);
    println!(
        "base {base}, sleeping {sleeping}: contacts at step 100 {}, at step {steps} {} ({:.1}%), largest z drift {:.2} mm, asleep {}",
        r.contacts[99],
        r.contacts.last().unwrap(),
        100.0 * kept(&r, 100),
        r.max_drift * 1e3,
        r.asleep
    );
    r
}

/// A 40-wide wall (820 cubes), sleeping off, over 300 steps: it keeps every contact point and
/// stays within 5 cm of its plane.
#[test]
fn a_one_deep_pyramid_of_40_keeps_its_contacts_and_stays_near_its_plane() {
    let r = measure(40, 300, false);
    let k = kept(&r, 100);
    assert!(k >= 0.99, "the wall lost contacts: kept {:.1}%", 100.0 * k);
    assert!(r.max_drift < 0.05, "a box left the plane by {} m", r.max_drift);
}

/// How `scenes/large_pyramid.ron` (100 rows, one cube deep, 5,050 cubes) does over `steps`:
/// the farthest any cube left its plane (m), the largest tilt (degrees), and the step at which
/// every cube was asleep.
fn large_pyramid(sleeping: bool, steps: u64) -> (f32, f32, Option<u64>) {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/large_pyramid.ron")).unwrap();
    let mut w = scene.build().unwrap();
    w.settings.sleeping = sleeping;
    let dynamic = w.bodies().iter().filter(|b| b.is_dynamic()).count() as u32;
    let (mut out, mut tilt, mut asleep_at) = (0.0f32, 0.0f32, None);
    for k in 0..steps {
        w.step();
        for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
            out = out.max(b.pose.translation.z.abs());
            let up = b.pose.rotation * collidoscope::math::Vec3::Y;
            tilt = tilt.max((up.x * up.x + up.z * up.z).sqrt().min(1.0).asin().to_degrees());
        }
        if asleep_at.is_none() && w.profile().sleeping_bodies == dynamic {
            asleep_at = Some(k + 1);
        }
    }
    println!(
        "large pyramid, sleeping {sleeping}, {steps} steps: out of plane {:.1} mm, tilt {tilt:.2}°, all asleep at step {asleep_at:?}",
        out * 1e3
    );
    (out, tilt, asleep_at)
}

/// Issue 15's target on the benchmark scene as shipped (sleeping on): for 20 s no cube leaves
/// its plane by 5 cm or tilts by 2°, and every cube is asleep by 10 s.
#[test]
fn the_large_pyramid_stands_for_twenty_seconds_and_falls_asleep_within_ten() {
    let (out, tilt, asleep_at) = large_pyramid(true, 1200);
    assert!(out < 0.05, "a cube left its plane by {out} m");
    assert!(tilt < 2.0, "a cube tilted {tilt}°");
    assert!(asleep_at.is_some_and(|s| s <= 600), "not every cube asleep by 10 s: {asleep_at:?}");
}

/// The same with sleeping off, where the solver holds all 5,050 cubes every step for 20 s (about
/// 18 s in the dev profile).
#[test]
fn the_large_pyramid_stands_for_twenty_seconds_with_sleeping_off() {
    let (out, tilt, _) = large_pyramid(false, 1200);
    assert!(out < 0.05, "a cube left its plane by {out} m");
    assert!(tilt < 2.0, "a cube tilted {tilt}°");
}

/// Prints the progress of a wall every `WALL_EVERY` steps: `WALL_BASE`, `WALL_STEPS`, and
/// `WALL_SLEEP` set for sleeping on (a diagnostic, not a check).
#[test]
#[ignore = "diagnostic"]
fn print_wall_progress() {
    let base: u32 = std::env::var("WALL_BASE").ok().and_then(|s| s.parse().ok()).unwrap_or(40);
    let steps: usize = std::env::var("WALL_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(600);
    let sleeping = std::env::var("WALL_SLEEP").is_ok();
    let every: usize = std::env::var("WALL_EVERY").ok().and_then(|s| s.parse().ok()).unwrap_or(50);
    let mut w = wall(base, sleeping);
    for k in 0..steps {
        w.step();
        if (k + 1) % every == 0 {
            let dyns = || w.bodies().iter().enumerate().filter(|(_, b)| b.is_dynamic());
            let (imax, drift) = dyns()
                .map(|(i, b)| (i, b.pose.translation.z.abs()))
                .fold((0, 0.0), |a, x| if x.1 > a.1 { x } else { a });
            let sag = dyns().map(|(_, b)| b.pose.translation.y).fold(f32::MAX, f32::min);
            let vz = dyns().map(|(_, b)| b.linvel.z.abs()).fold(0.0, f32::max);
            let wx = dyns().map(|(_, b)| b.angvel.x.abs().max(b.angvel.y.abs())).fold(0.0, f32::max);
            let p = w.profile();
            println!(
                "step {:4}: contacts {:6}, z drift {:8.3} mm (body {imax} at y {:.1}), max |vz| {:.2e}, max |wx|,|wy| {:.2e}, lowest centre {:.4}, asleep {}",
                k + 1,
                p.contacts,
                drift * 1e3,
                w.bodies()[imax].pose.translation.y,
                vz,
                wx,
                sag,
                p.sleeping_bodies
            );
        }
    }
}

/// Prints, every `WALL_EVERY` steps, how far rows of a wall have sunk (mean of the row's
/// centres below where they started), its contacts and its out-of-plane drift. `WALL_SETTINGS`
/// adds settings as RON fields (a diagnostic, not a check).
#[test]
#[ignore = "diagnostic"]
fn print_wall_sag() {
    let var = |k: &str| std::env::var(k).ok();
    let base: u32 = var("WALL_BASE").and_then(|s| s.parse().ok()).unwrap_or(100);
    let steps: usize = var("WALL_STEPS").and_then(|s| s.parse().ok()).unwrap_or(600);
    let every: usize = var("WALL_EVERY").and_then(|s| s.parse().ok()).unwrap_or(60);
    let mut w = wall_with(base, var("WALL_SLEEP").is_some(), &var("WALL_SETTINGS").unwrap_or_default());
    let start: Vec<f32> = w.bodies().iter().map(|b| b.pose.translation.y).collect();
    let rows = [1usize, 10, 25, 50, 75, 99].map(|r| r.min(base as usize - 1));
    let mut max_drift: f32 = 0.0;
    for k in 0..steps {
        w.step();
        let dyns = || w.bodies().iter().enumerate().filter(|(_, b)| b.is_dynamic());
        max_drift = dyns().map(|(_, b)| b.pose.translation.z.abs()).fold(max_drift, f32::max);
        if (k + 1) % every == 0 {
            let mut sag = [0.0f32; 6];
            let mut count = [0u32; 6];
            // Largest |z| in each tenth of the rows.
            let mut zs = [0.0f32; 10];
            for (i, b) in dyns() {
                let row = (start[i] - 0.5).round() as usize;
                let tenth = (row * 10 / base as usize).min(9);
                zs[tenth] = zs[tenth].max(b.pose.translation.z.abs());
                if let Some(j) = rows.iter().position(|&r| r == row) {
                    sag[j] += start[i] - b.pose.translation.y;
                    count[j] += 1;
                }
            }
            let zs: Vec<String> = zs.iter().map(|z| format!("{:.0}", z * 1e3)).collect();
            println!("    |z| mm by tenth of the rows: {}", zs.join(" "));
            let mut speeds: Vec<f32> = dyns().map(|(_, b)| b.linvel.length()).collect();
            speeds.sort_by(f32::total_cmp);
            let sag: Vec<String> = rows
                .iter()
                .zip(sag.iter().zip(&count))
                .map(|(r, (s, &c))| format!("r{r} {:.1}", 1e3 * s / c.max(1) as f32))
                .collect();
            println!(
                "step {:4}: contacts {:6}, max z drift {:7.2} mm, speed median {:.1e} max {:.1e}, sag mm: {}",
                k + 1,
                w.profile().contacts,
                max_drift * 1e3,
                speeds[speeds.len() / 2],
                speeds.last().unwrap(),
                sag.join(", ")
            );
        }
    }
}
