//! The octree's pair traversal and invariant check.

use super::{NULL, Octree};
use crate::broadphase::canonical::PairKeys;
use crate::geometry::Aabb;
use crate::geometry::InvariantError;

/// Marks a traversal item as a body rather than a node.
const BODY: u32 = 1 << 31;

impl Octree {
    /// The bodies listed in node `n`.
    fn bodies(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let mut b = self.nodes[n as usize].head;
        std::iter::from_fn(move || {
            let cur = b;
            (cur != NULL).then(|| {
                b = self.next[cur as usize];
                cur
            })
        })
    }

    /// Children of `n` with at least one body below them.
    fn occupied_children(&self, n: u32) -> impl Iterator<Item = u32> + '_ {
        let first = self.nodes[n as usize].first_child;
        let range = if first == NULL { 0..0 } else { first..first + 8 };
        range.filter(|&c| self.nodes[c as usize].subtree > 0)
    }

    /// Every pair of bodies whose boxes overlap, each once. A node against itself splits into
    /// its own list, its list against each child, each child against itself, and children
    /// against each other; two disjoint items are culled by their bounds and the larger is
    /// split. Returns (candidate pairs, box tests).
    pub(super) fn self_pairs(&mut self, aabbs: &[Aabb], pairs: &mut PairKeys) -> (u64, u64) {
        let mut stack = std::mem::take(&mut self.stack);
        stack.clear();
        let (mut candidates, mut tests) = (0u64, 0u64);
        let mut test = |a: u32, b: u32, pairs: &mut PairKeys| {
            candidates += 1;
            if aabbs[a as usize].overlaps(&aabbs[b as usize]) {
                pairs.push(a, b);
            }
        };
        if self.nodes.first().is_some_and(|r| r.subtree > 1) {
            stack.push((0, 0));
        }
        while let Some((x, y)) = stack.pop() {
            if x == y {
                let mut a = self.nodes[x as usize].head;
                while a != NULL {
                    let mut b = self.next[a as usize];
                    while b != NULL {
                        test(a, b, pairs);
                        b = self.next[b as usize];
                    }
                    a = self.next[a as usize];
                }
                let kids: Vec<u32> = self.occupied_children(x).collect();
                for a in self.bodies(x) {
                    stack.extend(kids.iter().map(|&c| (a | BODY, c)));
                }
                for (k, &c) in kids.iter().enumerate() {
                    if self.nodes[c as usize].subtree > 1 {
                        stack.push((c, c));
                    }
                    stack.extend(kids[k + 1..].iter().map(|&d| (c, d)));
                }
                continue;
            }
            tests += 1;
            let bx = if x & BODY != 0 { &aabbs[(x & !BODY) as usize] } else { &self.bounds[x as usize] };
            if !bx.overlaps(&self.bounds[y as usize]) {
                continue;
            }
            if x & BODY != 0 {
                let a = x & !BODY;
                let mut b = self.nodes[y as usize].head;
                while b != NULL {
                    test(a, b, pairs);
                    b = self.next[b as usize];
                }
                stack.extend(self.occupied_children(y).map(|c| (x, c)));
            } else {
                // Split the node with the larger cell.
                let (p, q) = if self.nodes[x as usize].depth <= self.nodes[y as usize].depth { (x, y) } else { (y, x) };
                stack.extend(self.bodies(p).map(|a| (a | BODY, q)));
                stack.extend(self.occupied_children(p).map(|c| (c, q)));
            }
        }
        self.stack = stack;
        (candidates, tests)
    }

    pub(super) fn validate_impl(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        let n = aabbs.len();
        if self.node_of.len() != n || self.next.len() != n || self.prev.len() != n {
            return Err(InvariantError(format!("{n} bodies but {} body slots", self.node_of.len())));
        }
        if self.nodes.is_empty() || self.bounds.len() != self.nodes.len() {
            return Err(InvariantError("the tree has no root or stale bounds".into()));
        }
        let mut listed = vec![false; n];
        for (i, node) in self.nodes.iter().enumerate() {
            let id = i as u32;
            if i > 0 {
                let p = &self.nodes[node.parent as usize];
                let k = id.wrapping_sub(p.first_child);
                let h = p.half * 0.5;
                let expect = p.center
                    + crate::math::Vec3::new(
                        if k & 1 == 0 { -h } else { h },
                        if k & 2 == 0 { -h } else { h },
                        if k & 4 == 0 { -h } else { h },
                    );
                if node.parent >= id || k >= 8 || node.depth != p.depth + 1 || node.half != h || node.center != expect {
                    return Err(InvariantError(format!(
                        "node {i} does not sit where its parent {} puts it",
                        node.parent
                    )));
                }
            }
            let loose = self.loose(id);
            let mut count = 0;
            let mut prev = NULL;
            for b in self.bodies(id) {
                count += 1;
                let bi = b as usize;
                if count > n || std::mem::replace(&mut listed[bi], true) {
                    return Err(InvariantError(format!("body {b} is listed twice")));
                }
                if self.node_of[bi] != id || self.prev[bi] != prev {
                    return Err(InvariantError(format!("body {b}'s links disagree with node {i}'s list")));
                }
                if !loose.contains(&aabbs[bi]) || !self.bounds[i].contains(&aabbs[bi]) {
                    return Err(InvariantError(format!("body {b} sticks out of node {i}")));
                }
                prev = b;
            }
            let below: u32 = self.occupied_children(id).map(|c| self.nodes[c as usize].subtree).sum();
            if count as u32 != node.count || node.count + below != node.subtree {
                return Err(InvariantError(format!(
                    "node {i} counts {} bodies, {} below, but lists {count}",
                    node.count, node.subtree
                )));
            }
            for c in self.occupied_children(id) {
                if !self.bounds[i].contains(&self.bounds[c as usize]) {
                    return Err(InvariantError(format!("node {i}'s bounds do not contain child {c}'s")));
                }
            }
        }
        for (i, b) in aabbs.iter().enumerate() {
            if listed[i] != b.is_valid() || self.outside.binary_search(&(i as u32)).is_ok() == b.is_valid() {
                return Err(InvariantError(format!(
                    "body {i} is listed {} times but its box validity is {}",
                    listed[i] as u8,
                    b.is_valid()
                )));
            }
        }
        Ok(())
    }
}
