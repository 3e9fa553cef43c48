//! The sweep panel: vary one or two settings over a range on the open scene, run every point in
//! the background (cancellable, with progress), plot a metric against the setting(s) — a line for
//! one setting, a heat map for two — and apply a chosen point to the live settings.

use super::PanelCx;
use super::{Command, colors, widgets};
use crate::scene::Scene;
use crate::sweep::{self, METRIC_NAMES, Outcome, Point, Requirement, SweepError};
use crate::world::Settings;
use eframe::egui::{self, Color32, RichText, Sense, Ui, pos2, vec2};
use egui_plot::{Line, Plot, PlotPoints, Points};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::thread::JoinHandle;

/// One varied setting as the user typed it: a numeric one over a range, a choice (an algorithm,
/// a switch) over a list of its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Axis {
    pub field: String,
    pub from: String,
    pub to: String,
    pub count: usize,
    pub geometric: bool,
    /// The values of a choice, separated by commas, e.g. `Off, Speculative, Toi`.
    pub values: String,
}

impl Axis {
    fn spec(&self) -> String {
        if choices(&self.field).is_some() {
            return format!("{}={}", self.field, self.values.trim());
        }
        let sep = if self.geometric { "x" } else { ":" };
        format!("{}={}..{}{sep}{}", self.field, self.from.trim(), self.to.trim(), self.count)
    }

    /// Switches to `field`; a choice starts with all its values, a number with the range of
    /// its slider in the Settings panel (geometric where the slider is logarithmic).
    pub fn set_field(&mut self, field: &str) {
        if let Some(all) = choices(field) {
            self.values = all.join(", ");
        } else if let Some(r) = Settings::facts(field).and_then(|f| f.range) {
            (self.from, self.to, self.geometric) = (format!("{}", r.positive_lo()), format!("{}", r.hi), r.log);
        }
        self.field = field.to_string();
    }
}

/// Every value of a setting that is a choice rather than a number (RON, as `--set` reads it).
pub(super) fn choices(field: &str) -> Option<Vec<String>> {
    Settings::choices(field)
}

/// A sweep running on background threads.
struct Job {
    done: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
    points: Vec<Point>,
    /// Runs in all: points × runs per point.
    total: usize,
    handle: JoinHandle<Result<Vec<Outcome>, SweepError>>,
}

/// What a finished sweep measured.
pub struct SweepResult {
    pub fields: Vec<String>,
    pub points: Vec<Point>,
    pub outcomes: Vec<Outcome>,
}

pub struct SweepPanel {
    pub axes: [Axis; 2],
    /// Vary the second setting too (a heat map).
    pub two: bool,
    pub steps: u64,
    /// The metric plotted, an index into [`METRIC_NAMES`].
    pub metric: usize,
    /// Bounds the chosen point must meet, e.g. `jitter<1e-3`, separated by commas.
    pub require: String,
    /// Runs per point: ms/step is their median (the other metrics are the same every run).
    pub runs: usize,
    job: Option<Job>,
    pub result: Option<SweepResult>,
    error: Option<String>,
}

impl Default for SweepPanel {
    fn default() -> Self {
        SweepPanel {
            axes: [
                Axis {
                    field: "slop".into(),
                    from: "0".into(),
                    to: "0.01".into(),
                    count: 6,
                    geometric: false,
                    values: String::new(),
                },
                Axis {
                    field: "substeps".into(),
                    from: "1".into(),
                    to: "8".into(),
                    count: 4,
                    geometric: false,
                    values: String::new(),
                },
            ],
            two: false,
            steps: 240,
            metric: 1,
            require: String::new(),
            runs: 3,
            job: None,
            result: None,
            error: None,
        }
    }
}

/// The width of the labels before the sweep's inputs ("Vary", "and", "Steps").
const LABEL_WIDTH: f32 = 100.0;

/// The settings a sweep can vary: those that read a number (over a range) and the choices
/// (over a list).
fn sweep_fields() -> Vec<&'static str> {
    Settings::FIELD_NAMES.iter().copied().filter(|f| Settings::numeric(f).is_some() || choices(f).is_some()).collect()
}

impl SweepPanel {
    pub fn is_running(&self) -> bool {
        self.job.is_some()
    }

    /// Why the last sweep could not run or finish, if it could not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Cancels a running sweep and forgets the last result (a new scene was opened).
    pub fn stop(&mut self) {
        if let Some(job) = self.job.take() {
            job.cancel.store(true, Ordering::Relaxed);
        }
        self.result = None;
        self.error = None;
    }

