//! What can stop the app before or instead of its window: a bad command-line choice, a scene
//! that cannot be loaded, a window that cannot open, a picture that cannot be written.

use crate::scene::SceneError;
use crate::session::SessionError;
use crate::settings::SettingsError;
use std::path::PathBuf;

/// A debug layer name that is not one of [`super::viewport::Layers::NAMES`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("unknown layer {name:?}; the layers are {}", super::viewport::Layers::NAMES.join(", "))]
pub struct UnknownLayer {
    /// The name given.
    pub name: String,
}

/// A panel name that is not one of the app's panels.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("unknown panel `{name}`; the panels are {}", super::PanelId::ALL.iter().map(|p| p.label().to_lowercase()).collect::<Vec<_>>().join(", "))]
pub struct UnknownPanel {
    /// The name given.
    pub name: String,
}

/// Why the app did not run, or did not write the picture it was asked for.
#[derive(Debug, thiserror::Error)]
pub enum AppError {
    /// `--layer` names no layer.
    #[error("--layer: {0}")]
    Layer(#[from] UnknownLayer),
    /// `--show` names no panel.
    #[error("--show: {0}")]
    Panel(#[from] UnknownPanel),
    /// A `--set` the settings refuse.
    #[error("--set {field}={value}: {source}")]
    Set {
        /// The field named.
        field: String,
        /// The value given.
        value: String,
        /// Why the settings refuse it.
        source: Box<SettingsError>,
    },
    /// A `--compare` change the A/B cannot make.
    #[error("--compare {0}")]
    Compare(#[source] Box<SessionError>),
    /// The scene could not be loaded, or a file could not be written.
    #[error(transparent)]
    Scene(#[from] Box<SceneError>),
    /// `--select` names a body the scene does not have.
    #[error("--select {index}: {}", crate::scene::bodies_text(*bodies))]
    Select {
        /// The index given.
        index: usize,
        /// The scene's bodies, generators expanded.
        bodies: usize,
    },
    /// The window could not open.
    #[error("cannot open the window: {0}")]
    Window(String),
    /// The picture could not be encoded.
    #[error("{}: {message}", .path.display())]
    Png {
        /// Where it was to go.
        path: PathBuf,
        /// What the encoder said.
        message: String,
    },
    /// The window closed before the screenshot was taken.
    #[error("the window closed before the screenshot was taken")]
    NoScreenshot,
    /// `--lesson` names a lesson that cannot be loaded, or `--step` a step it does not have.
    #[error("--lesson: {0}")]
    Lesson(Box<crate::lesson::LessonError>),
    /// A clip needs a window, and no display is named.
    #[error("clip needs a display; run it under xvfb-run or xshot (no DISPLAY or WAYLAND_DISPLAY is set)")]
    NoDisplay,
    /// The clip's range, rate, frames or output are refused.
    #[error(transparent)]
    Clip(Box<crate::clip::ClipError>),
    /// The recording being clipped does not replay.
    #[error(transparent)]
    Replay(Box<crate::record::ReplayError>),
    /// A scripted run's setup refused (the tools' scripts say why in their own words).
    #[error("{0}")]
    Script(String),
}

impl From<SceneError> for AppError {
    fn from(e: SceneError) -> Self {
        AppError::Scene(Box::new(e))
    }
}

impl From<crate::clip::ClipError> for AppError {
    fn from(e: crate::clip::ClipError) -> Self {
        AppError::Clip(Box::new(e))
    }
}

impl From<crate::record::ReplayError> for AppError {
    fn from(e: crate::record::ReplayError) -> Self {
        AppError::Replay(Box::new(e))
    }
}

impl From<SessionError> for AppError {
    fn from(e: SessionError) -> Self {
        AppError::Compare(Box::new(e))
    }
}

impl From<crate::lesson::LessonError> for AppError {
    fn from(e: crate::lesson::LessonError) -> Self {
        AppError::Lesson(Box::new(e))
    }
}
