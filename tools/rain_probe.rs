//! Where the 100,000-body rain's step goes (`rain_100k` of `benches/parallel.rs`), phase by
//! phase, without criterion's repeats.
//!
//! `cargo run --release --no-default-features --example rain_probe -- [FROM] [STEPS] [THREADS]`
//! steps the rain FROM times (default 30, where the bench's timed window starts), then prints
//! each of the next STEPS steps' phase times (default 100) and pairs, their means and the
//! state hash (the same on any thread count). `rain_probe --write FILE` writes the rain as a
//! scene file instead, for `collidoscope compare FILE` against rapier3d and Jolt. For an
//! instruction profile of a few steps:
//! `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='rain_probe::profiled_step'`
//! on `rain_probe 30 3` (the first 30 steps run uncollected, slowly).

#[path = "../benches/common/rain.rs"]
mod rain;

use collidoscope::World;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--write") {
        let path = args.get(1).expect("--write FILE");
        let world = rain::rain_100k();
        let scene = collidoscope::Scene::from_world(&world, &collidoscope::Scene::default());
        scene.save(path).unwrap_or_else(|e| panic!("{e}"));
        return;
    }
    let arg = |k: usize, default: u64| args.get(k).map_or(default, |s| s.parse().expect("a count"));
    let (from, steps, threads) = (arg(0, 30), arg(1, 100), arg(2, 1));
    let mut world = rain::rain_100k();
    world.set_threads(threads as usize);
    for _ in 0..from {
        world.step();
    }
    let mut sums = [0.0; 6];
    for _ in 0..steps {
        profiled_step(&mut world);
        let p = world.profile();
        let [broad, narrow, ccd, solve, integrate] = p.phase_ms();
        let row = [p.total_ms, broad, narrow, ccd, solve, integrate];
        sums.iter_mut().zip(row).for_each(|(s, v)| *s += v);
        println!(
            "step {}: {:.1} ms (broad {broad:.1}, narrow {narrow:.1}, ccd {ccd:.1}, solve {solve:.1}, integrate {integrate:.1}), {} pairs, {} impacts",
            world.step_count(),
            p.total_ms,
            p.pairs,
            p.toi_events
        );
    }
    let [total, broad, narrow, ccd, solve, integrate] = sums.map(|s| s / steps.max(1) as f64);
    println!(
        "mean of {steps} steps from {from}, {threads} threads: {total:.1} ms (broad {broad:.1}, narrow {narrow:.1}, ccd {ccd:.1}, solve {solve:.1}, integrate {integrate:.1}); hash {:016x}",
        world.hash()
    );
}

/// One step, a function of its own for callgrind's `--toggle-collect`.
#[inline(never)]
fn profiled_step(world: &mut World) {
    world.step();
}
