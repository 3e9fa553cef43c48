//! Broad phase: candidate pairs whose AABBs overlap. Every structure implements [`BroadPhase`]
//! and is checked against [`BruteForce`], the reference.
//!
//! All structures return exactly the pairs whose AABBs overlap (the final test is exact), so the
//! simulation does not depend on the choice; what differs is how many candidates each structure's
//! culling lets through to that final test, and how fast it gets there.

mod auto;
mod brute_force;
mod bvh;
mod canonical;
mod draw;
mod grid;
mod hierarchy;
mod octree;
mod sap;

pub use auto::Auto;
pub use brute_force::BruteForce;
pub use bvh::{Bvh, DEFAULT_BVH_MARGIN};
pub use grid::{Grid, MAX_CELLS_PER_BODY, suggest_cell_size};
pub(crate) use grid::{cell_of, pack as cell_key};
pub use octree::{Octree, OctreeParams};
pub use sap::Sap;

use crate::debug_draw::DebugDraw;
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::Real;
use serde::{Deserialize, Serialize};

/// Which broad phase the world uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BroadPhaseKind {
    /// Picks a structure by the scene's size: brute force for a few hundred bodies, a hashed grid
    /// sized to the bodies above that (see [`Auto`]).
    #[default]
    Auto,
    /// Tests every pair: the reference the others are checked against.
    BruteForce,
    /// Sorted intervals on the axis of largest variance, kept sorted by insertion sort.
    SweepAndPrune,
    /// Hashed uniform grid; cell size from the settings.
    Grid,
    /// Dynamic AABB tree with fat leaves, SAH insertion and tree rotations.
    Bvh,
    /// Loose octree that grows to fit the bodies.
    Octree,
}

impl BroadPhaseKind {
    /// Every structure, in the order the app and the CLI list them.
    pub const ALL: &'static [BroadPhaseKind] = &[
        BroadPhaseKind::Auto,
        BroadPhaseKind::BruteForce,
        BroadPhaseKind::SweepAndPrune,
        BroadPhaseKind::Grid,
        BroadPhaseKind::Bvh,
        BroadPhaseKind::Octree,
    ];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            BroadPhaseKind::Auto => "auto",
            BroadPhaseKind::BruteForce => "brute-force",
            BroadPhaseKind::SweepAndPrune => "sweep-and-prune",
            BroadPhaseKind::Grid => "grid",
            BroadPhaseKind::Bvh => "bvh",
            BroadPhaseKind::Octree => "octree",
        }
    }

    /// The kind whose [`cli_name`](Self::cli_name) is `name`.
    pub fn from_cli_name(name: &str) -> Option<BroadPhaseKind> {
        Self::ALL.iter().copied().find(|k| k.cli_name() == name)
    }

    /// The name shown in the app and the tables.
    pub fn label(self) -> &'static str {
        match self {
            BroadPhaseKind::Auto => "Automatic",
            BroadPhaseKind::BruteForce => "Brute force",
            BroadPhaseKind::SweepAndPrune => "Sweep and prune",
            BroadPhaseKind::Grid => "Hashed grid",
            BroadPhaseKind::Bvh => "Dynamic AABB tree",
            BroadPhaseKind::Octree => "Loose octree",
        }
    }

    /// What the generic counters `nodes`, `depth` and `swaps` of [`BroadPhaseStats`] mean for
    /// this structure, for tables and plots. An empty name means the counter is unused.
    pub fn stat_names(self) -> [&'static str; 3] {
        match self {
            BroadPhaseKind::Auto | BroadPhaseKind::BruteForce => ["", "", ""],
            BroadPhaseKind::SweepAndPrune => ["intervals", "sweep axis (0=x 1=y 2=z)", "swaps"],
            BroadPhaseKind::Grid => ["cells in use", "most bodies in one cell", ""],
            BroadPhaseKind::Bvh => ["tree nodes", "tree height", "rotations"],
            BroadPhaseKind::Octree => ["octree nodes", "octree depth", ""],
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
    /// Pairs the structure's culling let through to the exact AABB test (brute force: every
    /// pair; sweep and prune: pairs overlapping on the sweep axis; grid: pairs sharing a cell;
    /// tree: pairs of overlapping fat leaves).
    pub candidate_pairs: u32,
    /// Pairs whose AABBs really overlap: the pairs returned.
    pub true_overlaps: u32,
    /// AABB-vs-AABB tests performed, node and cell tests included.
    pub aabb_tests: u64,
    /// Structure-specific sizes: cells in use, tree nodes, and so on (see
    /// [`BroadPhaseKind::stat_names`]).
    pub nodes: u32,
    /// Tree height, octree depth, sweep axis, or most bodies in one grid cell.
    pub depth: u32,
    /// Sweep-and-prune swaps or tree rotations.
    pub swaps: u64,
    /// Bodies re-inserted into the structure because they left their cell, node or fat box.
    pub reinserted: u32,
    /// Time spent updating the structure, in ms.
    pub update_ms: f64,
    /// Time spent generating pairs, in ms.
    pub pairs_ms: f64,
}

impl BroadPhaseStats {
    /// Fraction of candidates the exact test rejected: `(candidates - true overlaps) / candidates`,
    /// 0 when there were no candidates.
    pub fn false_positive_ratio(&self) -> f64 {
        if self.candidate_pairs == 0 {
            0.0
        } else {
            (self.candidate_pairs.saturating_sub(self.true_overlaps)) as f64 / self.candidate_pairs as f64
        }
    }
}

/// Options for drawing a structure.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BroadPhaseDrawOptions {
    /// Draw tree and octree nodes only down to this depth (root = 0); `None` draws all.
    pub max_depth: Option<u32>,
}

