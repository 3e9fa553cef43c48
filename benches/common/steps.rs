//! What `benches/step.rs`, `benches/parallel.rs`, `benches/ccd.rs` and `benches/mesh.rs` share: a benchmark
//! scene with sleeping off, a few warm-up steps whose mean phase times are printed, and the
//! timing, which runs whole windows of [`WINDOW`] steps from the warmed snapshot, so that every
//! sample measures the same stretch of the scene, all of it.

use collidoscope::world::Snapshot;
use collidoscope::{Scene, World};
use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Steps timed from the warmed state before it is put back: the stretch every sample measures.
pub const WINDOW: usize = 100;
/// Steps run before timing (contacts and the warm-starting cache in place).
pub const WARM_STEPS: usize = 10;

/// `scenes/NAME.ron` with sleeping off, so every step does the full work.
pub fn load_awake(name: &str) -> World {
    let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    world.set_settings(settings);
    world
}

/// Steps `world` [`WARM_STEPS`] times, calling `each` after every step, and returns the
/// description of the warm-up: mean ms of each phase and of the step.
pub fn warm(world: &mut World, mut each: impl FnMut(&World)) -> String {
    let mut sum = [0.0f64; 6];
    for _ in 0..WARM_STEPS {
        world.step();
        let p = world.profile();
        for (s, x) in sum.iter_mut().zip(p.phase_ms().iter().chain([p.total_ms].iter())) {
            *s += x;
        }
        each(world);
    }
    let m = sum.map(|s| s / WARM_STEPS as f64);
    format!(
        "mean ms over {WARM_STEPS} warm-up steps: broad {:.2}, narrow {:.2}, ccd {:.2}, solve {:.2}, integrate {:.2}, \
         total {:.2}",
        m[0], m[1], m[2], m[3], m[4], m[5]
    )
}

/// Warms `world` up ([`warm`]), prints the warm-up with its body, pair and contact counts under
/// `name`, and times its steps from there as `name` in `group`.
#[allow(dead_code)] // the ccd and parallel benches time their own way
pub fn bench_warmed(group: &mut BenchmarkGroup<'_, WallTime>, name: &str, mut world: World) {
    let warm = warm(&mut world, |_| {});
    let p = world.profile();
    eprintln!(
        "{name}: {} bodies, {} pairs, {} manifolds, {} contact points; {warm}",
        p.bodies, p.pairs, p.manifolds, p.contacts
    );
    let warmed = world.snapshot();
    group.bench_function(name, |b| time_steps(b, &mut world, &warmed));
}

/// Times `world.step()` only (not the restores), over whole windows: a sample of `iters` steps
/// runs the [`WINDOW`] steps from `warmed` as many times as cover `iters` (at least once) and
/// counts their mean step `iters` times. Steps differ along the window (a pyramid settling, a
/// rain landing), and criterion's samples grow in length (`iters` = d, 2d, …, 10d), so a
/// sample of part of the window weighs whichever stretch it starts at: its slope estimate then
/// leans on the stretches the longest samples happen to cover, which differ between thread
/// counts (on `large_pyramid`, 1.5× for 2 threads against 1.75× over whole windows).
pub fn time_steps(b: &mut Bencher, world: &mut World, warmed: &Snapshot) {
    b.iter_custom(|iters| {
        let windows = iters.div_ceil(WINDOW as u64).max(1);
        let mut total = Duration::ZERO;
        for _ in 0..windows {
            world.restore(warmed).unwrap_or_else(|e| panic!("{e}"));
            for _ in 0..WINDOW {
                let t = Instant::now();
                black_box(&mut *world).step();
                total += t.elapsed();
            }
        }
        total.mul_f64(iters as f64 / (windows * WINDOW as u64) as f64)
    })
}
