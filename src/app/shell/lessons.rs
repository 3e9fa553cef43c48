//! The lesson player in the app: a panel at the window's left edge with the step's text, the
//! prediction, Run, Back / Restart step / Next and the progress strip; and authoring ("Add step
//! from current state"). The steps' engine side is [`crate::lesson::Player`]'s; this applies
//! their camera, layers, panels, highlight and plot to the view.

use super::App;
use crate::app::layout::PanelId;
use crate::app::panels::colors;
use crate::app::viewport::{Camera, Layers};
use crate::lesson::text::{Span, Style, spans};
use crate::lesson::{Lesson, LessonError, PairIteration, Phase, Player, Run, Start, Step, ViewChange, ViewNames};
use crate::scene::{CameraDesc, Scene};
use eframe::egui::{self, Color32, RichText, Ui, text::LayoutJob};
use std::path::Path;

/// Colours of the step text's styles, legible on the dark theme from the back of a room.
const MATH: Color32 = Color32::from_rgb(140, 210, 255);
const CODE: Color32 = Color32::from_rgb(255, 210, 140);
const STRONG: Color32 = Color32::from_rgb(255, 255, 255);
const TEXT: Color32 = Color32::from_rgb(225, 225, 225);

/// Presenting, a window narrower than this (in unzoomed points, pixels on most screens) gives
/// the lesson panel a larger share (a 1280×720 projector).
const SMALL_WINDOW: f32 = 1400.0;

/// The open lesson, if any, and what the panel shows besides it.
#[derive(Default)]
pub(super) struct LessonState {
    pub player: Option<Player>,
    /// The last error (a step that could not be entered, a save that failed).
    pub error: Option<String>,
    /// The last notice (a step added and saved).
    pub notice: Option<String>,
    /// The new step's title and text, and its run, for "Add step from current state".
    draft_title: String,
    draft_text: String,
    draft_run: Run,
    /// The run's refusal (an unanswered prediction), shown under Run.
    refused: Option<&'static str>,
}

/// What the lesson panel asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Act {
    Next,
    Back,
    Restart,
    GoTo(usize),
    Run,
    Answer(usize),
    AddStep,
    Close,
}

/// The layer and panel names lessons may use: the app's.
fn view_names<R>(f: impl FnOnce(&ViewNames) -> R) -> R {
    let panels: Vec<String> = PanelId::ALL.iter().map(|p| p.label().to_lowercase()).collect();
    let panels: Vec<&str> = panels.iter().map(String::as_str).collect();
    f(&ViewNames { layers: &Layers::NAMES, panels: &panels })
}

/// Loads and checks a lesson file, with the app's layer and panel names.
pub fn load_lesson(path: &Path) -> Result<(Lesson, crate::scene::Scene), LessonError> {
    let (lesson, scene) = Lesson::load(path)?;
    check_lesson_view(&lesson)?;
    Ok((lesson, scene))
}

/// Checks a lesson's layer and panel names against the app's.
pub fn check_lesson_view(lesson: &Lesson) -> Result<(), LessonError> {
    view_names(|n| lesson.check_view(n))
}

impl App {
    /// Opens a lesson at step `step` (from 0): its scene replaces the open one, as opening a
    /// scene does (the speed, "pause at" and a recording are kept). On error the current scene
    /// and lesson stay.
    pub fn open_lesson(&mut self, path: &Path, step: usize) -> Result<(), LessonError> {
        let (lesson, scene) = load_lesson(path)?;
        self.open_loaded_lesson(lesson, scene, step)
    }

    /// [`App::open_lesson`] with a lesson already read and checked by [`load_lesson`].
    pub fn open_loaded_lesson(&mut self, lesson: Lesson, scene: Scene, step: usize) -> Result<(), LessonError> {
        let mut player = Player::new(lesson, scene);
        let (sim, view) = player.start(step)?;
        self.sim.adopt(sim);
        self.view.selected = None;
        self.sweep.stop();
        self.diagnose.stop();
        self.frame_pending = true;
        self.lesson.player = Some(player);
        self.lesson.error = None;
        self.lesson.notice = None;
        self.apply_lesson_view(view);
        Ok(())
    }

