//! The anchors of joints whose bodies form chains and trees (no loops), solved exactly in each
//! pass: one sparse direct solve, eliminated leaves first so that nothing fills in and the work
//! grows linearly with the joints.
//!
//! One joint after another (Gauss-Seidel) each joint only sees its two bodies: a light link
//! between a fixed point and a heavy ball hands on a small part of the ball's pull per pass, so a
//! long chain under a heavy load stretches and, once it swings, flails. The direct solve gives
//! every link the velocities that keep all the anchors together at once, whatever the masses.
//!
//! The system, for body velocity changes `Δv` and anchor impulses `λ` (`M` the bodies' masses,
//! `J` the anchors' Jacobian, `b` the position correction, `Σ` a compliance):
//!
//! ```text
//! [  M   −Jᵀ ] [ Δv ]   [    0    ]
//! [ −J   −Σ  ] [ λ  ] = [ J v + b ]
//! ```
//!
//! It is solved in one of two ways, which agree to rounding:
//! - in joint space (`factor_cliques`, the default): `(J M⁻¹ Jᵀ + Σ) λ = −(J v + b)`, a 3 × 3
//!   block per joint and per two joints of one body. Eliminating each joint after the other
//!   joints of its child body fills in nothing beyond each body's block of joint pairs: a chain
//!   is block-tridiagonal. A body's pairs grow with the square of its joints, their
//!   elimination with the cube, so a forest with a body of more than `MAX_CLIQUE` joints is
//!   solved the other way;
//! - in the bodies' and joints' system together (`factor_bodies`, after Baraff, "Linear-time
//!   dynamics using Lagrange multipliers", SIGGRAPH 1996): a 6 × 6 block per body and a 3 × 3
//!   block per joint, each folded into its parent, linear in a body's joints.
//!
//! The graph of bodies and joints (an edge where a joint holds a body) is a forest when the
//! joints make no loop; joints that would close a loop stay with the others. `Σ` is a compliance
//! far below what `f32` resolves: it keeps a joint to the world (which has one body) a leaf that
//! can be eliminated, and the joint-space blocks invertible where joints to the world nearly
//! repeat each other.

// The small dense blocks below read as the matrix algebra they are, row and column indices.
#![allow(clippy::needless_range_loop)]

use super::{JointKind, PassScratch, Prepared};
use crate::dynamics::joints::JointState;
use crate::dynamics::solver::BodyState;
use crate::math::{Mat3, Quat, Real, Vec3};
use glam::DMat3;

const NONE: u32 = u32::MAX;

/// A joint's compliance per unit of its bodies' inverse masses (s²·… : effectively rigid).
const COMPLIANCE: f64 = 1e-7;

/// The share of a body's inertia across a pulled arm within which its turning is left to the
/// substep (`add_geometric_stiffness`): `(ω h)²` below it.
const GEOMETRIC_FREE: f64 = 0.25;

/// The most joints a body may hold in the forest for the joint-space solve (`Tree::cliques`):
/// a body's joints form a dense block there, whose elimination grows with the cube of their
/// number. A forest with a body of more joints is solved body by body instead.
const MAX_CLIQUE: usize = 8;

type V3 = [f64; 3];
type V6 = [f64; 6];
/// A 3 × 6 block: one joint's Jacobian for one body.
type G = [V6; 3];

#[derive(Clone, Copy, Debug)]
enum Node {
    Body(u32),
    Joint(u32),
}

/// Whether a joint's anchors are held by a point constraint (the part the tree solves).
pub(super) fn has_point(kind: &JointKind) -> bool {
    matches!(kind, JointKind::Fixed | JointKind::Ball { .. } | JointKind::Hinge { .. })
}

/// The forest of one step: which joints it solves, and the order of elimination.
#[derive(Clone, Debug, Default)]
pub(super) struct Tree {
    /// Each body node's state index, and a row and side whose mass it reads.
    body_state: Vec<u32>,
    body_mass: Vec<(u32, u8)>,
    /// Each body node's parent joint node (`NONE`: a root).
    body_parent: Vec<u32>,
    /// Each joint node's row, its two sides' body nodes (`NONE`: the world or a body that does
    /// not move), and which side is its parent.
    joint_row: Vec<u32>,
    joint_sides: Vec<[u32; 2]>,
    joint_parent: Vec<u8>,
    /// Leaves first.
    order: Vec<Node>,
    /// Whether the forest is solved in joint space (`factor_cliques`): no body holds more than
    /// `MAX_CLIQUE` of its joints (`clique_limit` overrides that number in tests).
    cliques: bool,
    clique_limit: Option<usize>,
    /// Joint space: the joints in the order of elimination (leaves first); each body node's
    /// joints in that order (CSR, with the side of the joint the body is on); each joint's place
    /// in its two sides' lists; and where each body's block of joint pairs starts.
    elim: Vec<u32>,
    clique_start: Vec<u32>,
    clique: Vec<(u32, u8)>,
    place: Vec<[u8; 2]>,
    pair_start: Vec<u32>,
    /// For each joint in `elim`'s order, the later joints of its bodies and the index of their
    /// block with it (`pairs`): where its multipliers `L` are.
    later_start: Vec<u32>,
    later: Vec<(u32, u32)>,
    scratch: PassScratch<Scratch>,
}

/// The factorisation of one configuration of the forest and the working right-hand sides,
/// kept between passes: factored once (`Tree::factor`), solved in every pass after it
/// (`Tree::solve`), where only the right-hand side changes.
#[derive(Debug, Default)]
struct Scratch {
    /// Whether the blocks below hold a factorisation of this step's forest.
    factored: bool,
    /// What the forest was found from (`build_key`, one entry per row; `None`: nothing, or the
    /// solve off), and the rows it took: a step whose rows give the same key keeps the forest.
    /// Kept here, with the blocks sized for it, so that a copy of the tree (which starts with
    /// no scratch) finds its forest again.
    built_from: Option<Vec<[u32; 3]>>,
    built_taken: Vec<bool>,
    /// Body nodes: the inverse mass and world inverse inertia where the body is now; in the
    /// bodies' system (`factor_bodies`), the pivot block's Cholesky factor (lower triangles
    /// only: the upper ones are never read), `D⁻¹ Gᵀ` for the parent joint's block `G`, and the
    /// right-hand side (then the solution).
    inv_mass: Vec<(Real, Mat3)>,
    /// Body nodes: the world inertia where the body is now, that inertia with the geometric
    /// stiffness of the pulled arms added (`stiffened`: some was) and its inverse.
    inertia: Vec<DMat3>,
    stiffened: Vec<bool>,
    augmented: Vec<[V3; 3]>,
    inv_inertia: Vec<[V3; 3]>,
    bl: Vec<[V6; 6]>,
    bx: Vec<[V3; 6]>,
    br: Vec<V6>,
    /// Joint nodes: the pivot block inverted, `D⁻¹ G` for the parent body's block, the Jacobian
    /// blocks of both sides, their arms (A's to B's anchor, B's) and the anchors' gap, and the
    /// right-hand side.
    jd: Vec<[V3; 3]>,
    jy: Vec<G>,
    jg: Vec<[G; 2]>,
    arms: Vec<[Vec3; 3]>,
    jr: Vec<V3>,
    /// Joint space: the blocks between two joints of one body (`Tree::pair_start`), then the
    /// factor's multipliers `L` in their place.
    pairs: Vec<[V3; 3]>,
    /// Scratch of `build`: this step's key (`build_key`), each state's body node, and the
    /// bodies' joints (CSR).
    key: Vec<[u32; 3]>,
    node_of_state: Vec<u32>,
    start: Vec<u32>,
    fill: Vec<u32>,
    adjacent: Vec<(u32, u8)>,
    joint_seen: Vec<bool>,
    body_seen: Vec<bool>,
    taken: Vec<bool>,
    queue: std::collections::VecDeque<Node>,
}

