//! The contact passes eight manifolds at a time (Box2D v3's wide solver, in 3-D): a bundle
//! holds eight manifolds of one colour, which share no moving body, field by field, so each
//! row is solved for all eight in the same instructions. Missing points and lanes are zero rows
//! against a dummy body and apply nothing.

use super::lanes::{F, Lane, StateRows, States, V3, W};
use super::prepare::Ended;
use super::rows::{MANIFOLD_SWEEPS, PassParams, RestitutionParams, STOP_DEPTH};
#[cfg(test)]
use super::rows::{ManifoldRows, NormalRow, PointInfo};
use crate::math::Vec3;
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::parallel::SharedMut;
use crate::simd::f32x8::{Few, OnLanes, run};
use crate::simd::{Kernels, Level};

#[derive(Clone, Copy, Debug, Default)]
pub(super) struct WidePoint {
    pub(super) ran: V3<F>,
    pub(super) rbn: V3<F>,
    pub(super) ia_ran: V3<F>,
    pub(super) ib_rbn: V3<F>,
    pub(super) separation: F,
    pub(super) mass: F,
    pub(super) impulse: F,
}

/// What only restitution reads, kept apart so the passes stream less memory: a bundle's
/// restitution, its points' approach speeds before solving, and the largest impulse each point
/// carried at the end of a substep (`rows::NormalRow::max_impulse`; tracked only in steps
/// with restitution, `PassParams::track_impulses`).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Bounce {
    pub(super) restitution: F,
    pub(super) relative_velocity: [F; MAX_MANIFOLD_POINTS],
    pub(super) max_impulse: [F; MAX_MANIFOLD_POINTS],
}

/// Eight manifolds' rows, lane by lane (see [`ManifoldRows`] for each field's meaning).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Bundle {
    pub(super) a: [u32; W],
    pub(super) b: [u32; W],
    /// Lanes in use, `0..width` (the rest are empty). A bundle of one is built and solved on
    /// that lane alone ([`Few`]); its other lanes hold nothing the passes read.
    pub(super) width: u8,
    /// Per lane, as bits: the solver changes body A's (B's) velocity. Only those states are
    /// written back, so bundles of one colour solved side by side never write a shared state.
    pub(super) writes_a: u8,
    pub(super) writes_b: u8,
    pub(super) normal: V3<F>,
    pub(super) ma: F,
    pub(super) mb: F,
    pub(super) friction: F,
    /// 1 where one body does not move (the stiffer softness), else 0.
    pub(super) one_sided: F,
    pub(super) points: [WidePoint; MAX_MANIFOLD_POINTS],
    pub(super) tangents: [V3<F>; 2],
    pub(super) ca: V3<F>,
    pub(super) cb: V3<F>,
    pub(super) ia_cat: [V3<F>; 2],
    pub(super) ib_cbt: [V3<F>; 2],
    pub(super) tangent_mass: [F; 2],
    pub(super) tangent_impulse: [F; 2],
    pub(super) ia_n: V3<F>,
    pub(super) ib_n: V3<F>,
    pub(super) twist_mass: F,
    pub(super) twist_impulse: F,
    pub(super) twist_limit: F,
}

#[inline(always)]
pub(super) fn put(v: &mut V3<F>, i: usize, x: Vec3) {
    v.x.0[i] = x.x;
    v.y.0[i] = x.y;
    v.z.0[i] = x.z;
}

