//! The one binary: with no subcommand it opens the app; `run` and `check` work headless.

use clap::{Parser, Subcommand};
use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::ccd::CcdMode;
use collidoscope::narrowphase::NarrowPhaseKind;
use collidoscope::record::{Recorder, Recording};
use collidoscope::scene::AtomicFile;
use collidoscope::world::PHASES;
use collidoscope::{Scene, StepProfile, World};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cli {
    pub mod compare;
    pub mod sweep;
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
    #[arg(long, default_value_t = 120, allow_negative_numbers = true, value_parser = parse_frames)]
    frames: u32,
    /// Open side by side from the scene's start: B with this setting changed (RON value, as for
    /// `run --set`), A as the scene has it. Repeat for several settings, e.g.
    /// `--compare ccd=Toi --compare substeps=8`. `--compare engine=rapier` puts rapier3d on the
    /// B side instead (the other changes then apply to both).
    #[arg(long = "compare", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    compare: Vec<(String, String)>,
    /// Bring a panel forward (scenes, settings, profiler, inspector, view, sweep, pair,
    /// timeline); repeat for several.
    #[arg(long = "show", value_name = "PANEL")]
    show: Vec<String>,
    /// Open in presentation mode: the view, the play controls and the first `--show` panel.
    #[arg(long)]
    presentation: bool,
    /// Select this body (its index in the scene) when the app opens.
    #[arg(long, value_name = "INDEX", allow_negative_numbers = true, value_parser = parse_select)]
    select: Option<usize>,
    /// Turn a debug layer on (aabbs, contact_points, contact_normals, contact_forces, velocities, broad_phase,
    /// candidate_pairs, ccd, narrow_phase, mesh, grid, axes, trails); repeat for several.
    #[arg(long = "layer", value_name = "NAME")]
    layers: Vec<String>,
    /// Change a setting of the opened scene, as `run --set` does, e.g. `--set
    /// internal_edges=None`; repeat for several. With `--compare`, both sides start from it.
    #[arg(long = "set", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    sets: Vec<(String, String)>,
    /// Start the camera at an eye looking at a target, over the scene's camera:
    /// `--camera EX,EY,EZ,TX,TY,TZ` (metres).
    #[arg(long, value_name = "EYE,TARGET", allow_hyphen_values = true, value_parser = parse_camera)]
    camera: Option<collidoscope::scene::CameraDesc>,
    /// The window's inner size in points, e.g. `--size 1280x720` for a projector (default
    /// 1600x1000).
    #[arg(long, value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    size: Option<[f32; 2]>,
}

/// `1280x720` as a window size: two whole numbers, at least the window's smallest (800x500)
/// and at most 16384 each.
fn parse_size(s: &str) -> Result<[f32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let dim = |t: &str, name: &str, min: u32| {
        let v: u32 = t.trim().parse().map_err(|_| format!("`{s}`: the {name} `{t}` is not a whole number"))?;
        if !(min..=16384).contains(&v) {
            return Err(format!("`{s}`: the {name} {v} is outside {min}..=16384"));
        }
        Ok(v as f32)
    };
    Ok([dim(w, "width", 800)?, dim(h, "height", 500)?])
}

/// `EX,EY,EZ,TX,TY,TZ` as a camera: six finite numbers, the eye apart from the target.
fn parse_camera(s: &str) -> Result<collidoscope::scene::CameraDesc, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|x| x.trim().parse::<f32>().map_err(|e| format!("{x:?} is not a number: {e}")))
        .collect::<Result<_, _>>()?;
    if v.len() != 6 || v.iter().any(|x| !x.is_finite()) {
        return Err(format!("expected six finite numbers EX,EY,EZ,TX,TY,TZ, got {s:?}"));
    }
    use collidoscope::math::Vec3;
    let (eye, target) = (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
    if eye.distance(target) < 1e-3 {
        return Err(format!("the eye {eye} is at the target"));
    }
    Ok(collidoscope::scene::CameraDesc { eye, target })
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
    /// Run a scene once per point of a grid of settings, in parallel, and tabulate the metrics.
    Sweep(SweepArgs),
}

