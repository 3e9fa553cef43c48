//! Internal edges: a shape sliding over a tessellated surface touches the edges and vertices
//! between its triangles, and a raw triangle contact there has a normal tilted away from the
//! surface (a "ghost" bump). These corrections use each triangle's neighbours across its edges.

use super::MeshRef;
use crate::debug_draw::{Color, DebugDraw, DrawCategory};
use crate::geometry::Aabb;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::manifold::Manifold;
use serde::{Deserialize, Serialize};

/// How contacts on the edges and vertices inside a mesh are treated.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum InternalEdges {
    /// Raw triangle contacts: an edge or vertex contact keeps its own normal (ghost bumps).
    None,
    /// Bullet-style: a contact on an edge or vertex whose normal leaves the range the edge's
    /// neighbour allows (the edge is flat or concave, or the normal is not between the two face
    /// normals) takes the triangle's face normal.
    AdjacencyNormals,
    /// Jolt/Terdiman-style: a contact on such an edge or vertex is dropped when another
    /// triangle's contact already covers that feature (its vertices), else it takes the face
    /// normal.
    #[default]
    VoidedFeatures,
}

impl InternalEdges {
    /// Every mode, in the order the app and the CLI list them.
    pub const ALL: &'static [InternalEdges] =
        &[InternalEdges::None, InternalEdges::AdjacencyNormals, InternalEdges::VoidedFeatures];
}

/// An edge is active (its contacts keep their own normal) when it is a boundary, or convex by
/// more than 5° (the cosine of the angle between the two face normals is below this).
pub const ACTIVE_EDGE_COS: Real = 0.996_194_7;

/// A contact whose normal is within about 0.8° of the triangle's normal is a face contact.
pub(super) const FACE_COS: Real = 0.9999;

/// What a triangle contact touches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Touch {
    /// The face: the contact's normal is the triangle's.
    Face,
    /// Edge `k` (from corner `k` to corner `k + 1`).
    Edge(usize),
    /// Corner `k`.
    Vertex(usize),
}

/// A triangle's neighbourhood: the ids of its corners and the normal across each edge.
#[derive(Clone, Copy, Debug)]
pub struct TriangleEdges {
    /// The ids of its three corners.
    pub corners: [u32; 3],
    /// The neighbour's normal across each edge (none on a border).
    pub across: [Option<Vec3>; 3],
}

impl MeshRef<'_> {
    /// Corner ids (shared between triangles) and the normal of the neighbour across each edge.
    pub fn edges_of(&self, t: u32) -> TriangleEdges {
        match self {
            MeshRef::Triangles(m) => {
                TriangleEdges { corners: m.triangles()[t as usize], across: [0, 1, 2].map(|k| m.across(t, k)) }
            }
            MeshRef::Heights(h) => {
                let (rows, cols) = (h.rows(), h.cols());
                let (cell, k) = (t as usize / 2, t % 2);
                let (r, c) = (cell / (cols - 1), cell % (cols - 1));
                let id = |r: usize, c: usize| (r * cols + c) as u32;
                let tri = |r: usize, c: usize, k: usize| (2 * (r * (cols - 1) + c) + k) as u32;
                let (corners, across) = if k == 0 {
                    (
                        [id(r, c), id(r + 1, c), id(r + 1, c + 1)],
                        [(c > 0).then(|| tri(r, c - 1, 1)), (r + 2 < rows).then(|| tri(r + 1, c, 1)), Some(t + 1)],
                    )
                } else {
                    (
                        [id(r, c), id(r + 1, c + 1), id(r, c + 1)],
                        [Some(t - 1), (c + 2 < cols).then(|| tri(r, c + 1, 0)), (r > 0).then(|| tri(r - 1, c, 0))],
                    )
                };
                TriangleEdges { corners, across: across.map(|n| n.map(|n| h.normal(n))) }
            }
        }
    }
}

/// Whether edge `k` of a triangle (corners `tri`, normal `n`) is active: a boundary, or convex
/// by more than [`ACTIVE_EDGE_COS`].
pub fn edge_active(tri: &[Vec3; 3], n: Vec3, across: Option<Vec3>, k: usize) -> bool {
    let Some(n2) = across else { return true };
    let out = (tri[(k + 1) % 3] - tri[k]).cross(n);
    n2.dot(out) > 0.0 && n.dot(n2) < ACTIVE_EDGE_COS
}

