//! The Diagnose panel: runs [`crate::diagnose`] on the open scene on a background thread (the
//! window stays live however long the scene), then lists each event with its bodies, its
//! measured cause and the fixes tried (whether each removed the event and its ms per step). An
//! event seeks the timeline to its step (the panel puts a recording of the same run there) and
//! selects its bodies; "Apply fix" puts a verified fix's setting into the live settings;
//! "Reduce to a minimal case" shrinks the scene around an event, here or from the timeline, and
//! offers to save the case found (atomically) and open it.

use super::{Command, PanelCx, colors};
use crate::diagnose::{self, Change, Diagnosis, Event, HORIZON, Report, Shrunk, Symptom, events_text, step_cost};
use crate::record::Recording;
use crate::scene::{Scene, SceneError};
use crate::session::Status;
use crate::session::timeline::{KEYFRAME_INTERVAL, RecordCommand, Tape};
use crate::world::Settings;
use eframe::egui::{self, RichText, Ui};
use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

/// A diagnosed run: the report, and the same run recorded for the timeline.
pub struct Diagnosed {
    /// What diagnose found.
    pub report: Report,
    /// The run (the scene with the settings it ran with), for the timeline.
    run: Arc<Recording>,
    /// The run's timeline events.
    events: Vec<crate::record::Event>,
    /// The state hash before the run's first step.
    initial_hash: u64,
}

/// Why the panel's diagnosis, shrink or save did not give a result.
#[derive(Debug, thiserror::Error)]
pub enum DiagnosePanelError {
    /// The background work panicked (its name, as the progress line says it).
    #[error("{0} stopped with an internal error")]
    Panicked(String),
    /// The diagnosis refused the scene.
    #[error(transparent)]
    Diagnose(#[from] diagnose::DiagnoseError),
    /// The shrink found no smaller case, or refused the scene.
    #[error(transparent)]
    Shrink(#[from] diagnose::ShrinkError),
    /// The scene builds no world, or the case could not be written.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// Save asked for before a shrink found a case.
    #[error("no minimal case to save")]
    NoCase,
}

/// Work on a background thread: what it is, since when.
struct Job<T> {
    what: String,
    started: Instant,
    handle: JoinHandle<T>,
}

impl<T: Send + 'static> Job<T> {
    fn spawn(what: String, work: impl FnOnce() -> T + Send + 'static) -> Self {
        Job { what, started: Instant::now(), handle: std::thread::spawn(work) }
    }

    /// The result, once the thread is done (a panic in it is an error, not the app's).
    fn take(slot: &mut Option<Self>) -> Option<Result<T, DiagnosePanelError>> {
        if !slot.as_ref().is_some_and(|j| j.handle.is_finished()) {
            return None;
        }
        let job = slot.take().expect("checked above");
        Some(job.handle.join().map_err(|_| DiagnosePanelError::Panicked(job.what)))
    }

    /// A progress line with a Cancel button; returns whether Cancel was clicked.
    fn progress(&self, ui: &mut Ui) -> bool {
        ui.ctx().request_repaint_after(std::time::Duration::from_millis(100));
        ui.horizontal(|ui| {
            ui.spinner();
            ui.label(format!("{}… {:.0} s", self.what, self.started.elapsed().as_secs_f32()));
            ui.button("Cancel").on_hover_text("Stop waiting for it; the result is dropped").clicked()
        })
        .inner
    }
}

/// A minimal case found by shrinking.
pub struct Reduced {
    /// The event kept, in words ("tunneling of body 2").
    pub what: String,
    /// What shrink found.
    pub shrunk: Shrunk,
    /// The bodies the scene had, generators expanded.
    pub before: usize,
    /// What the last save did.
    pub saved: Option<Status>,
}

pub struct DiagnosePanel {
    /// Steps to run.
    pub steps: u64,
    diagnosing: Option<Job<Result<Diagnosed, DiagnosePanelError>>>,
    /// The last run diagnosed.
    pub result: Option<Diagnosed>,
    /// Why the last diagnosis could not run.
    pub error: Option<DiagnosePanelError>,
    shrinking: Option<Job<Result<Reduced, DiagnosePanelError>>>,
    /// The last minimal case found.
    pub reduced: Option<Reduced>,
    /// Why the last shrink found nothing.
    pub shrink_error: Option<DiagnosePanelError>,
}

impl Default for DiagnosePanel {
    fn default() -> Self {
        DiagnosePanel {
            steps: 300,
            diagnosing: None,
            result: None,
            error: None,
            shrinking: None,
            reduced: None,
            shrink_error: None,
        }
    }
}

/// Diagnoses `scene` for `steps` steps, then records the same run for the timeline.
fn diagnose_and_record(scene: &Scene, steps: u64) -> Result<Diagnosed, DiagnosePanelError> {
    // The diagnosis's own run is the one recorded for the timeline.
    let mut tape = None;
    let report = diagnose::diagnose_stepping(scene, steps, |world| {
        tape.get_or_insert_with(|| Tape::new(scene, world, KEYFRAME_INTERVAL)).step(world);
    })?;
    let tape = match tape {
        Some(tape) => tape,
        None => Tape::new(scene, &scene.build()?, KEYFRAME_INTERVAL),
    };
    let initial_hash = tape.initial_hash();
    let (run, events) = tape.finish();
    Ok(Diagnosed { report, run: Arc::new(run), events, initial_hash })
}

impl DiagnosePanel {
    /// Whether a diagnosis or a shrink is running.
    pub fn is_running(&self) -> bool {
        self.diagnosing.is_some() || self.shrinking.is_some()
    }

