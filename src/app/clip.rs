//! `collidoscope clip`: a window that shows only the 3D view, steps a scene or recording through
//! a range, takes one screenshot per frame through eframe's screenshot command (as
//! `--screenshot` does), and writes the frames as a GIF or PNG sequence once the window closes.

use super::AppError;
use super::viewport::{Camera, ViewOptions, Viewport};
use crate::clip::{ClipOutput, ClipRange, Image, frame_delay, frame_path, write_gif};
use crate::record::{Case, CaseRun};
use crate::scene::CameraDesc;
use eframe::egui;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// What `collidoscope clip` asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipOptions {
    /// A scene file or a recording (binary or RON).
    pub case: PathBuf,
    /// Where the frames go.
    pub output: ClipOutput,
    /// The first step shown.
    pub from: u64,
    /// The last step shown (`None`: a recording's end, else [`DEFAULT_SCENE_STEPS`] after `from`).
    pub to: Option<u64>,
    /// Steps between frames.
    pub every: u64,
    /// The camera, over the scene's own (which is used over framing the moving bodies).
    pub camera: Option<CameraDesc>,
    /// The frames' size in pixels.
    pub size: [u32; 2],
    /// Frames per second of the GIF (`None`: real time, up to 50).
    pub fps: Option<u32>,
    /// Debug layers to turn on (names as [`super::viewport::Layers::NAMES`]).
    pub layers: Vec<String>,
    /// Draw static bodies see-through ([`ViewOptions::see_through_statics`]).
    pub see_through_statics: bool,
    /// Settings changed on a scene (name, RON value); a recording replays its own.
    pub sets: Vec<(String, String)>,
}

/// Steps a clip of a scene shows when `--to` is not given: two seconds at 60 Hz.
pub const DEFAULT_SCENE_STEPS: u64 = 120;

/// The frame size when none is given.
pub const DEFAULT_SIZE: [u32; 2] = [640, 360];

/// What a clip wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipSummary {
    /// Frames written.
    pub frames: usize,
    /// The steps shown.
    pub range: ClipRange,
    /// The GIF's delay between frames, hundredths of a second.
    pub delay_cs: u16,
}

/// Whether a window can open here: an X11 or Wayland display is named.
pub fn display_available() -> bool {
    ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()))
}

/// Renders the clip and writes it. Every check that can fail (the layers, the case, the
/// settings, the range, the output, a display) fails before a window opens, in that order.
pub fn record_clip(opts: &ClipOptions) -> Result<ClipSummary, AppError> {
    let view = clip_view(&opts.layers, opts.see_through_statics)?;
    let mut case = Case::load(&opts.case)?;
    if !opts.sets.is_empty() {
        let Case::Scene(scene) = &mut case else {
            return Err(AppError::Script(format!(
                "{}: --set changes a scene; a recording replays the settings it was recorded with",
                opts.case.display()
            )));
        };
        for (field, value) in &opts.sets {
            scene.settings.set_field(field, value).map_err(|source| AppError::Set {
                field: field.clone(),
                value: value.clone(),
                source: Box::new(source),
            })?;
        }
    }
    let end = case.steps();
    let to = opts.to.unwrap_or(match end {
        Some(end) => end,
        None => opts.from.saturating_add(DEFAULT_SCENE_STEPS),
    });
    let range = ClipRange::new(opts.from, to, opts.every, end)?;
    let [w, h] = opts.size;
    let frames = range.frames() as usize;
    // Every frame is held until the palette is made: refuse what would not fit in 2 GiB.
    if (w as u64) * (h as u64) * 4 * frames as u64 > 2 << 30 {
        return Err(AppError::Script(format!(
            "{frames} frames of {w}x{h} would need more than 2 GiB: raise --every, narrow --from/--to or lower --size"
        )));
    }
    let delay_cs = frame_delay(opts.fps, case.scene().settings.dt as f64, opts.every)?;
    opts.output.check()?;
    if !display_available() {
        return Err(AppError::NoDisplay);
    }
    let frames = render_frames(&case, range, opts.camera, opts.size, &view, None)?;
    match &opts.output {
        ClipOutput::Gif(path) => write_gif(path, &frames, delay_cs)?,
        ClipOutput::Pngs(dir) => {
            for (i, f) in frames.iter().enumerate() {
                super::run::write_png_rgba(&frame_path(dir, i), f.width, f.height, &f.rgba)?;
            }
        }
    }
    Ok(ClipSummary { frames: frames.len(), range, delay_cs })
}

