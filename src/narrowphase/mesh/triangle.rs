//! Convex shapes against one triangle, in the mesh's local frame. Each answer's normal points
//! from the triangle to the shape. Sphere and capsule use exact closest points (their core
//! crossing the triangle pushes along the triangle's normal); boxes and hulls use SAT over the
//! triangle's normal, the shape's face normals and every edge-pair cross product.

use crate::geometry::Shape;
use crate::geometry::segment::closest_points_segments;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::clip::features::{COS_FACE, Feature, SIN_EDGE, manifold_from_features, support_feature};
use crate::narrowphase::manifold::{ContactPoint, Manifold};

/// The point of triangle `abc` nearest to `p` (Ericson, Real-Time Collision Detection 5.1.5),
/// and whether it lies inside the face (not on an edge or a vertex).
pub(super) fn closest_point_triangle(p: Vec3, [a, b, c]: &[Vec3; 3]) -> (Vec3, bool) {
    let (a, b, c) = (*a, *b, *c);
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, false);
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, false);
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), false);
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, false);
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), false);
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), false);
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), true)
}

/// Closest points of segment `pq` and the triangle: `(distance², on segment, on triangle,
/// on the face's interior, crosses)`; `crosses` when the segment passes through the triangle.
pub fn closest_segment_triangle(p: Vec3, q: Vec3, tri: &[Vec3; 3], n: Vec3) -> (Real, Vec3, Vec3, bool, bool) {
    let (sp, sq) = (n.dot(p - tri[0]), n.dot(q - tri[0]));
    if (sp <= 0.0) != (sq <= 0.0) && sp != sq {
        let x = p + (q - p) * (sp / (sp - sq));
        let (y, inside) = closest_point_triangle(x, tri);
        if inside || y.distance_squared(x) == 0.0 {
            return (0.0, x, y, inside, true);
        }
    }
    let mut best = {
        let (y, inside) = closest_point_triangle(p, tri);
        (p.distance_squared(y), p, y, inside, false)
    };
    let (y, inside) = closest_point_triangle(q, tri);
    if q.distance_squared(y) < best.0 {
        best = (q.distance_squared(y), q, y, inside, false);
    }
    for k in 0..3 {
        let (_, _, c1, c2) = closest_points_segments(p, q, tri[k], tri[(k + 1) % 3]);
        if c1.distance_squared(c2) < best.0 {
            best = (c1.distance_squared(c2), c1, c2, false, false);
        }
    }
    best
}

/// A sphere of `radius` centred at `c` against the triangle: one point.
pub(super) fn contact_sphere_triangle(
    c: Vec3,
    radius: Real,
    tri: &[Vec3; 3],
    n: Vec3,
    margin: Real,
) -> Option<Manifold> {
    let (y, _) = closest_point_triangle(c, tri);
    let d = c.distance(y);
    if d > radius + margin {
        return None;
    }
    let normal = if d > 1e-6 * radius { (c - y) / d } else { n };
    // Midway between the triangle's point and the sphere's deepest point.
    Some(Manifold::single(normal, (y + c - normal * radius) * 0.5, radius - d, 0))
}

/// A capsule (segment `p`–`q`, `radius`) against the triangle. Lying on the face it gets the
/// two ends of its segment clipped to the triangle's prism; otherwise one closest point.
pub(super) fn contact_capsule_triangle(
    p: Vec3,
    q: Vec3,
    radius: Real,
    tri: &[Vec3; 3],
    n: Vec3,
    margin: Real,
) -> Option<Manifold> {
    let (d2, on_seg, on_tri, inside, crosses) = closest_segment_triangle(p, q, tri, n);
    let d = d2.sqrt();
    if d > radius + margin {
        return None;
    }
    let face = crosses || (inside && (on_seg - on_tri).dot(n) > 0.0);
    if face && let Some((e0, e1)) = clip_to_prism(p, q, tri, n) {
        let mut m = Manifold::new(n);
        for (k, e) in [e0, e1].into_iter().enumerate() {
            let s = n.dot(e - tri[0]);
            let depth = radius - s;
            if depth >= -margin && (k == 0 || e1.distance_squared(e0) > 1e-12) {
                // Midway between the face and the capsule's surface below this core point.
                m.push(ContactPoint { point: e - n * (s + radius) * 0.5, depth, id: k as u32 });
            }
        }
        if !m.is_empty() {
            return Some(m);
        }
    }
    let normal = if d > 1e-6 * radius { (on_seg - on_tri) / d } else { n };
    Some(Manifold::single(normal, (on_tri + on_seg - normal * radius) * 0.5, radius - d, 2))
}

