//! The cost of continuous collision: milliseconds per step on scenes/rain_1000.ron with every
//! dynamic body marked `bullet` (so every one is swept every step), sleeping off, for each CCD
//! mode. Each world is warmed for a few steps first and the mean phase times of those steps are
//! printed; each sample times whole windows of `steps::WINDOW` (100) steps from the warmed
//! state (put back, untimed, before each), so every figure is the mean step of the rain's
//! first seconds.
//!
//! Run: `cargo bench --no-default-features --bench ccd`. Sized for a 2-core machine.

use collidoscope::World;
use collidoscope::ccd::CcdMode;
#[path = "common/steps.rs"]
mod steps;

use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

fn load(mode: CcdMode) -> World {
    let mut world = steps::load_awake("rain_1000");
    let mut settings = world.settings.clone();
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
        let mut events = 0;
        let warm = steps::warm(&mut world, |w| events += w.profile().toi_events);
        eprintln!("{}: {warm}; {} pairs, {events} TOI events", mode.cli_name(), world.profile().pairs);
        let warmed = world.snapshot();
        group.bench_function(mode.cli_name(), |b| steps::time_steps(b, &mut world, &warmed));
    }
    group.finish();
}

criterion_group!(benches, ccd);
criterion_main!(benches);
