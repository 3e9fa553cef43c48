//! What a joint is doing, read from the bodies' poses: its coordinate, its error and whether it
//! sits on a limit (the Inspector shows it, tests read it).

use super::solve::twist_angle;
use super::{DistanceMode, Joint, JointKind, JointState};
use crate::dynamics::Body;
use crate::math::{Pose, Quat, Real, Vec3};

/// Where a joint's coordinate sits relative to its limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LimitState {
    /// The joint has no limit on its coordinate.
    None,
    /// Within its limits.
    Free,
    /// At or past the lower limit.
    AtLower,
    /// At or past the upper limit.
    AtUpper,
}

/// A joint's state as the bodies show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointReport {
    /// The anchors in world space.
    pub anchor_a: Vec3,
    /// B's anchor in world space.
    pub anchor_b: Vec3,
    /// A's axis in world space.
    pub axis: Vec3,
    /// The joint's coordinate: angle about the axis (rad) for a hinge and a ball's twist, offset
    /// along the axis (m) for a slider, the anchors' distance (m) for a distance joint, zero
    /// for a fixed joint.
    pub coordinate: Real,
    /// How far the anchors are from where the joint holds them, m (for a distance joint, the
    /// length's error; a rope's only when stretched).
    pub linear_error: Real,
    /// How far the rotation is from where the joint holds it, rad (axes apart for a hinge,
    /// beyond the cone for a ball, the whole rotation for fixed and slider joints).
    pub angular_error: Real,
    /// Relative to the limits on the coordinate.
    pub limit: LimitState,
    /// The constraint force of the last substep, N (its linear impulse over the substep).
    pub force: Real,
    /// Its torque, N·m.
    pub torque: Real,
    /// The motor's torque or force, N·m or N.
    pub motor: Real,
    /// It broke.
    pub broken: bool,
}

/// Within this of a limit counts as at it: 0.5° or 0.5 mm.
const AT_LIMIT: Real = 0.008_7;

impl Joint {
    /// The joint's world pose on each side: the world side's is the identity.
    fn pose_of(side: Option<u32>, bodies: &[Body]) -> Pose {
        side.map_or(Pose::IDENTITY, |i| bodies[i as usize].pose)
    }

    /// What the joint is doing in these bodies' poses; `state` is its kept impulses and `h` the
    /// substep (s) they were applied over.
    pub fn report(&self, bodies: &[Body], state: &JointState, h: Real) -> JointReport {
        let (pa, pb) = (Joint::pose_of(self.a, bodies), Joint::pose_of(self.b, bodies));
        let (wa, wb) = (pa.transform_point(self.anchor_a), pb.transform_point(self.anchor_b));
        let axis = pa.rotation * self.axis_a.normalize_or_zero();
        let axis_b = pb.rotation * self.axis_b.normalize_or_zero();
        let d = wb - wa;
        let mut err = pb.rotation * self.rest.normalize().conjugate() * pa.rotation.conjugate();
        if err.w < 0.0 {
            err = -err;
        }
        let whole = rotation_angle(err);
        let apart = axis.cross(axis_b).length().atan2(axis.dot(axis_b));
        let on = |x: Real, range: Option<(Real, Real)>| match range {
            None => LimitState::None,
            Some((lo, _)) if x <= lo + AT_LIMIT => LimitState::AtLower,
            Some((_, hi)) if x >= hi - AT_LIMIT => LimitState::AtUpper,
            Some(_) => LimitState::Free,
        };
        let (coordinate, linear_error, angular_error, limit) = match self.kind {
            JointKind::Fixed => (0.0, d.length(), whole, LimitState::None),
            JointKind::Ball { cone, twist } => {
                let x = twist_angle(err, axis);
                let beyond = cone.map_or(0.0, |c| (apart - c).max(0.0));
                let limit = match (on(x, twist), cone) {
                    (LimitState::None | LimitState::Free, Some(c)) if apart >= c - AT_LIMIT => LimitState::AtUpper,
                    (LimitState::None, Some(_)) => LimitState::Free,
                    (l, _) => l,
                };
                (x, d.length(), beyond, limit)
            }
            JointKind::Hinge { limits, .. } => {
                (twist_angle(err, axis), d.length(), apart, on(twist_angle(err, axis), limits))
            }
            JointKind::Prismatic { limits, .. } => {
                let x = d.dot(axis);
                (x, (d - x * axis).length(), whole, on(x, limits))
            }
            JointKind::Distance { length, mode } => {
                let x = d.length();
                let e = match mode {
                    DistanceMode::Rope => (x - length).max(0.0),
                    _ => (x - length).abs(),
                };
                (x, e, 0.0, LimitState::None)
            }
        };
        let inv_h = if h > 0.0 { 1.0 / h } else { 0.0 };
        JointReport {
            anchor_a: wa,
            anchor_b: wb,
            axis,
            coordinate,
            linear_error,
            angular_error,
            limit,
            force: state.linear.length() * inv_h,
            torque: state.angular.length() * inv_h,
            motor: state.motor * inv_h,
            broken: state.broken,
        }
    }
}

/// The angle of rotation `q` (`w ≥ 0`), rad.
fn rotation_angle(q: Quat) -> Real {
    2.0 * Vec3::new(q.x, q.y, q.z).length().atan2(q.w)
}
