//! Mesh mid phase (issue 19): building the triangle BVH of a 1M-triangle grid (target under
//! 1 s), the whole mesh build (normals, adjacency, BVH), box queries against it, and one box's
//! contact with the 1M-triangle grid against the same on a 128-triangle one (the mid phase
//! should make the mesh's size nearly free). And the rain: `scenes/rain_1000.ron` (1,000 mixed
//! bodies in a walled pit) on its flat box floor, against the same rain on a 100,352-triangle
//! terrain, as a height field and as a triangle mesh (target: within 2x the box floor).
//!
//! Run: `cargo bench --no-default-features --bench mesh` (`MESH_BENCH=rain` or `=build` runs one
//! group; `MESH_RAIN=heightfield` only the rains whose name has that; `MESH_RAIN_STEPS=N` steps
//! each rain N times untimed, for an instruction counter).

// The rain is built here, not loaded by `steps::load_awake`.
#[allow(dead_code)]
#[path = "common/steps.rs"]
mod steps;

use collidoscope::geometry::Shape;
use collidoscope::geometry::{Aabb, MeshBvh, TriangleMesh};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::narrowphase::{MeshRef, Tolerance, contact_mesh_shape};
use collidoscope::scene::{Scene, ShapeDesc};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

/// The `2 n²` triangles of an `n x n`-cell grid of `(n + 1)²` row-major vertices, two per cell.
fn grid_triangles(n: u32) -> Vec<[u32; 3]> {
    let mut t = Vec::with_capacity(2 * (n * n) as usize);
    for r in 0..n {
        for c in 0..n {
            let i = r * (n + 1) + c;
            t.push([i, i + n + 1, i + n + 2]);
            t.push([i, i + n + 2, i + 1]);
        }
    }
    t
}

/// A wavy `n x n`-cell grid: `2 n²` triangles.
fn grid(n: u32) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let v = (0..=n)
        .flat_map(|r| {
            (0..=n).map(move |c| {
                let (x, z) = (c as Real * 0.5, r as Real * 0.5);
                Vec3::new(x, (x * 0.3).sin() * (z * 0.2).cos(), z)
            })
        })
        .collect();
    let t = grid_triangles(n);
    (v, t)
}

fn build(c: &mut Criterion) {
    let mut g = c.benchmark_group("mesh");
    g.sample_size(10).measurement_time(Duration::from_secs(8)).warm_up_time(Duration::from_secs(1));
    let (v, t) = grid(708);
    assert!(t.len() >= 1_000_000);
    let boxes: Vec<Aabb> = t.iter().map(|tri| Aabb::from_points(tri.map(|i| v[i as usize]))).collect();
    g.bench_function("bvh_build_1m", |b| b.iter(|| black_box(MeshBvh::build(black_box(&boxes)))));
    g.bench_function("mesh_build_1m", |b| b.iter(|| black_box(TriangleMesh::new(v.clone(), t.clone()).unwrap())));
    let m = TriangleMesh::new(v, t).unwrap();
    g.bench_function("box_query_1m_1m_box", |b| {
        let mut k = 0u32;
        b.iter(|| {
            k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let p = Vec3::new((k % 350) as Real, 0.0, ((k >> 12) % 350) as Real);
            let mut n = 0;
            m.for_each_in_aabb(&Aabb::from_center_half_extents(p, Vec3::splat(0.5)), |_, _, _| n += 1);
            black_box(n)
        })
    });
    let small = {
        let (v, t) = grid(8);
        TriangleMesh::new(v, t).unwrap()
    };
    let tol = Tolerance { margin: 0.02, epsilon: 1e-6 };
    let b = Shape::cuboid(Vec3::new(0.4, 0.25, 0.3));
    for (name, mesh) in [("box_contact_128", &small), ("box_contact_1m", &m)] {
        // The box sunk 5 mm into the surface under a point of the grid, turned.
        let (x, z) = (1.3, 1.7);
        let y = (x * 0.3 as Real).sin() * (z * 0.2 as Real).cos();
        let pose = Pose::new(Vec3::new(x, y + 0.245, z), Quat::from_rotation_y(0.4));
        assert!(contact_mesh_shape(MeshRef::Triangles(mesh), &Pose::IDENTITY, &b, &pose, tol).is_some());
        g.bench_function(name, |bch| {
            bch.iter(|| {
                black_box(contact_mesh_shape(MeshRef::Triangles(mesh), &Pose::IDENTITY, &b, black_box(&pose), tol))
            })
        });
    }
    g.finish();
}

/// Cells per side of the rain's terrain: `2 x 224²` = 100,352 triangles.
const TERRAIN_CELLS: usize = 224;
/// The terrain's cell, m: 56 m across, bodies a cell or two wide.
const TERRAIN_CELL: Real = 0.25;

