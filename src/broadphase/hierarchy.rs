//! Queries shared by the hierarchical structures (BVH, octree): descend the nodes whose bounds
//! pass, test each body's own box, then the side list of bodies the structure does not hold.

use super::{scan_aabb, scan_ray};
use crate::geometry::{Aabb, Ray};
use crate::math::Real;

pub(super) trait Hierarchy {
    /// The structure was built for other boxes than `aabbs` (or never): answer by a scan.
    fn is_stale(&self, aabbs: &[Aabb]) -> bool;
    /// Calls `leaf` for every body under the nodes whose bounds satisfy `hit`.
    fn visit(&self, hit: impl FnMut(&Aabb) -> bool, leaf: impl FnMut(u32));
    /// Bodies kept outside the hierarchy, tested one by one.
    fn side_list(&self) -> &[u32];
}

pub(super) fn query_aabb<H: Hierarchy>(h: &H, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
    query(h, aabbs, |b| b.overlaps(aabb), out, |out| scan_aabb(aabbs, aabb, out));
}

pub(super) fn query_ray<H: Hierarchy>(h: &H, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
    let hits = |b: &Aabb| b.ray_interval(ray.origin, ray.dir, max_t).is_some();
    query(h, aabbs, hits, out, |out| scan_ray(aabbs, ray, max_t, out));
}

fn query<H: Hierarchy>(
    h: &H,
    aabbs: &[Aabb],
    test: impl Fn(&Aabb) -> bool,
    out: &mut Vec<u32>,
    scan: impl FnOnce(&mut Vec<u32>),
) {
    if h.is_stale(aabbs) {
        return scan(out);
    }
    h.visit(&test, |i| {
        if test(&aabbs[i as usize]) {
            out.push(i)
        }
    });
    out.extend(h.side_list().iter().copied().filter(|&o| test(&aabbs[o as usize])));
}