/// Segment `pq` cut to the triangle's prism (the three planes through its edges, parallel to
/// `n`), or `None` when nothing is left.
fn clip_to_prism(p: Vec3, q: Vec3, tri: &[Vec3; 3], n: Vec3) -> Option<(Vec3, Vec3)> {
    let (mut t0, mut t1): (Real, Real) = (0.0, 1.0);
    let dir = q - p;
    for k in 0..3 {
        let (a, b) = (tri[k], tri[(k + 1) % 3]);
        let inward = n.cross(b - a);
        let (f0, df) = (inward.dot(p - a), inward.dot(dir));
        if df.abs() <= Real::MIN_POSITIVE {
            if f0 < 0.0 {
                return None;
            }
            continue;
        }
        let t = -f0 / df;
        if df > 0.0 {
            t0 = t0.max(t);
        } else {
            t1 = t1.min(t);
        }
    }
    (t0 <= t1).then(|| (p + dir * t0, p + dir * t1))
}

/// Which kind of SAT axis won.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Axis {
    Triangle,
    ShapeFace,
    /// Shape edge direction, triangle edge index.
    Edges(Vec3, usize),
}

/// A box or hull placed once in the mesh frame, for the SAT against each triangle near it: its
/// extent along an axis (a box's in closed form, a hull's over its vertices placed once), its
/// face normals and its edge directions.
pub(crate) struct Polytope<'a> {
    shape: &'a Shape,
    pose: Pose,
    extent: Extent,
    faces: Axes,
    edges: Axes,
}

/// How a polytope's extent along an axis is found.
enum Extent {
    Box {
        centre: Vec3,
        axes: [Vec3; 3],
    },
    /// A hull's vertices, and a few of them (the extreme ones along the mesh frame's axes):
    /// their extent along an axis lies within the hull's, computed the same way, so the overlap
    /// it gives is a lower bound of the hull's that costs a few dot products instead of one per
    /// vertex ([`Polytope::sat`] skips an axis whose bound already loses).
    Points(Vec<Vec3>, [Vec3; 6]),
}

/// Directions in the mesh frame: a box's three axes inline, a hull's in blocks of [`LANES`]
/// by coordinate (the last block padded with zero directions), `len` of them.
enum Axes {
    Three([Vec3; 3]),
    Many { blocks: Vec<Block>, len: usize },
}

/// Axes a hull's SAT prepares at once ([`Prepared`]).
const LANES: usize = 8;
// A block's lanes are bits of a `u32` mask.
const _: () = assert!(LANES < 32);

/// Whether an axis whose overlap is at least `least` changes nothing: not a gap beyond the
/// margin, and no less than the best overlap so far (`best`) once its bias is added. (`&`, not
/// `&&`: the same answer without a branch.)
#[inline(always)]
fn bound_loses(least: Real, margin: Real, bias: Real, best: Real) -> bool {
    (least >= -margin) & (least + bias >= best)
}

/// [`LANES`] directions, by coordinate.
type Block = [[Real; LANES]; 3];

impl Axes {
    /// The directions in blocks.
    fn many(dirs: impl ExactSizeIterator<Item = Vec3>) -> Self {
        let len = dirs.len();
        let mut blocks = Vec::with_capacity(len.div_ceil(LANES));
        let (mut b, mut i) = ([[0.0; LANES]; 3], 0);
        for d in dirs {
            (b[0][i], b[1][i], b[2][i]) = (d.x, d.y, d.z);
            i += 1;
            if i == LANES {
                blocks.push(b);
                (b, i) = ([[0.0; LANES]; 3], 0);
            }
        }
        if i > 0 {
            blocks.push(b);
        }
        Axes::Many { blocks, len }
    }

    /// The directions in order.
    fn iter(&self) -> impl Iterator<Item = Vec3> + '_ {
        let (three, blocks, len) = match self {
            Axes::Three(a) => (&a[..], &[][..], 0),
            Axes::Many { blocks, len } => (&[][..], &blocks[..], *len),
        };
        three.iter().copied().chain((0..len).map(|i| lane(&blocks[i / LANES], i % LANES)))
    }
}

/// Direction `i` of a block.
#[inline(always)]
fn lane(b: &Block, i: usize) -> Vec3 {
    Vec3::new(b[0][i], b[1][i], b[2][i])
}

