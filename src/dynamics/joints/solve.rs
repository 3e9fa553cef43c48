//! The joints' rows: built once a step, warm started and solved in every pass of every substep
//! (with position correction in the solve passes, without it in the relax pass), on one thread
//! in joint order, so the result does not depend on the thread count.
//!
//! Each row is soft (Box2D v3's soft step): a spring of `joint_hertz` and `joint_damping_ratio`
//! pulls the position error out, and the relax pass removes the velocity it added. Limits are
//! speculative: a coordinate short of its limit may close the gap in the substep, no more.

use super::{DistanceMode, Joint, JointKind, JointState};
use crate::dynamics::Body;
use crate::dynamics::solver::BodyState;
use crate::math::{Mat3, Quat, Real, Vec3};
use glam::Mat3A;
use std::sync::{Mutex, MutexGuard};

mod tree;

/// Soft-constraint coefficients of one substep.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Soft {
    bias_rate: Real,
    mass_scale: Real,
    impulse_scale: Real,
}

impl Soft {
    /// A spring of `hertz` and damping ratio `zeta` over substeps of `h` (capped at a quarter
    /// of the substep rate, beyond which it would be unstable).
    pub(crate) fn new(hertz: Real, zeta: Real, h: Real) -> Soft {
        let hz = hertz.min(0.25 / h);
        let omega = 2.0 * std::f32::consts::PI * hz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Soft { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
    }

    const RIGID: Soft = Soft { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };
}

/// One joint's constants of the step.
#[derive(Clone, Copy, Debug)]
struct Prepared {
    /// The joint's index in the world.
    index: usize,
    /// State indices (the solver's dummy for the world).
    a: usize,
    b: usize,
    ma: Real,
    mb: Real,
    ia: Mat3,
    ib: Mat3,
    /// Anchors less the centres, world space, at the step's start.
    ra: Vec3,
    rb: Vec3,
    /// Centre of B less centre of A at the step's start (the world's centre is its origin).
    delta_center: Vec3,
    /// Orientations at the step's start.
    qa: Quat,
    qb: Quat,
    axis_a: Vec3,
    axis_b: Vec3,
    rest_inv: Quat,
    kind: JointKind,
    /// Its anchors are solved with the forest's (`tree`), not on their own.
    tree: bool,
    /// A's and B's places in the solver's list of jointed bodies (`JointSolver::bodies`).
    turn_a: u32,
    turn_b: u32,
    /// Whether a contact of the step with a body outside A's, B's jointed group acts on that
    /// group (`tree::add_geometric_stiffness` then leaves the body's turning as it is).
    outside_contact: [bool; 2],
}

/// The velocities of a joint's two bodies while its rows are solved.
struct Pair {
    va: Vec3,
    wa: Vec3,
    vb: Vec3,
    wb: Vec3,
}

/// A scalar row: its rate is `lin · (v_B − v_A) + ang_b · ω_B − ang_a · ω_A`.
#[derive(Clone, Copy)]
struct Jac {
    lin: Vec3,
    ang_a: Vec3,
    ang_b: Vec3,
}

impl Jac {
    fn angular(axis: Vec3) -> Jac {
        Jac { lin: Vec3::ZERO, ang_a: axis, ang_b: axis }
    }

    #[inline(always)]
    fn neg(self) -> Jac {
        Jac { lin: -self.lin, ang_a: -self.ang_a, ang_b: -self.ang_b }
    }

    #[inline(always)]
    fn rate(&self, v: &Pair) -> Real {
        self.lin.dot(v.vb - v.va) + self.ang_b.dot(v.wb) - self.ang_a.dot(v.wa)
    }

    /// `J M⁻¹ Jᵀ`.
    #[inline(always)]
    fn k(&self, p: &Prepared) -> Real {
        (p.ma + p.mb) * self.lin.length_squared()
            + self.ang_a.dot(p.ia * self.ang_a)
            + self.ang_b.dot(p.ib * self.ang_b)
    }

