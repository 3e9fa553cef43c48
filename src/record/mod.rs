//! Recordings: a scene, every user action by step, keyframes and the hash of every step, so a
//! run can be replayed bit for bit, verified, scrubbed and forked.

mod binary;
mod case;
mod codec;
mod events;
mod joint_trace;
mod trace;

pub use binary::{EXTENSION, KeyframeStorage, StreamRecorder, is_binary};

pub use case::{Case, CaseRun};
pub use events::{Event, EventDetector, EventKind, deep_bar, energy_bar, restless_lead};
pub use joint_trace::{JOINT_SERIES, JointTrace};
pub use trace::{BodyTrace, TRACE_SERIES};

use crate::math::{Quat, Vec3};
use crate::scene::{AtomicFile, BodyDesc, HullCache, Scene, SceneError, ShapeError};
use crate::settings::FieldError;
use crate::world::{Settings, Snapshot, SnapshotError, World};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The recording format version this build reads and writes. Version 2: keyframes cache the
/// friction impulse as a world vector and the twist impulse (version 1 held two tangent floats).
pub const RECORDING_VERSION: u32 = 2;

/// Something a user did to the world between two steps.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Action {
    /// Replace every setting.
    Settings(Settings),
    /// Set a body's velocities (what a mouse drag does each step).
    Velocity {
        /// The body's index.
        body: u32,
        /// Its new linear velocity, m/s.
        linvel: Vec3,
        /// Its new angular velocity, rad/s.
        angvel: Vec3,
    },
    /// Move a body (a teleport from the inspector).
    Pose {
        /// The body's index.
        body: u32,
        /// Its new position.
        translation: Vec3,
        /// Its new orientation.
        rotation: Quat,
    },
    /// Add a body (a shot from the camera).
    AddBody(BodyDesc),
    /// Change a body's material (from the inspector); a new density gives it a new mass.
    Material {
        /// The body's index.
        body: u32,
        /// Its new material.
        material: crate::dynamics::Material,
    },
}

