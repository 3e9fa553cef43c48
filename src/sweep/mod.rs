//! Parameter sweeps: one scene run once per point of a grid of settings, each point measured
//! by what a tuner judges a setting by ([`Metrics`]): cost, jitter, penetration, energy,
//! tunneling, sleep, and divergence from the scene's own settings. Points run in parallel, one
//! world per thread, so each point's result is the same whatever the thread count.

mod bumps;
mod metrics;

pub use bumps::{Bump, BumpKind, BumpProbe, BumpRow, FLIP_COS, SPIKE_DV};
pub use metrics::{Crossings, METRIC_NAMES, Metrics, Passings, Probe, mechanical_energy};

use crate::math::Vec3;
use crate::scene::{Scene, SceneError};
use crate::settings::SettingsError;
use crate::world::Settings;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// One setting varied over a list of values (RON text, as `--set` takes them).
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// The setting's scene-file name.
    pub field: String,
    /// The values it takes, as RON text.
    pub values: Vec<String>,
}

/// Why a sweep could not be set up or run.
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    /// A `--vary` without `=`.
    #[error("expected FIELD=A..B[:N|xN] or FIELD=V1,V2,...")]
    VaryForm,
    /// A `--vary` with an empty list.
    #[error("{0}: no values")]
    NoValues(String),
    /// A range end that is not a number.
    #[error("{field}: {text:?} is not a number")]
    NotANumber {
        /// The setting.
        field: String,
        /// The text given.
        text: String,
    },
    /// A range's count that is not a whole number.
    #[error("{field}: {text:?} is not a count of points")]
    NotACount {
        /// The setting.
        field: String,
        /// The text given.
        text: String,
    },
    /// A range's count outside 1 to 1000.
    #[error("{field}: {points} points; give 1 to 1000")]
    Count {
        /// The setting.
        field: String,
        /// The count given.
        points: usize,
    },
    /// A geometric range with an end at or below zero.
    #[error("{0}: a geometric range (xN) needs both ends greater than 0")]
    Geometric(String),
    /// A value the setting does not take.
    #[error(transparent)]
    Setting(Box<SettingsError>),
    /// One setting in two `--vary`s.
    #[error("{field} is varied twice: give all its values in one --vary (e.g. {field}={values})")]
    VariedTwice {
        /// The setting.
        field: String,
        /// All the values given for it.
        values: String,
    },
    /// More points than [`MAX_POINTS`].
    #[error("the grid has {0} points, more than the limit of {MAX_POINTS}: vary fewer values")]
    TooManyPoints(usize),
    /// A `--require` bound that cannot be read.
    #[error("{text:?}: {problem}")]
    Requirement {
        /// The text given.
        text: String,
        /// What is wrong with it.
        problem: RequirementProblem,
    },
    /// The scene builds no world.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The threads could not be started.
    #[error(transparent)]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// The run was cancelled.
    #[error("cancelled")]
    Cancelled,
}

impl From<SettingsError> for SweepError {
    fn from(error: SettingsError) -> Self {
        SweepError::Setting(Box::new(error))
    }
}

/// What is wrong with a `--require` bound.
#[derive(Debug, thiserror::Error)]
pub enum RequirementProblem {
    /// No comparison.
    #[error("expected METRIC<VALUE or METRIC>VALUE")]
    Form,
    /// The bound is not a number.
    #[error("the bound is not a number")]
    NotANumber,
    /// The bound is infinite or NaN.
    #[error("the bound {0} is not a finite number")]
    NotFinite(f64),
    /// No metric of this name.
    #[error("unknown metric {0:?}; known: {known}", known = METRIC_NAMES.join(", "))]
    Metric(String),
}

