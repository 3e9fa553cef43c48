//! The lesson player in the app: a panel at the window's left edge with the step's text, the
//! prediction, Run, Back / Restart step / Next and the progress strip; and authoring ("Add step
//! from current state"). The steps' engine side is [`crate::lesson::Player`]'s; this applies
//! their camera, layers, panels, highlight and plot to the view.

use super::App;
use crate::app::layout::PanelId;
use crate::app::panels::colors;
use crate::app::viewport::{Camera, Layers};
use crate::lesson::text::{Span, Style, spans};
use crate::lesson::{Lesson, LessonError, Phase, Player, Run, Start, Step, ViewChange, ViewNames};
use crate::scene::CameraDesc;
use eframe::egui::{self, Color32, RichText, Ui, text::LayoutJob};
use std::path::Path;

/// Colours of the step text's styles, legible on the dark theme from the back of a room.
const MATH: Color32 = Color32::from_rgb(140, 210, 255);
const CODE: Color32 = Color32::from_rgb(255, 210, 140);
const STRONG: Color32 = Color32::from_rgb(255, 255, 255);
const TEXT: Color32 = Color32::from_rgb(225, 225, 225);

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
    view_names(|n| lesson.check_view(n))?;
    Ok((lesson, scene))
}

impl App {
    /// Opens a lesson at step `step` (from 0): its scene replaces the open one. On error the
    /// current scene and lesson stay.
    pub fn open_lesson(&mut self, path: &Path, step: usize) -> Result<(), LessonError> {
        let (lesson, scene) = load_lesson(path)?;
        let mut player = Player::new(lesson, scene);
        let (mut sim, view) = player.start(step)?;
        sim.speed = self.sim.speed;
        sim.history.set_capacity(self.sim.history.capacity());
        self.sim = sim;
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

    /// The lesson being played.
    pub fn lesson_player(&self) -> Option<&Player> {
        self.lesson.player.as_ref()
    }

    /// The lesson panel's last error.
    pub fn lesson_error(&self) -> Option<&str> {
        self.lesson.error.as_deref()
    }

    /// The camera, layers, panels, highlight and plot of a step.
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
        // Presenting, the widths follow the window (and its zoom) every frame: the lesson a bit
        // under a third, the one panel shown a little less, the view the rest.
        let panel = if self.presentation {
            if self.open.presenting.is_some_and(|p| p.dock() != crate::app::layout::Dock::Bottom) {
                self.dock_width = Some(window * 0.22);
            }
            panel.exact_size(window * 0.3)
        } else {
            panel.resizable(true).default_size(380.0_f32.min(window * 0.3)).size_range(240.0..=window * 0.4)
        };
        panel.show(ui, |ui| {
            // Back, Restart and Next stay at the panel's foot however long the step's text.
            egui::Panel::bottom("lesson_nav").show(ui, |ui| self.nav_row(ui, &mut acts));
            egui::ScrollArea::vertical().id_salt("lesson_scroll").auto_shrink([false, false]).show(ui, |ui| {
                self.lesson_ui(ui, &mut acts);
            });
        });
        for a in acts {
            self.lesson_act(a);
        }
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
                self.lesson.player = None;
                self.lesson.error = None;
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
        if let Some(p) = &step.prediction {
            ui.add_space(6.0);
            egui::Frame::group(ui.style()).show(ui, |ui| {
                ui.label(RichText::new("Predict").strong().color(colors::WARN).size(body));
                rich_text(ui, &p.question, body);
                let answer = player.answer();
                let open = player.phase() == Phase::Ready;
                for (i, c) in p.choices.iter().enumerate() {
                    let mark = match (player.phase() == Phase::Done, i == p.answer) {
                        (true, true) => "  ✔ what happened",
                        _ => "",
                    };
                    let text =
                        RichText::new(format!("{} {}{mark}", letter(i), crate::lesson::text::plain(c))).size(body);
                    let r = ui.add_enabled(open, egui::RadioButton::new(answer == Some(i), text));
                    if r.clicked() {
                        acts.push(Act::Answer(i));
                    }
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
        if let Some(e) = &self.lesson.error {
            ui.colored_label(colors::ERROR, e);
        }
        if !self.presentation {
            ui.add_space(8.0);
            self.authoring_ui(ui, acts);
        }
    }

    /// How much larger than body text the step's text is: most when presenting in a large
    /// window, where the class reads it from afar; less where the panel is narrow.
    fn text_scale(&self, ui: &Ui) -> f32 {
        match (self.presentation, ui.ctx().content_rect().width() >= 1000.0) {
            (true, true) => 1.25,
            (true, false) => 1.1,
            (false, _) => 1.1,
        }
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
        ui.horizontal(|ui| {
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
        });
        if let Some(why) = self.lesson.refused.filter(|_| player.phase() == Phase::Ready) {
            ui.colored_label(colors::WARN, format!("⚠ {why}"));
        } else if player.awaits_answer() {
            ui.label(RichText::new("Answer the prediction, then run.").italics());
        }
        if let Some(why) = &player.stopped_by {
            ui.label(RichText::new(format!("Stopped at {why}")).color(colors::OK));
        }
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
        let layers = Layers::NAMES
            .iter()
            .filter(|n| {
                let mut off = self.view.layers.clone();
                let _ = off.set(n, false);
                off != self.view.layers
            })
            .map(|n| n.to_string())
            .collect();
        let name = |i: usize| self.sim.world.bodies().get(i).and_then(|b| b.name.clone());
        let highlight = self.view.selected.and_then(name);
        Step {
            title: title.trim().to_string(),
            text: text.trim().to_string(),
            start: Start::Snapshot(Box::new(self.sim.world.snapshot())),
            settings: settings_changes(scene_settings, &self.sim.world.settings),
            camera: Some(CameraDesc { eye: cam.eye(), target: cam.target }),
            layers: Some(layers),
            panels: PanelId::ALL
                .into_iter()
                .filter(|p| self.open.visible(*p))
                .map(|p| p.label().to_lowercase())
                .collect(),
            plot: highlight
                .as_ref()
                .and_then(|_| crate::lesson::plot_names().get(self.inspector.series()).map(|s| s.to_string())),
            highlight,
            partner: None,
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

/// The settings in `now` that differ from `base`, by name, as RON values.
fn settings_changes(
    base: &crate::settings::Settings,
    now: &crate::settings::Settings,
) -> std::collections::BTreeMap<String, String> {
    let fields =
        |s: &crate::settings::Settings| match ron::to_string(s).ok().and_then(|t| ron::from_str::<ron::Value>(&t).ok())
        {
            Some(ron::Value::Map(m)) => m.into_iter().collect::<Vec<_>>(),
            _ => Vec::new(),
        };
    let before = fields(base);
    let mut out = std::collections::BTreeMap::new();
    for (k, v) in fields(now) {
        if !before.iter().any(|(bk, bv)| *bk == k && *bv == v)
            && let ron::Value::String(name) = &k
        {
            let text = now.clone();
            // The value's RON text as the field serialises it (enums by name).
            if let Some(value) = field_text(&text, name) {
                out.insert(name.clone(), value);
            }
        }
    }
    out
}

/// One setting's value as RON text: the settings written out, the field's entry read back.
fn field_text(s: &crate::settings::Settings, name: &str) -> Option<String> {
    let text = ron::ser::to_string_pretty(s, ron::ser::PrettyConfig::new().struct_names(false)).ok()?;
    text.lines().find_map(|l| {
        let l = l.trim();
        l.strip_prefix(name).and_then(|r| r.strip_prefix(':')).map(|v| v.trim().trim_end_matches(',').to_string())
    })
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
    let spans = spans(text).unwrap_or_else(|_| vec![Span { text: text.to_string(), style: Style::Plain }]);
    let mut job = LayoutJob::default();
    let prop = egui::FontId::proportional(size);
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
        job.append(&s.text, 0.0, f);
    }
    job.wrap.max_width = ui.available_width();
    ui.label(job);
}
