//! The time-of-impact pass of a step: after the solver moved every body, each fast body's motion
//! is re-played against the other bodies' motions, stopped at the first impact, its velocity
//! resolved there against the contact manifold, and carried on for what is left of the step.

use super::escaped::Escaped;
use super::pair::pair_time_of_impact;
use super::toi::{Carried, Motion, TimeOfImpact, angular_reach};
use crate::broadphase::BroadPhase;
use crate::dynamics::{Body, BodyKind};
use crate::geometry::{Aabb, Ray, Shape, ray_cast};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::{Tolerance, contact_with_edges};
use crate::parallel::{self, Crew};
use crate::settings::Settings;
use std::collections::VecDeque;

/// Impacts one body may resolve in one step before it glides (`MAX_GLIDE_ROUNDS`).
pub const MAX_TOI_ROUNDS: usize = 8;

/// Impacts with kinematic bodies a body out of rounds may still resolve in the step, gliding
/// (moving without turning) between them: a paddle that meets a body left where it stopped
/// would carry on through it.
pub(super) const MAX_GLIDE_ROUNDS: usize = 4;

/// Sequential-impulse passes over an impact's manifold points.
const IMPACT_ITERATIONS: usize = 8;

/// One body's sweep this step, for drawing.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcdMotion {
    /// The swept body's index.
    pub body: u32,
    /// The pose at the start of the sweep.
    pub from: Pose,
    /// The pose the body would have reached without an impact.
    pub to: Pose,
    /// The box the sweep passes through.
    pub aabb: Aabb,
}

/// One time-of-impact event: where a fast body was stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ToiEvent {
    /// The body that was stopped.
    pub body: u32,
    /// The body it hit.
    pub other: u32,
    /// Fraction of the step at impact.
    pub t: Real,
    /// Midway between the closest points, world space.
    pub point: Vec3,
    /// From the fast body toward the other.
    pub normal: Vec3,
    /// The fast body's centre of mass at impact.
    pub center: Vec3,
}

/// Where a body is over the rest of the step: `sweep` from fraction `t_from` of the step to
/// its end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Remaining {
    pub(super) motion: Motion,
    pub(super) t_from: Real,
}

impl Remaining {
    /// The motion over `[t, 1]` of the step, as a sweep over its own `[0, 1]`.
    fn motion_from(&self, t: Real) -> Motion {
        let u = if self.t_from >= 1.0 { 1.0 } else { ((t - self.t_from) / (1.0 - self.t_from)).clamp(0.0, 1.0) };
        self.motion.rest_from(u)
    }
}

/// The box a shape passes through along a sweep (its bounding ball at both ends when it turns).
pub fn motion_aabb(shape: &Shape, s: &Motion) -> Aabb {
    if angular_reach(shape, s.angle()) > 0.0 {
        return ball_boxes(s, shape.bounding_radius());
    }
    shape.aabb_of_both(&s.start, &s.end)
}

/// The box a carried shape passes through ([`motion_aabb`] for a body's own shape; a part off
/// the centre of a turning body stays within its distance plus its radius of the body's centre,
/// which moves in a straight line).
pub(crate) fn carried_aabb(c: &Carried) -> Aabb {
    let Some(local) = c.local else { return motion_aabb(c.shape, c.motion) };
    if c.reach() > 0.0 {
        return ball_boxes(c.motion, c.shape.bounding_radius() + local.translation.length());
    }
    c.shape.aabb_of_both(&c.start(), &c.at(1.0))
}

/// The box of a ball of radius `r` about the body's centre at both ends of its motion: it holds
/// a turning shape (or part) within `r` of that centre at every pose between, its own boxes at
/// the ends included, so those are not made (a compound's box is a box per child).
fn ball_boxes(m: &Motion, r: Real) -> Aabb {
    let at = |c: Vec3| Aabb::from_center_half_extents(c, Vec3::splat(r));
    at(m.start.translation).merge(&at(m.end.translation))
}

