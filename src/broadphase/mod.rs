//! Broad phase: candidate pairs whose AABBs overlap. Every structure implements [`BroadPhase`]
//! and is checked against [`BruteForce`], the reference.

mod brute_force;

pub use brute_force::BruteForce;

use crate::debug_draw::DebugDraw;
use crate::geometry::{Aabb, Ray};
use crate::math::Real;
use serde::{Deserialize, Serialize};

/// Which broad phase the world uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BroadPhaseKind {
    /// Tests every pair: the reference the others are checked against.
    #[default]
    BruteForce,
}

impl BroadPhaseKind {
    pub const ALL: &'static [BroadPhaseKind] = &[BroadPhaseKind::BruteForce];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            BroadPhaseKind::BruteForce => "brute-force",
        }
    }

    pub fn label(self) -> &'static str {
        match self {
            BroadPhaseKind::BruteForce => "Brute force",
        }
    }
}

/// Tuning shared by the structures that need it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BroadPhaseParams {
    /// Cell size of the uniform grid.
    pub grid_cell_size: Real,
}

/// Counters a broad phase reports for one update.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BroadPhaseStats {
    /// Pairs returned.
    pub candidate_pairs: u32,
    /// AABB-vs-AABB tests performed.
    pub aabb_tests: u64,
    /// Structure-specific sizes: cells in use, tree nodes, and so on.
    pub nodes: u32,
    /// Tree height, octree depth, or most bodies in one grid cell.
    pub depth: u32,
    /// Sweep-and-prune swaps, tree rotations, re-insertions.
    pub swaps: u64,
    /// Time spent updating the structure, in ms.
    pub update_ms: f64,
    /// Time spent generating pairs, in ms.
    pub pairs_ms: f64,
}

/// A structure that finds pairs of overlapping AABBs.
pub trait BroadPhase: Send {
    fn kind(&self) -> BroadPhaseKind;

    /// Brings the structure up to date with `aabbs` (indexed by body) and writes every pair
    /// `(i, j)` with `i < j` whose boxes may overlap. It may return extra pairs but must never
    /// miss one that overlaps, and each pair appears once. Order is free: the world sorts.
    fn update(&mut self, aabbs: &[Aabb], params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats;

    /// Every index whose AABB overlaps `aabb`, as of the last update.
    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>);

    /// Every index whose AABB the ray (`origin + t * dir`, `0 <= t <= max_t`) touches.
    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>);

    /// Draws the structure itself (cells, nodes, intervals).
    fn debug_draw(&self, _aabbs: &[Aabb], _draw: &mut DebugDraw) {}
}

/// Builds the broad phase for `kind`.
pub fn create(kind: BroadPhaseKind) -> Box<dyn BroadPhase> {
    match kind {
        BroadPhaseKind::BruteForce => Box::new(BruteForce::default()),
    }
}
