//! `collidoscope sweep`: a grid of settings run in parallel, a table of metrics, the cheapest
//! point that meets the bounds; or the same work as one `run` command per point for a batch
//! system (`--emit-jobs`), merged back afterwards (`--merge`).

use super::{CliError, Overrides, parse_steps, parse_threads};
use collidoscope::Scene;
use collidoscope::scene::AtomicFile;
use collidoscope::sweep::{self, METRIC_NAMES, Metrics, Requirement};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

#[derive(clap::Args)]
pub struct SweepArgs {
    /// The scene to sweep (not with --merge).
    #[arg(required_unless_present = "merge")]
    pub scene: Option<PathBuf>,
    /// A setting and its values: FIELD=A..B (5 points), FIELD=A..B:N (N evenly spaced),
    /// FIELD=A..BxN (N spaced geometrically) or FIELD=V1,V2,... Repeat for a grid.
    #[arg(long = "vary", value_name = "FIELD=A..B[:N|xN]")]
    pub vary: Vec<String>,
    /// Steps each point runs (at most 1,000,000).
    #[arg(long, default_value_t = 300, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Threads to run points on (default: every core). Each point's result does not depend on it.
    #[arg(long, allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
    /// Write the table as CSV.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// A bound the chosen point must meet, e.g. `jitter<1e-3` or `asleep>=10`. Repeatable.
    #[arg(long = "require", value_name = "METRIC<VALUE")]
    pub require: Vec<String>,
    /// Instead of running, write one `collidoscope run` command per point to this file (for GNU
    /// parallel, a Slurm array or any scheduler); each writes point-NNNN.csv beside it.
    #[arg(long, value_name = "jobs.txt", conflicts_with = "merge")]
    pub emit_jobs: Option<PathBuf>,
    /// Merge the point-*.csv files that emitted jobs wrote in DIR into one table.
    #[arg(long, value_name = "DIR", conflicts_with = "vary")]
    pub merge: Option<PathBuf>,
}

type Row = (Vec<String>, Metrics, u64);

pub fn sweep(args: &SweepArgs) -> Result<(), CliError> {
    let requirements = args.require.iter().map(|r| Requirement::parse(r)).collect::<Result<Vec<_>, _>>()?;
    let inputs: Vec<&Path> = args.scene.as_deref().into_iter().collect();
    super::check_outputs(&inputs, &[("--output", args.output.as_deref())])?;
    let output = args.output.as_deref().map(AtomicFile::create).transpose()?;
    let (fields, rows) = match (&args.merge, &args.scene) {
        (Some(dir), None) => merge(dir)?,
        (Some(_), Some(scene)) => {
            return Err(format!(
                "--merge reads the point files of emitted jobs, which name their scene: give no scene ({} was given)",
                scene.display()
            )
            .into());
        }
        (None, Some(scene_path)) => {
            let scene = Scene::load(scene_path)?;
            let mut base = scene.settings.clone();
            args.overrides.apply(&mut base)?;
            let varies = args.vary.iter().map(|v| sweep::parse_vary(v, &base)).collect::<Result<Vec<_>, _>>()?;
            if varies.is_empty() {
                return Err("give at least one --vary FIELD=A..B[:N|xN]".into());
            }
            let points = sweep::points(&base, &varies)?;
            let fields: Vec<String> = varies.iter().map(|v| v.field.clone()).collect();
            if let Some(jobs) = &args.emit_jobs {
                return emit_jobs(jobs, scene_path, args, &points);
            }
            let bar = indicatif::ProgressBar::new(points.len() as u64).with_style(
                indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} points, {elapsed} (eta {eta})")
                    .expect("the template is valid"),
            );
            let outcomes = sweep::run(
                &scene,
                &scene.settings,
                &points,
                args.steps,
                args.threads.map(|n| n as usize),
                &|| bar.inc(1),
                &AtomicBool::new(false),
            )?;
            bar.finish_and_clear();
            let rows = points
                .iter()
                .zip(outcomes)
                .map(|(p, o)| (p.assignments.iter().map(|(_, v)| v.clone()).collect(), o.metrics, o.hash))
                .collect();
            (fields, rows)
        }
        (None, None) => return Err("give a scene, or --merge DIR".into()),
    };
    print_table(&fields, &rows);
    let outcomes: Vec<sweep::Outcome> =
        rows.iter().map(|(_, m, h)| sweep::Outcome { metrics: *m, hash: *h, positions: Vec::new() }).collect();
    match sweep::cheapest(&outcomes, &requirements) {
        Some(i) => {
            let point: Vec<String> = fields.iter().zip(&rows[i].0).map(|(f, v)| format!("{f}={v}")).collect();
            outln!("cheapest point meeting the bounds: {} ({:.4} ms/step)", point.join(" "), rows[i].1.ms_per_step);
        }
        None => outln!("no point meets the bounds"),
    }
    if let (Some(mut out), Some(path)) = (output, &args.output) {
        out.write_all(sweep::csv(&fields, &rows).as_bytes()).map_err(CliError::io(path))?;
        out.commit()?;
    }
    Ok(())
}

