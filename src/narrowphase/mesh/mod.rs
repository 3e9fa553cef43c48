//! Convex shapes against triangle meshes and height fields: the mid phase (the mesh's BVH, or
//! the height field's grid) finds the triangles near the shape, each gives a small manifold,
//! and the pair keeps one manifold of at most four points.

mod edges;
mod seams;
mod triangle;

pub use edges::{
    ACTIVE_EDGE_COLOR, ACTIVE_EDGE_COS, INACTIVE_EDGE_COLOR, InternalEdges, Touch, TriangleEdges, classify, draw_edges,
    edge_active, to_face_normal, touch_corners,
};

pub use seams::{WELD_DISTANCE, Welds, find_seams, weld_seams};
use triangle::{
    Polytope, closest_point_triangle, contact_capsule_triangle, contact_polytope_triangle, contact_sphere_triangle,
};
pub use triangle::{closest_segment_triangle, gap_shape_triangle};

use super::Tolerance;
use super::clip::reduce;
use super::manifold::{ContactPoint, Manifold};
use crate::geometry::{Aabb, HeightField, Shape, TriangleMesh};
use crate::math::{Pose, Real, Vec3};

/// Points of other triangles join the deepest triangle's manifold when their normal is within
/// about 25° of its normal; their depth becomes the push along that normal which clears them
/// (their own depth over the cosine).
pub const MERGE_COS: Real = 0.9;