    #[inline(always)]
    fn apply(&self, p: &Prepared, v: &mut Pair, impulse: Real) {
        v.va -= p.ma * impulse * self.lin;
        v.wa -= p.ia * (impulse * self.ang_a);
        v.vb += p.mb * impulse * self.lin;
        v.wb += p.ib * (impulse * self.ang_b);
    }
}

/// Where the joint is within the substep: anchors, axes and errors from the bodies' motion
/// since the step began.
#[derive(Clone, Copy, Debug)]
struct Now {
    ra: Vec3,
    rb: Vec3,
    /// B's anchor less A's, world space.
    d: Vec3,
    axis_a: Vec3,
    axis_b: Vec3,
    /// The rotation from where B would be at rest to where it is, world space, `w ≥ 0`.
    err: Quat,
}

impl Prepared {
    /// The joint within the substep, and its constants with the bodies' inverse inertias turned
    /// as far as the bodies have turned since the step began: a thin link spinning under load
    /// would otherwise be pushed about its old long axis, where it is lightest, and blow up.
    /// `turned` holds the bodies' inverse inertias so turned (`JointSolver::bodies`' order),
    /// taken once for all their joints.
    #[inline(always)]
    fn now(&self, turned: &[Mat3], states: &[BodyState], dq: &impl Fn(usize) -> Quat) -> (Prepared, Now) {
        let p = Prepared { ia: turned[self.turn_a as usize], ib: turned[self.turn_b as usize], ..*self };
        (p, self.at(states, dq(self.a), dq(self.b)))
    }

    #[inline(always)]
    fn at(&self, states: &[BodyState], dqa: Quat, dqb: Quat) -> Now {
        let (ra, rb, d) = self.arms(states, dqa, dqb);
        if let JointKind::Distance { .. } = self.kind {
            // A distance joint reads only its anchors.
            return Now { ra, rb, d, axis_a: Vec3::ZERO, axis_b: Vec3::ZERO, err: Quat::IDENTITY };
        }
        let (qa, qb) = (dqa * self.qa, dqb * self.qb);
        let mut err = qb * self.rest_inv * qa.conjugate();
        if err.w < 0.0 {
            err = -err;
        }
        Now { ra, rb, d, axis_a: dqa * self.axis_a, axis_b: dqb * self.axis_b, err }
    }

    /// The anchors' arms (`ra`, `rb`) and B's anchor less A's (`d`) within the substep: the
    /// part of `at` that the forest's factorisation reads. Inlined: `at`, in every pass of
    /// the one-by-one rows, costs some forty instructions more a call with it called.
    #[inline(always)]
    fn arms(&self, states: &[BodyState], dqa: Quat, dqb: Quat) -> (Vec3, Vec3, Vec3) {
        let (ra, rb) = (dqa * self.ra, dqb * self.rb);
        let d = (states[self.b].dp - states[self.a].dp) + self.delta_center + (rb - ra);
        (ra, rb, d)
    }

    /// Whether the forest's solve holds all of the joint (a ball joint without limits).
    fn tree_only(&self) -> bool {
        self.tree && matches!(self.kind, JointKind::Ball { cone: None, twist: None })
    }

    /// The inverse of the point constraint's 3×3 effective mass with arms `ra`, `rb`.
    fn point_mass(&self, ra: Vec3, rb: Vec3) -> Option<Mat3> {
        let (sa, sb) = (skew(ra), skew(rb));
        let k = Mat3::from_diagonal(Vec3::splat(self.ma + self.mb)) - sa * self.ia * sa - sb * self.ib * sb;
        invert(k)
    }

    /// Applies a linear impulse `p` at B's anchor, A's arm reaching it (`ra + d`).
    #[inline(always)]
    fn apply_linear(&self, v: &mut Pair, arm_a: Vec3, rb: Vec3, p: Vec3) {
        v.va -= self.ma * p;
        v.wa -= self.ia * arm_a.cross(p);
        v.vb += self.mb * p;
        v.wb += self.ib * rb.cross(p);
    }

