//! Sequential-impulse contact solver over substeps (after Box2D v3's soft step): contacts are
//! found once per step; each substep integrates velocities, solves with position correction,
//! integrates positions and relaxes without it; restitution is applied last.

use super::Body;
use crate::math::{Mat3, Quat, Real, Vec3, orthonormal_basis};
use crate::narrowphase::{MAX_MANIFOLD_POINTS, Manifold};
use crate::world::{PositionCorrection, Settings};

/// A contact between two bodies: indices and manifold, as the narrow phase produced it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    pub a: u32,
    pub b: u32,
    pub manifold: Manifold,
}

/// Impulses kept between steps for warm starting, matched by pair and feature id.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CachedImpulse {
    pub id: u32,
    pub normal: Real,
    pub tangent: [Real; 2],
}

#[derive(Clone, Copy, Debug, Default)]
struct Point {
    ra: Vec3,
    rb: Vec3,
    /// `ra × n` and `rb × n`: the angular parts of the normal Jacobian.
    ran: Vec3,
    rbn: Vec3,
    /// Separation when the contact was found (negative: overlap).
    separation: Real,
    normal_mass: Real,
    normal_impulse: Real,
    max_normal_impulse: Real,
    /// Normal relative velocity before solving, for restitution.
    relative_velocity: Real,
    id: u32,
}

#[derive(Clone, Copy, Debug)]
struct Constraint {
    a: usize,
    b: usize,
    normal: Vec3,
    tangents: [Vec3; 2],
    /// Friction acts once per manifold, at the centroid of its points (anchors `ca`, `cb`),
    /// limited by the manifold's total normal impulse, plus a twist about the normal.
    ca: Vec3,
    cb: Vec3,
    tangent_mass: [Real; 2],
    tangent_impulse: [Real; 2],
    twist_mass: Real,
    twist_impulse: Real,
    /// Mean distance of the points from the centroid: the twist's lever arm.
    twist_radius: Real,
    friction: Real,
    restitution: Real,
    points: [Point; MAX_MANIFOLD_POINTS],
    len: usize,
    /// One body does not move this step.
    one_sided: bool,
}

/// Per-body solver state: velocities and the motion since the step began.
#[derive(Clone, Copy, Debug)]
struct State {
    v: Vec3,
    w: Vec3,
    inv_mass: Real,
    inv_i: Mat3,
    dp: Vec3,
    dq: Quat,
    /// The rotation since the step began as a vector (sum of `w h`): separations are updated
    /// to first order in it, which is exact enough within one step and far cheaper.
    dtheta: Vec3,
    /// Moves at all this step (dynamic and awake, or kinematic).
    moves: bool,
}

struct Softness {
    bias_rate: Real,
    mass_scale: Real,
    impulse_scale: Real,
}

/// The softness of contacts whose bodies both move, and of contacts against a body that does
/// not (static, kinematic or asleep): those are twice as stiff, as only one side gives.
fn softness(settings: &Settings, h: Real) -> [Softness; 2] {
    [soft_at(settings, settings.contact_hertz, h), soft_at(settings, 2.0 * settings.contact_hertz, h)]
}

fn soft_at(settings: &Settings, hertz: Real, h: Real) -> Softness {
    match settings.position_correction {
        PositionCorrection::Soft => {
            // Stiffer than a quarter of the substep rate would be unstable.
            let hz = hertz.min(0.25 / h);
            let omega = 2.0 * std::f32::consts::PI * hz;
            let zeta = settings.damping_ratio;
            let a1 = 2.0 * zeta + h * omega;
            let a2 = h * omega * a1;
            let a3 = 1.0 / (1.0 + a2);
            Softness { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
        }
        PositionCorrection::Baumgarte => {
            Softness { bias_rate: settings.baumgarte / h, mass_scale: 1.0, impulse_scale: 0.0 }
        }
    }
}

/// Warm-starting cache: last step's impulses per pair, sorted by pair.
pub type WarmCache = Vec<((u32, u32), [CachedImpulse; MAX_MANIFOLD_POINTS])>;

/// Time spent in the solver's parts, ms.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolverTimes {
    pub solve_ms: f64,
    pub integrate_ms: f64,
}