/// A mesh-like shape: stored triangles or a height field's generated ones.
#[derive(Clone, Copy, Debug)]
pub enum MeshRef<'a> {
    /// A triangle mesh's stored triangles.
    Triangles(&'a TriangleMesh),
    /// A height field's triangles, generated per cell.
    Heights(&'a HeightField),
}

impl<'a> MeshRef<'a> {
    /// The mesh inside `shape`, if it is one.
    pub fn of(shape: &'a Shape) -> Option<Self> {
        match shape {
            Shape::TriangleMesh(m) => Some(MeshRef::Triangles(m)),
            Shape::HeightField(h) => Some(MeshRef::Heights(h)),
            _ => None,
        }
    }

    /// Calls `f(index, corners, unit normal)` for each triangle whose box overlaps `aabb`.
    pub fn for_each_in_aabb(&self, aabb: &Aabb, f: impl FnMut(u32, [Vec3; 3], Vec3)) {
        match self {
            MeshRef::Triangles(m) => m.for_each_in_aabb(aabb, f),
            MeshRef::Heights(h) => h.for_each_in_aabb(aabb, f),
        }
    }
}

/// One triangle's contact with a convex shape in the mesh's frame, normal from the triangle to
/// the shape; `None` when apart by more than `margin` or the shape is not convex.
pub fn contact_shape_triangle(shape: &Shape, pose: &Pose, tri: &[Vec3; 3], n: Vec3, margin: Real) -> Option<Manifold> {
    Posed::new(shape, pose)?.contact(tri, n, margin)
}

/// A convex shape placed once in a mesh's frame, for its contacts with every triangle near it.
pub(crate) enum Posed<'a> {
    /// Centre and radius.
    Sphere(Vec3, Real),
    /// The segment's ends and the radius.
    Capsule(Vec3, Vec3, Real),
    /// A box or a hull.
    Polytope(Polytope<'a>),
}

impl<'a> Posed<'a> {
    /// `shape` at `pose` in the mesh frame; `None` for a shape that is not convex.
    pub(crate) fn new(shape: &'a Shape, pose: &Pose) -> Option<Self> {
        match shape {
            Shape::Sphere(s) => Some(Posed::Sphere(pose.translation, s.radius)),
            Shape::Capsule(c) => {
                let (p, q) = c.segment();
                Some(Posed::Capsule(pose.transform_point(p), pose.transform_point(q), c.radius))
            }
            Shape::Cuboid(_) | Shape::ConvexHull(_) => Polytope::new(shape, pose).map(Posed::Polytope),
            Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => None,
        }
    }

    /// The contact with one triangle (unit normal `n`), normal from the triangle to the shape;
    /// `None` when apart by more than `margin`.
    pub(crate) fn contact(&self, tri: &[Vec3; 3], n: Vec3, margin: Real) -> Option<Manifold> {
        match self {
            Posed::Sphere(c, r) => contact_sphere_triangle(*c, *r, tri, n, margin),
            Posed::Capsule(p, q, r) => contact_capsule_triangle(*p, *q, *r, tri, n, margin),
            Posed::Polytope(poly) => contact_polytope_triangle(poly, tri, n, margin),
        }
    }
}

/// [`contact_mesh_shape_with`] with the default [`InternalEdges`] mode.
pub fn contact_mesh_shape(mesh: MeshRef, pm: &Pose, shape: &Shape, ps: &Pose, tol: Tolerance) -> Option<Manifold> {
    contact_mesh_shape_with(mesh, pm, shape, ps, tol, InternalEdges::default())
}

/// The manifold between a mesh (A) and a convex shape (B), in world space with the normal from
/// the mesh to the shape: every triangle near the shape is tested, its contact corrected on
/// internal edges as `edges` says, the deepest point's normal is the manifold's, points of
/// triangles facing within [`MERGE_COS`] of it join, and the reduction keeps four (the deepest,
/// the farthest from it, the widest on either side) of the overlapping points when there are
/// three or more, else of all.
pub fn contact_mesh_shape_with(
    mesh: MeshRef,
    pm: &Pose,
    shape: &Shape,
    ps: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> Option<Manifold> {
    let found = triangle_contacts(mesh, pm, shape, ps, tol, edges);
    let mut m = merge_by_deepest(&found, tol.margin)?;
    m.normal = pm.transform_vector(m.normal);
    for p in m.points_mut() {
        p.point = pm.transform_point(p.point);
    }
    (!m.is_empty()).then_some(m)
}

/// Every triangle contact of a mesh (posed at `pm`) and a convex shape, corrected on internal
/// edges as `edges` says, each point with its own normal (from the mesh to the shape), in the
/// mesh's frame and not yet merged: what [`contact_mesh_shape_with`] merges, and what a
/// compound merges with its other children's contacts.
pub(crate) fn triangle_contacts(
    mesh: MeshRef,
    pm: &Pose,
    shape: &Shape,
    ps: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> Vec<(Vec3, ContactPoint)> {
    let rel = pm.inv_mul(ps);
    let region = shape.aabb(&rel).expanded(tol.margin);
    let mut found: Vec<(Vec3, ContactPoint)> = Vec::new();
    let push = |found: &mut Vec<(Vec3, ContactPoint)>, t: u32, m: &Manifold| {
        let salt = t.wrapping_mul(0x9E37_79B1);
        found.extend(m.points().iter().map(|p| (m.normal, ContactPoint { id: p.id ^ salt, ..*p })));
    };
    // Voided features: corner ids covered by kept contacts, and the contacts on inactive
    // features waiting for every triangle to be seen.
    let mut voided: Vec<u32> = Vec::new();
    let mut delayed: Vec<(u32, Manifold, Vec3, [u32; 3], usize)> = Vec::new();
    // Triangles in the box but beyond the shape's bounding ball (plus the margin) cannot touch.
    let (centre, reach) = (rel.translation, shape.bounding_radius() + tol.margin);
    let Some(posed) = Posed::new(shape, &rel) else { return found };
    mesh.for_each_in_aabb(&region, |t, tri, n| {
        if closest_point_triangle(centre, &tri).0.distance_squared(centre) > reach * reach {
            return;
        }
        let Some(m) = posed.contact(&tri, n, tol.margin) else { return };
        if edges == InternalEdges::None {
            return push(&mut found, t, &m);
        }
        let e = mesh.edges_of(t);
        let (touch, allowed) = classify(&tri, n, &e, m.normal);
        match (edges, allowed) {
            (_, true) => {
                push(&mut found, t, &m);
                let (ids, k) = touch_corners(touch, &e.corners);
                voided.extend_from_slice(&ids[..k]);
            }
            (InternalEdges::AdjacencyNormals, false) => push(&mut found, t, &to_face_normal_of(shape, &m, n)),
            _ => {
                let (ids, k) = touch_corners(touch, &e.corners);
                delayed.push((t, m, n, ids, k));
            }
        }
    });
    // Deepest first: a dropped or corrected contact voids its own feature for the rest.
    delayed.sort_by(|x, y| y.1.max_depth().total_cmp(&x.1.max_depth()).then(x.0.cmp(&y.0)));
    for (t, m, n, ids, k) in delayed {
        if !ids[..k].iter().all(|i| voided.contains(i)) {
            push(&mut found, t, &to_face_normal_of(shape, &m, n));
            voided.extend_from_slice(&ids[..k]);
        }
    }
    found
}

/// [`to_face_normal`], and for a sphere or a capsule each point moved to where the face normal
/// through its core point meets the surface: a round shape's contact lies on the normal through
/// its core, and a point left beside it (on the edge the raw contact touched) would turn the
/// corrected push into a torque that kicks a rolling sphere at every edge.
fn to_face_normal_of(shape: &Shape, m: &Manifold, n: Vec3) -> Manifold {
    let mut out = to_face_normal(m, n);
    let radius = match shape {
        Shape::Sphere(s) => s.radius,
        Shape::Capsule(c) => c.radius,
        _ => return out,
    };
    for (p, raw) in out.points_mut().iter_mut().zip(m.points()) {
        // The raw point is midway between the surfaces along the raw normal.
        let core = raw.point + m.normal * (radius - 0.5 * raw.depth);
        p.point = core - n * (radius - 0.5 * p.depth);
    }
    out
}

/// One manifold from several small ones, each point with its own normal: the deepest point's
/// normal is the manifold's, points whose normal is within [`MERGE_COS`] of it join (their depth
/// the push along it that clears them), and the reduction keeps four of the overlapping points
/// when three or more overlap, else of all within `margin`. `None` when nothing is found.
pub(crate) fn merge_by_deepest(found: &[(Vec3, ContactPoint)], margin: Real) -> Option<Manifold> {
    let (normal, _) = *found.iter().max_by(|x, y| x.1.depth.total_cmp(&y.1.depth).then(y.1.id.cmp(&x.1.id)))?;
    let pts: Vec<ContactPoint> = found
        .iter()
        .filter_map(|(n, p)| {
            let c = n.dot(normal);
            (c >= MERGE_COS).then_some(ContactPoint { depth: p.depth / c, ..*p })
        })
        .filter(|p| p.depth >= -margin)
        .collect();
    // Load-bearing points first: when three or more overlap, the speculative ones (possibly
    // far out beyond the shape's support) do not compete with them for the four places.
    let overlapping: Vec<ContactPoint> = pts.iter().filter(|p| p.depth >= 0.0).copied().collect();
    Some(reduce(normal, if overlapping.len() >= 3 { &overlapping } else { &pts }))
}

/// A pair with a mesh on either side (mesh against mesh gives nothing: both are static or
/// kinematic), oriented from `a` to `b`.
pub fn contact_pair(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    contact_pair_with(a, pa, b, pb, tol, InternalEdges::default())
}

/// [`contact_pair`] with internal edges treated as `edges` says.
pub fn contact_pair_with(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> Option<Manifold> {
    match (MeshRef::of(a), MeshRef::of(b)) {
        (Some(m), None) => contact_mesh_shape_with(m, pa, b, pb, tol, edges),
        (None, Some(m)) => contact_mesh_shape_with(m, pb, a, pa, tol, edges).map(Manifold::flipped),
        _ => None,
    }
}

/// Whether a mesh and a shape touch: some triangle's contact is at least `-eps` deep.
pub fn intersect_pair(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    let tol = Tolerance { margin: eps.max(0.0).sqrt(), epsilon: eps };
    contact_pair(a, pa, b, pb, tol).is_some_and(|m| m.max_depth() >= -tol.margin)
}
