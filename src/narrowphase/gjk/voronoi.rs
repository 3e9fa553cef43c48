//! Voronoi-region steps of the boolean GJK searches: given the simplex and its newest point,
//! keep the feature whose region holds the origin and say where to search next. One copy
//! serves the plain boolean GJK (`Vec3` points), the 8-vertex hull kernel (`Vec3A` points) and
//! EPA's seed search (support points with their witnesses); `#[inline(always)]` makes each a
//! straight-line copy at its call site, so the generic form costs nothing. The plain boolean
//! GJK keeps its own tetrahedron step: where rounding breaks the winding it flips the normals
//! and goes on instead of handing over as `Flat` (changing that would change its answers).

use crate::math::{Real, Vec3};
use crate::narrowphase::gjk::closest::SupportPoint;
use glam::Vec3A;
use std::ops::{Mul, Neg, Sub};

/// The vector arithmetic the region tests need.
pub(in crate::narrowphase) trait RegionVector:
    Copy + Sub<Output = Self> + Neg<Output = Self> + Mul<Real, Output = Self>
{
    fn dot(self, other: Self) -> Real;
    fn cross(self, other: Self) -> Self;
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
        }
    };
}
region_vector!(Vec3);
region_vector!(Vec3A);

/// A simplex point: its position in the difference, plus whatever the search carries along.
pub(in crate::narrowphase) trait RegionPoint: Copy {
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
/// `Contains`, `p` still holds the triangle.
#[inline(always)]
pub(in crate::narrowphase) fn tetrahedron<P: RegionPoint>(p: &mut [P; 4], a: P) -> Tetrahedron<P::V> {
    let ao = -a.w();
    let (b, c, e) = (p[0], p[1], p[2]);
    let (ab, ac, ae) = (b.w() - a.w(), c.w() - a.w(), e.w() - a.w());
    let (abc, ace, aeb) = (ab.cross(ac), ac.cross(ae), ae.cross(ab));
    // The winding makes these normals point outwards (away from the fourth point); if
    // rounding says otherwise, the simplex is too flat to trust.
    if abc.dot(ae) > 0.0 {
        return Tetrahedron::Flat;
    }
    Tetrahedron::Next(if abc.dot(ao) > 0.0 {
        triangle(p, a, b, c, abc, ao)
    } else if ace.dot(ao) > 0.0 {
        triangle(p, a, c, e, ace, ao)
    } else if aeb.dot(ao) > 0.0 {
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