/// The parts of a block of SAT axes' tests that do not depend on the axes before them, computed
/// lane by lane with the operations [`Polytope::test_axis`] makes, in the same order (the same
/// bits, in a loop the compiler runs [`LANES`] wide): each axis's length, unit direction, the
/// triangle's span along it and the few vertices' bound on the overlap.
struct Prepared {
    len: [Real; LANES],
    l: Block,
    tmin: [Real; LANES],
    tmax: [Real; LANES],
    least: [Real; LANES],
}

impl Prepared {
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // Lane by lane, over several arrays.
    fn new(axes: &Block, tri: &[Vec3; 3], few: &[Vec3; 6]) -> Self {
        let mut p = Prepared {
            len: [0.0; LANES],
            l: [[0.0; LANES]; 3],
            tmin: [0.0; LANES],
            tmax: [0.0; LANES],
            least: [0.0; LANES],
        };
        for i in 0..LANES {
            let (x, y, z) = (axes[0][i], axes[1][i], axes[2][i]);
            // `Vec3::length` and `Vec3::dot`: (x·x + y·y) + z·z.
            let len = (x * x + y * y + z * z).sqrt();
            let (lx, ly, lz) = (x / len, y / len, z / len);
            let dot = |v: Vec3| lx * v.x + ly * v.y + lz * v.z;
            let t = [dot(tri[0]), dot(tri[1]), dot(tri[2])];
            let (tmin, tmax) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
            // `overlap_at_least`.
            let first = dot(few[0]);
            let (mut lo, mut hi) = (first, first);
            for v in &few[1..] {
                let x = dot(*v);
                lo = if x < lo { x } else { lo };
                hi = if x > hi { x } else { hi };
            }
            p.len[i] = len;
            (p.l[0][i], p.l[1][i], p.l[2][i]) = (lx, ly, lz);
            (p.tmin[i], p.tmax[i]) = (tmin, tmax);
            p.least[i] = (tmax - lo).min(hi - tmin);
        }
        p
    }

    /// The lanes [`Polytope::test_prepared`] may not pass over at once with `best` the best
    /// axis so far (bit `i` for lane `i`): those not too short and whose bound does not already
    /// lose to `best` (all of them with none). The best overlap only falls as the axes of a
    /// block are taken in turn (each new best is less than the last less its bias, and the
    /// biases of a hull's axes are not negative), so a lane passed over here would be passed
    /// over in its turn too.
    #[inline(always)]
    #[allow(clippy::needless_range_loop)] // Lane by lane, over several arrays.
    fn open(&self, margin: Real, bias: Real, best: Option<(Real, Vec3, Axis)>) -> u32 {
        let Some(b) = best else { return u32::MAX };
        let mut open = 0;
        for i in 0..LANES {
            let least = self.least[i];
            // `|`, not `||`: the same answer without a branch per lane.
            let pass = (self.len[i] < 1e-6) | bound_loses(least, margin, bias, b.0);
            open |= u32::from(!pass) << i;
        }
        open
    }
}

/// Bits for the lanes below `n`.
#[inline(always)]
fn lanes_below(n: usize) -> u32 {
    if n >= LANES { (1 << LANES) - 1 } else { (1 << n) - 1 }
}

/// The cross products of a block of directions with `t` (`Vec3::cross`, lane by lane).
#[inline(always)]
#[allow(clippy::needless_range_loop)] // Lane by lane, over several arrays.
fn cross_block(e: &Block, t: Vec3) -> Block {
    let mut c = [[0.0; LANES]; 3];
    for i in 0..LANES {
        let (x, y, z) = (e[0][i], e[1][i], e[2][i]);
        c[0][i] = y * t.z - t.y * z;
        c[1][i] = z * t.x - t.z * x;
        c[2][i] = x * t.y - t.x * y;
    }
    c
}

impl<'a> Polytope<'a> {
    /// `shape` (a box or a hull; `None` for any other) at `pose` in the mesh frame.
    pub(crate) fn new(shape: &'a Shape, pose: &Pose) -> Option<Self> {
        let r = |v: Vec3| pose.transform_vector(v);
        let (extent, faces, edges) = match shape {
            Shape::ConvexHull(h) => (
                Extent::points(h.vertices().iter().map(|&v| pose.transform_point(v)).collect()),
                Axes::many(h.faces().iter().map(|f| r(f.normal))),
                Axes::many(h.edge_directions().iter().map(|&e| r(e))),
            ),
            Shape::Cuboid(c) => {
                let h = c.half_extents;
                let (x, y, z) = (r(Vec3::X), r(Vec3::Y), r(Vec3::Z));
                let extent = Extent::Box { centre: pose.translation, axes: [x * h.x, y * h.y, z * h.z] };
                (extent, Axes::Three([x, y, z]), Axes::Three([x, y, z]))
            }
            _ => return None,
        };
        Some(Polytope { shape, pose: *pose, extent, faces, edges })
    }