/// A clip's view: only the 3D view (no help line), the default layers and those named in
/// `layers`, static bodies see-through if asked. An unknown layer name is an error.
pub fn clip_view(layers: &[String], see_through_statics: bool) -> Result<ViewOptions, AppError> {
    let mut view = ViewOptions { bare: true, see_through_statics, ..Default::default() };
    for name in layers {
        view.layers.set(name, true)?;
    }
    Ok(view)
}

/// Opens a window of `size` pixels showing only the 3D view as `view` draws it ([`clip_view`]),
/// steps `case` through `range` and returns one frame per step of it. The camera is `camera`,
/// else the scene's, else the moving bodies framed as they are at the first frame and at
/// `framed_at` (default: the last frame).
pub fn render_frames(
    case: &Case,
    range: ClipRange,
    camera: Option<CameraDesc>,
    size: [u32; 2],
    view: &ViewOptions,
    framed_at: Option<u64>,
) -> Result<Vec<Image>, AppError> {
    if !display_available() {
        return Err(AppError::NoDisplay);
    }
    let view = view.clone();
    // The world at the first frame and at `framed_at`, to frame what moves over the clip.
    let run = CaseRun::new(case, range.from)?;
    let mut last = CaseRun::new(case, range.from)?;
    last.advance_to(framed_at.unwrap_or(range.last()).clamp(range.from, range.last()))?;
    let camera = camera.or(case.scene().camera);
    let frames: Arc<Mutex<Vec<Image>>> = Arc::default();
    let failure: Arc<Mutex<Option<AppError>>> = Arc::default();
    let [w, h] = size;
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Collidoscope clip")
            .with_app_id("collidoscope")
            .with_inner_size([w as f32, h as f32])
            .with_min_inner_size([16.0, 16.0])
            .with_resizable(false),
        renderer: eframe::Renderer::Wgpu,
        persist_window: false,
        ..Default::default()
    };
    let (frames_out, failure_out) = (frames.clone(), failure.clone());
    eframe::run_native(
        "Collidoscope clip",
        native,
        Box::new(move |cc| {
            super::setup_style(&cc.egui_ctx);
            let viewport = Viewport::new(cc.wgpu_render_state.as_ref());
            Ok(Box::new(ClipWindow {
                viewport,
                view,
                run: Box::new(run),
                trails: Default::default(),
                last: Some(last),
                camera,
                range,
                size,
                seen: 0,
                next: 0,
                requested: false,
                image: Arc::default(),
                frames: frames_out,
                failure: failure_out,
            }))
        }),
    )
    .map_err(|e| AppError::Window(e.to_string()))?;
    if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
        return Err(e);
    }
    let frames = std::mem::take(&mut *frames.lock().map_err(|_| AppError::NoScreenshot)?);
    if frames.len() != range.frames() as usize {
        return Err(AppError::Script(format!("the window closed after {} of {} frames", frames.len(), range.frames())));
    }
    Ok(frames)
}

/// Frames the window draws before the first capture: the view's size and texture settle.
const WARM_UP: u32 = 3;