    #[inline(always)]
    fn apply_angular(&self, v: &mut Pair, l: Vec3) {
        v.wa -= self.ia * l;
        v.wb += self.ib * l;
    }
}

/// The inverse inertia `i` of a body turned by `q`.
#[inline(always)]
fn turn(i: Mat3, q: Quat) -> Mat3 {
    // A body that neither turns nor responds (the world, a static body): its zeros as they are,
    // which the products below would give too.
    if q == Quat::IDENTITY && i.to_cols_array().iter().all(|x| x.to_bits() == 0) {
        return i;
    }
    // In `Mat3A`'s lanes: the same products, each element's terms in the same order.
    let r = Mat3A::from(Mat3::from_quat(q));
    Mat3::from(r * Mat3A::from(i) * r.transpose())
}

fn skew(r: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, r.z, -r.y), Vec3::new(-r.z, 0.0, r.x), Vec3::new(r.y, -r.x, 0.0))
}

fn invert(k: Mat3) -> Option<Mat3> {
    let det = k.determinant();
    (det.is_finite() && det.abs() > 1e-12).then(|| k.inverse())
}

/// Two unit vectors perpendicular to unit `n` and to each other.
pub(crate) fn perpendiculars(n: Vec3) -> (Vec3, Vec3) {
    let t1 = n.any_orthonormal_vector();
    (t1, n.cross(t1))
}

/// The signed angle (rad, in (−π, π]) of rotation `q` (`w ≥ 0`) about unit `axis`: its twist.
pub(crate) fn twist_angle(q: Quat, axis: Vec3) -> Real {
    2.0 * Vec3::new(q.x, q.y, q.z).dot(axis).atan2(q.w)
}

/// The rotation vector of `q` (`w ≥ 0`), small-angle: twice its vector part.
fn rotation_error(q: Quat) -> Vec3 {
    2.0 * Vec3::new(q.x, q.y, q.z)
}

/// A lower limit on a coordinate `c` ahead of it (`c ≥ 0` allowed) whose rate is `j`'s: a
/// speculative row while apart, soft while past it. Keeps `acc ≥ 0`.
#[inline(always)]
fn limit(p: &Prepared, v: &mut Pair, j: Jac, c: Real, acc: &mut Real, (soft, inv_h, bias): (Soft, Real, bool)) {
    let k = j.k(p);
    if k <= 0.0 {
        return;
    }
    let (b, ms, is) = if c > 0.0 {
        (c * inv_h, 1.0, 0.0)
    } else if bias {
        (soft.bias_rate * c, soft.mass_scale, soft.impulse_scale)
    } else {
        (0.0, 1.0, 0.0)
    };
    let impulse = -ms * (j.rate(v) + b) / k - is * *acc;
    let new = (*acc + impulse).max(0.0);
    j.apply(p, v, new - *acc);
    *acc = new;
}

/// An equality row on a coordinate `c` whose rate is `j`'s, soft with `soft`.
#[inline(always)]
fn equal(p: &Prepared, v: &mut Pair, j: Jac, c: Real, acc: &mut Real, soft: Soft) {
    let k = j.k(p);
    if k <= 0.0 {
        return;
    }
    let impulse = -soft.mass_scale * (j.rate(v) + soft.bias_rate * c) / k - soft.impulse_scale * *acc;
    j.apply(p, v, impulse);
    *acc += impulse;
}

/// A motor on a row: drives its rate to `speed` with at most `max` impulse per substep.
#[inline(always)]
fn motor(p: &Prepared, v: &mut Pair, j: Jac, speed: Real, max: Real, acc: &mut Real) {
    let k = j.k(p);
    if k <= 0.0 {
        return;
    }
    let impulse = -(j.rate(v) - speed) / k;
    let new = (*acc + impulse).clamp(-max, max);
    j.apply(p, v, new - *acc);
    *acc = new;
}

