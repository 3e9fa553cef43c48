//! Opening the window: eframe set-up, persistence, the style, and the screenshot mode.

use super::AppError;
use super::layout::PanelId;
use super::shell::{App, Persisted};
use super::viewport::Viewport;
use crate::scene::Scene;
use crate::session::sim::Simulation;
use eframe::egui;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// What the command line asks of the app (`Default`: nothing but the scene, which is empty).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AppOptions {
    /// The scene to open.
    pub scene: PathBuf,
    /// Save a PNG of the window here after `frames` frames, then exit.
    pub screenshot: Option<PathBuf>,
    /// Frames (one simulation step each) before the screenshot.
    pub frames: u32,
    /// No scene was named: reopen the last scene of the previous run if it still loads, and
    /// fall back to `scene` otherwise.
    pub reopen_last: bool,
    /// Open as an A/B comparison from the scene's start: B with these settings (name, RON
    /// value) changed, A as the scene has them. Empty: no comparison.
    pub compare: Vec<(String, String)>,
    /// Panels to bring forward over the remembered layout (the first-run layout in screenshot
    /// mode).
    pub show: Vec<PanelId>,
    /// Open in presentation mode, showing the first of `show` (if any) beside the view.
    pub presentation: bool,
    /// Select this body (by index) once the app opens.
    pub select: Option<usize>,
    /// Debug layers to turn on (names as [`super::viewport::Layers::NAMES`]).
    pub layers: Vec<String>,
    /// Draw static bodies see-through (over what the last run remembered).
    pub see_through_statics: bool,
    /// Settings to change (name, RON value) on the opened scene's world.
    pub sets: Vec<(String, String)>,
    /// Where the camera starts, over the scene's own.
    pub camera: Option<crate::scene::CameraDesc>,
    /// The window's inner size in points (`None`: 1600×1000).
    pub size: Option<[f32; 2]>,
    /// A lesson to open, and its step to start at (from 0); its scene replaces `scene`.
    pub lesson: Option<(PathBuf, usize)>,
    /// A recording to open onto the timeline (a case bundle's).
    pub recording: Option<PathBuf>,
}

const STORAGE_KEY: &str = "collidoscope";

/// A `--set` the settings refuse, with the field and value given.
fn set_error(field: &str, value: &str, source: crate::settings::SettingsError) -> AppError {
    AppError::Set { field: field.to_string(), value: value.to_string(), source: Box::new(source) }
}

