//! The solver's working data and its inner loops: compact per-body velocity state and, per
//! manifold, every Jacobian term that stays constant through the step, so the passes only do
//! dot products and scaled adds on data they stream in order.

use crate::math::{Real, Vec3};
use crate::narrowphase::MAX_MANIFOLD_POINTS;

/// What the contact rows read and write of one body: velocities, and the motion since the step
/// began (for separations). Static and sleeping bodies keep zeros; kinematic ones their velocity.
/// `repr(C)`: the passes read the fields as floats 0..12, in this order.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct BodyState {
    pub v: Vec3,
    pub w: Vec3,
    pub dp: Vec3,
    /// The rotation since the step began as a vector (sum of `w h`): separations are updated
    /// to first order in it, which is exact enough within one step and far cheaper.
    pub dtheta: Vec3,
}

/// One normal row (a contact point), with the angular Jacobians `r × n` and their images
/// `I⁻¹ (r × n)` precomputed for both bodies.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NormalRow {
    pub ran: Vec3,
    pub rbn: Vec3,
    pub ia_ran: Vec3,
    pub ib_rbn: Vec3,
    /// Separation when the contact was found (negative: overlap).
    pub separation: Real,
    pub mass: Real,
    pub impulse: Real,
    /// Largest impulse the row carried at the end of a substep (after a relax pass): a point
    /// bounces only if it pushed there. The position-correcting pass does not count: a
    /// speculative point it pushes while still apart, and that the relax pass lets go, never
    /// touched, and its bounce would add the energy of an impact that did not happen.
    pub max_impulse: Real,
}

/// A manifold's rows: up to four normal rows, two friction rows at the points' centroid
/// limited by μ × the total normal impulse, and a twist row about the normal.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ManifoldRows {
    pub a: u32,
    pub b: u32,
    pub len: u32,
    /// One body does not move this step (softness index 1).
    pub one_sided: u32,
    pub normal: Vec3,
    /// Inverse masses of the two bodies (zero for one that does not move).
    pub ma: Real,
    pub mb: Real,
    pub friction: Real,
    pub restitution: Real,
    pub points: [NormalRow; MAX_MANIFOLD_POINTS],
    pub tangents: [Vec3; 2],
    /// The anchors of the points' centroid on each body. The scalar passes use `cat`, `cbt`
    /// instead; the bundles keep these (and the tests build the bundles' reference from them).
    #[cfg_attr(not(test), allow(dead_code))]
    pub ca: Vec3,
    #[cfg_attr(not(test), allow(dead_code))]
    pub cb: Vec3,
    /// `ca × t` and `cb × t` for each tangent, with `ca`, `cb` the centroid's anchors.
    pub cat: [Vec3; 2],
    pub cbt: [Vec3; 2],
    pub ia_cat: [Vec3; 2],
    pub ib_cbt: [Vec3; 2],
    pub tangent_mass: [Real; 2],
    pub tangent_impulse: [Real; 2],
    pub ia_n: Vec3,
    pub ib_n: Vec3,
    pub twist_mass: Real,
    pub twist_impulse: Real,
    /// μ × the patch's lever arm (mean distance of the points from the centroid): the twist
    /// impulse is limited by this times the total normal impulse. Zero: no twist row.
    pub twist_limit: Real,
}

/// How many times the restitution pass runs ([`restitution`]).
pub(super) const RESTITUTION_SWEEPS: usize = 2;
/// How many times each sweep of it sweeps a manifold's points ([`restitution`]).
pub(super) const MANIFOLD_SWEEPS: usize = 2;

/// What restitution needs to know of the step to estimate a point's speed at impact: gravity
/// and the step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Fall {
    pub gravity: Vec3,
    pub dt: Real,
}

impl Fall {
    /// Gravity along `n` on a body of inverse mass `inv_mass` (none on a body that does not
    /// move), summed in a fixed order so that the lanes' copy (`build`) rounds alike.
    pub(super) fn along(&self, n: Vec3, inv_mass: Real) -> Real {
        let g = self.gravity;
        if inv_mass > 0.0 { n.x * g.x + n.y * g.y + n.z * g.z } else { 0.0 }
    }

