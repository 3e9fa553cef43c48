//! Building a bundle's rows eight manifolds at a time: `prepare::manifold_rows`'s arithmetic,
//! lane by lane, in the same order and with the same roundings (no fused multiply-add), so the
//! rows have the same bits, for about a third of the instructions. The bodies' records are read
//! with 8×8 transposes, the other inputs copied lane by lane from the contacts and the
//! warm-start cache; outputs are stored whole.

use super::lanes::{F, Lane, V3, W, check_indices, load4, load8};
use super::prepare::{BodyMass, SLIP_SPEED, find_point};
use super::rows::{BodyState, Fall};
use super::wide::on_lanes;
use super::wide::{Bounce, Bundle, Isa, put};
use super::{Contact, Lanes, WarmCache};
use crate::math::Vec3;
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::simd::f32x8::{Few, OnLanes, run};

/// Where a bundle's rows come from: the step's contacts, per-body constants and starting
/// states, each contact's entry in last step's cache (`u32::MAX`: none), and the dummy body
/// that empty lanes name.
pub(super) struct Sources<'a> {
    pub contacts: &'a [Contact],
    /// Per contact, its points' B-side lever-arm ends (world).
    pub arm_b: &'a [[Vec3; MAX_MANIFOLD_POINTS]],
    pub masses: &'a [BodyMass],
    pub states: &'a [BodyState],
    pub warm: &'a [u32],
    /// Per body: the solver changes its velocity.
    pub responds: &'a [bool],
    pub cache: &'a WarmCache,
    pub dummy: u32,
    pub fall: Fall,
}

/// A bundle's inputs, lane by lane. Points past a manifold's count are zero. Every lane in use
/// is rewritten for each bundle, so one value serves a whole build (the rest are ignored).
#[derive(Clone, Copy, Default)]
pub(super) struct Inputs {
    n: V3<F>,
    /// The manifold's point count, at least 1.
    count: F,
    /// 1 where the manifold has points, else 0.
    has_points: F,
    /// Matched warm-start impulses: per point normal, and the manifold's summed friction
    /// vector and twist.
    warm_normal: [F; MAX_MANIFOLD_POINTS],
    warm_tangent: V3<F>,
    warm_twist: F,
}

impl Inputs {
    /// Copies contact `m`'s inputs into lane `i`, and its points' feature ids into `ids`.
    #[inline(always)]
    fn set(&mut self, i: usize, src: &Sources, m: u32, ids: &mut [u32; MAX_MANIFOLD_POINTS]) -> usize {
        let c = &src.contacts[m as usize];
        put(&mut self.n, i, c.manifold.normal);
        let pts = c.manifold.points();
        self.count.0[i] = pts.len().max(1) as f32;
        self.has_points.0[i] = if pts.is_empty() { 0.0 } else { 1.0 };
        let cached = src.cache.impulses(src.warm[m as usize]);
        let (mut tangent, mut twist) = (Vec3::ZERO, 0.0);
        for (k, id) in ids.iter_mut().enumerate() {
            let normal = match pts.get(k) {
                Some(mp) => {
                    *id = mp.id;
                    let warm = cached.and_then(|cached| find_point(cached, k, pts, mp));
                    if let Some(w) = warm {
                        tangent += w.tangent;
                        twist += w.twist;
                    }
                    warm.map_or(0.0, |w| w.normal)
                }
                None => 0.0,
            };
            self.warm_normal[k].0[i] = normal;
        }
        put(&mut self.warm_tangent, i, tangent);
        self.warm_twist.0[i] = twist;
        pts.len()
    }
}

/// Lane-wise `Mat3A * v` for a matrix held as columns: the same products and sums, in the
/// same order.
#[inline(always)]
fn mat_mul<L: Lane>(m: &[L; 9], v: V3<L>) -> V3<L> {
    V3 {
        x: m[0] * v.x + m[3] * v.y + m[6] * v.z,
        y: m[1] * v.x + m[4] * v.y + m[7] * v.z,
        z: m[2] * v.x + m[5] * v.y + m[8] * v.z,
    }
}

/// `1 / k`, or 0 where `k` is not positive (as `prepare::inverse`).
#[inline(always)]
fn inverse<L: Lane>(k: L) -> L {
    let zero = L::splat(0.0);
    k.gt_select(zero, L::splat(1.0).div(k), zero)
}

#[inline(always)]
fn v3_div<L: Lane>(v: V3<L>, s: L) -> V3<L> {
    V3 { x: v.x.div(s), y: v.y.div(s), z: v.z.div(s) }
}

