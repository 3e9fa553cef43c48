//! Intersection-only GJK: the same iteration as [`crate::narrowphase::gjk::closest::gjk`] (signed-volumes
//! sub-algorithm, same stopping rules) but keeping only the difference points `w`, a
//! fixed-size simplex, support functions resolved at compile time, and an exit as soon as a
//! separating direction proves the pair apart.

use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Real, Vec3};
use crate::narrowphase::gjk::closest::{GjkEnd, Simplex, gjk_loop, rounding};
use crate::narrowphase::gjk::voronoi;

/// The farthest vertex of a point set along `d`.
#[inline(always)]
fn support_points(pts: &[Vec3], d: Vec3) -> Vec3 {
    let mut best = pts[0];
    let mut best_d = best.dot(d);
    for &p in &pts[1..] {
        let pd = p.dot(d);
        if pd > best_d {
            best_d = pd;
            best = p;
        }
    }
    best
}

/// Most steps of the Voronoi-region boolean GJK before it hands over to the distance GJK.
pub(in crate::narrowphase) const MAX_BOOL_STEPS: usize = 32;

/// The support of the difference A - B along a direction: what a boolean GJK search is
/// configured with (`Vec3` points, or `Vec3A` for the 8-vertex hull kernel's lanes).
pub(in crate::narrowphase) trait DifferenceSupport<V> {
    /// The difference's support point along `d`.
    fn w(&self, d: V) -> V;
}

/// A difference support given as a closure.
struct FromFn<F>(F);

impl<V, F: Fn(V) -> V> DifferenceSupport<V> for FromFn<F> {
    #[inline(always)]
    fn w(&self, d: V) -> V {
        (self.0)(d)
    }
}

/// The boolean GJK's configuration of [`voronoi::search`]: difference points only, a point
/// strictly behind the origin ends it, and a tetrahedron whose winding rounding breaks is
/// taken with its normals reversed.
struct Plain<S> {
    support: S,
}

impl<V, S> voronoi::RegionSearch<V> for Plain<S>
where
    V: voronoi::RegionPoint<V = V> + voronoi::RegionVector,
    S: DifferenceSupport<V>,
{
    const MAX_STEPS: usize = MAX_BOOL_STEPS;
    const FLIP: bool = true;

    #[inline(always)]
    fn support(&self, d: V) -> V {
        self.support.w(d)
    }

    #[inline(always)]
    fn behind(ad: Real) -> bool {
        ad < 0.0
    }
}

/// Boolean GJK by Voronoi regions (no closest points) on the difference's support `w`: the
/// simplex only needs to tell on which side of its features the origin lies. `Some(answer)`
/// when decided; `None` when the pair lies within the touching band (a separating plane
/// closer than the reach) or the simplex degenerates, which the distance GJK then settles.
/// Also returns the last direction (from the origin towards the difference), to warm-start
/// the next call.
#[inline(always)]
pub(in crate::narrowphase) fn intersect_regions<V>(
    w: impl DifferenceSupport<V>,
    start: V,
    reach2: Real,
) -> (Option<bool>, V)
where
    V: voronoi::RegionPoint<V = V> + voronoi::RegionVector,
{
    let (found, d) = voronoi::search(&mut Plain { support: w }, start);
    let answer = match found {
        voronoi::Found::Inside(_) => Some(true),
        // The plane through the new point normal to `d` separates the difference from the
        // origin, at distance -ad / |d|: apart if that exceeds the reach, else the distance
        // GJK decides.
        voronoi::Found::Behind(ad) => (ad * ad > reach2 * d.length_squared()).then_some(false),
        voronoi::Found::Undecided => None,
    };
    (answer, -d)
}

/// The first search direction: `start`, or +X when it is (nearly) zero.
#[inline(always)]
pub(in crate::narrowphase) fn search_start(start: Vec3) -> Vec3 {
    if start.length_squared() > Real::MIN_POSITIVE { start } else { Vec3::X }
}

/// Do the cores overlap or lie within `sqrt(r² + eps)` of each other? The Voronoi-region
/// GJK answers most pairs; pairs in the touching band go to the distance GJK below.
pub(crate) fn intersect_cores(
    sa: impl Fn(Vec3) -> Vec3,
    sb: impl Fn(Vec3) -> Vec3,
    start: Vec3,
    r: Real,
    eps: Real,
) -> (bool, Vec3) {
    let start = search_start(start);
    match intersect_regions(FromFn(|d: Vec3| sa(d) - sb(-d)), start, r * r + eps) {
        (Some(hit), v) => (hit, v),
        (None, _) => intersect_cores_distance(sa, sb, start, r, eps),
    }
}