/// The joints' rows of one step.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointSolver {
    rows: Vec<Prepared>,
    /// The substep, s, and the joints' softness in the solve passes.
    h: Real,
    soft: Option<Soft>,
    /// The anchors of the joints that form chains and trees, solved together exactly.
    tree: tree::Tree,
    /// The rows the passes visit one by one (all but those the forest holds entirely), each
    /// where the bodies are now (`Prepared::now`): taken when the bodies have moved (the step's
    /// start, each substep's integration) and read by every pass until they move again.
    live: PassScratch<Live>,
    /// The jointed bodies of the step, each once: its state and its inverse inertia at the
    /// step's start; and, scratch of `prepare`, each state's place among them.
    bodies: Vec<(usize, Mat3)>,
    body_of_state: Vec<u32>,
    /// The rows the passes visit one by one: all but those the forest holds entirely
    /// (`Prepared::tree_only`).
    one_by_one: Vec<u32>,
}

/// The one-by-one rows where the bodies are now, and the bodies' inverse inertias turned as far
/// as they have turned in the step (`JointSolver::bodies`' order).
#[derive(Debug, Default)]
struct Live {
    rows: Vec<(Prepared, Now)>,
    turned: Vec<Mat3>,
}

/// Working memory the solver's passes (which take `&self`) fill and read: behind a lock, and
/// not carried by a clone (a clone starts with none, as the next pass refills it).
#[derive(Debug, Default)]
struct PassScratch<T>(Mutex<T>);

impl<T: Default> Clone for PassScratch<T> {
    fn clone(&self) -> Self {
        PassScratch::default()
    }
}

impl<T> PassScratch<T> {
    /// The scratch, also after a pass that panicked while holding it.
    fn lock(&self) -> MutexGuard<'_, T> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn get_mut(&mut self) -> &mut T {
        self.0.get_mut().unwrap_or_else(|e| e.into_inner())
    }
}

impl JointSolver {
    /// Builds the rows of the unbroken joints whose bodies move this step: `index(i)` is body
    /// `i`'s state (the world's is `dummy`), `mass(i)` its inverse mass and world inverse
    /// inertia (zero for a body that does not move), `outside_contact[i]` whether a contact from
    /// outside its jointed group acts on the group this step.
    pub(crate) fn prepare(
        &mut self,
        (joints, states): (&[Joint], &[JointState]),
        bodies: &[Body],
        dummy: usize,
        (mass, outside_contact): (impl Fn(usize) -> (Real, Mat3), &[bool]),
        (soft, h, exact): (Soft, Real, bool),
    ) {
        self.rows.clear();
        self.bodies.clear();
        self.body_of_state.resize(dummy + 1, u32::MAX);
        self.h = h;
        self.soft = Some(soft);
        for (index, (j, s)) in joints.iter().zip(states).enumerate() {
            if s.broken {
                continue;
            }
            let side = |i: Option<u32>| match i {
                Some(i) => {
                    let (m, inv_i) = mass(i as usize);
                    let pose = bodies[i as usize].pose;
                    (i as usize, m, inv_i, pose.rotation, pose.translation)
                }
                None => (dummy, 0.0, Mat3::ZERO, Quat::IDENTITY, Vec3::ZERO),
            };
            let (a, ma, ia, qa, ca) = side(j.a);
            let (b, mb, ib, qb, cb) = side(j.b);
            if ma == 0.0 && mb == 0.0 {
                continue;
            }
            let mut place = |state: usize, i: Mat3| {
                let slot = &mut self.body_of_state[state];
                if *slot == u32::MAX {
                    *slot = self.bodies.len() as u32;
                    self.bodies.push((state, i));
                }
                *slot
            };
            let (turn_a, turn_b) = (place(a, ia), place(b, ib));
            self.rows.push(Prepared {
                index,
                a,
                b,
                ma,
                mb,
                ia,
                ib,
                ra: qa * j.anchor_a,
                rb: qb * j.anchor_b,
                delta_center: cb - ca,
                qa,
                qb,
                axis_a: qa * j.axis_a.normalize(),
                axis_b: qb * j.axis_b.normalize(),
                rest_inv: j.rest.normalize().conjugate(),
                kind: j.kind,
                tree: false,
                turn_a,
                turn_b,
                // The world's side (`dummy`) lies past the bodies: no contact.
                outside_contact: [a, b].map(|i| outside_contact.get(i).copied().unwrap_or(false)),
            });
        }
        for &(state, _) in &self.bodies {
            self.body_of_state[state] = u32::MAX;
        }
        self.tree.build(&mut self.rows, dummy + 1, exact);
        self.one_by_one.clear();
        self.one_by_one.extend((0..self.rows.len() as u32).filter(|&r| !self.rows[r as usize].tree_only()));
    }

