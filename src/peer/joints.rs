//! Collidoscope's joints as rapier3d impulse joints (the mapping is tabled in docs/joints.md,
//! *rapier3d*). Each joint's frame on a body sits at its anchor with its x axis along the
//! joint's axis, the axis rapier frees (hinge), slides along (slider) or measures twist about
//! (ball); B's frame is A's turned back by the rest rotation, so both frames coincide exactly
//! when the joint is at rest. The world side is one fixed rapier body at the origin.

use super::{rq, rv};
use crate::dynamics::joints::{DistanceMode, Joint, JointKind, Motor};
use crate::math::{Quat, Real, Vec3};
use rapier3d::prelude as r;

/// A velocity motor's gain, 1/s (rapier's acceleration-based damping towards the target
/// speed): high enough that the motor is held at its speed until its force runs out, as
/// Collidoscope's motor row is.
const MOTOR_GAIN: Real = 1.0e5;

/// rapier's joint for `j`: the kind's locked axes, limits and motor, the frames, and whether
/// the two bodies collide.
pub(super) fn generic(j: &Joint) -> r::GenericJoint {
    use r::{JointAxesMask as Mask, JointAxis as Axis};
    let axis = j.axis_a.normalize();
    let frame_a = Quat::from_rotation_arc(Vec3::X, axis);
    let frame_b = j.rest.normalize().conjugate() * frame_a;
    let motor = |b: r::GenericJointBuilder, axis: Axis, m: Option<Motor>| match m {
        Some(m) => b.motor_velocity(axis, m.speed, MOTOR_GAIN).motor_max_force(axis, m.max_force),
        None => b,
    };
    let limit = |b: r::GenericJointBuilder, axis: Axis, l: Option<(Real, Real)>| match l {
        Some((lo, hi)) => b.limits(axis, [lo, hi]),
        None => b,
    };
    let builder = match j.kind {
        JointKind::Fixed => r::GenericJointBuilder::new(Mask::LOCKED_FIXED_AXES),
        JointKind::Ball { cone, twist } => {
            let b = limit(r::GenericJointBuilder::new(Mask::LOCKED_SPHERICAL_AXES), Axis::AngX, twist);
            // rapier limits each swing axis on its own: the cone becomes the pyramid
            // that holds the same angle about each axis across A's.
            let cone = cone.map(|c| (-c, c));
            limit(limit(b, Axis::AngY, cone), Axis::AngZ, cone)
        }
        JointKind::Hinge { limits, motor: m } => {
            motor(limit(r::GenericJointBuilder::new(Mask::LOCKED_REVOLUTE_AXES), Axis::AngX, limits), Axis::AngX, m)
        }
        JointKind::Prismatic { limits, motor: m } => {
            motor(limit(r::GenericJointBuilder::new(Mask::LOCKED_PRISMATIC_AXES), Axis::LinX, limits), Axis::LinX, m)
        }
        JointKind::Distance { length, mode } => {
            // The anchors' distance along one coupled linear axis: held at the length (rod), kept
            // under it (rope) or sprung towards it (spring; rapier's force-based motor).
            let b = r::GenericJointBuilder::new(Mask::empty()).coupled_axes(Mask::LIN_AXES);
            match mode {
                DistanceMode::Rod => b.limits(Axis::LinX, [length, length]),
                DistanceMode::Rope => b.limits(Axis::LinX, [0.0, length]),
                DistanceMode::Spring { stiffness, damping } => b
                    .motor_position(Axis::LinX, length, stiffness, damping)
                    .motor_model(Axis::LinX, r::MotorModel::ForceBased),
            }
        }
    };
    builder
        .local_frame1(r::Pose::from_parts(rv(j.anchor_a), rq(frame_a)))
        .local_frame2(r::Pose::from_parts(rv(j.anchor_b), rq(frame_b)))
        .contacts_enabled(j.collide)
        .build()
}

/// A joint's force in rapier's last step, N: its linear impulse over the step (rapier keeps
/// no per-substep impulse), for the break force.
pub(super) fn force(joint: &r::ImpulseJoint, dt: Real) -> Real {
    let i = joint.impulses;
    Vec3::new(i[0], i[1], i[2]).length() / dt
}