impl Tree {
    /// Finds the forest among the rows whose joints hold a point: marks each row it takes
    /// (`Prepared::tree`). `states` is the number of body states (the world's dummy included).
    ///
    /// The forest depends only on which rows hold a point, their bodies and which of their sides
    /// move (`build_key`): where those are the last build's, so is the forest, and it is kept.
    pub(super) fn build(&mut self, rows: &mut [Prepared], states: usize, enabled: bool) {
        let s = self.scratch.get_mut();
        s.factored = false;
        if enabled {
            s.key.clear();
            s.key.extend(rows.iter().map(build_key));
            if s.built_from.as_ref() == Some(&s.key) {
                for (p, &taken) in rows.iter_mut().zip(&s.built_taken) {
                    p.tree = taken;
                }
                return;
            }
        }
        s.built_from = None;
        self.body_state.clear();
        self.body_mass.clear();
        self.body_parent.clear();
        self.joint_row.clear();
        self.joint_sides.clear();
        self.joint_parent.clear();
        self.order.clear();
        self.elim.clear();
        self.clique.clear();
        self.cliques = false;
        if !enabled {
            return;
        }
        s.node_of_state.clear();
        s.node_of_state.resize(states, NONE);
        // Body nodes, in order of first appearance; joint nodes, one per candidate row.
        for (r, p) in rows.iter().enumerate() {
            if !has_point(&p.kind) {
                continue;
            }
            let mut sides = [NONE; 2];
            for (side, (state, m)) in [(p.a, p.ma), (p.b, p.mb)].into_iter().enumerate() {
                if m > 0.0 && p_inertia_invertible(p, side) {
                    if s.node_of_state[state] == NONE {
                        s.node_of_state[state] = self.body_state.len() as u32;
                        self.body_state.push(state as u32);
                        self.body_mass.push((r as u32, side as u8));
                    }
                    sides[side] = s.node_of_state[state];
                }
            }
            if sides == [NONE; 2] {
                continue;
            }
            self.joint_row.push(r as u32);
            self.joint_sides.push(sides);
        }
        let (bodies, joints) = (self.body_state.len(), self.joint_row.len());
        // Each body's joints, in joint order.
        s.start.clear();
        s.start.resize(bodies + 1, 0);
        for sides in &self.joint_sides {
            for &b in sides.iter().filter(|&&b| b != NONE) {
                s.start[b as usize + 1] += 1;
            }
        }
        for i in 0..bodies {
            s.start[i + 1] += s.start[i];
        }
        s.adjacent.clear();
        s.adjacent.resize(s.start[bodies] as usize, (0, 0));
        s.fill.clear();
        s.fill.extend_from_slice(&s.start);
        for (j, sides) in self.joint_sides.iter().enumerate() {
            for (side, &b) in sides.iter().enumerate().filter(|(_, b)| **b != NONE) {
                s.adjacent[s.fill[b as usize] as usize] = (j as u32, side as u8);
                s.fill[b as usize] += 1;
            }
        }
        // Breadth first from each unreached body: a joint reaching a body already reached
        // would close a loop, and stays out.
        self.body_parent.resize(bodies, NONE);
        self.joint_parent.resize(joints, 0);
        s.joint_seen.clear();
        s.joint_seen.resize(joints, false);
        s.body_seen.clear();
        s.body_seen.resize(bodies, false);
        s.taken.clear();
        s.taken.resize(joints, false);
        s.queue.clear();
        for root in 0..bodies {
            if s.body_seen[root] {
                continue;
            }
            s.body_seen[root] = true;
            s.queue.push_back(Node::Body(root as u32));
            while let Some(node) = s.queue.pop_front() {
                self.order.push(node);
                let b = match node {
                    Node::Body(b) => b,
                    Node::Joint(j) => {
                        let other = self.joint_sides[j as usize][1 - self.joint_parent[j as usize] as usize];
                        if other != NONE {
                            s.queue.push_back(Node::Body(other));
                        }
                        continue;
                    }
                };
                for k in s.start[b as usize]..s.start[b as usize + 1] {
                    let (j, side) = s.adjacent[k as usize];
                    if std::mem::replace(&mut s.joint_seen[j as usize], true) {
                        continue;
                    }
                    let other = self.joint_sides[j as usize][1 - side as usize];
                    if other != NONE && std::mem::replace(&mut s.body_seen[other as usize], true) {
                        continue;
                    }
                    if other != NONE {
                        self.body_parent[other as usize] = j;
                    }
                    self.joint_parent[j as usize] = side;
                    s.taken[j as usize] = true;
                    s.queue.push_back(Node::Joint(j));
                }
            }
        }
        self.order.reverse();
        for (j, &r) in self.joint_row.iter().enumerate() {
            rows[r as usize].tree = s.taken[j];
        }
        for &b in &self.body_state {
            s.node_of_state[b as usize] = NONE;
        }
        // Joint space: each body's joints in the order of elimination. A joint is eliminated
        // after every other joint of its child body (they are that body's children, eliminated
        // before it), so what it leaves behind falls among its parent body's joints, which
        // already share blocks: nothing fills in beyond each body's block of joint pairs.
        self.elim.extend(self.order.iter().filter_map(|n| match n {
            Node::Joint(j) => Some(*j),
            Node::Body(_) => None,
        }));
        self.clique_start.clear();
        self.clique_start.resize(bodies + 1, 0);
        for &j in &self.elim {
            for &b in self.joint_sides[j as usize].iter().filter(|&&b| b != NONE) {
                self.clique_start[b as usize + 1] += 1;
            }
        }
        let widest = self.clique_start.iter().copied().max().unwrap_or(0) as usize;
        self.cliques = widest <= self.clique_limit.unwrap_or(MAX_CLIQUE);
        if self.cliques {
            for i in 0..bodies {
                self.clique_start[i + 1] += self.clique_start[i];
            }
            self.clique.resize(self.clique_start[bodies] as usize, (0, 0));
            self.place.resize(joints, [0; 2]);
            s.fill.clear();
            s.fill.extend_from_slice(&self.clique_start);
            for &j in &self.elim {
                for (side, &b) in self.joint_sides[j as usize].iter().enumerate().filter(|(_, b)| **b != NONE) {
                    let at = s.fill[b as usize];
                    self.clique[at as usize] = (j, side as u8);
                    self.place[j as usize][side] = (at - self.clique_start[b as usize]) as u8;
                    s.fill[b as usize] += 1;
                }
            }
            self.pair_start.clear();
            self.pair_start.push(0);
            for b in 0..bodies {
                let n = self.clique_start[b + 1] - self.clique_start[b];
                self.pair_start.push(self.pair_start[b] + n * n.saturating_sub(1) / 2);
            }
            s.pairs.resize(self.pair_start[bodies] as usize, [[0.0; 3]; 3]);
            self.later_start.clear();
            self.later.clear();
            for &c in &self.elim {
                self.later_start.push(self.later.len() as u32);
                for (side, &b) in self.joint_sides[c as usize].iter().enumerate().filter(|(_, b)| **b != NONE) {
                    let (lo, hi) = (self.clique_start[b as usize], self.clique_start[b as usize + 1]);
                    let at = self.place[c as usize][side] as u32;
                    let base = self.pair_start[b as usize];
                    for u in at + 1..hi - lo {
                        self.later.push((self.clique[(lo + u) as usize].0, base + u * (u - 1) / 2 + at));
                    }
                }
            }
            self.later_start.push(self.later.len() as u32);
        }
        s.inv_mass.resize(bodies, (0.0, Mat3::ZERO));
        s.inertia.resize(bodies, DMat3::ZERO);
        s.stiffened.resize(bodies, false);
        s.augmented.resize(bodies, [[0.0; 3]; 3]);
        s.inv_inertia.resize(bodies, [[0.0; 3]; 3]);
        s.bl.resize(bodies, [[0.0; 6]; 6]);
        s.bx.resize(bodies, [[0.0; 3]; 6]);
        s.br.resize(bodies, [0.0; 6]);
        s.jd.resize(joints, [[0.0; 3]; 3]);
        s.jy.resize(joints, [[0.0; 6]; 3]);
        s.jg.resize(joints, [[[0.0; 6]; 3]; 2]);
        s.arms.resize(joints, [Vec3::ZERO; 3]);
        s.jr.resize(joints, [0.0; 3]);
        s.built_taken.clear();
        s.built_taken.extend(rows.iter().map(|p| p.tree));
        s.built_from = Some(std::mem::take(&mut s.key));
    }

