//! The simulation the app drives: the world, the scene it came from, the fixed-step accumulator,
//! the mouse spring and the history of step profiles.

mod recording;

use super::SessionError;
use crate::dynamics::{Body, BodyKind, Material};
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Real, Vec3};
use crate::scene::{Scene, SceneError};
use crate::world::{Settings, StepProfile, World};
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// At most this many steps run in one frame, so a slow frame cannot start a spiral of ever more
/// catch-up steps.
pub const MAX_STEPS_PER_FRAME: u32 = 8;
/// Stepping stops for the frame once it has used this much wall time.
const STEP_BUDGET: Duration = Duration::from_millis(40);
/// A frame longer than this (a stall, a dragged window) counts as this long.
const MAX_FRAME_DT: f64 = 0.25;

/// The playback speeds offered, as a multiple of real time.
pub const SPEED_RANGE: std::ops::RangeInclusive<f32> = 0.01..=4.0;

/// Natural frequency (Hz) and damping ratio of the mouse spring; the spring is mass-normalised,
/// so every body follows the cursor the same way whatever its mass.
const DRAG_HZ: Real = 4.0;
const DRAG_DAMPING: Real = 0.9;
/// The spring's pull is capped at this acceleration (m/s²), so a far cursor cannot fling a body.
const DRAG_MAX_ACCEL: Real = 300.0;
/// Fraction of the held body's spin removed per second.
const DRAG_SPIN_DAMPING: Real = 5.0;

/// Radius (m) and density (kg/m³) of the spheres shot from the camera.
pub const SHOT_RADIUS: Real = 0.15;
const SHOT_DENSITY: Real = 3000.0;
/// Speed (m/s) the viewport shoots them at, along the ray under the cursor.
pub const SHOOT_SPEED: Real = 60.0;
/// Steps of the selected body's history kept for its plot: a minute at 60 Hz.
const TRACE_STEPS: usize = 3600;
/// Most bodies pinned to the inspector's plot at once.
pub const MAX_PINNED: usize = 4;

/// A body held by the mouse: a point fixed in the body is pulled toward `target`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Drag {
    /// The body held.
    pub body: usize,
    /// The point held, in body coordinates.
    pub local_anchor: Vec3,
    /// Where the mouse pulls it, in world space.
    pub target: Vec3,
}

/// The world, where it came from, and how it is being played.
pub struct Simulation {
    /// The world stepped.
    pub world: World,
    /// The scene as loaded; reset rebuilds the world from it.
    pub scene: Scene,
    /// The file the scene came from, if any.
    pub path: Option<PathBuf>,
    /// Whether the clock runs.
    pub playing: bool,
    /// Simulated seconds per real second.
    pub speed: f32,
    accumulator: f64,
    /// Set when the last frame could not run all the steps real time asked for.
    pub behind: bool,
    /// The body held by the mouse, if any.
    pub drag: Option<Drag>,
    /// The profiles of the last steps, for the profiler.
    pub history: History,
    shots: u32,
    /// Recording, the timeline's recording and an A/B partner (see [`super::timeline`]).
    pub record: super::timeline::RecordState,
    /// The selected body's history, for the inspector's plot.
    pub trace: crate::record::BodyTrace,
    /// The selected joint's history, for the inspector's plot.
    pub joint_trace: crate::record::JointTrace,
    /// Bodies pinned to the inspector's plot beside the selected one, each with its history.
    pub pinned: Vec<crate::record::BodyTrace>,
    /// Trails behind fast bodies and the selected one.
    pub trails: super::trails::Trails,
    /// "Pause at the next event": what the clock waits for.
    pub pause: super::pause::PauseWatch,
    /// Why the clock last paused by itself, shown until it plays again.
    pub paused_by: Option<String>,
    /// A lesson step's stop: the clock stops after the step that reaches it, which clears it.
    pub until: Option<super::pause::Until>,
    /// The start of the lesson step being played (its state and settings), which an A/B "from
    /// the start" begins from instead of the scene file's start; `None` outside a lesson.
    pub step_start: Option<Box<World>>,
}

impl Simulation {
    /// Builds the scene's world; paused, at speed 1.
    pub fn new(scene: Scene, path: Option<PathBuf>) -> Result<Self, SceneError> {
        let world = scene.build()?;
        Ok(Simulation {
            world,
            scene,
            path,
            playing: false,
            speed: 1.0,
            accumulator: 0.0,
            behind: false,
            drag: None,
            history: History::new(600),
            shots: 0,
            record: Default::default(),
            trace: crate::record::BodyTrace::new(TRACE_STEPS),
            joint_trace: crate::record::JointTrace::new(TRACE_STEPS),
            pinned: Vec::new(),
            trails: Default::default(),
            pause: Default::default(),
            paused_by: None,
            until: None,
            step_start: None,
        })
    }

