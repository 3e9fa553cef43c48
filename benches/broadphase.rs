//! Broad-phase benchmarks: every structure on uniform, clustered and mixed-size scenes of 1k,
//! 10k and 100k boxes; static (build and pairs from scratch) and moving (small coherent motion,
//! update and pairs per step). One thread. Brute force skips 100k (5·10⁹ tests per run).
//!
//! `cargo bench --no-default-features --bench broadphase -- --warm-up-time 0.5 --measurement-time 1`
//! keeps a full run to a few minutes; a filter such as `moving/uniform/10000` picks a subset.
//! Times are the thread's CPU time (see [`thread_cpu_time`]); `BROADPHASE_COUNTERS=1` prints
//! counters instead (see [`print_counters`]).

use collidoscope::broadphase::{self, BroadPhase, BroadPhaseKind, BroadPhaseParams, suggest_cell_size};
use collidoscope::geometry::Aabb;
use collidoscope::math::{Real, Vec3};
use collidoscope::scene::SplitMix64;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};
use std::hint::black_box;
use std::time::Duration;

#[path = "common/cpu.rs"]
mod cpu;

/// This thread's CPU time ([`cpu::thread_cpu_time`]); off Linux, time since the first call.
fn thread_cpu_time() -> Duration {
    use std::sync::OnceLock;
    use std::time::Instant;
    static START: OnceLock<Instant> = OnceLock::new();
    cpu::thread_cpu_time().unwrap_or_else(|| START.get_or_init(Instant::now).elapsed())
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const DT: Real = 1.0 / 60.0;

#[derive(Clone, Copy, Debug)]
enum Layout {
    /// Boxes of side 0.5–1.5 spread evenly, about 1/8 of the space filled.
    Uniform,
    /// Nine tenths of the boxes in eight dense clusters, the rest spread thin.
    Clustered,
    /// Mostly small boxes with a few per cent up to fifty times larger.
    Mixed,
}

impl Layout {
    const ALL: [Layout; 3] = [Layout::Uniform, Layout::Clustered, Layout::Mixed];

    fn name(self) -> &'static str {
        match self {
            Layout::Uniform => "uniform",
            Layout::Clustered => "clustered",
            Layout::Mixed => "mixed",
        }
    }
}

/// Boxes with velocities, bouncing inside a cube.
struct Scene {
    centres: Vec<Vec3>,
    halves: Vec<Vec3>,
    velocities: Vec<Vec3>,
    side: Real,
    aabbs: Vec<Aabb>,
}

impl Scene {
    fn new(layout: Layout, n: usize, seed: u64) -> Scene {
        let mut rng = SplitMix64::new(seed);
        let side = (8.0 * n as Real).cbrt();
        let mut r = |lo: Real, hi: Real| rng.range(lo, hi);
        let clusters: Vec<Vec3> = (0..8).map(|_| Vec3::new(r(0.0, side), r(0.0, side), r(0.0, side))).collect();
        let (mut centres, mut halves, mut velocities) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..n {
            let anywhere = Vec3::new(r(0.0, side), r(0.0, side), r(0.0, side));
            let (c, h) = match layout {
                Layout::Uniform => (anywhere, Vec3::new(r(0.25, 0.75), r(0.25, 0.75), r(0.25, 0.75))),
                Layout::Clustered if k % 10 != 0 => {
                    // A cluster holds n/9 boxes in a ball of about a fifth of the side.
                    let spread = side * 0.1;
                    let c = clusters[k % 8] + Vec3::new(r(-1.0, 1.0), r(-1.0, 1.0), r(-1.0, 1.0)) * spread;
                    (c, Vec3::splat(r(0.1, 0.4)))
                }
                Layout::Clustered => (anywhere, Vec3::splat(r(0.25, 0.75))),
                Layout::Mixed => {
                    let big = r(0.0, 1.0) < 0.03;
                    (anywhere, Vec3::splat(if big { r(2.0, 12.0) } else { r(0.1, 0.6) }))
                }
            };
            centres.push(c);
            halves.push(h);
            velocities.push(Vec3::new(r(-1.0, 1.0), r(-1.0, 1.0), r(-1.0, 1.0)));
        }
        let mut s = Scene { centres, halves, velocities, side, aabbs: Vec::new() };
        s.refresh();
        s
    }

    fn refresh(&mut self) {
        self.aabbs.clear();
        self.aabbs.extend(self.centres.iter().zip(&self.halves).map(|(&c, &h)| Aabb::from_center_half_extents(c, h)));
    }

    /// One step of motion at up to 1 m/s per axis, bouncing off the cube's walls.
    fn advance(&mut self) {
        for (c, v) in self.centres.iter_mut().zip(&mut self.velocities) {
            *c += *v * DT;
            for a in 0..3 {
                if c[a] < 0.0 || c[a] > self.side {
                    v[a] = -v[a];
                }
            }
        }
        self.refresh();
    }
}

fn kinds(n: usize) -> impl Iterator<Item = BroadPhaseKind> {
    BroadPhaseKind::ALL.iter().copied().filter(move |&k| n <= 10_000 || k != BroadPhaseKind::BruteForce)
}