    /// The normal velocity a point approaching at `rel` (< 0) from `depth` (< 0: a gap) will
    /// have when it meets the other body, with `accel` the approach's acceleration along the
    /// normal (gravity on A less gravity on B): a speculative point meets the surface within
    /// the step, after gravity added to its speed over the gap, `√(u² + 2 a s)`, and never more
    /// than a whole step's worth, `u + a dt`. Restitution bounces that speed. Separating and
    /// touching points keep `rel`.
    pub(super) fn impact_velocity(&self, rel: Real, depth: Real, accel: Real) -> Real {
        let u = (-rel).max(0.0);
        let a = accel.max(0.0);
        let gap = (-depth).max(0.0);
        let ui = (u * u + 2.0 * a * gap).sqrt().min(u + a * self.dt);
        if 0.0 > rel { -ui } else { rel }
    }
}

/// Data of a contact point that the passes do not need: the approach speed at impact (for
/// restitution, [`Fall::impact_velocity`]) and the feature id (for the warm-start cache).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct PointInfo {
    pub relative_velocity: Real,
    pub id: u32,
}

/// Soft-constraint coefficients of one substep.
#[derive(Clone, Copy, Debug)]
pub(super) struct Softness {
    pub bias_rate: Real,
    pub mass_scale: Real,
    pub impulse_scale: Real,
}

/// Constants of a solve pass.
#[derive(Clone, Copy, Debug)]
pub(super) struct PassParams {
    /// Softness of two-sided and one-sided manifolds.
    pub soft: [Softness; 2],
    pub inv_h: Real,
    /// Depth where position correction stops pushing.
    pub rest_depth: Real,
    /// Fastest push-out velocity.
    pub max_push: Real,
    /// With position correction (solve) or without (relax).
    pub use_bias: bool,
    /// The point each manifold's sweep starts at (then on in cyclic order): it turns from
    /// pass to pass so the order a sweep leaves its error in averages out.
    pub first_point: usize,
    /// The pass records each point's largest impulse ([`NormalRow::max_impulse`]): the relax
    /// passes of a step with restitution.
    pub track_impulses: bool,
}

/// How a manifold's bodies have moved since its contact was found, for its points' current
/// separations: n · (Δp + Δθ × r) for each anchor, since n · (Δθ × r) = Δθ · (r × n).
struct Drift {
    dn: Real,
    dtha: Vec3,
    dthb: Vec3,
}

impl Drift {
    #[inline(always)]
    fn of(states: &[BodyState], a: usize, b: usize, n: Vec3) -> Self {
        Drift { dn: n.dot(states[b].dp - states[a].dp), dtha: states[a].dtheta, dthb: states[b].dtheta }
    }

    /// The point's separation now (negative: overlap).
    #[inline(always)]
    fn separation(&self, p: &NormalRow) -> Real {
        self.dn + self.dthb.dot(p.rbn) - self.dtha.dot(p.ran) + p.separation
    }
}

/// Velocities of a manifold's two bodies, held in registers through its rows.
struct Pair {
    va: Vec3,
    wa: Vec3,
    vb: Vec3,
    wb: Vec3,
}

impl Pair {
    #[inline(always)]
    fn load(states: &[BodyState], a: usize, b: usize) -> Self {
        let (sa, sb) = (&states[a], &states[b]);
        Pair { va: sa.v, wa: sa.w, vb: sb.v, wb: sb.w }
    }

    #[inline(always)]
    fn store(&self, states: &mut [BodyState], a: usize, b: usize) {
        states[a].v = self.va;
        states[a].w = self.wa;
        states[b].v = self.vb;
        states[b].w = self.wb;
    }

    /// Applies a normal impulse `d` through a row; `n` is the normal and `ma`, `mb` the
    /// inverse masses.
    #[inline(always)]
    fn push_normal(&mut self, (n, ma, mb): (Vec3, Real, Real), p: &NormalRow, d: Real) {
        self.va -= n * (d * ma);
        self.wa -= p.ia_ran * d;
        self.vb += n * (d * mb);
        self.wb += p.ib_rbn * d;
    }

    /// Normal relative velocity at a row (positive: separating).
    #[inline(always)]
    fn normal_velocity(&self, n: Vec3, p: &NormalRow) -> Real {
        n.dot(self.vb - self.va) + self.wb.dot(p.rbn) - self.wa.dot(p.ran)
    }

    /// Applies tangent impulses `d` at the centroid.
    #[inline(always)]
    fn push_tangent(&mut self, c: &ManifoldRows, d: [Real; 2]) {
        let lin = c.tangents[0] * d[0] + c.tangents[1] * d[1];
        self.va -= lin * c.ma;
        self.wa -= c.ia_cat[0] * d[0] + c.ia_cat[1] * d[1];
        self.vb += lin * c.mb;
        self.wb += c.ib_cbt[0] * d[0] + c.ib_cbt[1] * d[1];
    }

