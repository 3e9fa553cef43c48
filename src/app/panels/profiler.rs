//! The profiler panel: ms per step for each phase over the last steps, and a table of the phase
//! times and counters.

use super::Command;
use super::PanelCx;
use crate::session::sim::History;
use crate::world::{PHASES, StepProfile};
use eframe::egui::{self, Color32, RichText, Ui};
use egui_plot::{FilledArea, Line, LineStyle, Plot, PlotPoint, PlotPoints, Text, VLine};

/// The colour of settings-change markers.
const MARKER: Color32 = Color32::from_rgb(255, 200, 90);
use serde::{Deserialize, Serialize};

/// One colour per phase, in the order of [`PHASES`], then the total.
const PHASE_COLORS: [Color32; 6] = [
    Color32::from_rgb(90, 170, 255),
    Color32::from_rgb(255, 150, 60),
    Color32::from_rgb(200, 110, 255),
    Color32::from_rgb(110, 220, 120),
    Color32::from_rgb(250, 210, 70),
    Color32::from_rgb(235, 235, 235),
];

/// Lines show each phase on its own; stacked bands add up to the step's total.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PlotStyle {
    #[default]
    Stacked,
    Lines,
}

/// What the profiler remembers between runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProfilerPrefs {
    pub style: PlotStyle,
    /// Steps kept in the history.
    pub history: usize,
    pub show_total: bool,
    /// Threads the step runs on (a preference of the machine, not of the scene).
    pub threads: usize,
}

impl Default for ProfilerPrefs {
    fn default() -> Self {
        ProfilerPrefs {
            style: PlotStyle::Stacked,
            history: 600,
            show_total: true,
            threads: crate::parallel::available(),
        }
    }
}

#[derive(Default)]
pub(crate) struct ProfilerPanel {
    pub prefs: ProfilerPrefs,
    /// While paused, the plot shows this copy and ignores new steps.
    frozen: Option<History>,
    reset_zoom: bool,
    /// The outcome of the last export, shown under the buttons.
    pub status: Option<crate::session::Status>,
}

impl ProfilerPanel {
    pub(crate) fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let history = &cx.sim.history;
        let mut commands = Vec::new();
        ui.horizontal_wrapped(|ui| {
            ui.heading("Profiler");
            let mut frozen = self.frozen.is_some();
            let label = if frozen { "▶ Resume plot" } else { "⏸ Pause plot" };
            if ui
                .toggle_value(&mut frozen, label)
                .on_hover_text("Freeze the plot to study it; the simulation keeps running.")
                .changed()
            {
                self.frozen = frozen.then(|| history.clone());
            }
            ui.selectable_value(&mut self.prefs.style, PlotStyle::Stacked, "Stacked")
                .on_hover_text("Bands that add up to the step's total time.");
            ui.selectable_value(&mut self.prefs.style, PlotStyle::Lines, "Lines")
                .on_hover_text("One line per phase, to compare them.");
            ui.checkbox(&mut self.prefs.show_total, "Total");
            if ui.button("Reset zoom").on_hover_text("Scroll or drag in the plot to zoom and pan.").clicked() {
                self.reset_zoom = true;
            }
            ui.label("History");
            ui.add(egui::DragValue::new(&mut self.prefs.history).range(60..=20_000).speed(10).suffix(" steps"));
            let hint = "Threads the step runs on (default: every core). The simulation is the same, bit for \
                        bit, for any count: only the time per step changes.";
            let label = ui.label("Threads").on_hover_text(hint);
            let cores = crate::parallel::available();
            ui.add(egui::DragValue::new(&mut self.prefs.threads).range(1..=cores).speed(0.05))
                .labelled_by(label.id)
                .on_hover_text(hint);
            if ui.button("Export CSV…").on_hover_text("Write the plotted history, one row per step.").clicked()
                && let Some(path) =
                    rfd::FileDialog::new().add_filter("CSV", &["csv"]).set_file_name("profile.csv").save_file()
            {
                commands.push(Command::ExportCsv(path));
            }
        });
        super::status_line(ui, self.status.as_ref());

