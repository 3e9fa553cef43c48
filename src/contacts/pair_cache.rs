//! The body-pair cache (after Jolt's `mBodyPairCacheMaxDeltaPositionSq` and
//! `mBodyPairCacheCosMaxDeltaRotationDiv2`): a pair's narrow-phase result, kept in the two
//! bodies' frames with the pose of B relative to A at the time it was made, is reused while no
//! point of B has moved more than `Settings::pair_cache_distance` relative to A (and B has turned
//! at most [`PAIR_CACHE_MAX_TURN`] relative to A), instead of running the narrow phase again.
//!
//! The narrow phase's answer depends only on where B is relative to A, so while that changes by
//! at most d at every point of B, a reused manifold differs from a fresh one by at most about d
//! in its points and depths, except where a feature lies within d of appearing or vanishing (a
//! box about to roll onto an edge, a point at the edge of the speculative margin): such a
//! feature is late by at most d of relative motion, after which the pair is tested afresh.

use crate::math::{Pose, Quat, Real, Vec3};
use crate::narrowphase::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use crate::simd::f32x8::{Portable, V3};
use glam::Vec3A;

/// Sine of half the largest turn of B relative to A (2°, Jolt's default) over which a pair's
/// cached manifold is reused, whatever the size of B.
pub const PAIR_CACHE_MAX_TURN: Real = 0.017_452_406;

/// One point of a cached manifold: where it lies on each body's surface, in that body's frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CachedPoint {
    /// The point on A's surface (the point + depth/2 along the normal), in A's frame.
    pub on_a: Vec3,
    /// The point on B's surface (the point − depth/2 along the normal), in B's frame.
    pub on_b: Vec3,
    /// The feature id.
    pub id: u32,
}

/// A pair's last narrow-phase result and the relative pose it was made at.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairEntry {
    /// The pair, A's index first.
    pub pair: (u32, u32),
    /// B's origin in A's frame when the manifold was made.
    pub offset: Vec3,
    /// B's rotation relative to A's then.
    pub turn: Quat,
    /// The normal in A's frame (any value when there are no points).
    pub normal: Vec3,
    /// How many points (0: the narrow phase found no contact).
    pub len: u8,
    /// May be reused (false: a pair the cache does not serve, such as one with reach).
    pub valid: bool,
    /// The points.
    pub points: [CachedPoint; MAX_MANIFOLD_POINTS],
}

impl PairEntry {
    /// An entry that is never reused.
    pub fn invalid(pair: (u32, u32)) -> Self {
        PairEntry {
            pair,
            offset: Vec3::ZERO,
            turn: Quat::IDENTITY,
            normal: Vec3::ZERO,
            len: 0,
            valid: false,
            points: [CachedPoint::default(); MAX_MANIFOLD_POINTS],
        }
    }

    /// The narrow phase's manifold `m` (or none) for bodies at `a` and `b`, kept in their frames.
    pub fn new(pair: (u32, u32), a: &Pose, b: &Pose, m: Option<&Manifold>) -> Self {
        let ia = a.rotation.inverse();
        let ib = b.rotation.inverse();
        let mut e = PairEntry {
            offset: ia * (b.translation - a.translation),
            turn: ia * b.rotation,
            valid: true,
            ..PairEntry::invalid(pair)
        };
        if let Some(m) = m {
            let n = m.normal;
            e.normal = ia * n;
            e.len = m.len() as u8;
            for (c, p) in e.points.iter_mut().zip(m.points()) {
                let half = n * (0.5 * p.depth);
                *c = CachedPoint {
                    on_a: ia * (p.point + half - a.translation),
                    on_b: ib * (p.point - half - b.translation),
                    id: p.id,
                };
            }
        }
        e
    }

    /// Whether B, of bounding radius `radius_b` about its origin, is still within `distance`
    /// (at every point) and [`PAIR_CACHE_MAX_TURN`] of where it was relative to A when the entry
    /// was made.
    pub fn holds(&self, a: &Pose, b: &Pose, radius_b: Real, distance: Real) -> bool {
        if !self.valid {
            return false;
        }
        let ia = a.rotation.inverse();
        // In SIMD-width vectors: the same operations as `Vec3`'s, lane by lane, so the same
        // bits (`Quat * Vec3` is `mul_vec3a` itself).
        let shift = ia.mul_vec3a(Vec3A::from(b.translation) - Vec3A::from(a.translation));
        let moved = (shift - Vec3A::from(self.offset)).length();
        let turn = self.turn.inverse() * (ia * b.rotation);
        within(moved, turn, radius_b, distance)
    }