    #[inline(always)]
    fn push_twist(&mut self, c: &ManifoldRows, d: Real) {
        self.wa -= c.ia_n * d;
        self.wb += c.ib_n * d;
    }
}

/// Applies the impulses accumulated so far.
pub(super) fn warm_start(rows: &[ManifoldRows], states: &mut [BodyState]) {
    for c in rows {
        let (a, b) = (c.a as usize, c.b as usize);
        let mut s = Pair::load(states, a, b);
        let lin = (c.normal, c.ma, c.mb);
        for p in &c.points[..c.len as usize] {
            s.push_normal(lin, p, p.impulse);
        }
        s.push_tangent(c, c.tangent_impulse);
        s.push_twist(c, c.twist_impulse);
        s.store(states, a, b);
    }
}

/// How far past the rest depth the stop lets a point against a body that does not move sink
/// within one substep (`stop`, `wide::stop`).
pub(super) const STOP_DEPTH: Real = 0.01;

/// The stop after a position-correcting pass, on the manifolds with one body that does not
/// move: each point approaching faster than would take it [`STOP_DEPTH`] past the rest depth
/// within the substep (a gap may be closed as well) is slowed to that speed, by pushing only.
/// What the soft rows of a pass may leave when another body, solved after, presses this one into
/// the floor; resting and settling contacts approach far slower and are left to the soft rows.
pub(super) fn stop(rows: &mut [ManifoldRows], states: &mut [BodyState], k: &PassParams) {
    for c in rows.iter_mut().filter(|c| c.one_sided != 0) {
        let (a, b) = (c.a as usize, c.b as usize);
        let n = c.normal;
        let drift = Drift::of(states, a, b, n);
        let mut s = Pair::load(states, a, b);
        let lin = (n, c.ma, c.mb);
        let len = c.len as usize;
        for j in 0..len {
            let p = &mut c.points[(j + k.first_point) % len];
            let allowed = (drift.separation(p) + (k.rest_depth + STOP_DEPTH)).max(0.0) * k.inv_h;
            let d = (-p.mass * (s.normal_velocity(n, p) + allowed)).max(0.0);
            p.impulse += d;
            s.push_normal(lin, p, d);
        }
        s.store(states, a, b);
    }
}

/// One Gauss–Seidel pass: normal rows, then friction, then twist.
pub(super) fn solve(rows: &mut [ManifoldRows], states: &mut [BodyState], k: &PassParams) {
    for c in rows {
        solve_manifold(c, states, k);
    }
}

#[inline(always)]
fn solve_manifold(c: &mut ManifoldRows, states: &mut [BodyState], k: &PassParams) {
    let (a, b) = (c.a as usize, c.b as usize);
    let n = c.normal;
    let soft = k.soft[c.one_sided as usize];
    let drift = Drift::of(states, a, b, n);
    let mut s = Pair::load(states, a, b);
    let lin = (n, c.ma, c.mb);
    let mut total = 0.0;
    let len = c.len as usize;
    for j in 0..len {
        let p = &mut c.points[(j + k.first_point) % len];
        let sep = drift.separation(p);
        let (bias, mass_scale, impulse_scale) = if sep > 0.0 {
            // Speculative: allow closing the gap this substep, no more.
            (sep * k.inv_h, 1.0, 0.0)
        } else if k.use_bias {
            // Push out toward the rest depth. A soft contact acts above it too (bodies settle to
            // that depth evenly, which levels tilted contacts); Baumgarte leaves it alone.
            ((soft.bias_rate * (sep + k.rest_depth).min(0.0)).max(-k.max_push), soft.mass_scale, soft.impulse_scale)
        } else {
            // The relax pass: a rigid contact that only stops approach.
            (0.0, 1.0, 0.0)
        };
        let vn = s.normal_velocity(n, p);
        let lambda = -p.mass * mass_scale * (vn + bias) - impulse_scale * p.impulse;
        let new = (p.impulse + lambda).max(0.0);
        let d = new - p.impulse;
        p.impulse = new;
        if k.track_impulses {
            p.max_impulse = p.max_impulse.max(new);
        }
        total += new;
        s.push_normal(lin, p, d);
    }

    // Coulomb friction at the centroid, the 2-D impulse clamped to the cone's circle.
    let limit = c.friction * total;
    let dv = s.vb - s.va;
    let vt = [
        c.tangents[0].dot(dv) + s.wb.dot(c.cbt[0]) - s.wa.dot(c.cat[0]),
        c.tangents[1].dot(dv) + s.wb.dot(c.cbt[1]) - s.wa.dot(c.cat[1]),
    ];
    let old = c.tangent_impulse;
    let mut t = [old[0] - c.tangent_mass[0] * vt[0], old[1] - c.tangent_mass[1] * vt[1]];
    let len2 = t[0] * t[0] + t[1] * t[1];
    if len2 > limit * limit {
        let f = limit / len2.sqrt();
        t = [t[0] * f, t[1] * f];
    }
    c.tangent_impulse = t;
    s.push_tangent(c, [t[0] - old[0], t[1] - old[1]]);

    // Twist: friction against spinning about the normal, over the patch's lever arm.
    if c.twist_limit > 0.0 {
        let wn = n.dot(s.wb - s.wa);
        let max = c.twist_limit * total;
        let old = c.twist_impulse;
        c.twist_impulse = (old - c.twist_mass * wn).clamp(-max, max);
        s.push_twist(c, c.twist_impulse - old);
    }
    s.store(states, a, b);
}