/// The clip's window: the 3D view alone, the step in a corner.
struct ClipWindow {
    viewport: Viewport,
    view: ViewOptions,
    run: Box<CaseRun>,
    /// The fast bodies' trails, as the app keeps them.
    trails: crate::session::trails::Trails,
    /// The world the camera frames with the first frame's, until it is framed.
    last: Option<CaseRun>,
    camera: Option<CameraDesc>,
    range: ClipRange,
    size: [u32; 2],
    seen: u32,
    /// The frame being captured.
    next: u64,
    requested: bool,
    image: Arc<Mutex<Option<Arc<egui::ColorImage>>>>,
    frames: Arc<Mutex<Vec<Image>>>,
    failure: Arc<Mutex<Option<AppError>>>,
}

impl ClipWindow {
    fn fail(&self, ctx: &egui::Context, e: AppError) {
        if let Ok(mut f) = self.failure.lock() {
            *f = Some(e);
        }
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }

    /// The arrived screenshot's view area as a frame of the clip's size.
    fn keep(&self, shot: &egui::ColorImage, ppp: f32) -> Image {
        let part = shot.region(&self.viewport.rect(), Some(ppp));
        let mut rgba = Vec::with_capacity(part.pixels.len() * 4);
        for c in &part.pixels {
            let [r, g, b, _] = c.to_srgba_unmultiplied();
            rgba.extend_from_slice(&[r, g, b, 255]);
        }
        let image = Image { width: part.size[0] as u32, height: part.size[1] as u32, rgba };
        image.resized(self.size[0], self.size[1])
    }
}

impl eframe::App for ClipWindow {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        let ctx = ui.ctx().clone();
        ctx.send_viewport_cmd(egui::ViewportCommand::RequestPaintWhileHidden);
        ctx.request_repaint();
        self.seen += 1;
        // The last capture arrived: keep it and move the world on to the next frame's step.
        if let Some(shot) = self.image.lock().ok().and_then(|mut s| s.take()) {
            let frame = self.keep(&shot, ctx.pixels_per_point());
            if let Ok(mut frames) = self.frames.lock() {
                frames.push(frame);
            }
            self.requested = false;
            self.next += 1;
            match self.range.step(self.next) {
                None => {
                    ctx.send_viewport_cmd(egui::ViewportCommand::Close);
                    return;
                }
                Some(step) => {
                    // Step by step, so the trails see every step.
                    while self.run.world().step_count() < step {
                        let next = self.run.world().step_count() + 1;
                        if let Err(e) = self.run.advance_to(next) {
                            return self.fail(&ctx, e.into());
                        }
                        self.trails.observe(self.run.world(), None);
                    }
                    self.view.trails.clear();
                    self.view.trails.extend(self.trails.iter().cloned());
                }
            }
        }
        let world = self.run.world();
        egui::CentralPanel::no_frame().show(ui, |ui| {
            self.viewport.ui(ui, world, &self.view);
            let rect = self.viewport.rect();
            let text = format!("step {}   t = {:.3} s", world.step_count(), world.time());
            let painter = ui.painter_at(rect);
            let galley = painter.layout_no_wrap(text, egui::FontId::monospace(13.0), egui::Color32::from_gray(230));
            let pos = rect.left_top() + egui::vec2(8.0, 6.0);
            painter.rect_filled(
                egui::Rect::from_min_size(pos, galley.size()).expand(3.0),
                3.0,
                egui::Color32::from_rgba_unmultiplied(10, 12, 16, 170),
            );
            painter.galley(pos, galley, egui::Color32::WHITE);
        });
        if self.seen == 1 {
            // After the first frame the view's aspect ratio is known.
            match (self.camera, self.last.take()) {
                (Some(c), _) => *self.viewport.camera_mut() = Camera::looking(c.eye, c.target),
                (None, Some(last)) => self.viewport.frame_worlds(&[self.run.world(), last.world()]),
                (None, None) => {}
            }
            self.last = None;
        }
        if self.seen > WARM_UP && !self.requested {
            self.requested = true;
            let slot = self.image.clone();
            ctx.request_screenshot(move |image| {
                if let Ok(mut s) = slot.lock() {
                    *s = Some(image);
                }
            });
        }
    }
}

