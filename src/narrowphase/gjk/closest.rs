//! GJK on the Minkowski difference of two shapes' cores, with the signed-volumes sub-algorithm
//! (Montanari, Petrinic, Barbieri 2017): it finds the closest point of a simplex to the origin
//! by signed areas and volumes, which stays well defined on flat and degenerate simplices.

use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Real, Vec3};
use crate::narrowphase::gjk::voronoi::RegionPoint;
use crate::simd::lanes8::Lanes;
use crate::simd::{Avx, Kernels};

/// Most GJK iterations; convex pairs converge in far fewer, this only bounds the worst case.
pub(crate) const MAX_GJK_ITERATIONS: usize = 64;
/// GJK stops once `|v|² - v·w <= GJK_REL_TOL * |v|²`: the distance is then exact to this
/// relative amount.
pub(crate) const GJK_REL_TOL: Real = 1e-6;
/// `|v|²` below this fraction of the largest `|w|²` counts as the origin on the difference.
pub(crate) const GJK_TOUCH_TOL: Real = 1e-10;

/// A point of the Minkowski difference `w = a - b` with the two support points that made it,
/// all in A's local frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SupportPoint {
    pub w: Vec3,
    pub a: Vec3,
    pub b: Vec3,
}

/// Two posed shapes seen from A's frame, answering support queries on their difference.
pub struct MinkowskiPair<'s> {
    /// Shape A.
    pub a: &'s Shape,
    /// Shape B.
    pub b: &'s Shape,
    /// B's rotation relative to A, and its transpose.
    rot: Mat3,
    rot_t: Mat3,
    /// B's origin in A's frame.
    offset: Vec3,
    /// The radius A's core is rounded by.
    pub radius_a: Real,
    /// The radius B's core is rounded by.
    pub radius_b: Real,
    /// Two small hulls (≤ 8 vertices each): A's vertices and B's moved into A's frame once,
    /// so a support query is eight dot products per shape and no rotation.
    lanes: Option<(Lanes, Lanes)>,
}

impl<'s> MinkowskiPair<'s> {
    /// The pair of `a` at `pa` and `b` at `pb`.
    pub fn new(a: &'s Shape, pa: &Pose, b: &'s Shape, pb: &Pose) -> Self {
        Self::build(a, pa, b, pb)
    }

    /// [`Self::new`], inlined (into the x86-64-v3 copy of `distance`, see [`crate::simd`]).
    #[inline(always)]
    pub(crate) fn build(a: &'s Shape, pa: &Pose, b: &'s Shape, pb: &Pose) -> Self {
        let rel = pa.inv_mul(pb);
        let rot = Mat3::from_quat(rel.rotation);
        let lanes = match (a, b) {
            (Shape::ConvexHull(ha), Shape::ConvexHull(hb)) => match (ha.vertex_lanes(), hb.vertex_lanes()) {
                (Some(la), Some(lb)) => Some((Lanes(*la), Lanes(*lb).transformed(&rot, rel.translation))),
                _ => None,
            },
            _ => None,
        };
        Self {
            lanes,
            a,
            b,
            rot,
            rot_t: rot.transpose(),
            offset: rel.translation,
            radius_a: rounding(a),
            radius_b: rounding(b),
        }
    }

    /// Both shapes are hulls of at most 8 vertices (support queries on lanes, no rounding).
    pub fn small_hulls(&self) -> bool {
        self.lanes.is_some()
    }

    /// Sum of the two rounding radii (sphere and capsule radii; zero for polytopes).
    pub fn radius(&self) -> Real {
        self.radius_a + self.radius_b
    }

    /// Support of the difference of the cores along `d` (A's frame).
    #[inline]
    pub fn support_core(&self, d: Vec3) -> SupportPoint {
        if let Some(l) = &self.lanes {
            return lanes_support(l, d, Avx::best());
        }
        let a = self.a.core_support(d).0;
        let b = self.rot * self.b.core_support(self.rot_t * -d).0 + self.offset;
        SupportPoint { w: a - b, a, b }
    }

    /// [`Self::support_core`] for loops that query it many times: the small-hull case inlined
    /// into the caller (the general query is too large to inline).
    #[inline(always)]
    pub(crate) fn support_fast(&self, d: Vec3) -> SupportPoint {
        match &self.lanes {
            Some(l) => lanes_support(l, d, Avx::best()),
            None => self.support_core(d),
        }
    }

