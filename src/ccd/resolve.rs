//! The time-of-impact pass of a step: after the solver moved every body, each fast body's motion
//! is re-played against the world, stopped at the first impact, its velocity resolved there,
//! and carried on for what is left of the step.

use super::toi::{Sweep, time_of_impact};
use crate::broadphase::BroadPhase;
use crate::dynamics::Body;
use crate::geometry::Aabb;
use crate::math::{Pose, Real, Vec3};
use crate::world::Settings;

/// Impacts one fast body may resolve in one step before it is left at the last one.
pub const MAX_TOI_ROUNDS: usize = 4;

/// One fast body's sweep this step, for drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdSweep {
    pub body: u32,
    /// Centre of mass at the start of the sweep.
    pub from: Vec3,
    /// Centre of mass where the body would have ended without the impact.
    pub to: Vec3,
    /// The box the sweep passes through.
    pub aabb: Aabb,
}

/// One time-of-impact event: where a fast body was stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiEvent {
    pub body: u32,
    pub other: u32,
    /// Fraction of the (remaining) sweep at impact.
    pub t: Real,
    /// Midway between the closest points, world space.
    pub point: Vec3,
    /// From the fast body toward the other.
    pub normal: Vec3,
    /// The fast body's centre of mass at impact.
    pub center: Vec3,
}

fn sweep_aabb(shape: &crate::geometry::Shape, s: &Sweep) -> Aabb {
    let mut b = shape.aabb(&s.start).merge(&shape.aabb(&s.end));
    if s.angle() > 1e-3 {
        let r = shape.bounding_radius();
        for c in [s.start.translation, s.end.translation] {
            b = b.merge(&Aabb::from_center_half_extents(c, Vec3::splat(r)));
        }
    }
    b
}

/// Re-plays the motion of each body in `starts` (index, pose at the start of the step) against
/// the other bodies at their end-of-step poses. Returns how many impacts were resolved.
pub(crate) fn resolve_toi(
    bodies: &mut [Body],
    starts: &[(u32, Pose)],
    broad: &dyn BroadPhase,
    aabbs: &[Aabb],
    settings: &Settings,
    sweeps: &mut Vec<CcdSweep>,
    events: &mut Vec<ToiEvent>,
) -> u32 {
    // Stop a little short of touching, so the next step's contact starts with a small gap.
    let target = (0.5 * settings.slop).clamp(1e-4, 0.25 * settings.speculative_distance.max(4e-4));
    let mut count = 0;
    let mut candidates = Vec::new();
    for &(i, start) in starts {
        let i = i as usize;
        let mut sweep = Sweep::new(start, bodies[i].pose);
        let mut remaining = settings.dt;
        for round in 0..MAX_TOI_ROUNDS {
            let aabb = sweep_aabb(&bodies[i].shape, &sweep);
            if round == 0 {
                sweeps.push(CcdSweep { body: i as u32, from: start.translation, to: sweep.end.translation, aabb });
            }
            candidates.clear();
            broad.query_aabb(aabbs, &aabb, &mut candidates);
            candidates.sort_unstable();
            let mut first: Option<(u32, super::TimeOfImpact)> = None;
            for &j in &candidates {
                if j as usize == i {
                    continue;
                }
                let other = &bodies[j as usize];
                if !other.aabb().overlaps(&aabb) {
                    continue;
                }
                let hit =
                    time_of_impact(&bodies[i].shape, &sweep, &other.shape, &Sweep::stationary(other.pose), target);
                if let Some(h) = hit
                    && first.is_none_or(|(_, f)| h.t < f.t)
                {
                    first = Some((j, h));
                }
            }
            let Some((j, hit)) = first else {
                bodies[i].pose = sweep.end;
                break;
            };
            count += 1;
            let at = sweep.at(hit.t);
            bodies[i].pose = at;
            events.push(ToiEvent {
                body: i as u32,
                other: j,
                t: hit.t,
                point: hit.point,
                normal: hit.normal,
                center: at.translation,
            });
            impact(bodies, i, j as usize, hit.point, hit.normal, settings.restitution_threshold);
            remaining *= 1.0 - hit.t;
            let b = &bodies[i];
            let end = Pose {
                translation: at.translation + b.linvel * remaining,
                rotation: Body::integrate_rotation(at.rotation, b.angvel, remaining),
            };
            sweep = Sweep::new(at, end);
            // Out of rounds: the body stays at its last impact.
        }
    }
    count
}

/// An impulse at `point` along `normal` (from body `i` to body `j`) that stops the approach, or
/// reverses it by the restitution when the approach is faster than the threshold.
fn impact(bodies: &mut [Body], i: usize, j: usize, point: Vec3, normal: Vec3, threshold: Real) {
    let (bi, bj) = (&bodies[i], &bodies[j]);
    let vn = normal.dot(bj.velocity_at(point) - bi.velocity_at(point));
    if vn >= 0.0 {
        return;
    }
    let e = if -vn > threshold { bi.material.restitution.max(bj.material.restitution) } else { 0.0 };
    let j_moves = bj.is_dynamic();
    let (ri, rj) = (point - bi.pose.translation, point - bj.pose.translation);
    let (ii, ij) = (bi.inv_inertia_world(), bj.inv_inertia_world());
    let (ci, cj) = (ri.cross(normal), rj.cross(normal));
    let mut k = bi.inv_mass + ci.dot(ii * ci);
    if j_moves {
        k += bj.inv_mass + cj.dot(ij * cj);
    }
    if k <= 0.0 {
        return;
    }
    let impulse = normal * (-(1.0 + e) * vn / k);
    let bi = &mut bodies[i];
    bi.linvel -= impulse * bi.inv_mass;
    bi.angvel -= ii * ri.cross(impulse);
    if j_moves {
        let bj = &mut bodies[j];
        bj.wake();
        bj.linvel += impulse * bj.inv_mass;
        bj.angvel += ij * rj.cross(impulse);
    }
}
