//! Plays a lesson on a [`Simulation`]: enters steps (their start state, then their settings),
//! keeps each step's start as a snapshot so Back and Restart are exact, arms and watches each
//! step's run, and holds the class's answers to the predictions.

use super::{Lesson, LessonError, PairIteration, Run, Start, Step, apply_settings};
use crate::scene::{CameraDesc, Scene};
use crate::session::Simulation;
use crate::session::pause::{PauseAt, Until};
use crate::world::Snapshot;

/// Where the current step's run is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Not started (a step that does not run stays here).
    Ready,
    /// Running, or paused by the user before its stop.
    Running,
    /// Its stop was reached.
    Done,
}

/// What the app changes in its view when a step starts (the engine side is already applied).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewChange {
    /// Where the camera goes.
    pub camera: Option<CameraDesc>,
    /// The layers on (all others off).
    pub layers: Option<Vec<String>>,
    /// Static bodies see-through or solid.
    pub see_through: Option<bool>,
    /// Panels to bring forward, by name.
    pub panels: Vec<String>,
    /// The body to select.
    pub highlight: Option<usize>,
    /// The body whose contact with the highlighted one the Pair panel shows.
    pub partner: Option<usize>,
    /// The Inspector's plot series (an index into `record::TRACE_SERIES`).
    pub plot: Option<usize>,
    /// The Pair panel's GJK or EPA iteration to show.
    pub pair_iteration: Option<PairIteration>,
}

/// A step's run that did not reach its stop within the steps a run may take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("the run {} did not stop within {steps} steps", .run.describe())]
pub struct RunDidNotStop {
    /// The run.
    pub run: Run,
    /// The steps it was given ([`super::MAX_RUN_STEPS`]).
    pub steps: u64,
}

/// A lesson being played.
pub struct Player {
    /// The lesson.
    pub lesson: Lesson,
    scene: Scene,
    step: usize,
    /// Each visited step's start, after its settings: what Back and Restart restore.
    starts: Vec<Option<Snapshot>>,
    /// The class's answer to each step's prediction.
    answers: Vec<Option<usize>>,
    phase: Phase,
    /// The step count the run stops at (`Steps`, `Seconds`).
    target: Option<u64>,
    /// What "pause at" was before the run borrowed it for an event.
    pause_before: PauseAt,
    /// Why the last run stopped (the engine's words), shown with the outcome.
    pub stopped_by: Option<String>,
}

impl Player {
    /// A player for `lesson` and its loaded scene, before its first step.
    pub fn new(lesson: Lesson, scene: Scene) -> Self {
        let n = lesson.steps.len();
        Player {
            lesson,
            scene,
            step: 0,
            starts: vec![None; n],
            answers: vec![None; n],
            phase: Phase::Ready,
            target: None,
            pause_before: PauseAt::Never,
            stopped_by: None,
        }
    }

    /// The step shown (from 0).
    pub fn step(&self) -> usize {
        self.step
    }

    /// The step shown.
    pub fn current(&self) -> &Step {
        &self.lesson.steps[self.step]
    }

    /// The steps in the lesson.
    pub fn len(&self) -> usize {
        self.lesson.steps.len()
    }

    /// Whether the lesson has no steps (a checked lesson always has some).
    pub fn is_empty(&self) -> bool {
        self.lesson.steps.is_empty()
    }

    /// The run's phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The class's answer to the step's prediction.
    pub fn answer(&self) -> Option<usize> {
        self.answers[self.step]
    }

    /// The start state of step `k`, once visited.
    pub fn start_of(&self, k: usize) -> Option<&Snapshot> {
        self.starts.get(k).and_then(Option::as_ref)
    }

    /// Records the class's answer; only before the run.
    pub fn set_answer(&mut self, choice: usize) {
        let ok = self.current().prediction.as_ref().is_some_and(|p| choice < p.choices.len());
        if ok && self.phase == Phase::Ready {
            self.answers[self.step] = Some(choice);
        }
    }

    /// Whether the run must wait for an answer.
    pub fn awaits_answer(&self) -> bool {
        self.current().prediction.is_some() && self.answer().is_none()
    }

    /// A simulation of the lesson's scene at step `k` (from 0): the earlier steps are entered
    /// and run to their stops on the way, so the step starts where the lesson brings it.
    pub fn start(&mut self, k: usize) -> Result<(Simulation, ViewChange), LessonError> {
        self.lesson.check_step(k)?;
        let mut sim = Simulation::new(self.scene.clone(), self.lesson.scene_path()).map_err(|e| self.scene_error(e))?;
        self.starts.iter_mut().for_each(|s| *s = None);
        self.answers.iter_mut().for_each(|a| *a = None);
        self.phase = Phase::Ready;
        let mut view = self.enter(&mut sim, 0)?;
        while self.step < k {
            view = self.next(&mut sim)?.expect("a later step exists");
        }
        Ok((sim, view))
    }

