//! Compounds against any shape: every pair of children (a non-compound counts as one child)
//! whose boxes meet goes to the narrow phase's own entry point for that pair, at the child's
//! world pose; the pair of bodies keeps a manifold of at most four points per direction its
//! child contacts push (up to [`MAX_MESH_MANIFOLDS`](super::mesh::MAX_MESH_MANIFOLDS), as a mesh
//! pair does), so a compound caught in a notch is held along both walls. Children are few, so a
//! plain loop over them, culled by their boxes, finds the pairs (no tree).

use super::manifold::{ContactPoint, Manifold};
use super::mesh::{InternalEdges, MeshRef};
use super::{NarrowPhaseKind, Tolerance};
use crate::geometry::{Aabb, Shape};
use crate::math::{Pose, Real, Vec3};
use smallvec::SmallVec;

/// One convex (or mesh) part of a posed shape: its index in the compound, the shape, and its
/// world pose.
type Part<'a> = (u32, &'a Shape, Pose);

/// The children of a compound at their world poses, or the shape itself as child 0.
pub fn parts<'a>(shape: &'a Shape, pose: &Pose) -> Vec<Part<'a>> {
    parts_iter(shape, pose).collect()
}

/// [`parts`] one at a time.
fn parts_iter<'a>(shape: &'a Shape, pose: &Pose) -> impl Iterator<Item = Part<'a>> {
    let pose = *pose;
    let children = match shape {
        Shape::Compound(c) => c.children(),
        _ => &[],
    };
    let whole = (!shape.is_compound()).then_some((0, shape, pose));
    children.iter().enumerate().map(move |(i, k)| (i as u32, &k.shape, pose.mul(&k.pose))).chain(whole)
}

/// Feature ids of child pair `(i, j)`: the child contact's own ids mixed with both indices, so
/// the same features of different children never share an id (warm starts match by id).
pub fn child_id(id: u32, i: u32, j: u32) -> u32 {
    id ^ (i.wrapping_add(1).wrapping_mul(0x9E37_79B1)) ^ (j.wrapping_add(1).wrapping_mul(0x85EB_CA77))
}

/// A pair's child contacts, each point with its child pair's normal: up to sixteen (four child
/// pairs' manifolds) without a heap allocation.
pub type ChildContacts = SmallVec<[(Vec3, ContactPoint); 16]>;

/// Every child pair's contact, each point with its pair's normal (world space, from A to B).
pub fn child_contacts(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> ChildContacts {
    // B's parts (a shape that is not a compound is one) and their boxes: on the heap only past
    // eight children.
    let ys: SmallVec<[Part; 8]> = parts_iter(b, pb).collect();
    let boxes: SmallVec<[Aabb; 8]> = ys.iter().map(|(_, s, p)| s.aabb(p)).collect();
    let mut found = ChildContacts::new();
    for (i, sa, qa) in parts_iter(a, pa) {
        let (i, sa, qa) = (&i, &sa, &qa);
        let reach = sa.aabb(qa).expanded(tol.margin);
        for ((j, sb, qb), bb) in ys.iter().zip(&boxes) {
            if !reach.overlaps(bb) {
                continue;
            }
            // A mesh child's triangle contacts join the others unmerged, so the pair is merged
            // once, over every child's points.
            let mesh_side = match (MeshRef::of(sa), MeshRef::of(sb)) {
                (Some(m), None) => Some((m, qa, sb, qb, 1.0)),
                (None, Some(m)) => Some((m, qb, sa, qa, -1.0)),
                _ => None,
            };
            if let Some((mesh, pm, s, ps, sign)) = mesh_side {
                for (n, p) in super::mesh::triangle_contacts(mesh, pm, s, ps, tol, edges) {
                    let p = ContactPoint { id: child_id(p.id, *i, *j), point: pm.transform_point(p.point), ..p };
                    found.push((pm.transform_vector(n) * sign, p));
                }
                continue;
            }
            if let Some(m) = super::contact(sa, qa, sb, qb, tol, method) {
                found.extend(m.points().iter().map(|p| (m.normal, ContactPoint { id: child_id(p.id, *i, *j), ..*p })));
            }
        }
    }
    found
}

/// The manifold between two shapes, either or both compounds, oriented from `a` to `b`: the
/// deepest child point's normal is the manifold's, points of child pairs whose normal is within
/// [`MERGE_COS`](super::mesh::MERGE_COS) of it join (their depth over the cosine: the push
/// along that normal which clears them), and the reduction keeps four, the overlapping points
/// first (alone when three or more overlap). `None` when no child pair is within `tol.margin`.
pub fn contact_pair(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> Option<Manifold> {
    let found = child_contacts(a, pa, b, pb, tol, method, edges);
    let m = super::mesh::merge_by_deepest(&found, tol.margin)?;
    (!m.is_empty()).then_some(m)
}

/// Every manifold between two shapes, either or both compounds, oriented from `a` to `b`: the
/// first is [`contact_pair`]'s; the child contacts it leaves out (pushing more than about 25°
/// away from its normal) give more, each around the deepest point left within the margin, as a
/// mesh pair's do ([`merge_by_normals`](super::mesh::merge_by_normals)). What the world keeps.
pub fn contact_pair_manifolds(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    method: NarrowPhaseKind,
    edges: InternalEdges,
) -> super::mesh::MeshManifolds {
    let found = child_contacts(a, pa, b, pb, tol, method, edges);
    super::mesh::merge_by_normals(&found, tol.margin)
}

/// Whether two shapes, either or both compounds, touch: some child pair does.
pub fn intersect_pair(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, method: NarrowPhaseKind) -> bool {
    let (xs, ys) = (parts(a, pa), parts(b, pb));
    let reach = eps.max(0.0).sqrt();
    xs.iter().any(|(_, sa, qa)| {
        let bound = sa.aabb(qa).expanded(reach);
        ys.iter().any(|(_, sb, qb)| bound.overlaps(&sb.aabb(qb)) && super::intersect(sa, qa, sb, qb, eps, method))
    })
}
