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
    /// Separation at collision time minus the anchors' offset along the normal.
    adjusted_separation: Real,
    normal_mass: Real,
    tangent_mass: [Real; 2],
    normal_impulse: Real,
    tangent_impulse: [Real; 2],
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
    friction: Real,
    restitution: Real,
    points: [Point; MAX_MANIFOLD_POINTS],
    len: usize,
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
    /// Moves at all this step (dynamic and awake, or kinematic).
    moves: bool,
}

struct Softness {
    bias_rate: Real,
    mass_scale: Real,
    impulse_scale: Real,
}

fn softness(settings: &Settings, h: Real) -> Softness {
    match settings.position_correction {
        PositionCorrection::Soft => {
            // Stiffer than a quarter of the substep rate would be unstable.
            let hz = settings.contact_hertz.min(0.25 / h);
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

/// Solves `contacts` and integrates every body over one step of `settings.dt`. `cache` holds
/// last step's impulses sorted by pair and is replaced with this step's.
pub fn solve_and_integrate(
    bodies: &mut [Body],
    contacts: &[Contact],
    settings: &Settings,
    cache: &mut Vec<((u32, u32), [CachedImpulse; MAX_MANIFOLD_POINTS])>,
    solve_ms: &mut f64,
    integrate_ms: &mut f64,
) {
    let substeps = settings.substeps.max(1);
    let h = settings.dt / substeps as Real;
    let inv_h = 1.0 / h;

    let t_prepare = std::time::Instant::now();
    let mut states: Vec<State> = bodies
        .iter()
        .map(|b| {
            let dynamic = b.is_dynamic() && !b.asleep;
            let kinematic = b.kind == super::BodyKind::Kinematic;
            State {
                v: if dynamic || kinematic { b.linvel } else { Vec3::ZERO },
                w: if dynamic || kinematic { b.angvel } else { Vec3::ZERO },
                inv_mass: if dynamic { b.inv_mass } else { 0.0 },
                inv_i: if dynamic { b.inv_inertia_world() } else { Mat3::ZERO },
                dp: Vec3::ZERO,
                dq: Quat::IDENTITY,
                moves: dynamic || kinematic,
            }
        })
        .collect();

    let mut constraints: Vec<Constraint> = Vec::with_capacity(contacts.len());
    for c in contacts {
        let (ia, ib) = (c.a as usize, c.b as usize);
        let (ba, bb) = (&bodies[ia], &bodies[ib]);
        let (sa, sb) = (&states[ia], &states[ib]);
        let n = c.manifold.normal;
        let (t1, t2) = orthonormal_basis(n);
        let cached = if settings.warm_starting {
            cache.binary_search_by_key(&(c.a, c.b), |e| e.0).ok().map(|k| &cache[k].1)
        } else {
            None
        };
        let mut con = Constraint {
            a: ia,
            b: ib,
            normal: n,
            tangents: [t1, t2],
            friction: (ba.material.friction * bb.material.friction).sqrt(),
            restitution: ba.material.restitution.max(bb.material.restitution),
            points: [Point::default(); MAX_MANIFOLD_POINTS],
            len: c.manifold.len(),
        };
        for (k, mp) in c.manifold.points().iter().enumerate() {
            let ra = mp.point - ba.pose.translation;
            let rb = mp.point - bb.pose.translation;
            let eff = |dir: Vec3| {
                let (ca, cb) = (ra.cross(dir), rb.cross(dir));
                let k = sa.inv_mass + sb.inv_mass + ca.dot(sa.inv_i * ca) + cb.dot(sb.inv_i * cb);
                if k > 0.0 { 1.0 / k } else { 0.0 }
            };
            let rel_v = n.dot((sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra)));
            let warm = cached.and_then(|pts| pts.iter().find(|p| p.id == mp.id && p.id != u32::MAX));
            con.points[k] = Point {
                ra,
                rb,
                adjusted_separation: -mp.depth - n.dot(rb - ra),
                normal_mass: eff(n),
                tangent_mass: [eff(t1), eff(t2)],
                normal_impulse: warm.map_or(0.0, |w| w.normal),
                tangent_impulse: warm.map_or([0.0; 2], |w| w.tangent),
                max_normal_impulse: 0.0,
                relative_velocity: rel_v,
                id: mp.id,
            };
        }
        constraints.push(con);
    }
    let soft = softness(settings, h);
    let slop = settings.slop;
    *solve_ms += t_prepare.elapsed().as_secs_f64() * 1e3;

    for _ in 0..substeps {
        // Gravity.
        let t = std::time::Instant::now();
        for s in states.iter_mut().filter(|s| s.inv_mass > 0.0) {
            s.v += settings.gravity * h;
        }
        *integrate_ms += t.elapsed().as_secs_f64() * 1e3;

        let t = std::time::Instant::now();
        if settings.warm_starting {
            for c in &constraints {
                warm_start(c, &mut states);
            }
        }
        for _ in 0..settings.iterations {
            for c in &mut constraints {
                solve_contact(c, &mut states, &soft, inv_h, slop, settings.max_correction_velocity, true);
            }
        }
        *solve_ms += t.elapsed().as_secs_f64() * 1e3;

        let t = std::time::Instant::now();
        for (s, b) in states.iter_mut().zip(bodies.iter_mut()) {
            if !s.moves {
                continue;
            }
            b.pose.translation += s.v * h;
            let q = Body::integrate_rotation(b.pose.rotation, s.w, h);
            s.dq = (q * b.pose.rotation.inverse() * s.dq).normalize();
            s.dp += s.v * h;
            b.pose.rotation = q;
            if s.inv_mass > 0.0 {
                let r = Mat3::from_quat(q);
                s.inv_i = r * b.inv_inertia_local * r.transpose();
            }
        }
        *integrate_ms += t.elapsed().as_secs_f64() * 1e3;

        let t = std::time::Instant::now();
        for c in &mut constraints {
            solve_contact(c, &mut states, &soft, inv_h, slop, settings.max_correction_velocity, false);
        }
        *solve_ms += t.elapsed().as_secs_f64() * 1e3;
    }

    let t = std::time::Instant::now();
    for c in &mut constraints {
        apply_restitution(c, &mut states, settings.restitution_threshold);
    }
    cache.clear();
    for c in &constraints {
        let mut imp = [CachedImpulse { id: u32::MAX, ..Default::default() }; MAX_MANIFOLD_POINTS];
        for (k, p) in c.points[..c.len].iter().enumerate() {
            imp[k] = CachedImpulse { id: p.id, normal: p.normal_impulse, tangent: p.tangent_impulse };
        }
        cache.push(((c.a as u32, c.b as u32), imp));
    }
    // Contacts arrive sorted by pair, so the cache is sorted for the binary search next step.
    for (s, b) in states.iter().zip(bodies.iter_mut()) {
        if s.inv_mass > 0.0 {
            b.linvel = s.v;
            b.angvel = s.w;
        }
    }
    *solve_ms += t.elapsed().as_secs_f64() * 1e3;
}

#[inline]
fn apply(states: &mut [State], a: usize, b: usize, ra: Vec3, rb: Vec3, impulse: Vec3) {
    let sa = &mut states[a];
    sa.v -= impulse * sa.inv_mass;
    sa.w -= sa.inv_i * ra.cross(impulse);
    let sb = &mut states[b];
    sb.v += impulse * sb.inv_mass;
    sb.w += sb.inv_i * rb.cross(impulse);
}

#[inline]
fn relative_velocity(states: &[State], a: usize, b: usize, ra: Vec3, rb: Vec3) -> Vec3 {
    let (sa, sb) = (&states[a], &states[b]);
    (sb.v + sb.w.cross(rb)) - (sa.v + sa.w.cross(ra))
}

fn warm_start(c: &Constraint, states: &mut [State]) {
    for p in &c.points[..c.len] {
        let impulse =
            c.normal * p.normal_impulse + c.tangents[0] * p.tangent_impulse[0] + c.tangents[1] * p.tangent_impulse[1];
        apply(states, c.a, c.b, p.ra, p.rb, impulse);
    }
}

fn solve_contact(
    c: &mut Constraint,
    states: &mut [State],
    soft: &Softness,
    inv_h: Real,
    slop: Real,
    max_push: Real,
    use_bias: bool,
) {
    let (a, b) = (c.a, c.b);
    let n = c.normal;
    for p in &mut c.points[..c.len] {
        // Current separation from the bodies' motion since the contact was found.
        let (sa, sb) = (&states[a], &states[b]);
        let d = (sb.dp - sa.dp) + (sb.dq * p.rb - sa.dq * p.ra);
        let s = n.dot(d) + p.adjusted_separation;
        let (bias, mass_scale, impulse_scale) = if s > 0.0 {
            // Speculative: allow closing the gap this substep, no more.
            (s * inv_h, 1.0, 0.0)
        } else if use_bias {
            // Aim at half the slop so that the sag under load still settles within it.
            ((soft.bias_rate * (s + 0.5 * slop).min(0.0)).max(-max_push), soft.mass_scale, soft.impulse_scale)
        } else {
            (0.0, 1.0, 0.0)
        };
        let vn = n.dot(relative_velocity(states, a, b, p.ra, p.rb));
        let lambda = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
        let new = (p.normal_impulse + lambda).max(0.0);
        let applied = new - p.normal_impulse;
        p.normal_impulse = new;
        p.max_normal_impulse = p.max_normal_impulse.max(new);
        apply(states, a, b, p.ra, p.rb, n * applied);
    }
    for p in &mut c.points[..c.len] {
        let limit = c.friction * p.normal_impulse;
        let vr = relative_velocity(states, a, b, p.ra, p.rb);
        let old = p.tangent_impulse;
        let mut t =
            [old[0] - p.tangent_mass[0] * c.tangents[0].dot(vr), old[1] - p.tangent_mass[1] * c.tangents[1].dot(vr)];
        // Coulomb's cone, approximated by clamping the combined tangent impulse's length.
        let len2 = t[0] * t[0] + t[1] * t[1];
        if len2 > limit * limit {
            let k = limit / len2.sqrt();
            t = [t[0] * k, t[1] * k];
        }
        p.tangent_impulse = t;
        let impulse = c.tangents[0] * (t[0] - old[0]) + c.tangents[1] * (t[1] - old[1]);
        apply(states, a, b, p.ra, p.rb, impulse);
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
