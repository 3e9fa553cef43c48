//! `collidoscope run`: a scene stepped headless, with per-phase timings, counters and a state
//! hash printed; CSV, final state and sweep metrics written on request.

use super::{CliError, Overrides, parse_steps, parse_threads};
use clap::builder::TypedValueParser as _;
use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::engine::Engine;
use collidoscope::scene::AtomicFile;
use collidoscope::stepper::Stepper;
use collidoscope::world::PHASES;
use collidoscope::{Scene, StepProfile, World};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RunArgs {
    pub scene: PathBuf,
    /// Steps to simulate (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Threads to step on (default: every core). The results are the same for any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
    /// Write one CSV row of timings and counters per step.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Write one CSV row per body after the last step.
    #[arg(long, value_name = "FILE")]
    pub final_state: Option<PathBuf>,
    /// The engine that simulates: Collidoscope, or rapier3d or Jolt Physics with the scene mapped
    /// onto it.
    #[arg(long, value_name = "NAME", default_value = "collidoscope",
          value_parser = clap::builder::PossibleValuesParser::new(Engine::NAMED.map(Engine::cli_name))
              .map(|name| name.parse::<Engine>().expect("a listed name")))]
    pub engine: Engine,
    /// Write the run's sweep metrics (jitter, penetration, energy, tunneling, sleep, divergence
    /// from the scene's own settings) as a one-row CSV, the format `sweep --merge` reads.
    #[arg(long, value_name = "FILE")]
    pub metrics: Option<PathBuf>,
    /// Print the ghost-collision probe per dynamic body: metres travelled on meshes, vertical
    /// speed spikes, contact normal flips and bumps per metre.
    #[arg(long)]
    pub bumps: bool,
}

pub fn run(args: &RunArgs) -> Result<(), CliError> {
    super::check_outputs(
        &[&args.scene],
        &[
            ("--csv", args.csv.as_deref()),
            ("--final-state", args.final_state.as_deref()),
            ("--metrics", args.metrics.as_deref()),
        ],
    )?;
    let scene = Scene::load(&args.scene)?;
    let mut settings = scene.settings.clone();
    args.overrides.apply(&mut settings)?;
    let mut world = scene.build()?;
    world.set_settings(settings);
    world.set_threads(args.threads.map_or(0, |n| n as usize));
    super::warn_about_settings(&world);

    // Outputs are opened before the run, so a path that cannot be written fails at once; rows
    // stream to a temporary file that replaces the target only when the run completes.
    let mut csv = match &args.csv {
        Some(path) => {
            let mut f = AtomicFile::create(path)?;
            writeln!(f, "{}", StepProfile::CSV_HEADER).map_err(CliError::io(path))?;
            Some((f, path))
        }
        None => None,
    };
    let final_state = args.final_state.as_deref().map(AtomicFile::create).transpose()?;
    let metrics = args.metrics.as_deref().map(AtomicFile::create).transpose()?;
    if metrics.is_some() && args.engine != Engine::Collidoscope {
        return Err("--metrics measures Collidoscope's own contacts: use it with --engine collidoscope".into());
    }
    // The divergence compares with a run of the scene's own settings, when they were changed.
    let reference = match &metrics {
        Some(_) if world.settings != scene.settings => {
            Some(collidoscope::sweep::run_point(&scene, &scene.settings, args.steps, None)?.positions)
        }
        _ => None,
    };
    let mut probe = metrics.as_ref().map(|_| collidoscope::sweep::Probe::new(&world, args.steps));
    let mut bumps = args.bumps.then(|| collidoscope::sweep::BumpProbe::new(&world));
    let mut engine = Stepper::new(args.engine, world).map_err(|e| CliError::from(e.to_string()))?;
    let mut summary = Summary::default();
    for step in 1..=args.steps {
        engine.step();
        let world = engine.world();
        for fault in world.faults() {
            let name = world.bodies()[fault.body as usize].name.as_deref().unwrap_or("unnamed");
            eprintln!("warning: {fault} ({name})");
        }
        let p = *engine.profile();
        if p.pairs_dropped > 0 && summary.pairs_dropped == 0 {
            eprintln!(
                "warning: step {step}: {} candidate pairs over the budget of {} were dropped (the scene piles too many bodies together); later steps are counted in the summary",
                p.pairs_dropped,
                collidoscope::world::MAX_PAIRS
            );
        }
        if let Some((f, path)) = csv.as_mut() {
            writeln!(f, "{}", p.csv_row(step)).map_err(CliError::io(path))?;
        }
        summary.add(&p);
        if let Some(probe) = probe.as_mut() {
            probe.observe(world);
        }
        if let Some(b) = bumps.as_mut() {
            b.observe(world);
        }
    }
    let world = engine.world();
    if let (Some(out), Some(probe)) = (metrics, probe) {
        let m = probe.finish(world, reference.as_deref());
        super::sweep::write_metrics(out, &args.overrides, &m, world.hash())?;
    }
    if let Some((f, _)) = csv {
        f.commit()?;
    }
    if let (Some(mut f), Some(path)) = (final_state, &args.final_state) {
        f.write_all(final_state_csv(world).as_bytes()).map_err(CliError::io(path))?;
        f.commit()?;
    }
    print_summary(&scene, world, &engine.label(), &summary);
    if let Some(b) = &bumps {
        outln!("bumps ({:?}):", world.settings.internal_edges);
        outln!("  {:<16} {:>8} {:>7} {:>6} {:>10}", "body", "metres", "spikes", "flips", "bumps/m");
        for r in b.rows() {
            outln!("  {:<16} {:>8.2} {:>7} {:>6} {:>10.3}", r.name, r.metres, r.spikes, r.flips, r.per_metre());
        }
    }
    outln!("hash: {:016x}", world.hash());
    Ok(())
}