/// The gap a time-of-impact stop leaves: half the slop, so the next step's contact starts with
/// a small gap, and never more than a quarter of the speculative distance.
pub fn toi_target(settings: &Settings) -> Real {
    (0.5 * settings.slop).clamp(1e-4, 0.25 * settings.speculative_distance.max(4e-4))
}

/// The time-of-impact pass's working lists, kept from step to step for their room. Every list
/// is reset before it is read, so a copy (a world cloned for a fork or the A/B) starts empty
/// rather than copying lists nobody reads.
#[derive(Debug, Default)]
pub(crate) struct ToiScratch {
    remaining: Vec<Remaining>,
    escaped: Escaped,
    queue: VecDeque<u32>,
    queued: Vec<bool>,
    candidates: Vec<u32>,
    rounds: Vec<usize>,
    /// Per body: its motion leaves the box the broad phase indexed.
    left: Vec<bool>,
}

impl Clone for ToiScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// Re-plays this step's motion of every body that needs it against the other bodies' motions
/// (`starts` holds every body's pose at the start of the step, `fast` which bodies CCD
/// handles, `turning` which are swept for their turn or because the solver drove them past
/// their rows, `by_kinematic` which touch a kinematic body; `aabbs` are the boxes the broad phase
/// indexed, fast bodies' swept). Swept are the fast dynamic bodies, the turning ones, and the
/// bodies they hit for the rest of the step after the impact.
/// Returns how many impacts were resolved.
#[allow(clippy::too_many_arguments)]
pub(crate) fn resolve_toi(
    bodies: &mut [Body],
    starts: &[Pose],
    fast: &[bool],
    turning: &[bool],
    by_kinematic: &[bool],
    broad: &dyn BroadPhase,
    aabbs: &[Aabb],
    settings: &Settings,
    motions: &mut Vec<CcdMotion>,
    events: &mut Vec<ToiEvent>,
    scratch: &mut ToiScratch,
    crew: Option<&Crew>,
) -> u32 {
    let target = toi_target(settings);
    let n = bodies.len();
    let ToiScratch { remaining, escaped, queue, queued, candidates, rounds, left } = scratch;
    // Each body's motion, whether it left its indexed box, and whether it is swept, block by
    // block on the crew's threads (every entry is written).
    remaining.resize(n, Remaining { motion: Motion::stationary(Pose::IDENTITY), t_from: 0.0 });
    queued.resize(n, false);
    left.resize(n, false);
    let all = &*bodies;
    parallel::fill(
        crew,
        (&mut remaining[..], &mut queued[..], &mut left[..]),
        parallel::BODY_BLOCK,
        |r, (rem, q, l)| {
            for (k, ((rem, q), l)) in r.zip(rem.iter_mut().zip(q).zip(l)) {
                let b = &all[k];
                *rem = step_motion(b, starts[k], settings.dt);
                // Fast kinematic bodies are not stopped; the solver pushes what lies in their path
                // through their speculative contacts, and fast dynamic bodies are swept against
                // their motion here. Bodies swept only for their turn (`turning`,
                // `super::turns_past_rows`) are not swept against kinematic bodies: those push them
                // through the solver's rows, and an impact with a paddle that carries on would
                // leave them behind it.
                *q = (fast[k] || turning[k]) && b.is_dynamic();
                *l = b.kind != BodyKind::Static && Escaped::leaves(k, &b.shape, rem, aabbs);
            }
        },
    );
    // Bodies whose motion this step left the box the broad phase indexed: a query misses them.
    escaped.reset(n);
    for k in (0..n).filter(|&k| left[k]) {
        escaped.list_left(k, &bodies[k].shape, &remaining[k]);
    }
    queue.clear();
    queue.extend((0..n as u32).filter(|&k| queued[k as usize]));
    rounds.clear();
    rounds.resize(n, 0);
    let mut count = 0;
    while let Some(i) = queue.pop_front() {
        let i = i as usize;
        queued[i] = false;
        while rounds[i] <= MAX_TOI_ROUNDS + MAX_GLIDE_ROUNDS {
            let t0 = remaining[i].t_from;
            let motion = remaining[i].motion_from(t0);
            let aabb = motion_aabb(&bodies[i].shape, &motion);
            if rounds[i] == 0 && (fast[i] || turning[i]) {
                motions.push(CcdMotion { body: i as u32, from: motion.start, to: motion.end, aabb });
            }
            candidates.clear();
            broad.query_aabb(aabbs, &aabb, candidates);
            escaped.meeting(&aabb, candidates);
            candidates.sort_unstable();
            candidates.dedup();
            // Carried by a kinematic body's push: its impacts are the push's, not stops.
            let pushed = by_kinematic.get(i).copied().unwrap_or(false);
            let mut first: Option<(u32, Motion, TimeOfImpact)> = None;
            for &j in candidates.iter() {
                let ju = j as usize;
                // A body swept only for its turn is swept against bodies that hold still alone
                // (static ones, kinematic ones at rest: `super::holds_still`).
                if ju == i || (!fast[i] && turning[i] && !super::holds_still(&bodies[ju])) {
                    continue;
                }
                let other = remaining[ju].motion_from(t0);
                if !motion_aabb(&bodies[ju].shape, &other).overlaps(&aabb) {
                    continue;
                }
                let (a, b) = (&bodies[i].shape, &bodies[ju].shape);
                let hit = pair_time_of_impact(a, &motion, b, &other, target, bodies[ju].is_dynamic())
                    // Two dynamic bodies already pressed together are the solver's: stopping one
                    // where it is would leave it behind while the other is carried on.
                    .filter(|h| h.t > 0.0 || !bodies[ju].is_dynamic());
                // A pair that touches is swept by its cores, which need not meet, or meet late:
                // the shape around them can still turn or be driven into a body that holds still.
                // (A compound's touching child is searched by cores while another child's hit
                // comes later, so every hit is checked up to its time.)
                let hit = if pushed || !super::holds_still(&bodies[ju]) {
                    hit
                } else {
                    let before = hit.map_or(1.0, |h| h.t);
                    sunk_stop(a, &motion, &bodies[ju], before, settings).or(hit)
                };
                if let Some(h) = hit
                    && first.is_none_or(|(_, _, f)| h.t < f.t)
                {
                    first = Some((j, other, h));
                }
            }
            let Some((j, other, hit)) = first else {
                // The checked path's end (a fast spinner's turn is the one its rate gives).
                bodies[i].pose = motion.end;
                break;
            };
            let kinematic = bodies[j as usize].kind == BodyKind::Kinematic;
            if rounds[i] == MAX_TOI_ROUNDS + MAX_GLIDE_ROUNDS || (rounds[i] >= MAX_TOI_ROUNDS && !kinematic) {
                // Out of rounds: its path without turning was checked, and it stops at what that
                // path meets first (a kinematic body it meets sets it moving, while it can).
                bodies[i].pose = motion.at(hit.t);
                remaining[i] =
                    Remaining { motion: Motion::stationary(bodies[i].pose), t_from: t0 + hit.t * (1.0 - t0) };
                escaped.moved(i, &bodies[i].shape, &remaining[i]);
                break;
            }
            let ju = j as usize;
            count += 1;
            rounds[i] += 1;
            let time = t0 + hit.t * (1.0 - t0);
            bodies[i].pose = motion.at(hit.t);
            let j_moves = bodies[ju].is_dynamic();
            // The impact is resolved where both bodies are then; a kinematic body keeps its course.
            let keep = bodies[ju].pose;
            bodies[ju].pose = other.at(hit.t);
            impact(bodies, i, ju, &hit, target, settings);
            if !j_moves {
                bodies[ju].pose = keep;
            }
            events.push(ToiEvent {
                body: i as u32,
                other: j,
                t: time,
                point: hit.point,
                normal: hit.normal,
                center: bodies[i].pose.translation,
            });
            let last = if rounds[i] >= MAX_TOI_ROUNDS { Rest::Glide } else { Rest::Move };
            remaining[i] = continue_from(&bodies[i], time, settings.dt, last);
            bodies[i].pose = remaining[i].motion.end;
            if j_moves {
                let rest = if rounds[ju] >= MAX_TOI_ROUNDS { Rest::Stay } else { Rest::Move };
                remaining[ju] = continue_from(&bodies[ju], time, settings.dt, rest);
                bodies[ju].pose = remaining[ju].motion.end;
                escaped.note(ju, &bodies[ju].shape, &remaining[ju], aabbs);
                // Its new course has not been checked: sweep it again.
                if !queued[ju] && rounds[ju] < MAX_TOI_ROUNDS {
                    queued[ju] = true;
                    queue.push_back(j);
                }
            }
            escaped.note(i, &bodies[i].shape, &remaining[i], aabbs);
        }
    }
    count + overtaken_by_kinematic(bodies, starts, fast, broad, aabbs, settings, scratch, events)
}

