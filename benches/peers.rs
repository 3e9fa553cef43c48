//! Every shipped scene, and the held-back corners (a 40-cube column, a 1,000-body world asleep,
//! the same world with one ball rolling past it, a 1,000-link chain), stepped by Collidoscope, rapier3d and (feature `jolt`) Jolt Physics in one
//! process, one thread each, each engine at the mapping of the scene's settings (what `compare`
//! runs), from the scene's start, the engines taking turns fifty steps at a time (each round
//! started by the next engine). Prints a Markdown table: each
//! engine's mean time per step over the run (its own clock around its step, as `compare`
//! reports, or the thread's CPU time where a shared machine took the core away; the mean, so
//! that a scene that settles and sleeps counts its busy steps), our time
//! over each peer's (the bar is 0.6 × rapier3d's), and in the same run the fidelity figures that
//! speed counts only beside: each engine's deepest contact, the bodies it lost (ended more than
//! 1 m below the lowest static body, or frozen with a non-finite state), and the steps it spent
//! with every body asleep.
//!
//! Run: `cargo bench --no-default-features --features jolt --bench peers` (three engines; with
//! `--features rapier`, two). `PEERS_STEPS` (default 300) caps the steps timed per scene;
//! scenes of many bodies take fewer (200,000 body-steps, at least 60). `PEERS_ONLY=name`
//! runs the scenes whose file name contains `name`. `PEERS_RUNS=N` (default 1) measures each
//! scene N times back to back and prints the run whose ratio to rapier3d is the median of the
//! N (the lower middle one for an even N), then, after the table, each scene's lowest and
//! highest ratio; the fidelity columns must come out the same in every run, or the row says
//! they did not.

use collidoscope::engine::Engine;
use collidoscope::stepper::Stepper;
use collidoscope::{BodyKind, Scene, World};
use std::path::{Path, PathBuf};

#[path = "common/cpu.rs"]
mod cpu;

/// Steps once; the step's time, ms: the engine's own clock around its step, or where that is
/// more, this thread's CPU time for the whole call. A peer's call also reads its state back, so
/// the CPU time is the larger unless the thread lost its core during the step (the machine is
/// shared), and then it is the truer figure.
fn timed_step(r: &mut Stepper) -> f64 {
    let cpu0 = cpu::thread_cpu_time();
    r.step();
    let wall = r.profile().total_ms;
    match (cpu0, cpu::thread_cpu_time()) {
        (Some(a), Some(b)) => wall.min((b - a).as_secs_f64() * 1e3),
        _ => wall,
    }
}

/// One engine's figures on one scene.
struct Figures {
    mean_ms: f64,
    deepest: f32,
    lost: usize,
    /// Steps timed with every dynamic body asleep.
    asleep_steps: u64,
}

fn all_asleep(w: &World) -> bool {
    w.bodies().iter().filter(|b| b.is_dynamic()).all(|b| b.is_asleep())
}

/// Bodies that ended more than 1 m below the lowest static body (none if there is none), or were
/// frozen with a non-finite state.
fn lost(w: &World, mut gone: Vec<usize>) -> usize {
    let floor = w.bodies().iter().filter(|b| b.kind == BodyKind::Static).map(|b| b.aabb().min.y).reduce(f32::min);
    if let Some(y) = floor {
        gone.extend((0..w.bodies().len()).filter(|&i| {
            let b = &w.bodies()[i];
            b.is_dynamic() && b.pose.translation.y < y - 1.0
        }));
    }
    gone.sort_unstable();
    gone.dedup();
    gone.len()
}

/// One engine's run of a scene, and what it has gathered so far.
struct Run {
    r: Stepper,
    /// Bodies frozen with a non-finite state (the world reports them in the step they froze).
    frozen: Vec<usize>,
    ms: f64,
    steps: u64,
    deepest: f32,
    asleep_steps: u64,
}

impl Run {
    /// The engine's world, stepped `settle` steps untimed (stopping early once every body is
    /// asleep).
    fn start(engine: Engine, world: &World, settle: u64) -> Result<Run, String> {
        let r = Stepper::new(engine, world.clone()).map_err(|e| e.to_string())?;
        let mut run = Run { r, frozen: Vec::new(), ms: 0.0, steps: 0, deepest: 0.0, asleep_steps: 0 };
        for _ in 0..settle {
            if all_asleep(run.r.world()) {
                break;
            }
            run.r.step();
            run.note_faults();
        }
        Ok(run)
    }

