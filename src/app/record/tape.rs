//! A recording in progress: every step through [`Recorder::step`], every user action through
//! [`Recorder::apply`], and the timeline events the steps produced.

use crate::record::{Action, Event, EventDetector, Recorder, Recording};
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

    /// Re-records the first `step` steps of `original` (its actions, checking every hash) and
    /// returns the tape with the world as it was after them: the start of a fork.
    pub fn fork(original: &Recording, step: u64) -> Result<(Tape, World), String> {
        let mut world = original.scene.build().map_err(|e| e.to_string())?;
        let mut tape = Tape::new(&original.scene, &world, original.keyframe_interval);
        let mut actions = original.actions.iter().peekable();
        for s in 0..step.min(original.steps()) {
            while let Some(a) = actions.next_if(|a| a.step == s) {
                tape.apply(&mut world, a.action.clone())
                    .map_err(|e| format!("step {s}: recorded action failed: {e}"))?;
            }
            tape.step(&mut world);
            let expected = original.hashes[s as usize];
            if world.hash() != expected {
                return Err(format!(
                    "the recording does not replay: step {} hashed {:016x}, recorded {expected:016x}",
                    s + 1,
                    world.hash()
                ));
            }
        }
        Ok((tape, world))
    }

    /// Applies a user action to `world` and records it; on error nothing changes.
    pub fn apply(&mut self, world: &mut World, action: Action) -> Result<(), String> {
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

    pub fn steps(&self) -> u64 {
        self.recorder.recording().steps()
    }

    pub fn initial_hash(&self) -> u64 {
        self.initial_hash
    }

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
