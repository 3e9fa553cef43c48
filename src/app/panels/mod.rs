//! The app's side panels. Each reads the simulation and returns [`Command`]s; the app applies
//! them, so no panel changes the world behind the others' backs.

mod help;
mod inspector;
mod pair;
mod profiler;
mod scenes;
mod settings;
mod timeline;
mod view;

pub use inspector::InspectorPanel;
pub use pair::PairPanel;
pub use profiler::{ProfilerPanel, ProfilerPrefs};
pub use scenes::ScenePanel;
pub use settings::SettingsPanel;
pub use timeline::TimelinePanel;
pub use view::ViewPanel;

use crate::world::Settings;
use std::path::PathBuf;

/// What a panel asks the app to do.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    /// Replace the world's settings (never resets the world).
    SetSettings(Box<Settings>),
    /// Load a scene file; on failure the current scene stays and the error is shown.
    OpenScene(PathBuf),
    /// Save the current state as a scene file.
    SaveScene(PathBuf),
    /// Write the profiler history as CSV.
    ExportCsv(PathBuf),
    Select(Option<usize>),
    FrameAll,
    /// Recording, timeline and A/B comparison.
    Record(crate::app::record::RecordCommand),
}

/// Colours shared by the panels: large, high-contrast text for a projector.
pub mod colors {
    use eframe::egui::Color32;
    pub const ERROR: Color32 = Color32::from_rgb(255, 110, 100);
    pub const OK: Color32 = Color32::from_rgb(120, 220, 140);
    pub const WARN: Color32 = Color32::from_rgb(255, 200, 90);
}

/// A file name for display: the last path component, or the whole path.
pub fn file_label(path: &std::path::Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}

/// `SweepAndPrune` → `Sweep and prune`: an enum variant's name as words.
pub fn humanize(variant: &str) -> String {
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
    fn humanize_splits_camel_case() {
        assert_eq!(super::humanize("SweepAndPrune"), "Sweep and prune");
        assert_eq!(super::humanize("Off"), "Off");
    }
}