    /// Calls `f` with each vertex of the placed shape (a box's eight corners, a hull's
    /// vertices), numbered from 0, in the mesh frame.
    pub(crate) fn for_each_vertex(&self, mut f: impl FnMut(u32, Vec3)) {
        match &self.extent {
            Extent::Box { centre, axes } => {
                for i in 0..8u32 {
                    let s = |bit: u32| if i & bit == 0 { -1.0 } else { 1.0 };
                    f(i, *centre + axes[0] * s(1) + axes[1] * s(2) + axes[2] * s(4));
                }
            }
            Extent::Points(p, _) => p.iter().enumerate().for_each(|(i, &v)| f(i as u32, v)),
        }
    }

    /// A hull's box: that of its placed vertices, as [`Shape::aabb`] makes it at the same pose
    /// (`None` for a box).
    pub(crate) fn points_aabb(&self) -> Option<crate::geometry::Aabb> {
        match &self.extent {
            Extent::Points(p, _) => Some(crate::geometry::Aabb::from_points(p.iter().copied())),
            Extent::Box { .. } => None,
        }
    }

    /// The lowest and highest value of `l · x` over the shape.
    #[inline(always)]
    fn along(&self, l: Vec3) -> (Real, Real) {
        match &self.extent {
            Extent::Box { centre, axes } => {
                let (c, r) = (l.dot(*centre), axes.iter().map(|a| l.dot(*a).abs()).sum::<Real>());
                (c - r, c + r)
            }
            Extent::Points(p, _) => extent_of(p, l),
        }
    }

    /// The shape's point extreme along `-dir` (nearest the triangle along `dir`).
    fn support_towards(&self, dir: Vec3) -> Vec3 {
        self.pose.transform_point(self.shape.support(self.pose.inverse_transform_vector(-dir)))
    }

    /// SAT against the triangle over its normal, the shape's face normals and every edge-pair
    /// cross product: the axis of least overlap `(depth, unit axis from the triangle to the
    /// shape, kind)`, each axis's overlap less its bias in `biases` (triangle face, shape face,
    /// edge pair) when comparing. `None` as soon as an axis shows a gap above `margin` (or with
    /// no axis at all).
    #[inline(always)]
    fn sat(&self, tri: &[Vec3; 3], n: Vec3, margin: Real, biases: [Real; 3]) -> Option<(Real, Vec3, Axis)> {
        self.sat_bounded(tri, n, margin, biases, true)
    }

    /// One axis of [`Polytope::sat_bounded`]: false when it shows a gap above `margin`, else
    /// `best` takes it if its overlap less `bias` is the least so far. A function inlined into
    /// the SAT rather than a closure, which the compiler keeps apart from its compiled copies.
    #[inline(always)]
    fn test_axis(
        &self,
        tri: &[Vec3; 3],
        (axis, kind, bias): (Vec3, Axis, Real),
        margin: Real,
        bounded: bool,
        best: &mut Option<(Real, Vec3, Axis)>,
    ) -> bool {
        let len = axis.length();
        if len < 1e-6 {
            return true;
        }
        let l = axis / len;
        let t = [l.dot(tri[0]), l.dot(tri[1]), l.dot(tri[2])];
        let (tmin, tmax) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        // An axis whose overlap is surely no less than the best so far (less its bias) and
        // not a gap beyond the margin changes nothing: skip the hull's full extent. Same
        // answer bit for bit: the bound never exceeds the overlap the full test computes.
        if let (true, Extent::Points(_, few), Some(b)) = (bounded, &self.extent, *best) {
            let least = overlap_at_least(few, l, tmin, tmax);
            if bound_loses(least, margin, bias, b.0) {
                return true;
            }
        }
        self.settle_axis(l, tmin, tmax, (kind, bias), margin, best)
    }

    /// [`Polytope::test_axis`] for lane `i` of a prepared block of a hull's axes (the bound
    /// always used).
    #[inline(always)]
    fn test_prepared(
        &self,
        p: &Prepared,
        i: usize,
        (kind, bias): (Axis, Real),
        margin: Real,
        best: &mut Option<(Real, Vec3, Axis)>,
    ) -> bool {
        if p.len[i] < 1e-6 {
            return true;
        }
        let (tmin, tmax) = (p.tmin[i], p.tmax[i]);
        if let Some(b) = *best {
            let least = p.least[i];
            if bound_loses(least, margin, bias, b.0) {
                return true;
            }
        }
        self.settle_axis(lane(&p.l, i), tmin, tmax, (kind, bias), margin, best)
    }

