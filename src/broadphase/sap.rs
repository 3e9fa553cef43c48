//! Sweep and prune: intervals sorted by their minimum on one axis, kept sorted from step to step
//! by insertion sort, which costs little when bodies move coherently. The sweep tests each box
//! against those after it in sweep order eight at a time (see [`SoaBoxes`]) until one starts
//! beyond its end.

use super::canonical::PairKeys;
use super::draw::{MAX_DRAWN_BOXES, depth_color};
use super::{
    BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, debug_validate, scan_aabb,
    scan_ray,
};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::{Real, Vec3};
use crate::simd::boxes::SoaBoxes;
use std::cmp::Ordering;

/// The axis changes only when another's variance exceeds the current one's by this factor, so
/// that a scene balanced between two axes does not re-sort every step.
const AXIS_HYSTERESIS: Real = 1.25;

/// Sweep and prune on the axis of largest centre variance.
#[derive(Default)]
pub struct Sap {
    axis: usize,
    /// Body indices sorted by their minimum on `axis`.
    order: Vec<u32>,
    /// `order`'s minima, kept beside it so the insertion sort touches one array.
    keys: Vec<Real>,
    /// The boxes in sweep order as of the last update, sweep axis stored first.
    sorted: SoaBoxes,
    /// Longest interval on the sweep axis, to bound queries on the left.
    longest: Real,
    /// The pairs found, before they are put in canonical order.
    keys_out: PairKeys,
}

impl Sap {
    /// The sweep axis in use: 0 = x, 1 = y, 2 = z.
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// The axis along which box centres vary most, with hysteresis around the current one.
    fn choose_axis(&self, aabbs: &[Aabb], rebuilding: bool) -> usize {
        let n = aabbs.len().max(1) as f64;
        let (mut sum, mut sum_sq) = ([0f64; 3], [0f64; 3]);
        for b in aabbs {
            let c = b.center();
            for a in 0..3 {
                let v = c[a] as f64;
                if v.is_finite() {
                    sum[a] += v;
                    sum_sq[a] += v * v;
                }
            }
        }
        let var: [f64; 3] = std::array::from_fn(|a| sum_sq[a] / n - (sum[a] / n).powi(2));
        let best = (0..3).max_by(|&a, &b| var[a].total_cmp(&var[b]).then(b.cmp(&a))).unwrap_or(0);
        if rebuilding || var[best] > var[self.axis] * AXIS_HYSTERESIS as f64 { best } else { self.axis }
    }

    /// Sorts `order` and `keys` from scratch.
    fn full_sort(&mut self, aabbs: &[Aabb]) {
        let axis = self.axis;
        self.order.sort_unstable_by(|&a, &b| aabbs[a as usize].min[axis].total_cmp(&aabbs[b as usize].min[axis]));
        self.keys.clear();
        self.keys.extend(self.order.iter().map(|&i| aabbs[i as usize].min[axis]));
    }

    /// Insertion sort of `keys` (and `order` with it); gives up and returns `None` after
    /// `budget` swaps, leaving a permutation for a full sort to finish.
    fn insertion_sort(&mut self, budget: u64) -> Option<u64> {
        let mut swaps = 0u64;
        for i in 1..self.keys.len() {
            let (k, id) = (self.keys[i], self.order[i]);
            let mut j = i;
            while j > 0 && self.keys[j - 1].total_cmp(&k) == Ordering::Greater {
                self.keys[j] = self.keys[j - 1];
                self.order[j] = self.order[j - 1];
                j -= 1;
            }
            self.keys[j] = k;
            self.order[j] = id;
            swaps += (i - j) as u64;
            if swaps > budget {
                return None;
            }
        }
        Some(swaps)
    }

    /// Positions in sweep order whose minimum lies in `[lo - longest, hi]`: the only intervals
    /// that can overlap `[lo, hi]` on the sweep axis.
    fn window(&self, lo: Real, hi: Real) -> std::ops::Range<usize> {
        let lo0 = self.sorted.lo0();
        let start = lo0.partition_point(|&s| s < lo - self.longest);
        let end = lo0.partition_point(|&s| s <= hi);
        start..end.max(start)
    }

    /// True when the last update does not describe `aabbs`, or a non-finite key would break
    /// the binary searches.
    fn stale(&self, aabbs: &[Aabb]) -> bool {
        let nan_end = |s: Option<&Real>| s.is_some_and(|s| s.is_nan());
        let lo0 = self.sorted.lo0();
        aabbs.len() != self.sorted.len() || !self.longest.is_finite() || nan_end(lo0.first()) || nan_end(lo0.last())
    }
}

impl BroadPhase for Sap {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::SweepAndPrune
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = crate::timer::Stamp::now();
        let n = aabbs.len();
        let rebuilding = self.order.len() != n;
        let axis = self.choose_axis(aabbs, rebuilding);
        let mut swaps = 0;
        if rebuilding || axis != self.axis {
            self.axis = axis;
            self.order.clear();
            self.order.extend(0..n as u32);
            self.full_sort(aabbs);
        } else {
            for (k, &i) in self.keys.iter_mut().zip(&self.order) {
                *k = aabbs[i as usize].min[axis];
            }
            match self.insertion_sort(8 * n as u64 + 64) {
                Some(s) => swaps = s,
                None => {
                    swaps = 8 * n as u64 + 64;
                    self.full_sort(aabbs);
                }
            }
        }
        self.sorted.load_axes(self.order.iter().map(|&i| &aabbs[i as usize]), [axis, (axis + 1) % 3, (axis + 2) % 3]);
        self.longest = self.sorted.lo0().iter().zip(self.sorted.hi0()).map(|(lo, hi)| hi - lo).fold(0.0, Real::max);
        let t1 = crate::timer::Stamp::now();
        let update_ms = t1.ms_since(t0);

