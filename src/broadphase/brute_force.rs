use super::{BroadPhase, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, scan_aabb, scan_ray};
use crate::geometry::{Aabb, Ray};
use crate::math::Real;

/// Tests all n(n-1)/2 pairs over structure-of-arrays bounds, which the compiler vectorises.
#[derive(Default)]
pub struct BruteForce {
    min_x: Vec<Real>,
    min_y: Vec<Real>,
    min_z: Vec<Real>,
    max_x: Vec<Real>,
    max_y: Vec<Real>,
    max_z: Vec<Real>,
}

impl BruteForce {
    fn load(&mut self, aabbs: &[Aabb]) {
        let fill = |v: &mut Vec<Real>, f: &dyn Fn(&Aabb) -> Real| {
            v.clear();
            v.extend(aabbs.iter().map(f));
        };
        fill(&mut self.min_x, &|a| a.min.x);
        fill(&mut self.min_y, &|a| a.min.y);
        fill(&mut self.min_z, &|a| a.min.z);
        fill(&mut self.max_x, &|a| a.max.x);
        fill(&mut self.max_y, &|a| a.max.y);
        fill(&mut self.max_z, &|a| a.max.z);
    }
}

impl BroadPhase for BruteForce {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::BruteForce
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = std::time::Instant::now();
        self.load(aabbs);
        let update_ms = t0.elapsed().as_secs_f64() * 1e3;
        let t1 = std::time::Instant::now();
        let n = aabbs.len();
        pairs.clear();
        for i in 0..n {
            let (ax0, ay0, az0) = (self.min_x[i], self.min_y[i], self.min_z[i]);
            let (ax1, ay1, az1) = (self.max_x[i], self.max_y[i], self.max_z[i]);
            let rest = i + 1..n;
            let (bx0, by0, bz0) = (&self.min_x[rest.clone()], &self.min_y[rest.clone()], &self.min_z[rest.clone()]);
            let (bx1, by1, bz1) = (&self.max_x[rest.clone()], &self.max_y[rest.clone()], &self.max_z[rest]);
            // Chunks of 8 with a branch-free mask, then a scalar scan of the few hits.
            let mut j = 0;
            let m = bx0.len();
            while j + 8 <= m {
                let mut mask = 0u32;
                for k in 0..8 {
                    let o = (ax0 <= bx1[j + k])
                        & (bx0[j + k] <= ax1)
                        & (ay0 <= by1[j + k])
                        & (by0[j + k] <= ay1)
                        & (az0 <= bz1[j + k])
                        & (bz0[j + k] <= az1);
                    mask |= (o as u32) << k;
                }
                while mask != 0 {
                    let k = mask.trailing_zeros() as usize;
                    pairs.push((i as u32, (i + 1 + j + k) as u32));
                    mask &= mask - 1;
                }
                j += 8;
            }
            while j < m {
                if ax0 <= bx1[j] && bx0[j] <= ax1 && ay0 <= by1[j] && by0[j] <= ay1 && az0 <= bz1[j] && bz0[j] <= az1 {
                    pairs.push((i as u32, (i + 1 + j) as u32));
                }
                j += 1;
            }
        }
        let all_pairs = (n as u64) * (n.saturating_sub(1) as u64) / 2;
        BroadPhaseStats {
            candidate_pairs: all_pairs.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: all_pairs,
            update_ms,
            pairs_ms: t1.elapsed().as_secs_f64() * 1e3,
            ..Default::default()
        }
    }

    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        scan_aabb(aabbs, aabb, out);
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        scan_ray(aabbs, ray, max_t, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;

    #[test]
    fn finds_exactly_the_overlapping_pairs() {
        // 21 boxes in a row, each overlapping only its neighbours; exercises chunk and tail.
        let aabbs: Vec<Aabb> =
            (0..21).map(|i| Aabb::from_center_half_extents(Vec3::new(i as Real, 0.0, 0.0), Vec3::splat(0.6))).collect();
        let mut pairs = Vec::new();
        let stats = BruteForce::default().update(&aabbs, &BroadPhaseParams { grid_cell_size: 1.0 }, &mut pairs);
        let expect: Vec<(u32, u32)> = (0..20).map(|i| (i, i + 1)).collect();
        assert_eq!(pairs, expect);
        assert_eq!(stats.aabb_tests, 210);
    }
}
