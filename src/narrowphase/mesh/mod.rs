//! Convex shapes against triangle meshes and height fields: the mid phase (the mesh's BVH, or
//! the height field's grid) finds the triangles near the shape, each gives a small manifold,
//! and the pair keeps a manifold of at most four points per direction its triangles push (up to
//! [`MAX_MESH_MANIFOLDS`]).

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
use super::clip::{reduce, reduce_across};
use super::manifold::{ContactPoint, Manifold};
use crate::geometry::{Aabb, HeightField, Shape, TriangleMesh};
use crate::math::{Pose, Real, Vec3};
use smallvec::SmallVec;

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

/// [`contact_shape_triangle`] and the shape's other vertices over the triangle within
/// `margin` of its face (points along the face normal `n`): every point a mesh pair takes from
/// this triangle before the pair's points are merged.
pub fn contact_shape_triangle_points(
    shape: &Shape,
    pose: &Pose,
    tri: &[Vec3; 3],
    n: Vec3,
    margin: Real,
) -> Option<(Manifold, Vec<ContactPoint>)> {
    let posed = Posed::new(shape, pose)?;
    let m = posed.contact(tri, n, margin)?;
    let mut corners = Vec::new();
    if let Posed::Polytope(poly) = &posed {
        leading_corners(poly, tri, n, &m, margin, |p| corners.push(p));
    }
    Some((m, corners))
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
/// three or more, else of all. The first of [`contact_mesh_shape_manifolds`].
pub fn contact_mesh_shape_with(
    mesh: MeshRef,
    pm: &Pose,
    shape: &Shape,
    ps: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> Option<Manifold> {
    contact_mesh_shape_manifolds(mesh, pm, shape, ps, tol, edges).first().copied()
}

/// Most manifolds a mesh pair makes: one per direction its triangles push the shape (a box
/// resting across a crease gets one on each side of it).
pub const MAX_MESH_MANIFOLDS: usize = 3;

/// A mesh pair's manifolds, at most [`MAX_MESH_MANIFOLDS`], the first the deepest point's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MeshManifolds {
    manifolds: [Manifold; MAX_MESH_MANIFOLDS],
    len: usize,
}

impl MeshManifolds {
    /// The manifolds.
    pub fn as_slice(&self) -> &[Manifold] {
        &self.manifolds[..self.len]
    }

    /// The first (the deepest point's), if any.
    pub fn first(&self) -> Option<&Manifold> {
        self.as_slice().first()
    }

    /// At most one manifold: a pair that makes a single one.
    pub fn one(m: Option<Manifold>) -> Self {
        let mut all = Self::default();
        if let Some(m) = m {
            all.push(m);
        }
        all
    }

    fn push(&mut self, m: Manifold) {
        self.manifolds[self.len] = m;
        self.len += 1;
    }

    /// Each manifold with its normal negated (the pair seen from the other side).
    pub fn flipped(mut self) -> Self {
        self.manifolds[..self.len].iter_mut().for_each(|m| *m = m.flipped());
        self
    }
}

/// The manifolds between a mesh (A) and a convex shape (B), in world space with normals from
/// the mesh to the shape. The first is [`contact_mesh_shape_with`]'s; the points it leaves out
/// (their triangles facing more than about 25° away from its normal) give more, each around the
/// deepest point left (`merge_by_normals`), so a shape resting across a crease is held along
/// both faces' normals instead of sinking into the face one normal cannot push it out of.
pub fn contact_mesh_shape_manifolds(
    mesh: MeshRef,
    pm: &Pose,
    shape: &Shape,
    ps: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> MeshManifolds {
    let found = triangle_contacts(mesh, pm, shape, ps, tol, edges);
    let mut out = merge_by_normals(&found, tol.margin);
    for m in &mut out.manifolds[..out.len] {
        m.normal = pm.transform_vector(m.normal);
        for p in m.points_mut() {
            p.point = pm.transform_point(p.point);
        }
    }
    out
}

/// A contact on an inactive feature waiting for every triangle to be seen: the triangle, its
/// manifold and face normal, and the corner ids it touches (how many of the three).
type Delayed = (u32, Manifold, Vec3, [u32; 3], usize);

/// A pair's triangle contacts, each with its normal: up to 16 (a box over a few triangles)
/// without a heap allocation.
pub(crate) type TriangleContacts = SmallVec<[(Vec3, ContactPoint); 16]>;

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
) -> TriangleContacts {
    let rel = pm.inv_mul(ps);
    let mut found = TriangleContacts::new();
    let Some(posed) = Posed::new(shape, &rel) else { return found };
    // A hull's box from its vertices as placed for the contacts (`Shape::aabb` places them so).
    let placed = match &posed {
        Posed::Polytope(p) => p.points_aabb(),
        _ => None,
    };
    let region = placed.unwrap_or_else(|| shape.aabb(&rel)).expanded(tol.margin);
    let salt = |t: u32| t.wrapping_mul(0x9E37_79B1);
    let push = |found: &mut TriangleContacts, t: u32, m: &Manifold| {
        found.extend(m.points().iter().map(|p| (m.normal, ContactPoint { id: p.id ^ salt(t), ..*p })));
    };
    // Voided features: corner ids covered by kept contacts, and the contacts on inactive
    // features waiting for every triangle to be seen.
    let mut voided: SmallVec<[u32; 16]> = SmallVec::new();
    let mut delayed: SmallVec<[Delayed; 4]> = SmallVec::new();
    // Triangles in the box but beyond the shape's bounding ball (plus the margin) cannot touch.
    let (centre, reach) = (rel.translation, shape.bounding_radius() + tol.margin);
    mesh.for_each_in_aabb(&region, |t, tri, n| {
        if closest_point_triangle(centre, &tri).0.distance_squared(centre) > reach * reach {
            return;
        }
        let Some(m) = posed.contact(&tri, n, tol.margin) else { return };
        if let Posed::Polytope(poly) = &posed {
            leading_corners(poly, &tri, n, &m, tol.margin, |p| {
                found.push((n, ContactPoint { id: p.id ^ salt(t), ..p }))
            });
        }
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
            (InternalEdges::AdjacencyNormals, false) => {
                if let Some(m) = to_face_normal_of(shape, &m, n) {
                    push(&mut found, t, &m);
                }
            }
            _ => {
                let (ids, k) = touch_corners(touch, &e.corners);
                delayed.push((t, m, n, ids, k));
            }
        }
    });
    // Deepest first: a dropped or corrected contact voids its own feature for the rest.
    delayed.sort_by(|x, y| y.1.max_depth().total_cmp(&x.1.max_depth()).then(x.0.cmp(&y.0)));
    for (t, m, n, ids, k) in delayed {
        if ids[..k].iter().all(|i| voided.contains(i)) {
            continue;
        }
        if let Some(m) = to_face_normal_of(shape, &m, n) {
            push(&mut found, t, &m);
            voided.extend_from_slice(&ids[..k]);
        }
    }
    found
}