fn final_state_csv(world: &World) -> String {
    let mut out = String::from("index,name,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,asleep\n");
    for (i, b) in world.bodies().iter().enumerate() {
        let (p, q, v, w) = (b.pose.translation, b.pose.rotation, b.linvel, b.angvel);
        let name = b.name.as_deref().unwrap_or("").replace([',', '\n', '"'], "_");
        out.push_str(&format!(
            "{i},{name},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n",
            p.x,
            p.y,
            p.z,
            q.x,
            q.y,
            q.z,
            q.w,
            v.x,
            v.y,
            v.z,
            w.x,
            w.y,
            w.z,
            b.is_asleep()
        ));
    }
    out
}

/// What `run` keeps of each step for its summary: the phase times (as `f32`, 24 bytes a step)
/// and running sums of the counters.
#[derive(Default)]
struct Summary {
    /// Per phase of [`PHASES`], then the total: each step's time, ms.
    times: [Vec<f32>; PHASES.len() + 1],
    sums: [u64; 4],
    toi_events: u64,
    pairs_dropped: u64,
    faults: u64,
    last: Option<StepProfile>,
}

impl Summary {
    fn add(&mut self, p: &StepProfile) {
        let phases = p.phase_ms();
        for (k, t) in phases.iter().chain([&p.total_ms]).enumerate() {
            self.times[k].push(*t as f32);
        }
        for (sum, v) in self.sums.iter_mut().zip([p.pairs, p.narrow_tests, p.manifolds, p.contacts]) {
            *sum += v as u64;
        }
        self.toi_events += p.toi_events as u64;
        self.pairs_dropped += p.pairs_dropped as u64;
        self.faults += p.faults as u64;
        self.last = Some(*p);
    }

    fn steps(&self) -> usize {
        self.times[0].len()
    }
}

/// The median and the maximum (zeros when empty); NaN sorts as equal.
pub fn median_max<T: Copy + Default + PartialOrd>(v: &mut [T]) -> (T, T) {
    if v.is_empty() {
        return (T::default(), T::default());
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    (v[v.len() / 2], v[v.len() - 1])
}

fn print_summary(scene: &Scene, world: &World, engine: &str, summary: &Summary) {
    let s = &world.settings;
    outln!(
        "scene: {} ({} bodies), {} steps of {:.4} s = {:.2} s simulated",
        if scene.name.is_empty() { "unnamed" } else { &scene.name },
        world.bodies().len(),
        summary.steps(),
        s.dt,
        summary.steps() as f64 * s.dt as f64
    );
    if engine == "Collidoscope" {
        let n = world.threads();
        outln!("engine: {engine}, {n} thread{}", if n == 1 { "" } else { "s" });
    } else {
        outln!("engine: {engine}");
    }
    outln!(
        "settings: broad phase {}, narrow phase {}, ccd {}, {} substeps x {} iterations",
        match (s.broad_phase, world.broad_phase().resolved()) {
            (BroadPhaseKind::Auto, used) => format!("auto ({})", used.cli_name()),
            (kind, _) => kind.cli_name().to_string(),
        },
        s.narrow_phase.cli_name(),
        s.ccd.cli_name(),
        s.substeps,
        s.iterations
    );
    outln!("{:<14} {:>10} {:>10}", "phase", "median ms", "max ms");
    for (name, times) in PHASES.iter().chain(&["total"]).zip(&summary.times) {
        let (med, max) = median_max(&mut times.clone());
        outln!("{name:<14} {med:>10.4} {max:>10.4}");
    }
    let steps = summary.steps().max(1) as f64;
    let [pairs, tests, manifolds, contacts] = summary.sums.map(|v| v as f64 / steps);
    outln!(
        "counters (mean per step): pairs {pairs:.1}, narrow tests {tests:.1}, manifolds {manifolds:.1}, contacts {contacts:.1}; toi events {} in all",
        summary.toi_events,
    );
    if let Some(last) = summary.last {
        outln!("final: {} bodies, {} asleep, {} contacts", last.bodies, last.sleeping_bodies, last.contacts);
    }
    if summary.pairs_dropped > 0 {
        outln!("pairs dropped over the budget: {} in all", summary.pairs_dropped);
    }
    if summary.faults > 0 {
        outln!("bodies frozen with non-finite state: {}", summary.faults);
    }
}