/// Why a sweep CSV (a point file of emitted jobs) could not be read.
#[derive(Debug, thiserror::Error)]
pub enum CsvError {
    /// No lines.
    #[error("empty file")]
    Empty,
    /// Fewer columns than the metrics and the hash.
    #[error("too few columns")]
    FewColumns,
    /// Columns that are not the metrics'.
    #[error("the columns are not a sweep's")]
    Columns,
    /// A row of another width than the header.
    #[error("row {row}: {cells} cells, expected {expected}")]
    Cells {
        /// The row, from 1.
        row: usize,
        /// Its cells.
        cells: usize,
        /// The header's.
        expected: usize,
    },
    /// A cell that is not a number.
    #[error("row {row}: {text:?} is not a number")]
    NotANumber {
        /// The row, from 1.
        row: usize,
        /// The cell.
        text: String,
    },
    /// A metric that is not finite.
    #[error("row {row}: {metric} is {text}, not a finite number")]
    NotFinite {
        /// The row, from 1.
        row: usize,
        /// The metric's column.
        metric: String,
        /// The cell.
        text: String,
    },
    /// A negative metric that cannot be.
    #[error("row {row}: {metric} is {value}, but it cannot be negative")]
    Negative {
        /// The row, from 1.
        row: usize,
        /// The metric's column.
        metric: String,
        /// Its value.
        value: f64,
    },
    /// A count that is not whole.
    #[error("row {row}: {metric} is {value}, not a whole count")]
    NotWhole {
        /// The row, from 1.
        row: usize,
        /// The metric's column.
        metric: String,
        /// Its value.
        value: f64,
    },
    /// A hash that is not hexadecimal.
    #[error("row {0}: bad hash")]
    Hash(usize),
}

/// Points a range gives when it names no count.
pub const DEFAULT_POINTS: usize = 5;

/// Reads `FIELD=A..B` (5 points), `FIELD=A..B:N` (N evenly spaced), `FIELD=A..B xN` written
/// `FIELD=A..BxN` (N spaced geometrically, A and B > 0), or `FIELD=V1,V2,...` (a list of RON
/// values, e.g. `broad_phase=Grid,Bvh`). Whole-number settings get whole numbers, without repeats.
/// Every value is checked against `base`.
pub fn parse_vary(text: &str, base: &Settings) -> Result<Vary, SweepError> {
    let (field, spec) = text.split_once('=').ok_or(SweepError::VaryForm)?;
    let (field, spec) = (field.trim().to_string(), spec.trim());
    let values = match spec.split_once("..") {
        Some((a, rest)) => range_values(&field, a, rest)?,
        None => spec.split(',').map(|v| v.trim().to_string()).filter(|v| !v.is_empty()).collect(),
    };
    if values.is_empty() {
        return Err(SweepError::NoValues(field));
    }
    for v in &values {
        base.clone().set_field(&field, v)?;
    }
    Ok(Vary { field, values })
}

fn range_values(field: &str, a: &str, rest: &str) -> Result<Vec<String>, SweepError> {
    let (b, count, geometric) = if let Some((b, n)) = rest.split_once(':') {
        (b, Some(n), false)
    } else if let Some((b, n)) = rest.split_once('x') {
        (b, Some(n), true)
    } else {
        (rest, None, false)
    };
    let num =
        |s: &str| s.trim().parse::<f64>().map_err(|_| SweepError::NotANumber { field: field.into(), text: s.into() });
    let (a, b) = (num(a)?, num(b)?);
    let n = match count {
        Some(n) => {
            n.trim().parse::<usize>().map_err(|_| SweepError::NotACount { field: field.into(), text: n.into() })?
        }
        None => DEFAULT_POINTS,
    };
    if !(1..=1000).contains(&n) {
        return Err(SweepError::Count { field: field.into(), points: n });
    }
    if geometric && !(a > 0.0 && b > 0.0) {
        return Err(SweepError::Geometric(field.into()));
    }
    let whole = Settings::numeric(field) == Some(true);
    let mut out: Vec<String> = Vec::new();
    for k in 0..n {
        let f = if n == 1 { 0.0 } else { k as f64 / (n - 1) as f64 };
        let v = if geometric { a * (b / a).powf(f) } else { a + (b - a) * f };
        let text = if whole { format!("{}", v.round() as i64) } else { format!("{}", v as f32) };
        if !out.contains(&text) {
            out.push(text);
        }
    }
    Ok(out)
}

