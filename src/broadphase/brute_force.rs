use super::{BroadPhase, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, scan_aabb, scan_ray};
use crate::geometry::{Aabb, Ray};
use crate::math::Real;
use crate::simd::boxes::SoaBoxes;

/// Up to this many boxes are tested straight from the AABBs: loading them into lanes and
/// calling the lane kernel once per box costs more than the tests.
const SMALL: usize = 16;

/// Tests all n(n-1)/2 pairs over structure-of-arrays bounds, eight (AVX) or four (SSE2) at a
/// time (a handful of boxes one pair at a time).
#[derive(Default)]
pub struct BruteForce {
    boxes: SoaBoxes,
}

impl BroadPhase for BruteForce {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::BruteForce
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        let t0 = crate::timer::Stamp::now();
        let n = aabbs.len();
        let small = n <= SMALL;
        if !small {
            self.boxes.load(aabbs.iter());
        }
        let t1 = crate::timer::Stamp::now();
        let update_ms = t1.ms_since(t0);
        pairs.clear();
        // Ascending `i`, then ascending `j`: already the canonical order.
        if small {
            // A handful of boxes: straight from the AABBs, with `Aabb::overlaps` (the lanes'
            // test: `<=` on each axis both ways, false on NaN).
            for (i, a) in aabbs.iter().enumerate() {
                for (j, b) in aabbs.iter().enumerate().skip(i + 1) {
                    if a.overlaps(b) {
                        pairs.push((i as u32, j as u32));
                    }
                }
            }
        } else {
            for i in 0..n {
                let q = self.boxes.query_at(i);
                self.boxes.scan_all(&q, i + 1, |j| pairs.push((i as u32, j as u32)));
            }
        }
        let all_pairs = (n as u64) * (n.saturating_sub(1) as u64) / 2;
        BroadPhaseStats {
            candidate_pairs: all_pairs.min(u32::MAX as u64) as u32,
            true_overlaps: pairs.len() as u32,
            aabb_tests: all_pairs,
            update_ms,
            pairs_ms: t1.elapsed_ms(),
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
    fn a_handful_of_boxes_gives_the_pairs_the_lanes_give() {
        use crate::rng::SplitMix64;
        let mut rng = SplitMix64::new(16);
        for n in [2, 5, SMALL, SMALL + 1] {
            for _ in 0..200 {
                let mut aabbs: Vec<Aabb> =
                    (0..n).map(|_| Aabb::from_center_half_extents(rng.vec3(-2.0, 2.0), rng.vec3(0.0, 1.0))).collect();
                // Touching faces, and a box that is not finite.
                aabbs[1] = Aabb::new(Vec3::new(aabbs[0].max.x, -9.0, -9.0), Vec3::new(9.0, 9.0, 9.0));
                if n > 3 {
                    aabbs[3].min.y = Real::NAN;
                }
                let mut boxes = SoaBoxes::default();
                boxes.load(aabbs.iter());
                let mut lanes = Vec::new();
                for i in 0..n {
                    boxes.scan_all(&boxes.query_at(i), i + 1, |j| lanes.push((i as u32, j as u32)));
                }
                let mut pairs = Vec::new();
                BruteForce::default().update(&aabbs, &BroadPhaseParams { grid_cell_size: 1.0 }, &mut pairs);
                assert_eq!(pairs, lanes, "{aabbs:?}");
            }
        }
    }

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