    /// Whether any joint has rows this step.
    pub(crate) fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    crate::simd::compiled_twice! {
        /// Starts a substep: when `factor` (the step's first substep), factors the joint forest
        /// where the bodies are; then, when `warm`, applies the impulses of the last substep.
        /// Runs in its x86-64-v3 copy where the CPU has it ([`crate::simd::Compiled`]).
        pub(crate) fn warm_start(
            &self,
            joints: &[JointState],
            states: &mut [BodyState],
            dq: &impl Fn(usize) -> Quat,
            flags: (bool, bool),
        ) = Self::warm_start_in, warm_start_v3;
    }

    /// [`JointSolver::warm_start`]; inlined into both copies.
    #[inline(always)]
    fn warm_start_in(
        &self,
        joints: &[JointState],
        states: &mut [BodyState],
        dq: &impl Fn(usize) -> Quat,
        (warm, factor): (bool, bool),
    ) {
        let mut live = self.live.lock();
        if factor {
            self.take_live(&mut live, states, dq);
            self.tree.factor(&self.rows, joints, states, dq, &live.turned, self.h);
        }
        if !warm {
            return;
        }
        for (p, n) in live.rows.iter() {
            let s = &joints[p.index];
            let mut v = load(p, states);
            if !p.tree {
                p.apply_linear(&mut v, n.ra + n.d, n.rb, s.linear);
            }
            p.apply_angular(&mut v, s.angular);
            if let Some(j) = axial(p, n) {
                j.apply(p, &mut v, s.motor + s.lower - s.upper);
            }
            if let Some((j, _)) = cone(p, n) {
                j.apply(p, &mut v, s.cone);
            }
            store(p, states, v);
        }
        self.tree.warm_start(&self.rows, joints, states);
    }

    crate::simd::compiled_twice! {
        /// One pass over the rows, with position correction when `bias`. The pass without it (the
        /// relax pass) follows the substep's integration: the joint forest is factored again there,
        /// where the bodies have moved to, and that factorisation serves the next substep too (the
        /// bodies do not move again until its solve passes are done).
        /// Runs in its x86-64-v3 copy where the CPU has it, as [`JointSolver::warm_start`] does.
        pub(crate) fn solve(
            &self,
            joints: &mut [JointState],
            states: &mut [BodyState],
            dq: &impl Fn(usize) -> Quat,
            bias: bool,
        ) = Self::solve_in, solve_v3;
    }

    /// [`JointSolver::solve`]; inlined into both copies.
    #[inline(always)]
    fn solve_in(&self, joints: &mut [JointState], states: &mut [BodyState], dq: &impl Fn(usize) -> Quat, bias: bool) {
        let Some(soft_bias) = self.soft else { return };
        let soft = if bias { soft_bias } else { Soft::RIGID };
        let inv_h = 1.0 / self.h;
        let mut live = self.live.lock();
        if !bias {
            self.take_live(&mut live, states, dq);
        }
        for (p, n) in live.rows.iter() {
            let s = &mut joints[p.index];
            let mut v = load(p, states);
            solve_one(p, s, n, &mut v, (soft, soft_bias, inv_h, bias), self.h);
            store(p, states, v);
        }
        // Rigid: the velocities keep every anchor together; position correction at the soft
        // spring's rate.
        let bias_rate = if bias { soft_bias.bias_rate } else { 0.0 };
        if !bias {
            self.tree.factor(&self.rows, joints, states, dq, &live.turned, self.h);
        }
        if !self.tree.solve(&self.rows, joints, states, bias_rate) {
            // A block that would not factor: these anchors one by one, this pass.
            for p in self.rows.iter().filter(|p| p.tree) {
                let s = &mut joints[p.index];
                let (p, n) = p.now(&live.turned, states, dq);
                let mut v = load(&p, states);
                point(&p, s, &n, &mut v, soft);
                store(&p, states, v);
            }
        }
    }

