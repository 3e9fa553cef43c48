//! `collidoscope diagnose`: a scene or recording run, its events found, each one's cause
//! measured and the fixes it suggests tried (see `collidoscope::diagnose`).

use super::{CliError, Overrides, parse_steps};
use collidoscope::Scene;
use collidoscope::diagnose::{Report, diagnose};
use collidoscope::record::Case;
use collidoscope::scene::write_atomic;
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
    /// Also write a case bundle, a zip file (`case.zip`) or a folder: the minimal scene (shrunk
    /// for the report's first diagnosed event), its binary recording, the report (text and JSON) and a clip
    /// around the event (when a display is available). `collidoscope open` opens it.
    #[arg(long, value_name = "case.zip|DIR/")]
    pub bundle: Option<PathBuf>,
    #[command(flatten)]
    pub overrides: Overrides,
}

/// Steps run for a scene when `--steps` is not given: five seconds at 60 Hz.
const DEFAULT_STEPS: u64 = 300;

pub fn run(args: &DiagnoseArgs) -> Result<(), CliError> {
    super::check_outputs(&[&args.case], &[("--report", args.report.as_deref()), ("--bundle", args.bundle.as_deref())])?;
    let (mut scene, recorded) = match Case::load_for_rerun(&args.case)? {
        Case::Scene(scene) => (*scene, None),
        Case::Recording(rec) => {
            if !rec.actions.is_empty() {
                return Err(format!(
                    "{}: the recording holds {} user actions; diagnose runs a scene without actions, so give the scene file",
                    args.case.display(),
                    rec.actions.len()
                )
                .into());
            }
            // A recording is diagnosed as it was recorded: other settings or more steps would be
            // another run, which its scene gives.
            let changes = args.overrides.words();
            if !changes.is_empty() {
                return Err(format!(
                    "{}: {} changes the settings; a recording is diagnosed with the settings it was recorded with (give its scene file to try others)",
                    args.case.display(),
                    changes.join(" ")
                )
                .into());
            }
            if let Some(steps) = args.steps.filter(|&s| s > rec.steps()) {
                return Err(format!(
                    "{}: --steps {steps}: the recording holds {} steps (give its scene file to run longer)",
                    args.case.display(),
                    rec.steps()
                )
                .into());
            }
            (rec.scene.clone(), Some(rec.steps()))
        }
    };
    args.overrides.apply(&mut scene.settings)?;
    report(args, &scene, recorded)
}

/// Diagnoses `scene` for `--steps`, else the recording's `recorded` steps, else the default,
/// and prints (and writes) the report and the bundle.
fn report(args: &DiagnoseArgs, scene: &Scene, recorded: Option<u64>) -> Result<(), CliError> {
    let steps = args.steps.or(recorded).unwrap_or(DEFAULT_STEPS);
    if let Some(path) = &args.report {
        collidoscope::scene::AtomicFile::check(path)?;
    }
    if let Some(path) = &args.bundle {
        super::bundle::check(path)?;
    }
    let report = diagnose(scene, steps).map_err(|e| CliError::Usage(format!("{}: {e}", args.case.display())))?;
    let json = to_json(&report);
    if let Some(path) = &args.report {
        write_atomic(path, json.as_bytes())?;
    }
    let text = if args.json { json + "\n" } else { report.to_text() };
    super::write_out(format_args!("{text}"));
    if let Some(path) = &args.bundle {
        let (bundle, summary) = super::bundle::make(&args.case, scene, steps, &report)?;
        bundle.write(path).map_err(|e| CliError::Usage(e.to_string()))?;
        eprintln!("{summary}");
        eprintln!("wrote {} (open it with `collidoscope open {}`)", path.display(), path.display());
    }
    Ok(())
}

/// The report as JSON.
pub fn to_json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("a report always serialises")
}
