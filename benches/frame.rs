//! Cost of preparing one viewport frame (instances, lines, points) at 5,000, 20,000 and
//! 100,000 bodies. Targets with the default layers: ≤ 2 ms at 20,000 bodies, ≤ 8 ms at 100,000.
//!
//! Each frame is built as in a running app, after a step: the world's state is new
//! ([`FrameScratch::invalidate`]) while the bodies' shapes, and so their instance layout, are
//! not. Two timings:
//! - `frame_N_cpu`: every pass on the calling thread (`FrameScratch::set_parallel(usize::MAX, _)`),
//!   timed in that thread's CPU time;
//! - `frame_N_wall`: the default layers on the calling thread alone, then on rayon's global pool
//!   (passes over 16,384 items or more shared between its threads), both timed in wall time,
//!   which counts every thread's share (and, on a loaded machine, the waits for a core).
//!
//! `paused` is a frame of an unchanged world and view (a paused app redraws each frame): it is
//! the last frame with new uniforms.
//!
//! `cargo bench --no-default-features --features gui --bench frame -- --warm-up-time 1 --measurement-time 3`

use collidoscope::app::viewport::{Camera, ColorMode, FrameScratch, Layers, ViewOptions, build_frame_into};
use collidoscope::debug_draw::DebugDraw;
use collidoscope::dynamics::{BodyKind, Material};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Generator, Rotation, Scene, ShapeDesc};
use collidoscope::world::World;
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// A floor and four touching blocks (boxes, spheres, capsules, hulls), `5,000 × k` bodies in
/// all (each block `25 × k` rows deep), stepped once so contacts, pairs and velocities exist for
/// the debug layers.
fn world(k: u32) -> World {
    let grid = |counts: (u32, u32, u32), shape: ShapeDesc, origin: Vec3, spacing: Vec3| Generator::Grid {
        counts,
        shape,
        origin,
        spacing,
        rotation: Rotation::default(),
        kind: BodyKind::Dynamic,
        linear_velocity: Vec3::ZERO,
        material: Material::default(),
    };
    let hull: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new((i & 1) as f32 - 0.5, ((i >> 1) & 1) as f32 * 0.8, ((i >> 2) & 1) as f32 - 0.5))
        .chain([Vec3::new(0.0, 1.1, 0.0)])
        .collect();
    let depth = 25 * k;
    let half_z = 60.0f32.max(depth as f32 * 0.55 + 2.0);
    let mut floor = BodyDesc::new(
        ShapeDesc::Cuboid { half_extents: Vec3::new(60.0, 0.5, half_z) },
        Vec3::new(0.0, -0.5, depth as f32 * 0.5 - 12.0),
    );
    floor.kind = BodyKind::Static;
    let scene = Scene {
        bodies: vec![floor],
        generators: vec![
            grid(
                (25, 4, depth),
                ShapeDesc::Cuboid { half_extents: Vec3::splat(0.5) },
                Vec3::new(-40.0, 0.5, -12.0),
                Vec3::ONE,
            ),
            grid((20, 3, depth), ShapeDesc::Sphere { radius: 0.5 }, Vec3::new(-10.0, 0.5, -12.0), Vec3::ONE),
            grid(
                (20, 1, depth),
                ShapeDesc::Capsule { half_height: 0.4, radius: 0.4 },
                Vec3::new(12.0, 0.8, -12.0),
                Vec3::splat(0.8),
            ),
            grid((20, 1, depth), ShapeDesc::convex_hull(hull), Vec3::new(30.0, 0.0, -12.0), Vec3::splat(1.05)),
        ],
        ..Scene::default()
    };
    let mut w = scene.build().expect("the benchmark scene is valid");
    assert_eq!(w.bodies().len() as u32, 5_000 * k + 1);
    w.step();
    w
}

#[path = "common/cpu.rs"]
mod cpu;
use cpu::thread_cpu_time;

