//! The app: owns the simulation and the viewport, lays out the panels, handles the keys, and
//! applies what panels and viewport ask for.

use super::layout::{Dock, OpenPanels, PanelId};
use super::panels::{
    Command, InspectorPanel, PanelCx, ProfilerPanel, ProfilerPrefs, ScenePanel, SettingsPanel, ViewPanel, colors,
    file_label,
};
use super::viewport::{Camera, ViewAction, ViewOptions, Viewport};
use crate::scene::{Scene, write_atomic};
use crate::session::Status;
use crate::session::pause::PauseAt;
use crate::session::sim::{SPEED_RANGE, Simulation};
use crate::world::{Settings, World};
use eframe::egui::{self, Key, Modifiers, RichText, Ui};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

mod lessons;
pub use lessons::{check_lesson_view, load_lesson};

/// Horizontal padding of the toolbar's panel toggles (narrower than other buttons, so that they
/// all fit on the row of a 1600-px window).
const TOGGLE_PADDING: f32 = 3.0;
/// The gap between the toolbar's panel toggles.
const TOGGLE_SPACING: f32 = 2.0;

/// The zoom factor of presentation mode, for a room watching a projector.
pub const PRESENTATION_ZOOM: f32 = 1.6;

/// What the app remembers between runs (through eframe's storage).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Persisted {
    pub open: OpenPanels,
    pub view: ViewOptions,
    pub camera: Option<Camera>,
    pub speed: f32,
    pub presentation: bool,
    /// The scene open when the app last closed.
    pub last_scene: Option<PathBuf>,
    /// Settings the user chose to keep for a scene ("Keep my edits for this scene"), by the
    /// scene file's path: opening that scene applies them, and the toolbar's edited badge shows
    /// it. Any other scene opens with its file's settings.
    pub kept_edits: BTreeMap<PathBuf, Settings>,
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
            kept_edits: BTreeMap::new(),
            recent: Vec::new(),
            scene_dir: None,
            profiler: ProfilerPrefs::default(),
            autoplay: false,
        }
    }
}

impl Persisted {
    /// Reads what the last run stored (RON). A stored text that cannot be read (damaged, or from
    /// an older version) gives the defaults and a message saying so, shown once: the next save
    /// replaces it.
    pub fn parse(stored: Option<&str>) -> (Option<Persisted>, Option<String>) {
        match stored.map(ron::from_str::<Persisted>) {
            None => (None, None),
            Some(Ok(p)) => (Some(p), None),
            Some(Err(e)) => (
                None,
                Some(format!(
                    "The saved preferences could not be read ({e}); the app starts with its defaults, \
                     which replace them when it closes."
                )),
            ),
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
    diagnose: super::panels::DiagnosePanel,
    compare: super::compare::CompareView,
    /// The Ray tool and the geometric tests lesson.
    teach: super::teach::Teach,
    /// Frame the camera on the bodies at the next frame (a new scene, no remembered camera).
    frame_pending: bool,
    /// The camera a scene opened with; Reset (R) puts it back.
    home_camera: Option<Camera>,
    /// Play a scene as soon as it opens or resets; off, it waits on its first step.
    pub autoplay: bool,
    /// Each frame runs exactly one step while playing, whatever the frame time (screenshots).
    pub fixed_frame_steps: bool,
    /// While A and B are side by side: the docks' collapsed flags and the profiler's before.
    ab_layout: Option<(bool, bool, bool)>,
    /// Settings kept per scene file by the user's choice (see [`Persisted::kept_edits`]).
    kept: BTreeMap<PathBuf, Settings>,
    /// Which moving bodies were in the view last frame, for "pause at a body leaving the view".
    in_view: Vec<bool>,
    /// The window's size in native points last frame, for presentation mode's zoom.
    window_size: Option<egui::Vec2>,
    /// Whether the Pair panel was on screen last frame: opening it turns its 3D layer on.
    pair_shown: bool,
    /// A width for the next side dock drawn, as if dragged there (scripts and screenshots).
    dock_width: Option<f32>,
    /// The guided lesson being played, and its panel.
    lesson: lessons::LessonState,
    /// The timeline's clip being exported, in a child process.
    clip_export: Option<super::clip::ClipExport>,
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
            diagnose: Default::default(),
            compare: Default::default(),
            teach: Default::default(),
            frame_pending: true,
            home_camera: None,
            autoplay: false,
            fixed_frame_steps: false,
            ab_layout: None,
            kept: BTreeMap::new(),
            in_view: Vec::new(),
            window_size: None,
            pair_shown: false,
            dock_width: None,
            lesson: Default::default(),
            clip_export: None,
        }
    }

    /// Loads `path` into a new app; the error names the file and line.
    pub fn open(path: &Path, viewport: Viewport) -> Result<Self, crate::scene::SceneError> {
        let sim = Simulation::load(path)?;
        Ok(App::new(sim, viewport, default_scene_dir(path)))
    }

    /// Starts the camera at `c` (and makes it the scene's, where Reset puts it back), over
    /// the scene's camera and the one remembered from the last run.
    pub fn set_start_camera(&mut self, c: crate::scene::CameraDesc) {
        self.sim.scene.camera = Some(c);
        self.frame_pending = true;
    }