    /// Starts a sweep of `scene` around the `live` settings; divergence is measured from the
    /// scene's own settings.
    pub fn start(&mut self, scene: &Scene, live: &Settings) {
        self.error = None;
        let n = if self.two { 2 } else { 1 };
        let varies: Result<Vec<_>, SweepError> =
            self.axes[..n].iter().map(|a| sweep::parse_vary(&a.spec(), live)).collect();
        let points = varies.and_then(|v| sweep::points(live, &v));
        let points = match points {
            Ok(p) => p,
            Err(e) => {
                self.error = Some(e.to_string());
                return;
            }
        };
        let (done, cancel) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicBool::new(false)));
        let (scene, steps, job_points, runs) = (scene.clone(), self.steps, points.clone(), self.runs.max(1));
        let (d, c) = (done.clone(), cancel.clone());
        // Leave a core to the window.
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get().saturating_sub(1).max(1));
        let handle = std::thread::spawn(move || {
            let inc = || {
                d.fetch_add(1, Ordering::Relaxed);
            };
            let all = (0..runs)
                .map(|_| sweep::run(&scene, &scene.settings, &job_points, steps, Some(threads), &inc, &c))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(median_runs(all))
        });
        let total = points.len() * self.runs.max(1);
        self.job = Some(Job { done, cancel, points, total, handle });
    }

    /// Collects a finished job. Returns whether one finished.
    pub fn poll(&mut self) -> bool {
        if !self.job.as_ref().is_some_and(|j| j.handle.is_finished()) {
            return false;
        }
        let job = self.job.take().expect("checked above");
        let n = if self.two { 2 } else { 1 };
        match job.handle.join() {
            Ok(Ok(outcomes)) => {
                let fields = job.points[0].assignments.iter().take(n).map(|(f, _)| f.clone()).collect();
                self.result = Some(SweepResult { fields, points: job.points, outcomes });
            }
            Ok(Err(e)) => self.error = Some(e.to_string()),
            Err(_) => self.error = Some("the sweep stopped with an internal error".into()),
        }
        true
    }

    fn requirements(&self) -> Result<Vec<Requirement>, SweepError> {
        self.require.split(',').map(str::trim).filter(|r| !r.is_empty()).map(Requirement::parse).collect()
    }

    pub fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (scene, live) = (&cx.sim.scene, &cx.sim.world.settings);
        let mut out = Vec::new();
        self.poll();
        let fields = sweep_fields();
        let running = self.job.is_some();
        ui.add_enabled_ui(!running, |ui| {
            // The axes' rows are laid out one under the other, not in the grid below: a grid
            // sizes a row by its last frame, and an axis's range wrapped under its field was
            // drawn over the next row.
            for k in 0..2 {
                ui.horizontal_top(|ui| {
                    let label = if k == 1 { ui.checkbox(&mut self.two, "and") } else { ui.label("Vary") };
                    // The inputs start in one column, as the grid's below do.
                    let gap = LABEL_WIDTH - label.rect.width();
                    ui.add_space(gap.max(0.0));
                    let label = label.id;
                    ui.add_enabled_ui(k == 0 || self.two, |ui| self.axis_ui(ui, k, &fields, label));
                });
            }
            egui::Grid::new("sweep_runs").num_columns(2).min_col_width(LABEL_WIDTH).show(ui, |ui| {
                let l = ui.label("Steps");
                ui.add(egui::DragValue::new(&mut self.steps).range(1..=100_000)).labelled_by(l.id);
                ui.end_row();
                let l = ui.label("Runs per point");
                ui.add(egui::DragValue::new(&mut self.runs).range(1..=9))
                    .labelled_by(l.id)
                    .on_hover_text("ms/step is the median of these runs; the other metrics are the same every run");
                ui.end_row();
            });
        });
        ui.horizontal(|ui| {
            if let Some(job) = &self.job {
                let (done, total) = (job.done.load(Ordering::Relaxed), job.total);
                ui.add(
                    egui::ProgressBar::new(done as f32 / total.max(1) as f32)
                        .desired_width(180.0)
                        .text(format!("{done}/{total} runs")),
                );
                if ui.button("Cancel").clicked() {
                    job.cancel.store(true, Ordering::Relaxed);
                }
                ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
            } else if ui
                .button("▶ Run sweep")
                .on_hover_text("Run the open scene once per point, in the background")
                .clicked()
            {
                self.start(scene, live);
            }
        });
        let edits = scene.settings.changes(live);
        ui.label(RichText::new(if edits.is_empty() {
            "Around the scene file's settings.".to_string()
        } else {
            format!("Around the scene file's settings with your {} edit(s): {}.", edits.len(), edits.join(", "))
        }))
        .on_hover_text(
            "Every point starts from these settings and changes only the varied ones; divergence is measured \
             from a run with the file's own settings.",
        );
        if let Some(e) = &self.error {
            ui.colored_label(colors::ERROR, e);
        }
        if let Some(r) = &self.result {
            ui.separator();
            widgets::series_pick(ui, "Plot", "sweep_metric", &METRIC_NAMES, &mut self.metric);
            ui.horizontal(|ui| {
                ui.label("Require");
                ui.add(
                    egui::TextEdit::singleline(&mut self.require)
                        .hint_text("jitter<1e-3, asleep>=1")
                        .desired_width(200.0),
                );
            });
            let reqs = self.requirements();
            let best = match &reqs {
                Ok(reqs) => sweep::cheapest(&r.outcomes, reqs),
                Err(e) => {
                    ui.colored_label(colors::ERROR, e.to_string());
                    None
                }
            };
            match r.fields.len() {
                1 => line_plot(ui, r, self.metric, best),
                _ => heat_map(ui, r, self.metric, best),
            }
            if let Some(i) = best {
                let label = point_label(&r.points[i]);
                ui.horizontal(|ui| {
                    ui.colored_label(colors::OK, format!("Cheapest meeting the bounds: {label}"));
                    if ui.button("Apply").on_hover_text("Use these values now; the world keeps its state").clicked() {
                        out.extend(apply(live, &r.points[i]));
                    }
                });
            } else if let Ok(reqs) = &reqs {
                ui.colored_label(colors::WARN, "No point meets the bounds");
                for (req, n) in reqs.iter().map(|q| (q, r.outcomes.iter().filter(|o| !q.holds(&o.metrics)).count())) {
                    if n > 0 {
                        ui.label(format!("{} broken by {n} of {} points", bound_text(req), r.outcomes.len()));
                    }
                }
            }
            out.extend(table(ui, r, reqs.as_deref().unwrap_or(&[]), best, live));
        }
        out
    }

    fn axis_ui(&mut self, ui: &mut Ui, k: usize, fields: &[&'static str], label: egui::Id) {
        let a = &mut self.axes[k];
        // Wrapped: at a narrow dock the range goes under the field instead of past the edge.
        ui.horizontal_wrapped(|ui| {
            let mut field = a.field.clone();
            egui::ComboBox::from_id_salt(("sweep_field", k))
                .selected_text(a.field.as_str())
                .width(150.0)
                .show_ui(ui, |ui| {
                    for f in fields {
                        ui.selectable_value(&mut field, f.to_string(), *f);
                    }
                })
                .response
                .labelled_by(label);
            if field != a.field {
                a.set_field(&field);
            }
            if choices(&a.field).is_some() {
                ui.add(
                    egui::TextEdit::singleline(&mut a.values).desired_width(ui.available_width().clamp(80.0, 220.0)),
                )
                .on_hover_text("The values to try, separated by commas");
                return;
            }
            ui.add(egui::TextEdit::singleline(&mut a.from).desired_width(50.0)).on_hover_text("From");
            ui.label("to");
            ui.add(egui::TextEdit::singleline(&mut a.to).desired_width(50.0)).on_hover_text("To");
            ui.add(egui::DragValue::new(&mut a.count).range(1..=50).suffix(" pts"));
            ui.checkbox(&mut a.geometric, "×").on_hover_text("Space the points geometrically (both ends > 0)");
        });
    }
}