    /// Opens a lesson file from the Scenes panel at its first step. On failure the current
    /// scene and lesson stay and the Scenes panel shows the error.
    pub fn open_lesson_file(&mut self, path: &Path) {
        match self.open_lesson(path, 0) {
            Ok(()) => {
                self.scenes.error = None;
                self.scenes.notice = None;
            }
            Err(e) => {
                self.scenes.error = Some(e.to_string());
                self.open.show(PanelId::Scenes);
            }
        }
    }

    /// Closes the lesson panel; the scene stays as it is.
    pub(super) fn close_lesson(&mut self) {
        self.lesson.player = None;
        self.sim.step_start = None;
        self.lesson.error = None;
    }

    /// Whether panel `p` is veiled: the step's prediction awaits the class's answer, and the step
    /// brings `p` forward to show what happens, which is the answer (the Ray panel said
    /// "parallel: every t" under the question about a parallel slab, the Pair panel "4 points"
    /// under the question about the manifold's points). It opens once the class has chosen.
    pub(super) fn veiled(&self, p: PanelId) -> bool {
        self.lesson.player.as_ref().is_some_and(|player| {
            player.awaits_answer() && player.current().panels.iter().any(|n| n.parse::<PanelId>().ok() == Some(p))
        })
    }

    /// The lesson being played.
    pub fn lesson_player(&self) -> Option<&Player> {
        self.lesson.player.as_ref()
    }

    /// The lesson panel's last error.
    pub fn lesson_error(&self) -> Option<&str> {
        self.lesson.error.as_deref()
    }

    /// The camera, layers, see-through statics, panels, highlight and plot of a step.
    fn apply_lesson_view(&mut self, v: ViewChange) {
        match v.camera.or(self.sim.scene.camera) {
            Some(c) => {
                let cam = Camera::looking(c.eye, c.target);
                *self.viewport.camera_mut() = cam.clone();
                self.home_camera = Some(cam);
                self.frame_pending = false;
            }
            None => self.frame_pending = true,
        }
        if let Some(layers) = &v.layers {
            for name in Layers::NAMES {
                // Names come from a checked lesson: every one is known.
                let _ = self.view.layers.set(name, layers.iter().any(|l| l == name));
            }
        }
        if let Some(see_through) = v.see_through {
            self.view.see_through_statics = see_through;
        }
        let panels: Vec<PanelId> = v.panels.iter().filter_map(|p| p.parse().ok()).collect();
        for &p in &panels {
            self.open.show(p);
        }
        if self.presentation && !panels.is_empty() {
            self.open.presenting = panels.first().copied();
        }
        self.select(v.highlight);
        if let Some(b) = v.partner {
            // The Pair panel explains the pair with the method the step's settings use.
            self.pair.partner = Some(b);
            self.pair.method = self.sim.world.settings.narrow_phase;
        }
        if let Some(k) = v.plot {
            self.inspector.set_series(k);
            self.open.show(PanelId::Inspector);
        }
        match v.pair_iteration {
            Some(PairIteration::Gjk(k)) => self.pair.gjk_iteration = k,
            Some(PairIteration::Epa(k)) => self.pair.epa_iteration = k,
            None => {}
        }
        self.pair.reveal = v.pair_iteration;
        self.pair.moved = v.pair_iteration;
        // An iteration the pair's trace does not have: the slider shows its last, the panel why.
        if let Some(Err(e)) = self.lesson.player.as_ref().map(|p| p.check_pair_iteration(&self.sim)) {
            self.lesson.error = Some(e.to_string());
        }
    }

    /// Call before the simulation advances each frame.
    pub(super) fn lesson_frame(&mut self) {
        if let Some(p) = &mut self.lesson.player {
            let was = self.sim.playing;
            p.frame(&mut self.sim);
            if was && !self.sim.playing && p.awaits_answer() {
                self.lesson.refused = Some("answer the prediction first");
            }
        }
    }