/// Do the cores overlap or lie within `sqrt(r² + eps)` of each other? `sa` is A's core
/// support, `sb` B's, both in A's frame; `start` is the first search direction (any point of
/// the difference, e.g. the difference of the centres, or a cached direction). Returns the
/// answer and the last direction, which warm-starts the next call for the same pair.
pub(crate) fn intersect_cores_distance(
    sa: impl Fn(Vec3) -> Vec3,
    sb: impl Fn(Vec3) -> Vec3,
    start: Vec3,
    r: Real,
    eps: Real,
) -> (bool, Vec3) {
    let reach2 = r * r + eps;
    let (end, _, v, _) = gjk_loop(|d: Vec3| sa(d) - sb(-d), search_start(start), Some(reach2), |_: &Simplex<Vec3>| {});
    let hit = match end {
        GjkEnd::Touching | GjkEnd::Inside => true,
        GjkEnd::Apart => false,
        GjkEnd::Converged | GjkEnd::Stalled | GjkEnd::OutOfSteps => v.length_squared() <= reach2,
    };
    (hit, v)
}

/// B's pose relative to A as a matrix, its transpose and an offset.
struct Relative {
    rot: Mat3,
    rot_t: Mat3,
    offset: Vec3,
}

impl Relative {
    fn from_pose(rel: Pose) -> Self {
        let rot = Mat3::from_quat(rel.rotation);
        Self { rot, rot_t: rot.transpose(), offset: rel.translation }
    }

    /// B's support along `d` (A's frame) given B's local support function.
    #[inline(always)]
    fn support(&self, d: Vec3, local: impl Fn(Vec3) -> Vec3) -> Vec3 {
        self.rot * local(self.rot_t * d) + self.offset
    }
}

/// Boolean GJK for any pair, warm-started from `start` (a direction in world space; pass
/// `Vec3::ZERO` for the centre difference). Returns the answer and the world direction to
/// start from next time.
pub fn intersect_gjk_warm(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, start: Vec3) -> (bool, Vec3) {
    let start = if start == Vec3::ZERO { None } else { Some(pa.inverse_transform_vector(start)) };
    let (hit, v) = intersect_local(a, pa, b, pb, eps, start);
    (hit, pa.transform_vector(v))
}

/// Boolean GJK for any pair from the centre difference, without a direction to return (no
/// work the answer does not need).
pub(crate) fn intersect_gjk_cold(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    intersect_local(a, pa, b, pb, eps, None).0
}

/// The boolean GJK in A's frame: `start` is the first direction (A's frame), `None` for the
/// centre difference. Returns the answer and the last direction (A's frame).
#[inline(always)]
fn intersect_local(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real, start: Option<Vec3>) -> (bool, Vec3) {
    if let (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) = (a, b)
        && let (Some(la), Some(lb)) = (ha.vertex_lanes(), hb.vertex_lanes())
    {
        // Small hulls (boxes, wedges): 8-lane support queries, SIMD where the CPU has it.
        return super::hull8::intersect_hull8(la, lb, pa, pb, start, eps);
    }
    let rel = pa.inv_mul(pb);
    let r = rounding(a) + rounding(b);
    let start = start.unwrap_or(-rel.translation);
    let rel = Relative::from_pose(rel);
    match (a, b) {
        // The common polytope pairs get support functions without any shape dispatch.
        // Large hulls climb their vertex graphs (`ConvexHull::support`) instead of scanning.
        (Shape::ConvexHull(ha), Shape::ConvexHull(hb))
            if ha.vertices().len().max(hb.vertices().len()) > crate::geometry::ConvexHull::CLIMB_MIN_VERTICES =>
        {
            intersect_cores(|d| ha.support(d), |d| rel.support(d, |e| hb.support(e)), start, r, eps)
        }
        (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) => {
            let (va, vb) = (ha.vertices(), hb.vertices());
            intersect_cores(|d| support_points(va, d), |d| rel.support(d, |e| support_points(vb, e)), start, r, eps)
        }
        (Shape::Cuboid(ca), Shape::Cuboid(cb)) => {
            let (ha, hb) = (ca.half_extents, cb.half_extents);
            intersect_cores(|d| box_support(ha, d), |d| rel.support(d, |e| box_support(hb, e)), start, r, eps)
        }
        _ => intersect_cores(|d| a.core_support(d).0, |d| rel.support(d, |e| b.core_support(e).0), start, r, eps),
    }
}

#[inline(always)]
fn box_support(h: Vec3, d: Vec3) -> Vec3 {
    Vec3::select(d.cmplt(Vec3::ZERO), -h, h)
}