    /// Takes the one-by-one rows where the bodies are now, for the passes until they move.
    /// Inlined into both compiled copies of the passes that call it.
    #[inline(always)]
    fn take_live(&self, live: &mut Live, states: &[BodyState], dq: &impl Fn(usize) -> Quat) {
        // Plain loops rather than `extend`, whose body is compiled apart from both copies.
        live.turned.clear();
        live.turned.reserve(self.bodies.len());
        for &(state, i) in &self.bodies {
            live.turned.push(turn(i, dq(state)));
        }
        live.rows.clear();
        let turned = &live.turned;
        for &r in &self.one_by_one {
            live.rows.push(self.rows[r as usize].now(turned, states, dq));
        }
    }

    /// Marks broken the joints whose force in the last substep exceeded their break force.
    pub(crate) fn check_breaks(&self, joints: &[Joint], states: &mut [JointState]) {
        for p in &self.rows {
            let (j, s) = (&joints[p.index], &mut states[p.index]);
            if let Some(limit) = j.break_force {
                let force = (s.linear.length() + (s.motor + s.lower - s.upper).abs()) / self.h;
                if force > limit {
                    *s = JointState { broken: true, ..JointState::default() };
                }
            }
        }
    }
}

#[inline(always)]
fn load(p: &Prepared, states: &[BodyState]) -> Pair {
    let (a, b) = (&states[p.a], &states[p.b]);
    Pair { va: a.v, wa: a.w, vb: b.v, wb: b.w }
}

/// Writes back the velocities of the bodies the joint moves (a body that does not respond
/// keeps its state's bits).
#[inline(always)]
fn store(p: &Prepared, states: &mut [BodyState], v: Pair) {
    if p.ma > 0.0 {
        states[p.a].v = v.va;
        states[p.a].w = v.wa;
    }
    if p.mb > 0.0 {
        states[p.b].v = v.vb;
        states[p.b].w = v.wb;
    }
}

/// The row along the joint's axis that its motor and limits act on: the hinge's and the ball
/// twist's angle about A's axis, the slider's offset along it, the distance joint's length.
#[inline(always)]
fn axial(p: &Prepared, n: &Now) -> Option<Jac> {
    match p.kind {
        JointKind::Hinge { .. } | JointKind::Ball { twist: Some(_), .. } => Some(Jac::angular(n.axis_a)),
        JointKind::Prismatic { .. } => {
            let u = n.axis_a;
            Some(Jac { lin: u, ang_a: (n.ra + n.d).cross(u), ang_b: n.rb.cross(u) })
        }
        _ => None,
    }
}

/// The cone limit's row (its coordinate grows towards the cone's edge) and its room, rad.
#[inline(always)]
fn cone(p: &Prepared, n: &Now) -> Option<(Jac, Real)> {
    let JointKind::Ball { cone: Some(half), .. } = p.kind else { return None };
    let c = n.axis_a.cross(n.axis_b);
    let sin = c.length();
    if sin < 1e-6 {
        return None;
    }
    let angle = sin.atan2(n.axis_a.dot(n.axis_b));
    Some((Jac::angular(c / sin).neg(), half - angle))
}

/// The limits on the axial coordinate `x` with rate `j`.
#[inline(always)]
fn limits(p: &Prepared, s: &mut JointState, v: &mut Pair, j: Jac, x: Real, range: (Real, Real), k: (Soft, Real, bool)) {
    let (soft, inv_h, bias) = k;
    limit(p, v, j, x - range.0, &mut s.lower, (soft, inv_h, bias));
    limit(p, v, j.neg(), range.1 - x, &mut s.upper, (soft, inv_h, bias));
}