/// One point of a sweep: the values given to the varied settings, and the settings that result.
#[derive(Clone, Debug, PartialEq)]
pub struct Point {
    /// Each varied setting with the value it takes at this point.
    pub assignments: Vec<(String, String)>,
    /// The scene's settings with those values applied.
    pub settings: Settings,
}

/// Most points one sweep may have.
pub const MAX_POINTS: usize = 10_000;

/// Every combination of the varied values (the first setting varies slowest).
pub fn points(base: &Settings, varies: &[Vary]) -> Result<Vec<Point>, SweepError> {
    for (k, v) in varies.iter().enumerate() {
        if varies[..k].iter().any(|u| u.field == v.field) {
            return Err(SweepError::VariedTwice {
                field: v.field.clone(),
                values: varies
                    .iter()
                    .filter(|u| u.field == v.field)
                    .flat_map(|u| u.values.iter().cloned())
                    .collect::<Vec<_>>()
                    .join(","),
            });
        }
    }
    let total = varies.iter().try_fold(1usize, |n, v| n.checked_mul(v.values.len())).unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(SweepError::TooManyPoints(total));
    }
    let mut out = vec![Point { assignments: Vec::new(), settings: base.clone() }];
    for v in varies {
        let mut next = Vec::with_capacity(out.len() * v.values.len());
        for p in &out {
            for value in &v.values {
                let mut q = p.clone();
                q.settings.set_field(&v.field, value)?;
                q.assignments.push((v.field.clone(), value.clone()));
                next.push(q);
            }
        }
        out = next;
    }
    Ok(out)
}

/// What one run measured, with the state hash and the final positions.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The figures measured over the run.
    pub metrics: Metrics,
    /// The state hash after the last step.
    pub hash: u64,
    /// Every body's final position.
    pub positions: Vec<Vec3>,
}

/// Runs `scene` with `settings` for `steps` steps and measures it; `reference` holds the final
/// positions of the run with the scene's own settings.
pub fn run_point(
    scene: &Scene,
    settings: &Settings,
    steps: u64,
    reference: Option<&[Vec3]>,
) -> Result<Outcome, SweepError> {
    run_point_until(scene, settings, steps, reference, &AtomicBool::new(false))
}

/// [`run_point`], stopping with an error as soon as `cancel` is set.
fn run_point_until(
    scene: &Scene,
    settings: &Settings,
    steps: u64,
    reference: Option<&[Vec3]>,
    cancel: &AtomicBool,
) -> Result<Outcome, SweepError> {
    let mut world = scene.build()?;
    world.set_settings(settings.clone());
    let mut probe = Probe::new(&world, steps);
    for _ in 0..steps {
        if cancel.load(Ordering::Relaxed) {
            return Err(SweepError::Cancelled);
        }
        world.step();
        probe.observe(&world);
    }
    let metrics = probe.finish(&world, reference);
    Ok(Outcome { metrics, hash: world.hash(), positions: world.bodies().iter().map(|b| b.pose.translation).collect() })
}

/// Runs every point on `threads` threads (all cores if `None`), after one run with `base` for
/// the divergence. `done` is called once per finished point, from any thread. Once `cancel` is
/// set, every run stops at its next step and the result is an error.
pub fn run(
    scene: &Scene,
    base: &Settings,
    points: &[Point],
    steps: u64,
    threads: Option<usize>,
    done: &(dyn Fn() + Sync),
    cancel: &AtomicBool,
) -> Result<Vec<Outcome>, SweepError> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = threads {
        pool = pool.num_threads(n.max(1));
    }
    let pool = pool.build()?;
    pool.install(|| {
        let reference = run_point_until(scene, base, steps, None, cancel)?;
        points
            .par_iter()
            .map(|p| {
                let r = run_point_until(scene, &p.settings, steps, Some(&reference.positions), cancel);
                done();
                r
            })
            .collect()
    })
}

