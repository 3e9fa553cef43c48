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

/// The line a panel shows after the user's last action on it: what was done, or why it was
/// not (the failure's own message, which names the file or the setting).
#[derive(Clone, Debug, PartialEq)]
pub enum Status {
    /// The action was carried out: what it did ("Saved 20 steps to run.cdrec").
    Done(String),
    /// The action failed or was refused: why.
    Failed(String),
}

impl Status {
    /// A failure, in the words of its error.
    pub fn failed(why: impl std::fmt::Display) -> Status {
        Status::Failed(why.to_string())
    }

    /// `Done` with `done`'s words for the result, or `Failed` with the error's.
    pub fn of<T, E: std::fmt::Display>(result: Result<T, E>, done: impl FnOnce(T) -> String) -> Status {
        match result {
            Ok(t) => Status::Done(done(t)),
            Err(e) => Status::failed(e),
        }
    }

    /// The line itself.
    pub fn message(&self) -> &str {
        match self {
            Status::Done(m) | Status::Failed(m) => m,
        }
    }

    /// Whether the action was carried out.
    pub fn is_done(&self) -> bool {
        matches!(self, Status::Done(_))
    }
}

/// A file's name for labels (the whole path when it has none).
pub fn file_label(path: &std::path::Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| path.display().to_string())
}
