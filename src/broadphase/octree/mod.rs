//! Loose octree: each node's cell is grown by a looseness factor, and a body lives in the
//! deepest node whose loose box contains it, so a small body near a cell border need not climb
//! to the root. Nodes split when they hold more than `max_objects` bodies (down to `max_depth`);
//! the root grows to fit bodies that leave it.
//!
//! Pairs come from one traversal of the tree against itself, culled by each node's actual
//! bounds (refitted every update, bottom-up), which are much tighter than its loose box.

mod pairs;

use super::canonical::PairKeys;
use super::draw::{MAX_DRAWN_BOXES, depth_color};
use super::hierarchy;
use super::{
    BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, debug_validate,
    pairs_with_outsiders,
};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::{Real, Vec3};

const NULL: u32 = u32::MAX;

/// Tuning of the loose octree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OctreeParams {
    /// Loose box = cell grown by this factor about its centre (at least 1; 2 is classic).
    pub looseness: Real,
    /// Deepest level a node may be split to (the root is 0).
    pub max_depth: u32,
    /// A leaf holding more bodies than this splits.
    pub max_objects: u32,
}

impl Default for OctreeParams {
    fn default() -> Self {
        Self { looseness: 2.0, max_depth: 10, max_objects: 8 }
    }
}

#[derive(Clone, Copy, Debug)]
struct Node {
    center: Vec3,
    /// Half the cell's side.
    half: Real,
    depth: u32,
    parent: u32,
    /// The eight children are consecutive from here; `NULL` for a leaf.
    first_child: u32,
    /// First body of this node's list.
    head: u32,
    /// Bodies in this node's list.
    count: u32,
    /// Bodies in this node and below.
    subtree: u32,
}

/// A loose octree broad phase.
pub struct Octree {
    params: OctreeParams,
    nodes: Vec<Node>,
    /// Union of each node's bodies and children as of the last update.
    bounds: Vec<Aabb>,
    node_of: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Bodies with non-finite or inverted boxes, tested against all; ascending.
    outside: Vec<u32>,
    stack: Vec<(u32, u32)>,
    /// The pairs found, before they are put in canonical order.
    keys: PairKeys,
}

impl Default for Octree {
    fn default() -> Self {
        Self::new(OctreeParams::default())
    }
}

impl Octree {
    /// An empty octree; out-of-range parameters are clamped (looseness ≥ 1, depth ≤ 20,
    /// at least one object per node).
    pub fn new(params: OctreeParams) -> Self {
        let params = OctreeParams {
            looseness: if params.looseness.is_finite() { params.looseness.max(1.0) } else { 2.0 },
            max_depth: params.max_depth.min(20),
            max_objects: params.max_objects.max(1),
        };
        Octree {
            params,
            nodes: Vec::new(),
            bounds: Vec::new(),
            node_of: Vec::new(),
            next: Vec::new(),
            prev: Vec::new(),
            outside: Vec::new(),
            stack: Vec::new(),
            keys: PairKeys::default(),
        }
    }

    /// The parameters the tree was built with.
    pub fn params(&self) -> OctreeParams {
        self.params
    }

    /// Deepest level holding a body.
    pub fn depth(&self) -> u32 {
        self.nodes.iter().filter(|n| n.count > 0).map(|n| n.depth).max().unwrap_or(0)
    }

    fn loose(&self, n: u32) -> Aabb {
        let n = &self.nodes[n as usize];
        Aabb::from_center_half_extents(n.center, Vec3::splat(n.half * self.params.looseness))
    }

    fn cell(&self, n: u32) -> Aabb {
        let n = &self.nodes[n as usize];
        Aabb::from_center_half_extents(n.center, Vec3::splat(n.half))
    }

    /// The child of `n` whose cell holds point `p`.
    fn child_for(&self, n: u32, p: Vec3) -> u32 {
        let node = &self.nodes[n as usize];
        let c = node.center;
        node.first_child + (p.x >= c.x) as u32 + 2 * (p.y >= c.y) as u32 + 4 * (p.z >= c.z) as u32
    }

    fn link(&mut self, body: u32, n: u32) {
        let b = body as usize;
        let head = self.nodes[n as usize].head;
        self.prev[b] = NULL;
        self.next[b] = head;
        if head != NULL {
            self.prev[head as usize] = body;
        }
        self.nodes[n as usize].head = body;
        self.nodes[n as usize].count += 1;
        self.node_of[b] = n;
        let mut up = n;
        while up != NULL {
            self.nodes[up as usize].subtree += 1;
            up = self.nodes[up as usize].parent;
        }
    }