impl Bundle {
    /// Puts a manifold's rows in lane `i`, with its points' approach speeds `info` and whether
    /// the solver changes each body's velocity (`writes`). Every field of the lane is written.
    /// The tests' reference for what `build` makes eight at a time.
    #[cfg(test)]
    pub(super) fn set(
        &mut self,
        i: usize,
        r: &ManifoldRows,
        info: &[PointInfo; MAX_MANIFOLD_POINTS],
        writes: [bool; 2],
        bounce: &mut Bounce,
    ) {
        self.a[i] = r.a;
        self.b[i] = r.b;
        self.set_writes(i, writes);
        put(&mut self.normal, i, r.normal);
        self.ma.0[i] = r.ma;
        self.mb.0[i] = r.mb;
        self.friction.0[i] = r.friction;
        bounce.restitution.0[i] = r.restitution;
        self.one_sided.0[i] = r.one_sided as f32;
        for (k, p) in self.points.iter_mut().enumerate() {
            // Rows past the manifold's points are zero: they apply nothing.
            let (q, rel) =
                if k < r.len as usize { (r.points[k], info[k].relative_velocity) } else { (NormalRow::default(), 0.0) };
            put(&mut p.ran, i, q.ran);
            put(&mut p.rbn, i, q.rbn);
            put(&mut p.ia_ran, i, q.ia_ran);
            put(&mut p.ib_rbn, i, q.ib_rbn);
            p.separation.0[i] = q.separation;
            p.mass.0[i] = q.mass;
            p.impulse.0[i] = q.impulse;
            bounce.max_impulse[k].0[i] = q.max_impulse;
            bounce.relative_velocity[k].0[i] = rel;
        }
        for k in 0..2 {
            put(&mut self.tangents[k], i, r.tangents[k]);
            put(&mut self.ia_cat[k], i, r.ia_cat[k]);
            put(&mut self.ib_cbt[k], i, r.ib_cbt[k]);
            self.tangent_mass[k].0[i] = r.tangent_mass[k];
            self.tangent_impulse[k].0[i] = r.tangent_impulse[k];
        }
        put(&mut self.ca, i, r.ca);
        put(&mut self.cb, i, r.cb);
        put(&mut self.ia_n, i, r.ia_n);
        put(&mut self.ib_n, i, r.ib_n);
        self.twist_mass.0[i] = r.twist_mass;
        self.twist_impulse.0[i] = r.twist_impulse;
        self.twist_limit.0[i] = r.twist_limit;
    }

    /// Makes point `k` of lane `i` a zero row (a manifold with fewer points).
    pub(super) fn clear_point(&mut self, i: usize, k: usize, bounce: &mut Bounce) {
        let p = &mut self.points[k];
        for v in [&mut p.ran, &mut p.rbn, &mut p.ia_ran, &mut p.ib_rbn] {
            put(v, i, Vec3::ZERO);
        }
        for f in [&mut p.separation, &mut p.mass, &mut p.impulse, &mut bounce.max_impulse[k]] {
            f.0[i] = 0.0;
        }
        bounce.relative_velocity[k].0[i] = 0.0;
    }

    /// Makes lane `i` an empty lane: it names body `dummy` on both sides, writes no state and
    /// does not bounce. Its rows keep whatever they held: a pass computes them but scatters
    /// nothing back, and no one reads an empty lane's impulses.
    pub(super) fn set_empty(&mut self, i: usize, dummy: u32, bounce: &mut Bounce) {
        (self.a[i], self.b[i]) = (dummy, dummy);
        self.set_writes(i, [false; 2]);
        bounce.restitution.0[i] = 0.0;
    }

    /// Makes lane `i` a zero manifold on body `dummy`, every field written (a test's reference
    /// for an empty lane).
    #[cfg(test)]
    pub(super) fn set_zero(&mut self, i: usize, dummy: u32, bounce: &mut Bounce) {
        let r = ManifoldRows { a: dummy, b: dummy, ..Default::default() };
        self.set(i, &r, &[PointInfo::default(); MAX_MANIFOLD_POINTS], [false; 2], bounce);
    }

    /// Sets lane `i`'s bits of `writes_a` and `writes_b`.
    pub(super) fn set_writes(&mut self, i: usize, [a, b]: [bool; 2]) {
        let bit = 1u8 << i;
        self.writes_a = (self.writes_a & !bit) | if a { bit } else { 0 };
        self.writes_b = (self.writes_b & !bit) | if b { bit } else { 0 };
    }

    /// Records the lanes in use, `0..width`, once they are set.
    pub(super) fn finish(&mut self, width: usize) {
        self.width = width as u8;
    }

