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

/// The entry of `pair` in `cache` (sorted by pair), walking on from `cursor`.
pub(super) fn find<'a>(cache: &'a [PairEntry], cursor: &mut usize, pair: (u32, u32)) -> Option<&'a PairEntry> {
    while *cursor < cache.len() && cache[*cursor].pair < pair {
        *cursor += 1;
    }
    cache.get(*cursor).filter(|e| e.pair == pair)
}