fn configure<'a>(
    c: &'a mut Criterion,
    n: usize,
    group: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(group);
    g.sample_size(10);
    if n >= 100_000 {
        g.warm_up_time(Duration::from_millis(500));
    }
    g
}

/// Build the structure from nothing and find the pairs.
fn bench_static(c: &mut Criterion) {
    for layout in Layout::ALL {
        for n in SIZES {
            let scene = Scene::new(layout, n, 7);
            let params = BroadPhaseParams { grid_cell_size: suggest_cell_size(&scene.aabbs) };
            let mut g = configure(c, n, &format!("static/{}", layout.name()));
            for kind in kinds(n) {
                if kind == BroadPhaseKind::BruteForce {
                    g.throughput(Throughput::Elements((n * (n - 1) / 2) as u64));
                } else {
                    g.throughput(Throughput::Elements(n as u64));
                }
                let mut pairs = Vec::new();
                g.bench_function(BenchmarkId::new(kind.cli_name(), n), |b| {
                    b.iter_custom(|iters| {
                        let t = thread_cpu_time();
                        for _ in 0..iters {
                            let mut bp = broadphase::create(kind);
                            black_box(bp.update(&scene.aabbs, &params, &mut pairs));
                        }
                        thread_cpu_time() - t
                    })
                });
            }
            g.finish();
        }
    }
}

/// Move every box a little and bring the structure up to date: one simulation step.
fn bench_moving(c: &mut Criterion) {
    for layout in Layout::ALL {
        for n in SIZES {
            let mut g = configure(c, n, &format!("moving/{}", layout.name()));
            g.throughput(Throughput::Elements(n as u64));
            for kind in kinds(n) {
                let mut scene = Scene::new(layout, n, 11);
                let params = BroadPhaseParams { grid_cell_size: suggest_cell_size(&scene.aabbs) };
                let mut bp: Box<dyn BroadPhase> = broadphase::create(kind);
                let mut pairs = Vec::new();
                for _ in 0..3 {
                    scene.advance();
                    bp.update(&scene.aabbs, &params, &mut pairs);
                }
                g.bench_function(BenchmarkId::new(kind.cli_name(), n), |b| {
                    b.iter_custom(|iters| {
                        let mut total = Duration::ZERO;
                        for _ in 0..iters {
                            scene.advance();
                            let t = thread_cpu_time();
                            black_box(bp.update(&scene.aabbs, &params, &mut pairs));
                            total += thread_cpu_time() - t;
                        }
                        total
                    })
                });
            }
            g.finish();
        }
    }
}

/// With `BROADPHASE_COUNTERS=1` (or `=N` for one size), prints each structure's counters and
/// split times on the moving scenes (median of 30 steps) instead of benchmarking: the counter
/// table in docs/broadphase.md.
fn print_counters(only: Option<usize>) {
    println!(
        "scene,n,structure,cpu_ms,update_ms,pairs_ms,candidates,true_overlaps,false_positive_ratio,aabb_tests,nodes,depth,swaps,reinserted"
    );
    // BROADPHASE_SCENE and BROADPHASE_KIND narrow the run to one scene or structure (profiling).
    let wanted = |var: &str, name: &str| std::env::var(var).map_or(true, |v| v == name);
    for layout in Layout::ALL.into_iter().filter(|l| wanted("BROADPHASE_SCENE", l.name())) {
        for n in SIZES.into_iter().filter(|&n| only.is_none_or(|o| o == n)) {
            for kind in kinds(n).filter(|k| wanted("BROADPHASE_KIND", k.cli_name())) {
                let mut scene = Scene::new(layout, n, 11);
                let params = BroadPhaseParams { grid_cell_size: suggest_cell_size(&scene.aabbs) };
                let mut bp = broadphase::create(kind);
                let mut pairs = Vec::new();
                let mut runs = Vec::new();
                let steps = if kind == BroadPhaseKind::BruteForce {
                    5
                } else {
                    std::env::var("BROADPHASE_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(30)
                };
                for _ in 0..steps {
                    scene.advance();
                    let t = thread_cpu_time();
                    let s = bp.update(&scene.aabbs, &params, &mut pairs);
                    runs.push(((thread_cpu_time() - t).as_secs_f64() * 1e3, s));
                }
                runs.sort_by(|a, b| a.0.total_cmp(&b.0));
                let (cpu_ms, s) = runs[runs.len() / 2];
                println!(
                    "{},{n},{},{cpu_ms:.4},{:.4},{:.4},{},{},{:.4},{},{},{},{},{}",
                    layout.name(),
                    kind.cli_name(),
                    s.update_ms,
                    s.pairs_ms,
                    s.candidate_pairs,
                    s.true_overlaps,
                    s.false_positive_ratio(),
                    s.aabb_tests,
                    s.nodes,
                    s.depth,
                    s.swaps,
                    s.reinserted
                );
            }
        }
    }
}

criterion_group!(benches, bench_static, bench_moving);

fn main() {
    if let Ok(v) = std::env::var("BROADPHASE_COUNTERS") {
        print_counters(v.parse().ok().filter(|&n| n > 1));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