    /// Reads a scene file and builds its world.
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let scene = Scene::load(path)?;
        Simulation::new(scene, Some(path.to_path_buf()))
    }

    /// Replaces the scene with another, keeping play state and what [`Simulation::adopt`]
    /// keeps. On error nothing changes.
    pub fn open(&mut self, path: &Path) -> Result<(), SceneError> {
        let next = Simulation::load(path)?;
        let playing = self.playing;
        self.adopt(next);
        self.playing = playing;
        Ok(())
    }

    /// Replaces this simulation with `next`, another scene's, keeping the user's choices:
    /// speed, the history length, "pause at", and the recording (a recording in progress
    /// stops and stays on the timeline, so it can still be scrubbed and saved). `next`'s play
    /// state stays.
    pub fn adopt(&mut self, mut next: Simulation) {
        next.speed = self.speed;
        next.history.set_capacity(self.history.capacity());
        next.record = self.take_recording_for_new_scene();
        next.pause.at = self.pause.at;
        *self = next;
    }

    /// Rebuilds the world from the scene, keeping the settings as they are now (so a tuned
    /// setting can be tried from the start). During an A/B both worlds go back to the A/B's
    /// start and stay in lockstep.
    pub fn reset(&mut self) -> Result<(), SessionError> {
        if self.record.partner.is_some() {
            self.reset_ab()?;
        } else {
            let mut world = self.scene.build()?;
            world.set_settings(self.world.settings.clone());
            self.world = world;
        }
        self.accumulator = 0.0;
        self.drag = None;
        self.history.clear();
        self.trace.clear();
        self.joint_trace.clear();
        self.pinned.iter_mut().for_each(crate::record::BodyTrace::clear);
        self.trails.clear();
        self.pause.clear();
        self.paused_by = None;
        self.until = None;
        Ok(())
    }

    /// Runs the steps real time asks for since the last frame, `frame_dt` seconds ago. Returns
    /// how many ran.
    pub fn advance(&mut self, frame_dt: f64) -> u32 {
        self.behind = false;
        if !self.playing {
            self.accumulator = 0.0;
            return 0;
        }
        let dt = self.world.settings.dt as f64;
        self.accumulator +=
            frame_dt.clamp(0.0, MAX_FRAME_DT) * self.speed.clamp(*SPEED_RANGE.start(), *SPEED_RANGE.end()) as f64;
        let start = Instant::now();
        let mut steps = 0;
        while self.accumulator >= dt && self.playing {
            if steps >= MAX_STEPS_PER_FRAME || (steps > 0 && start.elapsed() > STEP_BUDGET) {
                // Drop the debt rather than carry it: the simulation runs slower than real time.
                self.accumulator = 0.0;
                self.behind = true;
                break;
            }
            self.step_once();
            self.accumulator -= dt;
            steps += 1;
        }
        steps
    }

    /// One fixed step, with the mouse spring applied first, recorded in the history. While
    /// playing, the event waited for (see [`super::pause`]) stops the clock after its step.
    pub fn step_once(&mut self) {
        if let Some(drag) = self.drag {
            apply_drag(&mut self.world, &drag);
            self.record_drag(drag.body);
        }
        self.pause.before_step(&self.world);
        self.record_step();
        if let Some(what) = self.pause.after_step(&self.world) {
            if self.playing {
                self.playing = false;
                self.accumulator = 0.0;
            }
            self.paused_by = Some(format!("step {}: {what}", self.world.step_count()));
        }
        if let Some(what) = self.until.and_then(|u| u.reached(&self.world)) {
            self.until = None;
            self.playing = false;
            self.accumulator = 0.0;
            self.paused_by = Some(format!("step {}: {what}", self.world.step_count()));
        }
        self.history.push(self.world.step_count(), *self.world.profile());
        self.trace.observe(&self.world);
        self.joint_trace.observe(&self.world);
        for t in &mut self.pinned {
            t.observe(&self.world);
        }
        self.trails.observe(&self.world, self.trace.body());
    }

    /// Pins body `i` to the inspector's plot (its history from now on), or unpins it. At most
    /// [`MAX_PINNED`] bodies are pinned; pinning another drops the oldest.
    pub fn pin(&mut self, i: usize, on: bool) {
        self.pinned.retain(|t| t.body() != Some(i));
        if on && i < self.world.bodies().len() {
            if self.pinned.len() == MAX_PINNED {
                self.pinned.remove(0);
            }
            let mut t = crate::record::BodyTrace::new(TRACE_STEPS);
            t.follow(Some(i));
            self.pinned.push(t);
        }
    }

    /// Adds a fast bullet sphere at `origin` moving at `velocity`; returns its index.
    pub fn shoot(&mut self, origin: Vec3, velocity: Vec3) -> usize {
        self.shots += 1;
        let material = Material { restitution: 0.2, friction: 0.5, density: SHOT_DENSITY };
        let mut body =
            Body::new(BodyKind::Dynamic, Shape::sphere(SHOT_RADIUS), Pose::from_translation(origin), material)
                .with_velocity(velocity, Vec3::ZERO)
                .with_name(format!("shot {}", self.shots));
        body.bullet = true;
        self.add_shot(body)
    }

    /// Grabs a dynamic body at a point given in its own frame; other bodies cannot be dragged.
    pub fn start_drag(&mut self, body: usize, local_anchor: Vec3) {
        let Some(b) = self.world.bodies().get(body) else { return };
        if !b.is_dynamic() {
            return;
        }
        let target = b.pose.transform_point(local_anchor);
        self.drag = Some(Drag { body, local_anchor, target });
        self.touch_body(body);
    }

    /// Moves the held point's target.
    pub fn drag_to(&mut self, target: Vec3) {
        if let Some(d) = &mut self.drag
            && target.is_finite()
        {
            d.target = target;
        }
    }
}

