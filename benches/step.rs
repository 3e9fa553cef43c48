//! Milliseconds per step on the benchmark scenes (one thread): scenes/rain_1000.ron (1,000 mixed
//! bodies), scenes/large_pyramid.ron (5,050 cubes) and scenes/many_pyramids.ron (10,780 cubes), with sleeping off so every step does the
//! full work. Before measuring, each scene is warmed for a few steps (contacts and warm-starting
//! cache in place) and the mean phase times of those steps are printed, to show where time goes.
//!
//! The measured steps always come from the first seconds of the scene: every `steps::WINDOW` (100) steps the
//! world is put back (untimed) to its state after warming. Without that, a long measurement
//! would time whatever the scene has become (a pile that has fallen has far fewer contacts).
//!
//! Run: `cargo bench --no-default-features --bench step`. Sized for a 2-core machine: few,
//! short samples. `STEP_BENCH_SCENES=large_pyramid` limits the scenes.

use collidoscope::{Scene, World};
#[path = "common/steps.rs"]
mod steps;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

const SCENES: [&str; 3] = ["rain_1000", "large_pyramid", "many_pyramids"];
const WARM_STEPS: usize = 10;
fn load(name: &str) -> World {
    let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    world.set_settings(settings);
    world
}

/// Steps the world `WARM_STEPS` times and prints the mean time of each phase.
fn warm(name: &str, world: &mut World) {
    let mut sum = [0.0f64; 6];
    for _ in 0..WARM_STEPS {
        world.step();
        let p = world.profile();
        let phases = p.phase_ms();
        for (s, x) in sum.iter_mut().zip(phases.iter().chain([p.total_ms].iter())) {
            *s += x;
        }
    }
    let n = WARM_STEPS as f64;
    let p = world.profile();
    eprintln!(
        "{name}: {} bodies, {} pairs, {} manifolds, {} contact points; mean ms over {WARM_STEPS} warm-up steps: \
         broad {:.2}, narrow {:.2}, ccd {:.2}, solve {:.2}, integrate {:.2}, total {:.2}",
        p.bodies,
        p.pairs,
        p.manifolds,
        p.contacts,
        sum[0] / n,
        sum[1] / n,
        sum[2] / n,
        sum[3] / n,
        sum[4] / n,
        sum[5] / n,
    );
}

fn step(c: &mut Criterion) {
    let only = std::env::var("STEP_BENCH_SCENES").ok();
    let mut group = c.benchmark_group("step");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    for name in SCENES {
        if only.as_deref().is_some_and(|o| !o.split(',').any(|s| s == name)) {
            continue;
        }
        let mut world = load(name);
        warm(name, &mut world);
        let warmed = world.snapshot();
        group.bench_function(name, |b| steps::time_steps(b, &mut world, &warmed));
    }
    group.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