    /// The end of an axis's test past the bound: the shape's full extent along the unit axis
    /// `l`, against the triangle's `[tmin, tmax]`.
    #[inline(always)]
    fn settle_axis(
        &self,
        l: Vec3,
        tmin: Real,
        tmax: Real,
        (kind, bias): (Axis, Real),
        margin: Real,
        best: &mut Option<(Real, Vec3, Axis)>,
    ) -> bool {
        let (smin, smax) = self.along(l);
        let (up, down) = (tmax - smin, smax - tmin);
        let (depth, l) = if up <= down { (up, l) } else { (down, -l) };
        if depth < -margin {
            return false;
        }
        if best.is_none_or(|b| depth + bias < b.0) {
            *best = Some((depth, l, kind));
        }
        true
    }

    /// [`Polytope::sat`], passing over the axes a hull's few vertices show cannot win when
    /// `bounded` (the same answer either way), a hull's axes then a block at a time
    /// ([`Polytope::hull_axes`]).
    #[inline(always)]
    fn sat_bounded(
        &self,
        tri: &[Vec3; 3],
        n: Vec3,
        margin: Real,
        biases: [Real; 3],
        bounded: bool,
    ) -> Option<(Real, Vec3, Axis)> {
        let mut best: Option<(Real, Vec3, Axis)> = None;
        // Each axis by a call, not a closure, so that every call is inlined.
        if !self.test_axis(tri, (n, Axis::Triangle, biases[0]), margin, bounded, &mut best) {
            return None;
        }
        let edges_t = [tri[1] - tri[0], tri[2] - tri[1], tri[0] - tri[2]];
        // The shape's axes only for the triangles its box did not clear along the normal: a
        // hull's a block at a time (their biases must not be negative, [`Prepared::open`]), else
        // one by one.
        if let (
            true,
            Extent::Points(_, few),
            Axes::Many { blocks: faces, len: nf },
            Axes::Many { blocks: edges, len: ne },
        ) = (bounded && biases[1] >= 0.0 && biases[2] >= 0.0, &self.extent, &self.faces, &self.edges)
        {
            return self.hull_axes(tri, (faces, *nf), (edges, *ne), few, &edges_t, margin, biases, best);
        }
        for f in self.faces.iter() {
            if !self.test_axis(tri, (f, Axis::ShapeFace, biases[1]), margin, bounded, &mut best) {
                return None;
            }
        }
        for e in self.edges.iter() {
            for (k, et) in edges_t.iter().enumerate() {
                if !self.test_axis(tri, (e.cross(*et), Axis::Edges(e, k), biases[2]), margin, bounded, &mut best) {
                    return None;
                }
            }
        }
        best
    }

    /// The rest of [`Polytope::sat_bounded`] for a hull after the triangle's normal (`best` so
    /// far): its face normals, then every edge-pair cross product, in the same order with the
    /// same tests, the parts of each test that do not depend on the axes before it prepared a
    /// block at a time ([`Prepared`]).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn hull_axes(
        &self,
        tri: &[Vec3; 3],
        (faces, nf): (&[Block], usize),
        (edges, ne): (&[Block], usize),
        few: &[Vec3; 6],
        edges_t: &[Vec3; 3],
        margin: Real,
        biases: [Real; 3],
        mut best: Option<(Real, Vec3, Axis)>,
    ) -> Option<(Real, Vec3, Axis)> {
        for (b, block) in faces.iter().enumerate() {
            let p = Prepared::new(block, tri, few);
            let mut open = p.open(margin, biases[1], best) & lanes_below(nf - b * LANES);
            while open != 0 {
                let i = open.trailing_zeros() as usize;
                open &= open - 1;
                if !self.test_prepared(&p, i, (Axis::ShapeFace, biases[1]), margin, &mut best) {
                    return None;
                }
            }
        }
        for (b, block) in edges.iter().enumerate() {
            // Not `map`, whose closure would be compiled apart from this function's copies.
            let p = [
                Prepared::new(&cross_block(block, edges_t[0]), tri, few),
                Prepared::new(&cross_block(block, edges_t[1]), tri, few),
                Prepared::new(&cross_block(block, edges_t[2]), tri, few),
            ];
            let below = lanes_below(ne - b * LANES);
            let open = [
                p[0].open(margin, biases[2], best) & below,
                p[1].open(margin, biases[2], best) & below,
                p[2].open(margin, biases[2], best) & below,
            ];
            let mut any = open[0] | open[1] | open[2];
            while any != 0 {
                let i = any.trailing_zeros() as usize;
                any &= any - 1;
                let e = lane(block, i);
                for (k, p) in p.iter().enumerate() {
                    if open[k] & (1 << i) != 0
                        && !self.test_prepared(p, i, (Axis::Edges(e, k), biases[2]), margin, &mut best)
                    {
                        return None;
                    }
                }
            }
        }
        best
    }
}