#[inline(always)]
fn v3_select<L: Lane>(c: L, o: L, yes: V3<L>, no: V3<L>) -> V3<L> {
    V3 { x: c.gt_select(o, yes.x, no.x), y: c.gt_select(o, yes.y, no.y), z: c.gt_select(o, yes.z, no.z) }
}

const _: () = assert!(size_of::<BodyMass>() == 64 && size_of::<BodyState>() == 48);

/// One side's bodies, lane by lane, as the rows read them: inverse mass, world inverse inertia
/// (columns), centre of mass, starting velocities and friction.
struct Side<L> {
    inv_mass: L,
    inv_i: [L; 9],
    pos: V3<L>,
    v: V3<L>,
    w: V3<L>,
    friction: L,
    restitution: L,
}

/// The bodies `body` (one per lane, `None` for an empty lane) read with 8×8 transposes of
/// their records: floats 0–7 and 7–14 of each `BodyMass` (inverse inertia, centre, inverse
/// mass, friction) and floats 0–7 of each `BodyState` (velocity, angular velocity). The same
/// floats as copying them lane by lane.
#[inline(always)]
fn side<L: Lane>(src: &Sources, body: [Option<usize>; W]) -> Side<L> {
    let mass = body.map(|b| b.map(|b| &src.masses[b]));
    let state = body.map(|b| b.map(|b| &src.states[b]));
    let (lo, hi, s) = (load8::<L, _>(mass, 0), load8::<L, _>(mass, 7), load8::<L, _>(state, 0));
    Side {
        inv_mass: hi[5],
        inv_i: [lo[0], lo[1], lo[2], lo[3], lo[4], lo[5], lo[6], hi[0], hi[1]],
        pos: V3 { x: hi[2], y: hi[3], z: hi[4] },
        v: V3 { x: s[0], y: s[1], z: s[2] },
        w: V3 { x: s[3], y: s[4], z: s[5] },
        friction: hi[6],
        restitution: hi[7],
    }
}

/// The points of contacts `chunk` (lane by lane, zero past each lane's count `lens` and in
/// empty lanes): positions, depths and B-side lever-arm ends, read with transposes of the
/// manifolds' point slots (floats 0–3 of each `ContactPoint`) and of the lever-arm ends
/// (floats 0–7 and 4–11 of each contact's four).
#[inline(always)]
#[allow(clippy::type_complexity)]
fn points<L: Lane>(
    src: &Sources,
    chunk: &[u32],
    lens: &[usize; W],
) -> ([V3<L>; MAX_MANIFOLD_POINTS], [L; MAX_MANIFOLD_POINTS], [V3<L>; MAX_MANIFOLD_POINTS]) {
    // Point k's position and depth are floats 5 k .. 5 k + 4 of the four slots.
    let slots = std::array::from_fn(|i| chunk.get(i).map(|&m| src.contacts[m as usize].manifold.slots()));
    let arms = std::array::from_fn(|i| chunk.get(i).map(|&m| &src.arm_b[m as usize]));
    let q = std::array::from_fn::<_, MAX_MANIFOLD_POINTS, _>(|k| load4::<L, _>(slots, 5 * k));
    let (lo, hi) = (load8::<L, _>(arms, 0), load8::<L, _>(arms, 4));
    let (zero, half) = (L::splat(0.0), L::splat(0.5));
    let mut p = [V3 { x: zero, y: zero, z: zero }; MAX_MANIFOLD_POINTS];
    let mut depth = [zero; MAX_MANIFOLD_POINTS];
    for k in 0..MAX_MANIFOLD_POINTS {
        let real = L::load(&F(lens.map(|l| if l > k { 1.0 } else { 0.0 })));
        let keep = |x: L| real.gt_select(half, x, zero);
        p[k] = V3 { x: keep(q[k][0]), y: keep(q[k][1]), z: keep(q[k][2]) };
        depth[k] = keep(q[k][3]);
    }
    // The lever-arm ends past a contact's count are zero already (recycling clears them).
    let arm_b = [
        V3 { x: lo[0], y: lo[1], z: lo[2] },
        V3 { x: lo[3], y: lo[4], z: lo[5] },
        V3 { x: lo[6], y: lo[7], z: hi[4] },
        V3 { x: hi[5], y: hi[6], z: hi[7] },
    ];
    (p, depth, arm_b)
}

