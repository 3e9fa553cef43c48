//! Distance and penetration for any pair by GJK (cores, radii added back) and EPA.

use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::epa::{EpaSnapshot, epa};
use crate::narrowphase::gjk::closest::{GjkOutput, MinkowskiPair, Simplex, gjk};
use crate::narrowphase::gjk::seed::overlap_tetrahedron;

/// Signed distance between two posed shapes and the points that realise it (world space).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DistanceResult {
    /// Gap between the surfaces; negative when they overlap (minus the penetration depth).
    pub distance: Real,
    /// Point of A's surface nearest B (deepest into B when overlapping).
    pub point_a: Vec3,
    /// Point of B's surface nearest A (deepest into A when overlapping).
    pub point_b: Vec3,
    /// Unit normal from A to B: moving B along it by `-distance` makes them just touch.
    pub normal: Vec3,
}

impl DistanceResult {
    /// The same answer seen from B.
    pub fn swapped(self) -> Self {
        Self { distance: self.distance, point_a: self.point_b, point_b: self.point_a, normal: -self.normal }
    }
}

/// What the GJK/EPA pipeline did, for the teaching view (A's frame).
#[derive(Clone, Debug, Default)]
pub struct GjkEpaTrace {
    /// GJK's simplex after each iteration.
    pub gjk: Vec<Simplex>,
    /// EPA's polytope after each expansion.
    pub epa: Vec<EpaSnapshot>,
}