    /// Whether a lane in use has one body that does not move: a bundle the stop sweeps.
    pub(super) fn any_one_sided(&self) -> bool {
        self.one_sided.0[..self.width as usize].iter().any(|&x| x > 0.5)
    }

    /// Whether a lane in use has restitution (`bounce` is this bundle's).
    pub(super) fn bounces(&self, bounce: &Bounce) -> bool {
        bounce.restitution.0[..self.width as usize].iter().any(|&e| e != 0.0)
    }

    /// How lane `i` (a manifold of `len` points) ended the step: what the warm-start cache keeps.
    pub(super) fn ended(&self, i: usize, len: usize) -> Ended {
        let get = |v: &V3<F>| Vec3::new(v.x.0[i], v.y.0[i], v.z.0[i]);
        Ended {
            len,
            normal: std::array::from_fn(|k| self.points[k].impulse.0[i]),
            tangents: [get(&self.tangents[0]), get(&self.tangents[1])],
            tangent_impulse: [self.tangent_impulse[0].0[i], self.tangent_impulse[1].0[i]],
            twist_impulse: self.twist_impulse.0[i],
        }
    }
}

/// `rows::Drift`, lane by lane.
struct Drift<L> {
    dn: L,
    dtha: V3<L>,
    dthb: V3<L>,
}

impl<L: Lane> Drift<L> {
    /// A point's separation now, from the one it was found at and its anchors' `r × n`.
    #[inline(always)]
    fn separation(&self, ran: V3<L>, rbn: V3<L>, found: L) -> L {
        self.dn + self.dthb.dot(rbn) - self.dtha.dot(ran) + found
    }
}

/// Velocities of the bundle's bodies, lane by lane, with the floats of the states that come
/// along in the same loads and are written back as they were (`dp_a`, `dp_b`: floats 6 and 7
/// of each state, dp.x and dp.y).
struct Vel<L> {
    va: V3<L>,
    wa: V3<L>,
    vb: V3<L>,
    wb: V3<L>,
    dp_a: [L; 2],
    dp_b: [L; 2],
    /// Where each side's states are (gathered from, scattered to).
    rows_a: StateRows,
    rows_b: StateRows,
    states: States,
}

impl<L: Lane> Vel<L> {
    #[inline(always)]
    fn load(states: States, c: &Bundle) -> Self {
        let rows = (states.rows::<L>(&c.a), states.rows::<L>(&c.b));
        Self::from_cols(states.gather(rows.0), states.gather(rows.1), rows, states)
    }

    /// As [`Vel::load`], with the whole states (their motion since the step began), and the
    /// bundle's [`Drift`] along its normal `n`.
    #[inline(always)]
    fn load_with_drift(states: States, c: &Bundle, n: V3<L>) -> (Self, Drift<L>) {
        let rows = (states.rows::<L>(&c.a), states.rows::<L>(&c.b));
        let (a, b) = (states.gather_all(rows.0), states.gather_all(rows.1));
        let dpa = V3 { x: a[6], y: a[7], z: a[8] };
        let dpb = V3 { x: b[6], y: b[7], z: b[8] };
        let drift = Drift {
            dn: n.dot(dpb - dpa),
            dtha: V3 { x: a[9], y: a[10], z: a[11] },
            dthb: V3 { x: b[9], y: b[10], z: b[11] },
        };
        (Self::from_cols(std::array::from_fn(|k| a[k]), std::array::from_fn(|k| b[k]), rows, states), drift)
    }

    #[inline(always)]
    fn from_cols(a0: [L; 8], b0: [L; 8], (rows_a, rows_b): (StateRows, StateRows), states: States) -> Self {
        Vel {
            va: V3 { x: a0[0], y: a0[1], z: a0[2] },
            wa: V3 { x: a0[3], y: a0[4], z: a0[5] },
            vb: V3 { x: b0[0], y: b0[1], z: b0[2] },
            wb: V3 { x: b0[3], y: b0[4], z: b0[5] },
            dp_a: [a0[6], a0[7]],
            dp_b: [b0[6], b0[7]],
            rows_a,
            rows_b,
            states,
        }
    }

