//! What `benches/step.rs`, `benches/parallel.rs`, `benches/ccd.rs` and `benches/mesh.rs` share: a benchmark
//! scene with sleeping off, a few warm-up steps whose mean phase times are printed, and the
//! timing, which restores the warmed snapshot every [`WINDOW`] steps so that every sample
//! measures the same stretch of the scene.

use collidoscope::world::Snapshot;
use collidoscope::{Scene, World};
use criterion::measurement::WallTime;
use criterion::{Bencher, BenchmarkGroup};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Steps timed before the world goes back to its warmed state.
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

/// Times `world.step()` only (not the restores), from `warmed` onwards.
pub fn time_steps(b: &mut Bencher, world: &mut World, warmed: &Snapshot) {
    let mut since = 0;
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            if since == WINDOW {
                world.restore(warmed).unwrap_or_else(|e| panic!("{e}"));
                since = 0;
            }
            let t = Instant::now();
            black_box(&mut *world).step();
            total += t.elapsed();
            since += 1;
        }
        total
    })
}