/// Signed distance, closest points and normal between any two shapes, by GJK on the cores
/// (sphere centre, capsule segment, box, hull) with the radii added back, and EPA when the
/// cores overlap. Bounded iterations; never NaN.
pub fn distance(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> DistanceResult {
    distance_traced(a, pa, b, pb, None)
}

crate::simd::compiled_twice! {
    /// [`distance`] with the GJK simplices and EPA polytopes recorded into `trace` (A's frame).
    /// Runs in its x86-64-v3 copy where the CPU has it (`simd::Compiled`).
    #[inline(always)]
    pub fn distance_traced(
        a: &Shape,
        pa: &Pose,
        b: &Shape,
        pb: &Pose,
        trace: Option<&mut GjkEpaTrace>,
    ) -> DistanceResult = distance_in, distance_v3;
}

/// [`distance_traced`]; inlined into both copies, with the pair's set-up and the seeded path
/// (the distance GJK and EPA are called).
#[inline(always)]
fn distance_in(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, mut trace: Option<&mut GjkEpaTrace>) -> DistanceResult {
    // A floor or wall many times larger than the other shape is measured by its part near that
    // shape (A only without a trace, whose drawing is in A's frame).
    let near_b = crate::narrowphase::gjk::near_part::near_part(b, pb, a, pa);
    let (b, pb) = near_b.as_ref().map_or((b, pb), |(s, p)| (s, p));
    let near_a = if trace.is_none() { crate::narrowphase::gjk::near_part::near_part(a, pa, b, pb) } else { None };
    let (a, pa) = near_a.as_ref().map_or((a, pa), |(s, p)| (s, p));
    let pair = MinkowskiPair::build(a, pa, b, pb);
    let local = match seeded_penetration(&pair, trace.as_deref_mut()) {
        Some(local) => local,
        None => {
            let g = gjk(&pair, None, trace.as_deref_mut().map(|t| &mut t.gjk));
            local_distance(&pair, &g, trace)
        }
    };
    DistanceResult {
        distance: local.distance,
        point_a: pa.transform_point(local.point_a),
        point_b: pa.transform_point(local.point_b),
        normal: pa.transform_vector(local.normal),
    }
}

/// Two small hulls (the pairs EPA is most used on) are first tested by the boolean GJK that
/// keeps its tetrahedron, and EPA starts from it when the cores overlap: the distance GJK's
/// closest-point work is wasted on a penetrating pair. Pairs not proven overlapping (`None`)
/// get the distance GJK, so their answers are its answers.
#[inline(always)]
fn seeded_penetration(pair: &MinkowskiPair, mut trace: Option<&mut GjkEpaTrace>) -> Option<DistanceResult> {
    if !pair.small_hulls() {
        return None;
    }
    match overlap_tetrahedron(pair, trace.as_deref_mut().map(|t| &mut t.gjk)) {
        Some(tet) => Some(penetration(pair, &Simplex { pts: tet, bary: [0.25; 4], len: 4 }, trace)),
        None => {
            // The distance GJK's steps replace the boolean search's in the trace.
            if let Some(t) = trace {
                t.gjk.clear();
            }
            None
        }
    }
}

/// Distance in A's frame from a finished GJK run.
pub(crate) fn local_distance(pair: &MinkowskiPair, g: &GjkOutput, trace: Option<&mut GjkEpaTrace>) -> DistanceResult {
    let r = pair.radius();
    if !g.overlapping {
        let (ca, cb) = g.simplex.witnesses();
        let d = g.v.length();
        if d > 0.0 {
            let n = -g.v / d;
            return DistanceResult {
                distance: d - r,
                point_a: ca + n * pair.radius_a,
                point_b: cb - n * pair.radius_b,
                normal: n,
            };
        }
    }
    penetration(pair, &g.simplex, trace)
}

/// EPA on the cores when their difference has volume (depth grows by the radii). A flat
/// difference (two points, a point and a segment, two segments) has zero core depth along its
/// normal, so the depth is the sum of the radii along whichever side is shallower.
fn penetration(pair: &MinkowskiPair, simplex: &Simplex, trace: Option<&mut GjkEpaTrace>) -> DistanceResult {
    let (ra, rb) = (pair.radius_a, pair.radius_b);
    if let Some(e) = epa(pair, simplex, trace.map(|t| &mut t.epa)) {
        // EPA's face must lie on the difference's boundary with the origin behind it; rounding
        // in a start simplex that barely holds the origin can leave it outside, and then the
        // face is a far one with the normal reversed. SAT over the cores' axes replaces it.
        let scale = pair.a.bounding_radius() + pair.b.bounding_radius();
        let reach = e.normal.dot(pair.support_core(e.normal).w);
        let sound = e.depth >= -1e-5 * scale && reach - e.depth <= 1e-3 * scale;
        match if sound { None } else { sat_penetration(pair) } {
            Some((depth, n)) => {
                let pa = pair.support_core(n).a + n * ra;
                let depth = depth.max(0.0) + ra + rb;
                return DistanceResult { distance: -depth, point_a: pa, point_b: pa - n * depth, normal: n };
            }
            None => {
                return DistanceResult {
                    distance: -(e.depth.max(0.0) + ra + rb),
                    point_a: e.point_a + e.normal * ra,
                    point_b: e.point_b - e.normal * rb,
                    normal: e.normal,
                };
            }
        }
    }
    let towards_b = -pair.centre_difference();
    let n = flat_normal(pair, simplex, towards_b);
    // Overlap of the cores along n (A to B) is the largest `w . n`.
    let depth_along = |n: Vec3| n.dot(pair.support_core(n).w).max(0.0);
    let (dp, dn) = (depth_along(n), depth_along(-n));
    let n = if dn + 1e-6 < dp || (dn <= dp + 1e-6 && n.dot(towards_b) < 0.0) { -n } else { n };
    let s = pair.support_core(n);
    let depth = depth_along(n) + ra + rb;
    // Witnesses: A's deepest point along n and the matching point of B.
    let pa = s.a + n * ra;
    DistanceResult { distance: -depth, point_a: pa, point_b: pa - n * depth, normal: n }
}

/// Penetration of the cores by exhaustive SAT (A's frame): the least overlap over the face
/// normals of both cores and the cross products of their edge directions (a capsule's segment
/// counts as an edge), with its axis from A to B. Exact for polytope cores and for a segment or
/// point against one; `None` when a core has no axes (two spheres). EPA's fallback only.
fn sat_penetration(pair: &MinkowskiPair) -> Option<(Real, Vec3)> {
    // Face normals and edge directions of a core, in its own frame.
    fn axes(s: &Shape) -> (Vec<Vec3>, Vec<Vec3>) {
        match s {
            Shape::Sphere(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => (vec![], vec![]),
            Shape::Capsule(_) => (vec![], vec![Vec3::Y]),
            Shape::Cuboid(_) => (vec![Vec3::X, Vec3::Y, Vec3::Z], vec![Vec3::X, Vec3::Y, Vec3::Z]),
            Shape::ConvexHull(h) => (h.faces().iter().map(|f| f.normal).collect(), h.edge_directions().to_vec()),
        }
    }
    let (fa, ea) = axes(pair.a);
    let (fb, eb) = axes(pair.b);
    let rot = pair.rotation();
    let (fb, eb): (Vec<Vec3>, Vec<Vec3>) =
        (fb.iter().map(|&n| rot * n).collect(), eb.iter().map(|&d| rot * d).collect());
    let mut best: Option<(Real, Vec3)> = None;
    let mut test = |axis: Vec3| {
        for n in [axis, -axis] {
            let depth = n.dot(pair.support_core(n).w);
            if best.is_none_or(|(d, _)| depth < d) {
                best = Some((depth, n));
            }
        }
    };
    for &n in fa.iter().chain(&fb) {
        test(n);
    }
    for &x in &ea {
        for &y in &eb {
            let c = x.cross(y);
            if c.length_squared() > 1e-8 {
                test(c.normalize());
            }
        }
    }
    best
}

/// The normal of a flat core difference: of its plane when it spans one, perpendicular to its
/// line (leaning towards B) when it is a segment, towards B when it is a point.
fn flat_normal(pair: &MinkowskiPair, simplex: &Simplex, towards_b: Vec3) -> Vec3 {
    let mut pts: Vec<Vec3> = simplex.points().iter().map(|p| p.w).collect();
    for d in [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z] {
        pts.push(pair.support_core(d).w);
    }
    let scale = pts.iter().map(|p| p.length()).fold(pair.radius(), Real::max).max(1e-6);
    let tiny = 1e-5 * scale;
    let far = |from: Vec3, pts: &[Vec3]| {
        pts.iter().copied().max_by(|x, y| x.distance_squared(from).total_cmp(&y.distance_squared(from)))
    };
    let a = pts[0];
    let fallback = towards_b.normalize_or(Vec3::Y);
    let Some(b) = far(a, &pts).filter(|b| b.distance(a) > tiny) else {
        return fallback;
    };
    let u = (b - a).normalize();
    let off_line = |p: Vec3| (p - a).cross(u).length();
    if let Some(c) = pts.iter().copied().max_by(|x, y| off_line(*x).total_cmp(&off_line(*y)))
        && off_line(c) > tiny
    {
        return u.cross(c - a).normalize();
    }
    let side = towards_b - u * towards_b.dot(u);
    side.normalize_or(crate::math::orthonormal_basis(u).0)
}

/// Boolean GJK: the shapes are within `sqrt(r² + eps)` of each other's cores, `r` the sum of
/// their radii (`d² <= r² + eps`, the rule every test uses).
/// Runs the intersection-only GJK (`gjk::boolean`).
pub fn intersect_gjk(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, eps: Real) -> bool {
    crate::narrowphase::gjk::boolean::intersect_gjk_cold(a, pa, b, pb, eps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn spheres_and_boxes_match_closed_forms() {
        let s = Shape::sphere(0.5);
        let d = distance(&s, &Pose::IDENTITY, &s, &Pose::from_translation(Vec3::new(3.0, 0.0, 0.0)));
        assert!((d.distance - 2.0).abs() < 1e-5, "{d:?}");
        assert!((d.normal - Vec3::X).length() < 1e-5);
        assert!((d.point_a - Vec3::new(0.5, 0.0, 0.0)).length() < 1e-5);
        let c = Shape::cuboid(Vec3::splat(1.0));
        let pb = Pose::new(Vec3::new(0.0, 2.5, 0.0), Quat::IDENTITY);
        let d = distance(&c, &Pose::IDENTITY, &c, &pb);
        assert!((d.distance - 0.5).abs() < 1e-5, "{d:?}");
        assert!((d.normal - Vec3::Y).length() < 1e-5, "{d:?}");
        // Overlap by 0.25 along y.
        let pb = Pose::new(Vec3::new(0.1, 1.75, 0.2), Quat::IDENTITY);
        let d = distance(&c, &Pose::IDENTITY, &c, &pb);
        assert!((d.distance + 0.25).abs() < 1e-4, "{d:?}");
        assert!((d.normal - Vec3::Y).length() < 1e-3, "{d:?}");
    }

    /// `distance` gives the same bits in its baseline copy and its x86-64-v3 copy: small hulls
    /// overlapping (the seeded path), touching and apart (the distance GJK), and the other
    /// shapes against them. EPA, called from both, picks its own copy; `epa.rs` compares those.
    #[test]
    fn both_compiled_copies_give_the_same_bits() {
        if !crate::simd::x86_64_v3() {
            eprintln!("this CPU lacks x86-64-v3: distance() has only its baseline copy here");
        }
        use crate::geometry::ConvexHull;
        use crate::narrowphase::epa::tests::{bits, jittered_box};
        use crate::rng::SplitMix64;
        use std::sync::Arc;
        #[cfg(target_arch = "x86_64")]
        if crate::simd::x86_64_v3() {
            let mut rng = SplitMix64::new(0x5eed_c0b1);
            let others = [Shape::sphere(0.4), Shape::capsule(0.3, 0.5), Shape::cuboid(Vec3::new(0.5, 0.3, 0.7))];
            let mut overlapping = 0;
            for case in 0..900 {
                let (va, vb) = (jittered_box(&mut rng), jittered_box(&mut rng));
                let sa = Shape::ConvexHull(Arc::new(ConvexHull::new(&va).unwrap()));
                let sb = match case % 3 {
                    0 => others[case / 3 % others.len()].clone(),
                    _ => Shape::ConvexHull(Arc::new(ConvexHull::new(&vb).unwrap())),
                };
                let pa = Pose::new(rng.unit_vector() * rng.range(0.0, 2.0), rng.rotation());
                let reach = if case % 10 == 0 { 0.0 } else { rng.range(0.0, 2.5) };
                let pb = Pose::new(pa.translation + rng.unit_vector() * reach, rng.rotation());
                let answer = |d: DistanceResult| {
                    let [a, b, n] = [d.point_a, d.point_b, d.normal];
                    bits(&[d.distance, a.x, a.y, a.z, b.x, b.y, b.z, n.x, n.y, n.z])
                };
                for (a, pa, b, pb) in [(&sa, &pa, &sb, &pb), (&sb, &pb, &sa, &pa)] {
                    let base = answer(distance_in(a, pa, b, pb, None));
                    // The dispatch runs the x86-64-v3 copy on this CPU (checked above).
                    let v3 = answer(distance_traced(a, pa, b, pb, None));
                    assert_eq!(base, v3, "case {case}: {a:?} {pa:?} {b:?} {pb:?}");
                    overlapping += (Real::from_bits(base[0]) < 0.0) as usize;
                }
            }
            assert!((300..1500).contains(&overlapping), "{overlapping} of 1800 answers overlapped");
        }
    }

    #[test]
    fn coincident_and_deep_never_nan() {
        let shapes = [Shape::sphere(0.5), Shape::capsule(0.5, 0.25), Shape::cuboid(Vec3::new(1.0, 0.5, 0.25))];
        for a in &shapes {
            for b in &shapes {
                let d = distance(a, &Pose::IDENTITY, b, &Pose::IDENTITY);
                assert!(d.distance.is_finite() && d.distance < 0.0, "{a:?} {b:?} {d:?}");
                assert!((d.normal.length() - 1.0).abs() < 1e-4, "{a:?} {b:?} {d:?}");
                assert!(d.point_a.is_finite() && d.point_b.is_finite());
            }
        }
        let s = Shape::sphere(0.5);
        let d = distance(&s, &Pose::IDENTITY, &s, &Pose::IDENTITY);
        assert!((d.distance + 1.0).abs() < 1e-3, "{d:?}");
    }
}
