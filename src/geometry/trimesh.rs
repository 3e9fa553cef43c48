//! Static triangle meshes: vertices, triangles, per-triangle normals and edge adjacency, all
//! computed and checked once at build, with the mid-phase BVH over the triangles.

use super::mesh_bvh::MeshBvh;
use super::{Aabb, Ray, RayHit};
use crate::math::{Real, Vec3};
use thiserror::Error;

/// No neighbour across this edge (a boundary, or an edge shared by more than two triangles).
pub const NO_NEIGHBOUR: u32 = u32::MAX;

/// Why a mesh or height field cannot be built; each names the offending element.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum MeshError {
    #[error("the mesh is empty ({vertices} vertices, {triangles} triangles)")]
    /// No vertex or no triangle.
    Empty {
        /// Vertices given.
        vertices: usize,
        /// Triangles given.
        triangles: usize,
    },
    #[error("vertex {index} is not finite: {value:?}")]
    /// A vertex with a non-finite coordinate.
    NonFiniteVertex {
        /// The vertex.
        index: usize,
        /// Its coordinates.
        value: [Real; 3],
    },
    #[error("triangle {triangle} refers to vertex {index}, but there are only {vertices}")]
    /// A triangle names a vertex that does not exist.
    IndexOutOfRange {
        /// The triangle.
        triangle: usize,
        /// The index it names.
        index: u32,
        /// Vertices there are.
        vertices: usize,
    },
    #[error("triangle {triangle} is degenerate (area {area:e})")]
    /// A triangle with (almost) no area.
    DegenerateTriangle {
        /// The triangle.
        triangle: usize,
        /// Its area, m².
        area: Real,
    },
    #[error(
        "triangles {first} and {second} wind inconsistently: both run their shared edge from vertex {from} to {to}"
    )]
    /// Two triangles run their shared edge the same way.
    InconsistentWinding {
        /// One triangle.
        first: usize,
        /// The other.
        second: usize,
        /// The edge's first vertex in both.
        from: u32,
        /// The edge's second vertex in both.
        to: u32,
    },
    #[error("the height count is {got}, but rows x columns is {rows} x {cols}")]
    /// The number of heights is not rows × columns.
    HeightCount {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
        /// Heights given.
        got: usize,
    },
    #[error("a height field needs at least 2 rows and 2 columns, got {rows} x {cols}")]
    /// Fewer than two rows or columns.
    TooFewSamples {
        /// Rows.
        rows: usize,
        /// Columns.
        cols: usize,
    },
    #[error("height ({row}, {col}) is not finite: {value}")]
    /// A height that is not finite.
    NonFiniteHeight {
        /// Its row.
        row: usize,
        /// Its column.
        col: usize,
        /// The value.
        value: Real,
    },
    #[error("the cell size must be finite and positive, got {0}")]
    /// A cell size that is not finite and positive (the value).
    BadCellSize(Real),
}

/// A triangle mesh in its local frame. Triangles wind counter-clockwise seen from the side their
/// normal points to. Built once and shared (`Arc`) by the bodies that use it.
#[derive(Clone, Debug, PartialEq)]
pub struct TriangleMesh {
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    normals: Vec<Vec3>,
    /// For triangle `t` and edge `k` (from corner `k` to corner `k + 1`), the triangle across it.
    adjacency: Vec<[u32; 3]>,
    /// Boundary edges welded to another mesh: `(3 t + k, the other triangle's normal in this
    /// mesh's frame)`, sorted.
    seams: Vec<(u32, Vec3)>,
    aabb: Aabb,
    bounding_radius: Real,
    bvh: MeshBvh,
}

/// A triangle is degenerate when its doubled area is below this fraction of its longest edge
/// squared (a sliver whose height is under one part in a million of its length).
const MIN_SHAPE: Real = 1e-6;