    /// Writes the velocities of the moving bodies back (with the motion floats as loaded).
    /// Lanes never share a moving body; a body that does not move is not written (its
    /// velocity cannot have changed).
    #[inline(always)]
    fn store(&self, c: &Bundle) {
        let (a, b) = (self.va, self.wa);
        self.states.scatter([a.x, a.y, a.z, b.x, b.y, b.z, self.dp_a[0], self.dp_a[1]], self.rows_a, c.writes_a);
        let (a, b) = (self.vb, self.wb);
        self.states.scatter([a.x, a.y, a.z, b.x, b.y, b.z, self.dp_b[0], self.dp_b[1]], self.rows_b, c.writes_b);
    }

    #[inline(always)]
    fn push_normal(&mut self, (n, ma, mb): (V3<L>, L, L), ia_ran: V3<L>, ib_rbn: V3<L>, d: L) {
        self.va -= n.scale(d * ma);
        self.wa -= ia_ran.scale(d);
        self.vb += n.scale(d * mb);
        self.wb += ib_rbn.scale(d);
    }

    #[inline(always)]
    fn push_tangent(&mut self, c: &Bundle, (ma, mb): (L, L), d: [L; 2]) {
        let lin = c.tangents[0].load::<L>().scale(d[0]) + c.tangents[1].load::<L>().scale(d[1]);
        self.va -= lin.scale(ma);
        self.wa -= c.ia_cat[0].load::<L>().scale(d[0]) + c.ia_cat[1].load::<L>().scale(d[1]);
        self.vb += lin.scale(mb);
        self.wb += c.ib_cbt[0].load::<L>().scale(d[0]) + c.ib_cbt[1].load::<L>().scale(d[1]);
    }

    #[inline(always)]
    fn push_twist(&mut self, c: &Bundle, d: L) {
        self.wa -= c.ia_n.load::<L>().scale(d);
        self.wb += c.ib_n.load::<L>().scale(d);
    }
}

/// Runs `$f` on the lanes bundle `$c` fills: a lone lane on its own ([`Few`]), else all
/// eight (`$L`), with the same bits in the lanes in use. One lane computed alone skips the
/// eight-lane transposes of the bodies' states (a quarter of a pass's instructions on a
/// one-manifold bundle); two or more cost less on eight lanes than one by one.
macro_rules! on_lanes {
    ($c:expr, $L:ty, $f:ident $(, $g:expr)* ; $($arg:expr),*) => {
        match $c.width {
            1 => $f::<Few<1> $(, $g)*>($($arg),*),
            _ => $f::<$L $(, $g)*>($($arg),*),
        }
    };
}
pub(super) use on_lanes;

#[inline(always)]
fn warm_start_bundles<L: Lane>(bundles: &[Bundle], states: States) {
    for c in bundles {
        on_lanes!(c, L, warm_start_bundle; c, states);
    }
}

#[inline(always)]
fn warm_start_bundle<L: Lane>(c: &Bundle, states: States) {
    {
        let mut s = Vel::<L>::load(states, c);
        let lin = (c.normal.load::<L>(), L::load(&c.ma), L::load(&c.mb));
        for p in &c.points {
            s.push_normal(lin, p.ia_ran.load(), p.ib_rbn.load(), L::load(&p.impulse));
        }
        s.push_tangent(c, (lin.1, lin.2), [L::load(&c.tangent_impulse[0]), L::load(&c.tangent_impulse[1])]);
        s.push_twist(c, L::load(&c.twist_impulse));
        s.store(c);
    }
}

const _: () = assert!(MAX_MANIFOLD_POINTS.is_power_of_two());

#[inline(always)]
fn solve_bundles<L: Lane, const BIAS: bool>(
    bundles: &mut [Bundle],
    bounces: &mut [Bounce],
    states: States,
    k: &PassParams,
) {
    for (c, bounce) in bundles.iter_mut().zip(bounces) {
        on_lanes!(c, L, solve_bundle, BIAS; c, bounce, states, k);
    }
}

