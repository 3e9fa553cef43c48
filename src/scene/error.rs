use std::path::PathBuf;
use thiserror::Error;

/// Why a scene could not be read, checked or written. Messages start with where the problem is:
/// `FILE:LINE:COL` from the parser, or `FILE: field.path` for checks made after parsing.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The text is not a valid scene (or recording).
    #[error("{}:{line}:{col}: {message}", path.display())]
    Parse {
        /// The file.
        path: PathBuf,
        /// Line of the problem, from 1.
        line: usize,
        /// Column of the problem, from 1.
        col: usize,
        /// What the parser expected.
        message: String,
    },
    /// A value is out of range or inconsistent.
    #[error("{}: {field}: {message}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field, as a path into the scene (`bodies[3].shape`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
}

impl SceneError {
    /// The line the problem is on, when the parser gave one.
    pub fn line(&self) -> Option<usize> {
        match self {
            SceneError::Parse { line, .. } => Some(*line),
            _ => None,
        }
    }
}