    /// Applies what was remembered from the last run. The scene keeps its file's settings
    /// unless the user chose to keep edits for it.
    pub fn restore(&mut self, p: Persisted) {
        self.open = p.open;
        self.view = p.view;
        self.view.selected = None;
        self.view.selected_joint = None;
        // The view the last run left, only on the scene it was looking at: any other scene opens
        // framed (its own camera, or all its bodies).
        let same_scene = matches!((&p.last_scene, &self.sim.path), (Some(l), Some(n)) if scene_key(l) == scene_key(n));
        if let Some(c) = p.camera.filter(|_| same_scene) {
            let c = c.sanitized();
            *self.viewport.camera_mut() = c.clone();
            self.home_camera = Some(c);
            self.frame_pending = false;
        }
        self.autoplay = p.autoplay;
        self.sim.speed = p.speed.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end());
        self.presentation = p.presentation;
        self.kept = p.kept_edits.into_iter().filter(|(_, s)| s.validate().is_ok()).collect();
        self.apply_kept_edits();
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

    /// The key of the open scene's file, while the world is the file's scene (no recording or
    /// A/B has replaced it).
    fn kept_key(&self) -> Option<PathBuf> {
        let r = &self.sim.record;
        let plain = r.partner.is_none() && r.tape.is_none() && r.review.is_none();
        self.sim.path.as_deref().filter(|_| plain).map(scene_key)
    }

    /// Applies the edits kept for the open scene, if the user chose to keep some.
    fn apply_kept_edits(&mut self) {
        if let Some(s) = self.sim.path.as_deref().and_then(|p| self.kept.get(&scene_key(p))) {
            self.sim.world.set_settings(s.clone());
        }
    }

    /// Whether edits are kept for the open scene.
    pub fn keeps_edits(&self) -> bool {
        self.sim.path.as_deref().is_some_and(|p| self.kept.contains_key(&scene_key(p)))
    }

    /// Keeps the current settings for the open scene's file (they are applied whenever it
    /// opens), or forgets them.
    pub fn set_keep_edits(&mut self, on: bool) {
        let Some(key) = self.sim.path.as_deref().map(scene_key) else { return };
        if on && self.sim.world.settings != self.sim.scene.settings {
            self.kept.insert(key, self.sim.world.settings.clone());
        } else {
            self.kept.remove(&key);
        }
    }

    /// While edits are kept for the open scene, later edits are kept too; back at the file's
    /// values, nothing is kept.
    fn follow_kept_edits(&mut self) {
        let Some(key) = self.kept_key() else { return };
        let now = &self.sim.world.settings;
        if *now == self.sim.scene.settings {
            self.kept.remove(&key);
        } else if let Some(k) = self.kept.get_mut(&key)
            && k != now
        {
            *k = now.clone();
        }
    }

    /// The toolbar's badge when the settings are not the scene file's: how many differ, what
    /// they are, Revert, and "Keep my edits for this scene".
    fn edits_badge(&mut self, ui: &mut Ui, commands: &mut Vec<Command>) {
        let file = self.sim.scene.settings.clone();
        let changes = file.changes(&self.sim.world.settings);
        let Some(text) = self.badge_text() else { return };
        let kept = self.keeps_edits();
        ui.menu_button(RichText::new(text).color(colors::WARN).strong(), |ui| {
            ui.label(RichText::new("Settings that differ from the scene file:").strong());
            for c in &changes {
                ui.label(RichText::new(c).monospace());
            }
            ui.separator();
            if ui
                .button("⟲ Revert to the file")
                .on_hover_text("Every setting back to the scene file's value; the world keeps its state")
                .clicked()
            {
                commands.push(Command::SetSettings(Box::new(file)));
                self.set_keep_edits(false);
                ui.close();
            }
            let mut keep = kept;
            if self.sim.path.is_some()
                && ui
                    .checkbox(&mut keep, "Keep my edits for this scene")
                    .on_hover_text("Open this scene with these settings in later runs too (this badge shows it)")
                    .changed()
            {
                self.set_keep_edits(keep);
            }
        })
        .response
        .on_hover_text("The settings are not the scene file's: click for what differs, Revert, or Keep");
    }

    /// The edited badge's text, when the settings are not the scene file's.
    fn badge_text(&self) -> Option<String> {
        // Presenting a lesson: its panel lists the step's settings, and the row has no room.
        if self.presenting_lesson() {
            return None;
        }
        let n = self.sim.scene.settings.changes(&self.sim.world.settings).len();
        let kept = if self.keeps_edits() { " · kept" } else { "" };
        // Presentation mode's row has less room: the count alone.
        let what = match (self.presentation, n) {
            (true, _) => String::new(),
            (false, 1) => " setting".into(),
            (false, _) => " settings".into(),
        };
        (n > 0).then(|| format!("✏ edited: {n}{what}{kept}"))
    }

    /// The state to remember for the next run.
    pub fn persisted(&self) -> Persisted {
        let mut open = self.open.clone();
        if let Some((l, r, p)) = self.ab_layout {
            (open.left_collapsed, open.right_collapsed, open.profiler) = (l, r, p);
        }
        Persisted {
            open,
            view: ViewOptions { selected: None, ..self.view.clone() },
            camera: Some(self.viewport.camera().clone()),
            speed: self.sim.speed,
            presentation: self.presentation,
            last_scene: self.sim.path.as_ref().map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.clone())),
            kept_edits: self.kept.clone(),
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