    fn unlink(&mut self, body: u32) {
        let b = body as usize;
        let n = self.node_of[b];
        let (p, x) = (self.prev[b], self.next[b]);
        if p == NULL {
            self.nodes[n as usize].head = x;
        } else {
            self.next[p as usize] = x;
        }
        if x != NULL {
            self.prev[x as usize] = p;
        }
        self.nodes[n as usize].count -= 1;
        self.node_of[b] = NULL;
        let mut up = n;
        while up != NULL {
            self.nodes[up as usize].subtree -= 1;
            up = self.nodes[up as usize].parent;
        }
    }

    /// Puts `body` in the deepest node below `from` whose loose box holds it (`from`'s must).
    fn insert(&mut self, body: u32, aabbs: &[Aabb], from: u32) {
        let b = &aabbs[body as usize];
        let mut n = from;
        while self.nodes[n as usize].first_child != NULL {
            let c = self.child_for(n, b.center());
            if !self.loose(c).contains(b) {
                break;
            }
            n = c;
        }
        self.link(body, n);
        self.split_if_full(n, aabbs);
    }

    /// Splits an overfull leaf and moves down the bodies that fit a child.
    fn split_if_full(&mut self, n: u32, aabbs: &[Aabb]) {
        let node = self.nodes[n as usize];
        if node.first_child != NULL || node.count <= self.params.max_objects || node.depth >= self.params.max_depth {
            return;
        }
        let first = self.nodes.len() as u32;
        let h = node.half * 0.5;
        for k in 0..8 {
            let offset = Vec3::new(
                if k & 1 == 0 { -h } else { h },
                if k & 2 == 0 { -h } else { h },
                if k & 4 == 0 { -h } else { h },
            );
            self.nodes.push(Node {
                center: node.center + offset,
                half: h,
                depth: node.depth + 1,
                parent: n,
                first_child: NULL,
                head: NULL,
                count: 0,
                subtree: 0,
            });
        }
        self.nodes[n as usize].first_child = first;
        let mut body = node.head;
        while body != NULL {
            let next = self.next[body as usize];
            let b = &aabbs[body as usize];
            let c = self.child_for(n, b.center());
            if self.loose(c).contains(b) {
                self.unlink(body);
                self.link(body, c);
            }
            body = next;
        }
        for c in first..first + 8 {
            self.split_if_full(c, aabbs);
        }
    }

    /// Builds the tree from scratch around every valid box, with a root cell at least
    /// `min_half` wide so that a tree that keeps growing doubles rather than creeps.
    fn rebuild(&mut self, aabbs: &[Aabb], min_half: Real) {
        let n = aabbs.len();
        self.nodes.clear();
        self.node_of.clear();
        self.node_of.resize(n, NULL);
        self.next.clear();
        self.next.resize(n, NULL);
        self.prev.clear();
        self.prev.resize(n, NULL);
        let valid = aabbs.iter().filter(|b| b.is_valid());
        let bounds = valid.fold(Aabb::EMPTY, |u, b| u.merge(b));
        let (center, half) = if bounds.is_valid() {
            let half = bounds.half_extents().max_element() * 1.1;
            (bounds.center(), half.max(min_half).max(1e-3))
        } else {
            (Vec3::ZERO, min_half.max(1.0))
        };
        self.nodes.push(Node {
            center,
            half,
            depth: 0,
            parent: NULL,
            first_child: NULL,
            head: NULL,
            count: 0,
            subtree: 0,
        });
        for (i, b) in aabbs.iter().enumerate() {
            if b.is_valid() {
                self.insert(i as u32, aabbs, 0);
            }
        }
    }

    /// Moves bodies that left their node's loose box, or now fit a child; returns how many moved,
    /// or `None` when one no longer fits the root and the tree must be rebuilt larger.
    fn refresh(&mut self, aabbs: &[Aabb]) -> Option<u32> {
        let mut moved = 0;
        for (i, b) in aabbs.iter().enumerate() {
            let body = i as u32;
            let n = self.node_of[i];
            if !b.is_valid() {
                if n != NULL {
                    self.unlink(body);
                }
                continue;
            }
            if n != NULL && self.loose(n).contains(b) {
                let node = &self.nodes[n as usize];
                if node.first_child == NULL || !self.loose(self.child_for(n, b.center())).contains(b) {
                    continue;
                }
                self.unlink(body);
                self.insert(body, aabbs, n);
            } else {
                if n != NULL {
                    self.unlink(body);
                }
                if !self.loose(0).contains(b) {
                    return None;
                }
                self.insert(body, aabbs, 0);
            }
            moved += 1;
        }
        Some(moved)
    }

