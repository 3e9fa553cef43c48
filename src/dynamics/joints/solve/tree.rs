//! The anchors of joints whose bodies form chains and trees (no loops), solved exactly in each
//! pass: one sparse direct solve of the bodies' and the joints' linear system, eliminated leaves
//! first so that nothing fills in and the work grows linearly with the joints (after Baraff,
//! "Linear-time dynamics using Lagrange multipliers", SIGGRAPH 1996).
//!
//! One joint after another (Gauss-Seidel) each joint only sees its two bodies: a light link
//! between a fixed point and a heavy ball hands on a small part of the ball's pull per pass, so a
//! long chain under a heavy load stretches and, once it swings, flails. The direct solve gives
//! every link the velocities that keep all the anchors together at once, whatever the masses.
//!
//! The system, for body velocity changes `Δv` and anchor impulses `λ` (`M` the bodies' masses,
//! `J` the anchors' Jacobian, `b` the position correction):
//!
//! ```text
//! [  M   −Jᵀ ] [ Δv ]   [    0    ]
//! [ −J   −Σ  ] [ λ  ] = [ J v + b ]
//! ```
//!
//! Its graph (a node per moving body and per joint, an edge where a joint holds a body) is a
//! forest when the joints make no loop; joints that would close a loop stay with the others.
//! `Σ` is a compliance far below what `f32` resolves: it keeps a joint to the world (which has
//! one body) a leaf that can be eliminated.

// The small dense blocks below read as the matrix algebra they are, row and column indices.
#![allow(clippy::needless_range_loop)]

use super::{JointKind, Prepared};
use crate::dynamics::joints::JointState;
use crate::dynamics::solver::BodyState;
use crate::math::{Mat3, Quat, Real, Vec3};
use glam::DMat3;
use std::sync::Mutex;

const NONE: u32 = u32::MAX;

/// A joint's compliance per unit of its bodies' inverse masses (s²·… : effectively rigid).
const COMPLIANCE: f64 = 1e-7;

/// The share of a body's inertia across a pulled arm within which its turning is left to the
/// substep (`add_geometric_stiffness`): `(ω h)²` below it.
const GEOMETRIC_FREE: f64 = 0.25;

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
#[derive(Debug, Default)]
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
    scratch: Mutex<Scratch>,
}

impl Clone for Tree {
    fn clone(&self) -> Self {
        Tree {
            body_state: self.body_state.clone(),
            body_mass: self.body_mass.clone(),
            body_parent: self.body_parent.clone(),
            joint_row: self.joint_row.clone(),
            joint_sides: self.joint_sides.clone(),
            joint_parent: self.joint_parent.clone(),
            order: self.order.clone(),
            scratch: Mutex::default(),
        }
    }
}

/// The factorisation of one configuration of the forest and the working right-hand sides,
/// kept between passes: factored once (`Tree::factor`), solved in every pass after it
/// (`Tree::solve`), where only the right-hand side changes.
#[derive(Debug, Default)]
struct Scratch {
    /// Whether the blocks below hold a factorisation of this step's forest.
    factored: bool,
    /// Body nodes: the inverse mass and world inverse inertia where the body is now, the pivot
    /// block's Cholesky factor (lower triangles only: the upper ones are never read), `D⁻¹ Gᵀ` for the parent joint's block `G`, and the right-hand
    /// side (then the solution).
    inv_mass: Vec<(Real, Mat3)>,
    /// Body nodes: the world inertia where the body is now, and whether the geometric
    /// stiffness of a pulled arm was added to it.
    inertia: Vec<DMat3>,
    stiffened: Vec<bool>,
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
    /// Scratch of `build`: each state's body node, and the bodies' joints (CSR).
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
    pub(super) fn build(&mut self, rows: &mut [Prepared], states: usize, enabled: bool) {
        self.body_state.clear();
        self.body_mass.clear();
        self.body_parent.clear();
        self.joint_row.clear();
        self.joint_sides.clear();
        self.joint_parent.clear();
        self.order.clear();
        let s = self.scratch.get_mut().unwrap_or_else(|e| e.into_inner());
        s.factored = false;
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
        s.inv_mass.resize(bodies, (0.0, Mat3::ZERO));
        s.inertia.resize(bodies, DMat3::ZERO);
        s.stiffened.resize(bodies, false);
        s.bl.resize(bodies, [[0.0; 6]; 6]);
        s.bx.resize(bodies, [[0.0; 3]; 6]);
        s.br.resize(bodies, [0.0; 6]);
        s.jd.resize(joints, [[0.0; 3]; 3]);
        s.jy.resize(joints, [[0.0; 6]; 3]);
        s.jg.resize(joints, [[[0.0; 6]; 3]; 2]);
        s.arms.resize(joints, [Vec3::ZERO; 3]);
        s.jr.resize(joints, [0.0; 3]);
    }