    /// The view of world A while A and B are side by side (the app's viewport is B's).
    pub fn partner_viewport(&self) -> Option<&Viewport> {
        self.compare.a_view().filter(|_| self.side_by_side())
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

    pub fn diagnose_panel_mut(&mut self) -> &mut super::panels::DiagnosePanel {
        &mut self.diagnose
    }

    /// Sets the width of the next side dock drawn, as a drag of its edge would (clamped to the
    /// panel's range).
    pub fn set_dock_width(&mut self, width: f32) {
        self.dock_width = Some(width);
    }

    /// The value range the Inspector's history plot showed last frame.
    pub fn inspector_plot_range(&self) -> Option<(f64, f64)> {
        self.inspector.shown_range
    }

    /// Which series the Inspector's history plot shows (an index into `record::TRACE_SERIES`).
    pub fn set_trace_series(&mut self, k: usize) {
        self.inspector.set_series(k);
    }

    pub fn teach(&self) -> &super::teach::Teach {
        &self.teach
    }

    pub fn teach_mut(&mut self) -> &mut super::teach::Teach {
        &mut self.teach
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
        self.lesson_frame();
        if self.fixed_frame_steps {
            if self.sim.playing {
                self.sim.step_once();
            }
        } else {
            self.sim.advance(frame_dt);
        }
        self.watch_view();
        if let Some(done) = self.clip_export.as_mut().and_then(|job| job.poll()) {
            self.sim.record.status = Some(Status::of(done, |out| format!("Wrote the clip {}", out.display())));
            self.clip_export = None;
        } else if self.clip_export.is_some() {
            ctx.request_repaint_after(std::time::Duration::from_millis(250));
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
        if self.view.selected_joint.is_some_and(|k| k >= self.sim.world.joints().len()) {
            self.select_joint(None);
        }

        self.follow_ab_layout();
        // The tools' panels open and close with the dock's; a lesson scene opens its tool.
        (self.teach.open_ray, self.teach.open_tests) = (self.open.ray, self.open.tests);
        if self.teach.sync(&self.sim) {
            for (now, p) in [(self.teach.open_ray, PanelId::Ray), (self.teach.open_tests, PanelId::Tests)] {
                if now {
                    self.open.show(p);
                } else {
                    self.open.set_open(p, false);
                }
            }
        }
        self.viewport.set_tool(self.teach.owns_drag());
        let mut commands = Vec::new();
        egui::Panel::top("toolbar").show(ui, |ui| {
            ui.add_space(3.0);
            commands.extend(self.toolbar(ui));
            ui.add_space(3.0);
        });
        if self.presentation {
            self.fit_zoom(&ctx);
        }
        // Presentation mode with A and B side by side gives the two views the whole width: the
        // A/B strip under them has the settings and the plot.
        let presenting = self.presentation.then_some(self.open.presenting.filter(|_| !self.side_by_side()));
        // A side dock is at most a quarter of the window wide, the profiler under half its height.
        let window = ui.max_rect().size();
        let bottom_shown = |p: PanelId, open: bool| match presenting {
            Some(chosen) => chosen == Some(p),
            None => open,
        };
        self.lesson_panel(ui);
        if bottom_shown(PanelId::Profiler, self.open.profiler) {
            let range = 140.0..=(window.y * 0.45).max(160.0);
            egui::Panel::bottom("profiler").resizable(true).default_size(270.0).size_range(range).show(ui, |ui| {
                if self.veiled(PanelId::Profiler) {
                    lessons::veil(ui);
                    return;
                }
                let mut cx = PanelCx { sim: &self.sim, view: &mut self.view, camera: self.viewport.camera_mut() };
                commands.extend(self.profiler.ui(ui, &mut cx));
            });
        }
        if bottom_shown(PanelId::Timeline, self.open.timeline || self.sim.is_recording()) {
            egui::Panel::bottom("timeline").show(ui, |ui| {
                let mut cx = PanelCx { sim: &self.sim, view: &mut self.view, camera: self.viewport.camera_mut() };
                commands.extend(self.timeline.ui(ui, &mut cx))
            });
        }
        self.view.extra.clear();
        self.view.trails.clear();
        self.view.trails.extend(self.sim.trails.iter().cloned());
        if self.view.follow
            && let Some(b) = self.view.selected.and_then(|i| self.sim.world.bodies().get(i))
            && b.pose.translation.is_finite()
        {
            self.viewport.camera_mut().target = b.pose.translation;
        }
        // The Pair panel draws its trace in the view as soon as it opens.
        let pair = match presenting {
            Some(chosen) => chosen == Some(PanelId::Pair),
            None => self.open.visible(PanelId::Pair),
        };
        if pair && !self.pair_shown {
            self.view.layers.narrow_phase = true;
        }
        self.pair_shown = pair;
        for dock in [Dock::Left, Dock::Right] {
            let only = presenting.map(|chosen| chosen.filter(|p| self.open.dock_of(*p) == dock));
            self.dock(ui, dock, only, window.x, &mut commands);
        }
        let actions = egui::CentralPanel::no_frame()
            .show(ui, |ui| self.compare.ui(ui, &mut self.viewport, &self.sim, &self.view, &mut commands))
            .inner;
        let view_rect = self.viewport.rect();
        let ray_veiled = self.veiled(PanelId::Ray);
        self.teach.paint(
            &ui.painter().with_clip_rect(view_rect),
            self.viewport.camera(),
            view_rect,
            &self.sim.world,
            ray_veiled,
        );
        // After the viewport has drawn, so framing uses its real aspect ratio.
        if std::mem::take(&mut self.frame_pending) {
            match self.sim.scene.camera {
                Some(c) => *self.viewport.camera_mut() = Camera::looking(c.eye, c.target),
                None => self.viewport.frame_start(&self.sim.world),
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
        self.follow_kept_edits();
        if self.sim.playing {
            ctx.request_repaint();
        }
    }

    /// Collapses both docks and hides the profiler while A and B are side by side (each view then
    /// has half the window; the comparison strip has its own profile plot), and puts them back
    /// when the comparison ends.
    fn follow_ab_layout(&mut self) {
        let ab = self.side_by_side();
        if ab == self.ab_layout.is_some() {
            return;
        }
        if ab {
            self.ab_layout = Some((self.open.left_collapsed, self.open.right_collapsed, self.open.profiler));
            (self.open.left_collapsed, self.open.right_collapsed, self.open.profiler) = (true, true, false);
        } else if let Some((l, r, p)) = self.ab_layout.take() {
            (self.open.left_collapsed, self.open.right_collapsed, self.open.profiler) = (l, r, p);
        }
    }

    /// Whether the central area shows A and B side by side.
    pub fn side_by_side(&self) -> bool {
        self.sim.record.partner.is_some() && self.sim.record.side_by_side
    }

    /// One side dock: a tab per open panel above the active one, or (collapsed) a narrow strip
    /// of the tabs; nothing at all when collapsed during A/B. `only`: presentation mode's one
    /// panel (`Some(None)`: none in this dock).
    /// A dock is at most a quarter of the window (`window_width`) wide; content wider than that
    /// scrolls.
    fn dock(
        &mut self,
        ui: &mut Ui,
        dock: Dock,
        only: Option<Option<PanelId>>,
        window_width: f32,
        commands: &mut Vec<Command>,
    ) {
        let max_width = window_width / 4.0;
        let (tabs, active) = match only {
            Some(p) => (p.into_iter().collect(), p),
            None => (self.open.tabs(dock), self.open.active(dock)),
        };
        let Some(active) = active else { return };
        let panel = |salt: (&str, Option<PanelId>)| match dock {
            Dock::Left => egui::Panel::left(salt),
            _ => egui::Panel::right(salt),
        };
        if only.is_none() && self.open.collapsed(dock) {
            if self.ab_layout.is_some() {
                return;
            }
            panel(("strip", None)).resizable(false).exact_size(34.0).show(ui, |ui| {
                ui.vertical_centered(|ui| {
                    let expand = if dock == Dock::Left { "»" } else { "«" };
                    if ui.button(expand).on_hover_text("Expand this dock").clicked() {
                        self.open.set_collapsed(dock, false);
                    }
                    for p in tabs {
                        if ui.selectable_label(p == active, p.icon()).on_hover_text(p.label()).clicked() {
                            self.open.show(p);
                        }
                    }
                });
            });
            return;
        }
        // It opens at most `max_width` wide and can be dragged wider, to the panel's own limit;
        // its content scrolls rather than widen it.
        let (default, range) = active.width();
        let open = default.min(max_width);
        let panel = panel(("dock", Some(active))).resizable(true).size_range(range.start().min(open)..=*range.end());
        // Presenting a lesson and one panel, the dock's width is the presentation's; else a
        // script's, once.
        let presented = only.flatten().and_then(|_| self.presented_dock_width(ui, window_width));
        let panel = match presented.or(self.dock_width.take()) {
            Some(w) => panel.exact_size(w.clamp(range.start().min(open), *range.end())),
            None => panel.default_size(open),
        };
        panel.show(ui, |ui| {
            ui.add_space(4.0);
            ui.horizontal(|ui| {
                for &p in &tabs {
                    let text = RichText::new(p.label()).heading();
                    if ui.selectable_label(p == active, text).on_hover_text(p.hint()).clicked() {
                        self.open.show(p);
                    }
                }
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    if only.is_some() {
                        return;
                    }
                    if ui.small_button("✖").on_hover_text(format!("Close {}", active.label())).clicked() {
                        self.open.set_open(active, false);
                    }
                    let fold = if dock == Dock::Left { "«" } else { "»" };
                    if ui.small_button(fold).on_hover_text("Collapse this dock to a strip").clicked() {
                        self.open.set_collapsed(dock, true);
                    }
                });
            });
            ui.separator();
            // The scene list sizes itself to the dock; the other panels scroll in it, sideways
            // too, so wide content never widens the dock.
            ui.spacing_mut().slider_width = (ui.available_width() - 250.0).clamp(60.0, 170.0);
            if active == PanelId::Scenes {
                self.panel_body(ui, active, commands);
            } else {
                egui::ScrollArea::both().id_salt(("dock_scroll", active)).auto_shrink([false, true]).show(ui, |ui| {
                    self.panel_body(ui, active, commands);
                });
            }
        });
    }

    /// The content of one side panel.
    fn panel_body(&mut self, ui: &mut Ui, p: PanelId, commands: &mut Vec<Command>) {
        if self.veiled(p) {
            lessons::veil(ui);
            return;
        }
        let mut cx = PanelCx { sim: &self.sim, view: &mut self.view, camera: self.viewport.camera_mut() };
        match p {
            PanelId::Scenes => {
                commands.extend(self.scenes.ui(ui, &mut cx));
                ui.checkbox(&mut self.autoplay, "Play when a scene opens").on_hover_text(
                    "Off: a scene opens (and resets) paused on its first step, so its start can be shown",
                );
            }
            PanelId::Settings => commands.extend(self.settings_panel.ui(ui, &mut cx)),
            PanelId::Sweep => commands.extend(self.sweep.ui(ui, &mut cx)),
            PanelId::Diagnose => commands.extend(self.diagnose.ui(ui, &mut cx)),
            PanelId::Inspector => commands.extend(self.inspector.ui(ui, &mut cx)),
            PanelId::View => commands.extend(self.view_panel.ui(ui, &mut cx)),
            PanelId::Pair => commands.extend(self.pair.ui(ui, &mut cx)),
            PanelId::Ray => commands.extend(self.teach.ray.ui(ui, &mut cx)),
            PanelId::Tests => commands.extend(self.teach.tests.ui(ui, &mut cx)),
            PanelId::Profiler | PanelId::Timeline => {}
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
                self.toggle_play();
            }
            if ui.button("⏭ Step").on_hover_text("Advance exactly one fixed step, then stay paused (S or the right arrow key)").clicked() {
                self.step_once();
            }
            if ui.button("⟲ Reset").on_hover_text("Rebuild the scene from its file, keeping the current settings, and put the camera back (R). During an A/B: both worlds back to its start, still in lockstep").clicked() {
                self.reset();
            }
            // Presenting, the text is larger: when the row cannot hold it all (a small projector's
            // window), the panel choice and the way out come before the speed and the clock, so
            // that the window's edge cuts those, not these.
            let clock_last = self.presentation && ui.available_width() < presenting_row_width(ui);
            if !clock_last {
                self.speed_and_clock(ui);
            }
            ui.separator();
            if self.presentation {
                // Presentation mode: the play controls, the one panel shown, and the way out.
                let chosen = self.open.presenting;
                egui::ComboBox::from_id_salt("presenting")
                    .selected_text(chosen.map_or("no panel", PanelId::label))
                    .show_ui(ui, |ui| {
                        ui.selectable_value(&mut self.open.presenting, None, "no panel");
                        for p in PanelId::ALL {
                            ui.selectable_value(&mut self.open.presenting, Some(p), p.label());
                        }
                    })
                    .response
                    .on_hover_text("The one panel shown beside the view in presentation mode");
            } else {
                // The toggles, Frame all and Presentation must fit on the row; when they do not,
                // the toggles fold into a menu. (The real-time warning comes last, when there is
                // one.)
                let width = |t: &str, padding: f32| button_text_width(ui, t) + 2.0 * padding + ui.spacing().item_spacing.x;
                let toggles: f32 = (PanelId::ALL.iter().filter(|p| !PanelId::OFF_ROW.contains(p)))
                    .map(|p| width(p.label(), TOGGLE_PADDING) - ui.spacing().item_spacing.x + TOGGLE_SPACING)
                    .sum();
                let padding = ui.spacing().button_padding.x;
                // Frame all, Presentation, the separator before them, and the edited badge when
                // there is one: the row must hold them too.
                let mut rest: f32 = ["Frame all", "📽 Presentation"].iter().map(|t| width(t, padding)).sum();
                rest += ui.spacing().item_spacing.x + 6.0;
                if let Some(badge) = self.badge_text() {
                    rest += width(&badge, padding);
                }
                let frame_hint = "Fit the scene's bodies in the view, leaving out those that flew far away (F)";
                if ui.available_width() >= toggles + rest {
                    ui.scope(|ui| self.panel_toggles(ui, false));
                    ui.separator();
                    if ui.button("Frame all").on_hover_text(frame_hint).clicked() {
                        commands.push(Command::FrameAll);
                    }
                } else {
                    // A narrow window: Frame all goes into the menu too (F does the same).
                    ui.menu_button("Panels…", |ui| {
                        self.panel_toggles(ui, true);
                        ui.separator();
                        if ui.button("Frame all").on_hover_text(frame_hint).clicked() {
                            commands.push(Command::FrameAll);
                            ui.close();
                        }
                    });
                }
            }
            let mut p = self.presentation;
            if ui.toggle_value(&mut p, "📽 Presentation").on_hover_text("Enlarge everything for a projector and show only the view, the play controls and one chosen panel (P)").changed() {
                self.set_presentation(ui.ctx(), p);
            }
            if clock_last {
                self.speed_and_clock(ui);
            }
            // Last on the row, so that it appearing moves no other control.
            self.edits_badge(ui, &mut commands);
            // Presenting a lesson, its panel says why the run stopped.
            let lesson_says = self.presenting_lesson();
            if let Some(why) = self.sim.paused_by.as_ref().filter(|_| !self.sim.playing && !lesson_says) {
                ui.colored_label(colors::WARN, format!("⏸ {why}")).on_hover_text("Paused by itself at the event chosen in ⏸ at");
            }
            if self.sim.behind {
                ui.colored_label(colors::WARN, "⚠ slower than real time").on_hover_text(
                    "The steps real time asks for do not fit in a frame; the simulation runs slower than the speed set.",
                );
            }
        });
        commands
    }