/// The contact solver. It keeps its buffers between steps so a step allocates nothing once the
/// scene's size is reached.
#[derive(Clone, Debug, Default)]
pub struct Solver {
    states: Vec<State>,
    constraints: Vec<Constraint>,
}

impl Solver {
    /// Solves `contacts` and integrates every body over one step of `settings.dt`. `cache`
    /// holds last step's impulses sorted by pair and is replaced with this step's.
    pub fn step(
        &mut self,
        bodies: &mut [Body],
        contacts: &[Contact],
        settings: &Settings,
        cache: &mut WarmCache,
    ) -> SolverTimes {
        let mut times = SolverTimes::default();
        let substeps = settings.substeps.max(1);
        let h = settings.dt / substeps as Real;
        let inv_h = 1.0 / h;

        let t_prepare = std::time::Instant::now();
        self.prepare_states(bodies);
        self.prepare_constraints(bodies, contacts, settings, cache);
        let states = &mut self.states;
        let constraints = &mut self.constraints;
        let soft = softness(settings, h);
        // Where position correction stops pushing. Soft contacts aim at half the slop so that
        // their sag under load still settles within it; Baumgarte pushes only beyond it.
        let rest_depth = match settings.position_correction {
            PositionCorrection::Soft => 0.5 * settings.slop,
            PositionCorrection::Baumgarte => settings.slop,
        };
        let max_push = settings.max_correction_velocity;
        // Rotation per substep is capped so that fast spin cannot wrap the quaternion update.
        let max_w = MAX_ROTATION_PER_SUBSTEP * inv_h;
        times.solve_ms += t_prepare.elapsed().as_secs_f64() * 1e3;

        for _ in 0..substeps {
            let t = std::time::Instant::now();
            let dv = settings.gravity * h;
            for s in states.iter_mut().filter(|s| s.inv_mass > 0.0) {
                s.v += dv;
            }
            times.integrate_ms += t.elapsed().as_secs_f64() * 1e3;

            let t = std::time::Instant::now();
            if settings.warm_starting {
                for c in constraints.iter() {
                    warm_start(c, states);
                }
            }
            for _ in 0..settings.iterations {
                for c in constraints.iter_mut() {
                    solve_contact(c, states, &soft, inv_h, rest_depth, max_push, true);
                }
            }
            times.solve_ms += t.elapsed().as_secs_f64() * 1e3;

            let t = std::time::Instant::now();
            for s in states.iter_mut().filter(|s| s.moves) {
                let w2 = s.w.length_squared();
                if w2 > max_w * max_w {
                    s.w *= max_w / w2.sqrt();
                }
                s.dp += s.v * h;
                s.dtheta += s.w * h;
                s.dq = Body::integrate_rotation(s.dq, s.w, h);
            }
            times.integrate_ms += t.elapsed().as_secs_f64() * 1e3;

            let t = std::time::Instant::now();
            for c in constraints.iter_mut() {
                solve_contact(c, states, &soft, inv_h, rest_depth, max_push, false);
            }
            times.solve_ms += t.elapsed().as_secs_f64() * 1e3;
        }

        let t = std::time::Instant::now();
        for c in constraints.iter_mut() {
            apply_restitution(c, states, settings.restitution_threshold);
        }
        // Contacts arrive sorted by pair, so the cache comes out sorted for next step's search.
        cache.clear();
        cache.extend(constraints.iter().map(|c| {
            let mut imp = [CachedImpulse { id: u32::MAX, ..Default::default() }; MAX_MANIFOLD_POINTS];
            for (k, p) in c.points[..c.len].iter().enumerate() {
                // The manifold's friction impulse, shared out evenly over its points.
                let share = [c.tangent_impulse[0] / c.len as Real, c.tangent_impulse[1] / c.len as Real];
                let tangent = to_canonical(c.normal, share, c.tangents);
                imp[k] = CachedImpulse { id: p.id, normal: p.normal_impulse, tangent };
            }
            ((c.a as u32, c.b as u32), imp)
        }));
        times.solve_ms += t.elapsed().as_secs_f64() * 1e3;

        let t = std::time::Instant::now();
        for (s, b) in states.iter().zip(bodies.iter_mut()) {
            if !s.moves {
                continue;
            }
            b.pose.translation += s.dp;
            b.pose.rotation = (s.dq * b.pose.rotation).normalize();
            if s.inv_mass > 0.0 {
                b.linvel = s.v;
                b.angvel = s.w;
            }
        }
        times.integrate_ms += t.elapsed().as_secs_f64() * 1e3;
        times
    }