/// The timeline's "Export clip…": `collidoscope clip` run on the recording in a child process
/// (a second window; this one stays responsive), from a copy of the recording in the temporary
/// folder, with this view's camera, layers and see-through statics.
pub struct ClipExport {
    child: std::process::Child,
    out: PathBuf,
    recording: PathBuf,
}

/// Why the timeline's clip export did not start or did not finish.
#[derive(Debug, thiserror::Error)]
pub enum ClipExportError {
    /// The recording could not be copied for the child process.
    #[error(transparent)]
    Copy(#[from] crate::scene::SceneError),
    /// The running program's own path is unknown.
    #[error("cannot find the collidoscope program: {0}")]
    NoProgram(std::io::Error),
    /// The child process did not start.
    #[error("cannot start the clip: {0}")]
    Start(std::io::Error),
    /// The child process could not be waited for.
    #[error("The clip failed: {0}")]
    Lost(std::io::Error),
    /// `collidoscope clip` failed: what it said.
    #[error("The clip failed: {0}")]
    Failed(String),
}

impl ClipExport {
    /// Starts the export of `recording`'s whole range to `out` (a .gif).
    pub fn start(
        recording: &crate::record::Recording,
        out: PathBuf,
        camera: &Camera,
        layers: &[&str],
        see_through_statics: bool,
    ) -> Result<ClipExport, ClipExportError> {
        static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = std::env::temp_dir().join(format!("collidoscope-clip-{}-{n}.cdrec", std::process::id()));
        crate::scene::write_atomic(&tmp, &recording.to_binary(Default::default()))?;
        let exe = std::env::current_exe().map_err(ClipExportError::NoProgram)?;
        let child = std::process::Command::new(exe)
            .args(export_args(&tmp, &out, recording.steps(), camera, layers, see_through_statics))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| {
                let _ = std::fs::remove_file(&tmp);
                ClipExportError::Start(e)
            })?;
        Ok(ClipExport { child, out, recording: tmp })
    }

    /// Where the clip goes.
    pub fn out(&self) -> &std::path::Path {
        &self.out
    }

    /// `None` while the export runs; then the clip written, or why it failed.
    pub fn poll(&mut self) -> Option<Result<&std::path::Path, ClipExportError>> {
        let status = match self.child.try_wait() {
            Ok(None) => return None,
            Ok(Some(status)) => status,
            Err(e) => return Some(Err(ClipExportError::Lost(e))),
        };
        let _ = std::fs::remove_file(&self.recording);
        let mut said = String::new();
        if let Some(mut err) = self.child.stderr.take() {
            use std::io::Read;
            let _ = err.read_to_string(&mut said);
        }
        Some(if status.success() {
            Ok(&self.out)
        } else {
            Err(ClipExportError::Failed(said.trim().trim_start_matches("error: ").to_string()))
        })
    }
}

/// The `collidoscope clip` words for a recording's steps `0..=steps`.
pub fn export_args(
    recording: &std::path::Path,
    out: &std::path::Path,
    steps: u64,
    camera: &Camera,
    layers: &[&str],
    see_through_statics: bool,
) -> Vec<std::ffi::OsString> {
    let (e, t) = (camera.eye(), camera.target);
    let mut args: Vec<std::ffi::OsString> = vec!["clip".into(), recording.into(), "-o".into(), out.into()];
    for a in [
        "--from".to_string(),
        "0".into(),
        "--to".into(),
        steps.to_string(),
        "--camera".into(),
        format!("{},{},{},{},{},{}", e.x, e.y, e.z, t.x, t.y, t.z),
    ] {
        args.push(a.into());
    }
    for l in layers {
        args.extend(["--layer".into(), (*l).into()]);
    }
    if see_through_statics {
        args.push("--see-through".into());
    }
    args
}