/// Pulls the dragged point toward its target with a damped spring, integrated implicitly and
/// divided by the point's effective mass, so it is stable at any stiffness and anchor offset.
pub fn apply_drag(world: &mut World, drag: &Drag) {
    let Some(b) = world.bodies().get(drag.body) else { return };
    if !b.is_dynamic() || b.inv_mass() <= 0.0 {
        return;
    }
    let dt = world.settings.dt;
    let b = world.body_mut(drag.body);
    let anchor = b.pose.transform_point(drag.local_anchor);
    let r = anchor - b.pose.translation;
    let omega = std::f32::consts::TAU * DRAG_HZ;
    let (k, c) = (omega * omega, 2.0 * DRAG_DAMPING * omega);
    let x = drag.target - anchor;
    let v = b.velocity_at(anchor);
    // Implicit Euler of x'' = k x - c x': the velocity change that lands on the spring's path.
    let mut dv = (k * dt * x - (c * dt + k * dt * dt) * v) / (1.0 + c * dt + k * dt * dt);
    let max_dv = DRAG_MAX_ACCEL * dt;
    if dv.length() > max_dv {
        dv = dv.normalize() * max_dv;
    }
    let inv_i = b.inv_inertia_world();
    let skew = skew(r);
    let k_mat = Mat3::from_diagonal(Vec3::splat(b.inv_mass())) - skew * inv_i * skew;
    let impulse = k_mat.inverse() * dv;
    if !impulse.is_finite() {
        return;
    }
    b.linvel += impulse * b.inv_mass();
    b.angvel += inv_i * r.cross(impulse);
    // Spin damping: a body held off-centre would otherwise swing about the cursor for long.
    b.angvel *= 1.0 - (DRAG_SPIN_DAMPING * dt).min(0.5);
}

/// The matrix of `v ↦ r × v`.
fn skew(r: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, r.z, -r.y), Vec3::new(-r.z, 0.0, r.x), Vec3::new(r.y, -r.x, 0.0))
}

/// The last `capacity` step profiles, each with the step number it ended.
#[derive(Clone, Debug, Default)]
pub struct History {
    entries: VecDeque<(u64, StepProfile)>,
    capacity: usize,
    /// Settings changes: the step count when the change was made, the settings before it, and
    /// what changed.
    markers: VecDeque<(u64, Box<Settings>, String)>,
}

impl History {
    /// An empty history keeping at most `capacity` steps.
    pub fn new(capacity: usize) -> Self {
        History { entries: VecDeque::with_capacity(capacity), capacity: capacity.max(1), markers: VecDeque::new() }
    }

    /// Steps kept at most.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Changes how many steps are kept, dropping the oldest beyond it.
    pub fn set_capacity(&mut self, capacity: usize) {
        self.capacity = capacity.max(1);
        while self.entries.len() > self.capacity {
            self.entries.pop_front();
        }
    }

    /// Adds one step's profile, dropping the oldest past the capacity.
    pub fn push(&mut self, step: u64, profile: StepProfile) {
        if self.entries.len() == self.capacity {
            self.entries.pop_front();
        }
        self.entries.push_back((step, profile));
    }

