//! Unit meshes the instanced renderer scales and places: sphere, cube, open cylinder, and one
//! flat-shaded mesh per convex hull, triangle mesh and height field. Triangles wind
//! counter-clockwise seen from outside.

use crate::geometry::{ConvexHull, Shape};
use crate::math::Vec3;
use bytemuck::{Pod, Zeroable};
use std::f32::consts::{PI, TAU};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct MeshVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshData {
    pub vertices: Vec<MeshVertex>,
    pub indices: Vec<u32>,
}

impl MeshData {
    fn vertex(&mut self, p: Vec3, n: Vec3) -> u32 {
        self.vertices.push(MeshVertex { position: p.to_array(), normal: n.to_array() });
        (self.vertices.len() - 1) as u32
    }

    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// A UV sphere of radius 1 with smooth normals.
pub fn unit_sphere(segments: u32, rings: u32) -> MeshData {
    let mut m = MeshData::default();
    for r in 0..=rings {
        let theta = PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = TAU * s as f32 / segments as f32;
            let n = Vec3::new(theta.sin() * phi.cos(), theta.cos(), -theta.sin() * phi.sin());
            m.vertex(n, n);
        }
    }
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, b) = (r * row + s, (r + 1) * row + s);
            if r != 0 {
                m.indices.extend([a, b, a + 1]);
            }
            if r + 1 != rings {
                m.indices.extend([a + 1, b, b + 1]);
            }
        }
    }
    m
}

/// The cube `[-1, 1]³` with one flat normal per face.
pub fn unit_cube() -> MeshData {
    let mut m = MeshData::default();
    for axis in 0..3 {
        for sign in [-1.0f32, 1.0] {
            let mut n = Vec3::ZERO;
            n[axis] = sign;
            let mut u = Vec3::ZERO;
            u[(axis + 1) % 3] = 1.0;
            let v = n.cross(u);
            let base = m.vertex(n - u - v, n);
            m.vertex(n + u - v, n);
            m.vertex(n + u + v, n);
            m.vertex(n - u + v, n);
            m.indices.extend([base, base + 1, base + 2, base, base + 2, base + 3]);
        }
    }
    m
}

/// The side of a cylinder of radius 1 from y = -1 to y = 1, without caps: capsules close it
/// with two sphere instances.
pub fn unit_cylinder(segments: u32) -> MeshData {
    let mut m = MeshData::default();
    for s in 0..=segments {
        let phi = TAU * s as f32 / segments as f32;
        let n = Vec3::new(phi.cos(), 0.0, -phi.sin());
        m.vertex(n + Vec3::Y, n);
        m.vertex(n - Vec3::Y, n);
    }
    for s in 0..segments {
        let (top, bottom) = (2 * s, 2 * s + 1);
        m.indices.extend([top, bottom, top + 2, top + 2, bottom, bottom + 2]);
    }
    m
}

/// A hull's faces, fan-triangulated, each with its own flat normal.
pub fn hull_mesh(hull: &ConvexHull) -> MeshData {
    let mut m = MeshData::default();
    let verts = hull.vertices();
    for face in hull.faces() {
        let base = m.vertices.len() as u32;
        for &i in &face.vertices {
            m.vertex(verts[i as usize], face.normal);
        }
        for k in 1..face.vertices.len().saturating_sub(1) as u32 {
            m.indices.extend([base, base + k, base + k + 1]);
        }
    }
    m
}

