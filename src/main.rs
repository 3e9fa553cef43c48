//! The one binary: with no subcommand it opens the app; `run` and `check` work headless.

use clap::{Parser, Subcommand};
use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::ccd::CcdMode;
use collidoscope::narrowphase::NarrowPhaseKind;
use collidoscope::record::{Recorder, Recording};
use collidoscope::world::PHASES;
use collidoscope::{Scene, StepProfile, World};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cli {
    pub mod compare;
}
use cli::compare;

#[derive(Parser)]
#[command(name = "collidoscope", version, about = "A 3D rigid-body sandbox with an inspectable collision pipeline")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    app: AppArgs,
}

/// What opens the app (no subcommand).
#[derive(clap::Args)]
struct AppArgs {
    /// Scene to open in the app (default: scenes/default.ron).
    scene: Option<PathBuf>,
    /// Render, save a PNG of the window to this file, and exit.
    #[arg(long, value_name = "OUT.png")]
    screenshot: Option<PathBuf>,
    /// Frames to simulate and render before the screenshot.
    #[arg(long, default_value_t = 120)]
    frames: u32,
    /// Open side by side from the scene's start: B with this setting changed (RON value, as for
    /// `run --set`), A as the scene has it. Repeat for several settings, e.g.
    /// `--compare ccd=Toi --compare substeps=8`. `--compare engine=rapier` puts rapier3d on the
    /// B side instead (the other changes then apply to both).
    #[arg(long = "compare", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    compare: Vec<(String, String)>,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene without a window and print per-phase timings, counters and a state hash.
    Run(RunArgs),
    /// Validate scene files.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Simulate a scene and save a recording: the scene, keyframes and every step's hash.
    Record(RecordArgs),
    /// Re-run recordings and check every step's hash against them.
    Replay {
        #[arg(required = true, value_name = "REC.ron")]
        files: Vec<PathBuf>,
    },
    /// Run a scene in Collidoscope and in rapier3d, one after the other in this process, and
    /// print side by side: time per step, per-body divergence, and stability figures.
    Compare(CompareArgs),
}

#[derive(clap::Args)]
struct CompareArgs {
    scene: PathBuf,
    /// Steps to simulate in each engine.
    #[arg(long, default_value_t = 600)]
    steps: u64,
    #[command(flatten)]
    overrides: Overrides,
}

#[derive(clap::Args)]
struct RecordArgs {
    scene: PathBuf,
    /// Steps to record.
    #[arg(long, default_value_t = 600)]
    steps: u64,
    /// Where to write the recording.
    #[arg(short, long, value_name = "REC.ron")]
    output: PathBuf,
    /// Take a keyframe snapshot every this many steps.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u32).range(1..))]
    keyframe_every: u32,
    #[command(flatten)]
    overrides: Overrides,
}

/// Settings given on the command line, applied over the scene's.
#[derive(clap::Args)]
struct Overrides {
    /// Override a setting by its scene-file name with a RON value, e.g. `--set slop=0.01`.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    sets: Vec<String>,
    /// Broad phase to use.
    #[arg(long, value_name = "NAME", value_parser = parse_broad_phase)]
    broad_phase: Option<BroadPhaseKind>,
    /// Narrow-phase method to use.
    #[arg(long, value_name = "NAME", value_parser = parse_narrow_phase)]
    narrow_phase: Option<NarrowPhaseKind>,
    /// Continuous collision mode.
    #[arg(long, value_name = "MODE", value_parser = parse_ccd)]
    ccd: Option<CcdMode>,
}

impl Overrides {
    fn apply(&self, settings: &mut collidoscope::Settings) -> Result<(), String> {
        for s in &self.sets {
            let (field, value) = parse_assignment(s).map_err(|e| format!("--set {s:?}: {e}"))?;
            settings.set_field(&field, &value).map_err(|e| format!("--set {s:?}: {e}"))?;
        }
        if let Some(k) = self.broad_phase {
            settings.broad_phase = k;
        }
        if let Some(k) = self.narrow_phase {
            settings.narrow_phase = k;
        }
        if let Some(k) = self.ccd {
            settings.ccd = k;
        }
        Ok(())
    }
}