    /// [`PairEntry::holds`] seen from B: whether A, of bounding radius `radius_a` about its
    /// origin, is still within `distance` (at every point) and [`PAIR_CACHE_MAX_TURN`] of where
    /// it was relative to B (for a pair whose B is a mesh, far larger than A, whose parts far
    /// from A swing through any turn).
    pub fn holds_for_a(&self, a: &Pose, b: &Pose, radius_a: Real, distance: Real) -> bool {
        if !self.valid {
            return false;
        }
        // A's origin in B's frame, then and now: the kept relative pose inverted.
        let was = -(self.turn.inverse() * self.offset);
        let now = b.rotation.inverse() * (a.translation - b.translation);
        // The same turn as seen from A, so the same angle.
        let turn = self.turn.inverse() * (a.rotation.inverse() * b.rotation);
        within((now - was).length(), turn, radius_a, distance)
    }

    /// The cached manifold at the bodies' poses now: the normal turned with A, each point
    /// midway between its two surface points, its depth their separation along the normal.
    /// `None` when the narrow phase found no contact.
    pub fn manifold(&self, a: &Pose, b: &Pose) -> Option<Manifold> {
        if self.len == 0 {
            return None;
        }
        let n = a.rotation * self.normal;
        let mut m = Manifold::new(n);
        for c in &self.points[..self.len as usize] {
            let pa = a.translation + a.rotation * c.on_a;
            let pb = b.translation + b.rotation * c.on_b;
            m.push(ContactPoint { point: 0.5 * (pa + pb), depth: (pa - pb).dot(n), id: c.id });
        }
        Some(m)
    }
}

/// Whether a body moved by `moved` at its origin and turned by `turn` (relative to the other)
/// stays within `distance` at every point up to `radius` from its origin: the turn's vector
/// part's length is sin(angle / 2), and a point at r from the origin moves by 2 sin(angle / 2) r
/// through it.
fn within(moved: Real, turn: Quat, radius: Real, distance: Real) -> bool {
    let s = Vec3::new(turn.x, turn.y, turn.z).length();
    s <= PAIR_CACHE_MAX_TURN && moved + 2.0 * s * radius <= distance
}

/// [`BodyInfo::kinds`]: a mesh (triangle mesh or height field).
pub(crate) const MESH: u8 = 1;
/// [`BodyInfo::kinds`]: a compound.
pub(crate) const COMPOUND: u8 = 2;
/// [`BodyInfo::kinds`]: its contacts may reach as far as it can move this step, or as far as
/// what it meets can push it (`NarrowInput::reach`, `ContactStore`'s `pushed`): each of its pairs
/// is then weighed for reach by how far that pair can close (`PairTest::process_pair`).
pub(crate) const REACH: u8 = 4;
/// [`BodyInfo::kinds`]: the time-of-impact pass sweeps it this step (`ccd::needs_ccd`). The pass
/// leaves a pair that already touches to the contacts, so such a pair gets reach
/// (`PairTest::process_pair`).
pub(crate) const SWEPT: u8 = 8;

/// What a body's pairs' tests depend on, made once a step for each body, so that each pair
/// reads two of these instead of both bodies' shapes and their reach.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BodyInfo {
    /// [`MESH`], [`COMPOUND`], [`REACH`] and [`SWEPT`].
    pub kinds: u8,
    /// The shape's bounding radius about the body's origin.
    pub radius: Real,
    /// How far its turn in the step moves its farthest point ([`crate::ccd::spin_reach`]),
    /// for its pairs with reach.
    pub spin: Real,
}

impl BodyInfo {
    /// `spin` is the body's [`crate::ccd::spin_reach`] this step; `swept`, whether the
    /// time-of-impact pass sweeps it.
    pub(crate) fn new(b: &crate::dynamics::Body, (reach, swept): (bool, bool), pushed: Real, spin: Real) -> Self {
        let reach = reach || pushed > 0.0;
        let kinds = (b.shape.is_mesh() as u8 * MESH)
            | (b.shape.is_compound() as u8 * COMPOUND)
            | (reach as u8 * REACH)
            | (swept as u8 * SWEPT);
        BodyInfo { kinds, radius: b.shape.bounding_radius(), spin }
    }
}

/// Lanes a [`Rebuild`] and a [`Make`] hold.
const LANES: usize = crate::simd::f32x8::W;