/// A bound a point must meet: `METRIC<VALUE`, `<=`, `>` or `>=`.
#[derive(Clone, Debug, PartialEq)]
pub struct Requirement {
    /// The metric's column name.
    pub metric: &'static str,
    /// The comparison: `<`, `<=`, `>` or `>=`.
    pub op: &'static str,
    /// The bound.
    pub value: f64,
}

impl Requirement {
    /// Reads `jitter_max<1e-3`; `jitter`, `ms` and `penetration` stand for `jitter_max`,
    /// `ms_per_step` and `penetration_max`.
    pub fn parse(text: &str) -> Result<Requirement, SweepError> {
        let bad = |problem| SweepError::Requirement { text: text.into(), problem };
        let at = text.find(['<', '>']).ok_or_else(|| bad(RequirementProblem::Form))?;
        let (name, rest) = text.split_at(at);
        let op = ["<=", ">=", "<", ">"].into_iter().find(|op| rest.starts_with(op)).unwrap_or("<");
        let value = rest[op.len()..].trim().parse::<f64>().map_err(|_| bad(RequirementProblem::NotANumber))?;
        if !value.is_finite() {
            return Err(bad(RequirementProblem::NotFinite(value)));
        }
        let name = match name.trim() {
            "jitter" => "jitter_max",
            "ms" => "ms_per_step",
            "penetration" => "penetration_max",
            n => n,
        };
        let metric =
            METRIC_NAMES.iter().find(|m| **m == name).ok_or_else(|| bad(RequirementProblem::Metric(name.into())))?;
        Ok(Requirement { metric, op, value })
    }

    /// Whether the metrics meet this bound.
    pub fn holds(&self, m: &Metrics) -> bool {
        let v = m.get(self.metric).unwrap_or(f64::NAN);
        match self.op {
            "<" => v < self.value,
            "<=" => v <= self.value,
            ">" => v > self.value,
            _ => v >= self.value,
        }
    }
}

/// The index of the cheapest point (least ms per step) that meets every requirement.
pub fn cheapest(outcomes: &[Outcome], requirements: &[Requirement]) -> Option<usize> {
    outcomes
        .iter()
        .enumerate()
        .filter(|(_, o)| requirements.iter().all(|r| r.holds(&o.metrics)))
        .min_by(|a, b| a.1.metrics.ms_per_step.total_cmp(&b.1.metrics.ms_per_step).then(a.0.cmp(&b.0)))
        .map(|(i, _)| i)
}