/// A structure that finds pairs of overlapping AABBs.
pub trait BroadPhase: Send {
    /// Which structure this is.
    fn kind(&self) -> BroadPhaseKind;

    /// The structure doing the work: [`kind`](Self::kind), except for [`Auto`], which names
    /// the structure it picked.
    fn resolved(&self) -> BroadPhaseKind {
        self.kind()
    }

    /// Brings the structure up to date with `aabbs` (indexed by body) and writes every pair
    /// `(i, j)` with `i < j` whose boxes overlap, replacing what `pairs` held. It must never miss
    /// one that overlaps, each pair appears once, and the pairs come in the canonical order,
    /// ascending `(i, j)`, so the simulation is the same whichever structure runs.
    fn update(&mut self, aabbs: &[Aabb], params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats;

    /// [`BroadPhase::update`], with the caller's word that every box but those `changed` lists
    /// (ascending) is the one the last update saw, bit for bit, for as many bodies, giving back
    /// only the pairs with at least one box in `changed`, in canonical order; the counters are
    /// those of the whole update. For a caller that drops every pair of two unchanged boxes (a
    /// world whose other bodies are at rest): a structure that keeps its last update ([`Auto`])
    /// looks at the listed boxes alone and never lists the pairs it kept.
    fn update_touching(
        &mut self,
        aabbs: &[Aabb],
        params: &BroadPhaseParams,
        changed: &[u32],
        pairs: &mut Vec<(u32, u32)>,
    ) -> BroadPhaseStats {
        let stats = self.update(aabbs, params, pairs);
        keep_touching(pairs, changed);
        stats
    }

    /// Every index whose AABB overlaps `aabb`, as of the last update, each once.
    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>);

    /// Every index whose AABB the ray (`origin + t * dir`, `0 <= t <= max_t`) touches, each once.
    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>);

    /// Checks the structure's invariants against the boxes of the last update. Run after every
    /// update in debug builds.
    fn validate(&self, _aabbs: &[Aabb]) -> Result<(), InvariantError> {
        Ok(())
    }

    /// Draws the structure itself (cells, nodes, intervals) in [`DrawCategory::BroadPhase`].
    ///
    /// [`DrawCategory::BroadPhase`]: crate::debug_draw::DrawCategory::BroadPhase
    fn debug_draw_with(&self, _aabbs: &[Aabb], _options: &BroadPhaseDrawOptions, _draw: &mut DebugDraw) {}

    /// Draws the structure with default options.
    fn debug_draw(&self, aabbs: &[Aabb], draw: &mut DebugDraw) {
        self.debug_draw_with(aabbs, &BroadPhaseDrawOptions::default(), draw);
    }
}