/// Feature ids of [`leading_corners`]' points: the vertex's index in this range.
const CORNER_ID: u32 = 0x5EC0_0000;

/// The vertices of a box or hull over triangle `tri` (normal `n`) that are within `margin` of
/// its face and not already among its contact `m`'s points, each as a point along the face
/// normal (midway between the vertex and its foot on the face): a body that turns in the step
/// (a box struck on one side as it rests on a slope) brings corners of other faces than the
/// one the contact clipped to the surface, and a speculative point holds each of them at the
/// face the step through. Only a vertex whose foot lies on the triangle counts (beyond its
/// edges the face's plane is not the surface: its neighbour's face holds the vertex), and none
/// deeper than the contact itself (a vertex poking under the face from beside it is not pushed
/// up through it).
fn leading_corners(
    poly: &Polytope,
    tri: &[Vec3; 3],
    n: Vec3,
    m: &Manifold,
    margin: Real,
    mut f: impl FnMut(ContactPoint),
) {
    let deepest = m.max_depth().max(0.0);
    let on_face = m.normal.dot(n) >= edges::FACE_COS;
    let plane = n.dot(tri[0]);
    let (e0, e1, e2) = (tri[1] - tri[0], tri[2] - tri[1], tri[0] - tri[2]);
    let inside = |q: Vec3| {
        e0.cross(q - tri[0]).dot(n) >= 0.0 && e1.cross(q - tri[1]).dot(n) >= 0.0 && e2.cross(q - tri[2]).dot(n) >= 0.0
    };
    poly.for_each_vertex(|i, v| {
        let sep = n.dot(v) - plane;
        if sep > margin || -sep > deepest || !inside(v) {
            return;
        }
        let point = v - n * (0.5 * sep);
        // The clip of a face contact already has the vertices on the face, at the same place.
        let known = on_face
            && m.points().iter().any(|p| p.point.distance_squared(point) <= 1e-8 * (1.0 + point.length_squared()));
        if !known {
            f(ContactPoint { point, depth: -sep, id: CORNER_ID + i });
        }
    });
}