#[inline(always)]
fn solve_one(p: &Prepared, s: &mut JointState, n: &Now, v: &mut Pair, k: (Soft, Soft, Real, bool), h: Real) {
    let (soft, soft_bias, inv_h, bias) = k;
    match p.kind {
        JointKind::Fixed => {
            angular_lock(p, s, n, v, soft);
            point_unless_tree(p, s, n, v, soft);
        }
        JointKind::Ball { cone: c, twist } => {
            if let (Some(range), Some(j)) = (twist, axial(p, n)) {
                limits(p, s, v, j, twist_angle(n.err, n.axis_a), range, (soft_bias, inv_h, bias));
            }
            if let (Some(_), Some((j, room))) = (c, cone(p, n)) {
                limit(p, v, j, room, &mut s.cone, (soft_bias, inv_h, bias));
            }
            point_unless_tree(p, s, n, v, soft);
        }
        JointKind::Hinge { limits: range, motor: m } => {
            let j = Jac::angular(n.axis_a);
            if let Some(m) = m {
                motor(p, v, j, m.speed, m.max_force * h, &mut s.motor);
            }
            if let Some(range) = range {
                limits(p, s, v, j, twist_angle(n.err, n.axis_a), range, (soft_bias, inv_h, bias));
            }
            hinge_align(p, s, n, v, soft);
            point_unless_tree(p, s, n, v, soft);
        }
        JointKind::Prismatic { limits: range, motor: m } => {
            let j = axial(p, n).expect("a slider has an axis");
            if let Some(m) = m {
                motor(p, v, j, m.speed, m.max_force * h, &mut s.motor);
            }
            if let Some(range) = range {
                limits(p, s, v, j, n.d.dot(n.axis_a), range, (soft_bias, inv_h, bias));
            }
            angular_lock(p, s, n, v, soft);
            // The impulse kept is the one across the current axis: what lay along an axis
            // that has turned since would push along the slide.
            let (t1, t2) = perpendiculars(n.axis_a);
            let mut kept = Vec3::ZERO;
            for t in [t1, t2] {
                let j = Jac { lin: t, ang_a: (n.ra + n.d).cross(t), ang_b: n.rb.cross(t) };
                let mut acc = s.linear.dot(t);
                equal(p, v, j, n.d.dot(t), &mut acc, soft);
                kept += acc * t;
            }
            s.linear = kept;
        }
        JointKind::Distance { length, mode } => {
            let len = n.d.length();
            if len < 1e-6 {
                return;
            }
            let u = n.d / len;
            let j = Jac { lin: u, ang_a: n.ra.cross(u), ang_b: n.rb.cross(u) };
            let c = len - length;
            // The impulse kept is the one along the current direction: a part across it (from
            // a step when the anchors lay elsewhere) would push the bodies sideways.
            let mut acc = s.linear.dot(u);
            match mode {
                DistanceMode::Rod => equal(p, v, j, c, &mut acc, soft),
                DistanceMode::Rope => {
                    // The limit row's impulse pushes the length down: the negative of `acc`.
                    let mut pull = -acc;
                    limit(p, v, j.neg(), -c, &mut pull, (soft_bias, inv_h, bias));
                    acc = -pull;
                }
                DistanceMode::Spring { stiffness, damping } => spring(p, v, j, c, &mut acc, (stiffness, damping), h),
            }
            s.linear = acc * u;
        }
    }
}

/// A spring of stiffness `k` (N/m) and damping `c` (N·s/m) on row `j` at extension `x`
/// (implicit in the substep, so stable at any stiffness).
#[inline(always)]
fn spring(p: &Prepared, v: &mut Pair, j: Jac, x: Real, acc: &mut Real, (k, c): (Real, Real), h: Real) {
    let kk = j.k(p);
    let denom = h * (c + h * k);
    if kk <= 0.0 || denom <= 0.0 {
        return;
    }
    let gamma = 1.0 / denom;
    let bias = x * k / (c + h * k);
    let impulse = -(j.rate(v) + bias + gamma * *acc) / (kk + gamma);
    j.apply(p, v, impulse);
    *acc += impulse;
}