/// The area of a triangle the mesh check calls degenerate (doubled area below 1e-6
/// of its longest edge squared, or not a number), `None` for a sound one.
pub fn degenerate_area([a, b, c]: &[Vec3; 3]) -> Option<Real> {
    let (a, b, c) = (*a, *b, *c);
    let longest = (b - a).length_squared().max((c - b).length_squared()).max((a - c).length_squared());
    let area2 = (b - a).cross(c - a).length();
    (area2.is_nan() || area2 <= MIN_SHAPE * longest).then_some(area2 * 0.5)
}

impl TriangleMesh {
    /// Checks and builds a mesh: every vertex finite, every index in range, no degenerate
    /// triangle, and neighbours that wind their shared edge in opposite directions.
    pub fn new(vertices: Vec<Vec3>, triangles: Vec<[u32; 3]>) -> Result<Self, MeshError> {
        if vertices.is_empty() || triangles.is_empty() {
            return Err(MeshError::Empty { vertices: vertices.len(), triangles: triangles.len() });
        }
        if let Some((index, v)) = vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(MeshError::NonFiniteVertex { index, value: v.to_array() });
        }
        let mut normals = Vec::with_capacity(triangles.len());
        for (t, tri) in triangles.iter().enumerate() {
            if let Some(&index) = tri.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(MeshError::IndexOutOfRange { triangle: t, index, vertices: vertices.len() });
            }
            let [a, b, c] = tri.map(|i| vertices[i as usize]);
            if let Some(area) = degenerate_area(&[a, b, c]) {
                return Err(MeshError::DegenerateTriangle { triangle: t, area });
            }
            let cross = (b - a).cross(c - a);
            normals.push(cross / cross.length());
        }
        let adjacency = adjacency(&triangles)?;
        let aabb = Aabb::from_points(vertices.iter().copied());
        let bounding_radius = vertices.iter().map(|v| v.length()).fold(0.0, Real::max);
        let bvh = MeshBvh::build(&triangles.iter().map(|t| tri_aabb(&vertices, t)).collect::<Vec<_>>());
        Ok(Self { vertices, triangles, normals, adjacency, seams: Vec::new(), aabb, bounding_radius, bvh })
    }

    /// The vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Each triangle's three vertex indices.
    pub fn triangles(&self) -> &[[u32; 3]] {
        &self.triangles
    }

    /// Unit normal of each triangle.
    pub fn normals(&self) -> &[Vec3] {
        &self.normals
    }

    /// Neighbour of each triangle across each edge, or [`NO_NEIGHBOUR`].
    pub fn adjacency(&self) -> &[[u32; 3]] {
        &self.adjacency
    }

    /// The normal of the triangle across edge `k` of triangle `t`: its neighbour in this mesh,
    /// or the triangle of another mesh the edge is welded to ([`TriangleMesh::weld`]); `None`
    /// on a boundary.
    pub fn across(&self, t: u32, k: usize) -> Option<Vec3> {
        match self.adjacency[t as usize][k] {
            NO_NEIGHBOUR if self.seams.is_empty() => None,
            NO_NEIGHBOUR => {
                let key = 3 * t + k as u32;
                self.seams.binary_search_by_key(&key, |s| s.0).ok().map(|i| self.seams[i].1)
            }
            n => Some(self.normals[n as usize]),
        }
    }

    /// The boundary edges (no neighbour in this mesh) as `(triangle, edge)`.
    pub fn boundary_edges(&self) -> impl Iterator<Item = (u32, usize)> + '_ {
        self.adjacency
            .iter()
            .enumerate()
            .flat_map(|(t, a)| (0..3).filter(move |&k| a[k] == NO_NEIGHBOUR).map(move |k| (t as u32, k)))
    }

    /// Welds boundary edges to triangles of another mesh: each `(triangle, edge, normal)` gets
    /// that normal (in this mesh's frame) as its neighbour's, so the internal-edge modes treat
    /// the edge as inside one surface. A weld replaces an earlier one of the same edge.
    pub fn weld(&mut self, edges: impl IntoIterator<Item = (u32, usize, Vec3)>) {
        for (t, k, n) in edges {
            let key = 3 * t + k as u32;
            match self.seams.binary_search_by_key(&key, |s| s.0) {
                Ok(i) => self.seams[i].1 = n,
                Err(i) => self.seams.insert(i, (key, n)),
            }
        }
    }

    /// How many boundary edges are welded to another mesh.
    pub fn welded_edges(&self) -> usize {
        self.seams.len()
    }

    /// Number of triangles.
    pub fn len(&self) -> usize {
        self.triangles.len()
    }

    /// Whether it has no triangle.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// The corners of triangle `t`.
    #[inline]
    pub fn triangle(&self, t: u32) -> [Vec3; 3] {
        self.triangles[t as usize].map(|i| self.vertices[i as usize])
    }

    /// Its bounding box in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// The distance from its origin to its farthest vertex.
    pub fn bounding_radius(&self) -> Real {
        self.bounding_radius
    }

    /// The BVH over its triangles.
    pub fn bvh(&self) -> &MeshBvh {
        &self.bvh
    }

    /// Calls `f` with every triangle whose box overlaps `aabb` (local frame).
    pub fn for_each_in_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32, [Vec3; 3], Vec3)) {
        self.bvh.query_aabb(aabb, |t| {
            let tri = self.triangle(t);
            if Aabb::from_points(tri).overlaps(aabb) {
                f(t, tri, self.normals[t as usize]);
            }
        });
    }

    /// The first hit of a local-frame ray on either side of any triangle, normal facing the ray.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<RayHit> {
        let (t, tri) = self.bvh.ray_cast(ray, max_t, |t, limit| ray_triangle(ray, &self.triangle(t), limit))?;
        let n = self.normals[tri as usize];
        Some(RayHit { t, point: ray.at(t), normal: if n.dot(ray.dir) > 0.0 { -n } else { n } })
    }
}