    /// Support of the difference with `r_a`, `r_b` of rounding added back along `d`.
    #[inline]
    pub fn support_rounded(&self, d: Vec3, r_a: Real, r_b: Real) -> SupportPoint {
        let s = self.support_core(d);
        let u = d.normalize_or_zero();
        let (a, b) = (s.a + u * r_a, s.b - u * r_b);
        SupportPoint { w: a - b, a, b }
    }

    /// B's rotation relative to A.
    pub fn rotation(&self) -> Mat3 {
        self.rot
    }

    /// A point inside the difference of the cores: centre of A minus centre of B.
    pub fn centre_difference(&self) -> Vec3 {
        -self.offset
    }
}

/// The support of the difference of two lane sets along `d`, on the given kernel (AVX or
/// SSE2); the same bits.
#[inline(always)]
fn lanes_support(l: &(Lanes, Lanes), d: Vec3, kernel: Avx) -> SupportPoint {
    let (a, b) = l.0.support_pair(&l.1, d, kernel);
    SupportPoint { w: a - b, a, b }
}

/// The radius a shape's core is rounded by (no support query needed).
pub(in crate::narrowphase) fn rounding(s: &Shape) -> Real {
    match s {
        Shape::Sphere(x) => x.radius,
        Shape::Capsule(x) => x.radius,
        Shape::Cuboid(_)
        | Shape::ConvexHull(_)
        | Shape::TriangleMesh(_)
        | Shape::HeightField(_)
        | Shape::Compound(_) => 0.0,
    }
}

/// A simplex of up to four points and the barycentric weights of its closest point to the
/// origin: support points with their witnesses (the default), or bare difference points for the
/// boolean search.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Simplex<P = SupportPoint> {
    pub pts: [P; 4],
    pub bary: [Real; 4],
    pub len: usize,
}

impl<P: RegionPoint<V = Vec3> + Default> Simplex<P> {
    pub fn single(p: P) -> Self {
        Self { pts: [p; 4], bary: [1.0, 0.0, 0.0, 0.0], len: 1 }
    }

    pub fn points(&self) -> &[P] {
        &self.pts[..self.len]
    }

    /// The closest point of the simplex to the origin, by the weights.
    pub fn closest(&self) -> Vec3 {
        (0..self.len).fold(Vec3::ZERO, |acc, i| acc + self.pts[i].w() * self.bary[i])
    }

    fn push(&mut self, p: P) {
        self.pts[self.len] = p;
        self.len += 1;
    }

    /// Replaces the simplex by the smallest sub-simplex holding its closest point to the origin,
    /// and sets the weights. Returns that closest point.
    #[inline(always)]
    pub fn reduce(&mut self) -> Vec3 {
        let w: [Vec3; 4] = [self.pts[0].w(), self.pts[1].w(), self.pts[2].w(), self.pts[3].w()];
        let (lambda, mask) = match self.len {
            1 => ([1.0, 0.0, 0.0, 0.0], 1u8),
            2 => {
                let (l, m) = s1d([w[0], w[1]]);
                ([l[0], l[1], 0.0, 0.0], m)
            }
            3 => {
                let (l, m) = s2d([w[0], w[1], w[2]]);
                ([l[0], l[1], l[2], 0.0], m)
            }
            _ => s3d(w),
        };
        let mut out = Simplex::default();
        for (i, (&pt, &lam)) in self.pts[..self.len].iter().zip(&lambda).enumerate() {
            if mask & (1 << i) != 0 {
                out.pts[out.len] = pt;
                out.bary[out.len] = lam;
                out.len += 1;
            }
        }
        *self = out;
        self.closest()
    }
}

impl Simplex {
    /// Witness points on A and B, by the weights (A's frame).
    pub fn witnesses(&self) -> (Vec3, Vec3) {
        (0..self.len).fold((Vec3::ZERO, Vec3::ZERO), |(pa, pb), i| {
            (pa + self.pts[i].a * self.bary[i], pb + self.pts[i].b * self.bary[i])
        })
    }
}

#[inline]
fn same_sign(a: Real, b: Real) -> bool {
    (a > 0.0 && b > 0.0) || (a < 0.0 && b < 0.0)
}

/// Closest point of a segment to the origin: weights and the mask of vertices kept.
pub(crate) fn s1d(p: [Vec3; 2]) -> ([Real; 2], u8) {
    let t = p[1] - p[0];
    let tt = t.length_squared();
    if tt <= Real::MIN_POSITIVE {
        return if p[1].length_squared() < p[0].length_squared() { ([0.0, 1.0], 0b10) } else { ([1.0, 0.0], 0b01) };
    }
    let s = -p[0].dot(t) / tt;
    if s <= 0.0 {
        ([1.0, 0.0], 0b01)
    } else if s >= 1.0 {
        ([0.0, 1.0], 0b10)
    } else {
        ([1.0 - s, s], 0b11)
    }
}