/// The same arithmetic as `rows::solve_manifold`, lane by lane, with its branches as selects.
#[inline(always)]
fn solve_bundle<L: Lane, const BIAS: bool>(c: &mut Bundle, bounce: &mut Bounce, states: States, k: &PassParams) {
    let inv_h = L::splat(k.inv_h);
    let (zero, one, half) = (L::splat(0.0), L::splat(1.0), L::splat(0.5));
    let (rest_depth, max_push) = (L::splat(k.rest_depth), L::splat(-k.max_push));
    let [s0, s1] = k.soft;
    {
        let n = c.normal.load::<L>();
        let (mut s, drift) = Vel::load_with_drift(states, c, n);
        let os = L::load(&c.one_sided);
        let bias_rate = os.gt_select(half, L::splat(s1.bias_rate), L::splat(s0.bias_rate));
        let mass_scale = os.gt_select(half, L::splat(s1.mass_scale), L::splat(s0.mass_scale));
        let impulse_scale = os.gt_select(half, L::splat(s1.impulse_scale), L::splat(s0.impulse_scale));
        let (ma, mb) = (L::load(&c.ma), L::load(&c.mb));
        let lin = (n, ma, mb);
        let mut total = zero;
        for j in 0..MAX_MANIFOLD_POINTS {
            let j = (j + k.first_point) & (MAX_MANIFOLD_POINTS - 1);
            let p = &mut c.points[j];
            let (ran, rbn) = (p.ran.load::<L>(), p.rbn.load::<L>());
            let sep = drift.separation(ran, rbn, L::load(&p.separation));
            let spec = sep * inv_h;
            let (bias, ms, is) = if BIAS {
                let push = (bias_rate * (sep + rest_depth).min(zero)).max(max_push);
                (
                    sep.gt_select(zero, spec, push),
                    sep.gt_select(zero, one, mass_scale),
                    sep.gt_select(zero, zero, impulse_scale),
                )
            } else {
                (sep.gt_select(zero, spec, zero), one, zero)
            };
            let vn = n.dot(s.vb - s.va) + s.wb.dot(rbn) - s.wa.dot(ran);
            let impulse = L::load(&p.impulse);
            let lambda = zero - L::load(&p.mass) * ms * (vn + bias) - is * impulse;
            let new = (impulse + lambda).max(zero);
            let d = new - impulse;
            new.store(&mut p.impulse);
            total += new;
            s.push_normal(lin, p.ia_ran.load(), p.ib_rbn.load(), d);
        }
        if !BIAS && k.track_impulses {
            // Each point's largest impulse at the end of a substep so far, now that the relax
            // pass has set them all (`rows::NormalRow::max_impulse`).
            for (max, p) in bounce.max_impulse.iter_mut().zip(&c.points) {
                L::load(max).max(L::load(&p.impulse)).store(max);
            }
        }

        let limit = L::load(&c.friction) * total;
        // Relative velocity at the centroid.
        let vr = (s.vb + s.wb.cross(c.cb.load())) - (s.va + s.wa.cross(c.ca.load()));
        let vt0 = c.tangents[0].load::<L>().dot(vr);
        let vt1 = c.tangents[1].load::<L>().dot(vr);
        let old = [L::load(&c.tangent_impulse[0]), L::load(&c.tangent_impulse[1])];
        let t0 = old[0] - L::load(&c.tangent_mass[0]) * vt0;
        let t1 = old[1] - L::load(&c.tangent_mass[1]) * vt1;
        let len2 = t0 * t0 + t1 * t1;
        let limit2 = limit * limit;
        let f = limit.div(len2.sqrt());
        let t = [len2.gt_select(limit2, t0 * f, t0), len2.gt_select(limit2, t1 * f, t1)];
        t[0].store(&mut c.tangent_impulse[0]);
        t[1].store(&mut c.tangent_impulse[1]);
        s.push_tangent(c, (ma, mb), [t[0] - old[0], t[1] - old[1]]);

        let wn = n.dot(s.wb - s.wa);
        let twist_limit = L::load(&c.twist_limit);
        let max = twist_limit * total;
        let old = L::load(&c.twist_impulse);
        let twist = (old - L::load(&c.twist_mass) * wn).max(zero - max).min(max);
        // Lanes without a twist row keep zero (the clamp to ±0 could give −0).
        let twist = twist_limit.gt_select(zero, twist, zero);
        twist.store(&mut c.twist_impulse);
        s.push_twist(c, twist - old);
        s.store(c);
    }
}

