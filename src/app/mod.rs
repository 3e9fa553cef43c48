//! The desktop app (feature `gui`): the eframe shell, its panels and the 3D viewport. It owns the
//! world and the fixed-step accumulator; the viewport only reads the world.

// The app is the program's window, not library API: its items are public for the app's own
// tests (egui_kittest) and tools, so rustdoc for each is not required here.
#![allow(missing_docs)]

pub mod clip;
mod compare;
mod error;
mod layout;
mod panels;
mod run;
mod script;
mod shell;
pub mod teach;
pub mod viewport;

pub use crate::session::Simulation;
pub use error::{AppError, UnknownLayer, UnknownPanel};
pub use layout::{Dock, OpenPanels, PanelId};
pub use panels::{Command, SweepAxis};
pub use run::{AppOptions, PngShot, build_app, run, setup_style, write_png, write_png_rgba};
pub use script::{Cue, Script, run_script};
pub use shell::{
    App, PRESENTATION_ZOOM, Persisted, check_lesson_view, default_scene_dir, load_lesson, presentation_zoom,
};