/// Signed twice-area of the triangle `a b c` projected on the plane of axes `I`, `J`.
#[inline(always)]
fn area2<const I: usize, const J: usize>(a: Vec3, b: Vec3, c: Vec3) -> Real {
    (b[I] - a[I]) * (c[J] - a[J]) - (b[J] - a[J]) * (c[I] - a[I])
}

/// The triangle's projected area and the three sub-areas with `x` in place of each vertex.
#[inline(always)]
fn areas<const I: usize, const J: usize>(p: [Vec3; 3], x: Vec3) -> (Real, [Real; 3]) {
    (
        area2::<I, J>(p[0], p[1], p[2]),
        [area2::<I, J>(x, p[1], p[2]), area2::<I, J>(p[0], x, p[2]), area2::<I, J>(p[0], p[1], x)],
    )
}

/// Closest point of a triangle to the origin by signed areas in the best projection plane.
pub(crate) fn s2d(p: [Vec3; 3]) -> ([Real; 3], u8) {
    let n = (p[1] - p[0]).cross(p[2] - p[0]);
    let nn = n.length_squared();
    let mut c = [0.0; 3];
    let mut mu = 0.0;
    if nn > Real::MIN_POSITIVE {
        // The origin projected on the triangle's plane.
        let x = n * (p[0].dot(n) / nn);
        let an = n.abs();
        let k = if an.x >= an.y && an.x >= an.z {
            0
        } else if an.y >= an.z {
            1
        } else {
            2
        };
        // One monomorphic copy per projection plane: no run-time indexing of coordinates.
        (mu, c) = match k {
            0 => areas::<1, 2>(p, x),
            1 => areas::<2, 0>(p, x),
            _ => areas::<0, 1>(p, x),
        };
        if same_sign(mu, c[0]) && same_sign(mu, c[1]) && same_sign(mu, c[2]) {
            return ([c[0] / mu, c[1] / mu, c[2] / mu], 0b111);
        }
    }
    // The origin projects outside (or the triangle is degenerate): the nearest edge wins.
    let mut best = ([1.0, 0.0, 0.0], 0b001u8);
    let mut best_d = p[0].length_squared();
    for (skip, &cs) in c.iter().enumerate() {
        if mu != 0.0 && same_sign(mu, cs) {
            continue;
        }
        let (i0, i1) = ((skip + 1) % 3, (skip + 2) % 3);
        let (l, m) = s1d([p[i0], p[i1]]);
        let d = (p[i0] * l[0] + p[i1] * l[1]).length_squared();
        if d < best_d {
            best_d = d;
            let mut lam = [0.0; 3];
            lam[i0] = l[0];
            lam[i1] = l[1];
            let mask = ((m & 1) << i0) | (((m >> 1) & 1) << i1);
            best = (lam, mask);
        }
    }
    best
}

/// Closest point of a tetrahedron to the origin by signed volumes.
pub(crate) fn s3d(p: [Vec3; 4]) -> ([Real; 4], u8) {
    let (e1, e2, e3) = (p[1] - p[0], p[2] - p[0], p[3] - p[0]);
    let det = e1.dot(e2.cross(e3));
    let c = [p[1].dot(p[2].cross(p[3])), -p[0].dot(e2.cross(e3)), e1.dot((-p[0]).cross(e3)), e1.dot(e2.cross(-p[0]))];
    if c.iter().all(|&ci| same_sign(det, ci)) {
        return ([c[0] / det, c[1] / det, c[2] / det, c[3] / det], 0b1111);
    }
    let mut best = ([1.0, 0.0, 0.0, 0.0], 0b0001u8);
    let mut best_d = Real::INFINITY;
    for (skip, &cs) in c.iter().enumerate() {
        if det != 0.0 && same_sign(det, cs) {
            continue;
        }
        let idx: [usize; 3] = match skip {
            0 => [1, 2, 3],
            1 => [0, 2, 3],
            2 => [0, 1, 3],
            _ => [0, 1, 2],
        };
        let (l, m) = s2d([p[idx[0]], p[idx[1]], p[idx[2]]]);
        let x = p[idx[0]] * l[0] + p[idx[1]] * l[1] + p[idx[2]] * l[2];
        let d = x.length_squared();
        if d < best_d {
            best_d = d;
            let mut lam = [0.0; 4];
            let mut mask = 0u8;
            for k in 0..3 {
                lam[idx[k]] = l[k];
                if m & (1 << k) != 0 {
                    mask |= 1 << idx[k];
                }
            }
            best = (lam, mask);
        }
    }
    best
}