/// No dynamic body ends the step overtaken by a fast kinematic body: one that an impact stopped
/// against a body in front (or that used up its rounds there) while the kinematic body carried
/// on would be left inside or behind it (a paddle through a pile: the pinched body has nowhere
/// to go but the paddle cannot stop). Each fast kinematic body's motion over the step is swept
/// against each dynamic body where the step leaves it. A body it meets at fraction `t` is moved
/// on by what the kinematic body's point of contact travels in the rest of the step (so it ends
/// `target` ahead of it, as at the meeting), and moves away from it at least as fast as that
/// point along the normal. Its centre stops at a static body's surface in the way
/// ([`static_stop`]; the kinematic body then overlaps it: between the two there is no room).
/// What a moved body is pressed into in front is the solver's next step. A body the point would
/// go into by no more than the slop is left to the solver (a body the paddle pushes ends the
/// step touching it, a little inside). Returns how many bodies were moved; each is an event.
#[allow(clippy::too_many_arguments)]
fn overtaken_by_kinematic(
    bodies: &mut [Body],
    starts: &[Pose],
    fast: &[bool],
    broad: &dyn BroadPhase,
    aabbs: &[Aabb],
    settings: &Settings,
    scratch: &mut ToiScratch,
    events: &mut Vec<ToiEvent>,
) -> u32 {
    let (target, dt) = (toi_target(settings), settings.dt);
    let ToiScratch { remaining, escaped, candidates, .. } = scratch;
    let mut moved = 0;
    for k in 0..bodies.len() {
        if !fast[k] || bodies[k].kind != BodyKind::Kinematic {
            continue;
        }
        let motion = Motion::new(starts[k], bodies[k].pose);
        let aabb = motion_aabb(&bodies[k].shape, &motion);
        candidates.clear();
        broad.query_aabb(aabbs, &aabb, candidates);
        escaped.meeting(&aabb, candidates);
        candidates.sort_unstable();
        candidates.dedup();
        for &i in candidates.iter() {
            let i = i as usize;
            if !bodies[i].is_dynamic() || !bodies[i].shape.aabb(&bodies[i].pose).overlaps(&aabb) {
                continue;
            }
            let here = Motion::stationary(bodies[i].pose);
            let Some(hit) = pair_time_of_impact(&bodies[k].shape, &motion, &bodies[i].shape, &here, target, false)
            else {
                continue;
            };
            if hit.t >= 1.0 {
                continue;
            }
            // The kinematic body's point of contact: its velocity, and how far it goes on.
            let (kb, n) = (&bodies[k], hit.normal);
            let v = kb.linvel + kb.angvel.cross(hit.point - motion.at(hit.t).translation);
            let mut shift = v * ((1.0 - hit.t) * dt);
            if shift.dot(n) <= settings.slop {
                continue;
            }
            // Never on through a static body: a body pressed into a wall stays at the wall.
            shift *= static_stop(bodies, i, shift, broad, aabbs);
            let b = &mut bodies[i];
            b.pose.translation += shift;
            let behind = v.dot(n) - b.linvel.dot(n);
            if behind > 0.0 {
                b.linvel += n * behind;
            }
            b.wake();
            remaining[i] = Remaining { motion: Motion::stationary(b.pose), t_from: 1.0 };
            escaped.moved(i, &b.shape, &remaining[i]);
            events.push(ToiEvent {
                body: i as u32,
                other: k as u32,
                t: hit.t,
                point: hit.point + shift,
                normal: -n,
                center: b.pose.translation,
            });
            moved += 1;
        }
    }
    moved
}