/// Opens the app window and returns when it closes. A scene that cannot be loaded opens the
/// window on the default scene with the error shown; in screenshot mode, or with `--compare`,
/// it is an error before any window opens, as is a PNG that could not be written. An unknown
/// layer or a bad `--set` is an error before any window opens.
pub fn run(opts: AppOptions) -> Result<(), AppError> {
    for name in &opts.layers {
        super::viewport::Layers::default().set(name, true)?;
    }
    let mut settings = crate::world::Settings::default();
    for (field, value) in &opts.sets {
        settings.set_field(field, value).map_err(|source| set_error(field, value, source))?;
    }
    // A lesson that does not load, or a step it does not have, fails before a window opens; the
    // lesson read here is the one the app opens.
    let mut lesson = match &opts.lesson {
        Some((path, step)) => {
            let (lesson, scene) = super::load_lesson(path)?;
            lesson.check_step(*step).map_err(|_| {
                let (n, file) = (lesson.steps.len(), path.display());
                AppError::Script(format!("--step {}: {file} has {n} steps (from 1)", step + 1))
            })?;
            Some((lesson, scene))
        }
        None => None,
    };
    // The scene file, read once before a window opens. A screenshot or an A/B fails on it now,
    // with the file and line. `--select` is checked against it (or the lesson's scene); a scene
    // that does not load only skips that check, as the app then opens the default scene with
    // the error shown, and neither is read when the app reopens the last scene.
    let strict = opts.screenshot.is_some() || !opts.compare.is_empty();
    let scene_file = if strict {
        Some(crate::scene::Scene::load(&opts.scene)?)
    } else if opts.select.is_some() && lesson.is_none() && !opts.reopen_last {
        crate::scene::Scene::load(&opts.scene).ok()
    } else {
        None
    };
    if let Some(index) = opts.select {
        let scene = lesson.as_ref().map(|(_, scene)| scene).or(scene_file.as_ref());
        if let Some(bodies) = scene.map(|s| s.expanded_bodies().len())
            && index >= bodies
        {
            return Err(AppError::Select { index, bodies });
        }
    }
    if let Some(scene_file) = scene_file.filter(|_| strict) {
        let (_, changes) = crate::session::timeline::split_engine(&opts.compare)?;
        crate::session::timeline::changed_settings(&scene_file.settings, &changes)?;
    }
    let shot = opts.screenshot.clone().map(|path| Screenshot::new(path, opts.frames));
    let outcome = shot.as_ref().map(|s| s.outcome.clone());
    let persist = shot.is_none();

    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Collidoscope")
            .with_app_id("collidoscope")
            .with_inner_size(opts.size.unwrap_or([1600.0, 1000.0]))
            .with_min_inner_size([800.0, 500.0]),
        renderer: eframe::Renderer::Wgpu,
        persist_window: persist,
        ..Default::default()
    };
    let opts_for_app = opts.clone();
    eframe::run_native(
        "Collidoscope",
        native,
        Box::new(move |cc| {
            let stored = if persist { cc.storage.and_then(|s| s.get_string(STORAGE_KEY)) } else { None };
            let (saved, unreadable) = Persisted::parse(stored.as_deref());
            let viewport = || Viewport::new(cc.wgpu_render_state.as_ref());
            let mut app = build_app_with(&opts_for_app, lesson.take(), saved, unreadable, &viewport)?;
            // The app opens on the scene's first step, paused, unless autoplay is on.
            app.simulation_mut().playing = app.autoplay;
            setup_style(&cc.egui_ctx);
            app.apply_zoom(&cc.egui_ctx);
            if shot.is_some() {
                // Deterministic pictures: one step per frame; the layout and layers a first run has,
                // plus what the command line asked for. A lesson's step is shown as the class first
                // sees it, before its run.
                app.fixed_frame_steps = true;
                app.simulation_mut().playing = app.lesson_player().is_none();
            }
            Ok(Box::new(Window { app, shot, persist }))
        }),
    )
    .map_err(|e| AppError::Window(e.to_string()))?;

    match outcome {
        None => Ok(()),
        Some(o) => {
            o.lock().map_or(Err(AppError::NoScreenshot), |mut o| o.take().unwrap_or(Err(AppError::NoScreenshot)))
        }
    }
}

/// The app as the command line opens it, before its window: the scene (the last one when asked
/// and it still loads), what the last run remembered, the panels, selection, camera, layers,
/// `--set` edits and the `--compare` A/B. A scene that cannot be loaded opens the default scene
/// (or an empty one) with the error shown.
pub fn build_app(
    opts: &AppOptions,
    saved: Option<Persisted>,
    unreadable: Option<String>,
    viewport: &dyn Fn() -> Viewport,
) -> Result<App, AppError> {
    build_app_with(opts, None, saved, unreadable, viewport)
}

