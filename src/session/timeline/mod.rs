//! The session's timeline (apart from the engine's [`crate::record`], whose recordings it
//! makes and replays): the recording state of the app. While recording, every step of the
//! app's world goes through the engine's `Recorder` and every user action (settings, drag
//! velocities, shots) is an `Action`. A finished or opened recording sits on the timeline; the
//! world can follow it step by step, and any user action there forks it. A second world can
//! run in lockstep beside the app's world for an A/B comparison. The commands that drive it
//! are `Simulation`'s, in `session/sim/recording.rs`.

mod lockstep;
mod review;
mod tape;

pub use lockstep::Partner;
pub use review::{Review, replay_events};
pub use tape::{KEYFRAME_INTERVAL, Tape};

use super::SessionError;
use crate::world::Settings;
use std::path::PathBuf;

/// The recording state of a [`Simulation`](super::Simulation).
#[derive(Default)]
pub struct RecordState {
    /// The recording in progress (a fresh one, or a fork of the reviewed one).
    pub tape: Option<Tape>,
    /// The recording on the timeline.
    pub review: Option<Review>,
    /// World A of an A/B comparison, stepped with the app's world (B).
    pub partner: Option<Partner>,
    /// Show A and B side by side while there is a partner.
    pub side_by_side: bool,
    /// The outcome of the last recording command, shown in the timeline.
    pub status: Option<crate::session::Status>,
}

/// What the timeline and comparison panels ask of the simulation.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordCommand {
    /// Start recording, or stop and put the recording on the timeline.
    ToggleRecording,
    /// Save the recording on the timeline to a file.
    Save(PathBuf),
    /// Open a recording file onto the timeline.
    Open(PathBuf),
    /// Replay the recording on the timeline and check every hash.
    Verify,
    /// Move the world to the recording's state after this many steps.
    Seek(u64),
    /// Move the world one step back along the recording.
    StepBack,
    /// Start playback over at the end instead of stopping.
    SetLooping(bool),
    /// Playback speed, simulated seconds per real second.
    SetSpeed(f32),
    /// Branch the reviewed recording at the cursor and compare with the original.
    Fork,
    /// Start an A/B comparison: A is a copy of the world now, or both start from the scene.
    StartAb {
        /// Both worlds from the scene's start rather than from the world now.
        from_start: bool,
    },
    /// Start an A/B comparison with a peer engine on the B side, from the world now or the
    /// scene's start; the app's world is A.
    StartAbPeer {
        /// The peer engine: rapier3d or Jolt Physics.
        engine: crate::engine::Engine,
        /// Both worlds from the scene's start rather than from the world now.
        from_start: bool,
    },
    /// End the A/B comparison.
    CloseAb,
    /// Show A and B side by side (true) or B alone.
    SideBySide(bool),
    /// Replace world A's settings.
    PartnerSettings(Box<Settings>),
    /// Take the recording off the timeline.
    CloseReview,
    /// Put a run recorded elsewhere (the Diagnose panel's, of the open scene) on the timeline,
    /// detached: a seek then moves the world into it.
    Show {
        /// The run.
        recording: std::sync::Arc<crate::record::Recording>,
        /// Its timeline events, in step order.
        events: Vec<crate::record::Event>,
        /// The state hash before its first step.
        initial_hash: u64,
        /// What the timeline calls it.
        name: String,
    },
}

/// `--compare` changes as (setting name, RON value) pairs.
pub type Changes = Vec<(String, String)>;

/// Takes `engine=NAME` out of `--compare` changes: the peer engine it asks for (`rapier` or
/// `jolt`; none for `collidoscope`), and the rest.
pub fn split_engine(changes: &[(String, String)]) -> Result<(Option<crate::engine::Engine>, Changes), SessionError> {
    use crate::engine::Engine;
    let mut peer = None;
    let mut rest = Vec::new();
    for (field, value) in changes {
        if field == "engine" {
            peer = match Engine::from_cli_name(value) {
                Some(Engine::Collidoscope) => None,
                Some(e) => Some(e),
                None => return Err(SessionError::Engine(value.clone())),
            };
        } else {
            rest.push((field.clone(), value.clone()));
        }
    }
    Ok((peer, rest))
}

/// `base` with each (setting name, RON value) of `changes` applied; an error names the change.
pub fn changed_settings(base: &Settings, changes: &[(String, String)]) -> Result<Settings, SessionError> {
    let mut s = base.clone();
    for (field, value) in changes {
        s.set_field(field, value).map_err(|e| SessionError::Change {
            field: field.clone(),
            value: value.clone(),
            error: Box::new(e),
        })?;
    }
    Ok(s)
}

#[cfg(test)]
mod tests;
