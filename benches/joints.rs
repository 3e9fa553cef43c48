//! A 1,000-link chain stepped by Collidoscope and by rapier3d in one process, each at its own
//! defaults, on one thread: `benches/chain_1000.ron`, 1,000 capsule links of 10 cm ball-jointed
//! end to end hanging from a point fixed in the world (sleeping off, so every step does the
//! full work; no floor, so the cost is the joints'). Both worlds keep stepping through the
//! samples.
//!
//! Run: `cargo bench --no-default-features --features rapier --bench joints`. Sized for a 2-core
//! machine: few, short samples.

use collidoscope::peer::RapierWorld;
use collidoscope::{Scene, World};
use criterion::{Criterion, criterion_group, criterion_main};
use std::time::Duration;

fn chain() -> World {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/benches/chain_1000.ron");
    let mut w = Scene::load(path).expect("the bench's scene").build().expect("the bench's world");
    w.set_threads(1);
    w
}

fn joints(c: &mut Criterion) {
    let mut group = c.benchmark_group("chain_1000");
    group.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(8));
    let mut ours = chain();
    assert_eq!(ours.joints().len(), 1000);
    group.bench_function("collidoscope", |b| b.iter(|| ours.step()));
    let mut rapier = RapierWorld::from_world(&chain());
    group.bench_function("rapier3d", |b| b.iter(|| rapier.step()));
    group.finish();
}

criterion_group!(benches, joints);
criterion_main!(benches);