#[derive(clap::Args)]
struct RunArgs {
    scene: PathBuf,
    /// Steps to simulate.
    #[arg(long, default_value_t = 600)]
    steps: u64,
    #[command(flatten)]
    overrides: Overrides,
    /// Write one CSV row of timings and counters per step.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write one CSV row per body after the last step.
    #[arg(long, value_name = "FILE")]
    final_state: Option<PathBuf>,
    /// The engine that simulates: Collidoscope, or rapier3d with the scene mapped onto it.
    #[arg(long, value_name = "NAME", default_value = "collidoscope",
          value_parser = clap::builder::PossibleValuesParser::new(["collidoscope", "rapier"]))]
    engine: String,
}

/// `FIELD=VALUE`, trimmed.
fn parse_assignment(s: &str) -> Result<(String, String), String> {
    let (field, value) = s.split_once('=').ok_or("expected FIELD=VALUE, e.g. slop=0.01")?;
    Ok((field.trim().to_string(), value.trim().to_string()))
}

fn parse_choice<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str) -> Result<T, String> {
    all.iter().copied().find(|&k| name(k) == s).ok_or_else(|| {
        let names: Vec<&str> = all.iter().map(|&k| name(k)).collect();
        format!("unknown name {s:?}; choose one of: {}", names.join(", "))
    })
}

fn parse_broad_phase(s: &str) -> Result<BroadPhaseKind, String> {
    parse_choice(BroadPhaseKind::ALL, BroadPhaseKind::cli_name, s)
}

fn parse_narrow_phase(s: &str) -> Result<NarrowPhaseKind, String> {
    parse_choice(NarrowPhaseKind::ALL, NarrowPhaseKind::cli_name, s)
}

