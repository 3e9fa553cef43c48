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

    /// `*self = *e`, field by field: short enough to be copied inline, where the whole
    /// entry is copied by a call to `memcpy`.
    #[inline(always)]
    pub fn copy_from(&mut self, e: &PairEntry) {
        let PairEntry { pair, offset, turn, normal, len, valid, points } = *e;
        (self.pair, self.offset, self.turn, self.normal) = (pair, offset, turn, normal);
        (self.len, self.valid, self.points) = (len, valid, points);
    }

    /// Whether B, of bounding radius `radius_b` about its origin, is still within `distance`
    /// (at every point) and [`PAIR_CACHE_MAX_TURN`] of where it was relative to A when the entry
    /// was made.
    pub fn holds(&self, a: &Pose, b: &Pose, radius_b: Real, distance: Real) -> bool {
        if !self.valid {
            return false;
        }
        let ia = a.rotation.inverse();
        let moved = (ia * (b.translation - a.translation) - self.offset).length();
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
pub(super) const MESH: u8 = 1;
/// [`BodyInfo::kinds`]: a compound.
pub(super) const COMPOUND: u8 = 2;
/// [`BodyInfo::kinds`]: its contacts reach as far as it can move this step, or a body with
/// reach can push it (`World::reach`, `World::pushed`).
pub(super) const REACH: u8 = 4;

/// What a body's pairs' tests depend on, made once a step for each body, so that each pair
/// reads two of these instead of both bodies' shapes and their reach.
#[derive(Clone, Copy, Debug)]
pub(super) struct BodyInfo {
    /// [`MESH`], [`COMPOUND`] and [`REACH`].
    pub kinds: u8,
    /// The shape's bounding radius about the body's origin.
    pub radius: Real,
}

impl BodyInfo {
    pub(super) fn new(b: &crate::dynamics::Body, reach: bool, pushed: Real) -> Self {
        let kinds = (b.shape.is_mesh() as u8 * MESH)
            | (b.shape.is_compound() as u8 * COMPOUND)
            | ((reach || pushed > 0.0) as u8 * REACH);
        BodyInfo { kinds, radius: b.shape.bounding_radius() }
    }
}

/// The entry of `pair` in `cache` (sorted by pair), walking on from `cursor`.
pub(super) fn find<'a>(cache: &'a [PairEntry], cursor: &mut usize, pair: (u32, u32)) -> Option<&'a PairEntry> {
    while *cursor < cache.len() && cache[*cursor].pair < pair {
        *cursor += 1;
    }
    cache.get(*cursor).filter(|e| e.pair == pair)
}

/// Lanes a [`Rebuild`] holds.
const LANES: usize = 8;