    crate::simd::compiled_twice! {
        /// Factors the forest's system where the bodies are now (their anchors' arms and gaps, their
        /// inertia turned as far as they have turned in the step), for the passes until the bodies
        /// move: a substep's relax pass and the next substep's warm start and solve passes (the
        /// bodies move only between a substep's solve passes and its relax pass). Returns false if a
        /// block could not be factored (the caller then solves those joints one by one until the
        /// next factorisation). Runs in its x86-64-v3 copy where the CPU has it
        /// ([`crate::simd::Compiled`]): the same operations in the same order, so the same bits.
        pub(super) fn factor(
            &self,
            rows: &[Prepared],
            joints: &[JointState],
            states: &[BodyState],
            dq: &impl Fn(usize) -> Quat,
            turned: &[Mat3],
            h: Real,
        ) -> bool = Self::factor_in, factor_v3;
    }

    /// [`Tree::factor`]; inlined into both copies.
    #[inline(always)]
    fn factor_in(
        &self,
        rows: &[Prepared],
        joints: &[JointState],
        states: &[BodyState],
        dq: &impl Fn(usize) -> Quat,
        turned: &[Mat3],
        h: Real,
    ) -> bool {
        if self.order.is_empty() {
            return true;
        }
        let mut guard = self.scratch.lock();
        let s = &mut *guard;
        s.factored = false;
        // The bodies' masses, their inverse inertia turned as far as they have turned in the
        // step (`turned`, at the rows' `turn_a` and `turn_b`).
        for (k, &(r, side)) in self.body_mass.iter().enumerate() {
            let p = &rows[r as usize];
            let (m, slot) = if side == 0 { (p.ma, p.turn_a) } else { (p.mb, p.turn_b) };
            let turned = turned[slot as usize];
            s.inv_mass[k] = (m, turned);
            let inertia = turned.as_dmat3().inverse();
            s.inertia[k] = inertia;
            s.augmented[k] = rows3(&inertia);
            s.inv_inertia[k] = rows3(&turned.as_dmat3());
            s.stiffened[k] = false;
        }
        // The joints' arms and compliances.
        for (j, &r) in self.joint_row.iter().enumerate() {
            let p = &rows[r as usize];
            if !p.tree {
                continue;
            }
            let (ra, rb, d) = p.arms(states, dq(p.a), dq(p.b));
            let arm_a = ra + d;
            s.arms[j] = [arm_a, rb, d];
            // The joint's diagonal block: the compliance, in joint space added to the bodies'
            // inverse masses seen from the anchors; in the bodies' system, its negative.
            let c = COMPLIANCE * (p.ma + p.mb) as f64;
            let c = if self.cliques { c } else { -c };
            s.jd[j] = [[c, 0.0, 0.0], [0.0, c, 0.0], [0.0, 0.0, c]];
            // Each side pulled along its arm by last substep's impulse stiffens its turning,
            // unless a contact from outside its jointed group acts on the group: the contact's
            // rows turn its bodies by their own inertia, and a pull they load up (a rock pressing
            // a limb against its joint) would stiffen them further each substep, the forest's
            // solve and the contacts disagreeing without end (ragdolls under 600 kg rocks spun
            // up to thousands of rad/s and went non-finite).
            let l = joints[p.index].linear;
            for (side, (sign, arm)) in [(-1.0, arm_a), (1.0, rb)].into_iter().enumerate() {
                let node = self.joint_sides[j][side];
                if node != NONE && !p.outside_contact[side] {
                    let pull = (sign * l.dot(arm)) as f64;
                    let (d, inertia) = (&mut s.augmented[node as usize], &s.inertia[node as usize]);
                    s.stiffened[node as usize] |= add_geometric_stiffness(d, inertia, arm, pull * h as f64);
                }
            }
        }
        // The solve and the warm start apply impulses through the stiffened masses.
        for k in 0..self.body_state.len() {
            if !s.stiffened[k] {
                continue;
            }
            // The lower triangle, mirrored.
            let d = &s.augmented[k];
            let turning = [0, 1, 2].map(|a| [0, 1, 2].map(|c| d[a.max(c)][a.min(c)]));
            if let Some(inv) = invert3(&turning) {
                let col = |c: usize| Vec3::new(inv[0][c] as Real, inv[1][c] as Real, inv[2][c] as Real);
                s.inv_mass[k].1 = Mat3::from_cols(col(0), col(1), col(2));
                s.inv_inertia[k] = inv;
            }
        }
        s.factored = if self.cliques { self.factor_cliques(s) } else { self.factor_bodies(s) };
        s.factored
    }

    /// `factor` in joint space: the joints' system `(J M⁻¹ Jᵀ + Σ) λ = −(J v + b)`, whose blocks
    /// couple two joints only where they share a body, factored `L D Lᵀ` in 3 × 3 blocks, the
    /// joints eliminated leaves first (`Tree::elim`).
    #[inline(always)]
    fn factor_cliques(&self, s: &mut Scratch) -> bool {
        // The blocks: each body adds, for each two of its joints `u`, `v` (signs `σ`, arms `r`),
        // `σᵤ σᵥ (m⁻¹ I + [rᵤ]× I⁻¹ [rᵥ]×ᵀ)`.
        for b in 0..self.body_state.len() {
            let (lo, hi) = (self.clique_start[b] as usize, self.clique_start[b + 1] as usize);
            let im = s.inv_mass[b].0 as f64;
            let w = s.inv_inertia[b];
            let sign = |side: u8| if side == 0 { -1.0 } else { 1.0 };
            for (u, &(j, side)) in self.clique[lo..hi].iter().enumerate() {
                let arm = skew3(s.arms[j as usize][side as usize]);
                let turned = mul33(&arm, &w);
                let d = &mut s.jd[j as usize];
                let k = times_skew_t(&turned, &arm);
                for a in 0..3 {
                    for c in 0..3 {
                        d[a][c] += k[a][c];
                    }
                    d[a][a] += im;
                }
                let base = self.pair_start[b] as usize + u * u.saturating_sub(1) / 2;
                for (v, &(jv, side_v)) in self.clique[lo..lo + u].iter().enumerate() {
                    let mut k = times_skew_t(&turned, &skew3(s.arms[jv as usize][side_v as usize]));
                    for a in 0..3 {
                        k[a][a] += im;
                    }
                    let sign = sign(side) * sign(side_v);
                    s.pairs[base + v] = k.map(|row| row.map(|x| sign * x));
                }
            }
        }
        // Eliminate: each joint's pivot inverted; the later joints of each of its bodies take
        // `K_uv −= K_ua D⁻¹ K_vaᵀ`, and `L_ua = K_ua D⁻¹` is kept in `K_ua`'s place. The pivot
        // updated last is kept at hand as well: along a chain it is the next joint's, which then
        // need not wait for the store.
        let mut last = (usize::MAX, [[0.0; 3]; 3]);
        for &c in &self.elim {
            let c = c as usize;
            let pivot = if last.0 == c { last.1 } else { s.jd[c] };
            let Some(inv) = invert3(&pivot) else { return false };
            s.jd[c] = inv;
            for side in 0..2 {
                let b = self.joint_sides[c][side];
                if b == NONE {
                    continue;
                }
                let b = b as usize;
                let n = (self.clique_start[b + 1] - self.clique_start[b]) as usize;
                let at = self.place[c][side] as usize;
                let base = self.pair_start[b] as usize;
                let pair = |u: usize, v: usize| base + u * (u - 1) / 2 + v;
                // The last joint first: a joint's update reads only the blocks of the joints
                // before it, which still hold `K`.
                for u in (at + 1..n).rev() {
                    let l = mul33(&s.pairs[pair(u, at)], &inv);
                    for v in at + 1..u {
                        let k = times_t(&l, &s.pairs[pair(v, at)]);
                        sub33(&mut s.pairs[pair(u, v)], &k);
                    }
                    let k = times_t(&l, &s.pairs[pair(u, at)]);
                    let ju = self.clique[self.clique_start[b] as usize + u].0 as usize;
                    sub33(&mut s.jd[ju], &k);
                    last = (ju, s.jd[ju]);
                    s.pairs[pair(u, at)] = l;
                }
            }
        }
        true
    }