    /// Forgets the results and stops waiting for running work (a new scene was opened).
    pub fn stop(&mut self) {
        *self = DiagnosePanel { steps: self.steps, ..Default::default() };
    }

    /// Starts diagnosing `scene` from its start with the `live` settings.
    pub fn start(&mut self, scene: &Scene, live: &Settings) {
        let mut scene = scene.clone();
        scene.settings = live.clone();
        let steps = self.steps;
        self.error = None;
        self.diagnosing =
            Some(Job::spawn(format!("Diagnosing {} steps", steps), move || diagnose_and_record(&scene, steps)));
    }

    /// Starts shrinking `scene` to the fewest bodies that still show `symptom` (to `body`, an
    /// index with generators expanded) within `steps` steps.
    pub fn start_shrink(&mut self, scene: &Scene, symptom: Symptom, body: Option<u32>, steps: u64) {
        let scene = scene.clone();
        let before = scene.expanded_bodies().len();
        self.shrink_error = None;
        let what = match body {
            Some(b) => format!("{} of body {b}", symptom.label()),
            None => symptom.label().to_string(),
        };
        self.shrinking = Some(Job::spawn(format!("Reducing to a minimal case: {what}"), move || {
            let shrunk = diagnose::shrink(&scene, symptom, body, steps)?;
            Ok(Reduced { what, shrunk, before, saved: None })
        }));
    }

    /// Writes the minimal case found to `path` (atomically); the outcome is also shown.
    pub fn save_case(&mut self, path: &Path) -> Result<(), DiagnosePanelError> {
        let Some(r) = &mut self.reduced else { return Err(DiagnosePanelError::NoCase) };
        let saved = r.shrunk.scene.save(path);
        r.saved = Some(Status::of(saved.as_ref(), |()| format!("Saved {}", crate::session::file_label(path))));
        Ok(saved?)
    }

    /// Collects finished work; returns whether any finished.
    pub fn poll(&mut self) -> bool {
        let mut any = false;
        if let Some(done) = Job::take(&mut self.diagnosing) {
            match done.and_then(|r| r) {
                Ok(d) => self.result = Some(d),
                Err(e) => self.error = Some(e),
            }
            any = true;
        }
        if let Some(done) = Job::take(&mut self.shrinking) {
            match done.and_then(|r| r) {
                Ok(r) => self.reduced = Some(r),
                Err(e) => self.shrink_error = Some(e),
            }
            any = true;
        }
        any
    }