    /// The lesson panel at the window's left edge, while a lesson is open.
    pub(super) fn lesson_panel(&mut self, ui: &mut Ui) {
        if self.lesson.player.is_none() {
            return;
        }
        let window = ui.max_rect().width();
        let mut acts = Vec::new();
        let panel = egui::Panel::left("lesson");
        let panel = if let Some(width) = self.presented_lesson_width(ui, window) {
            panel.exact_size(width)
        } else {
            panel.resizable(true).default_size(380.0_f32.min(window * 0.3)).size_range(240.0..=window * 0.4)
        };
        // A prediction before its run, with Run, is pinned so that the class sees the question
        // and every choice without scrolling: presenting, in a strip under the view (the
        // enlarged step text keeps the panel's height); else above the navigation.
        let pinned = self.lesson.player.as_ref().is_some_and(pins_prediction);
        panel.show(ui, |ui| {
            // Back, Restart and Next stay at the panel's foot however long the step's text.
            egui::Panel::bottom("lesson_nav").show(ui, |ui| self.nav_row(ui, &mut acts));
            if pinned && !self.presentation {
                egui::Panel::bottom("lesson_predict").show(ui, |ui| {
                    ui.add_space(4.0);
                    self.prediction_and_run(ui, &mut acts);
                    ui.add_space(2.0);
                });
            }
            egui::ScrollArea::vertical().id_salt("lesson_scroll").auto_shrink([false, false]).show(ui, |ui| {
                self.lesson_ui(ui, &mut acts);
            });
        });
        if pinned && self.presentation {
            egui::Panel::bottom("lesson_predict").show(ui, |ui| self.prediction_strip(ui, &mut acts));
        }
        for a in acts {
            self.lesson_act(a);
        }
    }

    /// Whether a lesson is open in presentation mode.
    pub(super) fn presenting_lesson(&self) -> bool {
        self.presentation && self.lesson.player.is_some()
    }

    /// Presenting a lesson, the shares of the window's width (`window`, in points, at the
    /// presentation's zoom) of the lesson panel and of the side dock showing the presented
    /// panel; the view has the rest. They follow the window every frame. In a window under
    /// [`SMALL_WINDOW`] the enlarged text needs more room: the lesson takes more, the dock less.
    fn presented_shares(&self, ui: &Ui, window: f32) -> Option<(f32, f32)> {
        let small = window * ui.ctx().zoom_factor() < SMALL_WINDOW;
        self.presenting_lesson().then_some(if small { (0.36, 0.2) } else { (0.3, 0.22) })
    }

    /// Presenting a lesson, its panel's width in a window `window` wide.
    fn presented_lesson_width(&self, ui: &Ui, window: f32) -> Option<f32> {
        self.presented_shares(ui, window).map(|(lesson, _)| window * lesson)
    }

    /// Presenting a lesson, the width of the side dock showing the presented panel.
    pub(super) fn presented_dock_width(&self, ui: &Ui, window: f32) -> Option<f32> {
        self.presented_shares(ui, window).map(|(_, dock)| window * dock)
    }

    fn lesson_act(&mut self, a: Act) {
        let Some(player) = self.lesson.player.as_mut() else { return };
        self.lesson.refused = None;
        let result = match a {
            Act::Next => player.next(&mut self.sim),
            Act::Back => player.back(&mut self.sim),
            Act::Restart => player.restart(&mut self.sim).map(Some),
            Act::GoTo(k) => player.go_to(&mut self.sim, k).map(Some),
            Act::Run => {
                self.lesson.refused = player.start_run(&mut self.sim).err();
                Ok(None)
            }
            Act::Answer(k) => {
                player.set_answer(k);
                Ok(None)
            }
            Act::AddStep => {
                self.add_lesson_step();
                Ok(None)
            }
            Act::Close => {
                self.close_lesson();
                Ok(None)
            }
        };
        match result {
            Ok(Some(view)) => {
                self.lesson.error = None;
                self.apply_lesson_view(view);
            }
            Ok(None) => {}
            Err(e) => self.lesson.error = Some(e.to_string()),
        }
    }

