use super::slab::SlabAxis;
use crate::math::{Real, Vec3};
use serde::{Deserialize, Serialize};

/// An axis-aligned bounding box. `min <= max` on every axis; zero thickness is allowed.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Aabb {
    /// The lower corner.
    pub min: Vec3,
    /// The upper corner.
    pub max: Vec3,
}

impl Aabb {
    /// The empty box: merging anything into it gives that thing.
    pub const EMPTY: Aabb = Aabb { min: Vec3::splat(Real::INFINITY), max: Vec3::splat(Real::NEG_INFINITY) };

    /// The box between two corners.
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The box of this centre and half extents.
    pub fn from_center_half_extents(center: Vec3, half: Vec3) -> Self {
        Self { min: center - half, max: center + half }
    }

    /// The smallest box holding every point.
    pub fn from_points(points: impl IntoIterator<Item = Vec3>) -> Self {
        points.into_iter().fold(Self::EMPTY, |b, p| Aabb { min: b.min.min(p), max: b.max.max(p) })
    }

    /// Whether the boxes are the same bit for bit (a broad phase may order boxes by their bits;
    /// `-0.0` and `0.0` differ, NaNs with the same bits are the same).
    #[inline(always)]
    pub fn same_bits(&self, o: &Aabb) -> bool {
        let f = |x: Real, y: Real| x.to_bits() ^ y.to_bits();
        let (p, q, r, t) = (self.min, o.min, self.max, o.max);
        (f(p.x, q.x) | f(p.y, q.y) | f(p.z, q.z) | f(r.x, t.x) | f(r.y, t.y) | f(r.z, t.z)) == 0
    }

    #[inline]
    /// Whether the boxes overlap (touching counts).
    pub fn overlaps(&self, o: &Aabb) -> bool {
        self.min.x <= o.max.x
            && o.min.x <= self.max.x
            && self.min.y <= o.max.y
            && o.min.y <= self.max.y
            && self.min.z <= o.max.z
            && o.min.z <= self.max.z
    }

    #[inline]
    /// How far the point is from the box (0 inside it or on its surface).
    pub fn distance_to_point(&self, p: Vec3) -> Real {
        p.distance(p.clamp(self.min, self.max))
    }

    #[inline]
    /// Whether the point lies in the box (on its surface counts).
    pub fn contains_point(&self, p: Vec3) -> bool {
        p.cmpge(self.min).all() && p.cmple(self.max).all()
    }

    /// True when `o` lies entirely inside `self`.
    #[inline]
    pub fn contains(&self, o: &Aabb) -> bool {
        o.min.cmpge(self.min).all() && o.max.cmple(self.max).all()
    }

    #[inline]
    /// The smallest box holding both.
    pub fn merge(&self, o: &Aabb) -> Aabb {
        Aabb { min: self.min.min(o.min), max: self.max.max(o.max) }
    }

    #[inline]
    /// The box grown by `margin` on every side.
    pub fn expanded(&self, margin: Real) -> Aabb {
        Aabb { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// Corner `i` of 8: bit 0 picks max x, bit 1 max y, bit 2 max z.
    pub fn corner(&self, i: usize) -> Vec3 {
        Vec3::new(
            if i & 1 == 0 { self.min.x } else { self.max.x },
            if i & 2 == 0 { self.min.y } else { self.max.y },
            if i & 4 == 0 { self.min.z } else { self.max.z },
        )
    }

    /// Its centre.
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half its size on each axis.
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// Its size on each axis.
    pub fn extents(&self) -> Vec3 {
        self.max - self.min
    }

    /// Its surface area (the BVH's insertion cost).
    pub fn surface_area(&self) -> Real {
        let d = (self.max - self.min).max(Vec3::ZERO);
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// Whether its corners are finite and in order.
    pub fn is_valid(&self) -> bool {
        self.min.is_finite() && self.max.is_finite() && self.min.cmple(self.max).all()
    }

    /// Slab-method ray test. Returns the entry and exit parameters `(t_enter, t_exit)` within
    /// `[0, max_t]`, or `None`. A direction component of zero means the ray is parallel to that
    /// slab: it hits only if its origin lies between the slab planes. No division by zero occurs.
    /// [`Aabb::slab_trace`] lists the same steps.
    pub fn ray_interval(&self, origin: Vec3, dir: Vec3, max_t: Real) -> Option<(Real, Real)> {
        let mut t0: Real = 0.0;
        let mut t1: Real = max_t;
        for a in 0..3 {
            match super::slab::slab_axis(origin[a], dir[a], self.min[a], self.max[a]) {
                SlabAxis::ParallelOutside => return None,
                SlabAxis::ParallelInside => {}
                SlabAxis::Crosses { t_near, t_far } => {
                    t0 = t0.max(t_near);
                    t1 = t1.min(t_far);
                    if t0 > t1 {
                        return None;
                    }
                }
            }
        }
        Some((t0, t1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_to_a_point_is_zero_inside_and_to_the_nearest_feature_outside() {
        let b = Aabb::new(Vec3::ZERO, Vec3::ONE);
        assert_eq!(b.distance_to_point(Vec3::splat(0.5)), 0.0);
        assert_eq!(b.distance_to_point(Vec3::new(3.0, 0.5, 0.5)), 2.0, "to a face");
        assert!((b.distance_to_point(Vec3::new(2.0, 2.0, 0.5)) - 2.0f32.sqrt()).abs() < 1e-6, "to an edge");
    }

    #[test]
    fn overlap_is_inclusive_at_touching_faces() {
        let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let b = Aabb::new(Vec3::new(1.0, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        assert!(a.overlaps(&b) && b.overlaps(&a));
        let c = Aabb::new(Vec3::new(1.001, 0.0, 0.0), Vec3::new(2.0, 1.0, 1.0));
        assert!(!a.overlaps(&c));
    }

    #[test]
    fn slab_handles_parallel_inside_and_zero_length() {
        let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        assert_eq!(b.ray_interval(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 100.0), Some((4.0, 6.0)));
        // Parallel to the y and z slabs, outside the y slab.
        assert_eq!(b.ray_interval(Vec3::new(-5.0, 2.0, 0.0), Vec3::X, 100.0), None);
        // Starting inside.
        assert_eq!(b.ray_interval(Vec3::ZERO, Vec3::Y, 100.0), Some((0.0, 1.0)));
        // Zero-length direction: hits only when the origin is inside.
        assert_eq!(b.ray_interval(Vec3::ZERO, Vec3::ZERO, 1.0), Some((0.0, 1.0)));
        assert_eq!(b.ray_interval(Vec3::splat(3.0), Vec3::ZERO, 1.0), None);
        // Too short to reach.
        assert_eq!(b.ray_interval(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 3.0), None);
    }
}