/// The same arithmetic as `rows::stop`, lane by lane, on the lanes with one body that does not
/// move.
#[inline(always)]
fn stop_bundle<L: Lane>(c: &mut Bundle, states: States, k: &PassParams) {
    let (zero, half) = (L::splat(0.0), L::splat(0.5));
    let (inv_h, rest_depth) = (L::splat(k.inv_h), L::splat(k.rest_depth + STOP_DEPTH));
    let n = c.normal.load::<L>();
    let (mut s, drift) = Vel::load_with_drift(states, c, n);
    let lin = (n, L::load(&c.ma), L::load(&c.mb));
    let one_sided = L::load(&c.one_sided);
    for j in 0..MAX_MANIFOLD_POINTS {
        let j = (j + k.first_point) & (MAX_MANIFOLD_POINTS - 1);
        let p = &mut c.points[j];
        let (ran, rbn) = (p.ran.load::<L>(), p.rbn.load::<L>());
        let sep = drift.separation(ran, rbn, L::load(&p.separation));
        let allowed = (sep + rest_depth).max(zero) * inv_h;
        let vn = n.dot(s.vb - s.va) + s.wb.dot(rbn) - s.wa.dot(ran);
        let push = (zero - L::load(&p.mass) * (vn + allowed)).max(zero);
        let d = one_sided.gt_select(half, push, zero);
        let impulse = L::load(&p.impulse);
        (impulse + d).store(&mut p.impulse);
        s.push_normal(lin, p.ia_ran.load(), p.ib_rbn.load(), d);
    }
    s.store(c);
}

/// One sweep of `rows::restitution`, lane by lane.
#[inline(always)]
fn restitution_bundles<L: Lane>(bundles: &mut [Bundle], bounces: &[Bounce], states: States, k: &RestitutionParams) {
    for (c, bounce) in bundles.iter_mut().zip(bounces) {
        on_lanes!(c, L, restitution_bundle; c, bounce, states, k);
    }
}

#[inline(always)]
fn restitution_bundle<L: Lane>(c: &mut Bundle, bounce: &Bounce, states: States, k: &RestitutionParams) {
    let (zero, one, half) = (L::splat(0.0), L::splat(1.0), L::splat(0.5));
    let (neg_threshold, inv_h) = (L::splat(-k.threshold), L::splat(k.inv_h));
    let e = L::load(&bounce.restitution);
    let n = c.normal.load::<L>();
    let (mut s, drift) = Vel::load_with_drift(states, c, n);
    // Per point: 1 where it pushed at the end of a substep; the bounce's `e × rel` where it
    // bounces, else the relax pass's allowance for a gap (`rows::restitution`).
    let mut pushed = [zero; MAX_MANIFOLD_POINTS];
    let mut target = [zero; MAX_MANIFOLD_POINTS];
    let mut any = zero;
    for (j, p) in c.points.iter().enumerate() {
        let rel = L::load(&bounce.relative_velocity[j]);
        pushed[j] = L::load(&bounce.max_impulse[j]).gt_select(zero, one, zero);
        // Bounced where `e > 0` and `rel <= -threshold` (not `rel > -threshold`).
        let bounced = rel.gt_select(neg_threshold, zero, e.gt_select(zero, pushed[j], zero));
        any = any.max(bounced);
        let sep = drift.separation(p.ran.load(), p.rbn.load(), L::load(&p.separation));
        target[j] = bounced.gt_select(half, e * rel, sep.gt_select(zero, sep * inv_h, zero));
    }
    // A lane takes part if one of its points bounces, or if it holds: no restitution, or one
    // body that does not move.
    let holds = e.gt_select(zero, L::load(&c.one_sided), one);
    let lane = any.max(holds);
    let lin = (n, L::load(&c.ma), L::load(&c.mb));
    for _ in 0..MANIFOLD_SWEEPS {
        for (j, p) in c.points.iter_mut().enumerate() {
            let (ran, rbn) = (p.ran.load::<L>(), p.rbn.load::<L>());
            let impulse = L::load(&p.impulse);
            let vn = lin.0.dot(s.vb - s.va) + s.wb.dot(rbn) - s.wa.dot(ran);
            let lambda = zero - L::load(&p.mass) * (vn + target[j]);
            let solved = (impulse + lambda).max(zero);
            let new = (lane * pushed[j]).gt_select(zero, solved, impulse);
            new.store(&mut p.impulse);
            s.push_normal(lin, p.ia_ran.load(), p.ib_rbn.load(), new - impulse);
        }
    }
    s.store(c);
}