    fn note_faults(&mut self) {
        self.frozen.extend(self.r.world().faults().iter().map(|f| f.body as usize));
    }

    /// One timed step.
    fn step(&mut self) {
        self.ms += timed_step(&mut self.r);
        self.steps += 1;
        self.note_faults();
        self.deepest = self.deepest.max(self.r.penetration());
        self.asleep_steps += all_asleep(self.r.world()) as u64;
    }

    fn figures(self) -> Figures {
        let lost = lost(self.r.world(), self.frozen);
        Figures {
            mean_ms: self.ms / self.steps.max(1) as f64,
            deepest: self.deepest,
            lost,
            asleep_steps: self.asleep_steps,
        }
    }
}

/// Each engine's figures on one scene (ours first, then the peers in order), or why it
/// refused the scene: one [`measure`].
type Set = Vec<Result<Figures, String>>;

/// Steps taken by one engine before the next takes its turn.
const TURN: u64 = 50;

/// Each engine's figures over `steps` timed steps after `settle` untimed ones (or why it
/// refused the scene). The engines take turns, [`TURN`] steps each, so that a change in the
/// machine's speed during the run falls on all of them alike rather than on whichever ran then;
/// each round starts with the next engine, so that none always follows the same one (an engine
/// whose step sweeps the caches leaves them cold for whoever comes next).
fn measure(engines: &[Engine], world: &World, settle: u64, steps: u64) -> Set {
    let mut runs: Vec<Result<Run, String>> = engines.iter().map(|&e| Run::start(e, world, settle)).collect();
    let (mut done, mut round) = (0, 0);
    while done < steps {
        let turn = TURN.min(steps - done);
        for k in 0..runs.len() {
            if let Ok(run) = &mut runs[(round + k) % engines.len()] {
                for _ in 0..turn {
                    run.step();
                }
            }
        }
        done += turn;
        round += 1;
    }
    runs.into_iter().map(|r| r.map(Run::figures)).collect()
}

/// Ours over rapier3d's mean step in one set (`None` where rapier3d refused the scene or is
/// not built in); `rapier` is rapier3d's place among the set's peers.
fn rapier_ratio(set: &Set, rapier: Option<usize>) -> Option<f64> {
    let ours = set[0].as_ref().ok()?;
    rapier.and_then(|k| set[k + 1].as_ref().ok()).map(|r| ours.mean_ms / r.mean_ms)
}

/// Whether two sets agree on every engine's fidelity figures (deepest contact, lost bodies,
/// steps all asleep): the engines are deterministic on one thread, so runs of one scene do.
fn same_fidelity(a: &Set, b: &Set) -> bool {
    a.iter().zip(b).all(|(x, y)| match (x, y) {
        (Ok(x), Ok(y)) => (x.deepest, x.lost, x.asleep_steps) == (y.deepest, y.lost, y.asleep_steps),
        (Err(x), Err(y)) => x == y,
        _ => false,
    })
}

/// Of `sets` (at least one), the set whose ratio to rapier3d is the median (the lower middle
/// one for an even count; sets without a ratio last), and the lowest and highest ratio.
fn median_set(mut sets: Vec<Set>, rapier: Option<usize>) -> (Set, Option<(f64, f64)>) {
    sets.sort_by(|a, b| {
        let key = |s: &Set| rapier_ratio(s, rapier).unwrap_or(f64::INFINITY);
        key(a).total_cmp(&key(b))
    });
    let ratios: Vec<f64> = sets.iter().filter_map(|s| rapier_ratio(s, rapier)).collect();
    let range = ratios.first().zip(ratios.last()).map(|(&lo, &hi)| (lo, hi));
    let middle = (sets.len() - 1) / 2;
    (sets.swap_remove(middle), range)
}

fn scenes(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root.join("scenes"))
        .expect("scenes/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    v.sort();
    v.extend(
        ["column_40.ron", "asleep_1000.ron", "asleep_1000_roller.ron", "chain_1000.ron"]
            .map(|f| root.join("benches").join(f)),
    );
    v
}

