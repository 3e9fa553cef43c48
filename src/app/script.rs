//! Scripted windows for the screenshot tools (`tools/`): the app on a scene, set up by a script,
//! with one step per frame until the script asks for the picture.

use super::AppError;
use super::run::{PngShot, setup_style};
use super::shell::App;
use super::viewport::Viewport;
use crate::session::sim::Simulation;
use eframe::egui;
use std::path::{Path, PathBuf};

/// What a script wants after a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cue {
    /// Keep running.
    Run,
    /// Take the picture (once; later cues to shoot do nothing), and close the window once it
    /// is written.
    Shoot,
    /// Close the window.
    Close,
}

/// A scripted run: called after every frame the app shows.
pub trait Script: 'static {
    /// Looks at (and may steer) the app after a frame; says what comes next.
    fn after_frame(&mut self, app: &mut App) -> Cue;
}

/// Opens a 1600×1000 window titled `title` on `scene`, hands the app to `setup` (which returns
/// the script that runs it), and writes the picture the script asks for to `out`. Returns when
/// the window closes: once the picture is written, or when the script says so.
pub fn run_script(
    title: &str,
    scene: &Path,
    out: PathBuf,
    setup: impl FnOnce(&mut App) -> Result<Box<dyn Script>, AppError> + 'static,
) -> Result<(), AppError> {
    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title(title).with_inner_size([1600.0, 1000.0]),
        renderer: eframe::Renderer::Wgpu,
        persist_window: false,
        ..Default::default()
    };
    let scene = scene.to_path_buf();
    eframe::run_native(
        title,
        native,
        Box::new(move |cc| {
            setup_style(&cc.egui_ctx);
            let sim = Simulation::load(&scene)?;
            let mut app = App::new(sim, Viewport::new(cc.wgpu_render_state.as_ref()), PathBuf::from("scenes"));
            let script = setup(&mut app)?;
            Ok(Box::new(Scripted { app, script, shot: PngShot::new(out) }))
        }),
    )
    .map_err(|e| AppError::Window(e.to_string()))
}

/// The eframe side of a scripted run.
struct Scripted {
    app: App,
    script: Box<dyn Script>,
    shot: PngShot,
}

impl eframe::App for Scripted {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.app.show(ui);
        ui.ctx().request_repaint();
        let cue = self.script.after_frame(&mut self.app);
        if cue == Cue::Shoot {
            self.shot.request(ui.ctx());
        }
        // A tool that shot its picture is done (one that said only `Shoot` never closed).
        if self.shot.write_when_ready() || cue == Cue::Close {
            ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}
