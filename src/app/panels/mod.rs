//! The app's side panels. Each reads the simulation and returns [`Command`]s; the app applies
//! them, so no panel changes the world behind the others' backs.

mod diagnose;
mod inspector;
pub(super) mod pair;
mod profiler;
mod scenes;
mod settings;
mod sweep;
mod timeline;
mod view;
pub(super) mod widgets;

pub(super) use diagnose::DiagnosePanel;
pub(super) use inspector::InspectorPanel;
pub(super) use pair::PairPanel;
pub(super) use profiler::{ProfilerPanel, ProfilerPrefs};
pub(super) use scenes::ScenePanel;
pub(super) use settings::SettingsPanel;
pub use sweep::Axis as SweepAxis;
pub(super) use sweep::SweepPanel;
pub(super) use timeline::TimelinePanel;
pub(super) use view::ViewPanel;

use super::viewport::{Camera, ViewOptions};
use crate::session::Simulation;
use crate::world::Settings;
use std::path::PathBuf;

/// What every panel's `ui(&mut self, ui, cx) -> Vec<Command>` reads and may change: the
/// simulation (read only: changes go back as commands) and the view with its camera.
pub struct PanelCx<'a> {
    /// The simulation the app drives.
    pub sim: &'a Simulation,
    /// The view's options: layers, selection, extra debug drawing.
    pub view: &'a mut ViewOptions,
    /// The 3D view's camera.
    pub camera: &'a mut Camera,
}

/// What a panel asks the app to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Replace the world's settings (never resets the world).
    SetSettings(Box<Settings>),
    /// Load a scene file; on failure the current scene stays and the error is shown.
    OpenScene(PathBuf),
    /// Open a lesson at its first step; on failure the current scene stays and the error is
    /// shown.
    OpenLesson(PathBuf),
    /// Save the current state as a scene file.
    SaveScene(PathBuf),
    /// Write the profiler history as CSV.
    ExportCsv(PathBuf),
    /// Render the recording on the timeline, all its steps, as a GIF clip.
    ExportClip(PathBuf),
    Select(Option<usize>),
    /// Select a joint (an index into the world's joints) for the Inspector, or none.
    SelectJoint(Option<usize>),
    FrameAll,
    /// Reset as R does (during an A/B: both worlds to its start).
    Reset,
    /// Pin a body to the inspector's plot beside the selected one (`true`), or unpin it.
    Pin(usize, bool),
    /// Open a panel and bring it forward in its dock.
    ShowPanel(crate::app::PanelId),
    /// Give the plain left-drag in the view to a teaching tool (`Ray` or `Tests`), switching
    /// the other off.
    TakeDrag(crate::app::PanelId),
    /// Give body `.0` this material (a user action: recorded, replayed).
    SetMaterial(usize, crate::dynamics::Material),
    /// Recording, timeline and A/B comparison.
    Record(crate::session::timeline::RecordCommand),
    /// Shrink the case on the timeline (else the open scene) to the fewest bodies that still
    /// show `symptom` (to `body`) by `step` or a little after, in the Diagnose panel.
    Reduce {
        /// The event to keep.
        symptom: crate::diagnose::Symptom,
        /// The body it happens to.
        body: Option<u32>,
        /// The step it happened at.
        step: u64,
    },
}

/// Colours shared by the panels: large, high-contrast text for a projector.
pub(super) mod colors {
    use eframe::egui::Color32;
    pub(crate) const ERROR: Color32 = Color32::from_rgb(255, 110, 100);
    pub(crate) const OK: Color32 = Color32::from_rgb(120, 220, 140);
    pub(crate) const WARN: Color32 = Color32::from_rgb(255, 200, 90);
}

pub(super) use crate::session::file_label;

/// A panel's status line: what the last action did in green, why it failed in red.
pub(super) fn status_line(ui: &mut eframe::egui::Ui, status: Option<&crate::session::Status>) {
    match status {
        Some(s @ crate::session::Status::Done(_)) => ui.colored_label(colors::OK, s.message()),
        Some(s @ crate::session::Status::Failed(_)) => ui.colored_label(colors::ERROR, s.message()),
        None => return,
    };
}

pub(super) use crate::math::length_text;

/// `SweepAndPrune` → `Sweep and prune`: an enum variant's name as words.
pub(super) fn humanize(variant: &str) -> String {
    let mut out = String::with_capacity(variant.len() + 4);
    for (i, c) in variant.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push(' ');
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn lengths_read_in_a_fitting_unit() {
        assert_eq!(super::length_text(2.0), "2.00 m");
        assert_eq!(super::length_text(0.125), "125 mm");
        assert_eq!(super::length_text(0.0015), "1.5 mm");
        assert_eq!(super::length_text(1.67e-6), "1.67 µm");
    }

    #[test]
    fn humanize_splits_camel_case() {
        assert_eq!(super::humanize("SweepAndPrune"), "Sweep and prune");
        assert_eq!(super::humanize("Off"), "Off");
    }
}