/// The CSV of a sweep: one column per varied setting, one per metric, then the state hash.
pub fn csv(fields: &[String], rows: &[(Vec<String>, Metrics, u64)]) -> String {
    let mut out = fields.join(",");
    for name in METRIC_NAMES {
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str(name);
    }
    out.push_str(",hash\n");
    for (values, m, hash) in rows {
        let mut cells: Vec<String> = values.iter().map(|v| csv_cell(v)).collect();
        cells.extend(m.values().iter().map(|v| format!("{v}")));
        cells.push(format!("{hash:016x}"));
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}

/// A value quoted when it holds a comma or a quote (a vector such as `(0, -9.81, 0)`).
fn csv_cell(v: &str) -> String {
    if v.contains([',', '"']) { format!("\"{}\"", v.replace('"', "\"\"")) } else { v.to_string() }
}

/// Splits one CSV line into cells, honouring quotes.
pub fn csv_cells(line: &str) -> Vec<String> {
    let (mut cells, mut cur, mut quoted, mut chars) = (Vec::new(), String::new(), false, line.chars().peekable());
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => cells.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    cells.push(cur);
    cells
}

/// Reads the rows of a sweep CSV written by [`csv`]: the varied fields, and per row their
/// values, metrics and hash.
#[allow(clippy::type_complexity)]
pub fn parse_csv(text: &str) -> Result<(Vec<String>, Vec<(Vec<String>, Metrics, u64)>), CsvError> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = csv_cells(lines.next().ok_or(CsvError::Empty)?);
    let nfields = header.len().checked_sub(METRIC_NAMES.len() + 1).ok_or(CsvError::FewColumns)?;
    if header[nfields..nfields + METRIC_NAMES.len()] != METRIC_NAMES.map(String::from) {
        return Err(CsvError::Columns);
    }
    let fields = header[..nfields].to_vec();
    let mut rows = Vec::new();
    for (k, line) in lines.enumerate() {
        let cells = csv_cells(line);
        if cells.len() != header.len() {
            return Err(CsvError::Cells { row: k + 1, cells: cells.len(), expected: header.len() });
        }
        // Every metric a run writes is finite (and the counts whole and non-negative): anything
        // else was not written by `run --metrics`, or the file was damaged.
        let num = |i: usize| {
            let v = cells[i].parse::<f64>().map_err(|_| CsvError::NotANumber { row: k + 1, text: cells[i].clone() })?;
            let name = header[i].as_str();
            if !(v as f32).is_finite() {
                return Err(CsvError::NotFinite {
                    row: k + 1,
                    metric: header[i].clone(),
                    text: cells[i].trim().into(),
                });
            }
            if v < 0.0 && name != "energy_rise" {
                return Err(CsvError::Negative { row: k + 1, metric: header[i].clone(), value: v });
            }
            if matches!(name, "tunneled" | "asleep") && (v.fract() != 0.0 || v > u32::MAX as f64) {
                return Err(CsvError::NotWhole { row: k + 1, metric: header[i].clone(), value: v });
            }
            Ok(v)
        };
        let m = Metrics {
            ms_per_step: num(nfields)?,
            jitter_max: num(nfields + 1)? as f32,
            jitter_p99: num(nfields + 2)? as f32,
            penetration_max: num(nfields + 3)? as f32,
            energy_rise: num(nfields + 4)? as f32,
            tunneled: num(nfields + 5)? as u32,
            asleep: num(nfields + 6)? as u32,
            divergence: num(nfields + 7)? as f32,
        };
        let hash = u64::from_str_radix(cells.last().unwrap(), 16).map_err(|_| CsvError::Hash(k + 1))?;
        rows.push((cells[..nfields].to_vec(), m, hash));
    }
    Ok((fields, rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_lists_and_whole_numbers() {
        let s = Settings::default();
        assert_eq!(parse_vary("slop=0..0.01:3", &s).unwrap().values, ["0", "0.005", "0.01"]);
        assert_eq!(parse_vary("substeps=1..8:4", &s).unwrap().values, ["1", "3", "6", "8"]);
        assert_eq!(parse_vary("substeps=1..2:5", &s).unwrap().values, ["1", "2"]);
        assert_eq!(parse_vary("contact_hertz=10..1000x3", &s).unwrap().values, ["10", "100", "1000"]);
        assert_eq!(parse_vary("broad_phase=Grid,Bvh", &s).unwrap().values, ["Grid", "Bvh"]);
        assert_eq!(parse_vary("slop=0..1", &s).unwrap().values.len(), DEFAULT_POINTS);
        for bad in ["slop", "slop=a..b", "slop=0..-1:3", "nope=1..2", "substeps=0..4:3", "slop=0..1x3", "dt=1..2:0"] {
            assert!(parse_vary(bad, &s).is_err(), "{bad}");
        }
        let v = [parse_vary("slop=0..0.01:2", &s).unwrap(), parse_vary("substeps=1..2:2", &s).unwrap()];
        let p = points(&s, &v).unwrap();
        assert_eq!(p.len(), 4);
        assert_eq!(p[1].assignments, [("slop".into(), "0".into()), ("substeps".into(), "2".into())]);
        assert_eq!((p[3].settings.slop, p[3].settings.substeps), (0.01, 2));
    }

    #[test]
    fn requirements_and_the_cheapest_point() {
        let r = Requirement::parse("jitter<1e-3").unwrap();
        assert_eq!((r.metric, r.op, r.value), ("jitter_max", "<", 1e-3));
        assert_eq!(Requirement::parse("asleep>=3").unwrap().op, ">=");
        assert!(Requirement::parse("wobble<1").is_err());
        assert!(Requirement::parse("jitter=1").is_err());
        let o = |ms, jitter| Outcome {
            metrics: Metrics { ms_per_step: ms, jitter_max: jitter, ..Default::default() },
            hash: 0,
            positions: Vec::new(),
        };
        let outcomes = [o(1.0, 0.1), o(3.0, 0.0005), o(2.0, 0.0009), o(0.5, 0.01)];
        assert_eq!(cheapest(&outcomes, std::slice::from_ref(&r)), Some(2));
        assert_eq!(cheapest(&outcomes, &[]), Some(3));
        assert_eq!(cheapest(&outcomes, &[Requirement::parse("jitter<0").unwrap()]), None);
    }

    #[test]
    fn a_field_varied_twice_and_bounds_that_are_not_finite_are_refused() {
        let s = Settings::default();
        let v = [parse_vary("slop=0..0.01:2", &s).unwrap(), parse_vary("slop=0.02", &s).unwrap()];
        let e = points(&s, &v).unwrap_err().to_string();
        assert!(e.contains("slop is varied twice") && e.contains("slop=0,0.01,0.02"), "{e}");
        for bad in ["jitter<NaN", "jitter<inf", "ms>-inf", "asleep>=nan"] {
            assert!(Requirement::parse(bad).unwrap_err().to_string().contains("not a finite number"), "{bad}");
        }
    }

    #[test]
    fn merged_rows_must_hold_finite_metrics_and_whole_counts() {
        let m = Metrics { ms_per_step: 0.25, asleep: 7, ..Default::default() };
        let text = csv(&["slop".to_string()], &[(vec!["0.005".to_string()], m, 1)]);
        assert!(parse_csv(&text).is_ok());
        let row = text.lines().nth(1).unwrap().to_string();
        for (cell, what) in
            [("NaN", "not a finite number"), ("inf", "not a finite number"), ("1e39", "not a finite number")]
        {
            let bad = text.replace(&row, &row.replacen("0.25", cell, 1));
            let e = parse_csv(&bad).unwrap_err().to_string();
            assert!(e.contains("row 1: ms_per_step is") && e.contains(what), "{cell}: {e}");
        }
        let bad = text.replace(&row, &row.replacen(",7,", ",7.5,", 1));
        assert!(parse_csv(&bad).unwrap_err().to_string().contains("asleep is 7.5, not a whole count"));
        let bad = text.replace(&row, &row.replacen(",7,", ",-7,", 1));
        assert!(parse_csv(&bad).unwrap_err().to_string().contains("asleep is -7, but it cannot be negative"));
    }

    #[test]
    fn csv_round_trips() {
        let m = Metrics { ms_per_step: 0.25, jitter_max: 0.5, tunneled: 2, asleep: 7, ..Default::default() };
        let rows = vec![(vec!["0.005".to_string(), "(0, -9.81, 0)".to_string()], m, 0xabc)];
        let fields = vec!["slop".to_string(), "gravity".to_string()];
        let text = csv(&fields, &rows);
        assert!(text.starts_with("slop,gravity,ms_per_step,"), "{text}");
        assert_eq!(parse_csv(&text).unwrap(), (fields, rows));
    }
}