    fn lesson_ui(&mut self, ui: &mut Ui, acts: &mut Vec<Act>) {
        let Some(player) = self.lesson.player.as_ref() else { return };
        let big = self.text_scale(ui);
        let body = egui::TextStyle::Body.resolve(ui.style()).size * big;
        ui.add(egui::Label::new(RichText::new(&player.lesson.title).heading().strong()).wrap());
        ui.horizontal(|ui| {
            progress_strip(ui, player, acts);
            ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                if ui.small_button("✖").on_hover_text("Close the lesson (the scene stays)").clicked() {
                    acts.push(Act::Close);
                }
            });
        });
        ui.separator();
        let k = player.step();
        let step = player.current();
        let heading = if step.title.is_empty() {
            format!("Step {} of {}", k + 1, player.len())
        } else {
            format!("Step {} of {} · {}", k + 1, player.len(), step.title)
        };
        ui.label(RichText::new(heading).size(body * 1.1).strong().color(STRONG));
        ui.add_space(4.0);
        rich_text(ui, &step.text, body);
        if !step.settings.is_empty() {
            ui.add_space(4.0);
            let list: Vec<String> = step.settings.iter().map(|(n, v)| format!("{n} = {v}")).collect();
            ui.label(RichText::new(format!("Settings: {}", list.join(", "))).monospace().color(CODE))
                .on_hover_text("Set when this step starts, as `--set` sets them");
        }
        if !pins_prediction(player) {
            self.prediction_and_run(ui, acts);
        }
        if let Some(e) = &self.lesson.error {
            ui.colored_label(colors::ERROR, e);
        }
        if !self.presentation {
            ui.add_space(8.0);
            self.authoring_ui(ui, acts);
        }
    }

    /// The step's prediction, if any, and the Run row under it.
    fn prediction_and_run(&self, ui: &mut Ui, acts: &mut Vec<Act>) {
        let Some(player) = self.lesson.player.as_ref() else { return };
        let body = egui::TextStyle::Body.resolve(ui.style()).size * self.text_scale(ui);
        if let Some(p) = &player.current().prediction {
            ui.add_space(6.0);
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.label(RichText::new("Predict").strong().color(colors::WARN).size(body));
                rich_text(ui, &p.question, body);
                let answer = player.answer();
                for i in 0..p.choices.len() {
                    self.choice(ui, player, i, body, acts);
                }
                if player.phase() == Phase::Done {
                    let verdict = match answer {
                        Some(a) if a == p.answer => (format!("You predicted {}: right.", letter(a)), colors::OK),
                        Some(a) => (
                            format!("You predicted {}; what happened is {}.", letter(a), letter(p.answer)),
                            colors::WARN,
                        ),
                        None => (format!("What happened: {}.", letter(p.answer)), colors::WARN),
                    };
                    ui.label(RichText::new(verdict.0).strong().color(verdict.1).size(body));
                    if !p.explain.is_empty() {
                        rich_text(ui, &p.explain, body);
                    }
                }
            });
        }
        ui.add_space(6.0);
        self.run_row(ui, player, body, acts);
    }

    /// Presenting, the step's prediction across the strip under the view: the question, the
    /// choices side by side, and the Run row.
    fn prediction_strip(&self, ui: &mut Ui, acts: &mut Vec<Act>) {
        let Some(player) = self.lesson.player.as_ref() else { return };
        let Some(p) = &player.current().prediction else { return };
        let body = egui::TextStyle::Body.resolve(ui.style()).size * self.text_scale(ui);
        ui.add_space(4.0);
        // "Predict" and the question in one paragraph, wrapped to the strip.
        let mut question = LayoutJob::default();
        let predict =
            egui::TextFormat { font_id: egui::FontId::proportional(body), color: colors::WARN, ..Default::default() };
        question.append("Predict  ", 0.0, predict);
        append_markup(&mut question, &p.question, body);
        question.wrap.max_width = ui.available_width();
        ui.label(question);
        ui.columns(p.choices.len(), |columns| {
            for (i, ui) in columns.iter_mut().enumerate() {
                self.choice(ui, player, i, body, acts);
            }
        });
        self.run_row(ui, player, body, acts);
        ui.add_space(2.0);
    }

    /// Choice `i` of the step's prediction: a radio button, open until the run starts.
    fn choice(&self, ui: &mut Ui, player: &Player, i: usize, body: f32, acts: &mut Vec<Act>) {
        let Some(p) = &player.current().prediction else { return };
        let done = player.phase() == Phase::Done;
        let mark = if done && i == p.answer { "  ✔ what happened" } else { "" };
        let text =
            RichText::new(format!("{} {}{mark}", letter(i), crate::lesson::text::plain(&p.choices[i]))).size(body);
        let open = player.phase() == Phase::Ready;
        if ui.add_enabled(open, egui::RadioButton::new(player.answer() == Some(i), text)).clicked() {
            acts.push(Act::Answer(i));
        }
    }

    /// How much larger than body text the step's text is: most when presenting in a large
    /// window, where the class reads it from afar; less where the panel is narrow.
    fn text_scale(&self, ui: &Ui) -> f32 {
        if self.presentation && ui.ctx().content_rect().width() >= 1000.0 { 1.25 } else { 1.1 }
    }

    /// Back, Restart step and Next.
    fn nav_row(&self, ui: &mut Ui, acts: &mut Vec<Act>) {
        let Some(player) = self.lesson.player.as_ref() else { return };
        // The buttons' own size: three must fit on one row of the panel.
        let body = egui::TextStyle::Body.resolve(ui.style()).size;
        let k = player.step();
        let step = player.current();
        ui.add_space(4.0);
        ui.horizontal_wrapped(|ui| {
            ui.spacing_mut().item_spacing.x = 4.0;
            ui.spacing_mut().button_padding.x = 6.0;
            let size = egui::vec2(0.0, body * 1.8);
            let label = |t: &str| RichText::new(t).size(body).strong();
            if ui
                .add_enabled(k > 0, egui::Button::new(label("◀ Back")).min_size(size))
                .on_hover_text("The previous step, from its start exactly")
                .clicked()
            {
                acts.push(Act::Back);
            }
            if ui
                .add(egui::Button::new(label("⟲ Restart")).min_size(size))
                .on_hover_text("This step again from its start (the same state, bit for bit)")
                .clicked()
            {
                acts.push(Act::Restart);
            }
            let last = k + 1 >= player.len();
            let hint = if player.lesson.steps.get(k + 1).is_some_and(|s| s.start == Start::Continue) && step.run.stops()
            {
                "The next step; it starts where this step's run stops (run to it first if it has not)"
            } else {
                "The next step"
            };
            if ui.add_enabled(!last, egui::Button::new(label("Next ▶")).min_size(size)).on_hover_text(hint).clicked()
            {
                acts.push(Act::Next);
            }
        });
        ui.add_space(2.0);
    }

    fn run_row(&self, ui: &mut Ui, player: &Player, body: f32, acts: &mut Vec<Act>) {
        let run = player.current().run;
        if run == Run::Paused {
            ui.label(RichText::new("This step does not run: look, or step with S.").italics());
            return;
        }
        // The button and what the run waits for or where it stopped, on one row while they fit.
        ui.horizontal_wrapped(|ui| {
            let waiting = player.awaits_answer();
            let label = match player.phase() {
                Phase::Ready => format!("▶ Run {}", run.describe()),
                Phase::Running if self.sim.playing => format!("Running {}…", run.describe()),
                Phase::Running => format!("▶ Go on {}", run.describe()),
                Phase::Done => "✔ Run over".to_string(),
            };
            let enabled = !waiting && player.phase() != Phase::Done && !self.sim.playing;
            let r = ui.add_enabled(enabled, egui::Button::new(RichText::new(label).size(body).strong()));
            let r = if waiting { r.on_disabled_hover_text("Answer the prediction first") } else { r };
            if r.clicked() {
                acts.push(Act::Run);
            }
            if let Some(why) = self.lesson.refused.filter(|_| player.phase() == Phase::Ready) {
                ui.colored_label(colors::WARN, format!("⚠ {why}"));
            } else if waiting {
                ui.label(RichText::new("Answer the prediction, then run.").italics());
            }
            if let Some(why) = &player.stopped_by {
                ui.label(RichText::new(format!("Stopped at {why}")).color(colors::OK));
            }
        });
    }

    fn authoring_ui(&mut self, ui: &mut Ui, acts: &mut Vec<Act>) {
        let has_file = self.lesson.player.as_ref().is_some_and(|p| p.lesson.file.is_some());
        egui::CollapsingHeader::new("Author: add a step").id_salt("lesson_author").show(ui, |ui| {
            ui.label("Captures the camera, settings, layers, open panels, selection and the world's state into a new step after this one, and saves the lesson file.");
            ui.horizontal(|ui| {
                let l = ui.label("Title");
                ui.text_edit_singleline(&mut self.lesson.draft_title).labelled_by(l.id);
            });
            let l = ui.label("Text (**strong**, *emphasis*, `code`, $d^2 <= r^2 + eps$)");
            ui.add(egui::TextEdit::multiline(&mut self.lesson.draft_text).desired_rows(3).desired_width(f32::INFINITY))
                .labelled_by(l.id);
            egui::ComboBox::from_label("Run").selected_text(self.lesson.draft_run.describe()).show_ui(
                ui,
                |ui| {
                    for r in [Run::Paused, Run::Free, Run::FirstContact, Run::Toi, Run::AllAsleep, Run::Steps(120), Run::Seconds(2.0)] {
                        ui.selectable_value(&mut self.lesson.draft_run, r, r.describe());
                    }
                },
            );
            let can = has_file && !self.lesson.draft_text.trim().is_empty();
            if ui.add_enabled(can, egui::Button::new("➕ Add step from current state")).clicked() {
                acts.push(Act::AddStep);
            }
            if let Some(n) = &self.lesson.notice {
                ui.colored_label(colors::OK, n);
            }
        });
    }

    /// A step from what is on screen now, for authoring.
    pub fn capture_lesson_step(&self, title: &str, text: &str, run: Run) -> Step {
        let scene_settings = self.lesson.player.as_ref().map_or(&self.sim.scene.settings, |p| &p.scene().settings);
        let cam = self.viewport.camera();
        let layers =
            Layers::NAMES.iter().filter(|n| self.view.layers.get(n) == Some(true)).map(|n| n.to_string()).collect();
        let name = |i: usize| self.sim.world.bodies().get(i).and_then(|b| b.name.clone());
        let highlight = self.view.selected.and_then(name);
        // The Pair panel's pair and slider, when it is open on a named pair.
        let pair_open = highlight.is_some() && self.open.visible(PanelId::Pair);
        let partner = self.pair.partner.filter(|_| pair_open).and_then(name);
        let pair_iteration = self.pair.moved.filter(|_| partner.is_some());
        Step {
            title: title.trim().to_string(),
            text: text.trim().to_string(),
            start: Start::Snapshot(Box::new(self.sim.world.snapshot())),
            settings: scene_settings
                .changed_values(&self.sim.world.settings)
                .into_iter()
                .map(|(name, _, value)| (name.to_string(), value))
                .collect(),
            camera: Some(CameraDesc { eye: cam.eye(), target: cam.target }),
            layers: Some(layers),
            see_through: Some(self.view.see_through_statics),
            panels: PanelId::ALL
                .into_iter()
                .filter(|p| self.open.visible(*p))
                .map(|p| p.label().to_lowercase())
                .collect(),
            // The plotted series only when the Inspector is on screen: a step's plot shows the
            // Inspector, which would cover the panel that was on top in its dock.
            plot: highlight
                .as_ref()
                .filter(|_| self.open.visible(PanelId::Inspector))
                .and_then(|_| crate::lesson::plot_names().get(self.inspector.series()).map(|s| s.to_string())),
            highlight,
            partner,
            pair_iteration,
            run,
            prediction: None,
        }
    }

    /// "Add step from current state": the step goes after the current one and the lesson file
    /// is saved atomically; on a failed check or save nothing changes.
    fn add_lesson_step(&mut self) {
        let step = self.capture_lesson_step(&self.lesson.draft_title, &self.lesson.draft_text, self.lesson.draft_run);
        let Some(player) = self.lesson.player.as_mut() else { return };
        let Some(path) = player.lesson.file.clone() else { return };
        let mut next = player.lesson.clone();
        let at = player.step() + 1;
        next.steps.insert(at, step.clone());
        let saved = next.validate(player.scene()).and_then(|_| next.save(&path));
        match saved {
            Ok(()) => {
                player.insert_step(at, step);
                self.lesson.notice = Some(format!("Added step {} and saved {}", at + 1, path.display()));
                self.lesson.error = None;
                self.lesson.draft_text.clear();
                self.lesson.draft_title.clear();
            }
            Err(e) => self.lesson.error = Some(e.to_string()),
        }
    }
}