    fn prepare_states(&mut self, bodies: &[Body]) {
        self.states.clear();
        self.states.extend(bodies.iter().map(|b| {
            let dynamic = b.is_dynamic() && !b.asleep;
            let kinematic = b.kind == super::BodyKind::Kinematic;
            State {
                v: if dynamic || kinematic { b.linvel } else { Vec3::ZERO },
                w: if dynamic || kinematic { b.angvel } else { Vec3::ZERO },
                inv_mass: if dynamic { b.inv_mass } else { 0.0 },
                // Held for the step, as the rotation changes little within one.
                inv_i: if dynamic { b.inv_inertia_world() } else { Mat3::ZERO },
                dp: Vec3::ZERO,
                dq: Quat::IDENTITY,
                dtheta: Vec3::ZERO,
                moves: dynamic || kinematic,
            }
        }));
    }

    fn prepare_constraints(&mut self, bodies: &[Body], contacts: &[Contact], settings: &Settings, cache: &WarmCache) {
        let states = &self.states;
        self.constraints.clear();
        self.constraints.reserve(contacts.len());
        // Contacts and cache are both sorted by pair: walk them together.
        let mut k_cache = 0;
        for c in contacts {
            let (ia, ib) = (c.a as usize, c.b as usize);
            let (ba, bb) = (&bodies[ia], &bodies[ib]);
            let (sa, sb) = (&states[ia], &states[ib]);
            let n = c.manifold.normal;
            let (t1, t2) = friction_basis(n, ba, bb, c);
            let mut cached = None;
            if settings.warm_starting {
                while k_cache < cache.len() && cache[k_cache].0 < (c.a, c.b) {
                    k_cache += 1;
                }
                if k_cache < cache.len() && cache[k_cache].0 == (c.a, c.b) {
                    cached = Some(&cache[k_cache].1);
                }
            }
            let pts = c.manifold.points();
            let centre = pts.iter().map(|p| p.point).sum::<Vec3>() / pts.len().max(1) as Real;
            let (ca, cb) = (centre - ba.pose.translation, centre - bb.pose.translation);
            let eff = |ra: Vec3, rb: Vec3, dir: Vec3| {
                let (ca, cb) = (ra.cross(dir), rb.cross(dir));
                let k = sa.inv_mass + sb.inv_mass + ca.dot(sa.inv_i * ca) + cb.dot(sb.inv_i * cb);
                if k > 0.0 { 1.0 / k } else { 0.0 }
            };
            let twist_k = n.dot(sa.inv_i * n) + n.dot(sb.inv_i * n);
            let mut con = Constraint {
                a: ia,
                b: ib,
                normal: n,
                tangents: [t1, t2],
                ca,
                cb,
                tangent_mass: [eff(ca, cb, t1), eff(ca, cb, t2)],
                tangent_impulse: [0.0; 2],
                twist_mass: if twist_k > 0.0 { 1.0 / twist_k } else { 0.0 },
                twist_impulse: 0.0,
                twist_radius: pts.iter().map(|p| (p.point - centre).length()).sum::<Real>() / pts.len().max(1) as Real,
                friction: (ba.material.friction * bb.material.friction).sqrt(),
                restitution: ba.material.restitution.max(bb.material.restitution),
                points: [Point::default(); MAX_MANIFOLD_POINTS],
                len: c.manifold.len(),
                one_sided: sa.inv_mass == 0.0 || sb.inv_mass == 0.0,
            };
            for (k, mp) in pts.iter().enumerate() {
                let ra = mp.point - ba.pose.translation;
                let rb = mp.point - bb.pose.translation;
                let rel_v = n.dot((sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra)));
                let warm = cached.and_then(|pts| pts.iter().find(|p| p.id == mp.id && p.id != u32::MAX));
                if let Some(w) = warm {
                    let t = from_canonical(n, w.tangent, t1, t2);
                    con.tangent_impulse[0] += t[0];
                    con.tangent_impulse[1] += t[1];
                }
                con.points[k] = Point {
                    ra,
                    rb,
                    ran: ra.cross(n),
                    rbn: rb.cross(n),
                    separation: -mp.depth,
                    normal_mass: eff(ra, rb, n),
                    normal_impulse: warm.map_or(0.0, |w| w.normal),
                    max_normal_impulse: 0.0,
                    relative_velocity: rel_v,
                    id: mp.id,
                };
            }
            self.constraints.push(con);
        }
    }
}