/// Why an action could not be applied to a world.
#[derive(Debug, thiserror::Error)]
pub enum ActionError {
    /// The action names a body the world does not have.
    #[error("no body {body}: the world has {bodies}")]
    NoBody {
        /// The body named.
        body: u32,
        /// The world's bodies.
        bodies: usize,
    },
    /// A velocity with a NaN or infinite component.
    #[error("velocity is not finite")]
    Velocity,
    /// A position or rotation that is not finite, or a zero rotation.
    #[error("pose is not finite")]
    Pose,
    /// A setting or material value out of its range.
    #[error(transparent)]
    Field(#[from] FieldError),
    /// A body whose shape builds nothing.
    #[error(transparent)]
    Shape(Box<ShapeError>),
}

impl From<ShapeError> for ActionError {
    fn from(error: ShapeError) -> Self {
        ActionError::Shape(Box::new(error))
    }
}

/// Why a recording could not be replayed to a step, or continued.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The recording's scene builds no world.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A keyframe cannot be restored.
    #[error(transparent)]
    Keyframe(#[from] SnapshotError),
    /// A recorded action could not be applied.
    #[error(transparent)]
    Action(#[from] ActionError),
    /// A recorded action could not be applied at this step.
    #[error("step {step}: recorded action failed: {error}")]
    ActionAt {
        /// The step the action belongs to.
        step: u64,
        /// Why it failed.
        error: ActionError,
    },
    /// The world to go on from is not where the recording ends.
    #[error("the world is not the recording's state after step {0}")]
    NotAtEnd(u64),
    /// A replay of the recording hashes differently from it after `step`.
    #[error("the recording does not replay: step {step} hashed {got:016x}, recorded {expected:016x}")]
    DoesNotReplay {
        /// The step after which the hashes differ.
        step: u64,
        /// The replay's hash.
        got: u64,
        /// The recorded hash.
        expected: u64,
    },
    /// A replay's state after this step hashes differently from the recording's.
    #[error("the replay left the recording at step {0}: its hash differs")]
    Diverged(u64),
}

impl Action {
    /// Applies the action to `world`. Bodies it touches wake. On error nothing changes.
    pub fn apply(&self, world: &mut World) -> Result<(), ActionError> {
        let check = |body: u32, bodies: usize| {
            if (body as usize) < bodies { Ok(body as usize) } else { Err(ActionError::NoBody { body, bodies }) }
        };
        match self {
            Action::Settings(s) => {
                s.validate()?;
                world.set_settings(s.clone());
            }
            Action::Velocity { body, linvel, angvel } => {
                let i = check(*body, world.bodies().len())?;
                if !linvel.is_finite() || !angvel.is_finite() {
                    return Err(ActionError::Velocity);
                }
                let b = world.body_mut(i);
                b.linvel = *linvel;
                b.angvel = *angvel;
            }
            Action::Pose { body, translation, rotation } => {
                let i = check(*body, world.bodies().len())?;
                if !translation.is_finite() || !rotation.is_finite() || rotation.length_squared() < 1e-12 {
                    return Err(ActionError::Pose);
                }
                let b = world.body_mut(i);
                b.pose.translation = *translation;
                b.pose.rotation = rotation.normalize();
            }
            Action::AddBody(desc) => {
                let body = desc.to_body(&mut HullCache::new())?;
                world.add_body(body);
            }
            Action::Material { body, material: m } => {
                let i = check(*body, world.bodies().len())?;
                crate::rules::field("restitution", m.restitution, crate::rules::unit_interval)?;
                crate::rules::field("friction", m.friction, crate::rules::friction)?;
                crate::rules::field("density", m.density, crate::rules::density)?;
                let b = world.body_mut(i);
                b.material = *m;
                b.update_mass();
            }
        }
        Ok(())
    }
}

/// An action and the step count of the world when it was applied (before that step ran).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedAction {
    /// The world's step count when it was applied.
    pub step: u64,
    /// What was done.
    pub action: Action,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
/// A run that can be replayed bit for bit: the scene, the user's actions, keyframes and every step's hash.
pub struct Recording {
    /// The file format's version ([`RECORDING_VERSION`]).
    pub version: u32,
    /// The scene the run started from, with the settings it started with.
    pub scene: Scene,
    /// A keyframe is taken every this many steps, starting at step 0.
    pub keyframe_interval: u32,
    /// The user's actions, in step order.
    pub actions: Vec<TimedAction>,
    /// Full snapshots every `keyframe_interval` steps, for seeking and checking.
    pub keyframes: Vec<Snapshot>,
    /// `hashes[k]` is the state hash after step `k + 1`.
    pub hashes: Vec<u64>,
}

/// Why a recording file failed [`Recording::load_verified`].
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// The file cannot be read or is not a recording.
    #[error(transparent)]
    Load(#[from] SceneError),
    /// The re-run left the recording.
    #[error("{}: {divergence}", .path.display())]
    Diverged {
        /// The recording file.
        path: std::path::PathBuf,
        /// Where the re-run first disagreed with it.
        divergence: Divergence,
    },
}

/// Where a replay first disagreed with its recording.
#[derive(Clone, Debug, PartialEq)]
pub enum Divergence {
    /// The state after `step` hashed differently.
    Hash {
        /// The step after which the hashes differ.
        step: u64,
        /// The recorded hash.
        expected: u64,
        /// The replayed state's hash.
        got: u64,
    },
    /// The keyframe taken at `step` does not match the replayed state (or cannot be checked).
    Keyframe {
        /// The keyframe's step.
        step: u64,
        /// What differs, or why it cannot be checked.
        what: String,
    },
    /// An action could not be applied.
    Action {
        /// The step the action belongs to.
        step: u64,
        /// Why it failed.
        message: String,
    },
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Divergence::Hash { step, expected, got } => {
                write!(f, "diverged at step {step}: recorded hash {expected:016x}, replay gave {got:016x}")
            }
            Divergence::Keyframe { step, what } => write!(f, "keyframe at step {step}: {what}"),
            Divergence::Action { step, message } => write!(f, "step {step}: recorded action failed: {message}"),
        }
    }
}

