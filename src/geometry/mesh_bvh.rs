//! The mid phase: a bounding-volume hierarchy over a mesh's triangles, built once by median
//! splits along the longest axis of the centroids, queried by box and by ray.

use super::{Aabb, Ray};
use crate::geometry::InvariantError;
use crate::math::{Real, Vec3};

/// Most triangles in a leaf.
const LEAF_SIZE: usize = 4;

/// A node: a leaf holds `count > 0` items from `first` in [`MeshBvh::items`]; an inner node
/// (`count == 0`) has its children at `first` and `first + 1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhNode {
    /// The node's bounding box.
    pub aabb: Aabb,
    /// A leaf's first item, or an inner node's first child.
    pub first: u32,
    /// A leaf's item count; 0 for an inner node.
    pub count: u32,
}

#[derive(Clone, Debug, Default, PartialEq)]
/// A bounding-volume hierarchy over a mesh's triangles, built once.
pub struct MeshBvh {
    nodes: Vec<BvhNode>,
    items: Vec<u32>,
}

impl MeshBvh {
    /// Builds the tree over the items' boxes: O(n log n), each level a linear-time median
    /// selection.
    pub fn build(boxes: &[Aabb]) -> Self {
        let mut items: Vec<u32> = (0..boxes.len() as u32).collect();
        let centers: Vec<Vec3> = boxes.iter().map(|b| b.center()).collect();
        let mut nodes = Vec::with_capacity(2 * boxes.len() / LEAF_SIZE + 1);
        if boxes.is_empty() {
            return Self { nodes, items };
        }
        nodes.push(BvhNode { aabb: Aabb::EMPTY, first: 0, count: 0 });
        // (node, start, end) still to fill.
        let mut stack = vec![(0usize, 0usize, boxes.len())];
        while let Some((node, start, end)) = stack.pop() {
            let slice = &mut items[start..end];
            let aabb = slice.iter().fold(Aabb::EMPTY, |b, &i| b.merge(&boxes[i as usize]));
            if slice.len() <= LEAF_SIZE {
                nodes[node] = BvhNode { aabb, first: start as u32, count: slice.len() as u32 };
                continue;
            }
            let cb = Aabb::from_points(slice.iter().map(|&i| centers[i as usize]));
            let ext = cb.extents();
            let axis = if ext.x >= ext.y && ext.x >= ext.z {
                0
            } else if ext.y >= ext.z {
                1
            } else {
                2
            };
            let mid = slice.len() / 2;
            slice.select_nth_unstable_by(mid, |&a, &b| {
                centers[a as usize][axis].total_cmp(&centers[b as usize][axis]).then(a.cmp(&b))
            });
            let left = nodes.len();
            nodes.push(BvhNode { aabb: Aabb::EMPTY, first: 0, count: 0 });
            nodes.push(BvhNode { aabb: Aabb::EMPTY, first: 0, count: 0 });
            nodes[node] = BvhNode { aabb, first: left as u32, count: 0 };
            stack.push((left + 1, start + mid, end));
            stack.push((left, start, start + mid));
        }
        Self { nodes, items }
    }

    /// The nodes, the root first.
    pub fn nodes(&self) -> &[BvhNode] {
        &self.nodes
    }

    /// Item indices in leaf order.
    pub fn items(&self) -> &[u32] {
        &self.items
    }

    /// Depth of the deepest leaf (a single leaf has depth 1; an empty tree 0).
    pub fn depth(&self) -> usize {
        let mut best = 0;
        let mut stack = Vec::new();
        if !self.nodes.is_empty() {
            stack.push((0usize, 1usize));
        }
        while let Some((n, d)) = stack.pop() {
            best = best.max(d);
            let node = self.nodes[n];
            if node.count == 0 {
                stack.push((node.first as usize, d + 1));
                stack.push((node.first as usize + 1, d + 1));
            }
        }
        best
    }

    /// Calls `f` with every item of the leaves whose box overlaps `aabb` (each once, in tree
    /// order): a superset of the items whose own box overlaps, which the caller filters.
    pub fn query_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32)) {
        if self.nodes.is_empty() {
            return;
        }
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            if !node.aabb.overlaps(aabb) {
                continue;
            }
            if node.count > 0 {
                let (a, b) = (node.first as usize, (node.first + node.count) as usize);
                for &i in &self.items[a..b] {
                    f(i);
                }
            } else {
                stack[top] = node.first;
                stack[top + 1] = node.first + 1;
                top += 2;
            }
        }
    }

    /// The nearest hit along `ray` within `[0, max_t]`: `hit(item, limit)` answers one item's
    /// parameter below `limit`. Children are visited nearer first and pruned by the best hit.
    pub fn ray_cast(
        &self,
        ray: &Ray,
        max_t: Real,
        mut hit: impl FnMut(u32, Real) -> Option<Real>,
    ) -> Option<(Real, u32)> {
        let mut best: Option<(Real, u32)> = None;
        let root = self.nodes.first()?;
        root.aabb.ray_interval(ray.origin, ray.dir, max_t)?;
        let mut stack = [0u32; 64];
        let mut top = 1;
        while top > 0 {
            top -= 1;
            let node = &self.nodes[stack[top] as usize];
            let limit = best.map_or(max_t, |b| b.0);
            if node.aabb.ray_interval(ray.origin, ray.dir, limit).is_none() {
                continue;
            }
            if node.count > 0 {
                let (a, b) = (node.first as usize, (node.first + node.count) as usize);
                for &i in &self.items[a..b] {
                    let limit = best.map_or(max_t, |b| b.0);
                    if let Some(t) = hit(i, limit)
                        && best.is_none_or(|b| t < b.0 || (t == b.0 && i < b.1))
                    {
                        best = Some((t, i));
                    }
                }
            } else {
                let (l, r) = (node.first, node.first + 1);
                let enter = |n: u32| {
                    self.nodes[n as usize].aabb.ray_interval(ray.origin, ray.dir, limit).map_or(Real::INFINITY, |x| x.0)
                };
                let (near, far) = if enter(l) <= enter(r) { (l, r) } else { (r, l) };
                stack[top] = far;
                stack[top + 1] = near;
                top += 2;
            }
        }
        best
    }

    /// Checks the tree: every child box inside its parent, every leaf item's box inside its
    /// leaf, every item in exactly one leaf.
    pub fn validate(&self, boxes: &[Aabb]) -> Result<(), InvariantError> {
        let mut seen = vec![false; boxes.len()];
        let mut stack = if self.nodes.is_empty() { vec![] } else { vec![0usize] };
        while let Some(n) = stack.pop() {
            let node = self.nodes[n];
            if node.count > 0 {
                for &i in &self.items[node.first as usize..(node.first + node.count) as usize] {
                    if !node.aabb.contains(&boxes[i as usize]) {
                        return Err(InvariantError(format!("item {i} sticks out of leaf {n}")));
                    }
                    if std::mem::replace(&mut seen[i as usize], true) {
                        return Err(InvariantError(format!("item {i} is in two leaves")));
                    }
                }
            } else {
                for c in [node.first as usize, node.first as usize + 1] {
                    if !node.aabb.contains(&self.nodes[c].aabb) {
                        return Err(InvariantError(format!("child {c} sticks out of node {n}")));
                    }
                    stack.push(c);
                }
            }
        }
        match seen.iter().position(|s| !s) {
            Some(i) => Err(InvariantError(format!("item {i} is in no leaf"))),
            None => Ok(()),
        }
    }
}
