//! The one binary: parses the command line and hands it to the subcommand's module in `cli/`;
//! with no subcommand it opens the app.

use clap::{Parser, Subcommand};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

mod cli;
use cli::app::AppArgs;
use cli::clip::ClipArgs;
use cli::compare::CompareArgs;
use cli::diagnose::DiagnoseArgs;
use cli::record::RecordArgs;
use cli::run::RunArgs;
use cli::shrink::ShrinkArgs;
use cli::sweep::SweepArgs;

#[derive(Parser)]
#[command(name = "collidoscope", version, about = "A 3D rigid-body sandbox with an inspectable collision pipeline")]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    app: AppArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate a scene without a window and print per-phase timings, counters and a state hash.
    Run(RunArgs),
    /// Validate scene and lesson files.
    Check {
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Simulate a scene and save a recording: the scene, keyframes and every step's hash.
    Record(RecordArgs),
    /// Re-run recordings (binary or RON) and check every step's hash against them.
    Replay {
        #[arg(required = true, value_name = "REC")]
        files: Vec<PathBuf>,
    },
    /// Run a scene in Collidoscope and in rapier3d, one after the other in this process, and
    /// print side by side: time per step, per-body divergence, and stability figures.
    Compare(CompareArgs),
    /// Run a scene once per point of a grid of settings, in parallel, and tabulate the metrics.
    Sweep(SweepArgs),
    /// Run a scene or recording, find its events (tunneling, jitter, explosions...), measure
    /// each one's cause and try the fixes it suggests from the snapshot before it.
    Diagnose(DiagnoseArgs),
    /// Remove bodies from a scene while an event still happens, and write the smallest scene.
    Shrink(ShrinkArgs),
    /// Render a scene or recording over a range of steps into an animated GIF or PNG sequence
    /// (needs a display: run it under xvfb-run or xshot on a machine without one).
    Clip(ClipArgs),
    /// Open a case bundle (from `diagnose --bundle`) in the app: its scene, its recording on the
    /// timeline.
    Open {
        /// The bundle: a .zip file or a folder.
        #[arg(value_name = "BUNDLE")]
        bundle: PathBuf,
    },
}

/// The subcommands, for the check of a mistyped one.
const COMMANDS: [&str; 10] =
    ["run", "check", "record", "replay", "compare", "sweep", "diagnose", "shrink", "clip", "open"];

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
        Some(Command::Run(args)) => cli::run::run(&args),
        Some(Command::Check { files }) => cli::check::check(&files),
        Some(Command::Record(args)) => cli::record::record(&args),
        Some(Command::Replay { files }) => cli::replay::replay(&files),
        Some(Command::Sweep(args)) => cli::sweep::sweep(&args),
        Some(Command::Compare(args)) => cli::compare::compare(&args),
        Some(Command::Diagnose(args)) => cli::diagnose::run(&args),
        Some(Command::Shrink(args)) => cli::shrink::run(&args),
        Some(Command::Clip(args)) => cli::clip::run(&args),
        Some(Command::Open { bundle }) => cli::app::open_bundle(&bundle),
        None => cli::app::open_app(cli.app),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(1)
        }
    }
}