/// The manifolds of reused entries, rebuilt eight at a time (`PairEntry::manifold`'s arithmetic,
/// glam's quaternion rotation operation for operation, one entry per lane of plain arrays the
/// compiler vectorises: the same bits). Each waits in its slot of the contacts as a placeholder
/// until its batch is full or the run ends.
#[derive(Clone, Debug, Default)]
pub(super) struct Rebuild {
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

/// `q * v` per lane as glam computes it (SSE2 `Quat::mul_vec3a`):
/// `v (w² − b·b) + b (2 v·b) + (b × v) 2w`, each dot product summed x, y, then z.
#[inline(always)]
fn rotate(q: &[[Real; LANES]; 4], v: &Lanes3) -> Lanes3 {
    let mut r = [[0.0; LANES]; 3];
    for i in 0..LANES {
        let (bx, by, bz, w) = (q[0][i], q[1][i], q[2][i], q[3][i]);
        let (vx, vy, vz) = (v[0][i], v[1][i], v[2][i]);
        let s = w * w - (bx * bx + by * by + bz * bz);
        let d = (vx * bx + vy * by + vz * bz) * 2.0;
        let w2 = w * 2.0;
        let (cx, cy, cz) = (by * vz - bz * vy, bz * vx - bx * vz, bx * vy - by * vx);
        r[0][i] = (vx * s + bx * d) + cx * w2;
        r[1][i] = (vy * s + by * d) + cy * w2;
        r[2][i] = (vz * s + bz * d) + cz * w2;
    }
    r
}

impl Rebuild {
    /// Queues entry `e` (with points) for bodies at `a` and `b`, its manifold to go to slot
    /// `slot`; true when the batch is full.
    pub(super) fn push(&mut self, slot: usize, e: &PairEntry, a: &Pose, b: &Pose) -> bool {
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
        for (k, p) in e.points[..e.len as usize].iter().enumerate() {
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
    pub(super) fn finish<T>(&mut self, out: &mut [T], manifold: impl Fn(&mut T) -> &mut Manifold) {
        self.finish_on(crate::simd::avx(), out, manifold)
    }

    /// [`Rebuild::finish`], with the lanes' arithmetic compiled for AVX when `avx` (which the
    /// CPU must run).
    fn finish_on<T>(&mut self, avx: bool, out: &mut [T], manifold: impl Fn(&mut T) -> &mut Manifold) {
        if self.len == 0 {
            return;
        }
        let r = match avx {
            // SAFETY: `avx` only when the CPU runs AVX.
            #[cfg(target_arch = "x86_64")]
            true => unsafe { self.rebuilt_avx() },
            _ => self.rebuilt(),
        };
        let Rebuilt { n, point, depth } = &r;
        for i in 0..self.len {
            let m = manifold(&mut out[self.slot[i]]);
            *m = Manifold::new(Vec3::new(n[0][i], n[1][i], n[2][i]));
            for k in 0..self.count[i] as usize {
                let p = Vec3::new(point[k][0][i], point[k][1][i], point[k][2][i]);
                m.push(ContactPoint { point: p, depth: depth[k][i], id: self.ids[i][k] });
            }
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

    /// [`Rebuild::rebuilt`] compiled for AVX: eight lanes to an instruction instead of four,
    /// the same operations in the same order (no fused multiply-add), so the same bits.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx")]
    fn rebuilt_avx(&self) -> Rebuilt {
        self.rebuilt()
    }
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
                let a = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
                let b = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
                let mut m = Manifold::new(rng.unit_vector());
                for id in 0..1 + (rng.next_u64() % MAX_MANIFOLD_POINTS as u64) as u32 {
                    m.push(ContactPoint { point: rng.vec3(-50.0, 50.0), depth: rng.range(-0.02, 0.02), id });
                }
                let e = PairEntry::new((0, 1), &a, &b, Some(&m));
                expect.push(e.manifold(&a, &b).unwrap());
                assert_eq!(rebuild.push(slot, &e, &a, &b), slot + 1 == LANES);
            }
            let mut avx_out = out.clone();
            let mut avx_rebuild = rebuild.clone();
            rebuild.finish_on(false, &mut out, |m| m);
            if crate::simd::avx() {
                avx_rebuild.finish_on(true, &mut avx_out, |m| m);
            } else {
                avx_out = out.clone();
            }
            let bits = |m: &Manifold| {
                let p = m.points().iter().map(|p| (p.point.to_array().map(f32::to_bits), p.depth.to_bits(), p.id));
                (m.normal.to_array().map(f32::to_bits), p.collect::<Vec<_>>())
            };
            for (slot, e) in expect.iter().enumerate() {
                assert_eq!(bits(&out[slot]), bits(e), "case {case}, slot {slot}: {:?} against {e:?}", out[slot]);
                assert_eq!(
                    bits(&avx_out[slot]),
                    bits(e),
                    "case {case}, slot {slot}, AVX: {:?} against {e:?}",
                    avx_out[slot]
                );
            }
            assert_eq!(out[queued], Manifold::default(), "case {case}: a slot past the queue was written");
        }
    }
}
