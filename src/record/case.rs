//! A case as the tools take it: a scene file, or a recording whose scene and actions replay.

use super::{Recording, ReplayError, TimedAction};
use crate::scene::{Scene, SceneError};
use crate::world::World;
use std::path::Path;

/// A scene, or a recording of one.
#[derive(Clone, Debug, PartialEq)]
pub enum Case {
    /// A scene, run from its start.
    Scene(Box<Scene>),
    /// A recording, replayed with its actions.
    Recording(Box<Recording>),
}

impl Case {
    /// Reads a scene, or a recording in either format. The file is read once: a binary
    /// recording is told by its magic bytes (its keyframes rebuilt by a verified re-run); text
    /// that is no scene is tried as a RON recording, and when neither reads, the scene's error
    /// is the one reported.
    pub fn load(path: &Path) -> Result<Case, SceneError> {
        Case::read(path, true)
    }

    /// As [`Case::load`], without rebuilding a binary recording's keyframes (no re-run): for a
    /// tool that only runs the recording's scene from its start, as `diagnose` does.
    pub fn load_for_rerun(path: &Path) -> Result<Case, SceneError> {
        Case::read(path, false)
    }

    fn read(path: &Path, keyframes: bool) -> Result<Case, SceneError> {
        let bytes = crate::scene::read_file(path)?;
        if super::is_binary(&bytes) {
            let rec = if keyframes {
                Recording::from_bytes(&bytes, path)?.0
            } else {
                Recording::from_binary_unreplayed(&bytes, path)?
            };
            return Ok(Case::Recording(Box::new(rec)));
        }
        let text = crate::scene::decode_text(&bytes, path)?;
        match Scene::parse(text, path) {
            Ok(scene) => Ok(Case::Scene(Box::new(scene))),
            Err(scene_error) => {
                Recording::parse(text, path).map(|rec| Case::Recording(Box::new(rec))).map_err(|_| scene_error)
            }
        }
    }

    /// The scene run.
    pub fn scene(&self) -> &Scene {
        match self {
            Case::Scene(s) => s,
            Case::Recording(r) => &r.scene,
        }
    }

    /// The recording's steps; `None` for a scene, which runs on.
    pub fn steps(&self) -> Option<u64> {
        match self {
            Case::Scene(_) => None,
            Case::Recording(r) => Some(r.steps()),
        }
    }
}

/// A case's world moved forward step by step: a recording's actions are applied at their steps
/// and every recorded step's hash is checked.
pub struct CaseRun {
    world: World,
    actions: Vec<TimedAction>,
    hashes: Vec<u64>,
}

impl CaseRun {
    /// The case's world after `from` steps (a recording's from its nearest keyframe).
    pub fn new(case: &Case, from: u64) -> Result<CaseRun, ReplayError> {
        let mut run = match case {
            Case::Scene(scene) => CaseRun { world: scene.build()?, actions: Vec::new(), hashes: Vec::new() },
            Case::Recording(rec) => {
                CaseRun { world: rec.world_at(from)?, actions: rec.actions.clone(), hashes: rec.hashes.clone() }
            }
        };
        run.advance_to(from)?;
        Ok(run)
    }

    /// Steps on to `step` (nothing if the world is there or past it).
    pub fn advance_to(&mut self, step: u64) -> Result<(), ReplayError> {
        while self.world.step_count() < step {
            let s = self.world.step_count();
            for a in self.actions.iter().filter(|a| a.step == s) {
                a.action.apply(&mut self.world).map_err(|error| ReplayError::ActionAt { step: s, error })?;
            }
            self.world.step();
            if let Some(&expected) = self.hashes.get(s as usize) {
                let got = self.world.hash();
                if got != expected {
                    return Err(ReplayError::DoesNotReplay { step: s + 1, got, expected });
                }
            }
        }
        Ok(())
    }

    /// The world now.
    pub fn world(&self) -> &World {
        &self.world
    }
}
