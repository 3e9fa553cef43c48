//! Milliseconds per step of the benchmark scenes on 1 and 2 threads: scenes/large_pyramid.ron
//! (5,050 cubes, one island), scenes/many_pyramids.ron (10,780 cubes, 196 islands) and
//! `rain_100k`, built here: 100,000 bodies of `rain_1000`'s four shapes falling onto a static
//! floor (issue #37's 100,000-body rain). Sleeping is off so every step does the full work; every
//! other setting is the default (`ccd: Speculative`). The speed-up is the ratio of the two rows.
//!
//! As benches/step.rs: each world is warmed for a few steps (their mean phase times are
//! printed, to show where time goes), and each sample times whole windows of `steps::WINDOW`
//! (100) steps from the warmed state (put back, untimed, before each), so every figure is the
//! mean step of the same stretch. The rain is first stepped [`RAIN_PRE_STEPS`] more, so the timed stretch
//! is the one where it lands and piles up. Before timing, the warmed state's hash on every
//! thread count is checked against the serial one: a figure counts only for a step that gives
//! the serial bits.
//!
//! Run: `cargo bench --no-default-features --bench parallel`. `PARALLEL_BENCH_THREADS=1,2,4`
//! changes the counts; `STEP_BENCH_SCENES=large_pyramid` limits the scenes
//! (`STEP_BENCH_SCENES=rain_100k` runs the rain alone).

use collidoscope::World;
#[path = "common/rain.rs"]
mod rain;
#[path = "common/steps.rs"]
mod steps;
use rain::rain_100k;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::time::Duration;

const SCENES: [&str; 3] = ["large_pyramid", "many_pyramids", RAIN];
/// The 100,000-body rain, built in code (a scene file of its size would only repeat this).
const RAIN: &str = "rain_100k";
/// Steps the rain runs before its warm-up: after the warm-up's 10 more the bodies that started
/// in the lowest 3.2 m (a sixth) have landed and the rest are falling, so the timed window
/// (steps 30 to 130) holds the landings: the last land at about step 100.
const RAIN_PRE_STEPS: usize = 20;

/// The scene `name` on `threads` threads, stepped to where its warm-up starts.
fn load(name: &str, threads: usize) -> World {
    let mut world = if name == RAIN { rain_100k() } else { steps::load_awake(name) };
    world.set_threads(threads);
    assert_eq!(world.threads(), threads);
    if name == RAIN {
        (0..RAIN_PRE_STEPS).for_each(|_| world.step());
    }
    world
}

fn threads() -> Vec<usize> {
    match std::env::var("PARALLEL_BENCH_THREADS") {
        Ok(s) => s.split(',').map(|n| n.trim().parse().expect("PARALLEL_BENCH_THREADS: counts, e.g. 1,2")).collect(),
        Err(_) => vec![1, 2],
    }
}

fn parallel(c: &mut Criterion) {
    let only = std::env::var("STEP_BENCH_SCENES").ok();
    let mut group = c.benchmark_group("parallel");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    for name in SCENES {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|s| s == name)) {
            continue;
        }
        let mut serial_hash = None;
        for n in threads() {
            let mut world = load(name, n);
            let warm = steps::warm(&mut world, |_| {});
            let p = world.profile();
            eprintln!(
                "{name}, {n} threads: {} bodies, {} pairs, {} manifolds, {} contact points; {warm}",
                p.bodies, p.pairs, p.manifolds, p.contacts
            );
            let hash = *serial_hash.get_or_insert_with(|| {
                let mut serial = load(name, 1);
                (0..steps::WARM_STEPS).for_each(|_| serial.step());
                serial.hash()
            });
            assert_eq!(world.hash(), hash, "{name} on {n} threads: the warmed state differs from the serial one");
            let warmed = world.snapshot();
            group.bench_function(BenchmarkId::new(name, format!("{n} threads")), |b| {
                steps::time_steps(b, &mut world, &warmed)
            });
        }
    }
    group.finish();
}

criterion_group!(benches, parallel);
criterion_main!(benches);
