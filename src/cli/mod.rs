//! The subcommands, one module each, and the flags they share: the settings overrides and the
//! checked whole numbers.

/// `println!` for the commands' output: after the reader closes the pipe (`collidoscope run … |
/// head`) the output is dropped quietly instead of panicking ([`write_out`]).
macro_rules! outln {
    ($($t:tt)*) => {
        $crate::cli::write_out(format_args!("{}\n", format_args!($($t)*)))
    };
}

pub mod app;
pub mod bundle;
pub mod check;
pub mod clip;
pub mod compare;
pub mod diagnose;
pub mod record;
pub mod replay;
pub mod run;
pub mod shrink;
pub mod sweep;

use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::ccd::CcdMode;
use collidoscope::narrowphase::NarrowPhaseKind;
use collidoscope::scene::SceneError;
use collidoscope::sweep::{CsvError, SweepError};
use std::path::{Path, PathBuf};

/// Why a command failed; `main` prints it after `error: `.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A scene, recording or output file could not be read, checked or written.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A sweep could not be set up or run.
    #[error(transparent)]
    Sweep(#[from] SweepError),
    /// A sweep's point file could not be read.
    #[error("{}: {error}", .path.display())]
    Csv {
        /// The file.
        path: PathBuf,
        /// What is wrong in it.
        error: CsvError,
    },
    /// The system refused a read or write.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The app could not open, or could not write the picture asked for.
    #[cfg(feature = "gui")]
    #[error(transparent)]
    App(#[from] collidoscope::app::AppError),
    /// The command line asks for something this build or the inputs cannot do, or some of
    /// several files failed (each already reported); the message says which and what to give.
    #[error("{0}")]
    Usage(String),
}

impl CliError {
    /// An I/O error on `path`.
    pub fn io(path: &Path) -> impl FnOnce(std::io::Error) -> CliError + '_ {
        move |source| CliError::Io { path: path.to_path_buf(), source }
    }
}

impl From<String> for CliError {
    fn from(message: String) -> Self {
        CliError::Usage(message)
    }
}

impl From<&str> for CliError {
    fn from(message: &str) -> Self {
        CliError::Usage(message.to_string())
    }
}

/// Refuses a command whose outputs would overwrite one of its inputs or one another:
/// `run jitter.ron --csv jitter.ron` replaced the scene with the table, and `diagnose k.cdrec
/// --report k.cdrec` the recording with the report. `outputs` are each option's name and path.
/// Two paths are the same file when they name one file once resolved (links and `..` too),
/// whether the output exists yet or not.
pub(crate) fn check_outputs(inputs: &[&Path], outputs: &[(&str, Option<&Path>)]) -> Result<(), CliError> {
    let outputs: Vec<(&str, &Path)> = outputs.iter().filter_map(|(name, p)| p.map(|p| (*name, p))).collect();
    for (k, (name, out)) in outputs.iter().enumerate() {
        if let Some(input) = inputs.iter().find(|i| same_file(i, out)) {
            return Err(format!(
                "{name} {}: that is the input {}; writing there would replace it (give another file)",
                out.display(),
                input.display()
            )
            .into());
        }
        if let Some((other, _)) = outputs[..k].iter().find(|(_, o)| same_file(o, out)) {
            return Err(format!("{name} and {other} both write {}: give each its own file", out.display()).into());
        }
    }
    Ok(())
}