fn parse_ccd(s: &str) -> Result<CcdMode, String> {
    parse_choice(CcdMode::ALL, CcdMode::cli_name, s)
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    let result = match cli.command {
        Some(Command::Run(args)) => run(&args),
        Some(Command::Check { files }) => check(&files),
        Some(Command::Record(args)) => record(&args),
        Some(Command::Replay { files }) => replay(&files),
        Some(Command::Compare(args)) => compare::compare(&args),
        None => open_app(cli.app),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}

/// `scenes/default.ron` in the working directory, or else beside the crate's manifest.
fn default_scene() -> PathBuf {
    let local = PathBuf::from("scenes/default.ron");
    if local.exists() { local } else { Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron") }
}

#[cfg(feature = "gui")]
fn open_app(args: AppArgs) -> Result<(), String> {
    let AppArgs { scene, screenshot, frames, compare } = args;
    let reopen_last = scene.is_none() && screenshot.is_none();
    let scene = scene.unwrap_or_else(default_scene);
    collidoscope::app::run(collidoscope::app::AppOptions { scene, screenshot, frames, reopen_last, compare })
}

#[cfg(not(feature = "gui"))]
fn open_app(_args: AppArgs) -> Result<(), String> {
    let _ = default_scene;
    Err("this build has no window (built without the `gui` feature); use `collidoscope run SCENE`".into())
}

fn check(files: &[PathBuf]) -> Result<(), String> {
    let mut failed = 0;
    for f in files {
        match Scene::load(f) {
            Ok(scene) => println!("ok: {} ({} bodies)", f.display(), scene.expanded_bodies().len()),
            Err(e) => {
                println!("{e}");
                failed += 1;
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} scene files failed the check", files.len())) } else { Ok(()) }
}

fn run(args: &RunArgs) -> Result<(), String> {
    let scene = Scene::load(&args.scene).map_err(|e| e.to_string())?;
    let mut settings = scene.settings.clone();
    args.overrides.apply(&mut settings)?;
    let mut world = scene.build().map_err(|e| e.to_string())?;
    world.set_settings(settings);
    let mut engine = compare::Stepper::new(&args.engine, world)?;

    let mut csv = args.csv.as_ref().map(|_| format!("{}\n", StepProfile::CSV_HEADER));
    let mut profiles = Vec::with_capacity(args.steps as usize);
    for step in 1..=args.steps {
        engine.step();
        let p = *engine.profile();
        if let Some(csv) = csv.as_mut() {
            csv.push_str(&p.csv_row(step));
            csv.push('\n');
        }
        profiles.push(p);
    }
    let world = engine.world();
    if let (Some(path), Some(csv)) = (&args.csv, csv) {
        collidoscope::scene::write_atomic(path, csv.as_bytes()).map_err(|e| e.to_string())?;
    }
    if let Some(path) = &args.final_state {
        collidoscope::scene::write_atomic(path, final_state_csv(world).as_bytes()).map_err(|e| e.to_string())?;
    }
    print_summary(&scene, world, engine.label(), &profiles);
    println!("hash: {:016x}", world.hash());
    Ok(())
}

fn record(args: &RecordArgs) -> Result<(), String> {
    let mut scene = Scene::load(&args.scene).map_err(|e| e.to_string())?;
    args.overrides.apply(&mut scene.settings)?;
    let mut world = scene.build().map_err(|e| e.to_string())?;
    let mut recorder = Recorder::new(&scene, &world, args.keyframe_every);
    for _ in 0..args.steps {
        recorder.step(&mut world);
    }
    let rec = recorder.finish();
    rec.save(&args.output).map_err(|e| e.to_string())?;
    println!("recorded {} steps ({} keyframes) to {}", rec.steps(), rec.keyframes.len(), args.output.display());
    println!("hash: {:016x}", world.hash());
    Ok(())
}

fn replay(files: &[PathBuf]) -> Result<(), String> {
    let mut failed = 0;
    for f in files {
        let outcome = Recording::load(f)
            .map_err(|e| e.to_string())
            .and_then(|rec| rec.verify().map_err(|d| format!("{}: {d}", f.display())));
        match outcome {
            Ok(n) => println!("{}: verified {n} steps", f.display()),
            Err(e) => {
                println!("{e}");
                failed += 1;
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} recordings failed to replay", files.len())) } else { Ok(()) }
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

fn median_max(mut v: Vec<f64>) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() - 1])
}

fn print_summary(scene: &Scene, world: &World, engine: &str, profiles: &[StepProfile]) {
    let s = &world.settings;
    println!(
        "scene: {} ({} bodies), {} steps of {:.4} s = {:.2} s simulated",
        if scene.name.is_empty() { "unnamed" } else { &scene.name },
        world.bodies().len(),
        profiles.len(),
        s.dt,
        profiles.len() as f64 * s.dt as f64
    );
    println!("engine: {engine}");
    println!(
        "settings: broad phase {}, narrow phase {}, ccd {}, {} substeps x {} iterations",
        s.broad_phase.cli_name(),
        s.narrow_phase.cli_name(),
        s.ccd.cli_name(),
        s.substeps,
        s.iterations
    );
    println!("{:<14} {:>10} {:>10}", "phase", "median ms", "max ms");
    let mut rows: Vec<(&str, Vec<f64>)> = PHASES
        .iter()
        .enumerate()
        .map(|(k, name)| (*name, profiles.iter().map(|p| p.phase_ms()[k]).collect()))
        .collect();
    rows.push(("total", profiles.iter().map(|p| p.total_ms).collect()));
    for (name, v) in rows {
        let (med, max) = median_max(v);
        println!("{name:<14} {med:>10.4} {max:>10.4}");
    }
    let avg = |f: fn(&StepProfile) -> u32| {
        if profiles.is_empty() {
            0.0
        } else {
            profiles.iter().map(|p| f(p) as f64).sum::<f64>() / profiles.len() as f64
        }
    };
    let total_toi: u64 = profiles.iter().map(|p| p.toi_events as u64).sum();
    println!(
        "counters (mean per step): pairs {:.1}, narrow tests {:.1}, manifolds {:.1}, contacts {:.1}; toi events {total_toi} in all",
        avg(|p| p.pairs),
        avg(|p| p.narrow_tests),
        avg(|p| p.manifolds),
        avg(|p| p.contacts),
    );
    if let Some(last) = profiles.last() {
        println!("final: {} bodies, {} asleep, {} contacts", last.bodies, last.sleeping_bodies, last.contacts);
    }
}