    /// `factor` in the bodies' and joints' system, after Baraff (1996).
    #[inline(always)]
    fn factor_bodies(&self, s: &mut Scratch) -> bool {
        for k in 0..self.body_state.len() {
            // The lower triangle (all that the factorisation reads) of diag(mass, inertia).
            let (d, i) = (&mut s.bl[k], &s.augmented[k]);
            let mass = 1.0 / s.inv_mass[k].0 as f64;
            d[0][0] = mass;
            d[1][..2].copy_from_slice(&[0.0, mass]);
            d[2][..3].copy_from_slice(&[0.0, 0.0, mass]);
            d[3][..4].copy_from_slice(&[0.0, 0.0, 0.0, i[0][0]]);
            d[4][..5].copy_from_slice(&[0.0, 0.0, 0.0, i[1][0], i[1][1]]);
            d[5].copy_from_slice(&[0.0, 0.0, 0.0, i[2][0], i[2][1], i[2][2]]);
        }
        for (g, &[arm_a, rb, _]) in s.jg.iter_mut().zip(&s.arms) {
            // Side A: [−I, [arm]×]; side B: [I, −[r_b]×].
            *g = [jacobian(-1.0, arm_a), jacobian(1.0, rb)];
        }
        // Eliminate leaves first: fold each node's block into its parent's.
        for &node in &self.order {
            match node {
                Node::Joint(j) => {
                    let j = j as usize;
                    let Some(inv) = invert3(&s.jd[j]) else { return false };
                    s.jd[j] = inv;
                    let side = self.joint_parent[j] as usize;
                    let parent = self.joint_sides[j][side];
                    if parent == NONE {
                        continue;
                    }
                    let g = &s.jg[j][side];
                    let y = inverse_times_jacobian(&inv, g);
                    // D_p −= Gᵀ D⁻¹ G.
                    subtract_jacobian_t_times(&mut s.bl[parent as usize], g, &y);
                    s.jy[j] = y;
                }
                Node::Body(b) => {
                    let b = b as usize;
                    if !cholesky6(&mut s.bl[b]) {
                        return false;
                    }
                    let parent = self.body_parent[b];
                    if parent == NONE {
                        continue;
                    }
                    let l = &s.bl[b];
                    let j = parent as usize;
                    let side = usize::from(self.joint_sides[j][1] == b as u32);
                    let g = &s.jg[j][side];
                    let x = solve6x3(l, g);
                    // D_j −= G D⁻¹ Gᵀ.
                    let jd = &mut s.jd[j];
                    for a in 0..3 {
                        let [k1, k2] = OTHERS[a];
                        for c in 0..3 {
                            jd[a][c] -= g[a][a] * x[a][c] + g[a][3 + k1] * x[3 + k1][c] + g[a][3 + k2] * x[3 + k2][c];
                        }
                    }
                    s.bx[b] = x;
                }
            }
        }
        true
    }

    /// Applies the forest's joints' impulses of the last substep at the arms of the last
    /// factorisation, made where the bodies are at the start of a substep. Inlined into both
    /// compiled copies of the joints' warm start.
    #[inline(always)]
    pub(super) fn warm_start(&self, rows: &[Prepared], joints: &[JointState], states: &mut [BodyState]) {
        if self.order.is_empty() {
            return;
        }
        let guard = self.scratch.lock();
        for (j, (&r, sides)) in self.joint_row.iter().zip(&self.joint_sides).enumerate() {
            let p = &rows[r as usize];
            if !p.tree {
                continue;
            }
            let l = joints[p.index].linear;
            let [arm_a, rb, _] = guard.arms[j];
            for (side, (sign, arm)) in [(-1.0, arm_a), (1.0, rb)].into_iter().enumerate() {
                let node = sides[side];
                if node == NONE {
                    continue;
                }
                let (m, i) = guard.inv_mass[node as usize];
                let st = &mut states[self.body_state[node as usize] as usize];
                st.v += sign * m * l;
                st.w += i * (sign * arm.cross(l));
            }
        }
    }

    crate::simd::compiled_twice! {
        /// One exact solve of the forest's anchors at the bodies' current velocities, with position
        /// correction at `bias_rate` (1/s), on the last factorisation. Position correction is only
        /// asked of the solve passes, which find the bodies where the factorisation did. Adds the
        /// impulses to the joints' states. Returns false, changing nothing, if there is no
        /// factorisation (the caller then solves those joints one by one). Runs in its x86-64-v3
        /// copy where the CPU has it, as [`Tree::factor`] does.
        pub(super) fn solve(
            &self,
            rows: &[Prepared],
            joints: &mut [JointState],
            states: &mut [BodyState],
            bias_rate: Real,
        ) -> bool = Self::solve_in, solve_v3;
    }

    /// [`Tree::solve`]; inlined into both copies.
    #[inline(always)]
    fn solve_in(
        &self,
        rows: &[Prepared],
        joints: &mut [JointState],
        states: &mut [BodyState],
        bias_rate: Real,
    ) -> bool {
        if self.order.is_empty() {
            return true;
        }
        let mut guard = self.scratch.lock();
        let s = &mut *guard;
        if !s.factored {
            return false;
        }
        // The joints' velocity errors along the factored arms, and their gaps: `J v + b`, in
        // joint space negated (its right-hand side).
        for (j, &r) in self.joint_row.iter().enumerate() {
            let p = &rows[r as usize];
            if !p.tree {
                continue;
            }
            let [arm_a, rb, d] = s.arms[j];
            let (a, b) = (&states[p.a], &states[p.b]);
            let rhs = (b.v + b.w.cross(rb)) - (a.v + a.w.cross(arm_a)) + bias_rate * d;
            let rhs = [rhs.x as f64, rhs.y as f64, rhs.z as f64];
            s.jr[j] = if self.cliques { [-rhs[0], -rhs[1], -rhs[2]] } else { rhs };
        }
        if self.cliques {
            self.solve_cliques(s);
            self.apply_cliques(s, states);
        } else {
            for r in &mut s.br {
                *r = [0.0; 6];
            }
            self.solve_bodies(s);
            for (&state, dv) in self.body_state.iter().zip(&s.br) {
                let st = &mut states[state as usize];
                st.v += Vec3::new(dv[0] as Real, dv[1] as Real, dv[2] as Real);
                st.w += Vec3::new(dv[3] as Real, dv[4] as Real, dv[5] as Real);
            }
        }
        for (&r, l) in self.joint_row.iter().zip(&s.jr) {
            let p = &rows[r as usize];
            if p.tree {
                joints[p.index].linear += Vec3::new(l[0] as Real, l[1] as Real, l[2] as Real);
            }
        }
        true
    }

    /// `solve` in joint space on `factor_cliques`'s factor: the impulses `λ` in `jr` (which
    /// holds `−(J v + b)`).
    #[inline(always)]
    fn solve_cliques(&self, s: &mut Scratch) {
        // Forward: `L y = r`, then `D⁻¹ y`. The right-hand side written last is kept at hand as
        // well: along a chain it is the next joint's, which then need not wait for the store.
        let mut last = (usize::MAX, [0.0; 3]);
        for (i, &c) in self.elim.iter().enumerate() {
            let c = c as usize;
            let y = if last.0 == c { last.1 } else { s.jr[c] };
            for &(u, k) in &self.later[self.later_start[i] as usize..self.later_start[i + 1] as usize] {
                let d = mul3(&s.pairs[k as usize], &y);
                let r = &mut s.jr[u as usize];
                for a in 0..3 {
                    r[a] -= d[a];
                }
                last = (u as usize, *r);
            }
            s.jr[c] = mul3(&s.jd[c], &y);
        }
        // Back: `Lᵀ x = D⁻¹ y`, the last joint first; the joint solved last kept at hand.
        let mut last = (usize::MAX, [0.0; 3]);
        for (i, &c) in self.elim.iter().enumerate().rev() {
            let c = c as usize;
            let mut x = s.jr[c];
            for &(u, k) in &self.later[self.later_start[i] as usize..self.later_start[i + 1] as usize] {
                let xu = if last.0 == u as usize { last.1 } else { s.jr[u as usize] };
                let d = mul3t(&s.pairs[k as usize], &xu);
                for a in 0..3 {
                    x[a] -= d[a];
                }
            }
            s.jr[c] = x;
            last = (c, x);
        }
    }