/// Which code the passes run: the same source, compiled for AVX when the CPU has it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Avx,
}

impl Kernels for Isa {
    #[cfg(target_arch = "x86_64")]
    const LADDER: &'static [(Isa, Level)] = &[(Isa::Avx, Level::Avx), (Isa::Portable, Level::Baseline)];
    #[cfg(not(target_arch = "x86_64"))]
    const LADDER: &'static [(Isa, Level)] = &[(Isa::Portable, Level::Baseline)];
}

impl Isa {
    /// Whether the kernels run on AVX lanes ([`run`] checks the CPU again).
    pub(super) fn avx(self) -> bool {
        self != Isa::Portable
    }
}

/// Applies the accumulated impulses of every bundle.
pub(super) fn warm_start(isa: Isa, bundles: &[Bundle], states: States) {
    struct Code<'a>(&'a [Bundle], States);
    impl OnLanes for Code<'_> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            warm_start_bundles::<L>(self.0, self.1)
        }
    }
    run(isa.avx(), Code(bundles, states))
}

/// One pass over the bundles, with position correction (`k.use_bias`) or without.
pub(super) fn solve(isa: Isa, bundles: &mut [Bundle], bounces: &mut [Bounce], states: States, k: &PassParams) {
    struct Code<'a, const BIAS: bool>(&'a mut [Bundle], &'a mut [Bounce], States, &'a PassParams);
    impl<const BIAS: bool> OnLanes for Code<'_, BIAS> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            solve_bundles::<L, BIAS>(self.0, self.1, self.2, self.3)
        }
    }
    if k.use_bias {
        run(isa.avx(), Code::<true>(bundles, bounces, states, k))
    } else {
        run(isa.avx(), Code::<false>(bundles, bounces, states, k))
    }
}

/// The stop (`stop_bundle`) over the bundles `list` names.
///
/// # Safety
/// No other thread touches these bundles meanwhile, and they share no moving body with bundles
/// being solved meanwhile (`States::new`'s contract).
pub(super) unsafe fn stop(isa: Isa, bundles: &SharedMut<'_, Bundle>, list: &[u32], states: States, k: &PassParams) {
    struct Code<'a, 'b>(&'a SharedMut<'b, Bundle>, &'a [u32], States, &'a PassParams);
    impl OnLanes for Code<'_, '_> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            for &i in self.1 {
                // SAFETY: exclusive by `stop`'s contract.
                let c = unsafe { self.0.get(i as usize) };
                on_lanes!(c, L, stop_bundle; c, self.2, self.3);
            }
        }
    }
    run(isa.avx(), Code(bundles, list, states, k))
}

/// One sweep of restitution over the bundles.
pub(super) fn restitution(isa: Isa, bundles: &mut [Bundle], bounces: &[Bounce], states: States, k: &RestitutionParams) {
    struct Code<'a>(&'a mut [Bundle], &'a [Bounce], States, &'a RestitutionParams);
    impl OnLanes for Code<'_> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            restitution_bundles::<L>(self.0, self.1, self.2, self.3)
        }
    }
    run(isa.avx(), Code(bundles, bounces, states, k))
}