/// The fraction of the move by `shift` (a translation) that body `i`'s centre makes before it
/// reaches a static body's surface: 1 when its path meets none. The centre never crosses a
/// static body (the body then overlaps it by less than its size, which its next contact undoes
/// from the side it came from).
fn static_stop(bodies: &[Body], i: usize, shift: Vec3, broad: &dyn BroadPhase, aabbs: &[Aabb]) -> Real {
    let b = &bodies[i];
    let to = Pose::new(b.pose.translation + shift, b.pose.rotation);
    let mut near = Vec::new();
    broad.query_aabb(aabbs, &motion_aabb(&b.shape, &Motion::new(b.pose, to)), &mut near);
    let path = Ray::new(b.pose.translation, shift);
    near.iter()
        .map(|&j| &bodies[j as usize])
        .filter(|o| o.kind == BodyKind::Static)
        .filter_map(|o| ray_cast(&o.shape, &o.pose, &path, 1.0))
        .fold(1.0, |t: Real, h| t.min(h.t))
}

/// How deep a swept body's shape may end in a body that holds still before its sweep stops it
/// ([`sunk_stop`]): `slop` plus half its thinnest part's inner radius (a compound's thinnest
/// child's), what its next contact undoes from the side it came from.
fn sink_allowance(shape: &Shape, slop: Real) -> Real {
    let thinnest = match shape {
        Shape::Compound(c) => c.children().iter().map(|k| k.shape.inner_radius()).fold(Real::INFINITY, Real::min),
        _ => shape.inner_radius(),
    };
    slop + 0.5 * thinnest
}

