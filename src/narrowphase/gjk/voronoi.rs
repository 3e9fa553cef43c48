//! Voronoi-region steps of the boolean GJK searches: given the simplex and its newest point,
//! keep the feature whose region holds the origin and say where to search next. One copy
//! serves the plain boolean GJK (`Vec3` points), the 8-vertex hull kernel (`Vec3A` points) and
//! EPA's seed search (support points with their witnesses); `#[inline(always)]` makes each a
//! straight-line copy at its call site, so the generic form costs nothing. [`search`] is the
//! one loop over these steps, serving all three.

use crate::math::{Real, Vec3};
use crate::narrowphase::gjk::closest::SupportPoint;
use glam::Vec3A;
use std::ops::{Mul, Neg, Sub};

/// The vector arithmetic the region tests need.
pub trait RegionVector: Copy + Sub<Output = Self> + Neg<Output = Self> + Mul<Real, Output = Self> {
    fn dot(self, other: Self) -> Real;
    fn cross(self, other: Self) -> Self;
    fn length_squared(self) -> Real;
}

macro_rules! region_vector {
    ($t:ty) => {
        impl RegionVector for $t {
            #[inline(always)]
            fn dot(self, other: Self) -> Real {
                <$t>::dot(self, other)
            }
            #[inline(always)]
            fn cross(self, other: Self) -> Self {
                <$t>::cross(self, other)
            }
            #[inline(always)]
            fn length_squared(self) -> Real {
                <$t>::length_squared(self)
            }
        }
    };
}
region_vector!(Vec3);
region_vector!(Vec3A);

/// A simplex point: its position in the difference, plus whatever the search carries along.
pub trait RegionPoint: Copy {
    type V: RegionVector;
    fn w(&self) -> Self::V;
}

impl RegionPoint for Vec3 {
    type V = Vec3;
    #[inline(always)]
    fn w(&self) -> Vec3 {
        *self
    }
}

impl RegionPoint for Vec3A {
    type V = Vec3A;
    #[inline(always)]
    fn w(&self) -> Vec3A {
        *self
    }
}

impl RegionPoint for SupportPoint {
    type V = Vec3;
    #[inline(always)]
    fn w(&self) -> Vec3 {
        self.w
    }
}

/// What adding a point to a triangle gives.
pub(in crate::narrowphase) enum Tetrahedron<V> {
    /// The tetrahedron holds the origin.
    Contains,
    /// Too flat to trust (rounding contradicts the winding).
    Flat,
    /// The face nearest the origin, reduced as [`triangle`] does.
    Next(Option<(usize, V)>),
}

/// The triangle `p[0..3]`, wound so that its normal points at the origin, plus the new point
/// `a` beyond it: does the tetrahedron hold the origin, and if not, which face faces it? On
/// `Contains`, `p` still holds the triangle. Where rounding contradicts the winding, `flip`
/// says what to do: `false` gives up (`Flat`), `true` takes the face normals reversed for the
/// region tests and goes on (the plain boolean GJK's rule: changing it would change its answers).
#[inline(always)]
pub(in crate::narrowphase) fn tetrahedron<P: RegionPoint>(p: &mut [P; 4], a: P, flip: bool) -> Tetrahedron<P::V> {
    let ao = -a.w();
    let (b, c, e) = (p[0], p[1], p[2]);
    let (ab, ac, ae) = (b.w() - a.w(), c.w() - a.w(), e.w() - a.w());
    let (abc, ace, aeb) = (ab.cross(ac), ac.cross(ae), ae.cross(ab));
    // The winding makes these normals point outwards (away from the fourth point).
    let flipped = abc.dot(ae) > 0.0;
    if flipped && !flip {
        return Tetrahedron::Flat;
    }
    let out = |n: P::V| if flipped { -n } else { n };
    Tetrahedron::Next(if out(abc).dot(ao) > 0.0 {
        triangle(p, a, b, c, abc, ao)
    } else if out(ace).dot(ao) > 0.0 {
        triangle(p, a, c, e, ace, ao)
    } else if out(aeb).dot(ao) > 0.0 {
        triangle(p, a, e, b, aeb, ao)
    } else {
        return Tetrahedron::Contains;
    })
}

/// The triangle `a, b, c` (`a` newest, `abc = (b - a) × (c - a)`): keeps in `p` the feature
/// whose Voronoi region holds the origin and returns its size and the new search direction;
/// a kept triangle is wound so that its normal points at the origin. `None` when the origin
/// lies on the triangle's plane (or the triangle is flat): the distance GJK decides then.
#[inline(always)]
pub(in crate::narrowphase) fn triangle<P: RegionPoint>(
    p: &mut [P; 4],
    a: P,
    b: P,
    c: P,
    abc: P::V,
    ao: P::V,
) -> Option<(usize, P::V)> {
    let (ab, ac) = (b.w() - a.w(), c.w() - a.w());
    if abc.cross(ac).dot(ao) > 0.0 {
        if ac.dot(ao) > 0.0 {
            *p = [a, c, c, c];
            return Some((2, towards_origin(ac, ao)));
        }
        return Some(edge(p, a, b, ao));
    }
    if ab.cross(abc).dot(ao) > 0.0 {
        return Some(edge(p, a, b, ao));
    }
    let side = abc.dot(ao);
    if side > 0.0 {
        *p = [a, b, c, c];
        Some((3, abc))
    } else if side < 0.0 {
        *p = [a, c, b, b];
        Some((3, -abc))
    } else {
        None
    }
}

