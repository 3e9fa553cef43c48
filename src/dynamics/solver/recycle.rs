//! Contact recycling (after rapier's): a pair's kept contact replaces the narrow phase's
//! manifold while its bodies stay near where they were when it was made (docs/dynamics.md,
//! *Contact recycling*). The kept points of eight contacts are checked at once, one contact per
//! lane, with the `Lane` kernels: glam's quaternion rotation and `Vec3` arithmetic operation for
//! operation (no fused multiply-add), so the recycled contacts have the same bits as one contact
//! at a time with glam (a unit test compares).

use super::lanes::{F, Lane, V3, W, load8, store8};
use super::wide::{Isa, put};
use super::{CacheEntry, Contact, Kept, RECYCLE_COS, RECYCLE_DEPTH, RECYCLE_DISTANCE, RECYCLE_TURN_COS};
use crate::dynamics::Body;
use crate::math::{Real, Vec3};
use crate::narrowphase::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use crate::parallel::ScatterPart;
use crate::simd::f32x8::{self, OnLanes};

const P: usize = MAX_MANIFOLD_POINTS;

/// What recycling fills, per contact of a run: the contact the rows are built from and its
/// points' B-side lever-arm ends (world); and where its kept points are: its slot in the
/// warm-start cache's pool, which holds them from last step when the pair had an entry (a
/// reused contact leaves them there) and is written when the contact is made again.
pub(super) struct Slots<'a> {
    pub out: &'a mut [Contact],
    pub arm_b: &'a mut [[Vec3; P]],
    /// Per contact, its slot in the pool; no two contacts (of any run) share one.
    pub pool: ScatterPart<'a, [Kept; P]>,
}

