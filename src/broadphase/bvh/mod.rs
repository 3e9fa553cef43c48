//! Dynamic AABB tree (as in Box2D and Bullet's Dbvt): each body's leaf holds a fat box, its AABB
//! grown by a margin, and only bodies that leave their fat box are moved in the tree. Pairs come
//! from one traversal of the tree against itself through tight boxes: each node's union of its
//! bodies' boxes, refit every step (the fat boxes decide the tree's shape; the tight ones prune
//! the search to the bodies that overlap).

mod tree;

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
use tree::{NULL, Tree};

/// Default fat-box margin, m: a body may drift this far before its leaf moves.
pub const DEFAULT_BVH_MARGIN: Real = 0.1;

/// A moved leaf's fat box also stretches this many steps of its last displacement ahead, so a
/// body in steady motion (a falling one) stays inside it for several steps (as in Box2D).
const PREDICTION_STEPS: Real = 4.0;

/// A node as the pair search reads it, in one place: its tight box, its children (a leaf's
/// `[NULL, body]`, as in the tree) and, for an internal node, the tight box's surface area
/// (the search descends the larger of two).
#[derive(Clone, Copy)]
struct WalkNode {
    tight: Aabb,
    child: [u32; 2],
    area: Real,
}

impl Default for WalkNode {
    fn default() -> Self {
        WalkNode { tight: Aabb::new(Vec3::ZERO, Vec3::ZERO), child: [NULL; 2], area: 0.0 }
    }
}

impl WalkNode {
    #[inline]
    fn is_leaf(&self) -> bool {
        self.child[0] == NULL
    }
}

/// A dynamic AABB tree broad phase.
pub struct Bvh {
    margin: Real,
    tree: Tree,
    /// Each body's leaf, or `NULL` for a body kept outside the tree.
    leaf_of: Vec<u32>,
    /// Bodies with non-finite or inverted boxes, tested against all; ascending.
    outside: Vec<u32>,
    /// Each body's box centre at the last update, to predict its motion.
    last_centre: Vec<Vec3>,
    stack: Vec<(u32, u32)>,
    /// Per node, what the pair search reads: the union of its bodies' boxes at the last update
    /// (a leaf's is its body's box, not its fat box), which the fat boxes hold, with the node's
    /// children.
    walk: Vec<WalkNode>,
    /// The refit's nodes still to visit, each with whether its children are done.
    refit_stack: Vec<(u32, bool)>,
    /// The pairs found, before they are put in canonical order.
    keys: PairKeys,
}

impl Default for Bvh {
    fn default() -> Self {
        Self::new(DEFAULT_BVH_MARGIN)
    }
}

impl Bvh {
    /// A tree whose fat boxes are the AABBs grown by `margin` (negative or non-finite means 0).
    pub fn new(margin: Real) -> Self {
        let margin = if margin.is_finite() { margin.max(0.0) } else { 0.0 };
        Bvh {
            margin,
            tree: Tree::new(),
            leaf_of: Vec::new(),
            outside: Vec::new(),
            last_centre: Vec::new(),
            stack: Vec::new(),
            walk: Vec::new(),
            refit_stack: Vec::new(),
            keys: PairKeys::default(),
        }
    }

    /// How far leaves are fattened beyond their boxes, m.
    pub fn margin(&self) -> Real {
        self.margin
    }

    /// Height of the tree (a lone leaf is 0).
    pub fn height(&self) -> u32 {
        self.tree.height()
    }

    fn stale(&self, aabbs: &[Aabb]) -> bool {
        aabbs.len() != self.leaf_of.len()
    }

    /// Brings leaves up to date; returns how many moved.
    fn refresh(&mut self, aabbs: &[Aabb]) -> u32 {
        if self.leaf_of.len() > aabbs.len() {
            self.tree.clear();
            self.leaf_of.clear();
        }
        self.outside.clear();
        let mut moved = 0;
        for (i, b) in aabbs.iter().enumerate() {
            let leaf = self.leaf_of.get(i).copied();
            if !b.is_valid() {
                if let Some(l) = leaf.filter(|&l| l != NULL) {
                    self.tree.destroy_leaf(l);
                }
                match leaf {
                    Some(_) => self.leaf_of[i] = NULL,
                    None => self.leaf_of.push(NULL),
                }
                self.outside.push(i as u32);
                continue;
            }
            let fat = b.expanded(self.margin);
            match leaf {
                None => self.leaf_of.push(self.tree.insert(i as u32, fat)),
                Some(NULL) => self.leaf_of[i] = self.tree.insert(i as u32, fat),
                Some(l) if !self.tree.node(l).aabb.contains(b) => {
                    // Capped, so that a teleported body does not keep a huge box.
                    let cap = Vec3::splat(PREDICTION_STEPS * (self.margin + b.extents().max_element()));
                    let ahead = (b.center() - self.last_centre[i]) * PREDICTION_STEPS;
                    let ahead = if ahead.is_finite() { ahead.clamp(-cap, cap) } else { Vec3::ZERO };
                    let fat = Aabb::new(fat.min + ahead.min(Vec3::ZERO), fat.max + ahead.max(Vec3::ZERO));
                    self.tree.move_leaf(l, fat);
                    moved += 1;
                }
                Some(_) => {}
            }
        }
        moved
    }