/// Times `f` per call: thread CPU time where the system reports it, wall time otherwise.
fn time_calls(iters: u64, mut f: impl FnMut()) -> Duration {
    let (cpu0, wall0) = (thread_cpu_time(), Instant::now());
    for _ in 0..iters {
        f();
    }
    match (cpu0, thread_cpu_time()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => wall0.elapsed(),
    }
}

/// Times `f` per call in wall time.
fn time_wall(iters: u64, mut f: impl FnMut()) -> Duration {
    let wall0 = Instant::now();
    for _ in 0..iters {
        f();
    }
    wall0.elapsed()
}

fn bench(c: &mut Criterion) {
    let camera = Camera { distance: 90.0, ..Camera::default() };
    let size = [1600.0, 1000.0];
    let default = ViewOptions { selected: Some(17), ..ViewOptions::default() };
    let bodies_only = ViewOptions {
        layers: Layers { contact_points: false, ccd: false, joints: false, ..Layers::default() },
        ..default.clone()
    };
    let all = ViewOptions { layers: Layers::all(), ..default.clone() };
    let islands = ViewOptions { color_mode: ColorMode::Island, ..default.clone() };
    let speed = ViewOptions { color_mode: ColorMode::Speed, ..default.clone() };

    for k in [1, 4, 20] {
        let w = world(k);
        // What the contact markers are read from: most of a default-layers frame at the
        // larger sizes, where the pass is bound by how fast one core reads memory.
        let contacts = w.contacts();
        eprintln!(
            "frame_{}: {} contacts ({} MB), {} contact points",
            5_000 * k,
            contacts.len(),
            std::mem::size_of_val(contacts) / 1_000_000,
            contacts.iter().map(|c| c.manifold.len()).sum::<usize>()
        );
        let mut scratch = FrameScratch::default();
        scratch.set_parallel(usize::MAX, 4096);
        let mut group = c.benchmark_group(format!("frame_{}_cpu", 5_000 * k));
        // Every variant at 5,000 bodies; the default layers and bodies alone at the larger sizes.
        let views: &[(&str, &ViewOptions)] = if k == 1 {
            &[
                ("bodies_grid_axes", &bodies_only),
                ("default_layers", &default),
                ("island_colors", &islands),
                ("speed_colors", &speed),
                ("all_layers", &all),
            ]
        } else {
            &[("bodies_grid_axes", &bodies_only), ("default_layers", &default)]
        };
        let frame = |view: &ViewOptions, scratch: &mut FrameScratch, running: bool| {
            if running {
                scratch.invalidate();
            }
            let f = build_frame_into(black_box(&w), view, &camera, size, 1.0, scratch);
            scratch.recycle(black_box(f));
        };
        for &(name, view) in views {
            group
                .bench_function(name, |b| b.iter_custom(|iters| time_calls(iters, || frame(view, &mut scratch, true))));
        }
        group.bench_function("paused_default_layers", |b| {
            b.iter_custom(|iters| time_calls(iters, || frame(&default, &mut scratch, false)))
        });
        if k == 1 {
            // The engine's share: describing every debug primitive, before the viewer converts it.
            group.bench_function("engine_debug_draw_all", |b| {
                let mut d = DebugDraw::default();
                b.iter_custom(|iters| {
                    time_calls(iters, || {
                        d.clear();
                        black_box(&w).debug_draw(&mut d);
                    })
                })
            });
        }
        group.finish();
        if k > 1 {
            // The same frame on one thread and shared, both in wall time: on a loaded machine
            // wall time counts the waits for a core too, so compare the two within one run.
            let mut shared = FrameScratch::default();
            let mut group = c.benchmark_group(format!("frame_{}_wall", 5_000 * k));
            group.bench_function("default_layers_1_thread", |b| {
                b.iter_custom(|iters| time_wall(iters, || frame(&default, &mut scratch, true)))
            });
            group.bench_function(format!("default_layers_{}_threads", rayon::current_num_threads()), |b| {
                b.iter_custom(|iters| time_wall(iters, || frame(&default, &mut shared, true)))
            });
            group.finish();
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