fn print_table(fields: &[String], rows: &[Row]) {
    let mut header: Vec<String> = fields.to_vec();
    header.extend(METRIC_NAMES.iter().map(|s| s.to_string()));
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|(values, m, _)| {
            let mut c = values.clone();
            c.push(format!("{:.4}", m.ms_per_step));
            c.extend([m.jitter_max, m.jitter_p99, m.penetration_max, m.energy_rise].map(|v| format!("{v:.3e}")));
            c.extend([m.tunneled, m.asleep].map(|v| v.to_string()));
            c.push(format!("{:.3e}", m.divergence));
            c
        })
        .collect();
    let widths: Vec<usize> = (0..header.len())
        .map(|k| cells.iter().map(|r| r[k].len()).chain([header[k].len()]).max().unwrap_or(0))
        .collect();
    let line = |c: &[String]| c.iter().zip(&widths).map(|(s, w)| format!("{s:>w$}")).collect::<Vec<_>>().join("  ");
    outln!("{}", line(&header));
    for c in &cells {
        outln!("{}", line(c));
    }
}

/// The list of a sweep's point files that `--emit-jobs` writes beside them.
const MANIFEST: &str = "sweep-points.txt";

/// The metrics file of point `k` (from 0).
fn point_file(k: usize) -> String {
    format!("point-{:05}.csv", k + 1)
}

/// Single-quotes a word for `sh`.
fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

fn absolute(p: &Path) -> Result<PathBuf, CliError> {
    std::path::absolute(p).map_err(CliError::io(p))
}

/// One self-contained `run` command per point; each writes its metrics beside `jobs`.
fn emit_jobs(jobs: &Path, scene: &Path, args: &SweepArgs, points: &[sweep::Point]) -> Result<(), CliError> {
    let exe = std::env::current_exe().map_err(|e| CliError::Usage(e.to_string()))?;
    let dir = absolute(jobs.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")))?;
    let mut common = vec![quote(&exe.to_string_lossy()), "run".into(), quote(&absolute(scene)?.to_string_lossy())];
    common.extend(["--steps".into(), args.steps.to_string()]);
    common.extend(args.overrides.words().iter().map(|w| quote(w)));
    // Each job writes its point file when it runs, perhaps much later on another machine: a
    // point file that could not be replaced (read-only, a folder, a device) fails here, now.
    AtomicFile::check(jobs)?;
    for k in 0..points.len() {
        AtomicFile::check(&dir.join(point_file(k)))?;
    }
    let mut text = String::new();
    for (k, p) in points.iter().enumerate() {
        let mut words = common.clone();
        for (f, v) in &p.assignments {
            words.extend(["--set".into(), quote(&format!("{f}={v}"))]);
        }
        let out = dir.join(point_file(k));
        words.extend(["--metrics".into(), quote(&out.to_string_lossy())]);
        text.push_str(&words.join(" "));
        text.push('\n');
    }
    let mut f = AtomicFile::create(jobs)?;
    f.write_all(text.as_bytes()).map_err(CliError::io(jobs))?;
    f.commit()?;
    // The list of outputs `--merge` expects: files of an earlier sweep in the folder are ignored.
    let names: String = (0..points.len()).map(|k| point_file(k) + "\n").collect();
    let manifest = dir.join(MANIFEST);
    let mut m = AtomicFile::create(&manifest)?;
    m.write_all(names.as_bytes()).map_err(CliError::io(&manifest))?;
    m.commit()?;
    outln!(
        "wrote {} jobs to {}; each writes {}/point-NNNN.csv; then: collidoscope sweep --merge {}",
        points.len(),
        jobs.display(),
        dir.display(),
        dir.display()
    );
    Ok(())
}

/// The rows of the point files `dir`'s manifest lists (or, without one, of every `point-*.csv`
/// in it, in name order); the varied fields must agree and every listed file must be there.
fn merge(dir: &Path) -> Result<(Vec<String>, Vec<Row>), CliError> {
    let files: Vec<PathBuf> = match std::fs::read_to_string(dir.join(MANIFEST)) {
        Ok(list) => list.lines().filter(|l| !l.trim().is_empty()).map(|l| dir.join(l.trim())).collect(),
        Err(_) => {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(CliError::io(dir))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| {
                    p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("point-"))
                        && p.extension().is_some_and(|e| e == "csv")
                })
                .collect();
            files.sort();
            files
        }
    };
    if files.is_empty() {
        return Err(format!("{}: no point-*.csv files to merge", dir.display()).into());
    }
    if let Some(missing) = files.iter().find(|f| !f.exists()) {
        return Err(format!("{}: not written yet (its job has not run, or failed)", missing.display()).into());
    }
    let mut fields: Option<Vec<String>> = None;
    let mut rows = Vec::new();
    for f in &files {
        let text = collidoscope::scene::read_text(f)?;
        let (fl, r) = sweep::parse_csv(&text).map_err(|error| CliError::Csv { path: f.clone(), error })?;
        match &fields {
            Some(prev) if *prev != fl => {
                return Err(format!(
                    "{}: varies {} where the others vary {}",
                    f.display(),
                    fl.join(","),
                    prev.join(",")
                )
                .into());
            }
            _ => fields = Some(fl),
        }
        rows.extend(r);
    }
    Ok((fields.unwrap_or_default(), rows))
}

/// `run --metrics FILE`: the run's metrics as a one-row sweep CSV whose fields are the `--set`
/// assignments, so that `--merge` reads the files of emitted jobs back into one table.
pub fn write_metrics(mut out: AtomicFile, overrides: &Overrides, metrics: &Metrics, hash: u64) -> Result<(), CliError> {
    let (fields, values): (Vec<String>, Vec<String>) = overrides.assignments()?.into_iter().unzip();
    let text = sweep::csv(&fields, &[(values, *metrics, hash)]);
    out.write_all(text.as_bytes()).map_err(CliError::io(out.path()))?;
    Ok(out.commit()?)
}