        let reset_zoom = std::mem::take(&mut self.reset_zoom);
        let prefs = &self.prefs;
        let shown = self.frozen.as_ref().unwrap_or(history);
        ui.horizontal_top(|ui| {
            let table_width = 430.0_f32.min(ui.available_width() * 0.5);
            let plot_width = (ui.available_width() - table_width - 12.0).max(120.0);
            ui.allocate_ui(egui::vec2(plot_width, ui.available_height()), |ui| plot(ui, shown, prefs, reset_zoom));
            ui.separator();
            // The table scrolls within the panel's height, so a first step (which fills it)
            // never makes the panel taller.
            let h = ui.available_height();
            egui::ScrollArea::vertical()
                .id_salt("profile_table_scroll")
                .max_height(h)
                .show(ui, |ui| ui.vertical(|ui| table(ui, shown)));
        });
        commands
    }

    /// The history to export: what the plot shows.
    pub(crate) fn export_source<'a>(&'a self, live: &'a History) -> &'a History {
        self.frozen.as_ref().unwrap_or(live)
    }
}

/// The plot of ms per step: stacked bands or one line per phase, plus the total.
fn plot(ui: &mut Ui, history: &History, prefs: &ProfilerPrefs, reset_zoom: bool) {
    let xs: Vec<f64> = history.iter().map(|(s, _)| *s as f64).collect();
    let phases: Vec<[f64; 5]> = history.iter().map(|(_, p)| p.phase_ms()).collect();
    let mut plot = Plot::new("profile_plot")
        .legend(super::widgets::plot_legend(egui_plot::Corner::LeftTop).follow_insertion_order(true))
        .x_axis_label("step")
        .x_axis_formatter(super::widgets::step_ticks)
        .y_axis_label("ms per step")
        .include_y(0.0)
        .allow_scroll(true)
        .allow_zoom(true)
        .height(ui.available_height().max(120.0));
    if reset_zoom {
        plot = plot.reset();
    }
    let style = prefs.style;
    let show_total = prefs.show_total;
    plot.show(ui, |plot_ui| {
        if xs.is_empty() {
            return;
        }
        let mut base = vec![0.0; xs.len()];
        for (k, name) in PHASES.iter().enumerate() {
            let color = PHASE_COLORS[k];
            match style {
                PlotStyle::Lines => {
                    let pts: PlotPoints = xs.iter().zip(&phases).map(|(x, p)| [*x, p[k]]).collect();
                    plot_ui.line(Line::new(*name, pts).color(color).width(2.0));
                }
                PlotStyle::Stacked => {
                    let top: Vec<f64> = base.iter().zip(&phases).map(|(b, p)| b + p[k]).collect();
                    plot_ui.add(
                        FilledArea::new(*name, &xs, &base, &top)
                            .fill_color(color.gamma_multiply(0.55))
                            .stroke(egui::Stroke::new(1.5, color)),
                    );
                    base = top;
                }
            }
        }
        if show_total {
            let pts: PlotPoints = history.iter().map(|(s, p)| [*s as f64, p.total_ms]).collect();
            plot_ui.line(Line::new("total", pts).color(PHASE_COLORS[5]).width(1.5));
        }
        // Where a setting changed: a dashed line, and the change written beside it.
        let top = history.iter().map(|(_, p)| p.total_ms).fold(0.0, f64::max);
        for (step, what) in plotted_markers(history) {
            let x = step as f64 + 0.5;
            plot_ui.vline(VLine::new("setting changed", x).color(MARKER).style(LineStyle::dashed_dense()));
            plot_ui
                .text(Text::new("change", PlotPoint::new(x, top), what).color(MARKER).anchor(egui::Align2::LEFT_TOP));
        }
    });
}

/// The settings changes within the plotted steps: older ones would stretch the axis back to
/// steps no longer shown.
fn plotted_markers(history: &History) -> Vec<(u64, &str)> {
    let (Some((first, _)), Some((last, _))) = (history.iter().next(), history.last()) else { return Vec::new() };
    history.markers().filter(|(s, _)| (*first..=*last).contains(s)).collect()
}

