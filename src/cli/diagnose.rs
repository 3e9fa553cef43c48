//! `collidoscope diagnose`: a scene or recording run, its events found, each one's cause
//! measured and the fixes it suggests tried (see `collidoscope::diagnose`).

use super::{CliError, Overrides, parse_steps};
use collidoscope::Scene;
use collidoscope::diagnose::diagnose;
use collidoscope::record::{Recording, is_binary};
use collidoscope::scene::{decode_text, read_file, write_atomic};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct DiagnoseArgs {
    /// A scene file, or a recording (binary or RON) whose scene is diagnosed.
    pub case: PathBuf,
    /// Steps to run (default: the recording's length, or 300 for a scene).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: Option<u64>,
    /// Print the report as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// Also write the JSON report to this file.
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    #[command(flatten)]
    pub overrides: Overrides,
}

/// Steps run for a scene when `--steps` is not given: five seconds at 60 Hz.
const DEFAULT_STEPS: u64 = 300;

pub fn run(args: &DiagnoseArgs) -> Result<(), CliError> {
    // The file is read once: a binary recording (told by its magic bytes) is decoded without
    // re-running it, since diagnose runs its scene anyway; text is a scene, or failing that a
    // RON recording. When neither reads, the scene's error is reported.
    let path = args.case.as_path();
    let bytes = read_file(path)?;
    let rec = if is_binary(&bytes) {
        Recording::from_binary_unreplayed(&bytes, path)?
    } else {
        let text = decode_text(&bytes, path)?;
        match Scene::parse(text, path) {
            Ok(mut scene) => {
                args.overrides.apply(&mut scene.settings)?;
                return report(args, &scene, None);
            }
            Err(scene_error) => Recording::parse(text, path).map_err(|_| scene_error)?,
        }
    };
    if !rec.actions.is_empty() {
        return Err(format!(
            "{}: the recording holds {} user actions; diagnose runs a scene without actions, so give the scene file",
            args.case.display(),
            rec.actions.len()
        )
        .into());
    }
    let steps = rec.steps();
    let mut scene = rec.scene;
    args.overrides.apply(&mut scene.settings)?;
    report(args, &scene, Some(steps))
}

/// Diagnoses `scene` for `--steps`, else the recording's `recorded` steps, else the default,
/// and prints (and writes) the report.
fn report(args: &DiagnoseArgs, scene: &Scene, recorded: Option<u64>) -> Result<(), CliError> {
    let steps = args.steps.or(recorded).unwrap_or(DEFAULT_STEPS);
    if let Some(path) = &args.report {
        collidoscope::scene::AtomicFile::check(path)?;
    }
    let report = diagnose(scene, steps).map_err(|e| CliError::Usage(format!("{}: {e}", args.case.display())))?;
    let json = serde_json::to_string_pretty(&report).expect("a report always serialises");
    if let Some(path) = &args.report {
        write_atomic(path, json.as_bytes())?;
    }
    // A closed pipe (`| head`) ends the output quietly.
    use std::io::Write;
    let text = if args.json { json + "\n" } else { report.to_text() };
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
    Ok(())
}