/// [`to_face_normal`], and for a sphere or a capsule each point moved to where the face normal
/// through its core point meets the surface: a round shape's contact lies on the normal through
/// its core, and a point left beside it (on the edge the raw contact touched) would turn the
/// corrected push into a torque that kicks a rolling sphere at every edge. `None` for a contact
/// whose normal points behind the face (`m.normal · n <= 0`): the shape lies beyond the edge on
/// the face's back side (in a hollow beside a slope), where the face normal cannot push it out,
/// and along it the contact's gap would read as a depth; the faces the shape is in front of
/// hold it.
fn to_face_normal_of(shape: &Shape, m: &Manifold, n: Vec3) -> Option<Manifold> {
    if m.normal.dot(n) <= 0.0 {
        return None;
    }
    let mut out = to_face_normal(m, n);
    let radius = match shape {
        Shape::Sphere(s) => s.radius,
        Shape::Capsule(c) => c.radius,
        _ => return Some(out),
    };
    for (p, raw) in out.points_mut().iter_mut().zip(m.points()) {
        // The raw point is midway between the surfaces along the raw normal.
        let core = raw.point + m.normal * (radius - 0.5 * raw.depth);
        p.point = core - n * (radius - 0.5 * p.depth);
    }
    Some(out)
}

/// One manifold from several small ones, each point with its own normal: the deepest point's
/// normal is the manifold's, points whose normal is within [`MERGE_COS`] of it join (their depth
/// the push along it that clears them), and the reduction keeps four of the overlapping points
/// when three or more overlap, else of all within `margin` (both overlapping points among them
/// when two overlap). `None` when nothing is found.
pub(crate) fn merge_by_deepest(found: &[(Vec3, ContactPoint)], margin: Real) -> Option<Manifold> {
    merge_group(found, margin, |_| true).map(|(m, _)| m)
}

/// [`merge_by_deepest`], then again over the points no manifold has taken (whose normal is more
/// than about 25° from every manifold's so far), up to [`MAX_MESH_MANIFOLDS`], each around the
/// deepest point left within `margin`. So a shape across a crease is held along both faces, and
/// one touching a face while it closes on another from another side (a box sliding along a
/// floor toward a wall, a chair's leg swinging down onto another's seat) has rows against both
/// before it arrives (were only an overlapping point to start a further manifold, a box sliding
/// at 30 m/s along a mesh floor would pass through the mesh wall it meets, and one at 20 m/s
/// through a compound's 4 cm wall). Empty manifolds are left out.
pub(crate) fn merge_by_normals(found: &[(Vec3, ContactPoint)], margin: Real) -> MeshManifolds {
    let mut out = MeshManifolds::default();
    let mut normals = [Vec3::ZERO; MAX_MESH_MANIFOLDS];
    let mut k = 0;
    while k < MAX_MESH_MANIFOLDS {
        // Over the points no manifold so far took.
        let free = |n: &Vec3| normals[..k].iter().all(|m| n.dot(*m) < MERGE_COS);
        let Some((m, normal)) = merge_group(found, margin, free) else { break };
        normals[k] = normal;
        k += 1;
        if !m.is_empty() {
            out.push(m);
        }
    }
    out
}