/// The GPU mesh of a shape drawn from its own data: a hull, or a triangle mesh or height field
/// (each triangle flat-shaded with its normal). Other shapes use the unit meshes.
pub fn custom_mesh(shape: &Shape) -> MeshData {
    let mut m = MeshData::default();
    let mut add = |tri: [Vec3; 3]| {
        let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
        let base = m.vertex(tri[0], n);
        m.vertex(tri[1], n);
        m.vertex(tri[2], n);
        m.indices.extend([base, base + 1, base + 2]);
    };
    match shape {
        Shape::ConvexHull(h) => return hull_mesh(h),
        Shape::TriangleMesh(t) => (0..t.len() as u32).for_each(|i| add(t.triangle(i))),
        Shape::HeightField(h) => (0..h.len() as u32).for_each(|i| add(h.triangle(i))),
        _ => {}
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle's winding agrees with its vertex normals (faces outward), and the
    /// signed volume (divergence theorem) matches the solid's.
    fn check_closed_outward(m: &MeshData, expected_volume: f32, tol: f32) {
        let p = |i: u32| Vec3::from(m.vertices[i as usize].position);
        let n = |i: u32| Vec3::from(m.vertices[i as usize].normal);
        let mut volume = 0.0;
        for t in m.indices.chunks(3) {
            let cross = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
            let avg_n = n(t[0]) + n(t[1]) + n(t[2]);
            assert!(cross.dot(avg_n) > 0.0, "triangle {t:?} winds inward");
            volume += p(t[0]).dot(p(t[1]).cross(p(t[2]))) / 6.0;
        }
        assert!((volume - expected_volume).abs() <= tol * expected_volume, "volume {volume} vs {expected_volume}");
    }

    #[test]
    fn cube_is_closed_and_outward() {
        let m = unit_cube();
        assert_eq!((m.vertices.len(), m.triangle_count()), (24, 12));
        check_closed_outward(&m, 8.0, 1e-5);
    }

    #[test]
    fn sphere_is_closed_and_outward() {
        let m = unit_sphere(32, 16);
        check_closed_outward(&m, 4.0 / 3.0 * PI, 0.05);
    }

    #[test]
    fn cylinder_side_faces_outward() {
        let m = unit_cylinder(16);
        assert_eq!(m.triangle_count(), 32);
        let p = |i: u32| Vec3::from(m.vertices[i as usize].position);
        for t in m.indices.chunks(3) {
            let c = (p(t[0]) + p(t[1]) + p(t[2])) / 3.0;
            let cross = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
            assert!(cross.dot(Vec3::new(c.x, 0.0, c.z)) > 0.0);
        }
    }

    #[test]
    fn hull_mesh_matches_hull_volume() {
        let pts: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new((i & 1) as f32 * 2.0, ((i >> 1) & 1) as f32, ((i >> 2) & 1) as f32 * 3.0))
            .chain([Vec3::new(1.0, 2.0, 1.5)])
            .collect();
        let hull = ConvexHull::new(&pts).unwrap();
        let m = hull_mesh(&hull);
        check_closed_outward(&m, hull.mass_properties(1.0).mass, 1e-4);
    }

    #[test]
    fn height_field_and_mesh_draw_every_triangle_facing_its_normal() {
        use crate::geometry::{HeightField, TriangleMesh};
        use std::sync::Arc;
        let h = HeightField::new(4, 5, 0.5, (0..20).map(|i| (i as f32 * 0.9).sin() * 0.2).collect()).unwrap();
        let t = TriangleMesh::new(
            vec![Vec3::ZERO, Vec3::Z, Vec3::new(1.0, 0.0, 1.0), Vec3::X, Vec3::new(0.5, 1.0, 0.5)],
            vec![[0, 1, 2], [0, 2, 3], [1, 4, 2]],
        )
        .unwrap();
        for (shape, count) in [(Shape::HeightField(Arc::new(h)), 24), (Shape::TriangleMesh(Arc::new(t)), 3)] {
            let m = custom_mesh(&shape);
            assert_eq!(m.triangle_count(), count, "{}", shape.describe());
            for tri in m.indices.chunks(3) {
                let p = |i: u32| Vec3::from(m.vertices[i as usize].position);
                let n = Vec3::from(m.vertices[tri[0] as usize].normal);
                let cross = (p(tri[1]) - p(tri[0])).cross(p(tri[2]) - p(tri[0]));
                assert!(cross.normalize().dot(n) > 0.999, "{tri:?} of {}", shape.describe());
            }
        }
    }
}