/// What GJK found about the cores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GjkOutput {
    /// The final simplex; its closest point `v` is the difference of the witness points.
    pub simplex: Simplex,
    /// Closest point of the core difference to the origin (A's frame).
    pub v: Vec3,
    /// The cores touch or overlap: `v` is (numerically) the origin.
    pub overlapping: bool,
    pub iterations: u32,
}

/// How a run of the distance GJK loop ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GjkEnd {
    /// `v` is (numerically) the origin: the cores touch or overlap.
    Touching,
    /// A separating plane farther than the reach proves the cores apart.
    Apart,
    /// The new support point brings `v` no nearer (relative tolerance, or a repeated point).
    Converged,
    /// The simplex became a tetrahedron holding the origin.
    Inside,
    /// The reduced simplex is no nearer: rounding has taken over, the previous one is kept.
    Stalled,
    /// `MAX_GJK_ITERATIONS` support queries.
    OutOfSteps,
}

/// The one distance GJK loop (signed volumes), generic over the simplex's points:
/// `support(d)` is the difference's support point along `d`, `dir` the first search direction
/// (the first point is `support(-dir)`), `reach2` (if any) ends the search once a separating
/// plane proves the cores farther apart than `sqrt(reach2)`, and `on_step` sees the simplex at
/// the start and after every reduction. Returns how it ended, the simplex, the last closest
/// point `v` (before the step that ended it) and the number of support queries after the
/// first.
#[inline(always)]
pub(crate) fn gjk_loop<P: RegionPoint<V = Vec3> + Default>(
    support: impl Fn(Vec3) -> P,
    dir: Vec3,
    reach2: Option<Real>,
    mut on_step: impl FnMut(&Simplex<P>),
) -> (GjkEnd, Simplex<P>, Vec3, u32) {
    let first = support(-dir);
    let mut simplex = Simplex::single(first);
    let mut v = first.w();
    let mut max_w2 = v.length_squared();
    let mut iterations = 0;
    on_step(&simplex);
    while iterations < MAX_GJK_ITERATIONS as u32 {
        let v2 = v.length_squared();
        if v2 <= GJK_TOUCH_TOL * max_w2.max(Real::MIN_POSITIVE) {
            return (GjkEnd::Touching, simplex, v, iterations);
        }
        iterations += 1;
        let w = support(-v);
        let vw = v.dot(w.w());
        if let Some(reach2) = reach2
            && vw > 0.0
            && vw * vw > reach2 * v2
        {
            return (GjkEnd::Apart, simplex, v, iterations);
        }
        if v2 - vw <= GJK_REL_TOL * v2 || simplex.points().iter().any(|p| p.w() == w.w()) {
            return (GjkEnd::Converged, simplex, v, iterations);
        }
        max_w2 = max_w2.max(w.w().length_squared());
        let prev = simplex;
        simplex.push(w);
        let nv = simplex.reduce();
        on_step(&simplex);
        if simplex.len == 4 {
            return (GjkEnd::Inside, simplex, v, iterations);
        }
        if nv.length_squared() >= v2 {
            return (GjkEnd::Stalled, prev, v, iterations);
        }
        v = nv;
    }
    (GjkEnd::OutOfSteps, simplex, v, iterations)
}