    /// Factors the forest's system where the bodies are now (their anchors' arms and gaps, their
    /// inertia turned as far as they have turned in the step), for the passes until the bodies
    /// move: a substep's relax pass and the next substep's warm start and solve passes (the
    /// bodies move only between a substep's solve passes and its relax pass). Returns false if a
    /// block could not be factored (the caller then solves those joints one by one until the
    /// next factorisation).
    pub(super) fn factor(
        &self,
        rows: &[Prepared],
        joints: &[JointState],
        states: &[BodyState],
        dq: &impl Fn(usize) -> Quat,
        h: Real,
    ) -> bool {
        if self.order.is_empty() {
            return true;
        }
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        s.factored = false;
        // The bodies' masses, their inertia turned as far as they have turned in the step.
        for (k, (&state, &(r, side))) in self.body_state.iter().zip(&self.body_mass).enumerate() {
            let p = &rows[r as usize];
            let (m, i) = if side == 0 { (p.ma, p.ia) } else { (p.mb, p.ib) };
            let rot = Mat3::from_quat(dq(state as usize));
            let turned = rot * i * rot.transpose();
            s.inv_mass[k] = (m, turned);
            let inertia = turned.as_dmat3().inverse();
            // The lower triangle (all that the factorisation reads) of diag(mass, inertia).
            let d = &mut s.bl[k];
            let mass = 1.0 / m as f64;
            let (c0, c1, c2) = (inertia.x_axis, inertia.y_axis, inertia.z_axis);
            d[0][0] = mass;
            d[1][..2].copy_from_slice(&[0.0, mass]);
            d[2][..3].copy_from_slice(&[0.0, 0.0, mass]);
            d[3][..4].copy_from_slice(&[0.0, 0.0, 0.0, c0.x]);
            d[4][..5].copy_from_slice(&[0.0, 0.0, 0.0, c0.y, c1.y]);
            d[5].copy_from_slice(&[0.0, 0.0, 0.0, c0.z, c1.z, c2.z]);
            s.inertia[k] = inertia;
            s.stiffened[k] = false;
        }
        // The joints' Jacobians and compliances.
        for (j, &r) in self.joint_row.iter().enumerate() {
            let p = &rows[r as usize];
            if !p.tree {
                continue;
            }
            let (ra, rb, d) = p.arms(states, dq(p.a), dq(p.b));
            let arm_a = ra + d;
            s.arms[j] = [arm_a, rb, d];
            let c = -COMPLIANCE * (p.ma + p.mb) as f64;
            s.jd[j] = [[c, 0.0, 0.0], [0.0, c, 0.0], [0.0, 0.0, c]];
            // Side A: [−I, [arm]×]; side B: [I, −[r_b]×].
            s.jg[j] = [jacobian(-1.0, arm_a), jacobian(1.0, rb)];
            // Each side pulled along its arm by last substep's impulse stiffens its turning.
            let l = joints[p.index].linear;
            for (side, (sign, arm)) in [(-1.0, arm_a), (1.0, rb)].into_iter().enumerate() {
                let node = self.joint_sides[j][side];
                if node != NONE {
                    let pull = (sign * l.dot(arm)) as f64;
                    let (d, inertia) = (&mut s.bl[node as usize], &s.inertia[node as usize]);
                    s.stiffened[node as usize] |= add_geometric_stiffness(d, inertia, arm, pull * h as f64);
                }
            }
        }
        // The warm start applies last substep's impulses through the masses the solve uses.
        for (k, d) in s.bl.iter().enumerate().take(self.body_state.len()).filter(|(k, _)| s.stiffened[*k]) {
            // The block's lower triangle, mirrored.
            let turning = [0, 1, 2].map(|a| [0, 1, 2].map(|c| d[3 + a.max(c)][3 + a.min(c)]));
            if let Some(inv) = invert3(&turning) {
                let col = |c: usize| Vec3::new(inv[0][c] as Real, inv[1][c] as Real, inv[2][c] as Real);
                s.inv_mass[k].1 = Mat3::from_cols(col(0), col(1), col(2));
            }
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
        s.factored = true;
        true
    }

    /// Applies the forest's joints' impulses of the last substep at the arms of the last
    /// factorisation, made where the bodies are at the start of a substep.
    pub(super) fn warm_start(&self, rows: &[Prepared], joints: &[JointState], states: &mut [BodyState]) {
        if self.order.is_empty() {
            return;
        }
        let guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
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

    /// One exact solve of the forest's anchors at the bodies' current velocities, with position
    /// correction at `bias_rate` (1/s), on the last factorisation. Position correction is only
    /// asked of the solve passes, which find the bodies where the factorisation did. Adds the
    /// impulses to the joints' states. Returns false, changing nothing, if there is no
    /// factorisation (the caller then solves those joints one by one).
    pub(super) fn solve(
        &self,
        rows: &[Prepared],
        joints: &mut [JointState],
        states: &mut [BodyState],
        bias_rate: Real,
    ) -> bool {
        if self.order.is_empty() {
            return true;
        }
        let mut guard = self.scratch.lock().unwrap_or_else(|e| e.into_inner());
        let s = &mut *guard;
        if !s.factored {
            return false;
        }
        for r in &mut s.br {
            *r = [0.0; 6];
        }
        // The joints' velocity errors along the factored arms, and their gaps.
        for (j, &r) in self.joint_row.iter().enumerate() {
            let p = &rows[r as usize];
            if !p.tree {
                continue;
            }
            let [arm_a, rb, d] = s.arms[j];
            let (a, b) = (&states[p.a], &states[p.b]);
            let rhs = (b.v + b.w.cross(rb)) - (a.v + a.w.cross(arm_a)) + bias_rate * d;
            s.jr[j] = [rhs.x as f64, rhs.y as f64, rhs.z as f64];
        }
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
        for (&state, dv) in self.body_state.iter().zip(&s.br) {
            let st = &mut states[state as usize];
            st.v += Vec3::new(dv[0] as Real, dv[1] as Real, dv[2] as Real);
            st.w += Vec3::new(dv[3] as Real, dv[4] as Real, dv[5] as Real);
        }
        for (&r, l) in self.joint_row.iter().zip(&s.jr) {
            let p = &rows[r as usize];
            if p.tree {
                joints[p.index].linear += Vec3::new(l[0] as Real, l[1] as Real, l[2] as Real);
            }
        }
        true
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
fn add_geometric_stiffness(d: &mut [V6; 6], inertia: &DMat3, arm: Vec3, h_pull: f64) -> bool {
    let r2 = arm.as_dvec3().length_squared();
    if !(h_pull > 0.0 && r2 > 0.0) {
        return false;
    }
    let r = arm.as_dvec3() / r2.sqrt();
    let across = (inertia.x_axis.x + inertia.y_axis.y + inertia.z_axis.z - r.dot(inertia * r)) / 2.0;
    let k = h_pull - GEOMETRIC_FREE * across;
    if !(k > 0.0 && k.is_finite()) {
        return false;
    }
    let r = r.to_array();
    // The lower triangle, all that the factorisation reads.
    for a in 0..3 {
        for c in 0..=a {
            let unit = if a == c { 1.0 } else { 0.0 };
            d[3 + a][3 + c] += k * (unit - r[a] * r[c]);
        }
    }
    true
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
    if !(det.is_finite() && det != 0.0) {
        return None;
    }
    // The inverse is the transposed cofactors over the determinant.
    Some([0, 1, 2].map(|a| [0, 1, 2].map(|b| cof[b][a] / det)))
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