#[derive(clap::Args)]
struct SweepArgs {
    /// The scene to sweep (not with --merge).
    #[arg(required_unless_present = "merge")]
    scene: Option<PathBuf>,
    /// A setting and its values: FIELD=A..B (5 points), FIELD=A..B:N (N evenly spaced),
    /// FIELD=A..BxN (N spaced geometrically) or FIELD=V1,V2,... Repeat for a grid.
    #[arg(long = "vary", value_name = "FIELD=A..B[:N|xN]")]
    vary: Vec<String>,
    /// Steps each point runs (at most 1,000,000).
    #[arg(long, default_value_t = 300, allow_negative_numbers = true, value_parser = parse_steps)]
    steps: u64,
    #[command(flatten)]
    overrides: Overrides,
    /// Threads to run points on (default: every core). Each point's result does not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<u32>,
    /// Write the table as CSV.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// A bound the chosen point must meet, e.g. `jitter<1e-3` or `asleep>=10`. Repeatable.
    #[arg(long = "require", value_name = "METRIC<VALUE")]
    require: Vec<String>,
    /// Instead of running, write one `collidoscope run` command per point to this file (for GNU
    /// parallel, a Slurm array or any scheduler); each writes point-NNNN.csv beside it.
    #[arg(long, value_name = "jobs.txt", conflicts_with = "merge")]
    emit_jobs: Option<PathBuf>,
    /// Merge the point-*.csv files that emitted jobs wrote in DIR into one table.
    #[arg(long, value_name = "DIR", conflicts_with = "vary")]
    merge: Option<PathBuf>,
}

#[derive(clap::Args)]
struct CompareArgs {
    scene: PathBuf,
    /// Steps to simulate in each engine (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    steps: u64,
    #[command(flatten)]
    overrides: Overrides,
    /// Threads Collidoscope steps on (default: one, as rapier3d here). The results are the same for
    /// any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<u32>,
}

#[derive(clap::Args)]
struct RecordArgs {
    scene: PathBuf,
    /// Steps to record (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    steps: u64,
    /// Where to write the recording.
    #[arg(short, long, value_name = "REC.ron")]
    output: PathBuf,
    /// Take a keyframe snapshot every this many steps.
    #[arg(long, default_value_t = 60, allow_negative_numbers = true, value_parser = parse_keyframe_every)]
    keyframe_every: u32,
    #[command(flatten)]
    overrides: Overrides,
    /// Threads to step on (default: every core). The results are the same for any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<u32>,
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
    /// The `--set` assignments as `(field, value)`.
    fn assignments(&self) -> Result<Vec<(String, String)>, String> {
        self.sets.iter().map(|s| parse_assignment(s).map_err(|e| format!("--set {s:?}: {e}"))).collect()
    }

    /// The overrides as command-line words, to pass them on to another run.
    fn words(&self) -> Vec<String> {
        let mut w = Vec::new();
        for s in &self.sets {
            w.extend(["--set".to_string(), s.clone()]);
        }
        if let Some(k) = self.broad_phase {
            w.extend(["--broad-phase".to_string(), k.cli_name().to_string()]);
        }
        if let Some(k) = self.narrow_phase {
            w.extend(["--narrow-phase".to_string(), k.cli_name().to_string()]);
        }
        if let Some(k) = self.ccd {
            w.extend(["--ccd".to_string(), k.cli_name().to_string()]);
        }
        w
    }

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
    /// Steps to simulate (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    steps: u64,
    #[command(flatten)]
    overrides: Overrides,
    /// Threads to step on (default: every core). The results are the same for any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    threads: Option<u32>,
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
    /// Write the run's sweep metrics (jitter, penetration, energy, tunneling, sleep, divergence
    /// from the scene's own settings) as a one-row CSV, the format `sweep --merge` reads.
    #[arg(long, value_name = "FILE")]
    metrics: Option<PathBuf>,
    /// Print the ghost-collision probe per dynamic body: metres travelled on meshes, vertical
    /// speed spikes, contact normal flips and bumps per metre.
    #[arg(long)]
    bumps: bool,
}

/// Most steps one `run`, `record`, `compare` or `sweep` point may ask for: 4.6 hours of
/// simulated time at 60 Hz. Memory and time grow with the steps; the bound keeps a typo from
/// running for days.
const MAX_STEPS: u64 = 1_000_000;

/// Most body states the keyframes of one `record` may hold (about 250 MB in memory).
const MAX_KEYFRAME_STATES: u64 = 2_000_000;

fn parse_steps(s: &str) -> Result<u64, String> {
    whole(s, 0, MAX_STEPS, "steps")
}

/// Most threads `--threads` takes.
const MAX_THREADS: u64 = 1024;