fn letter(i: usize) -> String {
    char::from(b'A' + (i as u8).min(25)).to_string()
}

/// The progress strip: one box per step, the current one lit; a click goes to a visited step
/// (or forward through Next).
fn progress_strip(ui: &mut Ui, player: &Player, acts: &mut Vec<Act>) {
    ui.horizontal_wrapped(|ui| {
        ui.set_max_width(ui.available_width() - 30.0);
        ui.spacing_mut().item_spacing.x = 3.0;
        for (i, s) in player.lesson.steps.iter().enumerate() {
            let current = i == player.step();
            let fill = if current {
                colors::WARN
            } else if i < player.step() {
                Color32::from_rgb(90, 150, 110)
            } else {
                Color32::from_gray(70)
            };
            let text = RichText::new(format!("{}", i + 1)).strong().color(if current {
                Color32::BLACK
            } else {
                Color32::WHITE
            });
            let b = egui::Button::new(text).fill(fill).min_size(egui::vec2(28.0, 22.0));
            let tip =
                if s.title.is_empty() { format!("Step {}", i + 1) } else { format!("Step {}: {}", i + 1, s.title) };
            if ui.add(b).on_hover_text(tip).clicked() && !current {
                acts.push(Act::GoTo(i));
            }
        }
    });
}