        let mut candidates = 0u64;
        let (s, order, keys) = (&self.sorted, &self.order, &mut self.keys_out);
        keys.clear();
        for p in 0..n {
            let id = order[p];
            candidates += s.overlapping_sorted(&s.query_at(p), p + 1, |j| keys.push(id, order[j])) as u64;
        }
        keys.finish(n, pairs);
        let stats = BroadPhaseStats {
            candidate_pairs: candidates.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: candidates,
            nodes: n as u32,
            depth: axis as u32,
            swaps,
            reinserted: 0,
            update_ms,
            pairs_ms: t1.elapsed_ms(),
        };
        debug_validate(self, aabbs);
        stats
    }

    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        if self.stale(aabbs) {
            return scan_aabb(aabbs, aabb, out);
        }
        let w = self.window(aabb.min[self.axis], aabb.max[self.axis]);
        out.extend(self.order[w].iter().copied().filter(|&i| aabbs[i as usize].overlaps(aabb)));
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        if self.stale(aabbs) {
            return scan_ray(aabbs, ray, max_t, out);
        }
        // The ray's extent on the sweep axis; infinite ends are fine, 0 * inf is avoided.
        let (o, d) = (ray.origin[self.axis], ray.dir[self.axis]);
        let p1 = if d == 0.0 { o } else { o + d * max_t.max(0.0) };
        let w = self.window(o.min(p1), o.max(p1));
        out.extend(
            self.order[w]
                .iter()
                .copied()
                .filter(|&i| aabbs[i as usize].ray_interval(ray.origin, ray.dir, max_t).is_some()),
        );
    }

    fn validate(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        let n = aabbs.len();
        if self.order.len() != n || self.keys.len() != n || self.sorted.len() != n {
            return Err(InvariantError(format!("{} bodies but {} in the sweep order", n, self.order.len())));
        }
        let mut seen = vec![false; n];
        for (k, (&i, &key)) in self.order.iter().zip(&self.keys).enumerate() {
            let i = i as usize;
            if i >= n || std::mem::replace(&mut seen[i], true) {
                return Err(InvariantError(format!("position {k}: body {i} is out of range or listed twice")));
            }
            if key.to_bits() != aabbs[i].min[self.axis].to_bits() {
                return Err(InvariantError(format!("position {k}: key {key} is not body {i}'s minimum")));
            }
            if k > 0 && self.keys[k - 1].total_cmp(&key) == Ordering::Greater {
                return Err(InvariantError(format!("positions {} and {k} are out of order", k - 1)));
            }
        }
        Ok(())
    }

    /// Each interval as a segment through its body along the sweep axis, and again below the
    /// scene, stacked so that intervals overlapping on the axis sit on different rows.
    fn debug_draw_with(&self, _aabbs: &[Aabb], _options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        let (axis, o1, o2) = (self.axis, (self.axis + 1) % 3, (self.axis + 2) % 3);
        // Each interval as [lo, hi, min1, max1, min2, max2] (the two other axes after the sweep axis).
        let finite: Vec<[Real; 6]> = (0..self.sorted.len())
            .map(|j| {
                let q = self.sorted.query_at(j);
                [q[0], q[3], q[1], q[4], q[2], q[5]]
            })
            .filter(|s| s[0].is_finite() && s[1].is_finite())
            .take(MAX_DRAWN_BOXES)
            .collect();
        let Some(first) = finite.first() else { return };
        let (mut base1, mut base2, mut top1) = (first[2], first[4], first[3]);
        for s in &finite {
            base1 = base1.min(s[2]);
            top1 = top1.max(s[3]);
            base2 = base2.min(s[4]);
        }
        let row = ((top1 - base1) * 0.01).max(1e-3);
        let mut rows: Vec<Real> = Vec::new();
        let point = |x: Real, y: Real, z: Real| {
            let mut p = Vec3::ZERO;
            p[axis] = x;
            p[o1] = y;
            p[o2] = z;
            p
        };
        for s in finite {
            let (lo, hi) = (s[0], s[1]);
            let (c1, c2) = ((s[2] + s[3]) * 0.5, (s[4] + s[5]) * 0.5);
            let r = match rows.iter().position(|&end| end < lo) {
                Some(r) => r,
                None if rows.len() < 64 => {
                    rows.push(Real::NEG_INFINITY);
                    rows.len() - 1
                }
                None => 63,
            };
            rows[r] = rows[r].max(hi);
            let color = depth_color(r as u32);
            draw.line(DrawCategory::BroadPhase, point(lo, c1, c2), point(hi, c1, c2), color);
            let y = base1 - row * (r + 2) as Real;
            draw.line(DrawCategory::BroadPhase, point(lo, y, base2), point(hi, y, base2), color);
        }
    }
}
