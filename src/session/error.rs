//! Why a command of the session (record, fork, A/B, reset) could not be carried out.

use crate::record::{ActionError, ReplayError};
use crate::scene::SceneError;
use crate::settings::SettingsError;

/// Why a session command failed; on error the session is unchanged.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// The scene builds no world.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// The recording does not replay to where it was asked to.
    #[error(transparent)]
    Replay(#[from] ReplayError),
    /// A user action is out of range.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A fork asked for while recording.
    #[error("Stop recording before forking")]
    ForkWhileRecording,
    /// A fork asked for with no recording on the timeline.
    #[error("Nothing to fork: record first")]
    NothingToFork,
    /// An A/B reset asked for with no A/B running.
    #[error("no A/B to reset")]
    NoAb,
    /// A peer engine asked for in a build without it.
    #[error("this build has no {engine} engine (built without the `{engine}` feature)")]
    NoEngine {
        /// The engine (its `--engine` name is also its cargo feature).
        engine: crate::engine::Engine,
    },
    /// A peer engine that could not take the scene (a shape it refused, named).
    #[error("{engine} cannot run this scene: {error}")]
    PeerRefused {
        /// The engine, as shown to people.
        engine: &'static str,
        /// What it refused.
        error: String,
    },
    /// `engine=NAME` with a name that is no engine.
    #[error("engine={0}: choose rapier, jolt or collidoscope")]
    Engine(String),
    /// A `FIELD=VALUE` change that could not be made.
    #[error("{field}={value}: {error}")]
    Change {
        /// The setting's name.
        field: String,
        /// Its RON text.
        value: String,
        /// Why it could not be set.
        error: Box<SettingsError>,
    },
}
