//! What the world shows of its joints ([`DrawCategory::Joint`]): each anchor and the arm to it
//! from its body's centre, A's axis, the limits (hinge and twist arcs, the cone's rim, the
//! slider's range) with where the joint is within them, and its error as a red segment. Also
//! which joint a camera ray points at, for picking.

use super::World;
use crate::debug_draw::{DebugDraw, DrawCategory, joint_colors as c};
use crate::dynamics::Body;
use crate::dynamics::joints::{DistanceMode, Joint, JointKind, JointReport, LimitState};
use crate::geometry::Ray;
use crate::math::{Pose, Quat, Real, Vec3};

const CAT: DrawCategory = DrawCategory::Joint;

/// Segments per radian of an arc.
const ARC_SEGMENTS_PER_RAD: Real = 8.0;

/// Errors smaller than this are not drawn, m (or rad for an axis).
const SHOWN_ERROR: Real = 1e-4;

/// Anchor dot sizes, pixels: A's larger, so both show where they coincide.
const ANCHOR_SIZES: [f32; 2] = [8.0, 5.0];

impl World {
    /// Draws every joint that has not broken.
    pub(super) fn debug_draw_joints(&self, draw: &mut DebugDraw) {
        for (k, j) in self.joints().iter().enumerate() {
            let report = self.joint_report(k);
            if !report.broken {
                draw_joint(j, &report, &self.bodies, draw);
            }
        }
    }

    /// The joint whose anchors' midpoint lies nearest the ray, within `slope` (rad, about: the
    /// distance from the ray over the distance along it) and in front of its origin.
    pub fn joint_at_ray(&self, ray: &Ray, slope: Real) -> Option<(usize, Real)> {
        let dir = ray.dir.normalize_or_zero();
        let mut best: Option<(usize, Real, Real)> = None;
        for k in 0..self.joints().len() {
            let r = self.joint_report(k);
            let p = 0.5 * (r.anchor_a + r.anchor_b) - ray.origin;
            let t = p.dot(dir);
            if !t.is_finite() || t <= 0.0 {
                continue;
            }
            let off = (p - t * dir).length() / t;
            if off <= slope && best.is_none_or(|(_, b, _)| off < b) {
                best = Some((k, off, t));
            }
        }
        best.map(|(k, _, t)| (k, t))
    }
}

/// The drawing's radius for a joint, m: three quarters of the smaller jointed body's half
/// size, between 5 cm and 40 cm.
pub fn joint_radius(j: &Joint, bodies: &[Body]) -> Real {
    let size = |side: Option<u32>| side.map(|i| bodies[i as usize].shape.local_aabb().half_extents().max_element());
    let smallest = match (size(j.a), size(j.b)) {
        (Some(a), Some(b)) => a.min(b),
        (Some(s), None) | (None, Some(s)) => s,
        (None, None) => 0.0,
    };
    (0.75 * smallest).clamp(0.05, 0.4)
}

/// A unit vector at right angles to `axis` (the zero angle of arcs about it in A's frame).
fn reference(axis: Vec3) -> Vec3 {
    axis.normalize_or_zero().any_orthonormal_vector()
}

/// An arc about `axis` through `centre` of radius `r`, starting at `from` (unit, at right angles
/// to the axis) turned by `lo` to `hi` (rad), with its two radii.
fn arc(draw: &mut DebugDraw, centre: Vec3, axis: Vec3, from: Vec3, r: Real, (lo, hi): (Real, Real), color: [f32; 4]) {
    let at = |t: Real| centre + Quat::from_axis_angle(axis, t) * from * r;
    let n = (((hi - lo) * ARC_SEGMENTS_PER_RAD).ceil() as usize).clamp(1, 64);
    for i in 0..n {
        let (t0, t1) = (lo + (hi - lo) * i as Real / n as Real, lo + (hi - lo) * (i + 1) as Real / n as Real);
        draw.line(CAT, at(t0), at(t1), color);
    }
    draw.line(CAT, centre, at(lo), color);
    draw.line(CAT, centre, at(hi), color);
}

fn pose_of(side: Option<u32>, bodies: &[Body]) -> Pose {
    side.map_or(Pose::IDENTITY, |i| bodies[i as usize].pose)
}