/// Records a run as it happens.
pub struct Recorder {
    rec: Recording,
}

impl Recorder {
    /// Starts a recording of `world`, which must have just been built from `scene`.
    pub fn new(scene: &Scene, world: &World, keyframe_interval: u32) -> Self {
        let mut scene = scene.clone();
        scene.settings = world.settings.clone();
        let rec = Recording {
            version: RECORDING_VERSION,
            scene,
            keyframe_interval: keyframe_interval.max(1),
            actions: Vec::new(),
            keyframes: vec![world.snapshot()],
            hashes: Vec::new(),
        };
        Recorder { rec }
    }

    /// Applies `action` to `world` and records it.
    pub fn apply(&mut self, world: &mut World, action: Action) -> Result<(), ActionError> {
        action.apply(world)?;
        self.rec.actions.push(TimedAction { step: world.step_count(), action });
        Ok(())
    }

    /// Steps the world and records the result.
    pub fn step(&mut self, world: &mut World) {
        world.step();
        self.rec.hashes.push(world.hash());
        if world.step_count().is_multiple_of(self.rec.keyframe_interval as u64) {
            self.rec.keyframes.push(world.snapshot());
        }
    }

    /// Goes on recording after `rec`, whose last step `world` must be in (a fork of a prefix).
    pub fn resume(rec: Recording, world: &World) -> Result<Self, ReplayError> {
        let expected = match rec.hashes.last() {
            Some(&h) => h,
            None => rec.world_at(0)?.hash(),
        };
        if world.step_count() != rec.steps() || world.hash() != expected {
            return Err(ReplayError::NotAtEnd(rec.steps()));
        }
        Ok(Recorder { rec })
    }

    /// The recording so far.
    pub fn recording(&self) -> &Recording {
        &self.rec
    }

    /// Ends the recording and hands it over.
    pub fn finish(self) -> Recording {
        self.rec
    }
}

impl Recording {
    /// Steps recorded.
    pub fn steps(&self) -> u64 {
        self.hashes.len() as u64
    }

    /// Re-runs the recording from its scene and checks every step's hash and every keyframe,
    /// the one after the last step included. Returns the number of steps verified.
    pub fn verify(&self) -> Result<u64, Divergence> {
        let steps = self.steps();
        // Each keyframe must have a step of its own within the run, or some would go unchecked.
        for pair in self.keyframes.windows(2) {
            if pair[1].step <= pair[0].step {
                return Err(Divergence::Keyframe {
                    step: pair[1].step,
                    what: format!("a second keyframe for step {} (keyframes must have distinct steps)", pair[1].step),
                });
            }
        }
        if let Some(kf) = self.keyframes.iter().find(|kf| kf.step > steps) {
            return Err(Divergence::Keyframe {
                step: kf.step,
                what: format!("the keyframe lies after the last recorded step, {steps}"),
            });
        }
        // An action may follow the last step (made while paused, before the recording stopped):
        // it is replayed by whoever continues the run, not by this check.
        if let Some(a) = self.actions.iter().find(|a| a.step > steps) {
            return Err(Divergence::Action {
                step: a.step,
                message: format!("the action lies after the last recorded step, {steps}"),
            });
        }
        let mut keyframes = self.keyframes.iter().peekable();
        self.rerun(|world, step| match keyframes.next_if(|kf| kf.step == step) {
            Some(kf) => {
                kf.difference(&world.snapshot()).map_or(Ok(()), |what| Err(Divergence::Keyframe { step, what }))
            }
            None => Ok(()),
        })
    }