    /// Adds to each body the velocity change `M⁻¹ Jᵀ λ` of `solve_cliques`'s impulses: `σ λ` and
    /// `σ r × λ` from each of its joints, in the order of elimination.
    #[inline(always)]
    fn apply_cliques(&self, s: &Scratch, states: &mut [BodyState]) {
        for (b, &state) in self.body_state.iter().enumerate() {
            let mut imp = [0.0; 6];
            for &(j, side) in &self.clique[self.clique_start[b] as usize..self.clique_start[b + 1] as usize] {
                let l = s.jr[j as usize];
                let arm = s.arms[j as usize][side as usize];
                let r = [arm.x as f64, arm.y as f64, arm.z as f64];
                let t = [r[1] * l[2] - r[2] * l[1], r[2] * l[0] - r[0] * l[2], r[0] * l[1] - r[1] * l[0]];
                let sign = if side == 0 { -1.0 } else { 1.0 };
                for a in 0..3 {
                    imp[a] += sign * l[a];
                    imp[3 + a] += sign * t[a];
                }
            }
            let m = s.inv_mass[b].0 as f64;
            let dw = mul3(&s.inv_inertia[b], &[imp[3], imp[4], imp[5]]);
            let st = &mut states[state as usize];
            st.v += Vec3::new((m * imp[0]) as Real, (m * imp[1]) as Real, (m * imp[2]) as Real);
            st.w += Vec3::new(dw[0] as Real, dw[1] as Real, dw[2] as Real);
        }
    }

    /// `solve` in the bodies' and joints' system on `factor_bodies`'s factor: the impulses in
    /// `jr` (which holds `J v + b`), the bodies' velocity changes in `br`.
    #[inline(always)]
    fn solve_bodies(&self, s: &mut Scratch) {
        // Leaves first: each node's right-hand side folded into its parent's.
        for &node in &self.order {
            match node {
                Node::Joint(j) => {
                    let j = j as usize;
                    let w = mul3(&s.jd[j], &s.jr[j]);
                    s.jr[j] = w;
                    let side = self.joint_parent[j] as usize;
                    let parent = self.joint_sides[j][side];
                    if parent == NONE {
                        continue;
                    }
                    // r_p += Gᵀ D⁻¹ r.
                    let (g, rp) = (&s.jg[j][side], &mut s.br[parent as usize]);
                    for a in 0..3 {
                        rp[a] += g[a][a] * w[a];
                    }
                    for c in 0..3 {
                        let [k1, k2] = OTHERS[c];
                        rp[3 + c] += g[k1][3 + c] * w[k1] + g[k2][3 + c] * w[k2];
                    }
                }
                Node::Body(b) => {
                    let b = b as usize;
                    let w = solve6(&s.bl[b], s.br[b]);
                    s.br[b] = w;
                    let parent = self.body_parent[b];
                    if parent == NONE {
                        continue;
                    }
                    // r_j += G D⁻¹ r.
                    let j = parent as usize;
                    let side = usize::from(self.joint_sides[j][1] == b as u32);
                    let (g, rj) = (&s.jg[j][side], &mut s.jr[j]);
                    for a in 0..3 {
                        let [k1, k2] = OTHERS[a];
                        rj[a] += g[a][a] * w[a] + g[a][3 + k1] * w[3 + k1] + g[a][3 + k2] * w[3 + k2];
                    }
                }
            }
        }
        // Back from the roots: each node's unknowns from its parent's.
        for &node in self.order.iter().rev() {
            match node {
                Node::Joint(j) => {
                    let j = j as usize;
                    let parent = self.joint_sides[j][self.joint_parent[j] as usize];
                    if parent != NONE {
                        let (y, z, rj) = (&s.jy[j], &s.br[parent as usize], &mut s.jr[j]);
                        for a in 0..3 {
                            let y = &y[a];
                            rj[a] += y[0] * z[0] + y[1] * z[1] + y[2] * z[2] + y[3] * z[3] + y[4] * z[4] + y[5] * z[5];
                        }
                    }
                }
                Node::Body(b) => {
                    let b = b as usize;
                    let parent = self.body_parent[b];
                    if parent != NONE {
                        let (x, z, rb) = (&s.bx[b], &s.jr[parent as usize], &mut s.br[b]);
                        for a in 0..6 {
                            rb[a] += x[a][0] * z[0] + x[a][1] * z[1] + x[a][2] * z[2];
                        }
                    }
                }
            }
        }
    }
}

/// Adds to body block `d` (its mass matrix) the geometric stiffness of a pull along `arm`,
/// implicit in the substep: `h²` times the stiffness `|f| |r| (I − r̂ r̂ᵀ)` with which a force
/// `f` pulling along the arm `r` turns the body back when it turns away (`h_pull = h² f · r`,
/// nothing when the arm is pushed), less a quarter of the body's inertia across the arm.
///
/// A light link pulled hard at both ends turns back and forth like a stiff spring of angular
/// frequency `ω = √(|f| |r| / I)`. The velocity solve holds the anchors along the arms where
/// the substep began (explicit in the geometry), which is stable only while `ω h < 2`: the top
/// links of a hanging 1,000-link chain (`ω h` about 2.3 at the default four substeps) and the
/// links of a 100:1 chain whipping through its swing spin up from rounding error and tear the
/// chain apart. With the stiffness added to the link's inertia, `ω h` stays below 2 at any
/// load. Where `ω h < ½` (`h² |f| |r| < I / 4`) the substep resolves the turning without help
/// and the inertia is left as it is.
fn add_geometric_stiffness(d: &mut [V3; 3], inertia: &DMat3, arm: Vec3, h_pull: f64) -> bool {
    let r2 = arm.as_dvec3().length_squared();
    if !(h_pull > 0.0 && r2 > 0.0) {
        return false;
    }
    let r = arm.as_dvec3() / r2.sqrt();
    let across = (inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z - r.dot(inertia * r)) / 2.0;
    let k = h_pull - GEOMETRIC_FREE * across;
    // Positive and finite, as two comparisons (`is_finite` compiles to a classification of the
    // bits); a NaN fails both.
    if !(k > 0.0 && k < f64::INFINITY) {
        return false;
    }
    let r = r.to_array();
    // The lower triangle, all that is read.
    for a in 0..3 {
        for c in 0..=a {
            let unit = if a == c { 1.0 } else { 0.0 };
            d[a][c] += k * (unit - r[a] * r[c]);
        }
    }
    true
}

/// What `Tree::build` reads of a row: its bodies' states, and whether it holds a point (bit 0)
/// and each of its sides moves and turns (bits 1 and 2).
/// A row without a point is left out whatever its sides, so they are not looked at.
fn build_key(p: &Prepared) -> [u32; 3] {
    let moves = |side: usize, m: Real| m > 0.0 && p_inertia_invertible(p, side);
    let flags = match has_point(&p.kind) {
        true => 1 | u32::from(moves(0, p.ma)) << 1 | u32::from(moves(1, p.mb)) << 2,
        false => 0,
    };
    [p.a as u32, p.b as u32, flags]
}

/// Whether side `side`'s inverse inertia can be inverted (a body with a locked rotation has
/// no finite inertia there and stays out of the tree).
fn p_inertia_invertible(p: &Prepared, side: usize) -> bool {
    let i = if side == 0 { p.ia } else { p.ib };
    let det = i.as_dmat3().determinant();
    det.is_finite() && det > 0.0
}

/// For each of a point constraint's rows `a`, the other two: the columns `3 + k` where its
/// block's cross-product part is not zero (the products below skip the block's structural zeros,
/// adding the other terms in the order a dense product would).
const OTHERS: [[usize; 2]; 3] = [[1, 2], [0, 2], [0, 1]];

/// `D⁻¹ G` for a joint's inverted pivot block `D⁻¹` and a point constraint's Jacobian block
/// `G = [sign I, −sign [r]×]`.
fn inverse_times_jacobian(inv: &[V3; 3], g: &G) -> G {
    let mut y = [[0.0; 6]; 3];
    for a in 0..3 {
        for c in 0..3 {
            let [k1, k2] = OTHERS[c];
            y[a][c] = inv[a][c] * g[c][c];
            y[a][3 + c] = inv[a][k1] * g[k1][3 + c] + inv[a][k2] * g[k2][3 + c];
        }
    }
    y
}

