//! Runs a crowded scene and reports every dynamic body that ends where it cannot be: below a
//! floor (its centre lower than `--below Y`), behind a wall (`--beyond-x X`) or, with
//! `--contained`, out of the box of the scene's static bodies sideways or below (a bin's floor
//! and walls: a body thrown over a wall; for bins, not open floors), and the deepest contact of
//! the run with the pair
//! and step that made it. `--trace BODY` prints that body's contacts, velocity and position
//! step by step around the moment it is lost.
//!
//! `cargo run --example crowd_probe -- SCENE.ron [--steps N] [--ccd off|speculative|toi]
//!  [--below Y] [--beyond-x X] [--within R] [--contained] [--trace BODY] [--from STEP] [--explain-over DEPTH]`

use collidoscope::Scene;
use collidoscope::ccd::CcdMode;
use collidoscope::math::Real;
use collidoscope::narrowphase::{NarrowPhaseKind, Tolerance, contact, distance};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: crowd_probe SCENE.ron [options]");
    let (mut steps, mut ccd, mut below, mut trace, mut from) = (600usize, None, Real::NEG_INFINITY, None, 0u64);
    let mut beyond_x = Real::INFINITY;
    let mut explain_over = Real::INFINITY;
    // Only within this far of the origin in x and z (a body that rolls off a terrain's edge
    // has not gone through it; one that flies round a wall's edge has not either).
    let mut within = Real::INFINITY;
    let mut contained = false;
    while let Some(a) = args.next() {
        let mut v = || args.next().expect("option needs a value");
        match a.as_str() {
            "--steps" => steps = v().parse().unwrap(),
            "--ccd" => ccd = Some(CcdMode::from_cli_name(&v()).expect("ccd mode")),
            "--below" => below = v().parse().unwrap(),
            "--beyond-x" => beyond_x = v().parse().unwrap(),
            "--explain-over" => explain_over = v().parse().unwrap(),
            "--within" => within = v().parse().unwrap(),
            "--contained" => contained = true,
            "--trace" => trace = Some(v().parse::<usize>().unwrap()),
            "--from" => from = v().parse().unwrap(),
            other => panic!("unknown option {other}"),
        }
    }
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut w = scene.build().unwrap_or_else(|e| panic!("{e}"));
    if let Some(ccd) = ccd {
        let mut s = w.settings.clone();
        s.ccd = ccd;
        w.set_settings(s);
    }
    let n = w.bodies().len();
    // The box of the static bodies: a body whose centre leaves it has left the bin.
    let bin = w
        .bodies()
        .iter()
        .filter(|b| b.kind == collidoscope::BodyKind::Static)
        .map(|b| b.shape.aabb(&b.pose))
        .reduce(|a, b| a.merge(&b));
    if contained && bin.is_none() {
        eprintln!("warning: --contained: the scene has no static body, so no body can leave a bin");
    }
    let outside = |p: collidoscope::math::Vec3| {
        bin.is_some_and(|bin| {
            !p.is_finite()
                || p.x < bin.min.x
                || p.x > bin.max.x
                || p.z < bin.min.z
                || p.z > bin.max.z
                || p.y < bin.min.y
        })
    };
    // Only a body that starts inside the box can leave it.
    let started_inside: Vec<bool> = w.bodies().iter().map(|b| !outside(b.pose.translation)).collect();
    let mut lost_at = vec![None; n];
    let mut deepest = (0.0 as Real, 0u64, 0u32, 0u32);
    // Manifold-steps deeper than each bar, in all and against a body that is not dynamic.
    const BARS: [Real; 3] = [0.02, 0.05, 0.10];
    let (mut over, mut over_fixed) = ([0usize; 3], [0usize; 3]);
    let t0 = std::time::Instant::now();
    for _ in 0..steps {
        let before: Vec<_> = w.bodies().iter().map(|b| (b.pose.translation, b.linvel, b.pose)).collect();
        w.step();
        let k = w.step_count();
        for c in w.contacts() {
            let d = c.manifold.max_depth();
            if d > deepest.0 {
                deepest = (d, k, c.a, c.b);
            }
            let fixed = !(w.bodies()[c.a as usize].is_dynamic() && w.bodies()[c.b as usize].is_dynamic());
            for (i, &bar) in BARS.iter().enumerate() {
                over[i] += (d > bar) as usize;
                over_fixed[i] += (d > bar && fixed) as usize;
            }
            if d > explain_over {
                // What the narrow phase says of the pair at the poses the step started from.
                let (a, b) = (&w.bodies()[c.a as usize], &w.bodies()[c.b as usize]);
                let (pa, pb) = (&before[c.a as usize].2, &before[c.b as usize].2);
                let tol = Tolerance { margin: 0.02, epsilon: w.settings.contact_epsilon };
                println!("step {k}: pair {} {} depth {d:.4} normal {:?}", c.a, c.b, c.manifold.normal);
                println!("    poses {pa:?} {pb:?}\n    shapes {:?} / {:?}", a.shape, b.shape);
                for method in [NarrowPhaseKind::Analytic, NarrowPhaseKind::Gjk] {
                    println!("    {method:?}: {:?}", contact(&a.shape, pa, &b.shape, pb, tol, method));
                }
                println!("    distance {:?}", distance(&a.shape, pa, &b.shape, pb));
            }
        }
        for (i, b) in w.bodies().iter().enumerate() {
            let (p0, p1) = (before[i].0, b.pose.translation);
            let inside =
                |p: collidoscope::math::Vec3, a: Real, b: Real| a.abs() < within && b.abs() < within && p.is_finite();
            // Below the floor inside its extent, or across the wall's plane x = 0 inside its extent.
            let through_floor = p1.y < below && inside(p1, p1.x, p1.z);
            let mid = (p0 + p1) * 0.5;
            let through_wall = p0.x < beyond_x && p1.x > beyond_x && inside(mid, mid.y, mid.z);
            let escaped = contained && started_inside[i] && outside(p1);
            if b.is_dynamic() && lost_at[i].is_none() && (through_floor || through_wall || escaped) {
                lost_at[i] = Some(k);
                let how = if through_floor {
                    "below the floor"
                } else if through_wall {
                    "across the wall"
                } else {
                    "out of the static bodies' box"
                };
                println!(
                    "lost body {i} ({:?}) {how} at step {k}: {:?} -> {:?}, v {:?} -> {:?}",
                    b.shape.kind(),
                    before[i].0,
                    b.pose.translation,
                    before[i].1,
                    b.linvel
                );
            }
        }
        if let Some(t) = trace
            && k >= from
        {
            let b = &w.bodies()[t];
            println!("step {k}: body {t} p {:?} v {:?} w {:?}", b.pose.translation, b.linvel, b.angvel);
            for e in w.toi_events().iter().filter(|e| e.body as usize == t || e.other as usize == t) {
                println!("    impact of {} on {} at t {:.3}, normal {:?}", e.body, e.other, e.t, e.normal);
            }
            for c in w.contacts().iter().filter(|c| c.a as usize == t || c.b as usize == t) {
                let other = if c.a as usize == t { c.b } else { c.a };
                let ob = &w.bodies()[other as usize];
                let depths: Vec<String> = c.manifold.points().iter().map(|p| format!("{:.4}", p.depth)).collect();
                println!(
                    "    with {other} ({:?} {:?}) n {:?} (from {}) depths [{}]",
                    ob.shape.kind(),
                    ob.kind,
                    c.manifold.normal,
                    c.a,
                    depths.join(", ")
                );
            }
        }
    }
    let lost = lost_at.iter().filter(|l| l.is_some()).count();
    println!(
        "{path}: {} steps, ccd {:?}: {lost} of {} dynamic bodies lost; deepest contact {:.4} m at step {} (bodies {} {:?} and {} {:?}); {:.2} ms a step",
        steps,
        w.settings.ccd,
        w.bodies().iter().filter(|b| b.is_dynamic()).count(),
        deepest.0,
        deepest.1,
        deepest.2,
        w.bodies()[deepest.2 as usize].shape.kind(),
        deepest.3,
        w.bodies()[deepest.3 as usize].shape.kind(),
        t0.elapsed().as_secs_f64() * 1e3 / steps as f64
    );
    println!(
        "  contacts deeper than 2 / 5 / 10 cm (manifold-steps): {} / {} / {}; of them against a body that is not dynamic: {} / {} / {}",
        over[0], over[1], over[2], over_fixed[0], over_fixed[1], over_fixed[2]
    );
}