fn point_label(p: &Point) -> String {
    p.assignments.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" ")
}

/// A point's value of the `k`th varied setting as a number (its index for a list of names).
fn coordinate(r: &SweepResult, p: usize, k: usize) -> f64 {
    let value = &r.points[p].assignments[k].1;
    value.parse::<f64>().unwrap_or_else(|_| distinct(r, k).iter().position(|v| v == value).unwrap_or(0) as f64)
}

/// The distinct values of the `k`th varied setting, in sweep order.
fn distinct(r: &SweepResult, k: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for p in &r.points {
        if !out.contains(&p.assignments[k].1) {
            out.push(p.assignments[k].1.clone());
        }
    }
    out
}

fn line_plot(ui: &mut Ui, r: &SweepResult, metric: usize, best: Option<usize>) {
    let pts: Vec<[f64; 2]> =
        (0..r.points.len()).map(|p| [coordinate(r, p, 0), r.outcomes[p].metrics.values()[metric]]).collect();
    Plot::new("sweep_plot").height(200.0).x_axis_label(r.fields[0].as_str()).y_axis_label(METRIC_NAMES[metric]).show(
        ui,
        |plot| {
            plot.line(Line::new(METRIC_NAMES[metric], PlotPoints::from(pts.clone())).width(2.0));
            plot.points(Points::new("points", PlotPoints::from(pts.clone())).radius(3.0));
            if let Some(b) = best {
                plot.points(Points::new("chosen", PlotPoints::from(vec![pts[b]])).radius(6.0).color(colors::OK));
            }
        },
    );
}