/// The terrain's height at `(x, z)`: gentle waves of 12 cm around zero.
fn terrain_height(x: Real, z: Real) -> Real {
    0.12 * (x * 0.9).sin() * (z * 0.7).cos()
}

/// `scenes/rain_1000.ron` with its floor replaced by `floor` (`None`: the box floor as it is);
/// the pit's walls reach below the terrain's troughs.
fn rain_on(floor: Option<ShapeDesc>) -> collidoscope::World {
    let path = format!("{}/scenes/rain_1000.ron", env!("CARGO_MANIFEST_DIR"));
    let mut scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    if let Some(shape) = floor {
        scene.bodies[0].shape = shape;
        scene.bodies[0].position = Vec3::ZERO;
        for wall in &mut scene.bodies[1..5] {
            if let ShapeDesc::Cuboid { half_extents } = &mut wall.shape {
                half_extents.y = 2.5;
                wall.position.y = 1.5;
            }
        }
    }
    let mut world = scene.build().unwrap_or_else(|e| panic!("{e}"));
    let mut settings = world.settings.clone();
    settings.sleeping = false;
    world.set_settings(settings);
    world
}

/// The terrain as a height field, centred on the origin.
fn terrain_heightfield() -> ShapeDesc {
    let n = TERRAIN_CELLS + 1;
    let half = TERRAIN_CELLS as Real * TERRAIN_CELL / 2.0;
    let heights = (0..n)
        .map(|r| {
            (0..n).map(|c| terrain_height(c as Real * TERRAIN_CELL - half, r as Real * TERRAIN_CELL - half)).collect()
        })
        .collect();
    ShapeDesc::HeightField { cell: TERRAIN_CELL, heights }
}

/// The same terrain as a triangle mesh, split along the same diagonals, facing +y.
fn terrain_mesh() -> ShapeDesc {
    let n = TERRAIN_CELLS as u32;
    let half = TERRAIN_CELLS as Real * TERRAIN_CELL / 2.0;
    let v = (0..=n)
        .flat_map(|r| {
            (0..=n).map(move |c| {
                let (x, z) = (c as Real * TERRAIN_CELL - half, r as Real * TERRAIN_CELL - half);
                Vec3::new(x, terrain_height(x, z), z)
            })
        })
        .collect();
    let t = grid_triangles(n);
    ShapeDesc::triangle_mesh(v, t)
}

/// Steps before timing: the rain has landed and piles up on the floor (4 s).
const RAIN_SETTLE_STEPS: usize = 240;

/// Makes a rain's floor (`None`: the box floor as it is).
type Floor = fn() -> Option<ShapeDesc>;

/// The rains whose name contains `MESH_RAIN` (all without it), settled: their name and world.
fn settled_rains() -> Vec<(&'static str, collidoscope::World)> {
    let only = std::env::var("MESH_RAIN").unwrap_or_default();
    let floors: [(&str, Floor); 3] = [
        ("rain_box_floor", || None),
        ("rain_heightfield_100k", || Some(terrain_heightfield())),
        ("rain_trimesh_100k", || Some(terrain_mesh())),
    ];
    let picked = floors.into_iter().filter(|(name, _)| name.contains(only.as_str()));
    picked
        .map(|(name, floor)| {
            let mut world = rain_on(floor());
            for _ in 0..RAIN_SETTLE_STEPS {
                world.step();
            }
            (name, world)
        })
        .collect()
}

/// `steps` steps of `world`, in a function of its own so that an instruction counter can count
/// them alone (`valgrind --tool=callgrind --toggle-collect='*counted_steps*'`).
#[inline(never)]
fn counted_steps(world: &mut collidoscope::World, steps: usize) {
    for _ in 0..steps {
        black_box(&mut *world).step();
    }
}

fn rain(c: &mut Criterion) {
    // `MESH_RAIN_STEPS=N`: no timing, N steps of each rain for an instruction counter.
    if let Some(n) = std::env::var("MESH_RAIN_STEPS").ok().and_then(|n| n.parse().ok()) {
        for (name, mut world) in settled_rains() {
            counted_steps(&mut world, n);
            let p = world.profile();
            eprintln!(
                "{name}: {n} steps counted; the last: {} pairs, {} from the pair cache, {} manifolds, {} contact points",
                p.pairs, p.pair_cache_hits, p.manifolds, p.contacts
            );
        }
        return;
    }
    let mut g = c.benchmark_group("mesh_rain");
    g.sample_size(10).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    for (name, world) in settled_rains() {
        steps::bench_warmed(&mut g, name, world);
    }
    g.finish();
}

fn selected(c: &mut Criterion) {
    let only = std::env::var("MESH_BENCH").ok();
    if only.as_deref().is_none_or(|o| o == "build") {
        build(c);
    }
    if only.as_deref().is_none_or(|o| o == "rain") {
        rain(c);
    }
}

criterion_group!(benches, selected);
criterion_main!(benches);
