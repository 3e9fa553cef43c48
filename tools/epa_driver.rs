//! Instruction-count driver for GJK+EPA (issue 5): the bench's 1,000 deep-penetrating pairs of
//! 8-vertex hulls, `distance()` on each, `PASSES` times (argument, default 1). Run it under
//! `valgrind --tool=callgrind --toggle-collect='*run_pairs*'` to count one pass per pair.
//! Prints the sum of distances (a check that changes show up) and the mean EPA iterations.

use collidoscope::geometry::Shape;
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::{GjkEpaTrace, distance, distance_traced};
use collidoscope::scene::SplitMix64 as Rng;
use std::hint::black_box;

#[path = "../benches/common/mod.rs"]
mod common;
use common::deep_hull_pairs;

#[inline(never)]
fn run_pairs(deep: &[(Shape, Pose, Shape, Pose)]) -> Real {
    deep.iter().map(|(a, pa, b, pb)| distance(a, pa, b, pb).distance).sum()
}

fn main() {
    let passes: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let deep = deep_hull_pairs(&mut rng, 1000);
    let mut sum = 0.0;
    let t = std::time::Instant::now();
    let mut best = f64::INFINITY;
    for _ in 0..passes {
        let t = std::time::Instant::now();
        sum += run_pairs(black_box(&deep));
        best = best.min(t.elapsed().as_secs_f64());
    }
    if passes > 1 {
        let mean = t.elapsed().as_secs_f64() / passes as f64;
        println!("per pair: best pass {:.0} ns, mean {:.0} ns", best * 1e6, mean * 1e6);
    }
    let (mut epa_iters, mut gjk_iters) = (0usize, 0usize);
    for (a, pa, b, pb) in &deep {
        let mut t = GjkEpaTrace::default();
        distance_traced(a, pa, b, pb, Some(&mut t));
        epa_iters += t.epa.len().saturating_sub(1);
        gjk_iters += t.gjk.len();
    }
    // Every answer's bits, to tell a pure speed-up (same bits) from a change of results.
    let res: Vec<[Real; 10]> = deep
        .iter()
        .map(|(a, pa, b, pb)| {
            let d = distance(a, pa, b, pb);
            let (p, q, n) = (d.point_a, d.point_b, d.normal);
            [d.distance, p.x, p.y, p.z, q.x, q.y, q.z, n.x, n.y, n.z]
        })
        .collect();
    if let Ok(path) = std::env::var("EPA_DUMP") {
        let text: Vec<String> = res.iter().map(|r| r.map(|x| x.to_bits().to_string()).join(" ")).collect();
        std::fs::write(path, text.join("\n")).expect("write dump");
    }
    if let Ok(path) = std::env::var("EPA_CMP") {
        let old: Vec<[Real; 10]> = std::fs::read_to_string(path)
            .expect("read dump")
            .lines()
            .map(|l| {
                let v: Vec<Real> = l.split(' ').map(|x| Real::from_bits(x.parse().unwrap())).collect();
                std::array::from_fn(|i| v[i])
            })
            .collect();
        let (mut differ, mut dd, mut dn) = (0, 0.0 as Real, 0.0 as Real);
        for (o, r) in old.iter().zip(&res) {
            differ += (o.map(Real::to_bits) != r.map(Real::to_bits)) as usize;
            dd = dd.max((o[0] - r[0]).abs());
            dn = dn.max(Vec3::new(o[7] - r[7], o[8] - r[8], o[9] - r[9]).length());
        }
        println!("vs dump: {differ} answers differ; max |depth change| {dd:e}, max |normal change| {dn:e}");
    }
    println!(
        "sum {sum:.6}  mean EPA iterations {:.3}  mean GJK simplices {:.3}",
        epa_iters as Real / 1000.0,
        gjk_iters as Real / 1000.0
    );
}