/// Whether two paths name the same file: both resolved where they exist, else by their folder
/// resolved and their name.
fn same_file(a: &Path, b: &Path) -> bool {
    let resolve = |p: &Path| {
        p.canonicalize().ok().or_else(|| {
            let name = p.file_name()?;
            let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            Some(parent.canonicalize().ok()?.join(name))
        })
    };
    match (resolve(a), resolve(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a == b,
    }
}

/// Settings given on the command line, applied over the scene's.
#[derive(clap::Args)]
pub struct Overrides {
    /// Override a setting by its scene-file name with a RON value, e.g. `--set slop=0.01`.
    #[arg(long = "set", value_name = "FIELD=VALUE")]
    pub sets: Vec<String>,
    /// Broad phase to use.
    #[arg(long, value_name = "NAME", value_parser = parse_broad_phase)]
    pub broad_phase: Option<BroadPhaseKind>,
    /// Narrow-phase method to use.
    #[arg(long, value_name = "NAME", value_parser = parse_narrow_phase)]
    pub narrow_phase: Option<NarrowPhaseKind>,
    /// Continuous collision mode.
    #[arg(long, value_name = "MODE", value_parser = parse_ccd)]
    pub ccd: Option<CcdMode>,
}

impl Overrides {
    /// The `--set` assignments as `(field, value)`.
    pub fn assignments(&self) -> Result<Vec<(String, String)>, CliError> {
        self.sets.iter().map(|s| parse_assignment(s).map_err(|e| format!("--set {s:?}: {e}").into())).collect()
    }

    /// The overrides as command-line words, to pass them on to another run.
    pub fn words(&self) -> Vec<String> {
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

    pub fn apply(&self, settings: &mut collidoscope::Settings) -> Result<(), CliError> {
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

/// Most steps one `run`, `record`, `compare` or `sweep` point may ask for: 4.6 hours of
/// simulated time at 60 Hz. Memory and time grow with the steps; the bound keeps a typo from
/// running for days.
const MAX_STEPS: u64 = 1_000_000;

pub fn parse_steps(s: &str) -> Result<u64, String> {
    whole(s, 0, MAX_STEPS, "steps")
}

/// Most threads `--threads` takes.
const MAX_THREADS: u64 = 1024;

pub fn parse_threads(s: &str) -> Result<u32, String> {
    whole(s, 1, MAX_THREADS, "threads").map(|n| n as u32)
}

/// A whole number from `lo` to `hi`; a negative one, a fraction or a word says what to give.
pub fn whole(s: &str, lo: u64, hi: u64, unit: &str) -> Result<u64, String> {
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

/// `WIDTHxHEIGHT`: two whole numbers, each from its `min` to `max`.
pub fn parse_dims(s: &str, min: [u32; 2], max: u32) -> Result<[u32; 2], String> {
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(|| format!("`{s}`: expected WIDTHxHEIGHT, e.g. 1280x720"))?;
    let dim = |t: &str, name: &str, min: u32| {
        let v: u32 = t.trim().parse().map_err(|_| format!("`{s}`: the {name} `{t}` is not a whole number"))?;
        if !(min..=max).contains(&v) {
            return Err(format!("`{s}`: the {name} {v} is outside {min}..={max}"));
        }
        Ok(v)
    };
    Ok([dim(w, "width", min[0])?, dim(h, "height", min[1])?])
}

/// `FIELD=VALUE`, trimmed.
pub fn parse_assignment(s: &str) -> Result<(String, String), String> {
    let (field, value) = s.split_once('=').ok_or("expected FIELD=VALUE, e.g. slop=0.01")?;
    Ok((field.trim().to_string(), value.trim().to_string()))
}

pub fn parse_choice<T: Copy>(all: &[T], name: fn(T) -> &'static str, s: &str) -> Result<T, String> {
    // In any spelling, as `--set` takes it: `toi`, `Toi`, `brute-force`, `BruteForce`.
    use collidoscope::settings::choice_key;
    let wanted = choice_key(s);
    all.iter().copied().find(|&k| choice_key(name(k)) == wanted).ok_or_else(|| {
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

/// Writes to standard output. Once the reader is gone (a closed pipe) the rest of the output
/// is dropped and the command goes on with what it still has to do (files to write); any other
/// write error ends the process with the error.
pub(crate) fn write_out(args: std::fmt::Arguments) {
    use std::io::Write;
    use std::sync::atomic::{AtomicBool, Ordering};
    static GONE: AtomicBool = AtomicBool::new(false);
    if GONE.load(Ordering::Relaxed) {
        return;
    }
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            GONE.store(true, Ordering::Relaxed);
            return;
        }
        eprintln!("error: standard output: {e}");
        std::process::exit(1);
    }
}

/// Warns on standard error about settings that let bodies end where they cannot be in this
/// world (valid values that do not suit its bodies: [`collidoscope::world::slop_warning`]).
pub(crate) fn warn_about_settings(world: &collidoscope::World) {
    use collidoscope::world::{slop_warning, thinnest_fixed_solid};
    if let Some(w) = slop_warning(world.settings.slop, world.bodies(), thinnest_fixed_solid(world.bodies())) {
        eprintln!("warning: {w}");
    }
}