    /// Forgets every step and marker.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.markers.clear();
    }

    /// Notes a change of the settings from `before` to `after` made when the world had taken
    /// `step` steps. Changes at one step (a slider dragged while paused) make one marker.
    pub fn mark(&mut self, step: u64, before: &Settings, after: &Settings) {
        let from = match self.markers.back() {
            Some((s, from, _)) if *s == step => {
                let from = from.clone();
                self.markers.pop_back();
                from
            }
            _ => Box::new(before.clone()),
        };
        let what = from.changes(after);
        if !what.is_empty() {
            self.markers.push_back((step, from, what.join(", ")));
        }
        // Markers older than the oldest kept step have scrolled out of the plot.
        let oldest = self.entries.front().map_or(0, |e| e.0);
        while self.markers.len() > 1 && self.markers.front().is_some_and(|m| m.0 < oldest) {
            self.markers.pop_front();
        }
    }

    /// The settings changes, oldest first: the step and what changed.
    pub fn markers(&self) -> impl Iterator<Item = (u64, &str)> {
        self.markers.iter().map(|(s, _, w)| (*s, w.as_str()))
    }

    /// Steps kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no step is kept.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The kept steps with their profiles, oldest first.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &(u64, StepProfile)> + ExactSizeIterator {
        self.entries.iter()
    }

    /// The newest step and its profile.
    pub fn last(&self) -> Option<&(u64, StepProfile)> {
        self.entries.back()
    }

    /// The history as CSV: [`StepProfile::CSV_HEADER`], then one row per step.
    pub fn to_csv(&self) -> String {
        let mut out = String::with_capacity(64 * (self.entries.len() + 1));
        out.push_str(StepProfile::CSV_HEADER);
        out.push('\n');
        for (step, p) in &self.entries {
            out.push_str(&p.csv_row(*step));
            out.push('\n');
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{BodyDesc, ShapeDesc};

    fn one_box() -> Simulation {
        let mut scene = Scene::default();
        scene.settings.gravity = Vec3::ZERO;
        scene.settings.sleeping = false;
        let mut b = BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(1.0, 0.5, 0.25) }, Vec3::ZERO);
        b.name = Some("box".into());
        scene.bodies.push(b);
        Simulation::new(scene, None).unwrap()
    }

    #[test]
    fn accumulator_runs_real_time_steps_and_caps_slow_frames() {
        let mut sim = one_box();
        assert_eq!(sim.advance(1.0), 0, "paused: nothing runs");
        sim.playing = true;
        // Four frames of a quarter step each make exactly one step.
        let dt = sim.world.settings.dt as f64;
        let steps: u32 = (0..4).map(|_| sim.advance(dt / 4.0 + 1e-9)).sum();
        assert_eq!(steps, 1);
        sim.speed = 2.0;
        assert_eq!(sim.advance(dt * 3.0 + 1e-9), 6);
        // A stall asks for 15 steps; only the cap runs and the debt is dropped.
        assert_eq!(sim.advance(0.25), MAX_STEPS_PER_FRAME);
        assert!(sim.behind);
        assert_eq!(sim.advance(0.0), 0);
        assert_eq!(sim.world.step_count(), 1 + 6 + MAX_STEPS_PER_FRAME as u64);
        assert_eq!(sim.history.len(), sim.world.step_count() as usize);
    }

    #[test]
    fn drag_spring_brings_an_off_centre_point_to_the_target() {
        let mut sim = one_box();
        let anchor = Vec3::new(0.9, 0.4, 0.2);
        sim.start_drag(0, anchor);
        let target = Vec3::new(2.0, 1.0, -1.0);
        sim.drag_to(target);
        for _ in 0..240 {
            sim.step_once();
        }
        let b = &sim.world.bodies()[0];
        let reached = b.pose.transform_point(anchor);
        assert!((reached - target).length() < 0.05, "anchor at {reached}, target {target}");
        assert!(b.linvel.length() < 0.1, "the spring is damped: speed {}", b.linvel.length());
    }

    #[test]
    fn static_bodies_cannot_be_dragged_and_shots_are_bullets() {
        let mut sim = one_box();
        sim.world.add_body(Body::new(BodyKind::Static, Shape::sphere(1.0), Pose::IDENTITY, Material::default()));
        sim.start_drag(1, Vec3::ZERO);
        assert!(sim.drag.is_none());
        let i = sim.shoot(Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.0, 0.0, -80.0));
        let b = &sim.world.bodies()[i];
        assert!(b.bullet && b.is_dynamic());
        assert_eq!(b.linvel, Vec3::new(0.0, 0.0, -80.0));
    }

    #[test]
    fn reset_keeps_tuned_settings_and_history_capacity_holds() {
        let mut sim = one_box();
        sim.world.set_settings(crate::world::Settings { substeps: 9, ..sim.world.settings.clone() });
        sim.step_once();
        sim.reset().unwrap();
        assert_eq!(sim.world.step_count(), 0);
        assert_eq!(sim.world.settings.substeps, 9);
        let mut h = History::new(3);
        for i in 0..5 {
            h.push(i, StepProfile::default());
        }
        assert_eq!(h.iter().map(|e| e.0).collect::<Vec<_>>(), vec![2, 3, 4]);
        let csv = h.to_csv();
        assert!(csv.starts_with("step,total_ms,"));
        assert_eq!(csv.lines().count(), 4);
    }
}
