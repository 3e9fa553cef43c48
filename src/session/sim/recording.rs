//! The recording, review, fork and A/B commands of a [`Simulation`], on the state the
//! session's [`timeline`](crate::session::timeline) holds.

use super::{SPEED_RANGE, Simulation};
use crate::dynamics::Body;
use crate::engine::Engine;
use crate::record::{Action, Recording};
use crate::scene::{BodyDesc, Scene};
use crate::session::timeline::{
    KEYFRAME_INTERVAL, Partner, RecordCommand, RecordState, Review, Tape, changed_settings, split_engine,
};
use crate::session::{SessionError, Status};
use crate::world::{Settings, World};
use std::path::Path;

impl Simulation {
    /// Whether a recording is being made.
    pub fn is_recording(&self) -> bool {
        self.record.tape.is_some()
    }

    /// Starts recording from the world as it is. A world that has run, or that differs from
    /// its scene, becomes a new scene at step 0 (same bodies and velocities), since a
    /// recording replays from a scene.
    pub fn start_recording(&mut self) -> Result<(), SessionError> {
        let pristine = self.world.step_count() == 0
            && self
                .scene
                .build()
                .is_ok_and(|w| w.bodies().len() == self.world.bodies().len() && w.hash() == self.world.hash());
        let scene = if pristine {
            Scene { settings: self.world.settings.clone(), ..self.scene.clone() }
        } else {
            let scene = Scene::from_world(&self.world, &self.scene);
            let world = scene.build()?;
            self.world = world;
            self.history.clear();
            scene
        };
        self.record.partner = None;
        if let Some(r) = &mut self.record.review {
            r.attached = false;
        }
        self.record.tape = Some(Tape::new(&scene, &self.world, KEYFRAME_INTERVAL));
        self.record.status = Some(Status::Done(if pristine {
            "Recording from the scene's start".into()
        } else {
            "Recording from the current state (now step 0)".into()
        }));
        Ok(())
    }

    /// Stops recording; the recording goes on the timeline, attached at its last step.
    pub fn stop_recording(&mut self) {
        let Some(tape) = self.record.tape.take() else { return };
        let initial = tape.initial_hash();
        let (rec, events) = tape.finish();
        let n = rec.steps();
        let fork_from = self.record.review.as_ref().and_then(|r| r.fork_from).filter(|_| self.record.partner.is_some());
        let mut review = Review::new(rec, events, initial, "new recording".into());
        review.fork_from = fork_from;
        review.attached = review.follows(&self.world);
        self.record.review = Some(review);
        self.record.status = Some(Status::Done(format!("Recorded {n} steps: scrub the timeline, or save it")));
    }

    /// The recording state to carry into a newly opened scene: a recording in progress stops
    /// and goes on the timeline, detached (the new world is not the recording's), and any A/B
    /// partner, which compares against the old world, is dropped.
    pub(crate) fn take_recording_for_new_scene(&mut self) -> RecordState {
        let recording = self.record.tape.is_some();
        self.stop_recording();
        let mut state = std::mem::take(&mut self.record);
        state.partner = None;
        state.side_by_side = false;
        if let Some(r) = &mut state.review {
            r.attached = false;
            state.status = Some(Status::Done(format!(
                "{} kept on the timeline ({} steps): scrub it to go back to it, or save it",
                if recording { "Recording stopped and" } else { "The recording is" },
                r.steps()
            )));
        }
        state
    }

    /// Stops the tape if the world it records was replaced (reset, scene opened).
    fn check_tape(&mut self) {
        if self.record.tape.as_ref().is_some_and(|t| !t.follows(&self.world)) {
            self.stop_recording();
            self.record.status = Some(Status::Failed("Recording stopped: the world was reset or replaced".into()));
        }
    }