fn parse_threads(s: &str) -> Result<u32, String> {
    whole(s, 1, MAX_THREADS, "threads").map(|n| n as u32)
}

fn parse_frames(s: &str) -> Result<u32, String> {
    whole(s, 0, u32::MAX as u64, "frames").map(|n| n as u32)
}

fn parse_keyframe_every(s: &str) -> Result<u32, String> {
    whole(s, 1, u32::MAX as u64, "steps").map(|n| n as u32)
}

fn parse_select(s: &str) -> Result<usize, String> {
    whole(s, 0, collidoscope::scene::MAX_BODIES - 1, "(a body's index)").map(|n| n as usize)
}

/// A whole number from `lo` to `hi`; a negative one, a fraction or a word says what to give.
fn whole(s: &str, lo: u64, hi: u64, unit: &str) -> Result<u64, String> {
    let give = format!("give a whole number from {lo} to {hi} {unit}");
    let n: i128 = s.trim().parse().map_err(|_| format!("{s:?} is not a whole number: {give}"))?;
    if n < 0 {
        Err(format!("{n} is negative: the value must be non-negative; {give}"))
    } else if n < lo as i128 || n > hi as i128 {
        Err(format!("{n} is out of range: {give}"))
    } else {
        Ok(n as u64)
    }
}

/// The subcommands, for the check of a mistyped one.
const COMMANDS: [&str; 6] = ["run", "check", "record", "replay", "compare", "sweep"];

/// A first word that is no subcommand and no file, but a subcommand's name mistyped (at most two
/// letters off, e.g. `runn`): the message naming it, since clap would take it for the app's scene.
fn mistyped_command(args: &[std::ffi::OsString]) -> Option<String> {
    let word = args.get(1)?.to_str()?;
    if word.starts_with('-') || COMMANDS.contains(&word) || Path::new(word).exists() {
        return None;
    }
    let near = COMMANDS.iter().filter(|c| edit_distance(word, c) <= 2).min_by_key(|c| edit_distance(word, c))?;
    Some(format!(
        "unknown command '{word}': did you mean '{near}'? (commands: {}; a scene to open in the app must be an existing file)",
        COMMANDS.join(", ")
    ))
}

/// Levenshtein distance, by characters.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
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
    let argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if let Some(message) = mistyped_command(&argv) {
        eprintln!("error: {message}");
        return ExitCode::from(1);
    }
    let cli = match Cli::try_parse_from(&argv) {
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
        Some(Command::Sweep(args)) => cli::sweep::sweep(&args),
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
    let AppArgs { scene, screenshot, frames, compare, show, presentation, select, layers, sets, camera, size } = args;
    // The screenshot is written after the frames are rendered: a path it cannot go to fails now.
    if let Some(out) = &screenshot {
        AtomicFile::check(out).map_err(|e| e.to_string())?;
    }
    let reopen_last = scene.is_none() && screenshot.is_none();
    let scene = scene.unwrap_or_else(default_scene);
    let show =
        show.iter().map(|p| p.parse()).collect::<Result<Vec<_>, String>>().map_err(|e| format!("--show: {e}"))?;
    collidoscope::app::run(collidoscope::app::AppOptions {
        scene,
        screenshot,
        frames,
        reopen_last,
        compare,
        show,
        presentation,
        select,
        layers,
        sets,
        camera,
        size,
    })
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
    world.set_threads(args.threads.map_or(0, |n| n as usize));

    // Outputs are opened before the run, so a path that cannot be written fails at once; rows
    // stream to a temporary file that replaces the target only when the run completes.
    let io = |e: std::io::Error, path: &Path| format!("{}: {e}", path.display());
    let mut csv = match &args.csv {
        Some(path) => {
            let mut f = AtomicFile::create(path).map_err(|e| e.to_string())?;
            writeln!(f, "{}", StepProfile::CSV_HEADER).map_err(|e| io(e, path))?;
            Some((f, path))
        }
        None => None,
    };
    let final_state = args.final_state.as_deref().map(AtomicFile::create).transpose().map_err(|e| e.to_string())?;
    let metrics = args.metrics.as_deref().map(AtomicFile::create).transpose().map_err(|e| e.to_string())?;
    if metrics.is_some() && args.engine != "collidoscope" {
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
    let mut engine = compare::Stepper::new(&args.engine, world)?;
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
            writeln!(f, "{}", p.csv_row(step)).map_err(|e| io(e, path))?;
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
        cli::sweep::write_metrics(out, &args.overrides, &m, world.hash())?;
    }
    if let Some((f, _)) = csv {
        f.commit().map_err(|e| e.to_string())?;
    }
    if let (Some(mut f), Some(path)) = (final_state, &args.final_state) {
        f.write_all(final_state_csv(world).as_bytes()).map_err(|e| io(e, path))?;
        f.commit().map_err(|e| e.to_string())?;
    }
    print_summary(&scene, world, engine.label(), &summary);
    if let Some(b) = &bumps {
        println!("bumps ({:?}):", world.settings.internal_edges);
        println!("  {:<16} {:>8} {:>7} {:>6} {:>10}", "body", "metres", "spikes", "flips", "bumps/m");
        for r in b.rows() {
            println!("  {:<16} {:>8.2} {:>7} {:>6} {:>10.3}", r.name, r.metres, r.spikes, r.flips, r.per_metre());
        }
    }
    println!("hash: {:016x}", world.hash());
    Ok(())
}

