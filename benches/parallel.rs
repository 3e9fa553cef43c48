//! Milliseconds per step of the benchmark scenes on 1 and 2 threads: scenes/large_pyramid.ron
//! (5,050 cubes, one island) and scenes/many_pyramids.ron (10,780 cubes, 196 islands), with
//! sleeping off so every step does the full work. The speed-up is the ratio of the two rows.
//!
//! As benches/step.rs: each world is warmed for a few steps (their mean phase times are
//! printed, to show where time goes), and every `steps::WINDOW` (100) timed steps it is put back, untimed,
//! to its warmed state. Before timing, the warmed state's hash on every thread count is checked
//! against the serial one: a figure counts only for a step that gives the serial bits.
//!
//! Run: `cargo bench --no-default-features --bench parallel`. `PARALLEL_BENCH_THREADS=1,2,4`
//! changes the counts; `STEP_BENCH_SCENES=large_pyramid` limits the scenes.

use collidoscope::World;
#[path = "common/steps.rs"]
mod steps;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::time::Duration;

const SCENES: [&str; 2] = ["large_pyramid", "many_pyramids"];
fn load(name: &str, threads: usize) -> World {
    let mut world = steps::load_awake(name);
    world.set_threads(threads);
    assert_eq!(world.threads(), threads);
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
            eprintln!("{name}, {n} threads: {}", steps::warm(&mut world, |_| {}));
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