/// The anchors together, unless the forest's solve holds them (`tree`).
#[inline(always)]
fn point_unless_tree(p: &Prepared, s: &mut JointState, n: &Now, v: &mut Pair, soft: Soft) {
    if !p.tree {
        point(p, s, n, v, soft);
    }
}

/// The anchors together (3×3 block).
#[inline(always)]
fn point(p: &Prepared, s: &mut JointState, n: &Now, v: &mut Pair, soft: Soft) {
    let Some(inv_k) = p.point_mass(n.ra, n.rb) else { return };
    let cdot = (v.vb + v.wb.cross(n.rb)) - (v.va + v.wa.cross(n.ra));
    let b = inv_k * (cdot + soft.bias_rate * n.d);
    let impulse = -soft.mass_scale * b - soft.impulse_scale * s.linear;
    s.linear += impulse;
    p.apply_linear(v, n.ra, n.rb, impulse);
}

/// The rotations held at rest (3×3 block).
#[inline(always)]
fn angular_lock(p: &Prepared, s: &mut JointState, n: &Now, v: &mut Pair, soft: Soft) {
    let Some(inv_k) = invert(p.ia + p.ib) else { return };
    let b = inv_k * ((v.wb - v.wa) + soft.bias_rate * rotation_error(n.err));
    let impulse = -soft.mass_scale * b - soft.impulse_scale * s.angular;
    s.angular += impulse;
    p.apply_angular(v, impulse);
}

/// B's axis held along A's (2×2 block about the axes perpendicular to A's).
#[inline(always)]
fn hinge_align(p: &Prepared, s: &mut JointState, n: &Now, v: &mut Pair, soft: Soft) {
    let (t1, t2) = perpendiculars(n.axis_a);
    let i = p.ia + p.ib;
    let (k11, k12, k22) = (t1.dot(i * t1), t1.dot(i * t2), t2.dot(i * t2));
    let det = k11 * k22 - k12 * k12;
    if det.abs() <= 1e-12 || det.is_nan() {
        return;
    }
    let e = n.axis_a.cross(n.axis_b);
    let w = v.wb - v.wa;
    let r1 = w.dot(t1) + soft.bias_rate * e.dot(t1);
    let r2 = w.dot(t2) + soft.bias_rate * e.dot(t2);
    let (x1, x2) = ((k22 * r1 - k12 * r2) / det, (k11 * r2 - k12 * r1) / det);
    let l1 = -soft.mass_scale * x1 - soft.impulse_scale * s.angular.dot(t1);
    let l2 = -soft.mass_scale * x2 - soft.impulse_scale * s.angular.dot(t2);
    let impulse = l1 * t1 + l2 * t2;
    // The impulse kept is the one about the perpendiculars: drop any part along the axis
    // (from a step when the axis lay elsewhere).
    s.angular = s.angular - s.angular.dot(n.axis_a) * n.axis_a + impulse;
    p.apply_angular(v, impulse);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// `turn` in `Mat3A`'s lanes gives the bits of the same products in `Mat3`.
    #[test]
    fn turn_gives_the_bits_of_the_plain_products() {
        let mut rng = SplitMix64::new(0x7e57_0f7a);
        for case in 0..2000 {
            let q = rng.rotation();
            let d = Vec3::new(rng.range(0.01, 30.0), rng.range(0.01, 30.0), rng.range(0.01, 30.0));
            let r0 = Mat3::from_quat(rng.rotation());
            let i = r0 * Mat3::from_diagonal(d) * r0.transpose();
            let r = Mat3::from_quat(q);
            let plain = r * i * r.transpose();
            let bits = |m: Mat3| m.to_cols_array().map(Real::to_bits);
            assert_eq!(bits(turn(i, q)), bits(plain), "case {case}: q {q}, i {i}");
        }
    }
}