impl Extent {
    /// A hull's placed vertices, with the extreme ones along the axes picked out.
    fn points(p: Vec<Vec3>) -> Self {
        let mut few = [p.first().copied().unwrap_or(Vec3::ZERO); 6];
        for v in &p {
            for (k, axis) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
                if axis.dot(*v) < axis.dot(few[2 * k]) {
                    few[2 * k] = *v;
                }
                if axis.dot(*v) > axis.dot(few[2 * k + 1]) {
                    few[2 * k + 1] = *v;
                }
            }
        }
        Extent::Points(p, few)
    }
}

/// A lower bound of the overlap [`Polytope::sat`] finds along the unit axis `l` for a triangle
/// spanning `[tmin, tmax]` along it: the overlap of a few of a hull's vertices (never more than
/// the hull's, rounding included: the same products of the same points, and rounding is
/// monotonic).
fn overlap_at_least(few: &[Vec3; 6], l: Vec3, tmin: Real, tmax: Real) -> Real {
    // Plain comparisons (a NaN product is passed over, as `min` and `max` do).
    let first = l.dot(few[0]);
    let (mut lo, mut hi) = (first, first);
    for v in &few[1..] {
        let x = l.dot(*v);
        if x < lo {
            lo = x;
        }
        if x > hi {
            hi = x;
        }
    }
    (tmax - lo).min(hi - tmin)
}

/// The lowest and highest value of `l · v` over the points.
fn extent_of(points: &[Vec3], l: Vec3) -> (Real, Real) {
    points.iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), v| {
        let x = l.dot(*v);
        (lo.min(x), hi.max(x))
    })
}

crate::simd::compiled_twice! {
    /// A box or hull (placed in the mesh frame) against the triangle, by SAT. The pair is apart
    /// when some axis shows a gap above `margin`; otherwise the axis of least overlap is the
    /// normal and the manifold comes from clipping the two support features. Runs in its
    /// x86-64-v3 copy where the CPU has it (`simd::Compiled`).
    pub(crate) fn contact_polytope_triangle(
        poly: &Polytope,
        tri: &[Vec3; 3],
        n: Vec3,
        margin: Real,
    ) -> Option<Manifold> = contact_polytope_triangle_in, contact_polytope_triangle_v3;
}

/// [`contact_polytope_triangle`]; inlined into both copies, with the SAT.
#[inline(always)]
fn contact_polytope_triangle_in(poly: &Polytope, tri: &[Vec3; 3], n: Vec3, margin: Real) -> Option<Manifold> {
    // Face axes win ties with edge axes (a relative bias keeps resting contacts on faces).
    let (depth, normal, kind) = poly.sat(tri, n, margin, [-1e-5, 0.0, 1e-5])?;
    let (shape, pose) = (poly.shape, &poly.pose);
    let fb = support_feature(shape, pose, -normal);
    let mut fallback = ContactPoint { point: poly.support_towards(normal) + normal * depth * 0.5, depth, id: 0 };
    if let Axis::Edges(_, k) = kind
        && fb.points.len() == 2
    {
        let (_, _, c1, c2) = closest_points_segments(fb.points[0].0, fb.points[1].0, tri[k], tri[(k + 1) % 3]);
        fallback.point = (c1 + c2) * 0.5;
    }
    let fa = triangle_feature(tri, n, normal);
    // No two surface points overlap along the normal by more than the shapes do (clipped
    // features far from the contact can claim more on deep overlaps).
    manifold_from_features(&fa, &fb, normal, fallback, margin, None).map(|mut m| {
        m.points_mut().iter_mut().for_each(|p| p.depth = p.depth.min(depth));
        m
    })
}