/// The manifolds of reused entries, rebuilt eight at a time (`PairEntry::manifold`'s arithmetic,
/// glam's quaternion rotation operation for operation, one entry per lane of plain arrays the
/// compiler vectorises: the same bits). Each waits in its slot of the contacts as a placeholder
/// until its batch is full or the run ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct Rebuild {
    len: usize,
    /// Per lane: the slot of the contacts to fill, the point count and the feature ids.
    slot: [usize; LANES],
    count: [u8; LANES],
    ids: [[u32; MAX_MANIFOLD_POINTS]; LANES],
    /// A's and B's rotations (x, y, z, w) and translations, per lane.
    qa: [[Real; LANES]; 4],
    qb: [[Real; LANES]; 4],
    ta: [[Real; LANES]; 3],
    tb: [[Real; LANES]; 3],
    /// The normal in A's frame.
    normal: [[Real; LANES]; 3],
    on_a: [[[Real; LANES]; 3]; MAX_MANIFOLD_POINTS],
    on_b: [[[Real; LANES]; 3]; MAX_MANIFOLD_POINTS],
}

type Lanes3 = [[Real; LANES]; 3];

/// `q * v` per lane as glam computes it: [`V3::rotated`] on plain lanes.
#[inline(always)]
fn rotate(q: &[[Real; LANES]; 4], v: &Lanes3) -> Lanes3 {
    let r = V3 { x: Portable(v[0]), y: Portable(v[1]), z: Portable(v[2]) }.rotated(&q.map(Portable));
    [r.x.0, r.y.0, r.z.0]
}

impl Rebuild {
    /// Queues entry `e` (with points) for bodies at `a` and `b`, its manifold to go to slot
    /// `slot`; true when the batch is full.
    pub(crate) fn push(&mut self, slot: usize, e: &PairEntry, a: &Pose, b: &Pose) -> bool {
        let i = self.len;
        self.slot[i] = slot;
        self.count[i] = e.len;
        for (q, x) in self.qa.iter_mut().zip(a.rotation.to_array()) {
            q[i] = x;
        }
        for (q, x) in self.qb.iter_mut().zip(b.rotation.to_array()) {
            q[i] = x;
        }
        for (c, (ta, tb)) in self.ta.iter_mut().zip(&mut self.tb).enumerate() {
            ta[i] = a.translation[c];
            tb[i] = b.translation[c];
            self.normal[c][i] = e.normal[c];
        }
        // Every slot, past the count too (their lanes are computed and not written): a
        // straight run of copies, without a branch per point.
        for (k, p) in e.points.iter().enumerate() {
            self.ids[i][k] = p.id;
            for c in 0..3 {
                self.on_a[k][c][i] = p.on_a[c];
                self.on_b[k][c][i] = p.on_b[c];
            }
        }
        self.len += 1;
        self.len == LANES
    }

    /// Writes the queued manifolds into their slots of `out` and empties the batch.
    pub(crate) fn finish<T>(&mut self, out: &mut [T], manifold: impl Fn(&mut T) -> &mut Manifold) {
        self.finish_with(rebuilt, out, manifold)
    }

    /// [`Rebuild::finish`], with the lanes' arithmetic `rebuilt` (one copy of
    /// [`Rebuild::rebuilt`]).
    fn finish_with<T>(
        &mut self,
        rebuilt: fn(&Rebuild) -> Rebuilt,
        out: &mut [T],
        manifold: impl Fn(&mut T) -> &mut Manifold,
    ) {
        if self.len == 0 {
            return;
        }
        let r = rebuilt(self);
        let Rebuilt { n, point, depth } = &r;
        for i in 0..self.len {
            // Every slot at once (those past the count empty, as `Manifold::new` leaves them),
            // written in one go.
            let count = self.count[i] as usize;
            let slots = std::array::from_fn(|k| match k < count {
                true => ContactPoint {
                    point: Vec3::new(point[k][0][i], point[k][1][i], point[k][2][i]),
                    depth: depth[k][i],
                    id: self.ids[i][k],
                },
                false => ContactPoint::default(),
            });
            *manifold(&mut out[self.slot[i]]) =
                Manifold::from_slots(Vec3::new(n[0][i], n[1][i], n[2][i]), slots, count);
        }
        self.len = 0;
    }