    /// Re-runs the recording from its scene with its actions, checking every step's hash, and
    /// calls `at` with the world after each step `0..=steps` (before that step's actions).
    /// Returns the number of steps run.
    pub(crate) fn rerun(&self, mut at: impl FnMut(&World, u64) -> Result<(), Divergence>) -> Result<u64, Divergence> {
        let steps = self.steps();
        let mut world = self.scene.build().map_err(|e| Divergence::Action { step: 0, message: e.to_string() })?;
        let mut actions = self.actions.iter().peekable();
        for (k, &expected) in self.hashes.iter().enumerate() {
            let step = k as u64;
            at(&world, step)?;
            while let Some(a) = actions.next_if(|a| a.step == step) {
                a.action.apply(&mut world).map_err(|e| Divergence::Action { step, message: e.to_string() })?;
            }
            world.step();
            let got = world.hash();
            if got != expected {
                return Err(Divergence::Hash { step: step + 1, expected, got });
            }
        }
        at(&world, steps)?;
        Ok(steps)
    }

    /// The recording of the first `step` steps only: the actions taken before step `step + 1`,
    /// the keyframes up to `step` and the hashes of those steps.
    pub fn prefix(&self, step: u64) -> Recording {
        let step = step.min(self.steps());
        Recording {
            version: self.version,
            scene: self.scene.clone(),
            keyframe_interval: self.keyframe_interval,
            actions: self.actions.iter().filter(|a| a.step < step).cloned().collect(),
            keyframes: self.keyframes.iter().filter(|k| k.step <= step).cloned().collect(),
            hashes: self.hashes[..step as usize].to_vec(),
        }
    }

    /// The world as it was after `step` steps: restores the nearest keyframe at or before it and
    /// re-simulates with the recorded actions.
    pub fn world_at(&self, step: u64) -> Result<World, ReplayError> {
        let mut world = self.scene.build()?;
        if let Some(kf) = self.keyframes.iter().rev().find(|kf| kf.step <= step) {
            world.restore(kf)?;
        }
        let from = world.step_count();
        for s in from..step.min(self.steps()) {
            for a in self.actions.iter().filter(|a| a.step == s) {
                a.action.apply(&mut world)?;
            }
            world.step();
        }
        Ok(world)
    }

    /// Reads a recording in either format: the binary one (told by its magic bytes) or RON.
    /// Errors say `FILE:LINE:COL` for RON syntax and truncation, `FILE: byte N` for a damaged
    /// binary file.
    pub fn load(path: impl AsRef<Path>) -> Result<Recording, SceneError> {
        let path = path.as_ref();
        Recording::from_bytes(&crate::scene::read_file(path)?, path).map(|(rec, _)| rec)
    }

    /// A recording from a file's bytes in either format, and the steps verified on the way if
    /// its keyframes were rebuilt by a re-run; `path` is for messages.
    pub(crate) fn from_bytes(bytes: &[u8], path: &Path) -> Result<(Recording, Option<u64>), SceneError> {
        if is_binary(bytes) {
            return Recording::from_binary_verified(bytes, path);
        }
        Recording::parse(crate::scene::decode_text(bytes, path)?, path).map(|rec| (rec, None))
    }

    /// Reads a recording from RON text; errors name `path`, line and column.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Recording, SceneError> {
        let path: PathBuf = path.as_ref().into();
        crate::scene::if_empty(text, &path)?;
        let rec: Recording = ron::from_str(text).map_err(|e| SceneError::Parse {
            path: path.clone(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        })?;
        rec.check(&path)?;
        Ok(rec)
    }

    /// The checks every loaded recording passes, whatever its format.
    fn check(&self, path: &Path) -> Result<(), SceneError> {
        let rec = self;
        let invalid = |field: &str, message: String| SceneError::Invalid {
            path: path.into(),
            field: field.into(),
            message: message.into(),
        };
        if rec.version != RECORDING_VERSION {
            return Err(invalid(
                "version",
                format!("unsupported recording version {} (this build reads {RECORDING_VERSION})", rec.version),
            ));
        }
        rec.scene.validate(path)?;
        if rec.keyframe_interval == 0 {
            return Err(invalid("keyframe_interval", "must be at least 1".into()));
        }
        if !rec.actions.is_sorted_by_key(|a| a.step) {
            return Err(invalid("actions", "actions must be in step order".into()));
        }
        if !rec.keyframes.is_sorted_by_key(|k| k.step) {
            return Err(invalid("keyframes", "keyframes must be in step order".into()));
        }
        Ok(())
    }