/// Draws joint `j`, whose state is `r`, between these bodies.
pub fn draw_joint(j: &Joint, r: &JointReport, bodies: &[Body], draw: &mut DebugDraw) {
    let (pa, pb) = (pose_of(j.a, bodies), pose_of(j.b, bodies));
    let (wa, wb) = (r.anchor_a, r.anchor_b);
    let size = joint_radius(j, bodies);
    for (side, anchor, dot, color) in [(j.a, wa, ANCHOR_SIZES[0], c::ANCHOR_A), (j.b, wb, ANCHOR_SIZES[1], c::ANCHOR_B)]
    {
        if let Some(i) = side {
            draw.line(CAT, bodies[i as usize].pose.translation, anchor, c::LINK);
        }
        draw.point(CAT, anchor, dot, color);
    }
    let axis = r.axis;
    let limit_color = |at: bool| if at { c::LIMIT_HIT } else { c::LIMIT };
    let at_limit = matches!(r.limit, LimitState::AtLower | LimitState::AtUpper);
    // A's zero angle about the axis, and B's: where B's reference sits at the joint's angle.
    let zero_a = pa.rotation * reference(j.axis_a);
    let zero_b = (pb.rotation * j.rest.normalize().conjugate()) * reference(j.axis_a);
    let show_axis = |draw: &mut DebugDraw| draw.line(CAT, wa - axis * size, wa + axis * size, c::AXIS);
    match j.kind {
        JointKind::Fixed => error_gap(draw, wa, wb),
        JointKind::Hinge { limits, .. } => {
            show_axis(draw);
            if let Some(range) = limits {
                arc(draw, wa, axis, zero_a, size, range, limit_color(at_limit));
            }
            draw.line(CAT, wa, wa + zero_b * size * 1.2, c::CURRENT);
            let axis_b = pb.rotation * j.axis_b.normalize_or_zero();
            if r.angular_error > SHOWN_ERROR {
                draw.line(CAT, wa, wa + axis_b * size, c::ERROR);
            }
            error_gap(draw, wa, wb);
        }
        JointKind::Ball { cone, twist } => {
            if cone.is_some() || twist.is_some() {
                show_axis(draw);
            }
            if let Some(half) = cone {
                let hit = r.limit == LimitState::AtUpper && twist.is_none_or(|(_, hi)| r.coordinate < hi - 0.01);
                cone_rim(draw, wa, axis, zero_a, size, half, limit_color(hit || r.angular_error > SHOWN_ERROR));
                let axis_b = pb.rotation * j.axis_b.normalize_or_zero();
                let color = if r.angular_error > SHOWN_ERROR { c::ERROR } else { c::CURRENT };
                draw.line(CAT, wa, wa + axis_b * size * 1.2, color);
            }
            if let Some(range) = twist {
                arc(draw, wa, axis, zero_a, 0.6 * size, range, limit_color(at_limit));
                draw.line(CAT, wa, wa + zero_b * size * 0.7, c::CURRENT);
            }
            error_gap(draw, wa, wb);
        }
        JointKind::Prismatic { limits, .. } => {
            show_axis(draw);
            if let Some((lo, hi)) = limits {
                let color = limit_color(at_limit);
                let tick = zero_a * 0.3 * size;
                let (a, b) = (wa + axis * lo, wa + axis * hi);
                draw.line(CAT, a, b, color);
                draw.line(CAT, a - tick, a + tick, color);
                draw.line(CAT, b - tick, b + tick, color);
            }
            // Off the axis: from B's anchor to the nearest point of A's axis.
            error_gap(draw, wa + axis * r.coordinate, wb);
        }
        JointKind::Distance { length, mode } => {
            let d = wb - wa;
            let dir = d.normalize_or(axis);
            let held = wa + dir * length.min(d.length());
            draw.line(CAT, wa, held, c::LINK);
            let stretched = d.length() > length;
            if stretched || mode != DistanceMode::Rope {
                // Past the length (or short of it, for a rod or spring): the error in red.
                error_gap(draw, held, if stretched { wb } else { wa + dir * length });
            }
        }
    }
}

/// The joint's positional error: a red segment from where B's anchor should be to where it is.
fn error_gap(draw: &mut DebugDraw, should: Vec3, is: Vec3) {
    if (is - should).length() > SHOWN_ERROR {
        draw.line(CAT, should, is, c::ERROR);
    }
}

/// A cone of half-angle `half` about `axis` at `apex`, `r` long: its rim and four of its sides.
fn cone_rim(draw: &mut DebugDraw, apex: Vec3, axis: Vec3, u: Vec3, r: Real, half: Real, color: [f32; 4]) {
    let v = axis.cross(u);
    let rim = |phi: Real| apex + r * (half.cos() * axis + half.sin() * (phi.cos() * u + phi.sin() * v));
    let n = 24;
    for i in 0..n {
        let (p0, p1) = (i as Real / n as Real, (i + 1) as Real / n as Real);
        draw.line(CAT, rim(p0 * std::f32::consts::TAU), rim(p1 * std::f32::consts::TAU), color);
    }
    for i in 0..4 {
        draw.line(CAT, apex, rim(i as Real * std::f32::consts::FRAC_PI_2), color);
    }
}
