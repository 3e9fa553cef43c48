//! Collidoscope's joints as Jolt 5.0 constraints (the mapping is tabled in docs/joints.md,
//! *Jolt Physics*). As for rapier3d (`src/peer/joints.rs`), each joint's frame on a body sits at
//! its anchor with its x axis along the joint's axis; B's frame is A's turned back by the rest
//! rotation, so both frames coincide when the joint is at rest. Anchors are relative to each
//! body's centre of mass, as Jolt's `LocalToBodyCOM` space takes them; the world side is Jolt's
//! `Body::sFixedToWorld`, whose frame is the world's.
//!
//! Jolt wants a hinge's and a twist's limits within [-π, 0] and [0, π], and a slider's around
//! zero. Limits that do not straddle zero are kept by moving Jolt's zero to their middle: A's
//! frame is turned (or its anchor slid) by the middle, so Jolt's coordinate is Collidoscope's
//! less the middle, and the limits are shifted by the same.

use super::ffi::JsJointDesc;
use crate::dynamics::joints::{DistanceMode, Joint, JointKind, Motor};
use crate::math::{Quat, Real, Vec3};
use std::f32::consts::PI;

/// `ffi::JsJointDesc::kind` values.
const FIXED: u32 = 0;
const POINT: u32 = 1;
const SWING_TWIST: u32 = 2;
const HINGE: u32 = 3;
const SLIDER: u32 = 4;
const DISTANCE: u32 = 5;

/// Why a joint has no Jolt counterpart: the feature, named.
#[derive(Debug)]
pub(super) struct Unmapped(pub(super) String);

/// The shift that moves an angular range within Jolt's [-π, 0] and [0, π]: zero if it already
/// straddles zero, else its middle. `None` if the range reaches past ±π (Jolt measures angles
/// in (-π, π], as Collidoscope does, so such a limit cannot be said the same way).
fn angle_shift((lo, hi): (Real, Real)) -> Option<Real> {
    if lo < -PI || hi > PI {
        None
    } else if lo <= 0.0 && hi >= 0.0 {
        Some(0.0)
    } else {
        Some(0.5 * (lo + hi))
    }
}

/// Jolt's constraint for `j`.
pub(super) fn jolt_joint(j: &Joint) -> Result<JsJointDesc, Unmapped> {
    let axis = j.axis_a.normalize();
    let frame_a = Quat::from_rotation_arc(Vec3::X, axis);
    let frame_b = j.rest.normalize().conjugate() * frame_a;
    let side = |s: Option<u32>| s.map_or(-1, |i| i as i32);
    let mut d = JsJointDesc {
        a: side(j.a),
        b: side(j.b),
        point_a: j.anchor_a.to_array(),
        point_b: j.anchor_b.to_array(),
        collide: j.collide,
        ..Default::default()
    };
    // A's frame turned by `shift` about its x axis: Jolt's zero angle at Collidoscope's `shift`.
    let set_frames = |d: &mut JsJointDesc, shift: Real| {
        let a = frame_a * Quat::from_rotation_x(shift);
        d.axis_a = (a * Vec3::X).to_array();
        d.normal_a = (a * Vec3::Y).to_array();
        d.axis_b = (frame_b * Vec3::X).to_array();
        d.normal_b = (frame_b * Vec3::Y).to_array();
    };
    let set_motor = |d: &mut JsJointDesc, m: Option<Motor>| {
        if let Some(m) = m {
            d.has_motor = true;
            d.motor_speed = m.speed;
            d.motor_max = m.max_force;
        }
    };
    let beyond_pi = |what: &str, (lo, hi): (Real, Real)| {
        Unmapped(format!(
            "{what} ({:.1}°, {:.1}°) reach past ±180°, which Jolt's angle does not",
            lo.to_degrees(),
            hi.to_degrees()
        ))
    };
    match j.kind {
        JointKind::Fixed => {
            d.kind = FIXED;
            set_frames(&mut d, 0.0);
        }
        JointKind::Ball { cone: None, twist: None } => d.kind = POINT,
        JointKind::Ball { cone, twist } => {
            // A true cone about A's axis (both half-angles equal), and the twist about it; a
            // cone of π or no twist range leaves that part free.
            d.kind = SWING_TWIST;
            d.cone = cone.unwrap_or(PI);
            let shift = match twist {
                Some(t) => {
                    let c = angle_shift(t).ok_or_else(|| beyond_pi("twist limits", t))?;
                    (d.has_limits, d.limit_min, d.limit_max) = (true, t.0 - c, t.1 - c);
                    c
                }
                None => 0.0,
            };
            set_frames(&mut d, shift);
        }
        JointKind::Hinge { limits, motor } => {
            d.kind = HINGE;
            let shift = match limits {
                Some(l) => {
                    let c = angle_shift(l).ok_or_else(|| beyond_pi("limits", l))?;
                    (d.has_limits, d.limit_min, d.limit_max) = (true, l.0 - c, l.1 - c);
                    c
                }
                None => 0.0,
            };
            set_frames(&mut d, shift);
            set_motor(&mut d, motor);
        }
        JointKind::Prismatic { limits, motor } => {
            d.kind = SLIDER;
            set_frames(&mut d, 0.0);
            if let Some((lo, hi)) = limits {
                // Jolt's offset is zero where the anchors meet: A's anchor slid along the axis
                // by the limits' middle when they do not straddle zero.
                let c = if lo <= 0.0 && hi >= 0.0 { 0.0 } else { 0.5 * (lo + hi) };
                d.point_a = (j.anchor_a + c * axis).to_array();
                (d.has_limits, d.limit_min, d.limit_max) = (true, lo - c, hi - c);
            }
            set_motor(&mut d, motor);
        }
        JointKind::Distance { length, mode } => {
            d.kind = DISTANCE;
            (d.limit_min, d.limit_max) = match mode {
                DistanceMode::Rod => (length, length),
                DistanceMode::Rope => (0.0, length),
                DistanceMode::Spring { stiffness, damping } => {
                    // Jolt's spring in `StiffnessAndDamping` mode is the force law of
                    // Collidoscope's: F = -k x - c v along the anchors' line, with k in N/m and
                    // c in N·s/m, both taken as they are (no conversion to a frequency or a
                    // damping ratio, which would depend on the bodies' masses). Jolt reads a
                    // stiffness of zero as a hard (rod) limit, so a spring without stiffness
                    // has no counterpart.
                    if stiffness <= 0.0 {
                        return Err(Unmapped(
                            "a spring without stiffness (Jolt holds a zero-stiffness spring rigid)".into(),
                        ));
                    }
                    (d.stiffness, d.damping) = (stiffness, damping);
                    (length, length)
                }
            };
        }
    }
    Ok(d)
}