    /// Recomputes every node's actual bounds. Children always come after their parent in
    /// `nodes`, so one backwards pass sees each child before its parent.
    fn refit(&mut self, aabbs: &[Aabb]) {
        self.bounds.clear();
        self.bounds.resize(self.nodes.len(), Aabb::EMPTY);
        for n in (0..self.nodes.len()).rev() {
            let node = self.nodes[n];
            let mut u = Aabb::EMPTY;
            let mut body = node.head;
            while body != NULL {
                u = u.merge(&aabbs[body as usize]);
                body = self.next[body as usize];
            }
            if node.first_child != NULL {
                for c in node.first_child..node.first_child + 8 {
                    u = u.merge(&self.bounds[c as usize]);
                }
            }
            self.bounds[n] = u;
        }
    }

    /// Bodies in nodes whose actual bounds pass `hit`.
    fn descend(&self, mut hit: impl FnMut(&Aabb) -> bool, mut body: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = vec![0u32];
        while let Some(n) = stack.pop() {
            let node = &self.nodes[n as usize];
            if node.subtree == 0 || !hit(&self.bounds[n as usize]) {
                continue;
            }
            let mut b = node.head;
            while b != NULL {
                body(b);
                b = self.next[b as usize];
            }
            if node.first_child != NULL {
                stack.extend(node.first_child..node.first_child + 8);
            }
        }
    }

    fn stale(&self, aabbs: &[Aabb]) -> bool {
        aabbs.len() != self.node_of.len() || self.bounds.len() != self.nodes.len()
    }
}

impl BroadPhase for Octree {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::Octree
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = crate::timer::Stamp::now();
        let n = aabbs.len();
        // Nodes are never merged; rebuild when empty ones have piled up.
        let moved = if self.node_of.len() != n || self.nodes.is_empty() || self.nodes.len() > 16 * (n + 8) {
            self.rebuild(aabbs, 0.0);
            n as u32
        } else {
            match self.refresh(aabbs) {
                Some(m) => m,
                None => {
                    let grown = self.nodes[0].half * 2.0;
                    self.rebuild(aabbs, grown);
                    n as u32
                }
            }
        };
        self.outside.clear();
        self.outside.extend((0..n as u32).filter(|&i| !aabbs[i as usize].is_valid()));
        self.refit(aabbs);
        let t1 = crate::timer::Stamp::now();
        let update_ms = t1.ms_since(t0);

        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        let (mut candidates, mut tests) = self.self_pairs(aabbs, &mut keys);
        let outside_tests = pairs_with_outsiders(&self.outside, aabbs, &mut keys);
        candidates += outside_tests;
        tests += outside_tests;
        keys.finish(n, pairs);
        self.keys = keys;
        let stats = BroadPhaseStats {
            candidate_pairs: candidates.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: tests,
            nodes: self.nodes.len() as u32,
            depth: self.depth(),
            swaps: 0,
            reinserted: moved,
            update_ms,
            pairs_ms: t1.elapsed_ms(),
        };
        debug_validate(self, aabbs);
        stats
    }

    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        hierarchy::query_aabb(self, aabbs, aabb, out);
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        hierarchy::query_ray(self, aabbs, ray, max_t, out);
    }

    fn validate(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        self.validate_impl(aabbs)
    }

    /// Occupied nodes' cells coloured by depth, down to `options.max_depth`.
    fn debug_draw_with(&self, _aabbs: &[Aabb], options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        let max_depth = options.max_depth.unwrap_or(u32::MAX);
        // Nodes are stored level by level as they split, so index order is roughly breadth first.
        let drawn = self.nodes.iter().enumerate().filter(|(_, n)| n.subtree > 0 && n.depth <= max_depth);
        for (i, n) in drawn.take(MAX_DRAWN_BOXES) {
            draw.aabb(DrawCategory::BroadPhase, &self.cell(i as u32), depth_color(n.depth));
        }
    }
}

impl hierarchy::Hierarchy for Octree {
    fn is_stale(&self, aabbs: &[Aabb]) -> bool {
        self.stale(aabbs)
    }

    fn visit(&self, hit: impl FnMut(&Aabb) -> bool, leaf: impl FnMut(u32)) {
        self.descend(hit, leaf)
    }

    fn side_list(&self) -> &[u32] {
        &self.outside
    }
}