    /// The toolbar's speed slider, pause-at menu, step count, simulated time and (not presenting)
    /// the last step's wall time ([`presenting_row_width`] estimates its width).
    fn speed_and_clock(&mut self, ui: &mut Ui) {
        ui.separator();
        ui.spacing_mut().slider_width = 70.0;
        ui.add(
            egui::Slider::new(&mut self.sim.speed, SPEED_RANGE)
                .logarithmic(true)
                .custom_formatter(|v, _| format!("{v:.2}×"))
                .custom_parser(|t| t.trim().trim_end_matches('×').trim().parse().ok()),
        )
        .on_hover_text("Speed: simulated time per real second. The step dt stays fixed; only how many steps run per frame changes.");
        ui.menu_button("⏸ at", |ui| {
            for at in PauseAt::ALL {
                ui.radio_value(&mut self.sim.pause.at, at, at.label());
            }
        })
        .response
        .on_hover_text(format!(
            "Pause at the next event: the clock stops on the step it happens (now: {})",
            self.sim.pause.at.label()
        ));
        ui.separator();
        // Counters in slots of fixed width (wide enough for 9,999,999 steps, a day of
        // simulated time and 999 ms), so nothing after them moves as they grow.
        let w = &self.sim.world;
        let slot = |ui: &mut Ui, chars: usize, text: RichText| {
            let width = ui.fonts_mut(|f| f.glyph_width(&egui::TextStyle::Monospace.resolve(ui.style()), '0'));
            let height = ui.spacing().interact_size.y;
            ui.add_sized([width * chars as f32, height], egui::Label::new(text.monospace()).truncate())
        };
        slot(ui, 12, RichText::new(format!("step {}", w.step_count())).strong());
        slot(ui, 10, RichText::new(format!("{:.2} s", w.time()))).on_hover_text("Simulated time");
        if !self.presentation {
            slot(ui, 8, RichText::new(format!("{:.2} ms", w.profile().total_ms)))
                .on_hover_text("Wall time of the last step");
        }
    }

