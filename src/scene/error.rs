use std::path::PathBuf;
use thiserror::Error;

/// Why a scene could not be read, checked or written. Messages start with where the problem is:
/// `FILE:LINE:COL` from the parser, or `FILE: field.path` for checks made after parsing. Each is
/// one line: control characters that names, paths or strings in a file may hold (a newline in
/// a glTF node's name) are written as escapes.
#[derive(Debug, Error)]
pub enum SceneError {
    /// The file could not be read or written.
    #[error("{}", one_line(format!("{}: {}", .path.display(), .source)))]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The text is not a valid scene (or recording).
    #[error("{}", one_line(format!("{}:{}:{}: {}", .path.display(), .line, .col, .message)))]
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
    #[error("{}", one_line(format!("{}: {}: {}", .path.display(), .field, .message)))]
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

/// `text` with its control characters escaped (`\n`, `\u{1b}`), so a message stays one line.
pub fn one_line(text: String) -> String {
    if !text.chars().any(char::is_control) {
        return text;
    }
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}
