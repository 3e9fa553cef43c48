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
    /// Reads a scene, or failing that a recording in either format. When neither reads, the
    /// error is the recording's for a file that is not text (a binary recording), the scene's
    /// otherwise.
    pub fn load(path: &Path) -> Result<Case, SceneError> {
        let scene_error = match Scene::load(path) {
            Ok(scene) => return Ok(Case::Scene(Box::new(scene))),
            Err(e) => e,
        };
        match Recording::load(path) {
            Ok(rec) => Ok(Case::Recording(Box::new(rec))),
            Err(rec_error) => {
                let binary = matches!(&scene_error, SceneError::Parse { message, .. } if message.contains("not UTF-8"));
                Err(if binary { rec_error } else { scene_error })
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