/// What a contact with normal `nc` on triangle `tri` (normal `n`) touches, and whether that
/// normal is allowed there: always on the face; on an edge when the edge is active and the
/// normal lies between the two face normals; on a vertex when either of its edges allows it.
pub fn classify(tri: &[Vec3; 3], n: Vec3, edges: &TriangleEdges, nc: Vec3) -> (Touch, bool) {
    if nc.dot(n) >= FACE_COS {
        return (Touch::Face, true);
    }
    let allows = |k: usize, out: Vec3| {
        if !edge_active(tri, n, edges.across[k], k) {
            return false;
        }
        let Some(n2) = edges.across[k] else { return true };
        // Angles from the face normal towards the outside of the edge.
        let a = nc.dot(out).atan2(nc.dot(n));
        let b = n2.dot(out).atan2(n2.dot(n));
        a <= b + 1e-3
    };
    let mut leaning = [(0usize, Vec3::ZERO); 2];
    let mut count = 0;
    for k in 0..3 {
        let out = (tri[(k + 1) % 3] - tri[k]).cross(n).normalize();
        if nc.dot(out) > 1e-6 && count < 2 {
            leaning[count] = (k, out);
            count += 1;
        }
    }
    match count {
        0 => (Touch::Face, true),
        1 => (Touch::Edge(leaning[0].0), allows(leaning[0].0, leaning[0].1)),
        _ => {
            let (j, k) = (leaning[0].0, leaning[1].0);
            // Edges j and k share the corner after the first of them, going around.
            let corner = if (j + 1) % 3 == k { k } else { j };
            (Touch::Vertex(corner), allows(j, leaning[0].1) || allows(k, leaning[1].1))
        }
    }
}

/// The corner ids a touch covers.
pub fn touch_corners(touch: Touch, corners: &[u32; 3]) -> ([u32; 3], usize) {
    match touch {
        Touch::Face => (*corners, 3),
        Touch::Edge(k) => ([corners[k], corners[(k + 1) % 3], 0], 2),
        Touch::Vertex(k) => ([corners[k], 0, 0], 1),
    }
}

/// The manifold turned to the triangle's normal `n`: each point keeps its place, its depth
/// becomes the overlap of the same two witness points along `n`.
pub fn to_face_normal(m: &Manifold, n: Vec3) -> Manifold {
    let c = m.normal.dot(n);
    let mut out = *m;
    out.normal = n;
    for p in out.points_mut() {
        p.depth *= c;
    }
    out
}

/// Colours of the edge layer: active edges (their contacts keep their own normal) and
/// inactive ones (flat, concave or gentle: their contacts are corrected).
pub const ACTIVE_EDGE_COLOR: Color = [1.0, 0.55, 0.1, 1.0];
/// Colour of the inactive edges.
pub const INACTIVE_EDGE_COLOR: Color = [0.35, 0.55, 0.85, 0.8];

/// Draws the edges of the triangles overlapping `region` (the mesh's frame) of a mesh posed at
/// `pose`, coloured active or inactive, lifted 2 mm off each face, in `category`.
pub fn draw_edges(mesh: MeshRef, pose: &Pose, region: &Aabb, category: DrawCategory, draw: &mut DebugDraw) {
    mesh.for_each_in_aabb(region, |t, tri, n| {
        let e = mesh.edges_of(t);
        let lift = n * 0.002;
        for k in 0..3 {
            let color = if edge_active(&tri, n, e.across[k], k) { ACTIVE_EDGE_COLOR } else { INACTIVE_EDGE_COLOR };
            let (a, b) = (pose.transform_point(tri[k] + lift), pose.transform_point(tri[(k + 1) % 3] + lift));
            draw.line(category, a, b, color);
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{HeightField, TriangleMesh};

    #[test]
    fn edge_layer_marks_the_flat_seam_inactive_and_the_rim_active() {
        let v = vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
        ];
        let m = TriangleMesh::new(v, vec![[0, 1, 2], [0, 2, 3]]).unwrap();
        let mut d = DebugDraw::default();
        let region = Aabb::new(Vec3::splat(-1.0), Vec3::splat(2.0));
        draw_edges(MeshRef::Triangles(&m), &Pose::IDENTITY, &region, DrawCategory::NarrowPhase, &mut d);
        assert_eq!(d.lines.len(), 6);
        // The diagonal, drawn once from each side, is the only inactive edge.
        let inactive: Vec<_> = d.lines.iter().filter(|l| l.color == INACTIVE_EDGE_COLOR).collect();
        assert_eq!(inactive.len(), 2, "{:?}", d.lines);
        for l in inactive {
            assert!((l.a.x - l.a.z).abs() < 1e-6 && (l.b.x - l.b.z).abs() < 1e-6, "{l:?}");
        }
    }

    #[test]
    fn height_field_neighbours_share_their_edge_reversed() {
        let h = HeightField::new(4, 5, 0.5, (0..20).map(|i| (i as Real * 0.7).sin() * 0.1).collect()).unwrap();
        let m = MeshRef::Heights(&h);
        for t in 0..h.len() as u32 {
            let e = m.edges_of(t);
            for k in 0..3 {
                let Some(n2) = e.across[k] else { continue };
                // Find the neighbour whose normal matches and whose corners hold the edge reversed.
                let (a, b) = (e.corners[k], e.corners[(k + 1) % 3]);
                let found = (0..h.len() as u32).filter(|&u| u != t).any(|u| {
                    let c = m.edges_of(u).corners;
                    (0..3).any(|j| c[j] == b && c[(j + 1) % 3] == a) && h.normal(u) == n2
                });
                assert!(found, "triangle {t} edge {k}: no neighbour holds ({a}, {b}) reversed");
            }
        }
    }
}