/// Step text with its markup drawn: strong in white on an amber band, emphasis in italics, code in
/// amber monospace, math in light blue italics.
fn rich_text(ui: &mut Ui, text: &str, size: f32) {
    let mut job = LayoutJob::default();
    append_markup(&mut job, text, size);
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}

/// Appends the step text's markup to `job`, in the styles' colours at `size`.
fn append_markup(job: &mut LayoutJob, text: &str, size: f32) {
    let spans = spans(text).unwrap_or_else(|_| vec![Span { text: text.to_string(), style: Style::Plain }]);
    let prop = egui::FontId::proportional(size);
    // egui slants italics without widening them: the last letter of an italic span leans into
    // the space after it, and `$1 / d_y$ is` read "1 / d_yis". The span after one is set off by
    // the slant's width.
    let mut after_italic = false;
    for s in spans {
        let mut f = egui::TextFormat { font_id: prop.clone(), color: TEXT, ..Default::default() };
        match s.style {
            Style::Plain => {}
            Style::Strong => {
                // egui's fonts have one weight: strong is white on a faint band.
                f.color = STRONG;
                f.background = Color32::from_rgba_unmultiplied(255, 200, 90, 40);
            }
            Style::Emphasis => f.italics = true,
            Style::Code => {
                f.font_id = egui::FontId::monospace(size * 0.92);
                f.color = CODE;
            }
            Style::Math => {
                f.italics = true;
                f.color = MATH;
            }
        }
        let lead = if after_italic { ITALIC_LEAN * size } else { 0.0 };
        after_italic = f.italics;
        job.append(&s.text, lead, f);
    }
}