fn record(args: &RecordArgs) -> Result<(), String> {
    let mut scene = Scene::load(&args.scene).map_err(|e| e.to_string())?;
    args.overrides.apply(&mut scene.settings)?;
    let mut world = scene.build().map_err(|e| e.to_string())?;
    world.set_threads(args.threads.map_or(0, |n| n as usize));
    let keyframes = args.steps / args.keyframe_every as u64 + 1;
    let states = keyframes.saturating_mul(world.bodies().len() as u64);
    if states > MAX_KEYFRAME_STATES {
        let every =
            (args.steps * world.bodies().len() as u64).div_ceil(MAX_KEYFRAME_STATES - world.bodies().len() as u64);
        return Err(format!(
            "{} steps of {} bodies with a keyframe every {} steps would keep {states} body states, more than the \
             limit of {MAX_KEYFRAME_STATES}: record fewer steps or pass --keyframe-every {every} or more",
            args.steps,
            world.bodies().len(),
            args.keyframe_every
        ));
    }
    let output = AtomicFile::create(&args.output).map_err(|e| e.to_string())?;
    let mut recorder = Recorder::new(&scene, &world, args.keyframe_every);
    for _ in 0..args.steps {
        recorder.step(&mut world);
    }
    let rec = recorder.finish();
    rec.write(output).map_err(|e| e.to_string())?;
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
fn median_max<T: Copy + Default + PartialOrd>(v: &mut [T]) -> (T, T) {
    if v.is_empty() {
        return (T::default(), T::default());
    }
    v.sort_by(|a, b| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal));
    (v[v.len() / 2], v[v.len() - 1])
}

fn print_summary(scene: &Scene, world: &World, engine: &str, summary: &Summary) {
    let s = &world.settings;
    println!(
        "scene: {} ({} bodies), {} steps of {:.4} s = {:.2} s simulated",
        if scene.name.is_empty() { "unnamed" } else { &scene.name },
        world.bodies().len(),
        summary.steps(),
        s.dt,
        summary.steps() as f64 * s.dt as f64
    );
    if engine == "Collidoscope" {
        let n = world.threads();
        println!("engine: {engine}, {n} thread{}", if n == 1 { "" } else { "s" });
    } else {
        println!("engine: {engine}");
    }
    println!(
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
    println!("{:<14} {:>10} {:>10}", "phase", "median ms", "max ms");
    for (name, times) in PHASES.iter().chain(&["total"]).zip(&summary.times) {
        let (med, max) = median_max(&mut times.clone());
        println!("{name:<14} {med:>10.4} {max:>10.4}");
    }
    let steps = summary.steps().max(1) as f64;
    let [pairs, tests, manifolds, contacts] = summary.sums.map(|v| v as f64 / steps);
    println!(
        "counters (mean per step): pairs {pairs:.1}, narrow tests {tests:.1}, manifolds {manifolds:.1}, contacts {contacts:.1}; toi events {} in all",
        summary.toi_events,
    );
    if let Some(last) = summary.last {
        println!("final: {} bodies, {} asleep, {} contacts", last.bodies, last.sleeping_bodies, last.contacts);
    }
    if summary.pairs_dropped > 0 {
        println!("pairs dropped over the budget: {} in all", summary.pairs_dropped);
    }
    if summary.faults > 0 {
        println!("bodies frozen with non-finite state: {}", summary.faults);
    }
}
