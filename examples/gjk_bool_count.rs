//! A small driver for counting the instructions of the boolean GJK on the benchmark's kind of
//! pairs (two 8-vertex hulls, 1,000 seeded pairs, half touching), without criterion's timing
//! loop: `perf stat -e instructions` or callgrind on `REPS` passes minus a run with `REPS = 0`
//! gives instructions per pair, repeatable whatever the machine's load. It also prints the
//! time per pair of the fastest and the median pass.
//!
//! `cargo run --release --no-default-features --example gjk_bool_count [REPS]` (default 1000).

use collidoscope::geometry::{ConvexHull, Shape};
use collidoscope::math::{Pose, Vec3};
use collidoscope::narrowphase::intersect_gjk;
use collidoscope::scene::SplitMix64 as Rng;
use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

fn cube_hull(rng: &mut Rng) -> Arc<ConvexHull> {
    let pts: Vec<Vec3> = (0..8)
        .map(|i| {
            let s = |bit: usize| if i & bit == 0 { -0.5 } else { 0.5 };
            Vec3::new(s(1), s(2), s(4)) + rng.unit_vector() * 0.1
        })
        .collect();
    Arc::new(ConvexHull::new(&pts).expect("hull"))
}

fn main() {
    let reps: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let pairs: Vec<(Shape, Pose, Shape, Pose)> = (0..1000)
        .map(|i| {
            let (a, b) = (Shape::ConvexHull(cube_hull(&mut rng)), Shape::ConvexHull(cube_hull(&mut rng)));
            let d = if i % 2 == 0 { rng.range(0.0, 0.9) } else { rng.range(1.1, 2.0) };
            let pb = Pose::new(rng.unit_vector() * d, rng.rotation());
            (a, Pose::new(Vec3::ZERO, rng.rotation()), b, pb)
        })
        .collect();
    let mut hits = 0;
    let mut pass_ns = Vec::with_capacity(reps);
    for _ in 0..reps {
        let t = Instant::now();
        hits += black_box(&pairs).iter().filter(|(a, pa, b, pb)| intersect_gjk(a, pa, b, pb, 1e-6)).count();
        pass_ns.push(t.elapsed().as_nanos() as f64 / pairs.len() as f64);
    }
    println!("{hits} hits over {reps} passes of {} pairs", pairs.len());
    // The fastest pass is the one least disturbed by other processes on a shared machine.
    pass_ns.sort_by(f64::total_cmp);
    if let (Some(min), Some(median)) = (pass_ns.first(), pass_ns.get(reps / 2)) {
        println!("ns per pair: fastest pass {min:.1}, median pass {median:.1}");
    }
}