/// [`build_app`] with `opts.lesson` already read and checked (`None`: read it here).
fn build_app_with(
    opts: &AppOptions,
    lesson: Option<(crate::lesson::Lesson, Scene)>,
    saved: Option<Persisted>,
    unreadable: Option<String>,
    viewport: &dyn Fn() -> Viewport,
) -> Result<App, AppError> {
    let scene = &opts.scene;
    let reopen_last = opts.reopen_last && opts.compare.is_empty();
    let last = saved.as_ref().and_then(|p| p.last_scene.clone()).filter(|_| reopen_last);
    let mut failed = None;
    let mut app = match last.and_then(|path| App::open(&path, viewport()).ok()) {
        Some(app) => app,
        None => App::open(scene, viewport()).unwrap_or_else(|e| {
            failed = Some(e);
            let fallback = super::shell::default_scene_dir(scene).join("default.ron");
            App::open(&fallback, viewport()).unwrap_or_else(|_| {
                let sim = Simulation::new(Scene::default(), None).expect("an empty scene builds");
                App::new(sim, viewport(), super::shell::default_scene_dir(scene))
            })
        }),
    };
    if let Some(p) = saved {
        app.restore(p);
    }
    for &p in &opts.show {
        app.open_panels_mut().show(p);
    }
    if opts.presentation {
        app.open_panels_mut().presenting = opts.show.first().copied();
        app.set_presentation_flag(true);
    }
    if let Some(c) = opts.camera {
        app.set_start_camera(c);
    }
    for name in &opts.layers {
        app.view_mut().layers.set(name, true)?;
    }
    if opts.see_through_statics {
        app.view_mut().see_through_statics = true;
    }
    if !opts.sets.is_empty() {
        let mut settings = app.world().settings.clone();
        for (field, value) in &opts.sets {
            settings.set_field(field, value).map_err(|source| set_error(field, value, source))?;
        }
        app.apply(super::panels::Command::SetSettings(Box::new(settings)));
    }
    match (&opts.lesson, lesson) {
        (Some((_, step)), Some((lesson, scene))) => app.open_loaded_lesson(lesson, scene, *step)?,
        (Some((path, step)), None) => app.open_lesson(path, *step)?,
        (None, _) => {}
    }
    if let Some(r) = &opts.recording {
        app.apply(super::panels::Command::Record(crate::session::timeline::RecordCommand::Open(r.clone())));
        app.open_panels_mut().show(PanelId::Timeline);
    }
    // After the lesson or recording opens, which clears the selection.
    if let Some(i) = opts.select {
        app.apply(super::panels::Command::Select(Some(i)));
        // Selecting brings the Inspector forward; the panels asked for stay in front.
        for &p in &opts.show {
            app.open_panels_mut().show(p);
        }
    }
    if let Some(e) = unreadable {
        app.announce(e);
    }
    if let Some(e) = failed {
        app.show_error(e.to_string());
    }
    if !opts.compare.is_empty() {
        app.simulation_mut().start_compare(&opts.compare)?;
    }
    Ok(app)
}

/// The eframe side of the app.
struct Window {
    app: App,
    shot: Option<Screenshot>,
    persist: bool,
}

impl eframe::App for Window {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.show(ui);
        if let Some(shot) = &mut self.shot {
            shot.frame(ui.ctx(), &mut self.app);
        }
    }

    fn save(&mut self, storage: &mut dyn eframe::Storage) {
        if self.persist {
            eframe::set_value(storage, STORAGE_KEY, &self.app.persisted());
        }
    }

    fn persist_egui_memory(&self) -> bool {
        self.persist
    }
}

/// Larger text and controls than egui's defaults, readable from the back of a classroom.
pub fn setup_style(ctx: &egui::Context) {
    use egui::{FontFamily, FontId, TextStyle};
    // Hack after the proportional fonts: the arrows and superscripts lessons write in formulas
    // (→, ⁻) that Ubuntu-Light lacks.
    let mut fonts = egui::FontDefinitions::default();
    if let Some(p) = fonts.families.get_mut(&FontFamily::Proportional) {
        p.push("Hack".to_owned());
    }
    ctx.set_fonts(fonts);
    ctx.all_styles_mut(|style| {
        style.text_styles = [
            (TextStyle::Heading, FontId::new(22.0, FontFamily::Proportional)),
            (TextStyle::Body, FontId::new(16.0, FontFamily::Proportional)),
            (TextStyle::Button, FontId::new(16.0, FontFamily::Proportional)),
            (TextStyle::Monospace, FontId::new(15.0, FontFamily::Monospace)),
            (TextStyle::Small, FontId::new(13.0, FontFamily::Proportional)),
        ]
        .into();
        style.spacing.item_spacing = egui::vec2(8.0, 6.0);
        style.spacing.button_padding = egui::vec2(8.0, 4.0);
        style.spacing.interact_size.y = 24.0;
        style.spacing.slider_width = 170.0;
    });
}

