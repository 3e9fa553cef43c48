//! Milliseconds per step on the benchmark scenes (one thread): scenes/rain_1000.ron (1,000 mixed
//! bodies), scenes/large_pyramid.ron (5,050 cubes) and scenes/many_pyramids.ron (10,780 cubes), with sleeping off so every step does the
//! full work. Before measuring, each scene is warmed for a few steps (contacts and warm-starting
//! cache in place) and the mean phase times of those steps are printed, to show where time goes.
//!
//! The measured steps always come from the first seconds of the scene: each sample times whole
//! windows of `steps::WINDOW` (100) steps from the state after warming (put back, untimed,
//! before each), so every figure is the mean step of the same stretch. Without that, a long
//! measurement would time whatever the scene has become (a pile that has fallen has far fewer
//! contacts), and a sample of part of the window would weigh the stretch it happened to cover.
//!
//! Run: `cargo bench --no-default-features --bench step`. Sized for a 2-core machine: few,
//! short samples. `STEP_BENCH_SCENES=large_pyramid` limits the scenes.

#[path = "common/steps.rs"]
mod steps;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

const SCENES: [&str; 3] = ["rain_1000", "large_pyramid", "many_pyramids"];
fn step(c: &mut Criterion) {
    let only = std::env::var("STEP_BENCH_SCENES").ok();
    let mut group = c.benchmark_group("step");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    for name in SCENES {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|s| s == name)) {
            continue;
        }
        steps::bench_warmed(&mut group, name, steps::load_awake(name));
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