/// Tangent directions for friction. When the surfaces slip, the first follows the slip, so the
/// clamp to the friction cone acts straight against it (per-direction solves in a basis at an
/// angle to the slip would turn the friction sideways and weaken it). Otherwise any basis.
fn friction_basis(n: Vec3, a: &Body, b: &Body, c: &Contact) -> (Vec3, Vec3) {
    let pts = c.manifold.points();
    if pts.is_empty() {
        return orthonormal_basis(n);
    }
    let centre = pts.iter().map(|p| p.point).sum::<Vec3>() / pts.len() as Real;
    let v = b.velocity_at(centre) - a.velocity_at(centre);
    let slip = v - n * n.dot(v);
    let len = slip.length();
    if len > SLIP_SPEED {
        let t1 = slip / len;
        (t1, n.cross(t1))
    } else {
        orthonormal_basis(n)
    }
}

/// Slip speed (m/s) above which friction follows the slip direction.
const SLIP_SPEED: Real = 1e-3;

/// Tangent impulses are cached in the canonical basis of the normal, so they survive a change
/// of friction basis between steps.
fn to_canonical(n: Vec3, t: [Real; 2], basis: [Vec3; 2]) -> [Real; 2] {
    let world = basis[0] * t[0] + basis[1] * t[1];
    let (c1, c2) = orthonormal_basis(n);
    [world.dot(c1), world.dot(c2)]
}

fn from_canonical(n: Vec3, t: [Real; 2], t1: Vec3, t2: Vec3) -> [Real; 2] {
    let (c1, c2) = orthonormal_basis(n);
    let world = c1 * t[0] + c2 * t[1];
    [world.dot(t1), world.dot(t2)]
}

/// Largest rotation (rad) a body may turn through in one substep.
const MAX_ROTATION_PER_SUBSTEP: Real = 0.25 * std::f32::consts::PI;

#[inline]
fn apply(states: &mut [State], a: usize, b: usize, ra: Vec3, rb: Vec3, impulse: Vec3) {
    let sa = &mut states[a];
    sa.v -= impulse * sa.inv_mass;
    sa.w -= sa.inv_i * ra.cross(impulse);
    let sb = &mut states[b];
    sb.v += impulse * sb.inv_mass;
    sb.w += sb.inv_i * rb.cross(impulse);
}

/// Applies `lambda` along the normal, with the angular parts `ran`, `rbn` precomputed.
#[inline]
fn apply_normal(states: &mut [State], a: usize, b: usize, n: Vec3, ran: Vec3, rbn: Vec3, lambda: Real) {
    let sa = &mut states[a];
    sa.v -= n * (lambda * sa.inv_mass);
    sa.w -= sa.inv_i * (ran * lambda);
    let sb = &mut states[b];
    sb.v += n * (lambda * sb.inv_mass);
    sb.w += sb.inv_i * (rbn * lambda);
}

#[inline]
fn relative_velocity(states: &[State], a: usize, b: usize, ra: Vec3, rb: Vec3) -> Vec3 {
    let (sa, sb) = (&states[a], &states[b]);
    (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra))
}

fn warm_start(c: &Constraint, states: &mut [State]) {
    for p in &c.points[..c.len] {
        apply_normal(states, c.a, c.b, c.normal, p.ran, p.rbn, p.normal_impulse);
    }
    let t = c.tangents[0] * c.tangent_impulse[0] + c.tangents[1] * c.tangent_impulse[1];
    apply(states, c.a, c.b, c.ca, c.cb, t);
    apply_twist(states, c.a, c.b, c.normal, c.twist_impulse);
}