/// Blue (low) to yellow (high).
fn ramp(t: f32) -> Color32 {
    let t = t.clamp(0.0, 1.0);
    Color32::from_rgb((40.0 + 215.0 * t) as u8, (60.0 + 170.0 * t) as u8, (160.0 - 120.0 * t) as u8)
}

fn heat_map(ui: &mut Ui, r: &SweepResult, metric: usize, best: Option<usize>) {
    let (xs, ys) = (distinct(r, 0), distinct(r, 1));
    let values: Vec<f64> = r.outcomes.iter().map(|o| o.metrics.values()[metric]).collect();
    let (lo, hi) = values.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| (a.min(*v), b.max(*v)));
    let label_w = 60.0;
    let cell = vec2(((ui.available_width() - label_w) / xs.len() as f32).clamp(20.0, 80.0), 24.0);
    let size = vec2(label_w + cell.x * xs.len() as f32, cell.y * (ys.len() + 1) as f32);
    let (rect, _) = ui.allocate_exact_size(size, Sense::hover());
    let painter = ui.painter_at(rect);
    let font = egui::FontId::monospace(11.0);
    for (p, v) in values.iter().enumerate() {
        let (xi, yi) = (
            xs.iter().position(|x| *x == r.points[p].assignments[0].1),
            ys.iter().position(|y| *y == r.points[p].assignments[1].1),
        );
        let (Some(xi), Some(yi)) = (xi, yi) else { continue };
        let min = rect.min + vec2(label_w + cell.x * xi as f32, cell.y * yi as f32);
        let cr = egui::Rect::from_min_size(min, cell);
        let t = if hi > lo { ((v - lo) / (hi - lo)) as f32 } else { 0.5 };
        painter.rect_filled(cr.shrink(1.0), 2.0, ramp(t));
        if best == Some(p) {
            painter.rect_stroke(cr.shrink(1.0), 2.0, egui::Stroke::new(2.0, colors::OK), egui::StrokeKind::Inside);
        }
        painter.text(cr.center(), egui::Align2::CENTER_CENTER, format!("{v:.2e}"), font.clone(), Color32::BLACK);
    }
    for (yi, y) in ys.iter().enumerate() {
        let at = rect.min + vec2(label_w - 4.0, cell.y * (yi as f32 + 0.5));
        painter.text(at, egui::Align2::RIGHT_CENTER, y, font.clone(), ui.visuals().text_color());
    }
    for (xi, x) in xs.iter().enumerate() {
        let at = pos2(rect.min.x + label_w + cell.x * (xi as f32 + 0.5), rect.min.y + cell.y * (ys.len() as f32 + 0.5));
        painter.text(at, egui::Align2::CENTER_CENTER, x, font.clone(), ui.visuals().text_color());
    }
    ui.label(
        RichText::new(format!("{} (columns) × {} (rows): {}", r.fields[0], r.fields[1], METRIC_NAMES[metric])).small(),
    );
}

/// The live settings with the point's values: what else changed since the sweep stays.
fn apply(live: &Settings, p: &Point) -> Option<Command> {
    let mut s = live.clone();
    p.assignments.iter().try_for_each(|(f, v)| s.set_field(f, v)).ok()?;
    Some(Command::SetSettings(Box::new(s)))
}

/// Every run's figures combined: the first run's metrics with ms/step the median over the runs.
fn median_runs(mut all: Vec<Vec<Outcome>>) -> Vec<Outcome> {
    let mut out = all.remove(0);
    for (p, o) in out.iter_mut().enumerate() {
        let mut ms: Vec<f64> =
            std::iter::once(o.metrics.ms_per_step).chain(all.iter().map(|run| run[p].metrics.ms_per_step)).collect();
        ms.sort_by(f64::total_cmp);
        o.metrics.ms_per_step = ms[ms.len() / 2];
    }
    out
}

