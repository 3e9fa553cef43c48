//! Mesh mid phase (issue 19): building the triangle BVH of a 1M-triangle grid (target under
//! 1 s), the whole mesh build (normals, adjacency, BVH), box queries against it, and one box's
//! contact with the 1M-triangle grid against the same on a 128-triangle one (the mid phase
//! should make the mesh's size nearly free).

use collidoscope::geometry::Shape;
use collidoscope::geometry::{Aabb, MeshBvh, TriangleMesh};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::narrowphase::{MeshRef, Tolerance, contact_mesh_shape};
use criterion::{Criterion, criterion_group, criterion_main};
use std::hint::black_box;
use std::time::Duration;

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
    let mut t = Vec::with_capacity(2 * (n * n) as usize);
    for r in 0..n {
        for c in 0..n {
            let i = r * (n + 1) + c;
            t.push([i, i + n + 1, i + n + 2]);
            t.push([i, i + n + 2, i + 1]);
        }
    }
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

criterion_group!(benches, build);
criterion_main!(benches);