/// How far an italic letter leans past its box, as a share of the font size.
const ITALIC_LEAN: f32 = 0.18;

/// Whether the step's prediction (and Run) is pinned where the class sees it without scrolling
/// (presenting, under the view; else above the navigation): from the step's start until its
/// run is over, when the verdict and explanation take the scrolling text.
fn pins_prediction(player: &Player) -> bool {
    player.current().prediction.is_some() && player.phase() != Phase::Done
}

/// What a veiled panel shows instead of its content ([`App::veiled`]).
pub(super) fn veil(ui: &mut Ui) {
    ui.add_space(8.0);
    ui.label(
        RichText::new("This panel shows the answer: it opens once the class has chosen in the prediction.")
            .italics()
            .weak(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The text after an italic span (math, emphasis) starts the slant's width later, so its
    /// first letter does not touch the italic's last one; other spans follow at once.
    #[test]
    fn the_span_after_an_italic_one_is_set_off_by_its_slant() {
        let mut job = LayoutJob::default();
        append_markup(&mut job, "and $1 / d_y$ is *far* from **here**", 20.0);
        let leads: Vec<(bool, f32)> = job.sections.iter().map(|s| (s.format.italics, s.leading_space)).collect();
        assert_eq!(
            leads,
            vec![
                (false, 0.0),
                (true, 0.0),
                (false, ITALIC_LEAN * 20.0),
                (true, 0.0),
                (false, ITALIC_LEAN * 20.0),
                (false, 0.0)
            ]
        );
    }
}