#[inline]
fn apply_twist(states: &mut [State], a: usize, b: usize, n: Vec3, impulse: Real) {
    let sa = &mut states[a];
    sa.w -= sa.inv_i * (n * impulse);
    let sb = &mut states[b];
    sb.w += sb.inv_i * (n * impulse);
}

fn solve_contact(
    c: &mut Constraint,
    states: &mut [State],
    soft: &[Softness; 2],
    inv_h: Real,
    rest_depth: Real,
    max_push: Real,
    use_bias: bool,
) {
    let (a, b) = (c.a, c.b);
    let n = c.normal;
    let soft = &soft[c.one_sided as usize];
    for p in &mut c.points[..c.len] {
        // Current separation from the bodies' motion since the contact was found:
        // n · (Δp + Δθ × r) for each anchor, since n · (Δθ × r) = Δθ · (r × n).
        let (sa, sb) = (&states[a], &states[b]);
        let s = n.dot(sb.dp - sa.dp) + sb.dtheta.dot(p.rbn) - sa.dtheta.dot(p.ran) + p.separation;
        let (bias, mass_scale, impulse_scale) = if s > 0.0 {
            // Speculative: allow closing the gap this substep, no more.
            (s * inv_h, 1.0, 0.0)
        } else if use_bias {
            // Push out toward the rest depth. A soft contact acts above it too (bodies settle to
            // that depth evenly, which levels tilted contacts); Baumgarte leaves it alone.
            ((soft.bias_rate * (s + rest_depth).min(0.0)).max(-max_push), soft.mass_scale, soft.impulse_scale)
        } else {
            // The relax pass: a rigid contact that only stops approach.
            (0.0, 1.0, 0.0)
        };
        let vn = n.dot(sb.v - sa.v) + sb.w.dot(p.rbn) - sa.w.dot(p.ran);
        let lambda = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
        let new = (p.normal_impulse + lambda).max(0.0);
        let applied = new - p.normal_impulse;
        p.normal_impulse = new;
        p.max_normal_impulse = p.max_normal_impulse.max(new);
        apply_normal(states, a, b, n, p.ran, p.rbn, applied);
    }
    let total: Real = c.points[..c.len].iter().map(|p| p.normal_impulse).sum();
    let limit = c.friction * total;
    let vr = relative_velocity(states, a, b, c.ca, c.cb);
    let old = c.tangent_impulse;
    let mut t =
        [old[0] - c.tangent_mass[0] * c.tangents[0].dot(vr), old[1] - c.tangent_mass[1] * c.tangents[1].dot(vr)];
    // Coulomb's cone, approximated by clamping the combined tangent impulse's length.
    let len2 = t[0] * t[0] + t[1] * t[1];
    if len2 > limit * limit {
        let k = limit / len2.sqrt();
        t = [t[0] * k, t[1] * k];
    }
    c.tangent_impulse = t;
    let impulse = c.tangents[0] * (t[0] - old[0]) + c.tangents[1] * (t[1] - old[1]);
    apply(states, a, b, c.ca, c.cb, impulse);
    // Twist: friction against spinning about the normal, over the patch's lever arm.
    if c.twist_radius > 0.0 {
        let (sa, sb) = (&states[a], &states[b]);
        let wn = n.dot(sb.w - sa.w);
        let max = c.friction * c.twist_radius * total;
        let old = c.twist_impulse;
        c.twist_impulse = (old - c.twist_mass * wn).clamp(-max, max);
        apply_twist(states, a, b, n, c.twist_impulse - old);
    }
}

fn apply_restitution(c: &mut Constraint, states: &mut [State], threshold: Real) {
    if c.restitution == 0.0 {
        return;
    }
    let n = c.normal;
    for p in &mut c.points[..c.len] {
        if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
            continue;
        }
        let vn = n.dot(relative_velocity(states, c.a, c.b, p.ra, p.rb));
        let lambda = -p.normal_mass * (vn + c.restitution * p.relative_velocity);
        let new = (p.normal_impulse + lambda).max(0.0);
        let applied = new - p.normal_impulse;
        p.normal_impulse = new;
        apply(states, c.a, c.b, p.ra, p.rb, n * applied);
    }
}
