use super::{BroadPhase, BroadPhaseDrawOptions, BroadPhaseKind, BroadPhaseParams, BroadPhaseStats, create};
use crate::debug_draw::DebugDraw;
use crate::geometry::InvariantError;
use crate::geometry::{Aabb, Ray};
use crate::math::Real;

/// Up to this many bodies brute force is the fastest structure (its tests are a few
/// nanoseconds each and it keeps no state).
const BRUTE_FORCE_MAX: usize = 256;

/// The default broad phase: picks a structure for the scene and delegates to it. Brute force
/// for small scenes; above `BRUTE_FORCE_MAX` bodies a hashed grid whose cell is twice the
/// median box size (boxes too large for the grid are paired separately by the grid itself). The
/// choice is made again when the body count changes by more than a quarter. Every structure
/// returns the same pairs, so the choice never changes the simulation, only its speed.
pub struct Auto {
    inner: Box<dyn BroadPhase>,
    cell_size: Real,
    /// The body count the current choice was made for; `usize::MAX` before the first update.
    chosen_for: usize,
}

impl Default for Auto {
    fn default() -> Self {
        Auto { inner: create(BroadPhaseKind::BruteForce), cell_size: 1.0, chosen_for: usize::MAX }
    }
}

impl Auto {
    /// The structure and grid cell size for these boxes.
    pub fn choose(aabbs: &[Aabb]) -> (BroadPhaseKind, Real) {
        if aabbs.len() <= BRUTE_FORCE_MAX {
            return (BroadPhaseKind::BruteForce, 1.0);
        }
        let mut sizes: Vec<Real> = aabbs
            .iter()
            .filter(|b| b.is_valid())
            .map(|b| b.extents().max_element())
            .filter(|s| s.is_finite())
            .collect();
        if sizes.is_empty() {
            return (BroadPhaseKind::BruteForce, 1.0);
        }
        let mid = sizes.len() / 2;
        let (_, median, _) = sizes.select_nth_unstable_by(mid, Real::total_cmp);
        let cell = 2.0 * *median;
        (BroadPhaseKind::Grid, if cell.is_finite() && cell > 1e-3 { cell } else { 1.0 })
    }

    fn rechoose(&mut self, aabbs: &[Aabb]) {
        let n = aabbs.len();
        let changed = self.chosen_for == usize::MAX || n * 4 > self.chosen_for * 5 || n * 5 < self.chosen_for * 4;
        if !changed {
            return;
        }
        let (kind, cell) = Self::choose(aabbs);
        if kind != self.inner.kind() {
            self.inner = create(kind);
        }
        self.cell_size = cell;
        self.chosen_for = n;
    }
}

impl BroadPhase for Auto {
    fn kind(&self) -> BroadPhaseKind {
        BroadPhaseKind::Auto
    }

    fn resolved(&self) -> BroadPhaseKind {
        self.inner.kind()
    }

    fn update(&mut self, aabbs: &[Aabb], _params: &BroadPhaseParams, pairs: &mut Vec<(u32, u32)>) -> BroadPhaseStats {
        self.rechoose(aabbs);
        self.inner.update(aabbs, &BroadPhaseParams { grid_cell_size: self.cell_size }, pairs)
    }

    fn query_aabb(&self, aabbs: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        self.inner.query_aabb(aabbs, aabb, out)
    }

    fn query_ray(&self, aabbs: &[Aabb], ray: &Ray, max_t: Real, out: &mut Vec<u32>) {
        self.inner.query_ray(aabbs, ray, max_t, out)
    }

    fn validate(&self, aabbs: &[Aabb]) -> Result<(), InvariantError> {
        self.inner.validate(aabbs)
    }

    fn debug_draw_with(&self, aabbs: &[Aabb], options: &BroadPhaseDrawOptions, draw: &mut DebugDraw) {
        self.inner.debug_draw_with(aabbs, options, draw)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broadphase::BruteForce;
    use crate::math::Vec3;
    use crate::rng::SplitMix64;

    fn boxes(n: usize, seed: u64) -> Vec<Aabb> {
        let mut rng = SplitMix64::new(seed);
        (0..n)
            .map(|_| {
                let c = rng.vec3(-20.0, 20.0);
                Aabb::new(c - Vec3::splat(0.3), c + Vec3::splat(rng.range(0.1, 0.6)))
            })
            .collect()
    }

    #[test]
    fn small_scenes_use_brute_force_and_large_ones_a_grid_sized_to_the_bodies() {
        assert_eq!(Auto::choose(&boxes(100, 1)).0, BroadPhaseKind::BruteForce);
        let (kind, cell) = Auto::choose(&boxes(5000, 1));
        assert_eq!(kind, BroadPhaseKind::Grid);
        assert!((0.8..2.0).contains(&cell), "cell {cell}");
    }

    #[test]
    fn auto_gives_brute_force_pairs_as_the_scene_grows() {
        let params = BroadPhaseParams { grid_cell_size: 1.0 };
        let mut auto = Auto::default();
        for n in [10, 300, 2000, 50] {
            let b = boxes(n, n as u64);
            let (mut got, mut want) = (Vec::new(), Vec::new());
            auto.update(&b, &params, &mut got);
            BruteForce::default().update(&b, &params, &mut want);
            assert_eq!(got, want, "{n} bodies, {:?}", auto.resolved());
        }
    }
}
