//! The cost of continuous collision: milliseconds per step on scenes/rain_1000.ron with every
//! dynamic body marked `bullet` (so every one is swept every step), sleeping off, for each CCD
//! mode. Each world is warmed for a few steps first and the mean phase times of those steps are
//! printed; every `steps::WINDOW` (100) steps it is put back (untimed) to its warmed state, so the timed steps
//! are always the rain's first seconds.
//!
//! Run: `cargo bench --no-default-features --bench ccd`. Sized for a 2-core machine.

use collidoscope::ccd::CcdMode;
use collidoscope::{Scene, World};
#[path = "common/steps.rs"]
mod steps;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

const WARM_STEPS: usize = 10;

fn load(mode: CcdMode) -> World {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/rain_1000.ron");
    let scene = Scene::load(path).unwrap_or_else(|e| panic!("{e}"));
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    settings.ccd = mode;
    world.set_settings(settings);
    for i in 0..world.bodies().len() {
        if world.bodies()[i].is_dynamic() {
            world.body_mut(i).bullet = true;
        }
    }
    world
}

fn ccd(c: &mut Criterion) {
    let mut group = c.benchmark_group("ccd_rain_1000_bullets");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    for &mode in CcdMode::ALL {
        let mut world = load(mode);
        let mut sum = [0.0f64; 6];
        let mut events = 0;
        for _ in 0..WARM_STEPS {
            world.step();
            let p = world.profile();
            for (s, x) in sum.iter_mut().zip(p.phase_ms().iter().chain([p.total_ms].iter())) {
                *s += x;
            }
            events += p.toi_events;
        }
        let n = WARM_STEPS as f64;
        eprintln!(
            "{}: mean ms over {WARM_STEPS} warm-up steps: broad {:.2}, narrow {:.2}, ccd {:.2}, solve {:.2}, \
             integrate {:.2}, total {:.2}; {} pairs, {events} TOI events",
            mode.cli_name(),
            sum[0] / n,
            sum[1] / n,
            sum[2] / n,
            sum[3] / n,
            sum[4] / n,
            sum[5] / n,
            world.profile().pairs,
        );
        let warmed = world.snapshot();
        group.bench_function(mode.cli_name(), |b| steps::time_steps(b, &mut world, &warmed));
    }
    group.finish();
}

criterion_group!(benches, ccd);
criterion_main!(benches);