    /// One button per panel, lit while it is on screen: a click hides a shown panel and brings
    /// a closed or hidden one forward.
    /// The panels' buttons; those of [`PanelId::OFF_ROW`] only in the folded menu (the row has no
    /// room for them: the teaching tools open from the View panel, Diagnose from the Timeline).
    fn panel_toggles(&mut self, ui: &mut Ui, tools: bool) {
        ui.spacing_mut().button_padding.x = TOGGLE_PADDING;
        if !tools {
            ui.spacing_mut().item_spacing.x = TOGGLE_SPACING;
        }
        for p in PanelId::ALL.into_iter().filter(|p| tools || !PanelId::OFF_ROW.contains(p)) {
            if ui.selectable_label(self.open.visible(p), p.label()).on_hover_text(p.hint()).clicked() {
                self.open.toggle(p);
            }
        }
    }

    fn handle_keys(&mut self, ctx: &egui::Context) {
        if ctx.text_edit_focused() {
            return;
        }
        use crate::session::timeline::RecordCommand;
        if ctx.input_mut(|i| i.consume_key(Modifiers::COMMAND, Key::R)) {
            self.apply(Command::Record(RecordCommand::ToggleRecording));
        }
        if ctx.input_mut(|i| i.consume_key(Modifiers::NONE, Key::ArrowLeft)) {
            self.apply(Command::Record(RecordCommand::StepBack));
        }
        let pressed = |key| ctx.input_mut(|i| i.consume_key(Modifiers::NONE, key));
        if pressed(Key::Space) {
            self.toggle_play();
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
        if pressed(Key::C) {
            self.view.follow = !self.view.follow;
        }
        if pressed(Key::X) {
            self.view.see_through_statics = !self.view.see_through_statics;
        }
    }

    /// "Pause at a body leaving the view": stops the clock when a moving body that was in the
    /// view last frame is out of it now.
    fn watch_view(&mut self) {
        if self.sim.pause.at != PauseAt::LeavingView || !self.sim.playing {
            self.in_view.clear();
            return;
        }
        let (camera, rect) = (self.viewport.camera(), self.viewport.rect());
        let now: Vec<bool> = (self.sim.world.bodies().iter())
            .map(|b| b.is_dynamic() && camera.project(b.pose.translation, rect).is_some_and(|p| rect.contains(p)))
            .collect();
        if let Some(i) = (0..now.len()).find(|&i| self.in_view.get(i) == Some(&true) && !now[i]) {
            let b = &self.sim.world.bodies()[i];
            let name = b.name.clone().unwrap_or_else(|| format!("body {i}"));
            self.sim.playing = false;
            self.sim.paused_by = Some(format!("step {}: {name} left the view", self.sim.world.step_count()));
            self.in_view.clear();
            return;
        }
        self.in_view = now;
    }

    /// Starts or stops the clock; starting clears the last automatic pause's note.
    fn toggle_play(&mut self) {
        self.sim.playing = !self.sim.playing;
        if self.sim.playing {
            self.sim.paused_by = None;
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
            self.scenes.error = Some(e.to_string());
        }
        if let Some(c) = &self.home_camera {
            *self.viewport.camera_mut() = c.clone();
        }
        self.sim.playing = self.autoplay;
    }

    /// Shows a message in the scene browser (opened).
    pub fn announce(&mut self, message: String) {
        self.scenes.notice = Some(message);
        self.open.show(PanelId::Scenes);
    }

    /// Shows an error in the scene browser (opened), e.g. a scene given on the command line that
    /// could not be loaded.
    pub fn show_error(&mut self, message: String) {
        self.scenes.error = Some(message);
        self.open.show(PanelId::Scenes);
    }

    pub fn set_presentation(&mut self, ctx: &egui::Context, on: bool) {
        self.set_presentation_flag(on);
        self.apply_zoom(ctx);
    }

    /// Turns presentation mode on or off without a context: [`App::apply_zoom`] then sets the zoom.
    pub fn set_presentation_flag(&mut self, on: bool) {
        self.presentation = on;
    }

    /// Applies the presentation zoom remembered from the last run.
    pub fn apply_zoom(&mut self, ctx: &egui::Context) {
        if self.presentation {
            self.window_size = None;
            let size = ctx.content_rect().size() * ctx.zoom_factor();
            ctx.set_zoom_factor(presentation_zoom(size));
        } else {
            ctx.set_zoom_factor(1.0);
        }
    }

    /// Sets presentation mode's zoom for the window's size, once that size has held for two
    /// frames (the pass after a zoom change can see the old size at the new scale).
    fn fit_zoom(&mut self, ctx: &egui::Context) {
        let native = ctx.native_pixels_per_point().unwrap_or(1.0);
        let size = ctx.content_rect().size() * ctx.pixels_per_point() / native;
        let settled = self.window_size.replace(size).is_some_and(|last| (last - size).length() < 1.0);
        let zoom = presentation_zoom(size);
        if settled && (zoom - ctx.zoom_factor()).abs() > 1e-3 {
            ctx.set_zoom_factor(zoom);
        }
    }

    /// Opens a scene file. On failure the error is shown and the current scene stays.
    pub fn open_scene(&mut self, path: &Path) {
        match self.sim.open(path) {
            Ok(()) => {
                self.scenes.error = None;
                // The lesson's steps belong to its scene.
                self.close_lesson();
                // A recording survives the open; say where it went.
                self.scenes.notice = self
                    .sim
                    .record
                    .status
                    .clone()
                    .filter(|s| s.is_done() && self.sim.record.review.is_some())
                    .map(|s| s.message().to_string());
                self.scenes.remember(path);
                self.apply_kept_edits();
                self.view.selected = None;
                self.select_joint(None);
                self.frame_pending = true;
                self.sim.playing = self.autoplay;
                self.sweep.stop();
                self.diagnose.stop();
            }
            Err(e) => {
                self.scenes.error = Some(e.to_string());
                self.open.show(PanelId::Scenes);
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
            // A lesson chosen as a file (the dialog, the path field, a recent file) opens as one.
            Command::OpenScene(p) if crate::lesson::Lesson::is_lesson_file(&p) => self.open_lesson_file(&p),
            Command::Reduce { symptom, body, step } => {
                // The case the event came from: the run on the timeline, else the open scene
                // as it is set now.
                let scene = match &self.sim.record.review {
                    Some(r) => r.recording.scene.clone(),
                    None => {
                        let mut s = self.sim.scene.clone();
                        s.settings = self.sim.world.settings.clone();
                        s
                    }
                };
                self.diagnose.start_shrink(&scene, symptom, body, step + crate::diagnose::HORIZON);
                self.open.show(PanelId::Diagnose);
            }
            Command::OpenScene(p) => self.open_scene(&p),
            Command::OpenLesson(p) => self.open_lesson_file(&p),
            Command::SaveScene(p) => self.save_scene(&p),
            Command::ExportCsv(p) => {
                let csv = self.profiler.export_source(&self.sim.history).to_csv();
                self.profiler.status =
                    Some(Status::of(write_atomic(&p, csv.as_bytes()), |()| format!("Wrote {}", p.display())));
            }
            Command::ExportClip(p) => {
                let Some(review) = &self.sim.record.review else { return };
                let layers = self.view.layers.names_on();
                let (camera, see_through) = (self.viewport.camera(), self.view.see_through_statics);
                let started = super::clip::ClipExport::start(&review.recording, p, camera, &layers, see_through);
                self.sim.record.status = Some(Status::of(started, |job| {
                    let line = format!("Exporting the clip to {}…", job.out().display());
                    self.clip_export = Some(job);
                    line
                }));
            }
            Command::Select(i) => self.select(i),
            Command::SelectJoint(k) => self.select_joint(k),
            Command::FrameAll => match self.sim.record.partner.as_ref().filter(|_| self.sim.record.side_by_side) {
                // Both views share the camera: frame A's bodies and B's together.
                Some(p) => self.viewport.frame_worlds(&[p.other(), &self.sim.world]),
                None => self.viewport.frame_all(&self.sim.world),
            },
            Command::Reset => self.reset(),
            Command::ShowPanel(p) => self.open.show(p),
            Command::TakeDrag(p) => self.teach.take_drag(p),
            Command::Pin(i, on) => self.sim.pin(i, on),
            Command::SetMaterial(i, material) => {
                let action = crate::record::Action::Material { body: i as u32, material };
                if let Err(e) = self.sim.user_action(action) {
                    self.sim.record.status = Some(Status::failed(e));
                }
            }
        }
    }

    fn select(&mut self, i: Option<usize>) {
        self.view.selected = i.filter(|&i| i < self.sim.world.bodies().len());
        self.sim.trace.follow(self.view.selected);
        // A selected joint stays selected while one of its bodies is.
        let joined = |k: usize| {
            let j = &self.sim.world.joints()[k];
            self.view.selected.is_some_and(|i| [j.a, j.b].contains(&Some(i as u32)))
        };
        if self.view.selected_joint.is_some_and(|k| k >= self.sim.world.joints().len() || !joined(k)) {
            self.view.selected_joint = None;
            self.sim.joint_trace.follow(None);
        }
        // The inspector comes forward unless a panel that follows the selection too (Pair, Ray,
        // Tests) is on screen, or A and B keep the window to themselves.
        let follows = [PanelId::Pair, PanelId::Ray, PanelId::Tests].iter().any(|p| self.open.visible(*p));
        if self.view.selected.is_some() && !follows {
            if self.ab_layout.is_some() {
                self.open.inspector = true;
            } else {
                self.open.show_as_tab(PanelId::Inspector);
            }
        }
    }

    /// Selects joint `k` for the Inspector (and its plot); its body B (else A) becomes the
    /// selected body unless one of its bodies already is.
    fn select_joint(&mut self, k: Option<usize>) {
        let k = k.filter(|&k| k < self.sim.world.joints().len());
        if let Some(j) = k.map(|k| &self.sim.world.joints()[k]) {
            let (a, b) = (j.a.map(|i| i as usize), j.b.map(|i| i as usize));
            if self.view.selected.is_none() || (self.view.selected != a && self.view.selected != b) {
                self.view.selected_joint = None;
                self.select(b.or(a));
            }
        }
        self.view.selected_joint = k;
        self.sim.joint_trace.follow(k);
        if k.is_some() && self.ab_layout.is_none() {
            self.open.show_as_tab(PanelId::Inspector);
        }
    }

    /// Applies what the viewport asked for: selection, the mouse spring, shots.
    pub fn apply_view_action(&mut self, a: ViewAction) {
        match a {
            ViewAction::Select(i) => self.select(i),
            ViewAction::SelectJoint(k) => self.select_joint(k),
            ViewAction::DragStart { body, local_anchor } => self.sim.start_drag(body, local_anchor),
            ViewAction::DragTo { target } => self.sim.drag_to(target),
            ViewAction::DragEnd => self.sim.drag = None,
            ViewAction::Tool { press, now, done } => self.teach.tool_drag(&press, &now, done),
            ViewAction::Shoot { origin, velocity } => {
                if origin.is_finite() && velocity.is_finite() {
                    self.sim.shoot(origin, velocity);
                }
            }
        }
    }
}

/// How wide `text` is in the style's button font, without the button's padding.
fn button_text_width(ui: &Ui, text: &str) -> f32 {
    let font = egui::TextStyle::Button.resolve(ui.style());
    ui.fonts_mut(|f| f.layout_no_wrap(text.to_string(), font, egui::Color32::WHITE).size().x)
}

/// About how wide the presentation toolbar's row is after Reset: the speed slider and its value,
/// the pause-at menu, the step and time slots, the panel choice and the Presentation toggle,
/// with their spacing (an estimate in the style's fonts, a little generous).
fn presenting_row_width(ui: &Ui) -> f32 {
    let style = ui.style();
    let padding = style.spacing.button_padding.x * 2.0;
    let text = |t: &str| button_text_width(ui, t);
    let digit = ui.fonts_mut(|f| f.glyph_width(&egui::TextStyle::Monospace.resolve(style), '0'));
    let longest_panel = PanelId::ALL.iter().map(|p| text(p.label())).fold(text("no panel"), f32::max);
    70.0 + text("1.00×")
        + text("⏸ at")
        + 22.0 * digit
        + longest_panel
        + style.spacing.icon_width
        + text("📽 Presentation")
        + 4.0 * padding
        + 9.0 * style.spacing.item_spacing.x
        + 3.0 * 6.0
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

/// The zoom of presentation mode in a window of `size` (points at zoom 1): up to
/// [`PRESENTATION_ZOOM`], less in a window too small to hold the enlarged controls (a 1280×720
/// projector gets about 1.15), never below 1.
pub fn presentation_zoom(size: egui::Vec2) -> f32 {
    (size.x / 1000.0).min(size.y / 625.0).clamp(1.0, PRESENTATION_ZOOM)
}

/// The key a scene file's kept edits are stored under: its canonical path where it has one.
fn scene_key(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}
