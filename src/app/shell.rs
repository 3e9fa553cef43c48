//! The app: owns the simulation and the viewport, lays out the panels, handles the keys, and
//! applies what panels and viewport ask for.

use super::panels::{
    Command, InspectorPanel, ProfilerPanel, ProfilerPrefs, ScenePanel, SettingsPanel, ViewPanel, colors, file_label,
};
use super::sim::{SPEED_RANGE, Simulation};
use super::viewport::{Camera, ViewAction, ViewOptions, Viewport};
use crate::scene::{Scene, write_atomic};
use crate::world::{Settings, World};
use eframe::egui::{self, Key, Modifiers, RichText, Ui};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The labels of the toolbar's panel toggles, for its width.
const PANEL_NAMES: [&str; 8] = ["Scenes", "Settings", "Profiler", "Inspector", "View", "Sweep", "Pair", "Timeline"];

/// The zoom factor of presentation mode, for a room watching a projector.
pub const PRESENTATION_ZOOM: f32 = 1.6;

/// Which panels are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenPanels {
    pub scenes: bool,
    pub settings: bool,
    pub profiler: bool,
    pub inspector: bool,
    pub view: bool,
    /// The narrow-phase pair panel.
    pub pair: bool,
    /// The recording timeline along the bottom (always shown while recording).
    pub timeline: bool,
    /// Parameter sweeps of the open scene.
    pub sweep: bool,
}

impl Default for OpenPanels {
    fn default() -> Self {
        OpenPanels {
            scenes: true,
            settings: true,
            profiler: true,
            inspector: true,
            view: true,
            pair: false,
            timeline: true,
            sweep: false,
        }
    }
}

/// What the app remembers between runs (through eframe's storage).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    pub open: OpenPanels,
    pub view: ViewOptions,
    pub camera: Option<Camera>,
    pub speed: f32,
    pub presentation: bool,
    /// The scene open when the app last closed, and its settings as they were then.
    pub last_scene: Option<PathBuf>,
    pub settings: Option<Settings>,
    pub recent: Vec<PathBuf>,
    pub scene_dir: Option<PathBuf>,
    pub profiler: ProfilerPrefs,
    /// Play a scene as soon as it opens (off: open paused on its first step).
    pub autoplay: bool,
}

impl Default for Persisted {
    fn default() -> Self {
        Persisted {
            open: OpenPanels::default(),
            view: ViewOptions::default(),
            camera: None,
            speed: 1.0,
            presentation: false,
            last_scene: None,
            settings: None,
            recent: Vec::new(),
            scene_dir: None,
            profiler: ProfilerPrefs::default(),
            autoplay: false,
        }
    }
}

/// The sandbox: a simulation, its 3D view and the panels around it.
pub struct App {
    sim: Simulation,
    viewport: Viewport,
    view: ViewOptions,
    open: OpenPanels,
    presentation: bool,
    settings_panel: SettingsPanel,
    profiler: ProfilerPanel,
    scenes: ScenePanel,
    inspector: InspectorPanel,
    view_panel: ViewPanel,
    pair: super::panels::PairPanel,
    timeline: super::panels::TimelinePanel,
    sweep: super::panels::SweepPanel,
    compare: super::compare::CompareView,
    /// Frame the camera on the bodies at the next frame (a new scene, no remembered camera).
    frame_pending: bool,
    /// The camera a scene opened with; Reset (R) puts it back.
    home_camera: Option<Camera>,
    /// Play a scene as soon as it opens or resets; off, it waits on its first step.
    pub autoplay: bool,
    /// Each frame runs exactly one step while playing, whatever the frame time (screenshots).
    pub fixed_frame_steps: bool,
}

