//! A recording in progress: every step through [`Recorder::step`], every user action through
//! [`Recorder::apply`], and the timeline events the steps produced.

use crate::record::{Action, ActionError, Event, EventDetector, Recorder, Recording, ReplayError};
use crate::scene::Scene;
use crate::world::World;

/// Steps between keyframes of the recordings the app makes: one second at 60 Hz, so a seek
/// re-simulates at most a second.
pub const KEYFRAME_INTERVAL: u32 = 60;

/// A live recording of the app's world.
pub struct Tape {
    recorder: Recorder,
    detector: EventDetector,
    /// Events of every step so far, in step order.
    pub events: Vec<Event>,
    /// A user action came since the last step (suppresses the energy-spike check).
    acted: bool,
    /// Bodies in the world as recorded, to notice the world being replaced behind the tape.
    bodies: usize,
    /// Hash of the world before the first step.
    initial_hash: u64,
}

impl Tape {
    /// Starts recording `world`, which must be `scene` just built (step 0).
    pub fn new(scene: &Scene, world: &World, keyframe_interval: u32) -> Tape {
        Tape {
            recorder: Recorder::new(scene, world, keyframe_interval),
            detector: EventDetector::new(),
            events: Vec::new(),
            acted: false,
            bodies: world.bodies().len(),
            initial_hash: world.hash(),
        }
    }

    /// The start of a fork: the first `step` steps of `original` (with their `events`) as a tape,
    /// and the world as it was after them. The world comes from the nearest keyframe and at most
    /// one keyframe interval of replay (each replayed step's hash checked), so forking late in a
    /// long recording costs no more than forking early.
    pub fn fork(original: &Recording, events: &[Event], step: u64) -> Result<(Tape, World), ReplayError> {
        let step = step.min(original.steps());
        let mut world = original.scene.build()?;
        let initial_hash = world.hash();
        if let Some(kf) = original.keyframes.iter().rev().find(|kf| kf.step <= step) {
            world.restore(kf)?;
        }
        // The detector watches the replayed steps so that contacts already touching at the fork
        // are not reported as new; what it reports here is in `events` already.
        let mut detector = EventDetector::new();
        for s in world.step_count()..step {
            let mut acted = false;
            for a in original.actions.iter().filter(|a| a.step == s) {
                a.action.apply(&mut world).map_err(|error| ReplayError::ActionAt { step: s, error })?;
                acted = true;
            }
            world.step();
            let expected = original.hashes[s as usize];
            if world.hash() != expected {
                return Err(ReplayError::DoesNotReplay { step: s + 1, got: world.hash(), expected });
            }
            detector.observe(&world, acted);
        }
        let recorder = Recorder::resume(original.prefix(step), &world)?;
        let tape = Tape {
            recorder,
            detector,
            events: events.iter().filter(|e| e.step <= step).cloned().collect(),
            acted: false,
            bodies: world.bodies().len(),
            initial_hash,
        };
        Ok((tape, world))
    }

    /// Applies a user action to `world` and records it; on error nothing changes.
    pub fn apply(&mut self, world: &mut World, action: Action) -> Result<(), ActionError> {
        self.recorder.apply(world, action)?;
        self.acted = true;
        self.bodies = world.bodies().len();
        Ok(())
    }

    /// Steps `world` and records the step and its events.
    pub fn step(&mut self, world: &mut World) {
        self.recorder.step(world);
        let events = self.detector.observe(world, std::mem::take(&mut self.acted));
        self.events.extend(events);
        self.bodies = world.bodies().len();
    }

    /// Steps recorded so far.
    pub fn steps(&self) -> u64 {
        self.recorder.recording().steps()
    }

    /// The state hash the recording started from.
    pub fn initial_hash(&self) -> u64 {
        self.initial_hash
    }

    /// The recording so far.
    pub fn recording(&self) -> &Recording {
        self.recorder.recording()
    }

    /// Whether `world` is still the world this tape has been recording (not reset or replaced).
    pub fn follows(&self, world: &World) -> bool {
        world.step_count() == self.steps() && world.bodies().len() == self.bodies
    }

    /// Ends the recording; returns it with its events.
    pub fn finish(self) -> (Recording, Vec<Event>) {
        (self.recorder.finish(), self.events)
    }
}