/// Up to eight contacts' kept points, one contact per lane.
#[derive(Clone, Copy)]
struct Inputs<'a> {
    /// Per lane, its bodies' poses (`Solver::poses`: rotation x, y, z, w, translation x, y, z,
    /// 0), read with 8×8 transposes (zeros for a lane without a kept contact).
    pose_a: [Option<&'a [f32; 8]>; W],
    pose_b: [Option<&'a [f32; 8]>; W],
    /// The narrow phase's normal.
    normal: V3<F>,
    /// Per point, 1 where the narrow phase's manifold has it, else 0.
    real: [F; P],
    /// Per lane, its contact's kept points (zeros for a lane without one), read with 8×8
    /// transposes.
    kept: [Option<&'a [Kept; P]>; W],
}

impl Default for Inputs<'_> {
    fn default() -> Self {
        Inputs {
            pose_a: [None; W],
            pose_b: [None; W],
            normal: Default::default(),
            real: Default::default(),
            kept: [None; W],
        }
    }
}

/// What the lanes give back, per lane and point (stored with 8×8 transposes): the lever-arm ends,
/// the depth along the kept normal, and 1 where the point has left the tolerances (else 0); and
/// per lane the kept normal (world, as it was made), whether the contact may be kept (its normal
/// within [`RECYCLE_COS`] of the narrow phase's, A turned less than [`RECYCLE_TURN_COS`] allows and
/// every point within the tolerances) and its deepest point's depth.
#[derive(Clone, Copy, Default)]
struct Outputs {
    rows: [[Row; P]; W],
    n: V3<F>,
    /// Bit i: lane i's contact may be kept.
    keep: u32,
    deepest: F,
}

/// One point of one lane's output.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
struct Row([f32; 8]);

impl Row {
    /// The lever-arm end on A.
    fn ea(&self) -> Vec3 {
        Vec3::new(self.0[0], self.0[1], self.0[2])
    }
    /// The lever-arm end on B.
    fn eb(&self) -> Vec3 {
        Vec3::new(self.0[3], self.0[4], self.0[5])
    }
    /// The depth along the kept normal.
    fn depth(&self) -> f32 {
        self.0[6]
    }
    /// 1 where the point has left the tolerances, else 0.
    #[cfg(test)]
    fn far(&self) -> f32 {
        self.0[7]
    }
}

#[inline(always)]
fn check<L: Lane>(inp: &Inputs, o: &mut Outputs) {
    let (pa, pb) = (load8::<L, _>(inp.pose_a, 0), load8::<L, _>(inp.pose_b, 0));
    let (qa, qb) = ([pa[0], pa[1], pa[2], pa[3]], [pb[0], pb[1], pb[2], pb[3]]);
    let (xa, xb) = (V3 { x: pa[4], y: pa[5], z: pa[6] }, V3 { x: pb[4], y: pb[5], z: pb[6] });
    let (zero, one, limit) = (L::splat(0.0), L::splat(1.0), L::splat(RECYCLE_DISTANCE * RECYCLE_DISTANCE));
    let v = |x, y, z| V3 { x, y, z };
    // The kept normal (point 0's floats 12–14), in world space as it was made: it does not turn
    // with A, as the lever arms do not, so a support's spurious tilt pushes nothing sideways
    // (docs/dynamics.md, *Contact recycling*). Point 1's floats 12–14 hold it in A's frame:
    // turned with A, it says how far A turned since, which must stay within
    // [`RECYCLE_TURN_COS`]. A lane with nothing kept has zero normals, and so fails both tests.
    let (n0, n1) = (load8::<L, _>(inp.kept, 7), load8::<L, _>(inp.kept, 15 + 7));
    let n = v(n0[5], n0[6], n0[7]);
    let turned = v(n1[5], n1[6], n1[7]).rotated(&qa);
    // Bit i: lane i's normals are within the angles (clear for NaN, as `>=` would be false).
    let aligned =
        L::splat(RECYCLE_COS).le_bits(n.dot(inp.normal.load())) & L::splat(RECYCLE_TURN_COS).le_bits(turned.dot(n));
    // Per lane, how many of its points left the tolerances.
    let mut out = zero;
    let mut deepest = L::splat(Real::NEG_INFINITY);
    for k in 0..P {
        // Floats 0–7 and 7–14 of each lane's point k (`Kept` is `repr(C)`: anchor_a, anchor_b,
        // arm_a, arm_b, normal).
        let (lo, hi) = (load8::<L, _>(inp.kept, 15 * k), load8::<L, _>(inp.kept, 15 * k + 7));
        let (anchor_a, anchor_b) = (v(lo[0], lo[1], lo[2]), v(lo[3], lo[4], lo[5]));
        let (arm_a, arm_b) = (v(lo[6], hi[0], hi[1]), v(hi[2], hi[3], hi[4]));
        let pa = xa + anchor_a.rotated(&qa);
        let pb = xb + anchor_b.rotated(&qb);
        let (ea, eb) = (xa + arm_a, xb + arm_b);
        let gap = pa - pb;
        let depth = gap.dot(n);
        let (da, db, slide) = (pa - ea, pb - eb, gap - n.scale(depth));
        let far = da.dot(da).gt_select(limit, one, zero)
            + db.dot(db).gt_select(limit, one, zero)
            + slide.dot(slide).gt_select(limit, one, zero);
        // Only the narrow phase's points count (the kept contact has as many).
        let real = L::load(&inp.real[k]);
        out += real.gt_select(zero, far, zero);
        deepest = real.gt_select(zero, depth.max(deepest), deepest);
        store8([ea.x, ea.y, ea.z, eb.x, eb.y, eb.z, depth, far], o.rows.each_mut().map(|r| &mut r[k].0));
    }
    n.x.store(&mut o.n.x);
    n.y.store(&mut o.n.y);
    n.z.store(&mut o.n.z);
    o.keep = aligned & out.le_bits(zero);
    deepest.store(&mut o.deepest);
}

/// [`check`] on the lanes `isa` names (for the tests: the runs check within `run_on`).
#[cfg(test)]
fn check_on(isa: Isa, inp: &Inputs, o: &mut Outputs) {
    struct Code<'a, 'i>(&'a Inputs<'i>, &'a mut Outputs);
    impl OnLanes for Code<'_, '_> {
        type Out = ();
        fn run<L: Lane>(self) {
            check::<L>(self.0, self.1)
        }
    }
    f32x8::run(isa.avx(), Code(inp, o))
}

/// Recycles contacts `contacts` (whose entries in last step's cache `entries` are `warm`) into
/// `slots`, eight at a time. `poses` holds each body's pose as eight floats (`Solver::poses`).
pub(super) fn run(
    isa: Isa,
    bodies: &[Body],
    poses: &[[f32; 8]],
    contacts: &[Contact],
    warm: &[u32],
    entries: &[CacheEntry],
    slots: Slots,
) {
    struct Code<'a>(&'a [Body], &'a [[f32; 8]], &'a [Contact], &'a [u32], &'a [CacheEntry], Slots<'a>);
    impl OnLanes for Code<'_> {
        type Out = ();
        #[inline(always)]
        fn run<L: Lane>(self) {
            run_on::<L>(self.0, self.1, self.2, self.3, self.4, self.5)
        }
    }
    // Compiled for AVX as a whole, the lanes eight to an instruction. No fused multiply-add,
    // so the scalar arithmetic has the same bits.
    f32x8::run(isa.avx(), Code(bodies, poses, contacts, warm, entries, slots))
}

#[inline(always)]
fn run_on<L: Lane>(
    bodies: &[Body],
    poses: &[[f32; 8]],
    contacts: &[Contact],
    warm: &[u32],
    entries: &[CacheEntry],
    slots: Slots,
) {
    let mut o = Outputs::default();
    let Slots { out, arm_b, mut pool } = slots;
    for (start, chunk) in (0..contacts.len()).step_by(W).zip(contacts.chunks(W)) {
        // Which lanes hold a kept contact that passes the checks that need no lanes.
        let mut candidate = [false; W];
        let mut inp = Inputs::default();
        for (i, c) in chunk.iter().enumerate() {
            let w = warm[start + i];
            if w == u32::MAX {
                continue;
            }
            let old = &entries[w as usize].1;
            let len = c.manifold.len();
            candidate[i] = len != 0 && old.get(len).is_none_or(|p| p.id == u32::MAX) && old[len - 1].id != u32::MAX;
            if !candidate[i] {
                continue;
            }
            inp.pose_a[i] = Some(&poses[c.a as usize]);
            inp.pose_b[i] = Some(&poses[c.b as usize]);
            put(&mut inp.normal, i, c.manifold.normal);
            for (k, r) in inp.real.iter_mut().enumerate() {
                r.0[i] = if k < len { 1.0 } else { 0.0 };
            }
            inp.kept[i] = Some(pool.get(start + i));
        }
        if candidate.iter().any(|&c| c) {
            check::<L>(&inp, &mut o);
        }
        for (i, c) in chunk.iter().enumerate() {
            let m = start + i;
            let (out, arm_b) = (&mut out[m], &mut arm_b[m]);
            if candidate[i] && reuse(c, i, &o, &entries[warm[m] as usize], out, arm_b) {
                continue;
            }
            remake(bodies, c, out, arm_b, pool.get_mut(m));
        }
    }
}

/// Lane `i`'s kept contact (whose cache entry is `entry`) as the contact the rows are built
/// from, if its normal and every point stayed within the tolerances and the narrow phase finds
/// nothing deeper than it does. Its kept points stay as they are, in their slot (points past
/// the count are zero there already).
#[inline(always)]
fn reuse(c: &Contact, i: usize, o: &Outputs, entry: &CacheEntry, out: &mut Contact, arm_b: &mut [Vec3; P]) -> bool {
    if o.keep & (1 << i) == 0 {
        return false;
    }
    // A deeper point than any kept one is a feature the kept contact does not hold (a turning
    // capsule's other end): rows on the kept anchors would let it sink.
    if c.manifold.max_depth() > o.deepest.0[i] + RECYCLE_DEPTH {
        return false;
    }
    let len = c.manifold.len();
    let rows = &o.rows[i][..len];
    let old = &entry.1;
    let n = Vec3::new(o.n.x.0[i], o.n.y.0[i], o.n.z.0[i]);
    out.a = c.a;
    out.b = c.b;
    out.manifold = Manifold::new(n);
    for (k, (p, r)) in old[..len].iter().zip(rows).enumerate() {
        out.manifold.push(ContactPoint { point: r.ea(), depth: r.depth(), id: p.id });
        arm_b[k] = r.eb();
    }
    arm_b[len..].fill(Vec3::ZERO);
    true
}

/// The narrow phase's contact as the one the rows are built from, kept from now on: each point's
/// anchor on A's surface and on B's (the point ± depth/2 along the normal) in its body's frame,
/// its lever arms and the normal in world space, and the normal in A's frame (point 1's).
#[inline(always)]
fn remake(bodies: &[Body], c: &Contact, out: &mut Contact, arm_b: &mut [Vec3; P], kept: &mut [Kept; P]) {
    let (a, b) = (&bodies[c.a as usize].pose, &bodies[c.b as usize].pose);
    let (xa, xb) = (a.translation, b.translation);
    let pts = c.manifold.points();
    let n = c.manifold.normal;
    let (ia, ib) = (a.rotation.inverse(), b.rotation.inverse());
    for (k, p) in pts.iter().enumerate() {
        let (pa, pb) = (p.point + n * (0.5 * p.depth), p.point - n * (0.5 * p.depth));
        arm_b[k] = p.point;
        kept[k] = Kept {
            anchor_a: ia * (pa - xa),
            anchor_b: ib * (pb - xb),
            arm_a: p.point - xa,
            arm_b: p.point - xb,
            normal: n,
        };
    }
    arm_b[pts.len()..].fill(Vec3::ZERO);
    kept[pts.len()..].fill(Kept::default());
    // Point 1's normal holds the normal in A's frame (whatever the point count), to tell how far
    // A turned since. Nothing is kept of a contact without points (all zero).
    if !pts.is_empty() {
        kept[1].normal = ia * n;
    }
    *out = *c;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// The lanes give glam's bits for every point (lever-arm ends, depth) and for the turned
    /// normal, the same verdict on each tolerance, and per contact the scalar code's verdict
    /// (normal within the angle, every real point within the tolerances) and deepest depth, on
    /// both code paths, with contacts of one to four points on both sides of the tolerances.
    #[test]
    fn lanes_match_glam_point_for_point() {
        let mut rng = SplitMix64::new(15);
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        if crate::simd::avx() {
            isas.push(Isa::Avx);
        }
        let limit = RECYCLE_DISTANCE * RECYCLE_DISTANCE;
        let (mut near, mut far, mut kept_lanes, mut dropped_lanes) = (0, 0, 0, 0);
        let (mut little_turn, mut large_turn) = (0, 0);
        for case in 0..500 {
            let mut inp = Inputs::default();
            let mut kept = [[Kept::default(); P]; W];
            let mut poses = [[[0.0f32; 8]; 2]; W];
            let mut expect = [[(Vec3::ZERO, Vec3::ZERO, 0.0, false); P]; W];
            let mut lane_expect = [(Vec3::ZERO, false, Real::NEG_INFINITY); W];
            for (i, lane) in expect.iter_mut().enumerate() {
                let (qa, qb) = (rng.rotation(), rng.rotation());
                let (xa, xb) = (rng.vec3(-50.0, 50.0), rng.vec3(-50.0, 50.0));
                poses[i] = [qa, qb].map(|q| q.to_array()).map(|q| [q[0], q[1], q[2], q[3], 0.0, 0.0, 0.0, 0.0]);
                for (p, x) in poses[i].iter_mut().zip([xa, xb]) {
                    p[4..7].copy_from_slice(&x.to_array());
                }
                // The kept normal, world space, and in A's frame turned up to about 0.8° from it
                // (A's turn since the contact was made).
                let local_n = rng.unit_vector();
                let turned = qa * local_n;
                let n = (turned + rng.vec3(-0.008, 0.008)).normalize();
                // The narrow phase's normal up to about 8° from the kept one.
                let narrow_n = (n + rng.vec3(-0.08, 0.08)).normalize();
                put(&mut inp.normal, i, narrow_n);
                let len = 1 + (rng.next_u64() % P as u64) as usize;
                let mut all_near = true;
                let mut deepest = Real::NEG_INFINITY;
                for (k, slot) in lane.iter_mut().enumerate() {
                    inp.real[k].0[i] = if k < len { 1.0 } else { 0.0 };
                    // B's anchor near A's (a contact), slid along the plane by up to about 1 cm.
                    let anchor_a = rng.vec3(-0.5, 0.5);
                    let on_b = xa + qa * anchor_a + n * rng.range(-0.01, 0.01) + rng.vec3(-0.006, 0.006);
                    let anchor_b = qb.inverse() * (on_b - xb);
                    let arm_a = qa * anchor_a + rng.vec3(-0.008, 0.008);
                    let arm_b = qb * anchor_b + rng.vec3(-0.008, 0.008);
                    kept[i][k] = Kept { anchor_a, anchor_b, arm_a, arm_b, normal: n };
                    // As the scalar code computes it one contact at a time.
                    let (pa, pb) = (xa + qa * anchor_a, xb + qb * anchor_b);
                    let (ea, eb) = (xa + arm_a, xb + arm_b);
                    let gap = pa - pb;
                    let depth = gap.dot(n);
                    let out = (pa - ea).length_squared() > limit
                        || (pb - eb).length_squared() > limit
                        || (gap - n * depth).length_squared() > limit;
                    *slot = (ea, eb, depth, out);
                    if k < len {
                        all_near &= !out;
                        deepest = deepest.max(depth);
                        if out { far += 1 } else { near += 1 }
                    }
                }
                kept[i][1].normal = local_n;
                let (aligned, unturned) = (n.dot(narrow_n) >= RECYCLE_COS, turned.dot(n) >= RECYCLE_TURN_COS);
                if unturned {
                    little_turn += 1
                } else {
                    large_turn += 1
                }
                lane_expect[i] = (n, all_near && aligned && unturned, deepest);
            }
            for (i, (p, k)) in inp.kept.iter_mut().zip(&kept).enumerate() {
                *p = Some(k);
                inp.pose_a[i] = Some(&poses[i][0]);
                inp.pose_b[i] = Some(&poses[i][1]);
            }
            // A lane with nothing kept is never kept.
            let empty = case % W;
            inp.kept[empty] = None;
            for &isa in &isas {
                let mut o = Outputs::default();
                check_on(isa, &inp, &mut o);
                let bits = |v: Vec3| v.to_array().map(f32::to_bits);
                for (i, e) in expect.iter().enumerate() {
                    let keep = o.keep & (1 << i) != 0;
                    if i == empty {
                        assert!(!keep, "case {case}, lane {i}, {isa:?}: an empty lane kept");
                        continue;
                    }
                    let (n, want_keep, deepest) = lane_expect[i];
                    let got_n = Vec3::new(o.n.x.0[i], o.n.y.0[i], o.n.z.0[i]);
                    assert!(
                        bits(got_n) == bits(n) && keep == want_keep && o.deepest.0[i] == deepest,
                        "case {case}, lane {i}, {isa:?}: normal, verdict, deepest {:?} against {:?}",
                        (got_n, keep, o.deepest.0[i]),
                        lane_expect[i]
                    );
                    if isa == isas[0] {
                        if keep { kept_lanes += 1 } else { dropped_lanes += 1 }
                    }
                    for (k, &(ea, eb, depth, out)) in e.iter().enumerate() {
                        let r = o.rows[i][k];
                        let got = (r.ea(), r.eb(), r.depth(), r.far() != 0.0);
                        assert!(
                            bits(got.0) == bits(ea)
                                && bits(got.1) == bits(eb)
                                && got.2.to_bits() == depth.to_bits()
                                && got.3 == out,
                            "case {case}, lane {i}, point {k}, {isa:?}: {got:?} against {:?}",
                            (ea, eb, depth, out)
                        );
                    }
                }
            }
        }
        assert!(near > 1000 && far > 1000, "{near} points within the tolerances, {far} past them");
        assert!(kept_lanes > 200 && dropped_lanes > 200, "{kept_lanes} contacts kept, {dropped_lanes} dropped");
        assert!(little_turn > 200 && large_turn > 200, "A turned little in {little_turn} lanes, more in {large_turn}");
    }
}
