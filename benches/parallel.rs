//! Milliseconds per step of the benchmark scenes on 1 and 2 threads: scenes/large_pyramid.ron
//! (5,050 cubes, one island), scenes/many_pyramids.ron (10,780 cubes, 196 islands) and
//! `rain_100k`, built here: 100,000 bodies of `rain_1000`'s four shapes falling onto a static
//! floor (issue #37's 100,000-body rain). Sleeping is off so every step does the full work; every
//! other setting is the default (`ccd: Speculative`). The speed-up is the ratio of the two rows.
//!
//! As benches/step.rs: each world is warmed for a few steps (their mean phase times are
//! printed, to show where time goes), and every `steps::WINDOW` (100) timed steps it is put back, untimed,
//! to its warmed state. The rain is first stepped [`RAIN_PRE_STEPS`] more, so the timed stretch
//! is the one where it lands and piles up. Before timing, the warmed state's hash on every
//! thread count is checked against the serial one: a figure counts only for a step that gives
//! the serial bits.
//!
//! Run: `cargo bench --no-default-features --bench parallel`. `PARALLEL_BENCH_THREADS=1,2,4`
//! changes the counts; `STEP_BENCH_SCENES=large_pyramid` limits the scenes
//! (`STEP_BENCH_SCENES=rain_100k` runs the rain alone).

use collidoscope::World;
use collidoscope::dynamics::{BodyKind, Material};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Generator, Scene, ShapeDesc};
#[path = "common/steps.rs"]
mod steps;

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use std::time::Duration;

const SCENES: [&str; 3] = ["large_pyramid", "many_pyramids", RAIN];
/// The 100,000-body rain, built in code (a scene file of its size would only repeat this).
const RAIN: &str = "rain_100k";
/// Steps the rain runs before its warm-up: after the warm-up's 10 more the bodies that started
/// in the lowest 3.2 m (a sixth) have landed and the rest are falling, so the timed window
/// (steps 30 to 130) holds the landings: the last land at about step 100.
const RAIN_PRE_STEPS: usize = 20;

/// 100,000 bodies (spheres, cubes, capsules and rocks of `scenes/rain_1000.ron`) at the spacing
/// of `scenes/broadphase_uniform_rain.ron` (its 56 × 20 × 56 m box for 3,000 bodies, widened to
/// 323 × 20 × 323 m for 100,000), placed clear of each other and falling at 4 m/s onto a static
/// floor; the default settings with sleeping off.
fn rain_100k() -> World {
    // 28 m × √(100,000 / 3,000).
    const HALF: f32 = 161.6;
    let mut floor = BodyDesc::new(
        ShapeDesc::Cuboid { half_extents: Vec3::new(HALF + 2.0, 0.5, HALF + 2.0) },
        Vec3::new(0.0, -0.5, 0.0),
    );
    floor.kind = BodyKind::Static;
    let rock = [
        (0.3, 0.0, 0.0),
        (-0.26, 0.04, 0.08),
        (0.0, 0.28, 0.0),
        (0.04, -0.22, 0.04),
        (0.0, 0.0, 0.25),
        (0.08, 0.08, -0.3),
        (-0.15, 0.19, -0.15),
        (0.19, -0.15, 0.19),
    ];
    let scene = Scene {
        bodies: vec![floor],
        generators: vec![Generator::Rain {
            count: 100_000,
            seed: 37,
            min: Vec3::new(-HALF, 0.4, -HALF),
            max: Vec3::new(HALF, 20.0, HALF),
            shapes: vec![
                ShapeDesc::Sphere { radius: 0.25 },
                ShapeDesc::Cuboid { half_extents: Vec3::splat(0.25) },
                ShapeDesc::Capsule { half_height: 0.2, radius: 0.15 },
                ShapeDesc::convex_hull(rock.iter().map(|&(x, y, z)| Vec3::new(x, y, z)).collect()),
            ],
            random_rotation: true,
            linear_velocity: Vec3::new(0.0, -4.0, 0.0),
            material: Material::default(),
            separated: true,
        }],
        ..Scene::default()
    };
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(world.bodies().len(), 100_001);
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    world.set_settings(settings);
    world
}

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