/// `D −= Gᵀ Y` on the lower triangle of a body's pivot block (all that `cholesky6` reads), for
/// a point constraint's Jacobian block `G` and `Y = D_j⁻¹ G`.
fn subtract_jacobian_t_times(d: &mut [V6; 6], g: &G, y: &G) {
    for a in 0..3 {
        for c in 0..=a {
            d[a][c] -= g[a][a] * y[a][c];
        }
    }
    for a in 0..3 {
        let [k1, k2] = OTHERS[a];
        for c in 0..=3 + a {
            d[3 + a][c] -= g[k1][3 + a] * y[k1][c] + g[k2][3 + a] * y[k2][c];
        }
    }
}

/// A point constraint's Jacobian for one body: `[sign I, −sign [r]×]`.
fn jacobian(sign: f64, r: Vec3) -> G {
    let (x, y, z) = (r.x as f64, r.y as f64, r.z as f64);
    // [r]× w = r × w.
    let skew = [[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]];
    let mut g = [[0.0; 6]; 3];
    for a in 0..3 {
        g[a][a] = sign;
        for c in 0..3 {
            g[a][3 + c] = -sign * skew[a][c];
        }
    }
    g
}

/// A matrix's rows.
fn rows3(m: &DMat3) -> [V3; 3] {
    let t = m.transpose();
    [t.x_axis.to_array(), t.y_axis.to_array(), t.z_axis.to_array()]
}

/// `[r]×`, the matrix of `w ↦ r × w`.
fn skew3(r: Vec3) -> [V3; 3] {
    let (x, y, z) = (r.x as f64, r.y as f64, r.z as f64);
    [[0.0, -z, y], [z, 0.0, -x], [-y, x, 0.0]]
}

fn mul33(a: &[V3; 3], b: &[V3; 3]) -> [V3; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|k| a[i][0] * b[0][k] + a[i][1] * b[1][k] + a[i][2] * b[2][k]))
}

/// `A Bᵀ`.
fn times_t(a: &[V3; 3], b: &[V3; 3]) -> [V3; 3] {
    [0, 1, 2].map(|i| [0, 1, 2].map(|k| a[i][0] * b[k][0] + a[i][1] * b[k][1] + a[i][2] * b[k][2]))
}

/// `A [r]×ᵀ` for `s = [r]×`, skipping its zero diagonal.
fn times_skew_t(a: &[V3; 3], s: &[V3; 3]) -> [V3; 3] {
    [0, 1, 2].map(|i| {
        [0, 1, 2].map(|k| {
            let [k1, k2] = OTHERS[k];
            a[i][k1] * s[k][k1] + a[i][k2] * s[k][k2]
        })
    })
}

fn sub33(a: &mut [V3; 3], b: &[V3; 3]) {
    for (ra, rb) in a.iter_mut().zip(b) {
        for (x, y) in ra.iter_mut().zip(rb) {
            *x -= y;
        }
    }
}

/// `Aᵀ v`.
fn mul3t(m: &[V3; 3], v: &V3) -> V3 {
    [0, 1, 2].map(|a| m[0][a] * v[0] + m[1][a] * v[1] + m[2][a] * v[2])
}

fn mul3(m: &[V3; 3], v: &V3) -> V3 {
    [0, 1, 2].map(|a| m[a][0] * v[0] + m[a][1] * v[1] + m[a][2] * v[2])
}

fn invert3(m: &[V3; 3]) -> Option<[V3; 3]> {
    let c = |a: usize, b: usize| {
        m[(a + 1) % 3][(b + 1) % 3] * m[(a + 2) % 3][(b + 2) % 3]
            - m[(a + 1) % 3][(b + 2) % 3] * m[(a + 2) % 3][(b + 1) % 3]
    };
    let cof = [[c(0, 0), c(0, 1), c(0, 2)], [c(1, 0), c(1, 1), c(1, 2)], [c(2, 0), c(2, 1), c(2, 2)]];
    let det = m[0][0] * cof[0][0] + m[0][1] * cof[0][1] + m[0][2] * cof[0][2];
    // Finite and not zero, as two comparisons; a NaN fails the second.
    if !(det != 0.0 && det.abs() < f64::INFINITY) {
        return None;
    }
    // The inverse is the transposed cofactors over the determinant.
    let inv = 1.0 / det;
    Some([0, 1, 2].map(|a| [0, 1, 2].map(|b| cof[b][a] * inv)))
}

/// Cholesky factor `L` (lower, in place) of a symmetric positive-definite 6 × 6 block, its
/// diagonal stored inverted (the solves multiply by it). Reads only the lower triangle.
// The first column's and the last's ranges over the columns before them and the rows below
// them are empty, as they should be.
#[allow(clippy::reversed_empty_ranges)]
fn cholesky6(m: &mut [V6; 6]) -> bool {
    // One column `j` at a time, spelled out so that every loop has a constant count and the
    // compiler unrolls the whole factorisation.
    macro_rules! column {
        ($j:literal) => {{
            let mut d = m[$j][$j];
            for k in 0..$j {
                d -= m[$j][k] * m[$j][k];
            }
            // Positive and finite, as two comparisons (`d > 0.0 && d.is_finite()` compiles to a
            // classification of the bits, some twenty instructions a column): an infinite `d`
            // gives a zero `inv`.
            if d.is_nan() || d <= 0.0 {
                return false;
            }
            let inv = 1.0 / d.sqrt();
            if inv <= 0.0 {
                return false;
            }
            m[$j][$j] = inv;
            for i in $j + 1..6 {
                let mut x = m[i][$j];
                for k in 0..$j {
                    x -= m[i][k] * m[$j][k];
                }
                m[i][$j] = x * inv;
            }
        }};
    }
    column!(0);
    column!(1);
    column!(2);
    column!(3);
    column!(4);
    column!(5);
    true
}

/// Solves `L Lᵀ x = b` with the factor from `cholesky6`.
#[inline(always)]
fn solve6(l: &[V6; 6], b: V6) -> V6 {
    let y0 = b[0] * l[0][0];
    let y1 = (b[1] - l[1][0] * y0) * l[1][1];
    let y2 = (b[2] - l[2][0] * y0 - l[2][1] * y1) * l[2][2];
    let y3 = (b[3] - l[3][0] * y0 - l[3][1] * y1 - l[3][2] * y2) * l[3][3];
    let y4 = (b[4] - l[4][0] * y0 - l[4][1] * y1 - l[4][2] * y2 - l[4][3] * y3) * l[4][4];
    let y5 = (b[5] - l[5][0] * y0 - l[5][1] * y1 - l[5][2] * y2 - l[5][3] * y3 - l[5][4] * y4) * l[5][5];
    let x5 = y5 * l[5][5];
    let x4 = (y4 - l[5][4] * x5) * l[4][4];
    let x3 = (y3 - l[4][3] * x4 - l[5][3] * x5) * l[3][3];
    let x2 = (y2 - l[3][2] * x3 - l[4][2] * x4 - l[5][2] * x5) * l[2][2];
    let x1 = (y1 - l[2][1] * x2 - l[3][1] * x3 - l[4][1] * x4 - l[5][1] * x5) * l[1][1];
    let x0 = (y0 - l[1][0] * x1 - l[2][0] * x2 - l[3][0] * x3 - l[4][0] * x4 - l[5][0] * x5) * l[0][0];
    [x0, x1, x2, x3, x4, x5]
}