/// What a restitution sweep needs: the speed below which nothing bounces, and the relax pass's
/// `1 / h` (a gap's allowance).
#[derive(Clone, Copy, Debug)]
pub(super) struct RestitutionParams {
    pub threshold: Real,
    pub inv_h: Real,
}

/// One sweep of restitution, after the last substep. A point that approached faster than
/// `threshold` and pushed at the end of a substep ([`NormalRow::max_impulse`]) bounces: its
/// target normal velocity is −e × its approach speed at impact ([`Fall::impact_velocity`]).
/// The other points that pushed are held as the relax pass holds them (no approach, or no more
/// than the gap), in the bouncing manifolds and in those with no restitution or with a body
/// that does not move: a bounce moves both bodies, and a body struck from above must not be
/// driven into the floor it rests on (a box struck by a bouncing ball of its mass was sent
/// 4.9 m/s into it). Manifolds with restitution between moving bodies that do not bounce
/// are left alone, so a Newton's cradle passes its impact on one ball a step. Each manifold's
/// points are swept [`MANIFOLD_SWEEPS`] times (one point's bounce moves the others: with a
/// single sweep a bar landing on its edge bounced its first point faster than its target and
/// gained energy), and the whole pass runs [`RESTITUTION_SWEEPS`] times. Two sweeps do not
/// converge where a body bounces off a lighter one resting on the floor: the lighter one ends
/// the step going down, at a third of the speed the single pass left it.
pub(super) fn restitution(
    rows: &mut [ManifoldRows],
    info: &[[PointInfo; MAX_MANIFOLD_POINTS]],
    states: &mut [BodyState],
    k: &RestitutionParams,
) {
    for (c, info) in rows.iter_mut().zip(info) {
        let len = c.len as usize;
        let (a, b) = (c.a as usize, c.b as usize);
        let n = c.normal;
        let drift = Drift::of(states, a, b, n);
        // Per point: the target's offset (`vn + target >= 0`), or none for a point that did not push.
        let mut target = [None; MAX_MANIFOLD_POINTS];
        let mut bounces = false;
        for (t, (p, info)) in target.iter_mut().zip(c.points[..len].iter().zip(info)) {
            if p.max_impulse > 0.0 {
                let rel = info.relative_velocity;
                let bounce = c.restitution > 0.0 && rel <= -k.threshold;
                bounces |= bounce;
                let sep = drift.separation(p);
                *t = Some(if bounce {
                    c.restitution * rel
                } else if sep > 0.0 {
                    sep * k.inv_h
                } else {
                    0.0
                });
            }
        }
        if !(bounces || c.restitution == 0.0 || c.one_sided == 1) {
            continue;
        }
        let mut s = Pair::load(states, a, b);
        let lin = (n, c.ma, c.mb);
        for _ in 0..MANIFOLD_SWEEPS {
            for (p, t) in c.points[..len].iter_mut().zip(&target) {
                let Some(t) = *t else { continue };
                let vn = s.normal_velocity(n, p);
                let lambda = -p.mass * (vn + t);
                let new = (p.impulse + lambda).max(0.0);
                let d = new - p.impulse;
                p.impulse = new;
                s.push_normal(lin, p, d);
            }
        }
        s.store(states, a, b);
    }
}