/// The last fraction in `[lo, hi]` where `within` holds, found by bisection, given that it
/// holds at `lo` and not at `hi`; and the first found where it does not.
fn last_within(mut lo: Real, mut hi: Real, mut within: impl FnMut(Real) -> bool) -> (Real, Real) {
    for _ in 0..SUNK_BISECTIONS {
        let mid = 0.5 * (lo + hi);
        if within(mid) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    (lo, hi)
}

/// Bisections of [`sunk_stop`]: the stop is found to 1/4096 of the fraction searched.
const SUNK_BISECTIONS: usize = 12;

/// Where along `motion`, before fraction `before`, a body that touches `other`, a body that
/// holds still, at the start of its sweep is stopped: where its shape would otherwise first be
/// sunk into `other` more than [`sink_allowance`] (or than it started, if deeper). A sweep of a
/// touching pair follows the cores alone, whose centres need not meet; the turn of a thin body
/// can swing a corner deep into what it touches within the step (a 4 cm plate stopped on a
/// floor at 4 m/s at 0.29 of the step, left turning at 29 rad/s by the impact on one corner,
/// ended the step with another corner 14 cm into the floor), and the solver can drive a board
/// under heavy rocks a little deeper every step. The depth is the deepest point of the pair's
/// contact manifold; it is sampled at [`SUNK_SAMPLES`] fractions (a corner turning through a
/// thin box comes out again), and the stop is bisected between the last sample within the
/// allowance and the first beyond it. The stop is an impact at the manifold's deepest point
/// there, which [`impact`] resolves against the manifold's points. `None` when the pair does not
/// touch at the start (the sweep of the whole shape then keeps it out) or stays within.
fn sunk_stop(shape: &Shape, motion: &Motion, other: &Body, before: Real, settings: &Settings) -> Option<TimeOfImpact> {
    // Pairs within the allowance count as touching (a time-of-impact stop leaves a pair up to
    // `target` plus the search's tolerance apart), and their manifolds have points there.
    let allowance = sink_allowance(shape, settings.slop);
    if !shape.aabb(&motion.start).expanded(allowance).overlaps(&other.shape.aabb(&other.pose)) {
        return None;
    }
    let tol = Tolerance { margin: allowance.max(2.0 * toi_target(settings)), epsilon: settings.contact_epsilon };
    let (method, edges) = (settings.narrow_phase, settings.internal_edges);
    let queries = std::cell::Cell::new(0u32);
    let manifold = |t: Real| {
        queries.set(queries.get() + 1);
        contact_with_edges(shape, &motion.at(t), &other.shape, &other.pose, tol, method, edges)
            .filter(|m| !m.is_empty())
    };
    let depth = |t: Real| manifold(t).map_or(Real::NEG_INFINITY, |m| m.max_depth());
    let start = manifold(0.0)?;
    let allowed = allowance.max(start.max_depth());
    // No point of the shape moves farther than the centre's advance plus the turn's reach, and
    // a shape can sink no deeper than it moves (sideways too: a body hanging over an edge slides
    // into the side face): a body that cannot sink past the allowance (one resting on what it
    // touches) is not sampled.
    let sink = motion.translation().length() + angular_reach(shape, motion.angle());
    if start.max_depth() + sink <= allowed {
        return None;
    }
    let mut from = 0.0;
    let beyond = (1..=SUNK_SAMPLES).map(|k| before * k as Real / SUNK_SAMPLES as Real).find(|&t| {
        let sunk = depth(t) > allowed;
        if !sunk {
            from = t;
        }
        sunk
    })?;
    let (t, sunk_at) = last_within(from, beyond, |t| depth(t) <= allowed);
    // Where the pair has no manifold at the stop (apart by more than the margin), the contact
    // is the one it sinks into, its point carried back with the body.
    let (normal, point, depth) = match manifold(t) {
        Some(m) => m.deepest().map(|p| (m.normal, p.point, p.depth))?,
        None => {
            let m = manifold(sunk_at)?;
            let p = m.deepest()?;
            let back = motion.at(t).transform_point(motion.at(sunk_at).inverse_transform_point(p.point));
            (m.normal, back, 0.0)
        }
    };
    Some(TimeOfImpact { t, normal, point, distance: -depth, iterations: queries.get(), core: false })
}

/// Fractions of a touching body's sweep [`sunk_stop`] samples for depth.
const SUNK_SAMPLES: usize = 4;

/// A body's motion over the step, from its pose at the start to where the solver left it.
/// A body turning more than a quarter turn in the step turns at its angular velocity, every
/// radian of it (the shortest arc between the two rotations would skip whole turns).
fn step_motion(b: &Body, start: Pose, dt: Real) -> Remaining {
    let motion = if b.kind == BodyKind::Static {
        Motion::stationary(b.pose)
    } else if b.angvel.length() * dt > FAST_TURN {
        Motion::turning(start, b.pose.translation, b.angvel * dt)
    } else {
        Motion::new(start, b.pose)
    };
    Remaining { motion, t_from: 0.0 }
}

/// The turn per step (rad) above which a swept body's rotation follows its angular velocity.
const FAST_TURN: Real = std::f32::consts::FRAC_PI_2;

/// How a body carries on after an impact.
#[derive(Clone, Copy, PartialEq)]
enum Rest {
    /// At its velocity, turning.
    Move,
    /// At its linear velocity without turning: a body out of rounds, swept once more so.
    Glide,
    /// Where it is: a body out of rounds that will not be swept again.
    Stay,
}

/// The rest of the step from the body's pose at fraction `time`.
fn continue_from(b: &Body, time: Real, dt: Real, rest: Rest) -> Remaining {
    let left = (1.0 - time).max(0.0) * dt;
    let motion = match rest {
        Rest::Stay => Motion::stationary(b.pose),
        Rest::Glide => Motion::turning(b.pose, b.pose.translation + b.linvel * left, Vec3::ZERO),
        Rest::Move => Motion::turning(b.pose, b.pose.translation + b.linvel * left, b.angvel * left),
    };
    Remaining { motion, t_from: time }
}

/// Resolves the velocities of an impact between body `i` and body `j` at their current poses:
/// sequential impulses over the points of the pair's contact manifold (a single point at the
/// closest points when the narrow phase finds none) that stop the approach at every point, or
/// reverse it by the restitution where it is faster than the threshold. Spreading the impulse
/// over the manifold stops a box that lands flat without the spin one corner's impulse gives.
fn impact(bodies: &mut [Body], i: usize, j: usize, hit: &TimeOfImpact, target: Real, settings: &Settings) {
    let (bi, bj) = (&bodies[i], &bodies[j]);
    let tol = Tolerance { margin: 2.0 * (hit.distance.max(0.0) + target), epsilon: settings.contact_epsilon };
    let (method, edges) = (settings.narrow_phase, settings.internal_edges);
    let manifold = contact_with_edges(&bi.shape, &bi.pose, &bj.shape, &bj.pose, tol, method, edges);
    let (normal, mut points) = match manifold {
        // A core's impact stops the centre: its one point is next to it.
        Some(m) if !m.is_empty() && !hit.core => (m.normal, m.points().iter().map(|p| p.point).collect::<Vec<_>>()),
        _ => (hit.normal, vec![hit.point]),
    };
    if normal.dot(hit.normal) < 0.0 {
        // A manifold whose normal disagrees with the sweep's (deep overlap): trust the sweep.
        points = vec![hit.point];
    }
    let normal = if normal.dot(hit.normal) < 0.0 { hit.normal } else { normal };
    let e = bi.material.restitution.max(bj.material.restitution);
    let j_dynamic = bj.is_dynamic();
    let (ii, ij) = (bi.inv_inertia_world(), bj.inv_inertia_world());
    let (mut vi, mut wi, mut vj, mut wj) = (bi.linvel, bi.angvel, bj.linvel, bj.angvel);
    let (ci, cj) = (bi.pose.translation, bj.pose.translation);
    struct Row {
        ri: Vec3,
        rj: Vec3,
        k: Real,
        goal: Real,
        acc: Real,
    }
    let mut rows: Vec<Row> = points
        .iter()
        .filter_map(|&p| {
            let (ri, rj) = (p - ci, p - cj);
            let (xi, xj) = (ri.cross(normal), rj.cross(normal));
            let mut k = bi.inv_mass() + xi.dot(ii * xi);
            if j_dynamic {
                k += bj.inv_mass() + xj.dot(ij * xj);
            }
            let vn = normal.dot((vj + wj.cross(rj)) - (vi + wi.cross(ri)));
            let goal = if -vn > settings.restitution_threshold { -e * vn } else { 0.0 };
            (k > 0.0).then_some(Row { ri, rj, k, goal, acc: 0.0 })
        })
        .collect();
    let (mi, mj) = (bi.inv_mass(), if j_dynamic { bj.inv_mass() } else { 0.0 });
    let mut pushed = false;
    for _ in 0..IMPACT_ITERATIONS {
        for r in &mut rows {
            let vn = normal.dot((vj + wj.cross(r.rj)) - (vi + wi.cross(r.ri)));
            let new = (r.acc + (r.goal - vn) / r.k).max(0.0);
            let d = new - r.acc;
            r.acc = new;
            if d == 0.0 {
                continue;
            }
            pushed = true;
            let impulse = normal * d;
            vi -= impulse * mi;
            wi -= ii * r.ri.cross(impulse);
            if j_dynamic {
                vj += impulse * mj;
                wj += ij * r.rj.cross(impulse);
            }
        }
    }
    if !pushed {
        return;
    }
    let bi = &mut bodies[i];
    (bi.linvel, bi.angvel) = (vi, wi);
    if j_dynamic {
        let bj = &mut bodies[j];
        bj.wake();
        (bj.linvel, bj.angvel) = (vj, wj);
    }
}
