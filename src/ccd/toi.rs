//! Time of impact by conservative advancement (Mirtich): step forward by the largest time in
//! which the gap provably cannot close, measured with the narrow phase's GJK distance.

use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::distance;

/// A body's motion over an interval `t ∈ [0, 1]`: straight-line translation, shortest-arc
/// rotation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    pub start: Pose,
    pub end: Pose,
}

impl Sweep {
    pub fn new(start: Pose, end: Pose) -> Self {
        Self { start, end }
    }

    /// A body that does not move.
    pub fn stationary(pose: Pose) -> Self {
        Self { start: pose, end: pose }
    }

    /// The pose at fraction `t` of the interval.
    pub fn at(&self, t: Real) -> Pose {
        Pose {
            translation: self.start.translation.lerp(self.end.translation, t),
            rotation: self.start.rotation.slerp(self.end.rotation, t).normalize(),
        }
    }

    /// How far the body moves over the interval.
    pub fn translation(&self) -> Vec3 {
        self.end.translation - self.start.translation
    }

    /// The angle (rad) the body turns through over the interval.
    pub fn angle(&self) -> Real {
        self.start.rotation.angle_between(self.end.rotation)
    }
}

/// The first moment two sweeping shapes come within the target gap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeOfImpact {
    /// Fraction of the interval, in [0, 1].
    pub t: Real,
    /// Unit normal from A to B at the impact.
    pub normal: Vec3,
    /// Midway between the closest points at the impact, world space.
    pub point: Vec3,
    /// The gap left at the impact (about `target`).
    pub distance: Real,
    /// Distance queries made.
    pub iterations: u32,
}

/// Most distance queries one time-of-impact search makes.
pub const MAX_TOI_ITERATIONS: u32 = 32;

/// When shape `a` moving along `sa` first comes within `target` of shape `b` moving along `sb`.
/// `None` when they stay farther apart over the whole interval, and also when they are already
/// within `target` at its start: touching pairs are the discrete contacts' business.
pub fn time_of_impact(a: &Shape, sa: &Sweep, b: &Shape, sb: &Sweep, target: Real) -> Option<TimeOfImpact> {
    let rel = sa.translation() - sb.translation();
    let spin = sa.angle() * a.bounding_radius() + sb.angle() * b.bounding_radius();
    let tolerance = 0.25 * target.max(1e-4);
    let mut t: Real = 0.0;
    for iteration in 1..=MAX_TOI_ITERATIONS {
        let (pa, pb) = (sa.at(t), sb.at(t));
        let d = distance(a, &pa, b, &pb);
        if d.distance <= target + tolerance {
            if t == 0.0 {
                return None;
            }
            let point = (d.point_a + d.point_b) * 0.5;
            return Some(TimeOfImpact { t, normal: d.normal, point, distance: d.distance, iterations: iteration });
        }
        // Along the current separating direction, no point of A gains on B faster than this;
        // the gap therefore stays open for at least (gap - target) / closing.
        let closing = rel.dot(d.normal) + spin;
        if closing <= 0.0 {
            return None;
        }
        t += (d.distance - target) / closing;
        if t > 1.0 {
            return None;
        }
    }
    // Out of iterations while still closing in: report the last safe time.
    let (pa, pb) = (sa.at(t), sb.at(t));
    let d = distance(a, &pa, b, &pb);
    Some(TimeOfImpact {
        t,
        normal: d.normal,
        point: (d.point_a + d.point_b) * 0.5,
        distance: d.distance,
        iterations: MAX_TOI_ITERATIONS + 1,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn sphere_hits_thin_wall_at_analytic_time() {
        // A 5 cm sphere moving 4 m along x toward a 1 cm wall whose near face is at x = -0.005.
        let ball = Shape::sphere(0.05);
        let wall = Shape::cuboid(Vec3::new(0.005, 1.0, 1.0));
        let sweep =
            Sweep::new(Pose::from_translation(Vec3::new(-2.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * 2.0));
        let target = 0.001;
        let hit = time_of_impact(&ball, &sweep, &wall, &Sweep::stationary(Pose::IDENTITY), target).unwrap();
        // Centre at -0.005 - 0.05 - target when it stops.
        let expected = (2.0 - 0.055 - target) / 4.0;
        assert!((hit.t - expected).abs() < 1e-4, "t = {} expected {expected}", hit.t);
        assert!((hit.normal - Vec3::X).length() < 1e-3, "{:?}", hit.normal);
        assert!(hit.distance >= target * 0.99 && hit.distance <= target * 1.3, "{}", hit.distance);
    }

    #[test]
    fn moving_past_or_away_misses() {
        let ball = Shape::sphere(0.05);
        let wall = Shape::cuboid(Vec3::new(0.005, 1.0, 1.0));
        let still = Sweep::stationary(Pose::IDENTITY);
        let above = Sweep::new(
            Pose::from_translation(Vec3::new(-2.0, 1.2, 0.0)),
            Pose::from_translation(Vec3::new(2.0, 1.2, 0.0)),
        );
        assert!(time_of_impact(&ball, &above, &wall, &still, 0.001).is_none());
        let away =
            Sweep::new(Pose::from_translation(Vec3::new(-1.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * -3.0));
        assert!(time_of_impact(&ball, &away, &wall, &still, 0.001).is_none());
        let short =
            Sweep::new(Pose::from_translation(Vec3::new(-2.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * -1.0));
        assert!(time_of_impact(&ball, &short, &wall, &still, 0.001).is_none());
    }

    #[test]
    fn spinning_box_is_caught_before_it_overlaps() {
        // A long thin box turning a quarter turn while sliding toward a wall: check against fine
        // sampling that the reported time is no later than the first overlap.
        let bar = Shape::cuboid(Vec3::new(1.0, 0.05, 0.05));
        let wall = Shape::cuboid(Vec3::new(0.05, 2.0, 2.0));
        let start = Pose::new(Vec3::new(-1.6, 0.0, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let end = Pose::new(Vec3::new(-0.9, 0.0, 0.0), Quat::IDENTITY);
        let sweep = Sweep::new(start, end);
        let still = Sweep::stationary(Pose::IDENTITY);
        let hit = time_of_impact(&bar, &sweep, &wall, &still, 0.002).unwrap();
        let first_overlap = (0..=2000)
            .map(|k| k as Real / 2000.0)
            .find(|&t| distance(&bar, &sweep.at(t), &wall, &Pose::IDENTITY).distance <= 0.0)
            .unwrap();
        assert!(hit.t <= first_overlap, "toi {} after the first overlap {first_overlap}", hit.t);
        assert!(first_overlap - hit.t < 0.05, "toi {} far before {first_overlap}", hit.t);
    }
}