    /// The lanes' normals, points and depths (`PairEntry::manifold`'s arithmetic).
    #[inline(always)]
    fn rebuilt(&self) -> Rebuilt {
        let n = rotate(&self.qa, &self.normal);
        let mut point = [[[0.0; LANES]; 3]; MAX_MANIFOLD_POINTS];
        let mut depth = [[0.0; LANES]; MAX_MANIFOLD_POINTS];
        for k in 0..MAX_MANIFOLD_POINTS {
            let (ra, rb) = (rotate(&self.qa, &self.on_a[k]), rotate(&self.qb, &self.on_b[k]));
            for i in 0..LANES {
                let pa: [Real; 3] = std::array::from_fn(|c| self.ta[c][i] + ra[c][i]);
                let pb: [Real; 3] = std::array::from_fn(|c| self.tb[c][i] + rb[c][i]);
                for c in 0..3 {
                    point[k][c][i] = 0.5 * (pa[c] + pb[c]);
                }
                let g: [Real; 3] = std::array::from_fn(|c| pa[c] - pb[c]);
                depth[k][i] = g[0] * n[0][i] + g[1] * n[1][i] + g[2] * n[2][i];
            }
        }
        Rebuilt { n, point, depth }
    }
}

crate::simd::compiled_twice! {
    /// A batch's rebuilt manifolds, in the copy the CPU runs best: in the x86-64-v3 copy eight
    /// lanes to an instruction instead of four, the same operations in the same order (no fused
    /// multiply-add), so the same bits.
    fn rebuilt(r: &Rebuild) -> Rebuilt = Rebuild::rebuilt, rebuilt_v3;
}

/// `l * r` per lane as glam computes it (SSE2 `Quat::mul_quat`, after rtm's `quat_mul`): two
/// products of a splatted component of `l` and a shuffle of `r`, each with its sign pattern,
/// summed as `(x-term + w-term) + (z-term + y-term)`.
#[inline(always)]
fn quat_mul(l: &[[Real; LANES]; 4], r: &[[Real; LANES]; 4]) -> [[Real; LANES]; 4] {
    let mut out = [[0.0; LANES]; 4];
    for i in 0..LANES {
        let (lx, ly, lz, lw) = (l[0][i], l[1][i], l[2][i], l[3][i]);
        let (rx, ry, rz, rw) = (r[0][i], r[1][i], r[2][i], r[3][i]);
        let w_term = [lw * rx, lw * ry, lw * rz, lw * rw];
        let x_term = [lx * rw, -(lx * rz), lx * ry, -(lx * rx)];
        let y_term = [ly * rz, ly * rw, -(ly * rx), -(ly * ry)];
        let z_term = [-(lz * ry), lz * rx, lz * rw, -(lz * rz)];
        for c in 0..4 {
            out[c][i] = (x_term[c] + w_term[c]) + (z_term[c] + y_term[c]);
        }
    }
    out
}

/// The entries of tested pairs, made eight at a time (`PairEntry::new`'s arithmetic, glam's
/// quaternion operations operation for operation, one entry per lane of plain arrays the
/// compiler vectorises: the same bits). Each waits for its slot of the entries until its batch
/// is full or the run ends.
#[derive(Clone, Debug, Default)]
pub(crate) struct Make {
    len: usize,
    /// Per lane: the slot of the entries to fill, the pair, the point count and the ids.
    slot: [usize; LANES],
    pair: [(u32, u32); LANES],
    count: [u8; LANES],
    ids: [[u32; MAX_MANIFOLD_POINTS]; LANES],
    /// A's and B's rotations (x, y, z, w) and translations.
    qa: [[Real; LANES]; 4],
    qb: [[Real; LANES]; 4],
    ta: Lanes3,
    tb: Lanes3,
    /// The manifold's normal, and per point its position and depth.
    normal: Lanes3,
    point: [Lanes3; MAX_MANIFOLD_POINTS],
    depth: [[Real; LANES]; MAX_MANIFOLD_POINTS],
}

/// A batch's made lanes, in A's frame (B's for `on_b`).
struct Made {
    offset: Lanes3,
    turn: [[Real; LANES]; 4],
    normal: Lanes3,
    on_a: [Lanes3; MAX_MANIFOLD_POINTS],
    on_b: [Lanes3; MAX_MANIFOLD_POINTS],
}