/// Now, average and max per phase over the history, then the last step's counters.
fn table(ui: &mut Ui, history: &History) {
    let Some((step, last)) = history.last() else {
        ui.label("No steps yet: press ▶ Play or Step.");
        return;
    };
    let n = history.len() as f64;
    let mut rows: Vec<(&str, Color32, f64, f64, f64)> = Vec::new();
    let mut push = |name, color, f: &dyn Fn(&StepProfile) -> f64| {
        let (sum, max) = history.iter().fold((0.0, 0.0_f64), |(s, m), (_, p)| (s + f(p), m.max(f(p))));
        rows.push((name, color, f(last), sum / n, max));
    };
    for (k, name) in PHASES.iter().enumerate() {
        push(name, PHASE_COLORS[k], &|p: &StepProfile| p.phase_ms()[k]);
    }
    push("total", PHASE_COLORS[5], &|p: &StepProfile| p.total_ms);

    // The broad phase's work first, on one line: the lessons compare these counts between
    // structures, and in a short panel the counters' grid below is out of sight.
    let b = &last.broad;
    ui.label(
        RichText::new(format!(
            "{}: {} AABB tests, {} candidates, {} overlapping",
            last.broad_phase.label(),
            thousands(b.aabb_tests),
            thousands(b.candidate_pairs as u64),
            thousands(b.true_overlaps as u64)
        ))
        .strong(),
    )
    .on_hover_text("The last step's broad phase: box tests made, the pairs handed to the narrow phase, and how many of those boxes truly overlap");
    ui.label(format!("ms per step, over the last {} steps (step {step})", history.len()));
    egui::Grid::new("profile_table").num_columns(4).striped(true).show(ui, |ui| {
        ui.strong("phase");
        ui.strong("now");
        ui.strong("avg");
        ui.strong("max");
        ui.end_row();
        for (name, color, now, avg, max) in rows {
            ui.label(RichText::new(name).color(color));
            ui.monospace(format!("{now:7.3}"));
            ui.monospace(format!("{avg:7.3}"));
            ui.monospace(format!("{max:7.3}"));
            ui.end_row();
        }
    });
    ui.label(format!("Broad phase: {}", last.broad_phase.label()));
    if last.pairs_dropped > 0 {
        ui.colored_label(
            egui::Color32::from_rgb(255, 120, 80),
            format!(
                "{} pairs over the budget of {} were dropped: those bodies pass through",
                last.pairs_dropped,
                crate::world::MAX_PAIRS
            ),
        );
    }
    if last.broad_phase_reused {
        ui.label("Broad phase: last update's pairs reused (no body awake, nothing edited)").on_hover_text(
            "Nothing can have moved, so the pairs cannot have changed; a wake or any edit runs it again.",
        );
    }
    ui.add_space(6.0);
    egui::Grid::new("profile_counters").num_columns(4).striped(true).show(ui, |ui| {
        // The step's counters, then the broad phase's own (as in the CSV).
        let b = &last.broad;
        let mut counters: Vec<(&str, u64)> = vec![
            ("bodies", last.bodies as u64),
            ("sleeping", last.sleeping_bodies as u64),
            ("pairs", last.pairs as u64),
            ("narrow tests", last.narrow_tests as u64),
            ("manifolds", last.manifolds as u64),
            ("contacts", last.contacts as u64),
            ("TOI events", last.toi_events as u64),
            ("awake", last.awake_bodies as u64),
            ("bp candidates", b.candidate_pairs as u64),
            ("bp overlaps", b.true_overlaps as u64),
            ("AABB tests", b.aabb_tests),
            ("bp reinserted", b.reinserted as u64),
        ];
        for (name, v) in last.broad_phase.stat_names().into_iter().zip([b.nodes as u64, b.depth as u64, b.swaps]) {
            if !name.is_empty() {
                counters.push((name, v));
            }
        }
        for pair in counters.chunks(2) {
            for (name, v) in pair {
                ui.label(*name);
                ui.monospace(v.to_string());
            }
            ui.end_row();
        }
    });
}

/// `12345` as `12,345`.
fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (k, c) in digits.chars().enumerate() {
        if k > 0 && (digits.len() - k).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Settings;

    #[test]
    fn counts_are_written_with_thousands_separators() {
        let got: Vec<String> = [0, 7, 999, 1000, 180_300, 1_234_567].into_iter().map(thousands).collect();
        assert_eq!(got, ["0", "7", "999", "1,000", "180,300", "1,234,567"]);
    }

    #[test]
    fn only_markers_within_the_plotted_steps_are_drawn() {
        let mut h = History::new(10);
        let (a, mut b) = (Settings::default(), Settings::default());
        b.slop = 0.01;
        h.push(1, StepProfile::default());
        h.mark(1, &a, &b);
        for s in 2..=30 {
            h.push(s, StepProfile::default());
        }
        assert_eq!(h.markers().count(), 1, "the history keeps its last marker");
        assert!(plotted_markers(&h).is_empty(), "step 1 is no longer plotted (21..=30 are)");
        h.mark(25, &b, &a);
        let shown: Vec<u64> = plotted_markers(&h).into_iter().map(|(s, _)| s).collect();
        assert_eq!(shown, [25]);
        assert!(plotted_markers(&History::new(10)).is_empty());
    }
}
