//! Seeded shapes shared by `benches/narrowphase.rs` and the instruction-count driver
//! `tools/epa_driver.rs`, so that the driver measures pairs drawn like the bench's.

use collidoscope::geometry::{ConvexHull, Shape};
use collidoscope::math::{Pose, Vec3};
use collidoscope::scene::SplitMix64;
use std::sync::Arc;

/// A unit cube as an 8-vertex hull, each corner jittered by up to 0.1.
pub fn cube_hull(rng: &mut SplitMix64) -> Arc<ConvexHull> {
    let pts: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -0.5 } else { 0.5 };
            Vec3::new(s(1), s(2), s(4)) + rng.unit_vector() * 0.1
        })
        .collect();
    Arc::new(ConvexHull::new(&pts).expect("hull"))
}

/// `n` pairs of jittered cube hulls whose centres lie 0.1–0.7 apart: every pair penetrates.
pub fn deep_hull_pairs(rng: &mut SplitMix64, n: usize) -> Vec<(Shape, Pose, Shape, Pose)> {
    (0..n)
        .map(|_| {
            let (a, b) = (Shape::ConvexHull(cube_hull(rng)), Shape::ConvexHull(cube_hull(rng)));
            let pb = Pose::new(rng.unit_vector() * rng.range(0.1, 0.7), rng.rotation());
            (a, Pose::new(Vec3::ZERO, rng.rotation()), b, pb)
        })
        .collect()
}