impl Make {
    /// Queues the entry of `pair` for bodies at `a` and `b` with the narrow phase's manifold
    /// `m` (or none), to go to slot `slot` (then see [`Make::is_full`]).
    pub(crate) fn push(&mut self, slot: usize, pair: (u32, u32), a: &Pose, b: &Pose, m: Option<&Manifold>) {
        let i = self.len;
        self.slot[i] = slot;
        self.pair[i] = pair;
        for (q, (x, y)) in
            self.qa.iter_mut().zip(&mut self.qb).zip(a.rotation.to_array().into_iter().zip(b.rotation.to_array()))
        {
            (q.0[i], q.1[i]) = (x, y);
        }
        for c in 0..3 {
            self.ta[c][i] = a.translation[c];
            self.tb[c][i] = b.translation[c];
        }
        self.count[i] = 0;
        if let Some(m) = m {
            self.count[i] = m.len() as u8;
            for c in 0..3 {
                self.normal[c][i] = m.normal[c];
            }
            for (k, p) in m.points().iter().enumerate() {
                self.ids[i][k] = p.id;
                self.depth[k][i] = p.depth;
                for c in 0..3 {
                    self.point[k][c][i] = p.point[c];
                }
            }
        }
        self.len += 1;
    }

    /// Whether the batch is full (then [`Make::finish`] it).
    pub(crate) fn is_full(&self) -> bool {
        self.len == LANES
    }

    /// Writes the queued entries into their slots of `out` and empties the batch.
    pub(crate) fn finish(&mut self, out: &mut [PairEntry]) {
        self.finish_with(made, out)
    }

    /// [`Make::finish`], with the lanes' arithmetic `made` (one copy of [`Make::made`]).
    fn finish_with(&mut self, made: fn(&Make) -> Made, out: &mut [PairEntry]) {
        if self.len == 0 {
            return;
        }
        let r = made(self);
        let lane3 = |v: &Lanes3, i: usize| Vec3::new(v[0][i], v[1][i], v[2][i]);
        for i in 0..self.len {
            let n = self.count[i] as usize;
            // Field by field, in place: a whole entry would be copied by a call to `memcpy`.
            let e = &mut out[self.slot[i]];
            e.pair = self.pair[i];
            e.offset = lane3(&r.offset, i);
            e.turn = Quat::from_xyzw(r.turn[0][i], r.turn[1][i], r.turn[2][i], r.turn[3][i]);
            e.normal = if n > 0 { lane3(&r.normal, i) } else { Vec3::ZERO };
            e.len = n as u8;
            e.valid = true;
            for (k, c) in e.points.iter_mut().enumerate() {
                *c = match k < n {
                    true => CachedPoint { on_a: lane3(&r.on_a[k], i), on_b: lane3(&r.on_b[k], i), id: self.ids[i][k] },
                    false => CachedPoint::default(),
                };
            }
        }
        self.len = 0;
    }

    /// The lanes' entries (`PairEntry::new`'s arithmetic; lanes without points compute
    /// values that are not written).
    #[inline(always)]
    fn made(&self) -> Made {
        // The inverses: the conjugates, exact.
        let inverse = |q: &[[Real; LANES]; 4]| [q[0].map(|x| -x), q[1].map(|x| -x), q[2].map(|x| -x), q[3]];
        let (ia, ib) = (inverse(&self.qa), inverse(&self.qb));
        let d: Lanes3 = std::array::from_fn(|c| std::array::from_fn(|i| self.tb[c][i] - self.ta[c][i]));
        let n = &self.normal;
        let mut on_a = [[[0.0; LANES]; 3]; MAX_MANIFOLD_POINTS];
        let mut on_b = [[[0.0; LANES]; 3]; MAX_MANIFOLD_POINTS];
        for k in 0..MAX_MANIFOLD_POINTS {
            let (p, depth) = (&self.point[k], &self.depth[k]);
            let half: Lanes3 = std::array::from_fn(|c| std::array::from_fn(|i| n[c][i] * (0.5 * depth[i])));
            let va: Lanes3 = std::array::from_fn(|c| std::array::from_fn(|i| p[c][i] + half[c][i] - self.ta[c][i]));
            let vb: Lanes3 = std::array::from_fn(|c| std::array::from_fn(|i| p[c][i] - half[c][i] - self.tb[c][i]));
            (on_a[k], on_b[k]) = (rotate(&ia, &va), rotate(&ib, &vb));
        }
        Made { offset: rotate(&ia, &d), turn: quat_mul(&ia, &self.qb), normal: rotate(&ia, n), on_a, on_b }
    }
}

crate::simd::compiled_twice! {
    /// A batch's made entries, in the copy the CPU runs best (the same bits in each).
    fn made(m: &Make) -> Made = Make::made, made_v3;
}

