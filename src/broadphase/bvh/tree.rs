//! The dynamic AABB tree itself: node storage, SAH-guided insertion, removal, and the tree
//! rotations that keep its surface-area cost low as leaves come and go.

use crate::geometry::Aabb;
use crate::geometry::InvariantError;
use crate::math::Real;

pub(super) const NULL: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
pub(super) struct Node {
    /// Union of the children; for a leaf, its fat box.
    pub aabb: Aabb,
    pub parent: u32,
    /// Internal node: both children. Leaf: `[NULL, body]`.
    pub child: [u32; 2],
    /// Leaves are 0; free nodes are `u32::MAX`.
    pub height: u32,
}

impl Node {
    #[inline]
    pub(super) fn is_leaf(&self) -> bool {
        self.height == 0
    }
}

/// Nodes in one array with a free list; `root` is `NULL` when empty.
#[derive(Default)]
pub(super) struct Tree {
    pub nodes: Vec<Node>,
    pub free: Vec<u32>,
    pub root: u32,
    /// Rotations since the counter was last reset.
    pub rotations: u64,
}

#[inline]
fn area(b: &Aabb) -> Real {
    b.surface_area()
}

impl Tree {
    pub(super) fn new() -> Self {
        Tree { root: NULL, ..Default::default() }
    }

    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.free.clear();
        self.root = NULL;
    }

    fn alloc(&mut self, node: Node) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.nodes[i as usize] = node;
                i
            }
            None => {
                self.nodes.push(node);
                (self.nodes.len() - 1) as u32
            }
        }
    }

    fn release(&mut self, i: u32) {
        self.nodes[i as usize].height = u32::MAX;
        self.free.push(i);
    }

    #[inline]
    pub(super) fn node(&self, i: u32) -> &Node {
        &self.nodes[i as usize]
    }

    /// Creates a leaf for `body` with box `fat` and inserts it; returns the leaf.
    pub(super) fn insert(&mut self, body: u32, fat: Aabb) -> u32 {
        let leaf = self.alloc(Node { aabb: fat, parent: NULL, child: [NULL, body], height: 0 });
        self.insert_leaf(leaf);
        leaf
    }

    /// Descends from the root to the sibling that adds the least surface area, counting the
    /// growth of every ancestor on the way (the surface area heuristic, greedily).
    fn best_sibling(&self, b: &Aabb) -> u32 {
        let mut index = self.root;
        loop {
            let n = self.node(index);
            if n.is_leaf() {
                return index;
            }
            let a = area(&n.aabb);
            let combined = area(&n.aabb.merge(b));
            // Cost of a new parent here, and the growth pushed down to any deeper choice.
            let cost = 2.0 * combined;
            let inherited = 2.0 * (combined - a);
            let child_cost = |c: u32| {
                let cn = self.node(c);
                let grown = area(&cn.aabb.merge(b));
                if cn.is_leaf() { grown + inherited } else { grown - area(&cn.aabb) + inherited }
            };
            let (c1, c2) = (child_cost(n.child[0]), child_cost(n.child[1]));
            if cost < c1 && cost < c2 {
                return index;
            }
            index = if c1 <= c2 { n.child[0] } else { n.child[1] };
        }
    }

    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL {
            self.root = leaf;
            self.nodes[leaf as usize].parent = NULL;
            return;
        }
        let b = self.node(leaf).aabb;
        let sibling = self.best_sibling(&b);
        let old_parent = self.node(sibling).parent;
        let s = *self.node(sibling);
        let parent = self.alloc(Node {
            aabb: b.merge(&s.aabb),
            parent: old_parent,
            child: [sibling, leaf],
            height: s.height + 1,
        });
        self.nodes[sibling as usize].parent = parent;
        self.nodes[leaf as usize].parent = parent;
        if old_parent == NULL {
            self.root = parent;
        } else {
            let p = &mut self.nodes[old_parent as usize];
            let k = if p.child[0] == sibling { 0 } else { 1 };
            p.child[k] = parent;
        }
        self.refit_from(old_parent, true);
    }

    /// Removes a leaf (which stays allocated, ready to be re-inserted).
    pub(super) fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL;
            return;
        }
        let parent = self.node(leaf).parent;
        let p = *self.node(parent);
        let sibling = if p.child[0] == leaf { p.child[1] } else { p.child[0] };
        if p.parent == NULL {
            self.root = sibling;
            self.nodes[sibling as usize].parent = NULL;
        } else {
            let g = &mut self.nodes[p.parent as usize];
            let k = if g.child[0] == parent { 0 } else { 1 };
            g.child[k] = sibling;
            self.nodes[sibling as usize].parent = p.parent;
        }
        self.release(parent);
        self.nodes[leaf as usize].parent = NULL;
        // The boxes above only shrink: refit them without rotating (as Box2D does); the
        // re-insertion that follows a move rotates along its own path.
        self.refit_from(p.parent, false);
    }

    /// Removes a leaf and frees it.
    pub(super) fn destroy_leaf(&mut self, leaf: u32) {
        self.remove_leaf(leaf);
        self.release(leaf);
    }

    /// Moves a leaf to a new fat box: out of the tree and back in where it now fits best.
    pub(super) fn move_leaf(&mut self, leaf: u32, fat: Aabb) {
        self.remove_leaf(leaf);
        self.nodes[leaf as usize].aabb = fat;
        self.insert_leaf(leaf);
    }

    /// Recomputes boxes and heights from `i` up to the root, rotating where that helps when
    /// `rotating`. Stops at the first node whose box and height stay as they were and that does
    /// not rotate: the nodes above it see the same boxes below them as before.
    fn refit_from(&mut self, mut i: u32, rotating: bool) {
        while i != NULL {
            let [c1, c2] = self.node(i).child;
            let (a, b) = (self.node(c1), self.node(c2));
            let (aabb, height) = (a.aabb.merge(&b.aabb), 1 + a.height.max(b.height));
            let n = &mut self.nodes[i as usize];
            let same = n.aabb == aabb && n.height == height;
            n.aabb = aabb;
            n.height = height;
            let rotated = rotating && self.rotate(i);
            if !rotated && same {
                return;
            }
            i = self.node(i).parent;
        }
    }

    /// Swaps a child of `a` with a grandchild under its other child when that shrinks the one
    /// node whose box changes (the grandchild's new parent). `a`'s own box stays the same.
    /// Whether it swapped.
    fn rotate(&mut self, a: u32) -> bool {
        let n = *self.node(a);
        if n.height < 2 {
            return false;
        }
        // (child of a to move down, grandchild to move up, the node between them, gain)
        let mut best: Option<(u32, u32, u32, Real)> = None;
        for k in 0..2 {
            let (x, p) = (n.child[k], n.child[1 - k]);
            let pn = *self.node(p);
            if pn.is_leaf() {
                continue;
            }
            let xb = self.node(x).aabb;
            let before = area(&pn.aabb);
            for j in 0..2 {
                let (y, keep) = (pn.child[j], pn.child[1 - j]);
                let gain = before - area(&xb.merge(&self.node(keep).aabb));
                if gain > before * 1e-4 && best.is_none_or(|b| gain > b.3) {
                    best = Some((x, y, p, gain));
                }
            }
        }
        let Some((x, y, p, _)) = best else { return false };
        let kx = if n.child[0] == x { 0 } else { 1 };
        let ky = if self.node(p).child[0] == y { 0 } else { 1 };
        self.nodes[a as usize].child[kx] = y;
        self.nodes[y as usize].parent = a;
        self.nodes[p as usize].child[ky] = x;
        self.nodes[x as usize].parent = p;
        let [c1, c2] = self.node(p).child;
        let (aabb, height) =
            (self.node(c1).aabb.merge(&self.node(c2).aabb), 1 + self.node(c1).height.max(self.node(c2).height));
        self.nodes[p as usize].aabb = aabb;
        self.nodes[p as usize].height = height;
        let [c1, c2] = self.node(a).child;
        self.nodes[a as usize].height = 1 + self.node(c1).height.max(self.node(c2).height);
        self.rotations += 1;
        true
    }

    /// Nodes reachable from the root.
    pub(super) fn reachable(&self) -> u32 {
        if self.root == NULL { 0 } else { (self.nodes.len() - self.free.len()) as u32 }
    }

    pub(super) fn height(&self) -> u32 {
        if self.root == NULL { 0 } else { self.node(self.root).height }
    }

    /// Checks links, heights, boxes and the free list; returns the leaves reached, as bodies.
    pub(super) fn validate(&self) -> Result<Vec<(u32, u32)>, InvariantError> {
        let mut leaves = Vec::new();
        let mut seen = 0usize;
        if self.root != NULL {
            if self.node(self.root).parent != NULL {
                return Err(InvariantError("the root has a parent".into()));
            }
            let mut stack = vec![self.root];
            while let Some(i) = stack.pop() {
                seen += 1;
                if seen > self.nodes.len() {
                    return Err(InvariantError("the tree has a cycle".into()));
                }
                let n = self.node(i);
                if n.height == u32::MAX {
                    return Err(InvariantError(format!("node {i} is reachable but free")));
                }
                if n.is_leaf() {
                    leaves.push((n.child[1], i));
                    continue;
                }
                let (a, b) = (self.node(n.child[0]), self.node(n.child[1]));
                if a.parent != i || b.parent != i {
                    return Err(InvariantError(format!("a child of node {i} does not point back to it")));
                }
                if n.height != 1 + a.height.max(b.height) {
                    return Err(InvariantError(format!(
                        "node {i} has height {} but children {} and {}",
                        n.height, a.height, b.height
                    )));
                }
                if !n.aabb.contains(&a.aabb) || !n.aabb.contains(&b.aabb) {
                    return Err(InvariantError(format!("node {i}'s box does not contain its children's")));
                }
                stack.extend(n.child);
            }
        }
        if seen + self.free.len() != self.nodes.len() {
            return Err(InvariantError(format!(
                "{seen} reachable + {} free != {} nodes",
                self.free.len(),
                self.nodes.len()
            )));
        }
        Ok(leaves)
    }
}
