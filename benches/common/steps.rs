//! The step timing shared by `benches/step.rs`, `benches/parallel.rs` and `benches/ccd.rs`:
//! each sample steps a warmed world, restoring the warmed snapshot every [`WINDOW`] steps so
//! that every sample measures the same stretch of the scene.

use collidoscope::World;
use collidoscope::world::Snapshot;
use criterion::Bencher;
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Steps timed before the world goes back to its warmed state.
pub const WINDOW: usize = 100;

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