fn main() {
    // `cargo bench` passes `--bench`; a filter given after `--` is taken like PEERS_ONLY.
    let only = std::env::var("PEERS_ONLY").ok().or_else(|| std::env::args().skip(1).find(|a| !a.starts_with('-')));
    let cap: u64 = std::env::var("PEERS_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(300);
    let runs: usize = std::env::var("PEERS_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let peers: Vec<Engine> = Engine::ALL.iter().copied().filter(|&e| e != Engine::Collidoscope).collect();
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!("load average at start: {}", load.split_whitespace().next().unwrap_or("?"));
    let mut head = "| scene | bodies | steps | ours ms |".to_string();
    let mut rule = "|---|---|---|---|".to_string();
    for e in &peers {
        head += &format!(" {} ms | ours / {} |", e.cli_name(), e.cli_name());
        rule += "---|---|";
    }
    head += " deepest contact, mm | lost bodies | all asleep, steps |";
    rule += "---|---|---|";
    println!("{head}\n{rule}");
    let (mut worst, mut over, mut spreads) = (0.0f64, Vec::new(), Vec::new());
    let rapier = peers.iter().position(|&e| e == Engine::Rapier);
    for path in scenes(root) {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if only.as_deref().is_some_and(|o| !name.contains(o)) {
            continue;
        }
        let world = match Scene::load(&path).and_then(|s| s.build()) {
            Ok(mut w) => {
                w.set_threads(1);
                w
            }
            Err(e) => {
                println!("| `{name}` | failed to load: {e} |");
                continue;
            }
        };
        let n = world.bodies().len();
        let steps = (200_000 / n.max(1) as u64).clamp(60, cap.max(1));
        // The worlds at rest are timed once asleep (with one ball rolling on, after 1,200 steps).
        let settle = if name.starts_with("asleep") { 1_200 } else { 0 };
        let engines: Vec<Engine> = std::iter::once(Engine::Collidoscope).chain(peers.iter().copied()).collect();
        let sets: Vec<Set> = (0..runs).map(|_| measure(&engines, &world, settle, steps)).collect();
        let agree = sets.iter().all(|s| same_fidelity(s, &sets[0]));
        let (set, range) = median_set(sets, rapier);
        if let (true, Some((lo, hi))) = (runs > 1, range) {
            spreads.push(format!("`{name}` {lo:.2}–{hi:.2}"));
        }
        let mut figures = set.into_iter();
        let ours = figures.next().unwrap().expect("Collidoscope takes every scene");
        let mut row = format!("| `{name}` | {n} | {steps} | {:.4} |", ours.mean_ms);
        let (mut deep, mut lost, mut asleep) =
            (format!("{:.1}", ours.deepest * 1e3), ours.lost.to_string(), ours.asleep_steps.to_string());
        for (&e, f) in peers.iter().zip(figures) {
            match f {
                Ok(f) => {
                    let ratio = ours.mean_ms / f.mean_ms;
                    if e == Engine::Rapier {
                        worst = worst.max(ratio);
                        if ratio > 0.6 {
                            over.push(name.clone());
                        }
                    }
                    row += &format!(" {:.4} | {ratio:.2} |", f.mean_ms);
                    deep += &format!(" / {:.1}", f.deepest * 1e3);
                    lost += &format!(" / {}", f.lost);
                    asleep += &format!(" / {}", f.asleep_steps);
                }
                Err(why) => {
                    // Why the engine refused the scene, whole.
                    row += &format!(" — | {why} |");
                    deep += " / —";
                    lost += " / —";
                    asleep += " / —";
                }
            }
        }
        let differ = if agree { "" } else { " (differed between runs)" };
        println!("{row} {deep}{differ} | {lost} | {asleep} |");
    }
    if !spreads.is_empty() {
        println!("\nours / rapier3d over the {runs} runs of each scene, lowest–highest: {}", spreads.join(", "));
    }
    println!(
        "\nfigures in the last three columns: ours / {}; ours / rapier3d at worst {worst:.2}; over 0.6: {}",
        peers.iter().map(|e| e.cli_name()).collect::<Vec<_>>().join(" / "),
        if over.is_empty() { "none".to_string() } else { over.join(", ") }
    );
}