/// The triangle's feature extreme along `dir`: its face (either side), an edge or a vertex.
pub(super) fn triangle_feature(tri: &[Vec3; 3], n: Vec3, dir: Vec3) -> Feature {
    let c = n.dot(dir);
    if c >= COS_FACE {
        return Feature {
            points: smallvec::smallvec![(tri[0], 0), (tri[1], 1), (tri[2], 2)],
            face_normal: Some(n),
            tag: 8,
        };
    }
    if c <= -COS_FACE {
        return Feature {
            points: smallvec::smallvec![(tri[0], 0), (tri[2], 2), (tri[1], 1)],
            face_normal: Some(-n),
            tag: 9,
        };
    }
    let proj = tri.map(|v| v.dot(dir));
    let top = (0..3).max_by(|&x, &y| proj[x].total_cmp(&proj[y])).unwrap_or(0);
    for k in [(top + 1) % 3, (top + 2) % 3] {
        let e = tri[k] - tri[top];
        if e.normalize_or_zero().dot(dir.normalize_or_zero()).abs() < SIN_EDGE {
            let (i, j) = (top.min(k), top.max(k));
            return Feature {
                points: smallvec::smallvec![(tri[i], i as u32), (tri[j], j as u32)],
                face_normal: None,
                tag: 4 + (i + j) as u32,
            };
        }
    }
    Feature { points: smallvec::smallvec![(tri[top], top as u32)], face_normal: None, tag: top as u32 }
}