pub(crate) fn tri_aabb(vertices: &[Vec3], t: &[u32; 3]) -> Aabb {
    Aabb::from_points(t.iter().map(|&i| vertices[i as usize]))
}

/// Edge adjacency by sorting the directed edges: two triangles sharing an edge must run it in
/// opposite directions; an edge used by three or more triangles gets no neighbour.
fn adjacency(triangles: &[[u32; 3]]) -> Result<Vec<[u32; 3]>, MeshError> {
    // (low vertex, high vertex, triangle, edge slot, runs low -> high)
    let mut edges: Vec<(u32, u32, u32, u8, bool)> = Vec::with_capacity(triangles.len() * 3);
    for (t, tri) in triangles.iter().enumerate() {
        for k in 0..3 {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            edges.push((a.min(b), a.max(b), t as u32, k as u8, a < b));
        }
    }
    edges.sort_unstable_by_key(|e| (e.0, e.1, e.2, e.3));
    let mut adj = vec![[NO_NEIGHBOUR; 3]; triangles.len()];
    let mut i = 0;
    while i < edges.len() {
        let mut j = i + 1;
        while j < edges.len() && (edges[j].0, edges[j].1) == (edges[i].0, edges[i].1) {
            j += 1;
        }
        // Two triangles on an edge are neighbours and must run it opposite ways. Three or more
        // (a fin, a T-junction of surfaces) cannot all disagree pairwise: the edge gets no
        // neighbour on any of them, as a boundary does, and no winding is asked of it.
        if j - i == 2 {
            let (p, q) = (edges[i], edges[i + 1]);
            if p.4 == q.4 {
                let (from, to) = if p.4 { (p.0, p.1) } else { (p.1, p.0) };
                return Err(MeshError::InconsistentWinding { first: p.2 as usize, second: q.2 as usize, from, to });
            }
            adj[p.2 as usize][p.3 as usize] = q.2;
            adj[q.2 as usize][q.3 as usize] = p.2;
        }
        i = j;
    }
    Ok(adj)
}

