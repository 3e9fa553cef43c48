//! A finished recording on the timeline: a cursor over its steps that the app's world follows,
//! the events of every step, and playback by replaying the recorded actions.

use crate::record::{Event, EventDetector, EventKind, Recording, ReplayError};
use crate::scene::SceneError;
use crate::world::World;
use std::sync::Arc;

/// A recording being reviewed. The app's world is "attached" while it is exactly the recording's
/// world after `cursor` steps; stepping it then replays the recording.
pub struct Review {
    /// The recording reviewed.
    pub recording: Arc<Recording>,
    /// Events of every step, in step order.
    pub events: Vec<Event>,
    /// The step the attached world is at.
    pub cursor: u64,
    /// Whether the app's world is the recording's world after `cursor` steps.
    pub attached: bool,
    /// Playback starts over at the end instead of stopping.
    pub looping: bool,
    /// Where a fork left this recording, shown on the scrubber.
    pub fork_from: Option<u64>,
    /// What to call it: the file name, or "new recording".
    pub name: String,
    /// Hash of the world before the first step.
    initial_hash: u64,
}

impl Review {
    /// Reviews `recording` with known `events`; the world stays where the recording ended.
    pub fn new(recording: impl Into<Arc<Recording>>, events: Vec<Event>, initial_hash: u64, name: String) -> Review {
        let recording = recording.into();
        let cursor = recording.steps();
        Review { recording, events, cursor, attached: true, looping: false, fork_from: None, name, initial_hash }
    }

    /// Reviews a recording read from a file: replays it once to find its events and check it.
    /// Returns the review, attached at step 0, and the world there. A recording that does not
    /// replay still opens; the error says where it broke and the events stop there.
    pub fn open(recording: Recording, name: String) -> Result<(Review, World, Option<String>), SceneError> {
        let start = recording.scene.build()?;
        let (events, problem) = replay_events(&recording, start.clone());
        let mut review = Review::new(recording, events, start.hash(), name);
        review.cursor = 0;
        Ok((review, start, problem))
    }

    /// Steps in the recording.
    pub fn steps(&self) -> u64 {
        self.recording.steps()
    }

    /// The recorded state hash after `step` steps.
    pub fn hash_at(&self, step: u64) -> Option<u64> {
        match step {
            0 => Some(self.initial_hash),
            s => self.recording.hashes.get(s as usize - 1).copied(),
        }
    }

    /// Whether `world` is the recording's world at the cursor, so a step can replay the recording.
    pub fn follows(&self, world: &World) -> bool {
        self.attached && world.step_count() == self.cursor && self.hash_at(self.cursor) == Some(world.hash())
    }

    /// The world after `step` steps (clamped to the recording): from the nearest keyframe, or by
    /// stepping on from `current` when that is the attached world a little before `step`.
    pub fn seek(&mut self, step: u64, current: &World) -> Result<World, ReplayError> {
        let step = step.min(self.steps());
        let near = self.follows(current)
            && step >= self.cursor
            && step - self.cursor < self.recording.keyframe_interval as u64;
        let world = if near {
            let mut w = current.clone();
            self.replay_steps(&mut w, step)?;
            w
        } else {
            self.recording.world_at(step)?
        };
        self.cursor = step;
        self.attached = true;
        Ok(world)
    }

    /// Replays recorded steps on `world` (at the cursor) until it is after `until` steps.
    fn replay_steps(&self, world: &mut World, until: u64) -> Result<(), ReplayError> {
        while world.step_count() < until {
            let s = world.step_count();
            for a in self.actions_at(s) {
                a.action.apply(world).map_err(|error| ReplayError::ActionAt { step: s, error })?;
            }
            world.step();
        }
        Ok(())
    }

    fn actions_at(&self, step: u64) -> impl Iterator<Item = &crate::record::TimedAction> {
        let acts = &self.recording.actions;
        let from = acts.partition_point(|a| a.step < step);
        acts[from..].iter().take_while(move |a| a.step == step)
    }

    /// One replayed step of the attached world: the recorded actions, the step, and a check of
    /// the recorded hash. On a mismatch the world stays stepped but is detached.
    pub fn step(&mut self, world: &mut World) -> Result<(), ReplayError> {
        let s = self.cursor;
        self.replay_steps(world, s + 1)?;
        self.cursor = s + 1;
        if self.hash_at(s + 1) != Some(world.hash()) {
            self.attached = false;
            return Err(ReplayError::Diverged(s + 1));
        }
        Ok(())
    }

    /// The nearest event after (`forward`) or before the cursor that passes `shown`.
    pub fn next_event(&self, forward: bool, shown: &dyn Fn(EventKind) -> bool) -> Option<&Event> {
        let c = self.cursor;
        if forward {
            self.events.iter().find(|e| e.step > c && shown(e.kind))
        } else {
            self.events.iter().rev().find(|e| e.step < c && shown(e.kind))
        }
    }
}

/// Replays a whole recording from `world` (its scene, built) with an [`EventDetector`]; stops
/// at the first step whose hash differs from the recorded one and says so.
pub fn replay_events(rec: &Recording, mut world: World) -> (Vec<Event>, Option<String>) {
    let mut detector = EventDetector::new();
    let mut events = Vec::new();
    let mut actions = rec.actions.iter().peekable();
    for (k, &expected) in rec.hashes.iter().enumerate() {
        let s = k as u64;
        let mut acted = false;
        while let Some(a) = actions.next_if(|a| a.step == s) {
            if let Err(e) = a.action.apply(&mut world) {
                return (events, Some(format!("step {s}: recorded action failed: {e}")));
            }
            acted = true;
        }
        world.step();
        events.extend(detector.observe(&world, acted));
        if world.hash() != expected {
            return (events, Some(format!("the recording does not replay: it diverged at step {}", s + 1)));
        }
    }
    (events, None)
}