/// The manifold around the deepest of the points `members` accepts by their normal, over those
/// of them whose normal is within [`MERGE_COS`] of its normal, and that normal.
fn merge_group(
    found: &[(Vec3, ContactPoint)],
    margin: Real,
    members: impl Fn(&Vec3) -> bool,
) -> Option<(Manifold, Vec3)> {
    let deepest = |x: &&(Vec3, ContactPoint), y: &&(Vec3, ContactPoint)| {
        x.1.depth.total_cmp(&y.1.depth).then(y.1.id.cmp(&x.1.id))
    };
    let (normal, _) = *found.iter().filter(|x| members(&x.0)).max_by(deepest)?;
    let pts: SmallVec<[ContactPoint; 16]> = found
        .iter()
        .filter_map(|(n, p)| {
            let c = n.dot(normal);
            (c >= MERGE_COS && members(n)).then_some(ContactPoint { depth: p.depth / c, ..*p })
        })
        .filter(|p| p.depth >= -margin)
        .collect();
    // Load-bearing points first: when three or more overlap, the speculative ones (possibly
    // far out beyond the shape's support) do not compete with them for the four places; when
    // two overlap, both are kept (as the diagonal the other two are chosen across), so a
    // speculative point farther out never takes the place of a support.
    let overlapping: SmallVec<[usize; 16]> = (0..pts.len()).filter(|&i| pts[i].depth >= 0.0).collect();
    let m = match overlapping[..] {
        [i, j] => {
            let (deep, other) = if pts[j].depth.total_cmp(&pts[i].depth).is_ge() { (j, i) } else { (i, j) };
            reduce_across(normal, &pts, deep, other)
        }
        [_, _, _, ..] => reduce(normal, &overlapping.iter().map(|&i| pts[i]).collect::<SmallVec<[_; 16]>>()),
        _ => reduce(normal, &pts),
    };
    Some((m, normal))
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

/// [`contact_pair_with`]'s every manifold ([`contact_mesh_shape_manifolds`]), oriented from `a`
/// to `b`; none for a pair without a mesh or with two.
pub fn contact_pair_manifolds(
    a: &Shape,
    pa: &Pose,
    b: &Shape,
    pb: &Pose,
    tol: Tolerance,
    edges: InternalEdges,
) -> MeshManifolds {
    match (MeshRef::of(a), MeshRef::of(b)) {
        (Some(m), None) => contact_mesh_shape_manifolds(m, pa, b, pb, tol, edges),
        (None, Some(m)) => contact_mesh_shape_manifolds(m, pb, a, pa, tol, edges).flipped(),
        _ => MeshManifolds::default(),
    }
}

/// Whether a mesh and a shape touch: some triangle's contact is at least `-eps` deep.
pub fn intersect_pair(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    let tol = Tolerance { margin: eps.max(0.0).sqrt(), epsilon: eps };
    contact_pair(a, pa, b, pb, tol).is_some_and(|m| m.max_depth() >= -tol.margin)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(x: Real, z: Real, depth: Real, id: u32) -> (Vec3, ContactPoint) {
        (Vec3::Y, ContactPoint { point: Vec3::new(x, 0.0, z), depth, id })
    }

    #[test]
    fn two_supports_keep_their_places_against_speculative_points_farther_out() {
        // A stool on its side: the two corners of its seat's lower edge hold it up, its other
        // edge and a leg's tip are a few millimetres above the floor. The supports are 16 cm
        // apart; the upper edge is farther from the deepest corner than the other support.
        let found = [
            at(0.052, 1.0875, 0.0025, 1), // support
            at(0.052, 0.9275, 0.0022, 2), // support
            at(0.0756, 0.9275, -0.0027, 3),
            at(0.0759, 1.0875, -0.0019, 4),
            at(-0.0398, 1.0577, -0.0007, 5), // the leg
        ];
        let m = merge_by_deepest(&found, 0.01).unwrap();
        let ids: Vec<u32> = m.points().iter().map(|p| p.id).collect();
        assert_eq!(m.len(), 4, "{ids:?}");
        assert!(ids.contains(&1) && ids.contains(&2), "a support was dropped: kept {ids:?}");
        // The leg on one side of the supports' line and the upper edge on the other.
        assert!(ids.contains(&5) && (ids.contains(&3) || ids.contains(&4)), "kept {ids:?}");
    }
}
