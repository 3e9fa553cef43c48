//! Box and ray queries against the hashed grid.

use super::cells::{ALL_FIRST, BODY_MASK, FIRST_SHIFT};
use super::{CellRange, Grid, MAX_CELLS_PER_BODY, cell_coord, pack};
use crate::broadphase::{scan_aabb, scan_ray};
use crate::geometry::{Aabb, Ray};
use crate::math::Real;

impl Grid {
    fn stale(&self, aabbs: &[Aabb]) -> bool {
        aabbs.len() != self.cell_rows.len() || !self.built
    }

    /// Bodies listed in `cell`, reported only from the first cell they share with `query` (on
    /// every axis, one of the two ranges starts there), so each comes out once however many
    /// cells both cover.
    fn bodies_in_cell(&self, cell: [i32; 3], query: &CellRange, out: &mut Vec<u32>) {
        let first = (0..3).fold(0, |f, a| f | ((cell[a] == query.lo[a]) as u32) << a);
        for &e in self.table.get(pack(cell)) {
            if (first | e >> FIRST_SHIFT) == ALL_FIRST {
                out.push(e & BODY_MASK);
            }
        }
    }

    pub(super) fn query_aabb_impl(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        let q = self.range_of(aabb);
        let cells = (0..3).map(|a| (q.hi[a] as i64 - q.lo[a] as i64 + 1).max(0) as u64).product::<u64>();
        // A query covering more cells than the table holds is cheaper as a scan.
        if self.stale(aabbs) || !aabb.is_valid() || cells > MAX_CELLS_PER_BODY.max(self.table.in_use() as u64) {
            return scan_aabb(aabbs, aabb, out);
        }
        let start = out.len();
        for z in q.lo[2]..=q.hi[2] {
            for y in q.lo[1]..=q.hi[1] {
                for x in q.lo[0]..=q.hi[0] {
                    self.bodies_in_cell([x, y, z], &q, out);
                }
            }
        }
        let mut k = start;
        for i in start..out.len() {
            if aabbs[out[i] as usize].overlaps(aabb) {
                out[k] = out[i];
                k += 1;
            }
        }
        out.truncate(k);
        out.extend(self.oversized.iter().copied().filter(|&o| aabbs[o as usize].overlaps(aabb)));
    }

    /// Walks the cells along the ray slab by slab on its dominant axis; within a slab the
    /// other coordinates span at most two cells, padded against rounding.
    pub(super) fn query_ray_impl(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        if self.stale(aabbs) {
            return scan_ray(aabbs, ray, max_t, out);
        }
        let start = out.len();
        let pad = self.cell_size * 1e-3;
        if let Some((t0, t1)) = self.bounds.expanded(pad).ray_interval(ray.origin, ray.dir, max_t) {
            let (p0, p1) = (ray.at(t0), ray.at(t1));
            let d = p1 - p0;
            let m = (0..3).max_by(|&a, &b| d[a].abs().total_cmp(&d[b].abs())).unwrap_or(0);
            let inv = self.inv_cell;
            let (c_lo, c_hi) = (cell_coord(p0[m].min(p1[m]), inv), cell_coord(p0[m].max(p1[m]), inv));
            if (c_hi as i64 - c_lo as i64) > 4 * aabbs.len() as i64 + 64 || !d.is_finite() {
                out.truncate(start);
                return scan_ray(aabbs, ray, max_t, out);
            }
            for c in c_lo..=c_hi {
                // The part of the segment inside slab `c`, as fractions of the segment.
                let (s0, s1) = if d[m] == 0.0 {
                    (0.0, 1.0)
                } else {
                    let (a, b) = (
                        (c as Real * self.cell_size - p0[m]) / d[m],
                        ((c + 1) as Real * self.cell_size - p0[m]) / d[m],
                    );
                    (a.min(b).max(0.0), a.max(b).min(1.0))
                };
                let (qa, qb) = (p0 + d * s0, p0 + d * s1);
                let mut q = CellRange { cells: 1, ..Default::default() };
                for a in 0..3 {
                    let (lo, hi) = (qa[a].min(qb[a]), qa[a].max(qb[a]));
                    let slack = pad + lo.abs().max(hi.abs()) * 1e-6;
                    q.lo[a] = cell_coord(lo - slack, inv);
                    q.hi[a] = cell_coord(hi + slack, inv);
                }
                q.lo[m] = c;
                q.hi[m] = c;
                for z in q.lo[2]..=q.hi[2] {
                    for y in q.lo[1]..=q.hi[1] {
                        for x in q.lo[0]..=q.hi[0] {
                            let key = pack([x, y, z]);
                            out.extend(self.table.get(key).iter().map(|&e| e & BODY_MASK));
                        }
                    }
                }
            }
        }
        out.extend(&self.oversized);
        let found = &mut out[start..];
        found.sort_unstable();
        let mut k = start;
        for i in start..out.len() {
            let b = out[i];
            if (i == start || out[i - 1] != b) && aabbs[b as usize].ray_interval(ray.origin, ray.dir, max_t).is_some() {
                out[k] = b;
                k += 1;
            }
        }
        out.truncate(k);
    }
}