/// Renders `frames` frames, asks for a screenshot, writes it as PNG and closes the window.
struct Screenshot {
    path: PathBuf,
    frames: u32,
    seen: u32,
    requested: bool,
    image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    outcome: Arc<Mutex<Option<Result<(), AppError>>>>,
}

impl Screenshot {
    fn new(path: PathBuf, frames: u32) -> Self {
        Screenshot { path, frames, seen: 0, requested: false, image: Arc::default(), outcome: Arc::default() }
    }

    fn frame(&mut self, ctx: &egui::Context, app: &mut App) {
        self.seen += 1;
        // Keep painting even if the window manager reports the window hidden.
        ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaintWhileHidden);
        ctx.request_repaint();
        if self.seen >= self.frames && app.simulation().playing {
            app.simulation_mut().playing = false;
            // Frame what the run left behind (the start framed where bodies spawned), unless the
            // scene chose its own view.
            if app.simulation().scene.camera.is_none() {
                app.apply(super::panels::Command::FrameAll);
            }
        }
        // One more frame after the last step so the panels show the final state.
        if self.seen > self.frames && !self.requested {
            self.requested = true;
            let slot = self.image.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
            });
        }
        let image = self.image.lock().ok().and_then(|mut s| s.take());
        if let Some(image) = image {
            let result = write_png(&self.path, &image);
            if let Ok(mut o) = self.outcome.lock() {
                *o = Some(result);
            }
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

/// A screenshot of the window to be written as a PNG: asked for once with
/// [`PngShot::request`], written by [`PngShot::write_when_ready`] on the frame egui hands it back.
pub struct PngShot {
    out: PathBuf,
    image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    requested: bool,
}

impl PngShot {
    pub fn new(out: PathBuf) -> Self {
        PngShot { out, image: Arc::default(), requested: false }
    }

    /// Asks egui for the next rendered frame (once; later calls do nothing).
    pub fn request(&mut self, ctx: &egui::Context) {
        if std::mem::replace(&mut self.requested, true) {
            return;
        }
        let slot = self.image.clone();
        ctx.request_screenshot(move |image| {
            if let Ok(mut s) = slot.lock() {
                *s = Some(image);
            }
        });
    }

    /// Writes the image once it has arrived, saying where or why not; whether it arrived.
    pub fn write_when_ready(&self) -> bool {
        let Some(image) = self.image.lock().ok().and_then(|mut s| s.take()) else { return false };
        match write_png(&self.out, &image) {
            Ok(()) => println!("wrote {}", self.out.display()),
            Err(e) => eprintln!("{e}"),
        }
        true
    }
}

/// Writes an image as an opaque RGBA PNG, atomically.
pub fn write_png(path: &Path, image: &egui::ColorImage) -> Result<(), AppError> {
    let [w, h] = image.size;
    let mut rgba = Vec::with_capacity(w * h * 4);
    for c in &image.pixels {
        let [r, g, b, _] = c.to_srgba_unmultiplied();
        rgba.extend_from_slice(&[r, g, b, 255]);
    }
    write_png_rgba(path, w as u32, h as u32, &rgba)
}

/// Writes `w × h` RGBA pixels as a PNG, atomically.
pub fn write_png_rgba(path: &Path, w: u32, h: u32, rgba: &[u8]) -> Result<(), AppError> {
    let mut bytes = Vec::new();
    {
        let mut enc = png::Encoder::new(&mut bytes, w, h);
        enc.set_color(png::ColorType::Rgba);
        enc.set_depth(png::BitDepth::Eight);
        let png = |e: png::EncodingError| AppError::Png { path: path.to_path_buf(), message: e.to_string() };
        let mut writer = enc.write_header().map_err(png)?;
        writer.write_image_data(rgba).map_err(png)?;
    }
    Ok(crate::scene::write_atomic(path, &bytes)?)
}