impl App {
    /// An app showing `sim`, with default layout. The scene list shows `scene_dir`.
    pub fn new(sim: Simulation, viewport: Viewport, scene_dir: PathBuf) -> Self {
        let mut scenes = ScenePanel::new(scene_dir, Vec::new());
        if let Some(p) = &sim.path {
            scenes.remember(p);
        }
        App {
            sim,
            viewport,
            view: ViewOptions::default(),
            open: OpenPanels::default(),
            presentation: false,
            settings_panel: SettingsPanel::default(),
            profiler: ProfilerPanel::default(),
            scenes,
            inspector: InspectorPanel::default(),
            view_panel: ViewPanel,
            pair: Default::default(),
            timeline: Default::default(),
            sweep: Default::default(),
            compare: Default::default(),
            frame_pending: true,
            home_camera: None,
            autoplay: false,
            fixed_frame_steps: false,
        }
    }

    /// Loads `path` into a new app; the error names the file and line.
    pub fn open(path: &Path, viewport: Viewport) -> Result<Self, String> {
        let sim = Simulation::load(path)?;
        Ok(App::new(sim, viewport, default_scene_dir(path)))
    }

    /// Applies what was remembered from the last run. Settings are restored only when the same
    /// scene is open again.
    pub fn restore(&mut self, p: Persisted) {
        self.open = p.open;
        self.view = p.view;
        self.view.selected = None;
        if let Some(c) = p.camera {
            let c = c.sanitized();
            *self.viewport.camera_mut() = c.clone();
            self.home_camera = Some(c);
            self.frame_pending = false;
        }
        self.autoplay = p.autoplay;
        self.sim.speed = p.speed.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end());
        self.presentation = p.presentation;
        if let (Some(last), Some(settings), Some(now)) = (&p.last_scene, p.settings, &self.sim.path)
            && same_path(last, now)
            && settings.validate().is_ok()
        {
            self.sim.world.set_settings(settings);
        }
        let current = self.scenes.recent.clone();
        self.scenes.recent = p.recent.into_iter().filter(|r| r.exists()).collect();
        for r in current.iter().rev() {
            self.scenes.remember(r);
        }
        if let Some(d) = p.scene_dir.filter(|d| d.is_dir()) {
            self.scenes.set_dir(d);
        }
        self.sim.history.set_capacity(p.profiler.history);
        self.profiler.prefs = p.profiler;
    }

    /// The state to remember for the next run.
    pub fn persisted(&self) -> Persisted {
        Persisted {
            open: self.open,
            view: ViewOptions { selected: None, ..self.view.clone() },
            camera: Some(self.viewport.camera().clone()),
            speed: self.sim.speed,
            presentation: self.presentation,
            last_scene: self.sim.path.as_ref().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())),
            settings: Some(self.sim.world.settings.clone()),
            recent: self.scenes.recent.clone(),
            scene_dir: Some(self.scenes.dir().to_path_buf()),
            profiler: self.profiler.prefs.clone(),
            autoplay: self.autoplay,
        }
    }

    pub fn world(&self) -> &World {
        &self.sim.world
    }

    pub fn simulation(&self) -> &Simulation {
        &self.sim
    }

    pub fn simulation_mut(&mut self) -> &mut Simulation {
        &mut self.sim
    }

    pub fn view(&self) -> &ViewOptions {
        &self.view
    }

    pub fn viewport_mut(&mut self) -> &mut Viewport {
        &mut self.viewport
    }

    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// The pair panel, with the trace it showed last frame.
    pub fn pair_panel(&self) -> &super::panels::PairPanel {
        &self.pair
    }

    pub fn view_mut(&mut self) -> &mut ViewOptions {
        &mut self.view
    }

    pub fn sweep_panel_mut(&mut self) -> &mut super::panels::SweepPanel {
        &mut self.sweep
    }

    pub fn open_panels(&self) -> &OpenPanels {
        &self.open
    }

    pub fn open_panels_mut(&mut self) -> &mut OpenPanels {
        &mut self.open
    }

    pub fn scenes_panel_mut(&mut self) -> &mut ScenePanel {
        &mut self.scenes
    }

    /// The last load or save error shown in the scene browser.
    pub fn scene_error(&self) -> Option<&str> {
        self.scenes.error.as_deref()
    }

    pub fn set_scene_dir(&mut self, dir: PathBuf) {
        self.scenes.set_dir(dir);
    }

    pub fn presentation(&self) -> bool {
        self.presentation
    }

    /// Draws the whole app into `ui` and advances the simulation by the frame's time.
    pub fn show(&mut self, ui: &mut Ui) {
        let ctx = ui.ctx().clone();
        self.handle_keys(&ctx);
        let frame_dt = ui.input(|i| i.unstable_dt) as f64;
        if self.fixed_frame_steps {
            if self.sim.playing {
                self.sim.step_once();
            }
        } else {
            self.sim.advance(frame_dt);
        }
        if self.sim.history.capacity() != self.profiler.prefs.history {
            self.sim.history.set_capacity(self.profiler.prefs.history);
        }
        // Every world the app opens steps on the preferred thread count.
        let threads = self.profiler.prefs.threads.max(1);
        if self.sim.world.threads() != threads {
            self.sim.world.set_threads(threads);
        }
        if self.view.selected.is_some_and(|i| i >= self.sim.world.bodies().len()) {
            self.view.selected = None;
        }

        let mut commands = Vec::new();
        egui::Panel::top("toolbar").show(ui, |ui| {
            ui.add_space(3.0);
            commands.extend(self.toolbar(ui));
            ui.add_space(3.0);
        });
        if self.open.profiler {
            egui::Panel::bottom("profiler").resizable(true).default_size(270.0).min_size(140.0).show(ui, |ui| {
                commands.extend(self.profiler.ui(ui, &self.sim.history));
            });
        }
        if self.open.timeline || self.sim.is_recording() {
            egui::Panel::bottom("timeline").show(ui, |ui| commands.extend(self.timeline.ui(ui, &self.sim)));
        }
        if self.open.scenes || self.open.settings || self.open.sweep {
            egui::Panel::left("left").resizable(true).default_size(420.0).size_range(260.0..=640.0).show(ui, |ui| {
                egui::ScrollArea::vertical().id_salt("left_scroll").show(ui, |ui| {
                    if self.open.scenes {
                        egui::CollapsingHeader::new(RichText::new("Scenes").heading()).default_open(true).show(
                            ui,
                            |ui| {
                                let (path, scene) = (self.sim.path.as_deref(), &self.sim.scene);
                                commands.extend(self.scenes.ui(ui, path, &scene.name, &scene.description));
                                ui.checkbox(&mut self.autoplay, "Play when a scene opens").on_hover_text(
                                    "Off: a scene opens (and resets) paused on its first step, so its start can be shown",
                                );
                            },
                        );
                    }
                    if self.open.settings {
                        egui::CollapsingHeader::new(RichText::new("Settings").heading()).default_open(true).show(
                            ui,
                            |ui| {
                                commands.extend(self.settings_panel.ui(ui, &self.sim.world, &self.sim.scene.settings));
                            },
                        );
                    }
                    if self.open.sweep {
                        egui::CollapsingHeader::new(RichText::new("Sweep").heading())
                            .default_open(true)
                            .show(ui, |ui| {
                                commands.extend(self.sweep.ui(ui, &self.sim.scene, &self.sim.world.settings))
                            });
                    }
                });
            });
        }
        self.view.extra.clear();
        if self.open.inspector || self.open.view || self.open.pair {
            egui::Panel::right("right").resizable(true).default_size(380.0).size_range(240.0..=600.0).show(ui, |ui| {
                egui::ScrollArea::vertical().id_salt("right_scroll").show(ui, |ui| {
                    if self.open.inspector {
                        egui::CollapsingHeader::new(RichText::new("Inspector").heading()).default_open(true).show(
                            ui,
                            |ui| {
                                let dragging = self.sim.drag.map(|d| d.body);
                                let (world, trace) = (&self.sim.world, &self.sim.trace);
                                commands.extend(self.inspector.ui(ui, world, trace, self.view.selected, dragging));
                            },
                        );
                    }
                    if self.open.view {
                        egui::CollapsingHeader::new(RichText::new("View").heading()).default_open(true).show(
                            ui,
                            |ui| {
                                commands.extend(self.view_panel.ui(ui, &mut self.view, self.viewport.camera_mut()));
                            },
                        );
                    }
                    if self.open.pair {
                        egui::CollapsingHeader::new(RichText::new("Pair").heading()).default_open(true).show(
                            ui,
                            |ui| {
                                let selected = self.view.selected;
                                self.pair.ui(ui, &self.sim.world, selected, &mut self.view.extra);
                            },
                        );
                    }
                });
            });
        }
        let actions = egui::CentralPanel::no_frame()
            .show(ui, |ui| self.compare.ui(ui, &mut self.viewport, &self.sim, &self.view, &mut commands))
            .inner;
        // After the viewport has drawn, so framing uses its real aspect ratio.
        if std::mem::take(&mut self.frame_pending) {
            match self.sim.scene.camera {
                Some(c) => *self.viewport.camera_mut() = Camera::looking(c.eye, c.target),
                None => self.viewport.frame_all(&self.sim.world),
            }
            self.home_camera = Some(self.viewport.camera().clone());
            ctx.request_repaint();
        }
        for a in actions {
            self.apply_view_action(a);
        }
        for c in commands {
            self.apply(c);
        }
        if self.sim.playing {
            ctx.request_repaint();
        }
    }

    /// Play/pause, step, reset, speed, the clock, and the panel switches.
    /// One row whose controls never move: fixed-width buttons and counters, the panel toggles
    /// inline when the window is wide enough and in a "Panels" menu when it is not, and the
    /// real-time warning last.
    fn toolbar(&mut self, ui: &mut Ui) -> Vec<Command> {
        let mut commands = Vec::new();
        ui.horizontal(|ui| {
            let play_label = if self.sim.playing { "⏸ Pause" } else { "▶ Play" };
            if ui.add(egui::Button::new(RichText::new(play_label).strong()).min_size(egui::vec2(96.0, 0.0)))
                .on_hover_text("Run or stop the simulation (Space)")
                .clicked()
            {
                self.sim.playing = !self.sim.playing;
            }
            if ui.button("⏭ Step").on_hover_text("Advance exactly one fixed step, then stay paused (S or the right arrow key)").clicked() {
                self.step_once();
            }
            if ui.button("⟲ Reset").on_hover_text("Rebuild the scene from its file, keeping the current settings, and put the camera back (R)").clicked() {
                self.reset();
            }
            ui.separator();
            ui.spacing_mut().slider_width = 100.0;
            ui.add(
                egui::Slider::new(&mut self.sim.speed, SPEED_RANGE)
                    .logarithmic(true)
                    .custom_formatter(|v, _| format!("{v:.2}×"))
                    .custom_parser(|t| t.trim().trim_end_matches('×').trim().parse().ok()),
            )
            .on_hover_text("Speed: simulated time per real second. The step dt stays fixed; only how many steps run per frame changes.");
            ui.separator();
            // Counters in slots of fixed width (wide enough for 9,999,999 steps, 11 days of
            // simulated time and 999 ms), so nothing after them moves as they grow.
            let w = &self.sim.world;
            let slot = |ui: &mut Ui, chars: usize, text: RichText| {
                let width = ui.fonts_mut(|f| f.glyph_width(&egui::TextStyle::Monospace.resolve(ui.style()), '0'));
                let height = ui.spacing().interact_size.y;
                ui.add_sized([width * chars as f32, height], egui::Label::new(text.monospace()).truncate())
            };
            slot(ui, 12, RichText::new(format!("step {}", w.step_count())).strong());
            slot(ui, 14, RichText::new(format!("t {:.2} s", w.time())));
            slot(ui, 14, RichText::new(format!("{:.2} ms/step", w.profile().total_ms))).on_hover_text("Wall time of the last step");
            ui.separator();
            // The toggles, Frame all and Presentation must fit on the row; when they do not, the
            // toggles fold into a menu. (The real-time warning comes last, when there is one.)
            let font = egui::TextStyle::Button.resolve(ui.style());
            let pad = 2.0 * ui.spacing().button_padding.x + ui.spacing().item_spacing.x;
            let text_width = |t: &str| {
                ui.fonts_mut(|f| f.layout_no_wrap(t.to_string(), font.clone(), egui::Color32::WHITE).size().x) + pad
            };
            let toggles: f32 = PANEL_NAMES.iter().map(|t| text_width(t)).sum();
            let rest: f32 = ["Frame all", "📽 Presentation"].iter().map(|t| text_width(t)).sum();
            if ui.available_width() >= toggles + rest + 24.0 {
                self.panel_toggles(ui);
            } else {
                ui.menu_button("Panels…", |ui| self.panel_toggles(ui));
            }
            ui.separator();
            if ui.button("Frame all").on_hover_text("Fit the scene's bodies in the view, leaving out those that flew far away (F)").clicked() {
                commands.push(Command::FrameAll);
            }
            let mut p = self.presentation;
            if ui.toggle_value(&mut p, "📽 Presentation").on_hover_text("Enlarge everything for a projector (P)").changed() {
                self.set_presentation(ui.ctx(), p);
            }
            if self.sim.behind {
                ui.colored_label(colors::WARN, "⚠ slower than real time").on_hover_text(
                    "The steps real time asks for do not fit in a frame; the simulation runs slower than the speed set.",
                );
            }
        });
        commands
    }

    fn panel_toggles(&mut self, ui: &mut Ui) {
        ui.toggle_value(&mut self.open.scenes, "Scenes");
        ui.toggle_value(&mut self.open.settings, "Settings");
        ui.toggle_value(&mut self.open.profiler, "Profiler");
        ui.toggle_value(&mut self.open.inspector, "Inspector");
        ui.toggle_value(&mut self.open.view, "View");
        ui.toggle_value(&mut self.open.sweep, "Sweep")
            .on_hover_text("Run the scene over a range of settings and plot the results");
        ui.toggle_value(&mut self.open.pair, "Pair")
            .on_hover_text("How the narrow phase answers the selected body and a partner, step by step.");
        ui.toggle_value(&mut self.open.timeline, "Timeline")
            .on_hover_text("Record, scrub, fork and compare (Ctrl+R records; shown while recording).");
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        if ctx.text_edit_focused() {
            return;
        }
        use super::record::RecordCommand;
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::R)) {
            self.apply(Command::Record(RecordCommand::ToggleRecording));
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::ArrowLeft)) {
            self.apply(Command::Record(RecordCommand::StepBack));
        }
        let pressed = |key| ctx.input_mut(|i| i.consume_key(Modifiers::NONE, key));
        if pressed(Key::Space) {
            self.sim.playing = !self.sim.playing;
        }
        if pressed(Key::S) | pressed(Key::ArrowRight) {
            self.step_once();
        }
        if pressed(Key::R) {
            self.reset();
        }
        if pressed(Key::F) {
            self.apply(Command::FrameAll);
        }
        if pressed(Key::P) {
            self.set_presentation(ctx, !self.presentation);
        }
    }

    /// Pauses and runs exactly one step.
    pub fn step_once(&mut self) {
        self.sim.playing = false;
        self.sim.step_once();
    }

    /// Rebuilds the scene from its file (keeping the settings), puts the camera back where the
    /// scene opened, and plays only if autoplay is on.
    pub fn reset(&mut self) {
        if let Err(e) = self.sim.reset() {
            self.scenes.error = Some(e);
        }
        if let Some(c) = &self.home_camera {
            *self.viewport.camera_mut() = c.clone();
        }
        self.sim.playing = self.autoplay;
    }

    /// Shows an error in the scene browser (opened), e.g. a scene given on the command line that
    /// could not be loaded.
    pub fn show_error(&mut self, message: String) {
        self.scenes.error = Some(message);
        self.open.scenes = true;
    }

    fn set_presentation(&mut self, ctx: &egui::Context, on: bool) {
        self.presentation = on;
        ctx.set_zoom_factor(if on { PRESENTATION_ZOOM } else { 1.0 });
    }

    /// Applies the presentation zoom remembered from the last run.
    pub fn apply_zoom(&self, ctx: &egui::Context) {
        ctx.set_zoom_factor(if self.presentation { PRESENTATION_ZOOM } else { 1.0 });
    }

    /// Opens a scene file. On failure the error is shown and the current scene stays.
    pub fn open_scene(&mut self, path: &Path) {
        match self.sim.open(path) {
            Ok(()) => {
                self.scenes.error = None;
                // A recording survives the open; say where it went.
                self.scenes.notice =
                    self.sim.record.status.clone().filter(|_| self.sim.record.review.is_some()).and_then(Result::ok);
                self.scenes.remember(path);
                self.view.selected = None;
                self.frame_pending = true;
                self.sim.playing = self.autoplay;
                self.sweep.stop();
            }
            Err(e) => {
                self.scenes.error = Some(e);
                self.open.scenes = true;
            }
        }
    }

    /// Saves the current state as a scene file (atomically).
    pub fn save_scene(&mut self, path: &Path) {
        let scene = Scene::from_world(&self.sim.world, &self.sim.scene);
        match scene.save(path) {
            Ok(()) => {
                self.scenes.error = None;
                self.scenes.notice = Some(format!("Saved {}", file_label(path)));
                self.scenes.remember(path);
            }
            Err(e) => self.scenes.error = Some(e.to_string()),
        }
    }

    pub fn apply(&mut self, c: Command) {
        match c {
            Command::SetSettings(s) => {
                let before = self.sim.world.settings.clone();
                self.sim.user_settings(*s);
                // A marker on the profiler's plot where the change took effect.
                if self.sim.world.settings != before {
                    self.sim.history.mark(self.sim.world.step_count(), &before, &self.sim.world.settings);
                }
            }
            Command::Record(r) => self.sim.apply_record(r),
            Command::OpenScene(p) => self.open_scene(&p),
            Command::SaveScene(p) => self.save_scene(&p),
            Command::ExportCsv(p) => {
                let csv = self.profiler.export_source(&self.sim.history).to_csv();
                self.profiler.status = Some(match write_atomic(&p, csv.as_bytes()) {
                    Ok(()) => Ok(format!("Wrote {}", p.display())),
                    Err(e) => Err(e.to_string()),
                });
            }
            Command::Select(i) => self.select(i),
            Command::FrameAll => self.viewport.frame_all(&self.sim.world),
        }
    }

    fn select(&mut self, i: Option<usize>) {
        self.view.selected = i.filter(|&i| i < self.sim.world.bodies().len());
        self.sim.trace.follow(self.view.selected);
        if self.view.selected.is_some() {
            self.open.inspector = true;
        }
    }

    /// Applies what the viewport asked for: selection, the mouse spring, shots.
    pub fn apply_view_action(&mut self, a: ViewAction) {
        match a {
            ViewAction::Select(i) => self.select(i),
            ViewAction::DragStart { body, local_anchor } => self.sim.start_drag(body, local_anchor),
            ViewAction::DragTo { target } => self.sim.drag_to(target),
            ViewAction::DragEnd => self.sim.drag = None,
            ViewAction::Shoot { origin, velocity } => {
                if origin.is_finite() && velocity.is_finite() {
                    self.sim.shoot(origin, velocity);
                }
            }
        }
    }
}

/// The folder the scene browser lists: `scenes/` under the working directory if there is one,
/// else the folder of the scene opened.
pub fn default_scene_dir(scene: &Path) -> PathBuf {
    let local = PathBuf::from("scenes");
    if local.is_dir() {
        return local;
    }
    scene.parent().filter(|p| !p.as_os_str().is_empty()).map(Path::to_path_buf).unwrap_or_else(|| PathBuf::from("."))
}

fn same_path(a: &Path, b: &Path) -> bool {
    a == b || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}