    /// Each node's tight box ([`Bvh::walk`]) from the bodies' boxes, children before parents.
    fn refit(&mut self, aabbs: &[Aabb]) {
        let nodes = &self.tree.nodes;
        let walk = &mut self.walk;
        walk.resize(nodes.len(), WalkNode::default());
        let stack = &mut self.refit_stack;
        stack.clear();
        if self.tree.root != NULL {
            stack.push((self.tree.root, false));
        }
        while let Some((i, children_done)) = stack.pop() {
            let n = &nodes[i as usize];
            let [c1, c2] = n.child;
            if n.is_leaf() {
                walk[i as usize] = WalkNode { tight: aabbs[c2 as usize], child: n.child, area: 0.0 };
            } else if children_done {
                let tight = walk[c1 as usize].tight.merge(&walk[c2 as usize].tight);
                walk[i as usize] = WalkNode { tight, child: n.child, area: tight.surface_area() };
            } else {
                stack.extend([(i, true), (c1, false), (c2, false)]);
            }
        }
    }

    /// Every pair of leaves whose bodies' boxes overlap (into `pairs`), by descending the tree
    /// against itself through the nodes' tight boxes. Returns (leaf pairs met, box tests).
    fn self_pairs(&mut self, aabbs: &[Aabb], pairs: &mut PairKeys) -> (u64, u64) {
        self.refit(aabbs);
        let (mut candidates, mut tests) = (0u64, 0u64);
        let walk = &self.walk[..];
        let stack = &mut self.stack;
        stack.clear();
        if self.tree.root != NULL {
            stack.push((self.tree.root, self.tree.root));
        }
        while let Some((x, y)) = stack.pop() {
            let (a, b) = (&walk[x as usize], &walk[y as usize]);
            if x == y {
                if !a.is_leaf() {
                    let [c1, c2] = a.child;
                    stack.extend([(c1, c1), (c2, c2), (c1, c2)]);
                }
                continue;
            }
            tests += 1;
            if !a.tight.overlaps(&b.tight) {
                continue;
            }
            match (a.is_leaf(), b.is_leaf()) {
                // Two leaves' tight boxes are their bodies' boxes.
                (true, true) => {
                    candidates += 1;
                    pairs.push(a.child[1], b.child[1]);
                }
                // Descend the leaf-less side, or the larger of two internal nodes.
                (true, false) => stack.extend([(x, b.child[0]), (x, b.child[1])]),
                (false, true) => stack.extend([(a.child[0], y), (a.child[1], y)]),
                (false, false) => {
                    if a.area >= b.area {
                        stack.extend([(a.child[0], y), (a.child[1], y)]);
                    } else {
                        stack.extend([(x, b.child[0]), (x, b.child[1])]);
                    }
                }
            }
        }
        (candidates, tests)
    }

    /// Leaves whose node boxes pass `hit`, visiting only subtrees that pass it.
    fn descend(&self, mut hit: impl FnMut(&Aabb) -> bool, mut leaf: impl FnMut(u32)) {
        if self.tree.root == NULL {
            return;
        }
        let mut stack = vec![self.tree.root];
        while let Some(i) = stack.pop() {
            let n = self.tree.node(i);
            if !hit(&n.aabb) {
                continue;
            }
            if n.is_leaf() {
                leaf(n.child[1]);
            } else {
                stack.extend(n.child);
            }
        }
    }
}

impl BroadPhase for Bvh {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::Bvh
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = crate::timer::Stamp::now();
        self.tree.rotations = 0;
        self.last_centre.resize(aabbs.len(), Vec3::ZERO);
        let moved = self.refresh(aabbs);
        self.last_centre.clear();
        self.last_centre.extend(aabbs.iter().map(Aabb::center));
        let t1 = crate::timer::Stamp::now();
        let update_ms = t1.ms_since(t0);

        let mut keys = std::mem::take(&mut self.keys);
        keys.clear();
        let (mut candidates, mut tests) = self.self_pairs(aabbs, &mut keys);
        let outside_tests = pairs_with_outsiders(&self.outside, aabbs, &mut keys);
        candidates += outside_tests;
        tests += outside_tests;
        keys.finish(aabbs.len(), pairs);
        self.keys = keys;
        let stats = BroadPhaseStats {
            candidate_pairs: candidates.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: tests,
            nodes: self.tree.reachable(),
            depth: self.tree.height(),
            swaps: self.tree.rotations,
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
        if self.leaf_of.len() != aabbs.len() {
            return Err(InvariantError(format!("{} bodies but {} leaves", aabbs.len(), self.leaf_of.len())));
        }
        let leaves = self.tree.validate()?;
        for &(body, leaf) in &leaves {
            if self.leaf_of.get(body as usize) != Some(&leaf) {
                return Err(InvariantError(format!("leaf {leaf} holds body {body}, whose leaf is recorded elsewhere")));
            }
            if !self.tree.node(leaf).aabb.contains(&aabbs[body as usize]) {
                return Err(InvariantError(format!("body {body} has left its fat box")));
            }
        }
        if leaves.len() + self.outside.len() != aabbs.len() {
            return Err(InvariantError(format!(
                "{} leaves + {} outside != {} bodies",
                leaves.len(),
                self.outside.len(),
                aabbs.len()
            )));
        }
        Ok(())
    }

    /// Nodes coloured by depth, down to `options.max_depth`.
    fn debug_draw_with(&self, _aabbs: &[Aabb], options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        if self.tree.root == NULL {
            return;
        }
        let max_depth = options.max_depth.unwrap_or(u32::MAX);
        // Breadth first, so that the cap on drawn boxes cuts the deepest levels.
        let mut queue = std::collections::VecDeque::from([(self.tree.root, 0u32)]);
        let mut drawn = 0;
        while let Some((i, depth)) = queue.pop_front() {
            let n = self.tree.node(i);
            draw.aabb(DrawCategory::BroadPhase, &n.aabb, depth_color(depth));
            drawn += 1;
            if drawn >= MAX_DRAWN_BOXES {
                break;
            }
            if !n.is_leaf() && depth < max_depth {
                queue.extend(n.child.map(|c| (c, depth + 1)));
            }
        }
    }
}

impl hierarchy::Hierarchy for Bvh {
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