    pub fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let mut out = Vec::new();
        self.poll();
        ui.label(
            "Runs the open scene from its start with the current settings, finds what goes wrong, measures why, \
             and re-runs each fix the cause suggests.",
        );
        ui.horizontal(|ui| {
            ui.add_enabled_ui(self.diagnosing.is_none(), |ui| {
                let l = ui.label("Steps");
                ui.add(egui::DragValue::new(&mut self.steps).range(1..=100_000)).labelled_by(l.id);
                if ui.button("🔬 Diagnose").on_hover_text("Run it in the background; the window stays live").clicked()
                {
                    self.start(&cx.sim.scene, &cx.sim.world.settings);
                }
            });
        });
        if self.diagnosing.as_ref().is_some_and(|job| job.progress(ui)) {
            self.diagnosing = None;
        }
        if let Some(e) = &self.error {
            ui.colored_label(colors::ERROR, e.to_string());
        }
        self.shrink_ui(ui, &mut out);
        let mut reduce = None;
        if let Some(d) = &self.result {
            ui.separator();
            reduce = report_ui(ui, cx, d, &mut out);
        }
        if let Some((scene, symptom, body, steps)) = reduce {
            self.start_shrink(&scene, symptom, body, steps);
        }
        out
    }

    /// The running shrink, or the minimal case it found with Save and Open.
    fn shrink_ui(&mut self, ui: &mut Ui, out: &mut Vec<Command>) {
        if self.shrinking.as_ref().is_some_and(|job| job.progress(ui)) {
            self.shrinking = None;
        }
        if let Some(e) = &self.shrink_error {
            ui.colored_label(colors::ERROR, e.to_string());
        }
        let Some(r) = &self.reduced else { return };
        let s = &r.shrunk;
        let kept: Vec<String> = s.kept.iter().map(|k| k.to_string()).collect();
        let cure = s.cure.as_ref().map_or(String::new(), |c| format!(", which {} removes", c.describe()));
        ui.colored_label(
            colors::OK,
            format!(
                "Minimal case for {}: {} of {} bodies still show it (at step {}) with its cause ({}{cure}), found \
                 in {} runs: bodies {} of the original",
                r.what,
                s.scene.bodies.len(),
                r.before,
                s.step,
                s.cause.label(),
                s.runs,
                kept.join(", ")
            ),
        );
        let mut save_to = None;
        ui.horizontal(|ui| {
            let dialog =
                || rfd::FileDialog::new().add_filter("Scene", &["ron"]).set_file_name("minimal_case.ron").save_file();
            if ui.button("💾 Save case…").on_hover_text("Write the minimal case as a scene file").clicked()
                && let Some(p) = dialog()
            {
                save_to = Some((p, false));
            }
            if ui.button("📂 Save and open…").on_hover_text("Write the minimal case, then open it here").clicked()
                && let Some(p) = dialog()
            {
                save_to = Some((p, true));
            }
        });
        if let Some((path, open)) = save_to
            && self.save_case(&path).is_ok()
            && open
        {
            out.push(Command::OpenScene(path));
        }
        super::status_line(ui, self.reduced.as_ref().and_then(|r| r.saved.as_ref()));
    }
}

/// A shrink asked for: the scene, the symptom, the body and the steps to run.
type ReduceRequest = (Scene, Symptom, Option<u32>, u64);

/// The report: each diagnosis with its fixes, then the other events. Returns a shrink asked for.
fn report_ui(ui: &mut Ui, cx: &PanelCx, d: &Diagnosed, out: &mut Vec<Command>) -> Option<ReduceRequest> {
    let report = &d.report;
    let mut reduce = None;
    ui.label(
        RichText::new(format!("{}: {} steps, {}", report.scene, report.steps, events_text(report.events.len())))
            .strong(),
    );
    if report.diagnoses.is_empty() {
        ui.colored_label(colors::OK, format!("No symptoms found in {} steps", report.steps));
    }
    for (k, diagnosis) in report.diagnoses.iter().enumerate() {
        ui.push_id(("diagnosis", k), |ui| {
            egui::Frame::group(ui.style()).show(ui, |ui| {
                event_link(ui, cx, d, &diagnosis.event, out);
                if let Some(which) = diagnosis.which() {
                    ui.label(RichText::new(format!("This is {which}.")).italics());
                }
                ui.label(format!("Cause: {}", diagnosis.explanation));
                fixes_ui(ui, cx, diagnosis, out);
                if ui
                    .button("✂ Reduce to a minimal case")
                    .on_hover_text("Remove bodies while the event still happens, in the background")
                    .clicked()
                {
                    let e = &diagnosis.event;
                    reduce = Some((d.run.scene.clone(), e.symptom, e.bodies.first().copied(), e.step + HORIZON));
                }
            });
        });
    }
    let others: Vec<&Event> =
        report.events.iter().filter(|e| !report.diagnoses.iter().any(|g| &g.event == *e)).collect();
    if !others.is_empty() {
        egui::CollapsingHeader::new(format!("Other events ({})", others.len())).id_salt("diagnose_others").show(
            ui,
            |ui| {
                for e in others {
                    event_link(ui, cx, d, e, out);
                }
            },
        );
    }
    reduce
}