    /// Applies a user action: recorded while recording; while the world follows the reviewed
    /// recording it first forks it there.
    pub fn user_action(&mut self, action: Action) -> Result<(), SessionError> {
        self.check_tape();
        if self.record.tape.is_none() && self.record.review.as_ref().is_some_and(|r| r.follows(&self.world)) {
            self.fork()?;
        }
        match &mut self.record.tape {
            Some(t) => t.apply(&mut self.world, action)?,
            None => action.apply(&mut self.world)?,
        }
        Ok(())
    }

    /// New settings from a panel; an error is shown in the timeline.
    pub fn user_settings(&mut self, settings: Settings) {
        if settings == self.world.settings {
            return;
        }
        if let Err(e) = self.user_action(Action::Settings(settings)) {
            self.record.status = Some(Status::failed(e));
        }
    }

    /// Adds a shot body; while recording (or reviewing) as an `AddBody` action. Returns its index.
    pub fn add_shot(&mut self, body: Body) -> usize {
        if self.record.tape.is_none() && self.record.review.is_none() {
            return self.world.add_body(body);
        }
        if let Err(e) = self.user_action(Action::AddBody(BodyDesc::from_body(&body))) {
            self.record.status = Some(Status::failed(e));
        }
        self.world.bodies().len() - 1
    }

    /// Wakes a body about to be dragged, recorded as a velocity action that changes nothing else.
    pub fn touch_body(&mut self, i: usize) {
        let Some(b) = self.world.bodies().get(i) else { return };
        if self.record.tape.is_none() && self.record.review.is_none() {
            self.world.body_mut(i);
            return;
        }
        let action = Action::Velocity { body: i as u32, linvel: b.linvel, angvel: b.angvel };
        if let Err(e) = self.user_action(action) {
            self.record.status = Some(Status::failed(e));
        }
    }

    /// Records the velocities the mouse spring just gave `body`.
    pub fn record_drag(&mut self, body: usize) {
        if self.record.tape.is_none() && self.record.review.is_none() {
            return;
        }
        let Some(b) = self.world.bodies().get(body) else { return };
        let action = Action::Velocity { body: body as u32, linvel: b.linvel, angvel: b.angvel };
        if let Err(e) = self.user_action(action) {
            self.record.status = Some(Status::failed(e));
        }
    }

    /// One step of the world: recorded, replayed from the timeline, or plain; then world A of
    /// an A/B comparison steps too.
    pub fn record_step(&mut self) {
        self.check_tape();
        if let Some(p) = &mut self.record.partner {
            p.keep_for_back(&self.world);
        }
        if let Some(t) = &mut self.record.tape {
            t.step(&mut self.world);
        } else if let Some(r) = self.record.review.as_mut().filter(|r| r.follows(&self.world)) {
            if r.cursor < r.steps() {
                if let Err(e) = r.step(&mut self.world) {
                    self.record.status = Some(Status::failed(e));
                }
            } else if self.playing && r.looping {
                self.seek(0);
                return;
            } else if self.playing {
                self.playing = false;
                return;
            } else {
                r.attached = false;
                self.world.step();
                self.record.status = Some(Status::Done("Past the end of the recording: running live".into()));
            }
        } else {
            self.world.step();
        }
        if let Some(p) = &mut self.record.partner {
            p.step_after(&self.world);
        }
    }

    /// Branches the reviewed recording at its cursor: the world becomes the fork (recorded from
    /// there on) and world A replays the original beside it.
    pub fn fork(&mut self) -> Result<(), SessionError> {
        if self.record.tape.is_some() {
            return Err(SessionError::ForkWhileRecording);
        }
        let Some(review) = &mut self.record.review else { return Err(SessionError::NothingToFork) };
        let n = review.cursor;
        let (tape, world) = Tape::fork(&review.recording, &review.events, n)?;
        review.attached = false;
        review.fork_from = Some(n);
        let original = review.recording.clone();
        self.record.partner = Some(Partner::replaying(world.clone(), original, &world));
        self.record.side_by_side = true;
        self.world = world;
        self.drag = None;
        self.record.tape = Some(tape);
        self.record.status =
            Some(Status::Done(format!("Forked at step {n}: B is the fork (recording), A replays the original")));
        Ok(())
    }

