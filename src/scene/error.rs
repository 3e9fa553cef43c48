use std::path::PathBuf;
use thiserror::Error;

/// Why a scene could not be read, checked or written. Messages start with where the problem is:
/// `FILE:LINE:COL` from the parser, or `FILE: field.path` for checks made after parsing.
#[derive(Debug, Error)]
pub enum SceneError {
    #[error("{}: {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{}:{line}:{col}: {message}", path.display())]
    Parse { path: PathBuf, line: usize, col: usize, message: String },
    #[error("{}: {field}: {message}", path.display())]
    Invalid { path: PathBuf, field: String, message: String },
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