/// `jitter_max<0.001`.
fn bound_text(r: &Requirement) -> String {
    format!("{}{}{}", r.metric, r.op, r.value)
}

/// Short column heads of [`METRIC_NAMES`].
const HEADS: [&str; 8] =
    ["time/step", "jitter", "jitter p99", "penetration", "energy rise", "tunneled", "asleep", "divergence"];

/// One row per point: the varied values, every metric (a bound it breaks in colour), the
/// bounds it breaks, and Apply.
fn table(ui: &mut Ui, r: &SweepResult, reqs: &[Requirement], best: Option<usize>, live: &Settings) -> Vec<Command> {
    let mut out = Vec::new();
    egui::ScrollArea::both().id_salt("sweep_table").max_height(320.0).show(ui, |ui| {
        egui::Grid::new("sweep_rows").num_columns(METRIC_NAMES.len() + 3).striped(true).show(ui, |ui| {
            ui.strong("point");
            for (name, head) in METRIC_NAMES.iter().zip(HEADS) {
                ui.strong(head).on_hover_text(*name);
            }
            ui.strong("breaks");
            ui.label("");
            ui.end_row();
            for (k, (p, o)) in r.points.iter().zip(&r.outcomes).enumerate() {
                let label = point_label(p);
                ui.label(if best == Some(k) { RichText::new(label).color(colors::OK) } else { RichText::new(label) });
                let broken: Vec<&Requirement> = reqs.iter().filter(|q| !q.holds(&o.metrics)).collect();
                for (name, v) in METRIC_NAMES.iter().zip(o.metrics.values()) {
                    let text = match *name {
                        "tunneled" | "asleep" => format!("{v:.0}"),
                        // In µs below a tenth of a millisecond: a small scene's points all
                        // read 0.003 ms, which ordered nothing.
                        "ms_per_step" => crate::diagnose::step_time(v),
                        _ => format!("{v:.2e}"),
                    };
                    let bad = broken.iter().any(|q| q.metric == *name);
                    let text = RichText::new(text).monospace();
                    ui.label(if bad { text.color(colors::ERROR) } else { text });
                }
                let breaks: Vec<String> = broken.iter().map(|q| bound_text(q)).collect();
                if breaks.is_empty() {
                    ui.label(if reqs.is_empty() { "" } else { "—" });
                } else {
                    ui.colored_label(colors::ERROR, breaks.join(", "));
                }
                if ui.small_button("Apply").clicked() {
                    out.extend(apply(live, p));
                }
                ui.end_row();
            }
        });
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Metrics;

    fn outcome(ms: f64, jitter: f32) -> Outcome {
        Outcome {
            metrics: Metrics { ms_per_step: ms, jitter_max: jitter, ..Default::default() },
            hash: 7,
            positions: vec![],
        }
    }

    #[test]
    fn ms_per_step_is_the_median_of_the_runs_and_the_rest_the_first_runs() {
        let runs = vec![
            vec![outcome(5.0, 0.1), outcome(1.0, 0.2)],
            vec![outcome(1.0, 0.1), outcome(9.0, 0.2)],
            vec![outcome(2.0, 0.1), outcome(2.0, 0.2)],
        ];
        let m = median_runs(runs);
        assert_eq!(m.iter().map(|o| o.metrics.ms_per_step).collect::<Vec<_>>(), [2.0, 2.0]);
        assert_eq!(m[1].metrics.jitter_max, 0.2);
    }

    #[test]
    fn a_numeric_field_starts_from_its_slider_range() {
        let mut a = SweepPanel::default().axes[0].clone();
        a.set_field("substeps");
        assert_eq!((a.from.as_str(), a.to.as_str(), a.geometric), ("1", "64", true));
        a.set_field("slop");
        assert_eq!(
            (a.from.as_str(), a.to.as_str(), a.geometric),
            ("0.00001", "0.1", true),
            "log from its smallest step"
        );
        a.set_field("restitution");
        assert_eq!((a.from.as_str(), a.to.as_str(), a.geometric), ("0", "1", false));
        // Every numeric field the sweep offers has a range.
        for f in sweep_fields().into_iter().filter(|f| choices(f).is_none()) {
            let known = Settings::facts(f).is_some_and(|f| f.range.is_some());
            assert!(known, "{f} has no range");
        }
    }
}