/// Builds the broad phase for `kind`.
pub fn create(kind: BroadPhaseKind) -> Box<dyn BroadPhase> {
    match kind {
        BroadPhaseKind::Auto => Box::new(Auto::default()),
        BroadPhaseKind::BruteForce => Box::new(BruteForce::default()),
        BroadPhaseKind::SweepAndPrune => Box::new(Sap::default()),
        BroadPhaseKind::Grid => Box::new(Grid::default()),
        BroadPhaseKind::Bvh => Box::new(Bvh::default()),
        BroadPhaseKind::Octree => Box::new(Octree::default()),
    }
}

/// In debug builds, panics with the structure's name if its invariants do not hold: a broken
/// invariant is a bug in the structure, never bad input.
fn debug_validate(bp: &dyn BroadPhase, aabbs: &[Aabb]) {
    if cfg!(debug_assertions)
        && let Err(e) = bp.validate(aabbs)
    {
        panic!("{} broke an invariant: {e}", bp.kind().label());
    }
}

/// Every index whose AABB overlaps `aabb`, by testing them all.
fn scan_aabb(aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
    out.extend(aabbs.iter().enumerate().filter(|(_, b)| b.overlaps(aabb)).map(|(i, _)| i as u32));
}

/// Every index whose AABB the ray touches, by testing them all.
fn scan_ray(aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
    out.extend(
        aabbs
            .iter()
            .enumerate()
            .filter(|(_, b)| b.ray_interval(ray.origin, ray.dir, max_t).is_some())
            .map(|(i, _)| i as u32),
    );
}

/// Pairs between the bodies a structure keeps outside itself (oversized or non-finite boxes,
/// listed in ascending order) and every other body, each pair once. Returns the tests made.
fn pairs_with_outsiders(outside: &[u32], aabbs: &[Aabb], pairs: &mut canonical::PairKeys) -> u64 {
    if outside.is_empty() {
        return 0;
    }
    let mut inside = Vec::with_capacity(aabbs.len());
    let mut k = 0;
    for j in 0..aabbs.len() as u32 {
        if outside.get(k) == Some(&j) {
            k += 1;
        } else {
            inside.push(j);
        }
    }
    let mut soa = crate::simd::boxes::SoaBoxes::default();
    soa.load(inside.iter().map(|&j| &aabbs[j as usize]));
    for (k, &o) in outside.iter().enumerate() {
        let a = &aabbs[o as usize];
        soa.overlapping(a, 0, |x| pairs.push(o, inside[x]));
        for &p in &outside[k + 1..] {
            if a.overlaps(&aabbs[p as usize]) {
                pairs.push(o, p);
            }
        }
    }
    let m = outside.len() as u64;
    m * inside.len() as u64 + m * (m - 1) / 2
}

/// Whether more than `limit` pairs of the boxes that `counts` accepts (by their indices)
/// overlap: a sweep along x that stops counting as soon as the limit is passed, so a pile-up of
/// any size is found in about `limit` tests past the sort, without storing a pair.
pub fn overlaps_exceed(aabbs: &[Aabb], limit: usize, counts: impl Fn(usize, usize) -> bool) -> bool {
    let mut order: Vec<u32> = (0..aabbs.len() as u32).filter(|&i| aabbs[i as usize].is_valid()).collect();
    order.sort_unstable_by(|&a, &b| aabbs[a as usize].min.x.total_cmp(&aabbs[b as usize].min.x));
    let (mut active, mut count) = (Vec::<u32>::new(), 0usize);
    for &i in &order {
        let b = &aabbs[i as usize];
        active.retain(|&a| aabbs[a as usize].max.x >= b.min.x);
        for &a in &active {
            if aabbs[a as usize].overlaps(b) && counts(a as usize, i as usize) {
                count += 1;
                if count > limit {
                    return true;
                }
            }
        }
        active.push(i);
    }
    false
}

/// Keeps the pairs (in order) with at least one body in `changed` (ascending).
pub(crate) fn keep_touching(pairs: &mut Vec<(u32, u32)>, changed: &[u32]) {
    let named = |i: &u32| changed.binary_search(i).is_ok();
    pairs.retain(|(a, b)| named(a) || named(b));
}
