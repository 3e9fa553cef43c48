//! The model the app drives, free of any GUI crate: the simulation clock and the world it steps
//! (with the mouse spring and the profile history), the recording tape, the review of a
//! finished recording, the lockstep partner of an A/B comparison, and motion trails. It
//! builds and is tested without the `gui` feature; the app only draws it and sends it commands.

mod error;
pub mod pause;
pub mod sim;
pub mod timeline;
pub mod trails;

pub use error::SessionError;
pub use sim::{SPEED_RANGE, Simulation};

/// A file's name for labels (the whole path when it has none).
pub fn file_label(path: &std::path::Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