/// A lower bound of the distance from the triangle to a convex shape posed in the mesh frame,
/// measured along a direction: `(gap, unit direction from the triangle to the shape, the
/// shape's point nearest the triangle along it)`. Exact for spheres and capsules (their closest
/// points); for boxes and hulls the largest separation over the SAT axes (the triangle's
/// normal, the shape's faces, the edge pairs), which never exceeds the distance. Negative when
/// they overlap. The gap is the separation of the two along the direction, so a time-of-impact
/// search may advance on it.
pub fn gap_shape_triangle(shape: &Shape, pose: &Pose, tri: &[Vec3; 3], n: Vec3) -> Option<(Real, Vec3, Vec3)> {
    let ball = |c: Vec3, on_tri: Vec3, r: Real, fallback: Vec3| {
        let d = c.distance(on_tri);
        let dir = if d > 1e-9 { (c - on_tri) / d } else { fallback };
        (d - r, dir, c - dir * r)
    };
    match shape {
        Shape::Sphere(s) => {
            let c = pose.translation;
            let (y, _) = closest_point_triangle(c, tri);
            let side = if n.dot(c - tri[0]) >= 0.0 { n } else { -n };
            Some(ball(c, y, s.radius, side))
        }
        Shape::Capsule(k) => {
            let (p, q) = k.segment();
            let (p, q) = (pose.transform_point(p), pose.transform_point(q));
            let (d2, on_seg, on_tri, _, crosses) = closest_segment_triangle(p, q, tri, n);
            if crosses || d2 == 0.0 {
                // The core crosses the triangle: the overlap along the face normal.
                let (sp, sq) = (n.dot(p - tri[0]), n.dot(q - tri[0]));
                let (lo, hi) = (sp.min(sq), sp.max(sq));
                let (gap, dir) = if -lo <= hi { (lo - k.radius, n) } else { (-hi - k.radius, -n) };
                return Some((gap, dir, on_seg - dir * k.radius));
            }
            let side = if n.dot(on_seg - tri[0]) >= 0.0 { n } else { -n };
            Some(ball(on_seg, on_tri, k.radius, side))
        }
        Shape::Cuboid(_) | Shape::ConvexHull(_) => {
            // The largest separation is the least overlap, over the same axes, unbiased.
            let poly = Polytope::new(shape, pose)?;
            let (depth, dir, _) = poly.sat(tri, n, Real::INFINITY, [0.0; 3])?;
            Some((-depth, dir, poly.support_towards(dir)))
        }
        // Compounds are not swept (they meet meshes through speculative contacts).
        Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ConvexHull;
    use crate::math::Quat;
    use std::sync::Arc;

    /// A hull of 8 to 40 random points in a cube of side `size` (its points and shape), or
    /// `None` where they are degenerate.
    fn random_hull(next: &mut impl FnMut() -> Real, size: Real) -> Option<(Vec<Vec3>, Shape)> {
        let count = 8 + (next() * 33.0) as usize;
        let points: Vec<Vec3> =
            (0..count).map(|_| Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * size).collect();
        let hull = ConvexHull::new(&points).ok()?;
        Some((points, Shape::ConvexHull(Arc::new(hull))))
    }

    /// A random triangle nearly flat in `y` about the origin: its half span, corners and unit
    /// normal.
    fn random_triangle(next: &mut impl FnMut() -> Real) -> (Real, [Vec3; 3], Vec3) {
        let span = 0.2 + 3.0 * next();
        let tri = [
            Vec3::new(-span, 0.1 * (next() - 0.5), -span),
            Vec3::new(span * next(), 0.1 * (next() - 0.5), span),
            Vec3::new(span, 0.1 * (next() - 0.5), -span * next()),
        ];
        (span, tri, (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize())
    }

    /// The SAT that passes over axes by the few vertices' bound, a block of a hull's axes at a
    /// time, gives the full SAT's answer bit for bit: random hulls of 8 to 40 points at random poses, resting on, sunk into, hovering
    /// over and apart from random triangles, with the biases of both callers.
    #[test]
    fn bounded_sat_matches_the_full_sat() {
        let mut rng = crate::rng::SplitMix64::new(0x1234_5678);
        let mut next = || rng.next_real();
        let bits = |r: Option<(Real, Vec3, Axis)>| r.map(|(d, l, k)| (d.to_bits(), l.to_array().map(Real::to_bits), k));
        let (mut hulls, mut compared, mut found) = (0, 0, 0);
        for _ in 0..300 {
            let size = 0.05 + 0.5 * next();
            let Some((points, shape)) = random_hull(&mut next, size) else { continue };
            let (span, tri, n) = random_triangle(&mut next);
            for _ in 0..10 {
                let rotation = Quat::from_axis_angle(
                    Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y),
                    7.0 * next(),
                );
                let height = size * (next() - 0.3);
                let at = Vec3::new(span * (next() - 0.5), height, span * (next() - 0.5)) + Vec3::splat(4.0);
                let tri = tri.map(|v| v + Vec3::splat(4.0));
                let poly = Polytope::new(&shape, &Pose::new(at, rotation)).unwrap();
                for (margin, biases) in [(0.02, [-1e-5, 0.0, 1e-5]), (Real::INFINITY, [0.0; 3])] {
                    let full = poly.sat_bounded(&tri, n, margin, biases, false);
                    let bounded = poly.sat_bounded(&tri, n, margin, biases, true);
                    assert_eq!(bits(full), bits(bounded), "hull {points:?} at {at:?} {rotation:?}");
                    compared += 1;
                    found += usize::from(full.is_some());
                }
            }
            hulls += 1;
        }
        assert!(hulls > 250 && compared > 5000 && found > 1000, "{hulls} hulls, {compared} tests, {found} found");
    }

    /// `contact_polytope_triangle` gives the same bits in its baseline copy and its x86-64-v3
    /// copy: boxes and hulls at random poses resting on, sunk into and apart from triangles.
    #[test]
    fn both_compiled_copies_give_the_same_bits() {
        if !crate::simd::x86_64_v3() {
            eprintln!("this CPU lacks x86-64-v3: the triangle contact has only its baseline copy here");
            return;
        }
        let mut rng = crate::rng::SplitMix64::new(0x7a1_c0de);
        let mut next = || rng.next_real();
        let bits = |m: Option<Manifold>| {
            m.map(|m| {
                let points =
                    m.points().iter().map(|p| (p.point.to_array().map(Real::to_bits), p.depth.to_bits(), p.id));
                (m.normal.to_array().map(Real::to_bits), points.collect::<Vec<_>>())
            })
        };
        let mut found = 0;
        for case in 0..400 {
            let size = 0.05 + 0.5 * next();
            let shape = if case % 4 == 0 {
                Shape::cuboid(Vec3::new(next() + 0.1, next() + 0.1, next() + 0.1) * size)
            } else {
                let Some((_, shape)) = random_hull(&mut next, size) else { continue };
                shape
            };
            let (span, tri, n) = random_triangle(&mut next);
            let rotation = Quat::from_axis_angle(
                Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y),
                7.0 * next(),
            );
            let at = Vec3::new(span * (next() - 0.5), size * (next() - 0.3), span * (next() - 0.5));
            let poly = Polytope::new(&shape, &Pose::new(at, rotation)).unwrap();
            // A hull's box from its placed vertices is the shape's box there, bit for bit.
            if let Some(b) = poly.points_aabb() {
                assert_eq!(b, shape.aabb(&Pose::new(at, rotation)), "case {case}");
            }
            let base = contact_polytope_triangle_in(&poly, &tri, n, 0.02);
            found += usize::from(base.is_some());
            // The dispatch runs the x86-64-v3 copy on this CPU (checked above).
            let v3 = contact_polytope_triangle(&poly, &tri, n, 0.02);
            assert_eq!(bits(base), bits(v3), "case {case}: {shape:?} at {at:?} {rotation:?} on {tri:?}");
        }
        assert!(found > 100, "only {found} contacts found");
    }
}