/// The edge `a, b` or the vertex `a`, whichever region holds the origin.
#[inline(always)]
pub(in crate::narrowphase) fn edge<P: RegionPoint>(p: &mut [P; 4], a: P, b: P, ao: P::V) -> (usize, P::V) {
    let ab = b.w() - a.w();
    if ab.dot(ao) > 0.0 {
        *p = [a, b, b, b];
        (2, towards_origin(ab, ao))
    } else {
        *p = [a; 4];
        (1, ao)
    }
}

/// The component of `ao` perpendicular to the edge `ab`, scaled by `|ab|²`: the direction from
/// the edge's line towards the origin. Equals `(ab × ao) × ab` but by two dot products
/// instead of two cross products.
#[inline(always)]
pub(in crate::narrowphase) fn towards_origin<V: RegionVector>(ab: V, ao: V) -> V {
    ao * ab.dot(ab) - ab * ab.dot(ao)
}

/// What a Voronoi-region search needs of its caller: the support of the difference, when a new
/// point counts as behind the origin, what to do with a flat tetrahedron, and where the
/// simplices go.
pub(in crate::narrowphase) trait RegionSearch<P: RegionPoint> {
    /// Most support queries.
    const MAX_STEPS: usize;
    /// See [`tetrahedron`].
    const FLIP: bool;
    /// The difference's support point along `d`.
    fn support(&self, d: P::V) -> P;
    /// A new point with `a · d = ad` proves no overlap (it does not pass the origin).
    fn behind(ad: Real) -> bool;
    /// Receives the simplex (`n` points of `p`, newest first) after each step.
    #[inline(always)]
    fn record(&mut self, _p: &[P; 4], _n: usize) {}
}

/// How a region search ended.
pub(in crate::narrowphase) enum Found<P> {
    /// The tetrahedron (newest point first) holds the origin.
    Inside([P; 4]),
    /// A new point `a` is behind the origin along the search direction (`a · d = ad`).
    Behind(Real),
    /// Not decided: no progress (rounding has taken over), a flat simplex, the origin on a
    /// triangle's plane, or out of steps.
    Undecided,
}

/// The one boolean GJK loop by Voronoi regions (no closest points): from the support point
/// along `-start`, add the support point along the direction from the kept feature towards
/// the origin and keep the feature whose region holds it, until a tetrahedron holds the origin
/// or a point fails to pass it. Returns how it ended and the last search direction.
#[inline(always)]
pub(in crate::narrowphase) fn search<P: RegionPoint, S: RegionSearch<P>>(s: &mut S, start: P::V) -> (Found<P>, P::V) {
    let first = s.support(-start);
    // Points newest first; `d` points from the kept feature towards the origin.
    let (mut p, mut n, mut d) = ([first; 4], 1, -first.w());
    s.record(&p, n);
    let scale2 = first.w().length_squared().max(Real::MIN_POSITIVE);
    for _ in 0..S::MAX_STEPS {
        if d.length_squared() <= 1e-10 * scale2 {
            return (Found::Undecided, d);
        }
        let a = s.support(d);
        let ad = a.w().dot(d);
        if S::behind(ad) {
            return (Found::Behind(ad), d);
        }
        // `d` points from the kept feature to the origin, so a new point past the origin is
        // progress; none means the origin sits on the feature (rounding has taken over).
        if ad <= p[0].w().dot(d) {
            return (Found::Undecided, d);
        }
        let step = match n {
            1 => {
                let b = p[0];
                Some(edge(&mut p, a, b, -a.w()))
            }
            2 => {
                let (b, c) = (p[0], p[1]);
                triangle(&mut p, a, b, c, (b.w() - a.w()).cross(c.w() - a.w()), -a.w())
            }
            _ => match tetrahedron(&mut p, a, S::FLIP) {
                Tetrahedron::Contains => {
                    p = [a, p[0], p[1], p[2]];
                    s.record(&p, 4);
                    return (Found::Inside(p), d);
                }
                Tetrahedron::Flat => return (Found::Undecided, d),
                Tetrahedron::Next(step) => step,
            },
        };
        let Some(next) = step else {
            return (Found::Undecided, d);
        };
        (n, d) = next;
        s.record(&p, n);
    }
    (Found::Undecided, d)
}