/// Lane-wise `prepare::friction_basis`: the slip direction where the surfaces slip, else
/// `orthonormal_basis(n)` (Duff et al.), with the same operations.
#[inline(always)]
fn friction_basis<L: Lane>(n: V3<L>, v: V3<L>, has_points: L) -> [V3<L>; 2] {
    let (zero, one, half) = (L::splat(0.0), L::splat(1.0), L::splat(0.5));
    let sign = one.copysign(n.z);
    let a = L::splat(-1.0).div(sign + n.z);
    let b = n.x * n.y * a;
    let o1 = V3 { x: one + sign * n.x * n.x * a, y: sign * b, z: sign.neg() * n.x };
    let o2 = V3 { x: b, y: sign + n.y * n.y * a, z: n.y.neg() };
    let d = n.dot(v);
    let slip = v - n.scale(d);
    let len = slip.dot(slip).sqrt();
    let t1 = v3_div(slip, len);
    let t2 = n.cross(t1);
    // Follow the slip only where the manifold has points and slips fast enough.
    let speed = has_points.gt_select(half, len, zero);
    let slips = L::splat(SLIP_SPEED);
    [v3_select(speed, slips, t1, o1), v3_select(speed, slips, t2, o2)]
}

/// Builds the bundle of contacts `chunk` (up to eight) into `c`, `bounce` and `lanes`.
#[inline(always)]
fn build_bundle<L: Lane>(
    src: &Sources,
    inp: &mut Inputs,
    chunk: &[u32],
    c: &mut Bundle,
    bounce: &mut Bounce,
    lanes: &mut Lanes,
) {
    let mut lens = [0usize; W];
    let (mut body_a, mut body_b) = ([None; W], [None; W]);
    for (i, &m) in chunk.iter().enumerate() {
        lens[i] = inp.set(i, src, m, &mut lanes.ids[i]);
        let contact = &src.contacts[m as usize];
        c.a[i] = contact.a;
        c.b[i] = contact.b;
        c.set_writes(i, [src.responds[contact.a as usize], src.responds[contact.b as usize]]);
        lanes.contact[i] = m;
        lanes.len[i] = lens[i] as u8;
        body_a[i] = Some(contact.a as usize);
        body_b[i] = Some(contact.b as usize);
    }
    let (zero, half) = (L::splat(0.0), L::splat(0.5));
    let n = inp.n.load::<L>();
    let count = L::load(&inp.count);
    // The points (position, depth) and B-side lever-arm ends, read with transposes; slots past
    // a manifold's count are zero.
    let (p, depth, arm_b) = points::<L>(src, chunk, &lens);
    let centre = v3_div(p.iter().fold(V3 { x: zero, y: zero, z: zero }, |s, &p| s + p), count);
    let (sa, sb) = (side::<L>(src, body_a), side::<L>(src, body_b));
    let (ma, ia, pa, va, wa) = (sa.inv_mass, sa.inv_i, sa.pos, sa.v, sa.w);
    let (mb, ib, pb, vb, wb) = (sb.inv_mass, sb.inv_i, sb.pos, sb.v, sb.w);
    let (ca, cb) = (centre - pa, centre - pb);
    let slip = (vb + wb.cross(cb)) - (va + wa.cross(ca));
    let t = friction_basis(n, slip, L::load(&inp.has_points));
    let friction = (sa.friction * sb.friction).sqrt();
    // Points past a lane's count add a zero length.
    let mut radius = zero;
    for (k, &p) in p.iter().enumerate() {
        let d = p - centre;
        let len = d.dot(d).sqrt();
        let real = F(lens.map(|l| if l > k { 1.0 } else { 0.0 }));
        radius += L::load(&real).gt_select(half, len, zero);
    }
    let twist_radius = radius.div(count);
    let (ia_n, ib_n) = (mat_mul(&ia, n), mat_mul(&ib, n));
    let twist_k = n.dot(ia_n) + n.dot(ib_n);
    n.store(&mut c.normal);
    ma.store(&mut c.ma);
    mb.store(&mut c.mb);
    friction.store(&mut c.friction);
    // The larger of the two materials' restitutions.
    sa.restitution.max(sb.restitution).store(&mut bounce.restitution);
    // 1 where a body does not move (its inverse mass is 0; inverse masses are never negative).
    let one = L::splat(1.0);
    ma.gt_select(zero, mb.gt_select(zero, zero, one), one).store(&mut c.one_sided);
    ca.store(&mut c.ca);
    cb.store(&mut c.cb);
    ia_n.store(&mut c.ia_n);
    ib_n.store(&mut c.ib_n);
    inverse(twist_k).store(&mut c.twist_mass);
    let twist_limit = twist_radius.gt_select(zero, friction * twist_radius, zero);
    twist_limit.store(&mut c.twist_limit);
    for (k, &t) in t.iter().enumerate() {
        let (cat, cbt) = (ca.cross(t), cb.cross(t));
        let (ia_cat, ib_cbt) = (mat_mul(&ia, cat), mat_mul(&ib, cbt));
        t.store(&mut c.tangents[k]);
        ia_cat.store(&mut c.ia_cat[k]);
        ib_cbt.store(&mut c.ib_cbt[k]);
        inverse(ma + mb + cat.dot(ia_cat) + cbt.dot(ib_cbt)).store(&mut c.tangent_mass[k]);
    }
    // The approach's acceleration along the normal and the speed at impact, as
    // `Fall::along` and `Fall::impact_velocity` compute them.
    let g = src.fall.gravity;
    let gn = n.x * L::splat(g.x) + n.y * L::splat(g.y) + n.z * L::splat(g.z);
    let accel = ma.gt_select(zero, gn, zero) - mb.gt_select(zero, gn, zero);
    let (two, dt) = (L::splat(2.0), L::splat(src.fall.dt));
    for (k, &p) in p.iter().enumerate() {
        let (ra, rb) = (p - pa, arm_b[k] - pb);
        let (ran, rbn) = (ra.cross(n), rb.cross(n));
        let (ia_ran, ib_rbn) = (mat_mul(&ia, ran), mat_mul(&ib, rbn));
        let rel_v = n.dot((vb + wb.cross(rb)) - (va + wa.cross(ra)));
        let mass = inverse(ma + mb + ran.dot(ia_ran) + rbn.dot(ib_rbn));
        let q = &mut c.points[k];
        ran.store(&mut q.ran);
        rbn.store(&mut q.rbn);
        ia_ran.store(&mut q.ia_ran);
        ib_rbn.store(&mut q.ib_rbn);
        depth[k].neg().store(&mut q.separation);
        mass.store(&mut q.mass);
        q.impulse = inp.warm_normal[k];
        bounce.max_impulse[k] = F::default();
        let (u, a, gap) = (rel_v.neg().max(zero), accel.max(zero), depth[k].neg().max(zero));
        let ui = (u * u + two * a * gap).sqrt().min(u + a * dt);
        zero.gt_select(rel_v, ui.neg(), rel_v).store(&mut bounce.relative_velocity[k]);
    }
    let warm_tangent = inp.warm_tangent.load::<L>();
    warm_tangent.dot(t[0]).store(&mut c.tangent_impulse[0]);
    warm_tangent.dot(t[1]).store(&mut c.tangent_impulse[1]);
    twist_limit.gt_select(zero, L::load(&inp.warm_twist), zero).store(&mut c.twist_impulse);
    // Rows past a manifold's points are zero rows.
    for (i, &len) in lens.iter().enumerate().take(chunk.len()) {
        for k in len..MAX_MANIFOLD_POINTS {
            c.clear_point(i, k, bounce);
        }
    }
    // Empty lanes name the dummy body and no contact, write nothing and do not bounce.
    for i in chunk.len()..W {
        c.set_empty(i, src.dummy, bounce);
        lanes.contact[i] = u32::MAX;
    }
    c.finish(chunk.len());
    // The passes gather and scatter the states by these indices unchecked.
    check_indices(src.states.len(), &c.a, &c.b);
}

/// Builds one bundle from the contacts `chunk` (one colour's, up to eight).
pub(super) fn bundle(
    isa: Isa,
    src: &Sources,
    inp: &mut Inputs,
    chunk: &[u32],
    c: &mut Bundle,
    bounce: &mut Bounce,
    lanes: &mut Lanes,
) {
    struct Code<'a, 'b>(&'a Sources<'b>, &'a mut Inputs, &'a [u32], &'a mut Bundle, &'a mut Bounce, &'a mut Lanes);
    impl OnLanes for Code<'_, '_> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            let width = Width { width: self.2.len() as u8 };
            on_lanes!(width, L, build_bundle; self.0, self.1, self.2, self.3, self.4, self.5)
        }
    }
    /// A bundle's lane count, as `on_lanes` reads it.
    struct Width {
        width: u8,
    }
    run(isa.avx(), Code(src, inp, chunk, c, bounce, lanes))
}