/// Solves `L Lᵀ X = Gᵀ` for the three columns of `Gᵀ`, one after another.
fn solve6x3(l: &[V6; 6], g: &G) -> [V3; 6] {
    let mut x = [[0.0; 3]; 6];
    for (c, row) in g.iter().enumerate() {
        for (xi, v) in x.iter_mut().zip(solve6(l, *row)) {
            xi[c] = v;
        }
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cholesky_solves_a_symmetric_positive_definite_block() {
        let mut m = [[0.0; 6]; 6];
        for (i, row) in m.iter_mut().enumerate() {
            for (j, x) in row.iter_mut().enumerate() {
                *x = if i == j { 10.0 + i as f64 } else { 1.0 / (1.0 + (i + j) as f64) };
            }
        }
        let b = [1.0, -2.0, 3.0, 0.5, 0.0, -1.0];
        let orig = m;
        assert!(cholesky6(&mut m));
        let x = solve6(&m, b);
        for i in 0..6 {
            let bi: f64 = (0..6).map(|k| orig[i][k] * x[k]).sum();
            assert!((bi - b[i]).abs() < 1e-12, "row {i}: {bi} against {}", b[i]);
        }
        let g = jacobian(-1.0, Vec3::new(0.3, -0.2, 0.5));
        let x = solve6x3(&m, &g);
        for (c, gc) in g.iter().enumerate() {
            for i in 0..6 {
                let gi: f64 = (0..6).map(|k| orig[i][k] * x[k][c]).sum();
                assert!((gi - gc[i]).abs() < 1e-12, "column {c}, row {i}: {gi} against {}", gc[i]);
            }
        }
        let inv = invert3(&[[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 4.0]]).unwrap();
        let x = mul3(&inv, &[1.0, 2.0, 3.0]);
        let back = [2.0 * x[0] + x[1], x[0] + 3.0 * x[1] + x[2], x[1] + 4.0 * x[2]];
        assert!(back.iter().zip([1.0, 2.0, 3.0]).all(|(a, b)| (a - b).abs() < 1e-12), "{back:?}");
    }

    #[test]
    fn cholesky_refuses_a_pivot_that_is_not_positive_and_finite() {
        for (case, bad) in [0.0, -1.0, f64::NAN, f64::INFINITY].into_iter().enumerate() {
            for at in 0..6 {
                let mut m = [[0.0; 6]; 6];
                for (i, row) in m.iter_mut().enumerate() {
                    row[i] = 2.0;
                }
                m[at][at] = bad;
                assert!(!cholesky6(&mut m), "case {case}: pivot {at} of {bad} accepted");
            }
        }
    }

    /// A random forest of `n` bodies on ball joints, each body after the first hung from an
    /// earlier one (at most `widest` joints a body), some also from the world, with random
    /// masses, inertias, arms, gaps, velocities and last impulses (pulls among them, so that the
    /// geometric stiffness takes part).
    fn random_forest(
        seed: u64,
        n: usize,
        widest: usize,
        hub: bool,
    ) -> (Vec<Prepared>, Vec<JointState>, Vec<BodyState>) {
        let mut seed = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        let v3 = |scale: f64, next: &mut dyn FnMut() -> f64| {
            Vec3::new(
                ((next() * 2.0 - 1.0) * scale) as Real,
                ((next() * 2.0 - 1.0) * scale) as Real,
                ((next() * 2.0 - 1.0) * scale) as Real,
            )
        };
        let world = n;
        let mut mass = Vec::new();
        let mut inertia = Vec::new();
        for _ in 0..n {
            mass.push((0.2 + 5.0 * next()) as Real);
            let q = Quat::from_scaled_axis(v3(3.0, &mut next));
            let d =
                Vec3::new((0.5 + 20.0 * next()) as Real, (0.5 + 20.0 * next()) as Real, (0.5 + 20.0 * next()) as Real);
            let r = Mat3::from_quat(q);
            inertia.push(r * Mat3::from_diagonal(d) * r.transpose());
        }
        let mut degree = vec![0; n];
        let mut pairs = Vec::new();
        for b in 1..n {
            let open: Vec<usize> = (0..b).filter(|&a| degree[a] < widest && (!hub || a == 0)).collect();
            let a = open[(next() * open.len() as f64) as usize % open.len()];
            degree[a] += 1;
            degree[b] += 1;
            pairs.push((a, b));
        }
        for b in 0..n {
            if degree[b] < widest && next() < 0.3 {
                degree[b] += 1;
                pairs.push((world, b));
            }
        }
        let rows: Vec<Prepared> = pairs
            .iter()
            .enumerate()
            .map(|(index, &(a, b))| {
                let side = |s: usize| if s == world { (0.0, Mat3::ZERO) } else { (mass[s], inertia[s]) };
                let ((ma, ia), (mb, ib)) = (side(a), side(b));
                Prepared {
                    index,
                    a,
                    b,
                    ma,
                    mb,
                    ia,
                    ib,
                    ra: v3(0.6, &mut next),
                    rb: v3(0.6, &mut next),
                    delta_center: v3(1.0, &mut next),
                    qa: Quat::IDENTITY,
                    qb: Quat::IDENTITY,
                    axis_a: Vec3::X,
                    axis_b: Vec3::X,
                    rest_inv: Quat::IDENTITY,
                    kind: JointKind::Ball { cone: None, twist: None },
                    tree: false,
                    turn_a: a as u32,
                    turn_b: b as u32,
                    outside_contact: [false; 2],
                }
            })
            .collect();
        let joints =
            (0..rows.len()).map(|_| JointState { linear: v3(40.0, &mut next), ..Default::default() }).collect();
        let states = (0..=n)
            .map(|s| {
                if s == world {
                    return BodyState::default();
                }
                BodyState {
                    v: v3(2.0, &mut next),
                    w: v3(5.0, &mut next),
                    dp: v3(0.01, &mut next),
                    ..Default::default()
                }
            })
            .collect();
        (rows, joints, states)
    }

    /// A random forest ([`random_forest`]) with its tree built and its bodies' inverse inertias
    /// (unturned: the step's start) where the rows' `turn_a` and `turn_b` point.
    struct Forest {
        tree: Tree,
        rows: Vec<Prepared>,
        joints: Vec<JointState>,
        states: Vec<BodyState>,
        turned: Vec<Mat3>,
    }

    fn built_forest(seed: u64, n: usize, widest: usize, limit: Option<usize>) -> Forest {
        let (mut rows, joints, states) = random_forest(seed, n, widest, false);
        let mut tree = Tree { clique_limit: limit, ..Default::default() };
        tree.build(&mut rows, states.len(), true);
        let mut turned = vec![Mat3::ZERO; states.len()];
        for p in &rows {
            (turned[p.a], turned[p.b]) = (p.ia, p.ib);
        }
        Forest { tree, rows, joints, states, turned }
    }

    /// Factors and solves a forest in joint space or in the bodies' system (`clique_limit` 0).
    fn solve_forest(
        seed: u64,
        n: usize,
        widest: usize,
        limit: Option<usize>,
        bias_rate: Real,
    ) -> (bool, Vec<JointState>, Vec<BodyState>, Vec<Prepared>) {
        let Forest { tree, rows, mut joints, mut states, turned } = built_forest(seed, n, widest, limit);
        let identity = |_| Quat::IDENTITY;
        assert!(tree.factor(&rows, &joints, &states, &identity, &turned, 1.0 / 240.0), "seed {seed}: no factor");
        assert!(tree.solve(&rows, &mut joints, &mut states, bias_rate), "seed {seed}: no solve");
        (tree.cliques, joints, states, rows)
    }

    /// A forest found from the same rows again is kept; rows that change what it reads (a side
    /// that stops moving) find it again, as a tree that never saw the old rows finds it. A copy
    /// of the tree (which starts with no working memory) finds it again too, and factors and
    /// solves to the same bits.
    #[test]
    fn the_forest_is_kept_for_the_same_rows_and_found_again_when_they_change() {
        let Forest { mut tree, rows, joints, states, turned } = built_forest(7, 30, 3, None);
        let shape = |t: &Tree, rows: &[Prepared]| {
            let taken: Vec<bool> = rows.iter().map(|p| p.tree).collect();
            format!("{:?} {:?} {:?} {:?} {:?} {taken:?}", t.order, t.elim, t.joint_row, t.joint_sides, t.clique)
        };
        let first = shape(&tree, &rows);
        assert!(rows.iter().filter(|p| p.tree).count() > 10, "{first}");
        let mut again = rows.clone();
        again.iter_mut().for_each(|p| p.tree = false);
        tree.build(&mut again, states.len(), true);
        assert_eq!(shape(&tree, &again), first);
        let mut copy = tree.clone();
        let mut copied_rows = rows.clone();
        copied_rows.iter_mut().for_each(|p| p.tree = false);
        copy.build(&mut copied_rows, states.len(), true);
        assert_eq!(shape(&copy, &copied_rows), first);
        let identity = |_| Quat::IDENTITY;
        let mut solved = Vec::new();
        for (t, r) in [(&tree, &again), (&copy, &copied_rows)] {
            let (mut joints, mut states) = (joints.clone(), states.clone());
            assert!(t.factor(r, &joints, &states, &identity, &turned, 1.0 / 240.0));
            assert!(t.solve(r, &mut joints, &mut states, 10.0));
            solved.push(
                states
                    .iter()
                    .flat_map(|s| [s.v, s.w])
                    .flat_map(|v| v.to_array().map(Real::to_bits))
                    .collect::<Vec<_>>(),
            );
        }
        assert_eq!(solved[0], solved[1]);
        // A body that stops moving leaves the forest; the kept one would be wrong.
        let mut changed = rows.clone();
        let b = changed[5].b;
        for p in &mut changed {
            p.tree = false;
            if p.a == b {
                p.ma = 0.0;
            }
            if p.b == b {
                p.mb = 0.0;
            }
        }
        let mut fresh_rows = changed.clone();
        tree.build(&mut changed, states.len(), true);
        let mut fresh = Tree::default();
        fresh.build(&mut fresh_rows, states.len(), true);
        assert_eq!(shape(&tree, &changed), shape(&fresh, &fresh_rows));
        assert_ne!(shape(&tree, &changed), first);
    }

    /// `factor` and `solve` give the same bits in their baseline copies and their x86-64-v3
    /// copies, in joint space and in the bodies' system, with position correction and without.
    #[test]
    fn both_compiled_copies_give_the_same_bits() {
        if !crate::simd::x86_64_v3() {
            eprintln!("this CPU lacks x86-64-v3: the tree has only its baseline copies here");
            return;
        }
        let bits = |joints: &[JointState], states: &[BodyState]| -> Vec<u32> {
            let j = joints.iter().flat_map(|j| j.linear.to_array());
            let s = states.iter().flat_map(|s| s.v.to_array().into_iter().chain(s.w.to_array()));
            j.chain(s).map(Real::to_bits).collect()
        };
        for seed in 0..40u64 {
            let n = 2 + (seed as usize * 11) % 60;
            let widest = 2 + (seed as usize) % (MAX_CLIQUE - 1);
            for limit in [None, Some(0)] {
                for bias_rate in [0.0, 30.0] {
                    let Forest { tree, rows, joints, states, turned } = built_forest(seed, n, widest, limit);
                    let identity = |_| Quat::IDENTITY;
                    let h = 1.0 / 240.0;
                    let (mut jb, mut sb) = (joints.clone(), states.clone());
                    assert!(tree.factor_in(&rows, &joints, &states, &identity, &turned, h), "seed {seed}");
                    assert!(tree.solve_in(&rows, &mut jb, &mut sb, bias_rate), "seed {seed}");
                    let (mut jv, mut sv) = (joints.clone(), states.clone());
                    // SAFETY: the CPU runs x86-64-v3 (checked above).
                    #[cfg(target_arch = "x86_64")]
                    unsafe {
                        assert!(tree.factor_v3(&rows, &joints, &states, &identity, &turned, h), "seed {seed}");
                        assert!(tree.solve_v3(&rows, &mut jv, &mut sv, bias_rate), "seed {seed}");
                    }
                    assert_eq!(
                        bits(&jb, &sb),
                        bits(&jv, &sv),
                        "seed {seed}, {n} bodies, widest {widest}, clique limit {limit:?}, bias rate {bias_rate}"
                    );
                }
            }
        }
    }

    /// The joint-space solve gives what the bodies' system gives, on random forests of up to
    /// `MAX_CLIQUE` joints a body; and its velocities hold every anchor together.
    #[test]
    fn joint_space_solve_matches_the_bodies_system_and_holds_the_anchors() {
        for seed in 0..60u64 {
            let n = 2 + (seed as usize * 7) % 40;
            let widest = 2 + (seed as usize) % (MAX_CLIQUE - 1);
            for bias_rate in [0.0, 30.0] {
                let (cliques, ja, sa, rows) = solve_forest(seed, n, widest, None, bias_rate);
                let (bodies, jb, sb, _) = solve_forest(seed, n, widest, Some(0), bias_rate);
                assert!(cliques && !bodies, "seed {seed}: the methods were not the ones asked for");
                // Each method's velocities hold the anchors as the compliance `Σ` lets them
                // (without position correction): `J v + Σ λ = 0` for the solve's impulses `λ`.
                let (_, j0, s0) = random_forest(seed, n, widest, false);
                let scale = sb.iter().map(|s| s.v.length().max(s.w.length())).fold(1.0, Real::max);
                let residual = |s: &[BodyState], j: &[JointState]| {
                    let mut worst: Real = 0.0;
                    for p in rows.iter().filter(|p| p.tree) {
                        let arm_a = p.ra + p.arms(&s0, Quat::IDENTITY, Quat::IDENTITY).2;
                        let (a, b) = (&s[p.a], &s[p.b]);
                        let lambda = (j[p.index].linear - j0[p.index].linear).as_dvec3();
                        let rel = ((b.v + b.w.cross(p.rb)) - (a.v + a.w.cross(arm_a))).as_dvec3()
                            + COMPLIANCE * (p.ma + p.mb) as f64 * lambda;
                        worst = worst.max(rel.length() as Real);
                    }
                    worst
                };
                if bias_rate == 0.0 {
                    let (ra, rb) = (residual(&sa, &ja), residual(&sb, &jb));
                    assert!(
                        ra < 1e-5 * scale && rb < 1e-5 * scale,
                        "seed {seed}, {n} bodies: anchors part at {ra} (joint space), {rb} (bodies), speeds up to {scale}"
                    );
                }
                // Where joints to the world nearly repeat each other the two orders of rounding part by
                // some 1e-5 of the speeds.
                let close = |x: Vec3, y: Vec3| (x - y).length() <= 1e-3 * scale;
                for (k, (x, y)) in sa.iter().zip(&sb).enumerate() {
                    assert!(
                        close(x.v, y.v) && close(x.w, y.w),
                        "seed {seed}, {n} bodies, at most {widest} joints each, bias {bias_rate}: body {k} \
                         v {} w {} against {} {} (speeds up to {scale})",
                        x.v,
                        x.w,
                        y.v,
                        y.w
                    );
                }
                let largest = jb.iter().map(|j| j.linear.length()).fold(1.0, Real::max);
                for (k, (x, y)) in ja.iter().zip(&jb).enumerate() {
                    assert!(
                        (x.linear - y.linear).length() <= 1e-3 * largest,
                        "seed {seed}, bias {bias_rate}: joint {k} {} against {} (largest {largest})",
                        x.linear,
                        y.linear
                    );
                }
            }
        }
    }

    /// A body holding more joints than `MAX_CLIQUE` sends the forest to the bodies' system.
    #[test]
    fn a_body_of_many_joints_is_solved_in_the_bodies_system() {
        let (cliques, ..) = solve_forest(3, 30, MAX_CLIQUE, None, 0.0);
        assert!(cliques);
        let (mut rows, _, states) = random_forest(3, MAX_CLIQUE + 2, MAX_CLIQUE + 2, true);
        let mut tree = Tree::default();
        tree.build(&mut rows, states.len(), true);
        assert!(!tree.cliques);
    }

    /// The structured products give the dense products' bits: they skip only the Jacobian's
    /// zeros and add the other terms in the dense order.
    #[test]
    fn structured_products_match_the_dense_ones_bit_for_bit() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        };
        for case in 0..200 {
            let r = Vec3::new(next() as Real, next() as Real, next() as Real);
            let sign = if case % 2 == 0 { -1.0 } else { 1.0 };
            let g = jacobian(sign, r);
            let inv = [0, 1, 2].map(|_| [next(), next(), next()]);
            let y = inverse_times_jacobian(&inv, &g);
            for a in 0..3 {
                for c in 0..6 {
                    let dense: f64 = (0..3).map(|k| inv[a][k] * g[k][c]).sum();
                    assert_eq!(y[a][c].to_bits(), dense.to_bits(), "case {case}: Y[{a}][{c}], r {r}");
                }
            }
            let d0 = [0; 6].map(|_| [next(), next(), next(), next(), next(), next()]);
            let mut d = d0;
            subtract_jacobian_t_times(&mut d, &g, &y);
            for a in 0..6 {
                for c in 0..=a {
                    let dense = d0[a][c] - (0..3).map(|k| g[k][a] * y[k][c]).sum::<f64>();
                    assert_eq!(d[a][c].to_bits(), dense.to_bits(), "case {case}: D[{a}][{c}], r {r}");
                }
            }
        }
    }
}