/// GJK distance between the cores. `stop_when_separated_by`, if finite, ends the search as
/// soon as a separating plane proves the cores are farther apart than that (with the same
/// `d² <= r² + eps` rule as everywhere else), which is all a boolean test needs.
/// `trace` receives the simplex after every iteration. Inlined into its callers, so that
/// a routine compiled twice (`simd::Compiled`) runs the search in its own copy.
#[inline(always)]
pub fn gjk(
    pair: &MinkowskiPair,
    stop_when_separated_by: Option<(Real, Real)>,
    mut trace: Option<&mut Vec<Simplex>>,
) -> GjkOutput {
    let mut dir = pair.centre_difference();
    if dir.length_squared() <= Real::MIN_POSITIVE {
        dir = Vec3::X;
    }
    let reach2 = stop_when_separated_by.map(|(r, eps)| r * r + eps);
    let (end, simplex, v, iterations) = gjk_loop(
        |d| pair.support_core(d),
        dir,
        reach2,
        |s| {
            if let Some(t) = trace.as_deref_mut() {
                t.push(*s);
            }
        },
    );
    let overlapping = matches!(end, GjkEnd::Touching | GjkEnd::Inside);
    GjkOutput { simplex, v: if overlapping { Vec3::ZERO } else { v }, overlapping, iterations }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lane_support_matches_a_scan_on_every_path() {
        let mut seed = 99u32;
        let mut rnd = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as Real / (1u32 << 24) as Real * 2.0 - 1.0
        };
        for n in 1..=8 {
            for _ in 0..200 {
                let pts: Vec<Vec3> = (0..n).map(|_| Vec3::new(rnd(), rnd(), rnd())).collect();
                // Axis directions make ties between points with equal coordinates.
                let mut pts = pts;
                if n > 2 {
                    pts[2] = Vec3::new(pts[1].x, rnd(), rnd());
                }
                let l = Lanes::new(pts.iter().copied());
                // Moving the lanes is `rot * p + offset`, bit for bit.
                let rot = Mat3::from_quat(crate::math::Quat::from_euler(glam::EulerRot::XYZ, rnd(), rnd(), rnd()));
                let offset = Vec3::new(rnd(), rnd(), rnd());
                let moved = l.transformed(&rot, offset);
                assert_eq!(moved.0, l.transformed_portable(&rot, offset).0);
                for (i, &p) in pts.iter().enumerate() {
                    assert_eq!(moved.point(i), rot * p + offset);
                }
                for d in [Vec3::new(rnd(), rnd(), rnd()), Vec3::X, Vec3::NEG_X, Vec3::ZERO] {
                    let mut best = pts[0];
                    for &p in &pts[1..] {
                        if p.dot(d) > best.dot(d) {
                            best = p;
                        }
                    }
                    assert_eq!(l.support(d), best, "{pts:?} {d:?}");
                    assert_eq!(l.support_portable(d), best, "{pts:?} {d:?}");
                    // The pair query on every kernel this CPU runs (`l` against itself moved).
                    let pair = (Lanes::new(pts.iter().copied()), l.transformed(&rot, offset));
                    let want = lanes_support(&pair, d, Avx::Portable);
                    assert_eq!(want.a, best, "{pts:?} {d:?}");
                    for kernel in Avx::available() {
                        assert_eq!(lanes_support(&pair, d, kernel), want, "{pts:?} {d:?} {kernel:?}");
                    }
                }
                // Directions that make some lanes' dot products NaN (infinity times a zero
                // coordinate): the SSE2 and AVX queries still pick the same lanes.
                if Avx::available().contains(&Avx::Avx) {
                    let mut flat = pts.clone();
                    for p in flat.iter_mut().step_by(2) {
                        p.x = 0.0;
                    }
                    let pair = (Lanes::new(flat.iter().copied()), Lanes::new(flat.iter().rev().copied()));
                    for d in [Vec3::new(Real::INFINITY, rnd(), rnd()), Vec3::new(Real::NEG_INFINITY, rnd(), rnd())] {
                        let (avx, sse) = (lanes_support(&pair, d, Avx::Avx), lanes_support(&pair, d, Avx::Portable));
                        assert_eq!(avx, sse, "{flat:?} {d:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn sub_algorithm_finds_face_edge_and_vertex_regions() {
        // Triangle in the plane z = 1 around the z axis: the face region.
        let tri = [Vec3::new(-1.0, -1.0, 1.0), Vec3::new(1.0, -1.0, 1.0), Vec3::new(0.0, 1.0, 1.0)];
        let (l, m) = s2d(tri);
        assert_eq!(m, 0b111);
        let x = tri[0] * l[0] + tri[1] * l[1] + tri[2] * l[2];
        assert!((x - Vec3::Z).length() < 1e-6);
        // Shifted so the origin faces a vertex.
        let t2 = tri.map(|p| p + Vec3::new(3.0, 3.0, 0.0));
        let (_, m) = s2d(t2);
        assert_eq!(m, 0b001);
        // A tetrahedron around the origin.
        let tet = [Vec3::new(1.0, 0.0, -1.0), Vec3::new(-1.0, 1.0, -1.0), Vec3::new(-1.0, -1.0, -1.0), Vec3::Z];
        let (l, m) = s3d(tet);
        assert_eq!(m, 0b1111);
        assert!((l.iter().sum::<Real>() - 1.0).abs() < 1e-6);
        // Degenerate (flat) tetrahedron never yields NaN.
        let flat =
            [Vec3::new(1.0, 1.0, 1.0), Vec3::new(2.0, 1.0, 1.0), Vec3::new(1.0, 2.0, 1.0), Vec3::new(2.0, 2.0, 1.0)];
        let (l, _) = s3d(flat);
        assert!(l.iter().all(|x| x.is_finite()));
    }
}