/// A batch's rebuilt lanes: the normals, and per point its position and depth.
struct Rebuilt {
    n: Lanes3,
    point: [Lanes3; MAX_MANIFOLD_POINTS],
    depth: [[Real; LANES]; MAX_MANIFOLD_POINTS],
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Made eight at a time, every entry is `PairEntry::new`'s, bit for bit, with or without a
    /// manifold, whatever the point count and however many entries a batch holds.
    #[test]
    fn made_entries_match_one_by_one_bit_for_bit() {
        let mut rng = SplitMix64::new(1515);
        let mut make = Make::default();
        let bits = |e: &PairEntry| {
            let v = |v: Vec3| v.to_array().map(f32::to_bits);
            let p = e.points.map(|p| (v(p.on_a), v(p.on_b), p.id));
            (e.pair, v(e.offset), e.turn.to_array().map(f32::to_bits), v(e.normal), e.len, e.valid, p)
        };
        for case in 0..300 {
            let queued = 1 + case % LANES;
            let mut out = vec![PairEntry::invalid((7, 7)); queued + 1];
            let mut expect = Vec::new();
            for slot in 0..queued {
                let (a, b, m) = random_case(&mut rng);
                let m = (!rng.next_u64().is_multiple_of(5)).then_some(m);
                let pair = (slot as u32, case as u32);
                expect.push(PairEntry::new(pair, &a, &b, m.as_ref()));
                make.push(slot, pair, &a, &b, m.as_ref());
                assert_eq!(make.is_full(), slot + 1 == LANES);
            }
            let mut best_out = out.clone();
            let mut best_make = make.clone();
            make.finish_with(Make::made, &mut out);
            best_make.finish_with(made, &mut best_out);
            for (slot, e) in expect.iter().enumerate() {
                assert_eq!(bits(&out[slot]), bits(e), "case {case}, slot {slot}: {:?} against {e:?}", out[slot]);
                assert_eq!(
                    bits(&best_out[slot]),
                    bits(e),
                    "case {case}, slot {slot}, best kernel: {:?} against {e:?}",
                    best_out[slot]
                );
            }
            assert_eq!(out[queued], PairEntry::invalid((7, 7)), "case {case}: a slot past the queue was written");
        }
    }

    /// Two random poses and a manifold of 1 to 4 random points between them.
    fn random_case(rng: &mut SplitMix64) -> (Pose, Pose, Manifold) {
        let a = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
        let b = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
        let mut m = Manifold::new(rng.unit_vector());
        for id in 0..1 + (rng.next_u64() % MAX_MANIFOLD_POINTS as u64) as u32 {
            m.push(ContactPoint { point: rng.vec3(-50.0, 50.0), depth: rng.range(-0.02, 0.02), id });
        }
        (a, b, m)
    }

    /// Rebuilt eight at a time, every manifold has `PairEntry::manifold`'s bits, whatever the
    /// point count and however many entries a batch holds.
    #[test]
    fn rebuilt_manifolds_match_one_by_one_bit_for_bit() {
        let mut rng = SplitMix64::new(15);
        let mut rebuild = Rebuild::default();
        for case in 0..200 {
            let queued = 1 + case % LANES;
            let mut out = vec![Manifold::default(); queued + 1];
            let mut expect = Vec::new();
            for slot in 0..queued {
                let (a, b, m) = random_case(&mut rng);
                let e = PairEntry::new((0, 1), &a, &b, Some(&m));
                expect.push(e.manifold(&a, &b).unwrap());
                assert_eq!(rebuild.push(slot, &e, &a, &b), slot + 1 == LANES);
            }
            let mut best_out = out.clone();
            let mut best_rebuild = rebuild.clone();
            rebuild.finish_with(Rebuild::rebuilt, &mut out, |m| m);
            best_rebuild.finish_with(rebuilt, &mut best_out, |m| m);
            let bits = |m: &Manifold| {
                let p = m.points().iter().map(|p| (p.point.to_array().map(f32::to_bits), p.depth.to_bits(), p.id));
                (m.normal.to_array().map(f32::to_bits), p.collect::<Vec<_>>())
            };
            for (slot, e) in expect.iter().enumerate() {
                assert_eq!(bits(&out[slot]), bits(e), "case {case}, slot {slot}: {:?} against {e:?}", out[slot]);
                assert_eq!(
                    bits(&best_out[slot]),
                    bits(e),
                    "case {case}, slot {slot}, best kernel: {:?} against {e:?}",
                    best_out[slot]
                );
            }
            assert_eq!(out[queued], Manifold::default(), "case {case}: a slot past the queue was written");
        }
    }
}
