//! The mesh mid phase (issue 19) against brute force: box queries return exactly the triangles
//! whose boxes overlap, ray casts the nearest triangle hit, on random triangle soups and grids.

use collidoscope::geometry::{Aabb, HeightField, Ray, TriangleMesh, ray_triangle};
use collidoscope::math::{Real, Vec3};
use proptest::prelude::*;

fn vec3(r: std::ops::Range<Real>) -> impl Strategy<Value = Vec3> {
    (r.clone(), r.clone(), r).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

/// A soup of separate triangles (no shared edges, so any winding is consistent), skipping
/// slivers the mesh rejects.
fn soup() -> impl Strategy<Value = TriangleMesh> {
    prop::collection::vec((vec3(-5.0..5.0), vec3(-0.8..0.8), vec3(-0.8..0.8)), 1..300).prop_filter_map(
        "all triangles degenerate",
        |tris| {
            let mut v = vec![];
            let mut t = vec![];
            for (a, e1, e2) in tris {
                let n = e1.cross(e2).length();
                let longest = e1.length_squared().max(e2.length_squared()).max((e2 - e1).length_squared());
                if n > 1e-3 * longest {
                    let i = v.len() as u32;
                    v.extend([a, a + e1, a + e2]);
                    t.push([i, i + 1, i + 2]);
                }
            }
            TriangleMesh::new(v, t).ok()
        },
    )
}

fn brute_box(m: &TriangleMesh, q: &Aabb) -> Vec<u32> {
    (0..m.len() as u32).filter(|&t| Aabb::from_points(m.triangle(t)).overlaps(q)).collect()
}

proptest! {
    #![proptest_config(crate::seeded::fixed(200, 0xb5f0_5eed))]

    #[test]
    fn box_queries_match_brute_force(m in soup(), lo in vec3(-6.0..6.0), size in vec3(0.0..4.0)) {
        let boxes: Vec<Aabb> = (0..m.len() as u32).map(|t| Aabb::from_points(m.triangle(t))).collect();
        prop_assert_eq!(m.bvh().validate(&boxes), Ok(()));
        let q = Aabb::new(lo, lo + size);
        let mut got = vec![];
        m.for_each_in_aabb(&q, |t, _, _| got.push(t));
        got.sort_unstable();
        prop_assert_eq!(got, brute_box(&m, &q), "query {:?}", q);
    }

    #[test]
    fn ray_casts_match_brute_force(m in soup(), o in vec3(-7.0..7.0), d in vec3(-1.0..1.0), max_t in 0.5..30.0 as Real) {
        let ray = Ray::new(o, d);
        let brute = (0..m.len() as u32).filter_map(|t| ray_triangle(&ray, &m.triangle(t), max_t)).reduce(Real::min);
        let got = m.ray_cast(&ray, max_t);
        prop_assert_eq!(got.map(|h| h.t), brute, "ray {:?} max_t {}", ray, max_t);
        if let Some(h) = got {
            prop_assert!(h.normal.dot(ray.dir) <= 0.0, "normal {:?} along ray {:?}", h.normal, ray);
        }
    }

    #[test]
    fn height_field_box_queries_match_brute_force(
        rows in 2usize..12, cols in 2usize..12, cell in 0.1..2.0 as Real, seed in any::<u64>(),
        lo in vec3(-8.0..8.0), size in vec3(0.0..5.0),
    ) {
        let heights = (0..rows * cols).map(|i| ((seed.wrapping_mul(i as u64 + 1) >> 40) % 1000) as Real * 0.003).collect();
        let h = HeightField::new(rows, cols, cell, heights).unwrap();
        let q = Aabb::new(lo, lo + size);
        let mut got = vec![];
        h.for_each_in_aabb(&q, |t, _, _| got.push(t));
        let want: Vec<u32> = (0..h.len() as u32).filter(|&t| Aabb::from_points(h.triangle(t)).overlaps(&q)).collect();
        prop_assert_eq!(got, want, "query {:?}", q);
    }
}

/// A closed, consistently wound mesh: every edge has a neighbour, and neighbours are mutual.
#[test]
fn closed_grid_mesh_has_mutual_adjacency() {
    let n = 20u32;
    let v: Vec<Vec3> = (0..=n).flat_map(|r| (0..=n).map(move |c| Vec3::new(c as Real, 0.0, r as Real))).collect();
    let mut t = vec![];
    for r in 0..n {
        for c in 0..n {
            let i = r * (n + 1) + c;
            t.push([i, i + n + 1, i + n + 2]);
            t.push([i, i + n + 2, i + 1]);
        }
    }
    let m = TriangleMesh::new(v, t).unwrap();
    let mut inner = 0;
    for (i, adj) in m.adjacency().iter().enumerate() {
        for &j in adj {
            if j != collidoscope::geometry::NO_NEIGHBOUR {
                inner += 1;
                assert!(m.adjacency()[j as usize].contains(&(i as u32)), "{i} -> {j} not mutual");
            }
        }
        assert!(m.normals()[i].y > 0.999, "triangle {i} normal {:?}", m.normals()[i]);
    }
    // Each interior edge seen from both sides: 3 per cell minus the boundary, counted twice.
    let edges = 3 * n * n + 2 * n;
    assert_eq!(inner, 2 * (edges - 4 * n) as usize);
}