/// An event as a link: a click puts the run on the timeline (if it is not there), seeks to the
/// event's step and selects its bodies (the first selected, the others pinned beside it).
fn event_link(ui: &mut Ui, cx: &PanelCx, d: &Diagnosed, e: &Event, out: &mut Vec<Command>) {
    let bodies: Vec<String> = e.bodies.iter().map(|b| b.to_string()).collect();
    // An event of the whole world (energy gained) names no body.
    let which = if bodies.is_empty() { String::new() } else { format!(" (bodies {})", bodies.join(", ")) };
    let text = format!("Step {}: {}{which}: {}", e.step, e.symptom.label(), e.detail);
    if !ui.link(text).on_hover_text("Seek the timeline to this step and select the bodies").clicked() {
        return;
    }
    let shown = cx.sim.record.review.as_ref().is_some_and(|r| Arc::ptr_eq(&r.recording, &d.run));
    if !shown {
        out.push(Command::Record(RecordCommand::Show {
            recording: d.run.clone(),
            events: d.events.clone(),
            initial_hash: d.initial_hash,
            name: format!("diagnosed run of {}", d.report.scene),
        }));
    }
    out.push(Command::ShowPanel(crate::app::PanelId::Timeline));
    out.push(Command::Record(RecordCommand::Seek(e.step)));
    out.push(Command::Select(e.bodies.first().map(|&b| b as usize)));
    for &b in e.bodies.iter().skip(1) {
        out.push(Command::Pin(b as usize, true));
    }
    // Selecting brings the inspector forward; this panel stays in front, its fixes at hand.
    out.push(Command::ShowPanel(crate::app::PanelId::Diagnose));
}

/// The fixes tried, each with whether it removed the event and its cost; a verified setting
/// can be applied to the live settings.
fn fixes_ui(ui: &mut Ui, cx: &PanelCx, diagnosis: &Diagnosis, out: &mut Vec<Command>) {
    if !diagnosis.reproduced {
        ui.colored_label(
            colors::WARN,
            format!("The event does not recur from {}: no fix tried", diagnosis.rerun_origin()),
        );
        return;
    }
    ui.label(format!(
        "Fixes tried from {} (as is: {}):",
        diagnosis.rerun_origin(),
        step_cost(diagnosis.baseline_ms_per_step)
    ));
    egui::Grid::new("fixes").num_columns(4).striped(true).show(ui, |ui| {
        for t in &diagnosis.fixes {
            ui.label(RichText::new(t.change.describe()).monospace());
            if t.removed {
                ui.colored_label(colors::OK, "removes it");
            } else {
                ui.colored_label(colors::WARN, "does not remove it");
            }
            ui.label(step_cost(t.ms_per_step));
            match &t.change {
                Change::Set { field, value } if t.removed => {
                    let mut s = cx.sim.world.settings.clone();
                    let set = s.set_field(field, value);
                    let already = set.is_ok() && s == cx.sim.world.settings;
                    let button = ui
                        .add_enabled(set.is_ok() && !already, egui::Button::new("Apply fix"))
                        .on_hover_text(format!("Set {field} to {value} now; the world keeps its state"))
                        .on_disabled_hover_text(if already { "Already set" } else { "This build cannot set it" });
                    if button.clicked() {
                        out.push(Command::SetSettings(Box::new(s)));
                    }
                }
                Change::Set { .. } => {
                    ui.label("");
                }
                _ => {
                    ui.label("an edit of the scene").on_hover_text("Make it in the scene file, or drag the body");
                }
            }
            ui.end_row();
        }
    });
}
