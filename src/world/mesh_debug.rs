//! The mesh layer of the debug drawing ([`DrawCategory::Mesh`]): what the mid phase visits and
//! what the internal-edge correction changes.

use super::World;
use crate::debug_draw::{Color, DebugDraw, DrawCategory};
use crate::dynamics::Body;
use crate::geometry::{Aabb, Shape};
use crate::math::{Pose, Real};
use crate::narrowphase::{self, Tolerance};

/// Colour of a BVH inner node the mid phase enters.
pub const BVH_INNER_COLOR: Color = [0.55, 0.75, 1.0, 0.35];
/// Colour of a BVH leaf (or a height-field cell) whose triangles the mid phase tests.
pub const BVH_LEAF_COLOR: Color = [0.4, 1.0, 0.9, 0.9];
/// Colour of a mesh pair's manifold normal with the world's internal-edge correction.
pub const CORRECTED_NORMAL_COLOR: Color = [0.3, 1.0, 0.3, 1.0];
/// Colour of a raw triangle contact's normal, before internal-edge correction.
pub const RAW_NORMAL_COLOR: Color = [1.0, 0.25, 0.2, 1.0];
/// How far the drawn normals reach past the body's size, m: they start inside the body
/// and must show above it.
const NORMAL_REACH: Real = 0.15;

impl World {
    /// The candidate pairs of a mesh or height field and a body that is neither: (mesh, body).
    fn mesh_pairs(&self) -> impl Iterator<Item = (&Body, &Body)> {
        self.pairs.iter().filter_map(|&(a, b)| {
            let (ba, bb) = (&self.bodies[a as usize], &self.bodies[b as usize]);
            match (ba.shape.is_mesh(), bb.shape.is_mesh()) {
                (true, false) => Some((ba, bb)),
                (false, true) => Some((bb, ba)),
                _ => None,
            }
        })
    }

    /// What the mid phase visits for each mesh pair: the mesh's BVH nodes whose boxes overlap
    /// the body's box widened by the contact margin (inner nodes dim, leaves bright), or the
    /// height field's cells under that box (each as the box of its heights). Boxes are in the
    /// mesh's frame, drawn turned with it.
    pub(super) fn debug_draw_mesh_queries(&self, draw: &mut DebugDraw) {
        let margin = self.settings.speculative_distance;
        let boxed = |pose: &Pose, aabb: &Aabb, color, draw: &mut DebugDraw| {
            draw.corners(DrawCategory::Mesh, &std::array::from_fn(|i| pose.transform_point(aabb.corner(i))), color);
        };
        for (m, other) in self.mesh_pairs() {
            let region = other.shape.aabb(&m.pose.inv_mul(&other.pose)).expanded(margin);
            match &m.shape {
                Shape::TriangleMesh(mesh) => {
                    let nodes = mesh.bvh().nodes();
                    let mut stack = if nodes.is_empty() { vec![] } else { vec![0u32] };
                    while let Some(i) = stack.pop() {
                        let node = &nodes[i as usize];
                        if !node.aabb.overlaps(&region) {
                            continue;
                        }
                        if node.count > 0 {
                            boxed(&m.pose, &node.aabb, BVH_LEAF_COLOR, draw);
                        } else {
                            boxed(&m.pose, &node.aabb, BVH_INNER_COLOR, draw);
                            stack.extend([node.first, node.first + 1]);
                        }
                    }
                }
                Shape::HeightField(h) => {
                    // Cells are the field's two triangles per grid square.
                    let mut cells: Vec<u32> = Vec::new();
                    h.for_each_in_aabb(&region, |t, _, _| cells.push(t / 2));
                    cells.dedup();
                    for cell in cells {
                        let [p, q, r] = h.triangle(2 * cell);
                        let s = h.triangle(2 * cell + 1);
                        let mut aabb = Aabb::from_points([p, q, r, s[0], s[1], s[2]]);
                        aabb.max.y += 1e-3;
                        boxed(&m.pose, &aabb, BVH_LEAF_COLOR, draw);
                    }
                }
                _ => {}
            }
        }
    }

    /// For each mesh pair, at the bodies' current poses: the manifolds the narrow phase makes
    /// with the world's internal-edge mode (green), and the raw contact of every triangle near
    /// the body (with a box's or hull's other corners over it, along its face normal),
    /// uncorrected, each point with its own triangle contact's normal (red, drawn first,
    /// so only the ones the correction changed show). Normals reach past the body's top. A red
    /// normal that leans away from the green one is a ghost contact on an internal edge that
    /// the correction turned or dropped. (The solver's own contacts, made at the start of the
    /// step, are the contact layers'.)
    pub(super) fn debug_draw_mesh_normals(&self, draw: &mut DebugDraw) {
        let tol = Tolerance { margin: self.settings.speculative_distance, epsilon: self.settings.contact_epsilon };
        let edges = self.settings.internal_edges;
        for (m, other) in self.mesh_pairs() {
            let Some(mesh) = narrowphase::mesh::MeshRef::of(&m.shape) else { continue };
            let length = 2.0 * other.shape.bounding_radius() + NORMAL_REACH;
            let rel = m.pose.inv_mul(&other.pose);
            let region = other.shape.aabb(&rel).expanded(tol.margin);
            mesh.for_each_in_aabb(&region, |_, tri, n| {
                let points = narrowphase::mesh::contact_shape_triangle_points(&other.shape, &rel, &tri, n, tol.margin);
                let Some((c, corners)) = points else { return };
                let raw = c.points().iter().map(|p| (p.point, c.normal));
                for (p, normal) in raw.chain(corners.iter().map(|p| (p.point, n))) {
                    let (at, normal) = (m.pose.transform_point(p), m.pose.transform_vector(normal));
                    draw.point(DrawCategory::Mesh, at, 5.0, RAW_NORMAL_COLOR);
                    draw.line(DrawCategory::Mesh, at, at + normal * length, RAW_NORMAL_COLOR);
                }
            });
            // Every manifold of the pair: one per direction its triangles push (a crease).
            let corrected =
                narrowphase::mesh::contact_mesh_shape_manifolds(mesh, &m.pose, &other.shape, &other.pose, tol, edges);
            for c in corrected.as_slice() {
                for p in c.points() {
                    draw.line(DrawCategory::Mesh, p.point, p.point + c.normal * length, CORRECTED_NORMAL_COLOR);
                }
            }
        }
    }
}