    /// Moves the world to the reviewed recording's state after `step` steps.
    pub fn seek(&mut self, step: u64) {
        if self.record.tape.is_some() {
            self.record.status = Some(Status::Failed("Stop recording to scrub the timeline".into()));
            return;
        }
        let Some(r) = &mut self.record.review else { return };
        match r.seek(step, &self.world) {
            Ok(w) => {
                self.world = w;
                self.drag = None;
                self.record.partner = None;
            }
            Err(e) => self.record.status = Some(Status::failed(e)),
        }
    }

    /// Applies a command from the timeline or the comparison view.
    pub fn apply_record(&mut self, c: RecordCommand) {
        match c {
            RecordCommand::ToggleRecording => {
                if self.is_recording() {
                    self.stop_recording();
                } else if let Err(e) = self.start_recording() {
                    self.record.status = Some(Status::failed(e));
                }
            }
            RecordCommand::Save(p) => self.save_recording(&p),
            RecordCommand::Open(p) => self.open_recording(&p),
            RecordCommand::Verify => self.verify_recording(),
            RecordCommand::Seek(s) => self.seek(s),
            RecordCommand::StepBack => {
                self.playing = false;
                if self.record.partner.is_some() && self.record.tape.is_none() {
                    self.ab_step_back();
                } else if let Some(r) = &self.record.review {
                    let at = if r.follows(&self.world) { r.cursor } else { self.world.step_count().min(r.steps()) };
                    self.seek(at.saturating_sub(1));
                }
            }
            RecordCommand::SetLooping(on) => {
                if let Some(r) = &mut self.record.review {
                    r.looping = on;
                }
            }
            RecordCommand::SetSpeed(s) => self.speed = s.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end()),
            RecordCommand::Fork => {
                if let Err(e) = self.fork() {
                    self.record.status = Some(Status::failed(e));
                }
            }
            RecordCommand::StartAb { from_start } => {
                if let Err(e) = self.start_ab(from_start) {
                    self.record.status = Some(Status::failed(e));
                }
            }
            RecordCommand::StartAbPeer { engine, from_start } => {
                if let Err(e) = self.start_ab_peer(engine, from_start) {
                    self.record.status = Some(Status::failed(e));
                }
            }
            RecordCommand::CloseAb => {
                // The comparison's messages end with it.
                self.record.partner = None;
                self.record.side_by_side = false;
                self.record.status = None;
            }
            RecordCommand::SideBySide(on) => self.record.side_by_side = on,
            RecordCommand::PartnerSettings(s) => match (s.validate(), &mut self.record.partner) {
                (Ok(()), Some(p)) => p.set_settings(*s),
                (Err(e), _) => self.record.status = Some(Status::failed(e)),
                _ => {}
            },
            RecordCommand::Show { recording, events, initial_hash, name } => {
                if self.record.tape.is_some() {
                    self.record.status =
                        Some(Status::Failed("Stop recording to put another run on the timeline".into()));
                    return;
                }
                let n = recording.steps();
                let mut review = Review::new(recording, events, initial_hash, name.clone());
                review.attached = false;
                self.record.review = Some(review);
                self.record.partner = None;
                self.record.side_by_side = false;
                self.record.status = Some(Status::Done(format!("{name} ({n} steps) is on the timeline")));
            }
            RecordCommand::CloseReview => {
                self.record.review = None;
                self.record.partner = None;
                self.record.side_by_side = false;
                self.record.status = None;
            }
        }
    }

    /// Starts an A/B comparison from the scene's start in which B (the app's world) runs with
    /// `changes` (setting name, RON value) applied over the scene file's settings and A with the
    /// file's settings: edits made before do not carry into either side. In a lesson, the
    /// step's start and settings stand in for the file's.
    /// On error (an unknown setting or a bad value, named) nothing changes.
    /// `engine=rapier` or `engine=jolt` among the changes puts that engine on the B side
    /// instead, with the app's world (A) running the other changes.
    pub fn start_compare(&mut self, changes: &[(String, String)]) -> Result<(), SessionError> {
        let (peer, changes) = split_engine(changes)?;
        if let Some(engine) = peer {
            let a = changed_settings(&self.start_settings(), &changes)?;
            self.start_ab_peer(engine, true)?;
            self.user_settings(a.clone());
            let mut label = "";
            if let Some(p) = &mut self.record.partner {
                p.set_settings(a);
                label = p.engine_label();
            }
            self.record.status = Some(Status::Done(format!(
                "A/B from the start: A is Collidoscope (the app's world), B is {label} on the same scene"
            )));
            return Ok(());
        }
        let changes = &changes[..];
        let b = changed_settings(&self.start_settings(), changes)?;
        self.start_ab(true)?;
        self.user_settings(b);
        let what: Vec<String> = changes.iter().map(|(f, v)| format!("{f} = {v}")).collect();
        self.record.status = Some(Status::Done(format!("A/B from the start: B has {}", what.join(", "))));
        Ok(())
    }

    /// The settings an A/B from the start gives A: the lesson step's, else the scene file's.
    fn start_settings(&self) -> Settings {
        self.step_start.as_ref().map_or_else(|| self.scene.settings.clone(), |w| w.settings.clone())
    }

    /// The world an A/B from the start begins with: the lesson step's start, else the scene
    /// file's.
    fn start_world(&self) -> Result<World, SessionError> {
        Ok(match &self.step_start {
            Some(w) => (**w).clone(),
            None => self.scene.build()?,
        })
    }

    /// Starts an A/B comparison with A a copy of the world now, or from the start (the scene's,
    /// or in a lesson the step's): A with the start's settings (the scene file's or the step's),
    /// B (the app's world) with the settings it has now. On error nothing changes.
    pub fn start_ab(&mut self, from_start: bool) -> Result<(), SessionError> {
        if from_start {
            let a = self.start_world()?;
            self.stop_recording();
            let mut b = a.clone();
            b.set_settings(self.world.settings.clone());
            self.world = b;
            self.history.clear();
            self.drag = None;
            self.record.partner = Some(Partner::beside(a, &self.world));
            self.record.side_by_side = true;
            self.record.status = Some(Status::Done("A/B: change B's settings; both step together".into()));
            return Ok(());
        }
        self.record.partner = Some(Partner::copy_of(&self.world));
        self.record.side_by_side = true;
        self.record.status = Some(Status::Done("A/B: change B's settings; both step together".into()));
        Ok(())
    }

    /// Starts an A/B comparison with the peer engine `engine` (`rapier` or `jolt`) on the B
    /// side, from the world now or from the scene's start; the app's world is A. On error
    /// nothing changes.
    pub fn start_ab_peer(&mut self, engine: Engine, from_start: bool) -> Result<(), SessionError> {
        #[cfg(feature = "rapier")]
        if engine.built() {
            let e = engine;
            // The engine takes B's world as start_ab will leave it, before anything changes.
            let b = if from_start {
                let mut b = self.start_world()?;
                b.set_settings(self.world.settings.clone());
                b
            } else {
                self.world.clone()
            };
            let partner = Partner::peer_of(e, &b)
                .map_err(|err| SessionError::PeerRefused { engine: e.label(), error: err.to_string() })?;
            self.start_ab(from_start)?;
            self.record.partner = Some(partner);
            self.record.status = Some(Status::Done(format!(
                "A/B: A is Collidoscope (the app's world), B is {}; both step together",
                e.label()
            )));
            return Ok(());
        }
        let _ = from_start;
        Err(SessionError::NoEngine { engine })
    }

    /// Puts both worlds of the A/B back at its start, each keeping the settings it has now, and
    /// keeps them in lockstep. A fork starts over from its branch point, B with its settings.
    pub(crate) fn reset_ab(&mut self) -> Result<(), SessionError> {
        let Some(p) = &self.record.partner else { return Err(SessionError::NoAb) };
        let settings = self.world.settings.clone();
        let fork = self.record.review.as_ref().and_then(|r| r.fork_from).filter(|_| self.record.tape.is_some());
        if let Some(n) = fork {
            self.record.tape = None;
            if let Some(r) = &mut self.record.review {
                r.cursor = n;
            }
            self.fork()?;
            self.user_settings(settings);
        } else {
            let (partner, mut b) = p.restarted();
            b.set_settings(settings);
            self.world = b;
            self.record.partner = Some(partner);
            // The partner measured against B's start; measure against B now (its settings set).
            if let Some(p) = &mut self.record.partner {
                p.measure(&self.world);
            }
        }
        self.record.status = Some(Status::Done("A/B reset: both worlds back at its start, still in lockstep".into()));
        Ok(())
    }

    /// One lockstep step back for both A and B.
    fn ab_step_back(&mut self) {
        let Some(p) = &mut self.record.partner else { return };
        match p.step_back() {
            Some(b) => {
                self.world = b;
                self.drag = None;
            }
            None => {
                self.record.status = Some(Status::Failed(if p.is_peer() {
                    format!("Back is not available with {} on the B side: R starts both over", p.engine_label())
                } else {
                    "No earlier step of the A/B is kept: R starts both over".into()
                }))
            }
        }
    }

    /// Writes the recording in progress, or the one on the timeline, atomically.
    pub fn save_recording(&mut self, path: &Path) {
        let rec: Option<&Recording> = match (&self.record.tape, &self.record.review) {
            (Some(t), _) => Some(t.recording()),
            (None, Some(r)) => Some(&r.recording),
            _ => None,
        };
        let Some(rec) = rec else {
            self.record.status = Some(Status::Failed("Nothing to save: record first".into()));
            return;
        };
        let saved = rec.save(path).map(|()| rec.steps());
        if saved.is_ok()
            && self.record.tape.is_none()
            && let Some(r) = &mut self.record.review
        {
            r.name = crate::session::file_label(path);
        }
        self.record.status = Some(Status::of(saved, |n| format!("Saved {n} steps to {}", path.display())));
    }

    /// Opens a recording onto the timeline, at step 0. On error the current state stays and the
    /// error (with `FILE:LINE:COL`) is shown.
    pub fn open_recording(&mut self, path: &Path) {
        let opened = Recording::load(path).and_then(|rec| {
            let scene = rec.scene.clone();
            Review::open(rec, crate::session::file_label(path)).map(|(r, w, problem)| (r, w, problem, scene))
        });
        match opened {
            Ok((review, world, problem, scene)) => {
                self.record.tape = None;
                self.record.partner = None;
                let n = review.steps();
                self.record.review = Some(review);
                self.scene = scene;
                // A lesson step's start belongs to the lesson's scene, not the recording's.
                self.step_start = None;
                self.path = None;
                self.world = world;
                self.playing = false;
                self.drag = None;
                self.history.clear();
                self.record.status = Some(match problem {
                    None => Status::Done(format!("Opened {} ({n} steps)", path.display())),
                    Some(p) => Status::Failed(format!("{}: {p}", path.display())),
                });
            }
            Err(e) => self.record.status = Some(Status::failed(e)),
        }
    }

    /// Replays the recording on the timeline (or in progress) and checks every hash.
    pub fn verify_recording(&mut self) {
        let result = match (&self.record.tape, &self.record.review) {
            (Some(t), _) => Some(t.recording().verify()),
            (None, Some(r)) => Some(r.recording.verify()),
            _ => None,
        };
        self.record.status = Some(match result {
            None => Status::Failed("Nothing to verify: record or open a recording first".into()),
            Some(verified) => Status::of(verified, |n| format!("verified {n} steps")),
        });
    }
}