    /// Inserts `step` at `at` (after a lesson file gained it): it has no kept start yet.
    pub fn insert_step(&mut self, at: usize, step: Step) {
        let at = at.min(self.len());
        self.lesson.steps.insert(at, step);
        self.starts.insert(at, None);
        self.answers.insert(at, None);
        if at <= self.step && self.len() > 1 {
            self.step += 1;
        }
    }

    /// The lesson's scene as loaded.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    fn scene_error(&self, e: crate::scene::SceneError) -> LessonError {
        LessonError::Scene { path: self.lesson.file.clone().unwrap_or_default(), source: Box::new(e) }
    }

    /// Enters step `k` from the state the simulation is in: its start, then its settings.
    fn enter(&mut self, sim: &mut Simulation, k: usize) -> Result<ViewChange, LessonError> {
        let step = self.lesson.steps[k].clone();
        match &step.start {
            Start::Continue if k > 0 => {}
            Start::Continue | Start::SceneStart => {
                let mut world = self.scene.build().map_err(|e| self.scene_error(e))?;
                world.set_threads(sim.world.threads());
                sim.world = world;
            }
            Start::Snapshot(snap) => {
                sim.world
                    .restore(snap)
                    .map_err(|e| self.lesson.invalid(format!("steps[{k}].start.Snapshot"), e.to_string()))?;
            }
        }
        let settings = apply_settings(&sim.world.settings, &step.settings)
            .map_err(|e| self.lesson.invalid(format!("steps[{k}].settings.{}", e.name), e.source.to_string()))?;
        sim.world.set_settings(settings);
        sim.step_start = Some(Box::new(sim.world.clone()));
        self.starts[k] = Some(sim.world.snapshot());
        self.step = k;
        self.settle(sim);
        Ok(self.view_change(sim))
    }

    /// Stops the clock and forgets the last run: the state just set is the step's start.
    fn settle(&mut self, sim: &mut Simulation) {
        sim.playing = false;
        sim.until = None;
        sim.drag = None;
        if self.phase == Phase::Running {
            sim.pause.at = self.pause_before;
        }
        sim.pause.clear();
        sim.paused_by = None;
        sim.history.clear();
        sim.trace.clear();
        sim.trails.clear();
        self.phase = Phase::Ready;
        self.target = None;
        self.stopped_by = None;
    }

    /// The view of the current step, with body names resolved in the world.
    pub fn view_change(&self, sim: &Simulation) -> ViewChange {
        let step = self.current();
        let find = |name: &Option<String>| {
            name.as_ref().and_then(|n| sim.world.bodies().iter().position(|b| b.name.as_deref() == Some(n.as_str())))
        };
        ViewChange {
            camera: step.camera,
            layers: step.layers.clone(),
            see_through: step.see_through,
            panels: step.panels.clone(),
            highlight: find(&step.highlight),
            partner: find(&step.partner),
            plot: step.plot.as_ref().and_then(|p| super::plot_names().iter().position(|n| n == p)),
            pair_iteration: step.pair_iteration,
        }
    }

    /// Whether the Pair panel's trace of the step's pair, where the bodies are now (the step's
    /// start, once entered) and with the world's narrow-phase method, has the step's
    /// `pair_iteration`. The error names the step, the pair and the iterations there are.
    pub fn check_pair_iteration(&self, sim: &Simulation) -> Result<(), LessonError> {
        let view = self.view_change(sim);
        let (Some(it), Some(a), Some(b)) = (view.pair_iteration, view.highlight, view.partner) else {
            return Ok(());
        };
        let Some(trace) = sim.world.explain_pair(a, b, sim.world.settings.narrow_phase) else { return Ok(()) };
        let ((name, k), have) = (it.parts(), it.available(&trace));
        if k < have {
            return Ok(());
        }
        let step = self.current();
        let pair =
            format!("{} and {}", step.highlight.as_deref().unwrap_or("?"), step.partner.as_deref().unwrap_or("?"));
        let there = match have {
            0 => format!("no {name} iterations"),
            n => format!("{name} iterations 0 to {}", n - 1),
        };
        Err(self.lesson.invalid(
            format!("steps[{}].pair_iteration", self.step),
            format!("{name} iteration {k} does not exist: the trace of {pair} at this step's start has {there}"),
        ))
    }

    /// The next step: the current step's run is finished first (headless, to its stop) when the
    /// next one continues from it. `None` on the last step.
    pub fn next(&mut self, sim: &mut Simulation) -> Result<Option<ViewChange>, LessonError> {
        if self.step + 1 >= self.len() {
            return Ok(None);
        }
        if self.lesson.steps[self.step + 1].start == Start::Continue && self.phase != Phase::Done {
            self.finish(sim).map_err(|e| self.lesson.invalid(format!("steps[{}].run", self.step), e.to_string()))?;
        }
        self.enter(sim, self.step + 1).map(Some)
    }

    /// The previous step, from its start exactly as it was entered. `None` on the first step.
    pub fn back(&mut self, sim: &mut Simulation) -> Result<Option<ViewChange>, LessonError> {
        if self.step == 0 {
            return Ok(None);
        }
        self.restore(sim, self.step - 1).map(Some)
    }

    /// The current step again from its start.
    pub fn restart(&mut self, sim: &mut Simulation) -> Result<ViewChange, LessonError> {
        self.restore(sim, self.step)
    }

    /// Goes to step `k`: an earlier visited step from its kept start, a later one through Next.
    pub fn go_to(&mut self, sim: &mut Simulation, k: usize) -> Result<ViewChange, LessonError> {
        if k <= self.step {
            return self.restore(sim, k);
        }
        let mut view = self.view_change(sim);
        while self.step < k.min(self.len() - 1) {
            view = self.next(sim)?.expect("a later step exists");
        }
        Ok(view)
    }

    fn restore(&mut self, sim: &mut Simulation, k: usize) -> Result<ViewChange, LessonError> {
        let Some(snap) = self.starts[k].clone() else { return self.enter(sim, k) };
        sim.world.restore(&snap).map_err(|e| self.lesson.invalid(format!("steps[{k}]"), e.to_string()))?;
        self.step = k;
        self.settle(sim);
        Ok(self.view_change(sim))
    }

    /// Starts the step's run: arms its stop and plays. Refused (with the reason) while the
    /// prediction waits for an answer, or when the step does not run.
    pub fn start_run(&mut self, sim: &mut Simulation) -> Result<(), &'static str> {
        if self.awaits_answer() {
            return Err("answer the prediction first");
        }
        let run = self.current().run;
        if run == Run::Paused {
            return Err("this step does not run");
        }
        if self.phase == Phase::Done {
            return Err("the run is over: Restart step runs it again");
        }
        if self.phase == Phase::Ready {
            self.arm(sim, run);
        }
        sim.playing = true;
        sim.paused_by = None;
        Ok(())
    }

    fn arm(&mut self, sim: &mut Simulation, run: Run) {
        let now = sim.world.step_count();
        self.target = match run {
            Run::Steps(n) => Some(now + n),
            Run::Seconds(s) => Some(now + ((s / sim.world.settings.dt).round() as u64).max(1)),
            _ => None,
        };
        sim.until = match run {
            Run::AllAsleep => Some(Until::AllAsleep),
            _ => self.target.map(Until::Step),
        };
        self.pause_before = sim.pause.at;
        sim.pause.clear();
        match run {
            Run::FirstContact => sim.pause.at = PauseAt::FirstContact,
            Run::Toi => sim.pause.at = PauseAt::Toi,
            _ => {}
        }
        self.phase = Phase::Running;
    }

    /// Whether the running step has reached its stop.
    fn reached(&self, sim: &Simulation) -> bool {
        match self.current().run {
            Run::Steps(_) | Run::Seconds(_) => self.target.is_some_and(|t| sim.world.step_count() >= t),
            Run::AllAsleep => crate::session::pause::all_asleep(&sim.world),
            Run::FirstContact | Run::Toi => sim.paused_by.is_some(),
            Run::Paused | Run::Free => false,
        }
    }

    /// Call every frame before the simulation advances: holds the clock while the prediction
    /// waits, arms the run when Play is pressed outside the lesson panel, and notes the stop.
    pub fn frame(&mut self, sim: &mut Simulation) {
        match self.phase {
            Phase::Ready if sim.playing => {
                let run = self.current().run;
                if self.awaits_answer() {
                    sim.playing = false;
                } else if run != Run::Paused {
                    self.arm(sim, run);
                }
            }
            Phase::Running if self.reached(sim) => self.done(sim),
            _ => {}
        }
    }

    fn done(&mut self, sim: &mut Simulation) {
        self.phase = Phase::Done;
        sim.playing = false;
        sim.until = None;
        sim.pause.at = self.pause_before;
        self.stopped_by = sim.paused_by.clone();
    }

    /// Runs the step to its stop without a window (Next does so before a step that continues
    /// from this one). A step that does not run, or runs freely, is left as it is. Errors when
    /// the stop is not reached within [`super::MAX_RUN_STEPS`] steps.
    pub fn finish(&mut self, sim: &mut Simulation) -> Result<(), RunDidNotStop> {
        let run = self.current().run;
        if !run.stops() || self.phase == Phase::Done {
            return Ok(());
        }
        if self.phase == Phase::Ready {
            self.arm(sim, run);
        }
        let limit = sim.world.step_count() + super::MAX_RUN_STEPS;
        while !self.reached(sim) {
            if sim.world.step_count() >= limit {
                self.settle(sim);
                return Err(RunDidNotStop { run, steps: super::MAX_RUN_STEPS });
            }
            sim.step_once();
        }
        self.done(sim);
        Ok(())
    }
}