/// Möller–Trumbore on both faces: the ray parameter of the hit within `[0, max_t]`.
pub fn ray_triangle(ray: &Ray, [a, b, c]: &[Vec3; 3], max_t: Real) -> Option<Real> {
    let (e1, e2) = (*b - *a, *c - *a);
    let p = ray.dir.cross(e2);
    let det = e1.dot(p);
    if det.abs() <= Real::MIN_POSITIVE {
        return None;
    }
    let inv = 1.0 / det;
    let s = ray.origin - *a;
    let u = s.dot(p) * inv;
    if !(0.0..=1.0).contains(&u) {
        return None;
    }
    let q = s.cross(e1);
    let v = ray.dir.dot(q) * inv;
    if v < 0.0 || u + v > 1.0 {
        return None;
    }
    let t = e2.dot(q) * inv;
    (0.0..=max_t).contains(&t).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad() -> (Vec<Vec3>, Vec<[u32; 3]>) {
        let v = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
        ];
        (v, vec![[0, 1, 2], [0, 2, 3]])
    }

    #[test]
    fn quad_has_up_normals_and_one_shared_edge() {
        let (v, t) = quad();
        let m = TriangleMesh::new(v, t).unwrap();
        for n in m.normals() {
            assert!((*n - Vec3::Y).length() < 1e-6, "{n}");
        }
        // Triangle 0's edge 2 runs 2 -> 0; triangle 1's edge 0 runs 0 -> 2.
        assert_eq!(m.adjacency(), &[[NO_NEIGHBOUR, NO_NEIGHBOUR, 1], [0, NO_NEIGHBOUR, NO_NEIGHBOUR]]);
    }

    #[test]
    fn errors_name_their_place() {
        let (v, _) = quad();
        assert_eq!(TriangleMesh::new(vec![], vec![]).unwrap_err(), MeshError::Empty { vertices: 0, triangles: 0 });
        let mut bad = v.clone();
        bad[2].y = Real::NAN;
        assert!(matches!(TriangleMesh::new(bad, vec![[0, 1, 2]]), Err(MeshError::NonFiniteVertex { index: 2, .. })));
        assert_eq!(
            TriangleMesh::new(v.clone(), vec![[0, 1, 2], [0, 2, 7]]).unwrap_err(),
            MeshError::IndexOutOfRange { triangle: 1, index: 7, vertices: 4 }
        );
        assert!(matches!(
            TriangleMesh::new(v.clone(), vec![[0, 1, 2], [0, 0, 3]]),
            Err(MeshError::DegenerateTriangle { triangle: 1, .. })
        ));
        let mut line = v.clone();
        line.push(Vec3::new(2.0, 0.0, 2.0));
        assert!(matches!(
            TriangleMesh::new(line, vec![[0, 1, 2], [0, 2, 4]]),
            Err(MeshError::DegenerateTriangle { triangle: 1, .. })
        ));
        let e = TriangleMesh::new(v, vec![[0, 1, 2], [0, 3, 2]]).unwrap_err();
        assert_eq!(e, MeshError::InconsistentWinding { first: 0, second: 1, from: 2, to: 0 });
        assert!(e.to_string().contains("triangles 0 and 1"));
    }

    #[test]
    fn ray_hits_either_face_with_a_facing_normal() {
        let (v, t) = quad();
        let m = TriangleMesh::new(v, t).unwrap();
        let down = m.ray_cast(&Ray::new(Vec3::new(0.3, 2.0, 0.6), Vec3::NEG_Y), 10.0).unwrap();
        assert!((down.t - 2.0).abs() < 1e-6 && down.normal == Vec3::Y);
        let up = m.ray_cast(&Ray::new(Vec3::new(0.7, -1.0, 0.2), Vec3::Y), 10.0).unwrap();
        assert!((up.t - 1.0).abs() < 1e-6 && up.normal == Vec3::NEG_Y);
        assert!(m.ray_cast(&Ray::new(Vec3::new(1.5, 2.0, 0.5), Vec3::NEG_Y), 10.0).is_none());
        assert!(m.ray_cast(&Ray::new(Vec3::new(0.5, 2.0, 0.5), Vec3::NEG_Y), 1.5).is_none());
    }
}