    /// Writes the recording atomically: in the binary format if the file name ends in
    /// `.cdrec` ([`EXTENSION`]), as RON otherwise.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SceneError> {
        let path = path.as_ref();
        if path.extension().is_some_and(|e| e == EXTENSION) {
            crate::scene::write_atomic(path, &self.to_binary(KeyframeStorage::default()))
        } else {
            self.write(AtomicFile::create(path)?)
        }
    }

    /// Writes the recording to `out` (opened before the run, so a bad path fails early) and
    /// commits it.
    pub fn write(&self, mut out: AtomicFile) -> Result<(), SceneError> {
        use std::io::Write;
        let text = ron::ser::to_string_pretty(self, ron::ser::PrettyConfig::new().depth_limit(3).struct_names(false))
            .expect("a recording always serialises");
        out.write_all(text.as_bytes()).map_err(|source| SceneError::Io { path: out.path().into(), source })?;
        out.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::ShapeDesc;

    /// `steps` of the box stack, with a shot added at step 12 and a setting changed at step 20.
    pub(super) fn recorded(steps: u64) -> Recording {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut world = scene.build().unwrap();
        let mut rec = Recorder::new(&scene, &world, 10);
        for s in 0..steps {
            if s == 12 {
                let mut shot = BodyDesc::new(ShapeDesc::Sphere { radius: 0.2 }, Vec3::new(-5.0, 4.0, 0.0));
                shot.linear_velocity = Vec3::new(30.0, 0.0, 0.0);
                rec.apply(&mut world, Action::AddBody(shot)).unwrap();
            }
            if s == 20 {
                let mut settings = world.settings.clone();
                settings.slop = 0.02;
                rec.apply(&mut world, Action::Settings(settings)).unwrap();
            }
            rec.step(&mut world);
        }
        rec.finish()
    }

    #[test]
    fn record_then_replay_verifies_every_step() {
        let rec = recorded(45);
        assert_eq!(rec.keyframes.len(), 5);
        assert_eq!(rec.verify(), Ok(45));
        let text = ron::to_string(&rec).unwrap();
        assert_eq!(Recording::parse(&text, "r.ron").unwrap().verify(), Ok(45));
    }

    #[test]
    fn an_edited_step_reports_the_divergence_there() {
        let mut rec = recorded(45);
        // Change the shot's speed: everything before step 13 still matches, step 13 does not.
        if let Action::AddBody(b) = &mut rec.actions[0].action {
            b.linear_velocity.x = 31.0;
        }
        match rec.verify() {
            Err(Divergence::Hash { step, .. }) => assert_eq!(step, 13),
            other => panic!("expected a divergence at step 13, got {other:?}"),
        }
    }

    #[test]
    fn world_at_matches_the_recorded_hash() {
        let rec = recorded(45);
        for step in [0, 7, 10, 13, 33, 45] {
            let w = rec.world_at(step).unwrap();
            assert_eq!(w.step_count(), step);
            if step > 0 {
                assert_eq!(w.hash(), rec.hashes[step as usize - 1], "step {step}");
            }
        }
    }

    #[test]
    fn truncated_or_corrupt_recordings_are_clear_errors() {
        let text = ron::ser::to_string_pretty(&recorded(5), Default::default()).unwrap();
        let cut = &text[..text.len() / 2];
        let err = Recording::parse(cut, "cut.ron").unwrap_err().to_string();
        assert!(err.starts_with("cut.ron:"), "{err}");
        let bad = text.replacen("keyframe_interval: 10", "keyframe_interval: 0", 1);
        let err = Recording::parse(&bad, "bad.ron").unwrap_err().to_string();
        assert!(err.contains("keyframe_interval"), "{err}");
    }
}
