//! From a symptom to its cause and a fix that was tried: runs a case, finds the events worth a
//! bug report (tunneling, jitter, energy gained, deep penetration, an explosion, a non-finite
//! body, ghost bumps on a mesh, bodies far from the origin), measures the cause of each, and
//! re-runs the case from the snapshot before the event with each fix the cause suggests,
//! reporting whether the event went away and what the fix costs per step.

use crate::BodyKind;
use crate::math::{Real, Vec3};
use crate::record::{EventDetector, EventKind};
use crate::scene::{Scene, SceneError};
use crate::settings::SettingsError;
use crate::sweep::{Crossings, Passings};
use crate::world::{Snapshot, SnapshotError, World};
use serde::Serialize;

mod shrink;
pub use shrink::{ShrinkError, Shrunk, shrink};

/// Why a case could not be diagnosed.
#[derive(Debug, thiserror::Error)]
pub enum DiagnoseError {
    /// The scene builds no world.
    #[error(transparent)]
    Scene(#[from] SceneError),
    /// A snapshot taken during the run could not be restored.
    #[error("restoring the snapshot of step {step}: {error}")]
    Snapshot {
        /// The snapshot's step.
        step: u64,
        /// Why.
        error: SnapshotError,
    },
    /// A fix's setting could not be applied.
    #[error("fix {field}={value}: {error}")]
    Setting {
        /// The setting.
        field: String,
        /// Its value, as RON.
        value: String,
        /// Why.
        error: Box<SettingsError>,
    },
}

/// What went wrong in a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Symptom {
    /// A dynamic body's centre passed through a static body.
    Tunneling,
    /// A dynamic body's centre passed through another dynamic body.
    Passing,
    /// A resting body jitters: a contact switched on and off repeatedly, or a body in contact
    /// stayed in place for seconds without coming to rest.
    Jitter,
    /// Mechanical energy rose with nothing acting.
    EnergyGain,
    /// Two bodies overlap far beyond the slop.
    DeepPenetration,
    /// A body's speed jumped within one step beyond what gravity and its contacts can give it.
    Explosion,
    /// A body's state became NaN or infinite.
    NonFinite,
    /// A body touching a mesh was kicked up, or its contact normal jumped.
    GhostBump,
    /// A body so far from the origin that f32 positions are coarser than the slop.
    FarFromOrigin,
}

impl Symptom {
    /// Every symptom.
    pub const ALL: [Symptom; 9] = [
        Symptom::Tunneling,
        Symptom::Passing,
        Symptom::Jitter,
        Symptom::EnergyGain,
        Symptom::DeepPenetration,
        Symptom::Explosion,
        Symptom::NonFinite,
        Symptom::GhostBump,
        Symptom::FarFromOrigin,
    ];

    /// The symptom's name on the command line and in JSON.
    pub fn cli_name(self) -> &'static str {
        match self {
            Symptom::Tunneling => "tunneling",
            Symptom::Passing => "passing",
            Symptom::Jitter => "jitter",
            Symptom::EnergyGain => "energy_gain",
            Symptom::DeepPenetration => "deep_penetration",
            Symptom::Explosion => "explosion",
            Symptom::NonFinite => "non_finite",
            Symptom::GhostBump => "ghost_bump",
            Symptom::FarFromOrigin => "far_from_origin",
        }
    }

    /// The symptom a timeline event shows, if it is one (a new contact or a body falling
    /// asleep is not; a large jump only suspects tunneling).
    pub fn of_event(kind: EventKind) -> Option<Symptom> {
        Some(match kind {
            EventKind::ContactFlicker | EventKind::Restless => Symptom::Jitter,
            EventKind::EnergySpike => Symptom::EnergyGain,
            EventKind::DeepPenetration => Symptom::DeepPenetration,
            EventKind::NonFinite => Symptom::NonFinite,
            EventKind::GhostBump => Symptom::GhostBump,
            EventKind::Toi | EventKind::FellAsleep | EventKind::NewContact | EventKind::LargeJump => return None,
        })
    }

    /// Whether the symptom's events have one size to order them by ([`Event::size`]). A ghost
    /// bump is a kick (m/s) or a turn of the normal (°): no one size orders both.
    pub fn sized(self) -> bool {
        matches!(self, Symptom::DeepPenetration | Symptom::Explosion | Symptom::EnergyGain | Symptom::FarFromOrigin)
    }

    /// How the event [`diagnose`] picks of the symptom's is named: by its size ("the
    /// deepest"), or "the first" for a symptom without one.
    pub fn worst(self) -> &'static str {
        match self {
            Symptom::DeepPenetration => "the deepest",
            Symptom::Explosion | Symptom::EnergyGain => "the largest",
            Symptom::FarFromOrigin => "the farthest",
            _ => "the first",
        }
    }

    /// The symptom's name in reports.
    pub fn label(self) -> &'static str {
        match self {
            Symptom::Tunneling => "tunneling",
            Symptom::Passing => "passing another body",
            Symptom::Jitter => "jitter",
            Symptom::EnergyGain => "energy gained",
            Symptom::DeepPenetration => "deep penetration",
            Symptom::Explosion => "explosion",
            Symptom::NonFinite => "non-finite state",
            Symptom::GhostBump => "ghost bump",
            Symptom::FarFromOrigin => "far from the origin",
        }
    }
}

/// One occurrence of a symptom.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Event {
    /// What went wrong.
    pub symptom: Symptom,
    /// The step that ended with it (0: the scene as built).
    pub step: u64,
    /// The bodies involved, the one it happened to first.
    pub bodies: Vec<u32>,
    /// What was seen, in words.
    pub detail: String,
    /// How large it was, in the symptom's own unit (a deep penetration's depth in m, an
    /// explosion's gain of speed in m/s, the energy gained in J, a far body's coordinate in m);
    /// 0 for the symptoms without a size (tunneling, passing, jitter, a non-finite state, a
    /// ghost bump), whose first event is the one diagnosed.
    pub size: Real,
}

/// What a measured cause is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CauseKind {
    /// A body moves farther in a step than the thinner shape is thick, with CCD off.
    FastAndThinWithoutCcd,
    /// A body moves farther in a step than it ends up deep in another, with CCD off: one
    /// step's motion carried it in.
    FastWithoutCcd,
    /// A body below the CCD speed threshold moves farther in a step than the thinner shape.
    UnderCcdThreshold,
    /// A body slower than one step through the thinnest shape passed through a wall with CCD
    /// on: the weight on it pressed it through (when no stack cause fits).
    PressedThrough,
    /// Two dynamic bodies close on each other farther in a step than the thinner is thick,
    /// and the CCD mode does not stop them.
    FastRelativeMotion,
    /// Warm starting is off, so impulses restart from zero every step in a stack.
    WarmStartingOff,
    /// A heavy body rests on much lighter ones.
    MassRatio,
    /// Too few solver iterations for the height of the stack.
    TooFewIterations,
    /// Energy gained the step after an impact on a body that joints hold: the impact's
    /// warm-started contact impulse, carried by the joints to the bodies they hold.
    ImpactOnJoints,
    /// Raw triangle contacts on a mesh's internal edges.
    InternalEdges,
    /// Bodies were placed overlapping.
    SpawnOverlap,
    /// A deep overlap pushed apart: the push out adds energy.
    OverlapPushedOut,
    /// Positions far from the origin are coarser than the slop.
    FarFromOrigin,
    /// No cause the tool knows fits.
    Unknown,
}

impl CauseKind {
    /// The cause in a few words.
    pub fn label(self) -> &'static str {
        match self {
            CauseKind::FastAndThinWithoutCcd => "fast and thin with CCD off",
            CauseKind::FastWithoutCcd => "fast motion with CCD off",
            CauseKind::UnderCcdThreshold => "under the CCD speed threshold",
            CauseKind::PressedThrough => "pressed through by the weight on it",
            CauseKind::FastRelativeMotion => "fast relative motion",
            CauseKind::WarmStartingOff => "warm starting off",
            CauseKind::MassRatio => "a heavy body on light ones",
            CauseKind::TooFewIterations => "too few solver passes for the stack",
            CauseKind::ImpactOnJoints => "an impact on jointed bodies",
            CauseKind::InternalEdges => "a mesh's internal edges",
            CauseKind::SpawnOverlap => "bodies placed overlapping",
            CauseKind::OverlapPushedOut => "a deep overlap pushed apart",
            CauseKind::FarFromOrigin => "far from the origin",
            CauseKind::Unknown => "no known cause",
        }
    }

    /// Whether the cause is the solver's capacity for the whole run (warm starting off, too
    /// few passes, a heavy body on light ones, a body pressed through a wall): a stack it cannot hold sags and slides from the
    /// first step, and by the event it may be coming apart, which no setting changed then can
    /// undo. Its fixes are tried from the scene's start, as the setting would have been (from
    /// 600 steps before the event in a longer run).
    pub fn builds_from_start(self) -> bool {
        matches!(
            self,
            CauseKind::WarmStartingOff | CauseKind::TooFewIterations | CauseKind::MassRatio | CauseKind::PressedThrough
        )
    }
}

/// A change to try: a setting, or an edit of the case.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Change {
    /// Set a setting (its scene-file name and RON value).
    Set {
        /// The setting.
        field: String,
        /// Its new value, as RON.
        value: String,
    },
    /// Move a body.
    Move {
        /// The body.
        body: u32,
        /// By how much, m.
        by: [Real; 3],
    },
    /// Give a body a new density (and so a new mass).
    Density {
        /// The body.
        body: u32,
        /// Its new density, kg/m³.
        density: Real,
    },
    /// Move every body by the same offset (the scene's origin to its centre).
    Recentre {
        /// The offset, m.
        by: [Real; 3],
    },
}

impl Change {
    fn set(field: &str, value: impl ToString) -> Change {
        Change::Set { field: field.into(), value: value.to_string() }
    }

    /// The change in words (`ccd=Toi`, `move body 2 by (0, 0.41, 0)`).
    pub fn describe(&self) -> String {
        match self {
            Change::Set { field, value } => format!("{field}={value}"),
            Change::Move { body, by } => format!("move body {body} by {} m", vector_text(by, 3)),
            Change::Density { body, density } => format!("density of body {body} to {density:.0} kg/m³"),
            Change::Recentre { by } => format!("move the scene by {} m, to the origin", vector_text(by, 0)),
        }
    }

    /// Applies the change to `world`.
    pub fn apply(&self, world: &mut World) -> Result<(), DiagnoseError> {
        match self {
            Change::Set { field, value } => {
                let mut s = world.settings.clone();
                s.set_field(field, value).map_err(|error| DiagnoseError::Setting {
                    field: field.clone(),
                    value: value.clone(),
                    error: Box::new(error),
                })?;
                world.set_settings(s);
            }
            Change::Move { body, by } => {
                if (*body as usize) < world.bodies().len() {
                    world.body_mut(*body as usize).pose.translation += Vec3::from_array(*by);
                }
            }
            Change::Density { body, density } => {
                if (*body as usize) < world.bodies().len() {
                    let b = world.body_mut(*body as usize);
                    b.material.density = *density;
                    b.update_mass();
                }
            }
            Change::Recentre { by } => {
                for i in 0..world.bodies().len() {
                    world.body_mut(i).pose.translation += Vec3::from_array(*by);
                }
            }
        }
        world.wake_all();
        Ok(())
    }
}

/// A fix, tried.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Trial {
    /// What was changed.
    pub change: Change,
    /// Whether the re-run from the snapshot was free of the event.
    pub removed: bool,
    /// Median time of a step over the re-run with the change, ms.
    pub ms_per_step: f64,
}

/// One event, its measured cause and the fixes tried.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diagnosis {
    /// The event.
    pub event: Event,
    /// The cause's kind.
    pub cause: CauseKind,
    /// The cause, with the figures measured.
    pub explanation: String,
    /// The step of the snapshot the re-runs start from.
    pub rerun_from: u64,
    /// Whether the re-run from that snapshot without a change shows the event again (else the
    /// trials prove nothing and are left out).
    pub reproduced: bool,
    /// Median time of a step over the re-run without a change, ms.
    pub baseline_ms_per_step: f64,
    /// The fixes tried: those that removed the event first, cheapest first.
    pub fixes: Vec<Trial>,
    /// How many bodies showed the symptom (each its worst event): the event diagnosed is the
    /// worst of theirs, or the first for a symptom without a size.
    pub bodies_with_symptom: usize,
}

impl Diagnosis {
    /// Where the re-runs start, in words: "the start", or "the snapshot of step N".
    pub fn rerun_origin(&self) -> String {
        match self.rerun_from {
            0 => "the start".to_string(),
            step => format!("the snapshot of step {step}"),
        }
    }

    /// The cheapest fix that removed the event.
    pub fn best_fix(&self) -> Option<&Trial> {
        self.fixes.first().filter(|t| t.removed)
    }

    /// Which of its symptom's events this is, when more than one body showed it: "the deepest
    /// of the 37 bodies it happened to".
    pub fn which(&self) -> Option<String> {
        (self.bodies_with_symptom > 1).then(|| {
            format!("{} of the {} bodies it happened to", self.event.symptom.worst(), self.bodies_with_symptom)
        })
    }
}

/// What [`diagnose`] found.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The scene's name.
    pub scene: String,
    /// Steps run.
    pub steps: u64,
    /// Every event seen, the worst of each symptom and body (the first, for a symptom without
    /// a size), in the order of their steps.
    pub events: Vec<Event>,
    /// The worst event of each symptom (the first, for a symptom without a size), diagnosed.
    pub diagnoses: Vec<Diagnosis>,
}

impl Report {
    /// The report as text for a terminal.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut out = String::new();
        let scene = if self.scene.is_empty() { "unnamed scene" } else { self.scene.as_str() };
        let _ = writeln!(out, "{scene}: {} steps, {}", self.steps, events_text(self.events.len()));
        if self.diagnoses.is_empty() {
            let _ = writeln!(out, "no symptoms found");
        }
        for d in &self.diagnoses {
            let e = &d.event;
            let _ = writeln!(out, "\nstep {}: {} — {}", e.step, e.symptom.label(), e.detail);
            if let Some(which) = d.which() {
                let _ = writeln!(out, "  {which}");
            }
            let _ = writeln!(out, "  cause: {}", d.explanation);
            if !d.reproduced {
                let _ = writeln!(out, "  the event does not recur from {}: no fix tried", d.rerun_origin());
                continue;
            }
            let _ = writeln!(
                out,
                "  fixes tried from {} (as is: {}):",
                d.rerun_origin(),
                step_cost(d.baseline_ms_per_step)
            );
            for t in &d.fixes {
                let verdict = if t.removed { "removes it" } else { "does not remove it" };
                let _ = writeln!(out, "    {:<44} {verdict:<18} {}", t.change.describe(), step_cost(t.ms_per_step));
            }
        }
        out
    }
}

/// A step's cost for the report: in µs below a tenth of a millisecond (a small scene's steps of
/// a few µs all read 0.000 ms, which ordered nothing), else in ms.
pub fn step_cost(ms: f64) -> String {
    format!("{}/step", step_time(ms))
}

/// A step's time: in µs below a tenth of a millisecond, else in ms ([`step_cost`] without
/// "/step", for a column headed "time/step").
pub fn step_time(ms: f64) -> String {
    if ms < 0.1 { format!("{:.1} µs", ms * 1000.0) } else { format!("{ms:.3} ms") }
}

/// "1 event", "2 events".
pub fn events_text(n: usize) -> String {
    if n == 1 { "1 event".into() } else { format!("{n} events") }
}

/// Steps between the snapshots kept for re-runs.
const SNAPSHOT_EVERY: u64 = 10;
/// Re-runs start at least this many steps before the event, so a cause that builds up over a
/// second (a body creeping into another) is caught while it builds.
const LEAD: u64 = 60;
/// For the solver's causes ([`CauseKind::builds_from_start`]), re-runs start at the scene's start
/// or, in a longer run, this many steps before the event, so that each fix costs at most about
/// this many steps.
const SOLVER_LEAD: u64 = 600;
/// Re-runs go on this many steps past the event.
pub const HORIZON: u64 = 60;
/// Re-runs for bodies placed overlapping go on this many steps past the event.
const SPAWN_HORIZON: u64 = 10;
/// A rise of speed in one step beyond gravity's, m/s, that counts as an explosion.
const EXPLOSION_DV: Real = 5.0;
/// A mass ratio above this, heavier on lighter, strains the solver.
const MASS_RATIO: Real = 10.0;

/// How fast a body's spin moves its farthest point: angular speed × bounding radius, m/s.
fn spin_speed(b: &crate::dynamics::Body) -> Real {
    b.angvel.length() * b.shape.bounding_radius()
}

/// Watches a world step by step for every symptom.
struct Watch {
    events: EventDetector,
    crossings: Crossings,
    passings: Passings,
    /// Each body's velocity after the last step observed.
    velocities: Vec<Vec3>,
    /// And how fast its spin then moved its farthest point (angular speed × bounding radius).
    spins: Vec<Real>,
}

impl Watch {
    fn new(world: &World) -> Self {
        Self::with_slop(world, world.settings.slop)
    }

    /// A watch whose events are measured against `slop` (the run's it is compared with).
    fn with_slop(world: &World, slop: Real) -> Self {
        Watch {
            events: EventDetector::with_slop(slop),
            crossings: Crossings::new(world),
            passings: Passings::new(world),
            velocities: world.bodies().iter().map(|b| b.linvel).collect(),
            spins: world.bodies().iter().map(spin_speed).collect(),
        }
    }

    fn observe(&mut self, world: &World) -> Vec<Event> {
        let step = world.step_count();
        let bodies = world.bodies();
        let mut out: Vec<Event> = Vec::new();
        for e in self.events.observe(world, false) {
            let Some(symptom) = Symptom::of_event(e.kind) else { continue };
            // The dynamic body first: the static one of a pair is never the one to watch.
            let mut b = e.bodies.clone();
            b.sort_by_key(|&i| bodies.get(i as usize).is_none_or(|b| !b.is_dynamic()));
            let size = if symptom.sized() { e.size } else { 0.0 };
            out.push(Event { symptom, step, bodies: b, detail: e.detail, size });
        }
        // A body through a static one, and through a dynamic one.
        let through =
            [(Symptom::Tunneling, self.crossings.observe(world)), (Symptom::Passing, self.passings.observe(world))];
        for (symptom, pairs) in through {
            for (body, other) in pairs {
                out.push(Event {
                    symptom,
                    step,
                    bodies: vec![body as u32, other as u32],
                    detail: format!("{} passed through {}", name(world, body), name(world, other)),
                    size: 0.0,
                });
            }
        }
        let g = world.settings.gravity.length() * world.settings.dt;
        self.velocities.resize(bodies.len(), Vec3::ZERO);
        self.spins.resize(bodies.len(), 0.0);
        // How fast two bodies' surfaces could close: their relative velocity and each one's
        // spin at its farthest point (a cube spinning at thousands of rad/s after a blow is
        // thrown back by the wall it touches at its surface's speed, not its centre's).
        let closing =
            |a: usize, b: usize| (self.velocities[a] - self.velocities[b]).length() + self.spins[a] + self.spins[b];
        // A struck body can gain up to (1 + e) times the speed it was closing at with what it
        // touches, and the contact's push out of an overlap (up to the correction speed): that
        // is a collision (a rain's bodies strike each other at 15 m/s), not an explosion.
        let push = world.settings.max_correction_velocity.max(0.0);
        // So can a body that another reached within the step, by time of impact, which no
        // contact of the step's start joins.
        let contacts = world.contacts().iter().map(|c| (c.a as usize, c.b as usize));
        let impacts = world.toi_events().iter().map(|t| (t.body as usize, t.other as usize));
        let mut struck: Vec<Real> = vec![0.0; bodies.len()];
        for (a, b) in contacts.chain(impacts).filter(|&(a, b)| a < bodies.len() && b < bodies.len()) {
            let e = bodies[a].material.restitution.max(bodies[b].material.restitution).clamp(0.0, 1.0);
            let blow = (1.0 + e) * closing(a, b);
            struck[a] = struck[a].max(blow);
            struck[b] = struck[b].max(blow);
        }
        // And a body touching a struck one can be passed the blow within the step (a rock
        // landing on a body in a pile, or a row of them, sets the one beneath moving): one hop
        // along the contacts, from what each could gain before it.
        let direct = struck.clone();
        for c in world.contacts() {
            let (a, b) = (c.a as usize, c.b as usize);
            struck[a] = struck[a].max(direct[b]);
            struck[b] = struck[b].max(direct[a]);
        }
        for (i, b) in bodies.iter().enumerate() {
            let (before, v) = (self.velocities[i].length(), b.linvel.length());
            let jump = (b.linvel - self.velocities[i]).length();
            if b.is_dynamic() && v - before > EXPLOSION_DV + g && jump > struck[i] + push + g {
                out.push(Event {
                    symptom: Symptom::Explosion,
                    step,
                    bodies: vec![i as u32],
                    detail: format!(
                        "{} sped up from {before:.2} to {v:.2} m/s in one step, more than any contact can give it",
                        name(world, i)
                    ),
                    size: v - before,
                });
            }
            self.velocities[i] = b.linvel;
            self.spins[i] = spin_speed(b);
        }
        out
    }
}

fn name(world: &World, i: usize) -> String {
    match &world.bodies()[i].name {
        Some(n) => format!("body {i} ({n})"),
        None => format!("body {i}"),
    }
}

/// The spacing of f32 values at `x`: the smallest step a coordinate there can take.
fn spacing(x: Real) -> Real {
    let x = x.abs();
    if x == 0.0 { 0.0 } else { (f32::from_bits(x.to_bits() + 1) - x).max(0.0) }
}

/// Dynamic bodies whose position is coarser than the slop.
fn far_bodies(world: &World) -> Vec<Event> {
    let slop = world.settings.slop;
    let mut out = Vec::new();
    for (i, b) in world.bodies().iter().enumerate().filter(|(_, b)| b.is_dynamic()) {
        // The coarsest coordinate decides: its spacing is the position's step along that axis.
        let s = b.pose.translation.abs().max_element();
        let sp = spacing(s);
        if sp > slop {
            out.push(Event {
                symptom: Symptom::FarFromOrigin,
                step: world.step_count(),
                bodies: vec![i as u32],
                detail: format!(
                    "{} is {:.0} m from the origin (a coordinate of {s:.0} m), where f32 positions move in steps of \
                     {:.2} mm",
                    name(world, i),
                    b.pose.translation.length(),
                    sp * 1000.0
                ),
                size: s,
            });
        }
    }
    out
}

/// The thickness of a body's shape: the smallest extent of its local bounding box, m.
fn thickness(world: &World, i: usize) -> Real {
    world.bodies()[i].shape.local_aabb().extents().min_element()
}

/// A contact of the first step, as the bodies were placed: what tells a spawn overlap.
#[derive(Clone, Copy, Debug)]
pub(super) struct FirstContact {
    /// The pair's bodies.
    a: u32,
    b: u32,
    /// The manifold's deepest point, m.
    depth: Real,
    /// The contact normal, from `a` to `b`.
    normal: Vec3,
}

impl FirstContact {
    /// The contacts of `world` after its first step.
    pub(super) fn of(world: &World) -> Vec<FirstContact> {
        world
            .contacts()
            .iter()
            .map(|c| FirstContact { a: c.a, b: c.b, depth: c.manifold.max_depth(), normal: c.manifold.normal })
            .collect()
    }
}

/// Runs `scene` for `steps` steps and diagnoses each symptom's worst event (its first, for a
/// symptom without a size).
pub fn diagnose(scene: &Scene, steps: u64) -> Result<Report, DiagnoseError> {
    diagnose_stepping(scene, steps, World::step)
}

/// As [`diagnose`], with the run's steps taken by `step`, which must step the world once as
/// [`World::step`] does: a caller that records the run (the app's timeline, a case bundle)
/// records this run instead of a second one. The fixes' re-runs step on their own.
pub fn diagnose_stepping(scene: &Scene, steps: u64, mut step: impl FnMut(&mut World)) -> Result<Report, DiagnoseError> {
    let mut world = scene.build()?;
    let mut snapshots: Vec<Snapshot> = vec![world.snapshot()];
    let mut events = far_bodies(&world);
    let mut watch = Watch::new(&world);
    let mut first_contacts: Vec<FirstContact> = Vec::new();
    for _ in 0..steps {
        step(&mut world);
        if world.step_count() == 1 {
            first_contacts = FirstContact::of(&world);
        }
        for e in watch.observe(&world) {
            keep_worst(&mut events, e);
        }
        if world.step_count().is_multiple_of(SNAPSHOT_EVERY) {
            snapshots.push(world.snapshot());
        }
    }
    events.sort_by_key(|e| e.step);
    let mut diagnoses = Vec::new();
    for (event, bodies_with_symptom) in worst_of_each(&events) {
        // The cause is measured on the world as the event left it.
        // From two steps before it, for the energy the two steps before it left.
        let near = snapshots.iter().rev().find(|s| s.step + 2 <= event.step).unwrap_or(&snapshots[0]);
        let mut at = world_at(scene, near)?;
        let mut energy = [EventDetector::mechanical_energy(&at); 2];
        let mut speeds = Vec::new();
        while at.step_count() < event.step {
            energy = [energy[1], EventDetector::mechanical_energy(&at)];
            if at.step_count() + 1 == event.step {
                body_speeds(&at, &mut speeds);
            }
            at.step();
        }
        let before = Before { first: &first_contacts, energy, speeds: &speeds };
        let (cause, explanation, fixes) = cause_of(event, &at, &before);
        // A restless body is told after two whole one-second windows, which the re-run must
        // hold before the event's step.
        let watched =
            if event.symptom == Symptom::Jitter { crate::record::restless_lead(scene.settings.dt) } else { 0 };
        let lead = if cause.builds_from_start() { SOLVER_LEAD } else { LEAD }.max(watched);
        let start = snapshots.iter().rev().find(|s| s.step <= event.step.saturating_sub(lead)).unwrap_or(&snapshots[0]);
        // Bodies placed overlapping are the first steps' business: the fixes are judged before
        // the bodies go on to meet others (a rain's body moved clear of the one it was placed
        // in still lands in the pile a second later).
        // And its event is that pair's: a body placed in two others is not cleared of one by
        // moving the other.
        let spawned = cause == CauseKind::SpawnOverlap;
        let horizon = if spawned { SPAWN_HORIZON } else { HORIZON };
        let until = (event.step + horizon).min(steps.max(event.step + 1));
        let again = Again { event, pair: spawned, until };
        let (seen, baseline) = rerun(scene, start, None, &again)?;
        let mut trials = Vec::new();
        if seen {
            for change in fixes {
                let (again, ms) = rerun(scene, start, Some(&change), &again)?;
                trials.push(Trial { change, removed: !again, ms_per_step: ms });
            }
        }
        trials.sort_by(|a, b| b.removed.cmp(&a.removed).then(a.ms_per_step.total_cmp(&b.ms_per_step)));
        diagnoses.push(Diagnosis {
            event: event.clone(),
            cause,
            explanation,
            rerun_from: start.step,
            reproduced: seen,
            baseline_ms_per_step: baseline,
            fixes: trials,
            bodies_with_symptom,
        });
    }
    Ok(Report { scene: scene.name.clone(), steps, events, diagnoses })
}

/// Keeps `e` in `events`, which hold one event for each symptom and body, its worst: a later
/// event of the same symptom and body replaces the one kept only when it is larger (so a
/// symptom without a size keeps its first).
fn keep_worst(events: &mut Vec<Event>, e: Event) {
    match events.iter_mut().find(|o| o.symptom == e.symptom && o.bodies.first() == e.bodies.first()) {
        Some(kept) if e.size > kept.size => *kept = e,
        Some(_) => {}
        None => events.push(e),
    }
}

/// The event of each symptom to diagnose, with how many events (one a body) the symptom has:
/// the largest, the earliest of equals, so a symptom without a size gives its first. In the
/// order of the symptoms' first events.
fn worst_of_each(events: &[Event]) -> Vec<(&Event, usize)> {
    let mut out: Vec<(&Event, usize)> = Vec::new();
    for e in events {
        match out.iter_mut().find(|(w, _)| w.symptom == e.symptom) {
            Some((worst, n)) => {
                *n += 1;
                if e.size > worst.size || (e.size == worst.size && e.step < worst.step) {
                    *worst = e;
                }
            }
            None => out.push((e, 1)),
        }
    }
    out
}

fn world_at(scene: &Scene, snap: &Snapshot) -> Result<World, DiagnoseError> {
    let mut w = scene.build()?;
    w.restore(snap).map_err(|error| DiagnoseError::Snapshot { step: snap.step, error })?;
    Ok(w)
}

/// What a re-run looks for: `event`'s symptom happening again to its first body (to its pair of
/// bodies when `pair`), up to the end of step `until`.
struct Again<'a> {
    event: &'a Event,
    pair: bool,
    until: u64,
}

impl Again<'_> {
    fn matches(&self, e: &Event) -> bool {
        let event = self.event;
        let bodies = if self.pair {
            e.bodies.len() == event.bodies.len() && event.bodies.iter().all(|b| e.bodies.contains(b))
        } else {
            event.bodies.is_empty() || e.bodies.first() == event.bodies.first()
        };
        e.symptom == event.symptom && bodies
    }
}

/// Re-runs from `start` with `change` applied: whether the event happened again, and the
/// median ms per step.
fn rerun(
    scene: &Scene,
    start: &Snapshot,
    change: Option<&Change>,
    again: &Again,
) -> Result<(bool, f64), DiagnoseError> {
    let mut w = world_at(scene, start)?;
    // The events are measured as in the run the event came from, whatever the change sets: a
    // larger slop raises the bar of a deep penetration without making it any shallower.
    let slop = w.settings.slop;
    if let Some(c) = change {
        c.apply(&mut w)?;
    }
    let same = |e: &Event| again.matches(e);
    let mut seen = far_bodies(&w).iter().any(same);
    let mut watch = Watch::with_slop(&w, slop);
    let mut ms = Vec::new();
    while w.step_count() < again.until {
        w.step();
        ms.push(w.profile().total_ms);
        seen |= watch.observe(&w).iter().any(same);
    }
    // The median step: a step the machine paused in does not swing the cost.
    ms.sort_by(f64::total_cmp);
    Ok((seen, ms.get(ms.len() / 2).copied().unwrap_or(0.0)))
}

/// The dynamic bodies in contact with `body`, directly or through other dynamic bodies.
fn island(world: &World, body: u32) -> Vec<u32> {
    let dynamic = |i: u32| world.bodies()[i as usize].is_dynamic();
    let mut found = vec![body];
    let mut k = 0;
    while k < found.len() {
        let at = found[k];
        for c in world.contacts() {
            let other = if c.a == at {
                c.b
            } else if c.b == at {
                c.a
            } else {
                continue;
            };
            if dynamic(other) && !found.contains(&other) {
                found.push(other);
            }
        }
        k += 1;
    }
    found
}

/// What the run showed before the event's step, for the causes that look back.
pub(super) struct Before<'a> {
    /// The contacts of the first step, for spawn overlaps.
    pub(super) first: &'a [FirstContact],
    /// The mechanical energy as the two steps before the event's left it (the earlier first),
    /// J; the same for both when the event is at step 1 or 2.
    pub(super) energy: [Real; 2],
    /// How fast each body moved as the step before the event left it, m/s ([`Speeds`]); empty
    /// when not known. The step that carried a body deep into another ends with the contact's
    /// push, slower; a body pressed through a wall leaves it pushed out by the far side, faster.
    pub(super) speeds: &'a [Speeds],
}

/// How fast a body moves, m/s: its centre, and its farthest point (its speed plus its spin
/// there), over `dt` how far its centre and its surface can move in a step.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Speeds {
    pub(super) centre: Real,
    pub(super) surface: Real,
}

impl Speeds {
    fn of(b: &crate::dynamics::Body) -> Speeds {
        let centre = b.linvel.length();
        Speeds { centre, surface: centre + spin_speed(b) }
    }
}

/// Writes into `out` each body's [`Speeds`].
pub(super) fn body_speeds(world: &World, out: &mut Vec<Speeds>) {
    out.clear();
    out.extend(world.bodies().iter().map(Speeds::of));
}

/// The measured cause of `event` in the world `at` (the run as the event's step left it), and
/// the fixes it suggests.
fn cause_of(event: &Event, at: &World, before: &Before) -> (CauseKind, String, Vec<Change>) {
    let first = before.first;
    let s = &at.settings;
    let bodies = at.bodies();
    let b0 = event.bodies.first().map(|&b| b as usize);
    match event.symptom {
        Symptom::Tunneling => {
            let (i, wall) = (event.bodies[0] as usize, event.bodies[1] as usize);
            let v = bodies[i].linvel.length();
            let travel = v * s.dt;
            let (ti, tw) = (thickness(at, i), thickness(at, wall));
            let thin = ti.min(tw);
            let which = if ti <= tw { name(at, i) } else { name(at, wall) };
            if s.ccd == crate::ccd::CcdMode::Off {
                let explanation = format!(
                    "{} moves {travel:.3} m per step ({v:.1} m/s × {:.4} s), {:.0}× the thinner shape's thickness \
                     ({thin:.3} m, {which}), with ccd Off",
                    name(at, i),
                    s.dt,
                    travel / thin
                );
                let fixes = vec![Change::set("ccd", "Speculative"), Change::set("ccd", "Toi")];
                (CauseKind::FastAndThinWithoutCcd, explanation, fixes)
            } else if let Some(entered) = before.speeds.get(i).map(|v| v.centre)
                && entered * s.dt < thin
            {
                // Its centre began the step slower than one step through the thinnest shape (the
                // tunneling is its centre's path): no step's motion carried it through, the
                // weight on it pressed it through (its speed at the event is the push of a
                // contact whose normal turned once it was half through).
                let (kind, why, mut fixes) = stack_cause(event, at);
                let explanation = format!(
                    "{} began the step at {entered:.2} m/s, {:.3} m per step, less than the thinnest shape \
                     ({thin:.3} m, {which}): pressed through, not carried; {why}",
                    name(at, i),
                    entered * s.dt,
                );
                if kind == CauseKind::Unknown {
                    fixes = vec![more_substeps(s), more_iterations(s)];
                    return (CauseKind::PressedThrough, explanation, fixes);
                }
                (kind, explanation, fixes)
            } else {
                let explanation = format!(
                    "{} moves {travel:.3} m per step against a thinnest shape of {thin:.3} m, at {v:.1} m/s, \
                     under ccd_speed_threshold {:.1} m/s (ccd {:?})",
                    name(at, i),
                    s.ccd_speed_threshold,
                    s.ccd
                );
                // A lower threshold sweeps it; `Toi` is a fix only when it is not the mode already.
                let mut fixes = vec![Change::set("ccd_speed_threshold", format!("{:?}", (v * 0.5).max(0.1)))];
                if s.ccd != crate::ccd::CcdMode::Toi {
                    fixes.push(Change::set("ccd", "Toi"));
                }
                (CauseKind::UnderCcdThreshold, explanation, fixes)
            }
        }
        Symptom::Passing => {
            let (i, j) = (event.bodies[0] as usize, event.bodies[1] as usize);
            let v = (bodies[i].linvel - bodies[j].linvel).length();
            let travel = v * s.dt;
            let (ti, tj) = (thickness(at, i), thickness(at, j));
            let thin = ti.min(tj);
            let which = if ti <= tj { name(at, i) } else { name(at, j) };
            let explanation = format!(
                "{} and {} close at {v:.1} m/s: {travel:.3} m per step ({v:.1} m/s × {:.4} s), {:.0}× the thinner \
                 body's thickness ({thin:.3} m, {which}), with ccd {:?}{}",
                name(at, i),
                name(at, j),
                s.dt,
                travel / thin,
                s.ccd,
                if s.ccd == crate::ccd::CcdMode::Toi {
                    format!(" and ccd_speed_threshold {:.1} m/s", s.ccd_speed_threshold)
                } else {
                    String::new()
                }
            );
            // Substeps enough that the bodies close by half the thinner one's thickness in each.
            let substeps =
                ((travel / (0.5 * thin)).ceil() as u32).max(s.substeps * 2).min(crate::Settings::MAX_SUBSTEPS);
            let mut fixes = vec![Change::set("substeps", substeps)];
            fixes.push(if s.ccd == crate::ccd::CcdMode::Toi {
                Change::set("ccd_speed_threshold", format!("{:?}", (v * 0.25).max(0.1)))
            } else {
                Change::set("ccd", "Toi")
            });
            if s.ccd == crate::ccd::CcdMode::Off {
                fixes.push(Change::set("ccd", "Speculative"));
            }
            (CauseKind::FastRelativeMotion, explanation, fixes)
        }
        Symptom::GhostBump => {
            let none = s.internal_edges == crate::narrowphase::mesh::InternalEdges::None;
            if none {
                let explanation = format!(
                    "internal_edges None: contacts on the edges between a mesh's triangles keep their own normals, \
                     and {} is kicked by them",
                    b0.map_or("a body".into(), |i| name(at, i))
                );
                let fixes = vec![
                    Change::set("internal_edges", "VoidedFeatures"),
                    Change::set("internal_edges", "AdjacencyNormals"),
                ];
                (CauseKind::InternalEdges, explanation, fixes)
            } else {
                let explanation =
                    format!("internal_edges {:?} is on; the bump's cause is not one this tool knows", s.internal_edges);
                (CauseKind::Unknown, explanation, vec![Change::set("substeps", s.substeps * 2)])
            }
        }
        Symptom::FarFromOrigin => {
            let centre = bodies.iter().map(|b| b.pose.translation).sum::<Vec3>() / bodies.len().max(1) as Real;
            let far = b0.map_or(0.0, |i| bodies[i].pose.translation.abs().max_element());
            let sp = spacing(far);
            let explanation = format!(
                "the scene's centre is {:.0} m from the origin; at {}'s coordinate of {far:.0} m f32 positions move in \
                 steps of {:.2} mm, {:.1}× the slop of {:.2} mm",
                centre.length(),
                b0.map_or("a body".into(), |i| name(at, i)),
                sp * 1000.0,
                sp / s.slop,
                s.slop * 1000.0
            );
            (CauseKind::FarFromOrigin, explanation, vec![Change::Recentre { by: (-centre).to_array() }])
        }
        Symptom::NonFinite => {
            (CauseKind::Unknown, "the step froze a non-finite body; no cause this tool knows fits".into(), vec![])
        }
        Symptom::DeepPenetration | Symptom::Explosion | Symptom::EnergyGain | Symptom::Jitter => {
            // Bodies placed overlapping: the first step finds them deep in each other.
            let overlap = first
                .iter()
                .filter(|c| c.depth > 10.0 * s.slop.max(1e-3))
                .filter(|c| event.bodies.is_empty() || event.bodies.contains(&c.a) || event.bodies.contains(&c.b))
                .max_by(|x, y| x.depth.total_cmp(&y.depth));
            if event.step <= 2
                && let Some(&FirstContact { a, b, depth, normal }) = overlap
            {
                let explanation = format!(
                    "{} and {} were placed overlapping by {depth:.3} m ({:.0}× the slop): the first step pushes them apart",
                    name(at, a as usize),
                    name(at, b as usize),
                    depth / s.slop
                );
                // Move the dynamic one of the pair out along the normal (A to B).
                let (body, dir) = if bodies[b as usize].is_dynamic() { (b, normal) } else { (a, -normal) };
                let by = (dir * (depth + s.slop)).to_array();
                let fixes = vec![Change::Move { body, by }, Change::set("max_correction_velocity", 0.5)];
                return (CauseKind::SpawnOverlap, explanation, fixes);
            }
            if event.symptom == Symptom::EnergyGain
                && let Some(cause) =
                    impact_on_joints(at, before.energy).or_else(|| overlap_pushed_out(at, before.energy[1]))
            {
                return cause;
            }
            if event.symptom == Symptom::DeepPenetration
                && let Some(cause) = carried_in_without_ccd(event, at, before.speeds)
            {
                return cause;
            }
            stack_cause(event, at)
        }
    }
}

/// A deep penetration that one step's motion made, with CCD off: a body of the pair moves (its
/// centre, and its surface by its spin) farther in a step than the pair's depth. A plate
/// spinning at 200 m/s into another body is in it by 19 cm the step it arrives; the contacts of
/// the step before could not see it coming.
fn carried_in_without_ccd(event: &Event, at: &World, speeds: &[Speeds]) -> Option<(CauseKind, String, Vec<Change>)> {
    let s = &at.settings;
    if s.ccd != crate::ccd::CcdMode::Off {
        return None;
    }
    let (&a, &b) = (event.bodies.first()?, event.bodies.get(1)?);
    let bodies = at.bodies();
    let depth = at
        .contacts()
        .iter()
        .filter(|c| (c.a, c.b) == (a, b) || (c.a, c.b) == (b, a))
        .map(|c| c.manifold.max_depth())
        .fold(0.0, Real::max);
    // As fast as it moved into the step that found it deep, or in it (the step that carried
    // it in may have ended with the contact's push).
    let travel = |i: u32| {
        let body = &bodies[i as usize];
        let before = speeds.get(i as usize).map_or(0.0, |v| v.surface);
        Speeds::of(body).surface.max(before) * s.dt
    };
    let (fast, other) = if travel(a) >= travel(b) { (a, b) } else { (b, a) };
    let moved = travel(fast);
    if depth <= 0.0 || moved < depth || !bodies[fast as usize].is_dynamic() {
        return None;
    }
    let explanation = format!(
        "{} moves {moved:.3} m per step (its speed and its spin at its farthest point × {:.4} s), more than the \
         {depth:.3} m it is deep in {}, with ccd Off: one step carried it in, past every contact the step before had",
        name(at, fast as usize),
        s.dt,
        name(at, other as usize)
    );
    let fixes = vec![Change::set("ccd", "Speculative"), Change::set("ccd", "Toi")];
    Some((CauseKind::FastWithoutCcd, explanation, fixes))
}

/// `x` rounded down to `digits` significant digits (a setting the report suggests reads 0.11,
/// not 0.11372).
fn significant(x: Real, digits: i32) -> Real {
    if x <= 0.0 || !x.is_finite() {
        return x;
    }
    let scale = (10.0 as Real).powi(digits - 1 - x.log10().floor() as i32);
    (x * scale).floor() / scale
}

/// Energy gained as a deep overlap is pushed apart: the step's contacts hold a pair deeper than
/// a deep penetration's bar ([`crate::record::deep_bar`]), and the contact's push out of it, up
/// to `max_correction_velocity`, lifted or sped its bodies. The fixes: a slower push (over more
/// steps, each under the energy check's bar), and with CCD off the CCD modes, which keep a fast
/// body from going in.
fn overlap_pushed_out(at: &World, energy: Real) -> Option<(CauseKind, String, Vec<Change>)> {
    let s = &at.settings;
    let bodies = at.bodies();
    let c = at
        .contacts()
        .iter()
        .filter(|c| {
            c.manifold.max_depth() > crate::record::deep_bar(s.slop, &bodies[c.a as usize], &bodies[c.b as usize])
        })
        .max_by(|x, y| x.manifold.max_depth().total_cmp(&y.manifold.max_depth()))?;
    let explanation = format!(
        "{} and {} were {:.3} m deep in each other as the step began; the contact pushes them apart at up to \
         max_correction_velocity {} m/s, which adds the energy",
        name(at, c.a as usize),
        name(at, c.b as usize),
        c.manifold.max_depth(),
        s.max_correction_velocity
    );
    // A push slow enough that a step of it lifts the heavier body by less than half the energy
    // check's bar (5% of the energy there was): m g v dt < bar / 2.
    let heavier = [c.a, c.b]
        .iter()
        .map(|&i| &bodies[i as usize])
        .filter(|b| b.is_dynamic())
        .map(|b| b.mass())
        .fold(0.0, Real::max);
    let bar = crate::record::energy_bar(energy);
    let slow = 0.5 * bar / (heavier * s.gravity.length().max(1.0) * s.dt).max(1e-9);
    let slow = significant(slow.min(0.5 * s.max_correction_velocity), 2);
    let mut fixes = vec![Change::set("max_correction_velocity", format!("{slow:?}"))];
    if s.ccd == crate::ccd::CcdMode::Off {
        fixes.push(Change::set("ccd", "Speculative"));
        fixes.push(Change::set("ccd", "Toi"));
    }
    Some((CauseKind::OverlapPushedOut, explanation, fixes))
}

/// Energy gained right after an impact on a jointed body: the step before the event lost more
/// than [`IMPACT_LOSS`] of the energy, and a dynamic body that a joint holds touches another
/// body. The impact's last contact impulse is warm-started at the next substep; the joints'
/// exact solve carries it on to every body they hold, while the contact's own solve, which sees
/// only the touching body's mass, takes back from that body alone (docs/joints.md).
fn impact_on_joints(at: &World, energy: [Real; 2]) -> Option<(CauseKind, String, Vec<Change>)> {
    let s = &at.settings;
    let lost = energy[0] - energy[1];
    if lost <= IMPACT_LOSS * energy[0].abs() {
        return None;
    }
    let bodies = at.bodies();
    let jointed =
        |i: u32| bodies[i as usize].is_dynamic() && at.joints().iter().any(|j| j.a == Some(i) || j.b == Some(i));
    let c = at.contacts().iter().find(|c| jointed(c.a) || jointed(c.b))?;
    let (held, other) = if jointed(c.a) { (c.a, c.b) } else { (c.b, c.a) };
    let joints = at.joints().iter().filter(|j| j.a == Some(held) || j.b == Some(held)).count();
    let explanation = format!(
        "the step before, an impact took {lost:.0} J ({:.0}% of the energy); {} touches {} and is held by {joints} \
         joint(s): the impact's contact impulse, warm-started at the next substep, is carried by the joints to the \
         bodies they hold, while the contact takes it back from {} alone ({} iteration(s) × {} substeps)",
        100.0 * lost / energy[0].abs().max(Real::MIN_POSITIVE),
        name(at, held as usize),
        name(at, other as usize),
        name(at, held as usize),
        s.iterations,
        s.substeps
    );
    let fixes = vec![more_substeps(s), Change::set("warm_starting", false), more_iterations(s)];
    Some((CauseKind::ImpactOnJoints, explanation, fixes))
}

/// The solver fix of more substeps: four times as many, within the settings' range.
fn more_substeps(s: &crate::Settings) -> Change {
    Change::set("substeps", (s.substeps * 4).clamp(4, crate::Settings::MAX_SUBSTEPS))
}

/// The solver fix of more iterations: four times as many, at least 4, within the range.
fn more_iterations(s: &crate::Settings) -> Change {
    Change::set("iterations", (s.iterations * 4).clamp(4, crate::Settings::MAX_ITERATIONS))
}

/// The share of the mechanical energy a step must lose to count as an impact for
/// [`impact_on_joints`] (as much as a gain must add to be an event).
const IMPACT_LOSS: Real = 0.05;

/// The cause of trouble in a stack: warm starting, mass ratio, or iterations for its height;
/// or, for a body on a mesh, its internal edges.
fn stack_cause(event: &Event, at: &World) -> (CauseKind, String, Vec<Change>) {
    let s = &at.settings;
    let bodies = at.bodies();
    let on_mesh = event.bodies.iter().any(|&b| bodies[b as usize].shape.is_mesh());
    if on_mesh && s.internal_edges == crate::narrowphase::mesh::InternalEdges::None {
        let before = Before { first: &[], energy: [0.0; 2], speeds: &[] };
        return cause_of(&Event { symptom: Symptom::GhostBump, ..event.clone() }, at, &before);
    }
    let start = event.bodies.iter().copied().find(|&b| bodies[b as usize].is_dynamic());
    let group = start.map(|b| island(at, b)).unwrap_or_else(|| {
        (0..bodies.len() as u32).filter(|&i| bodies[i as usize].kind == BodyKind::Dynamic).collect()
    });
    // Heavier on lighter: over every contact of two dynamic bodies, the upper's mass over the lower's.
    let up = -s.gravity.normalize_or_zero();
    let mut ratio: Real = 1.0;
    let mut pair = (0, 0);
    for c in at.contacts() {
        let (a, b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
        if !a.is_dynamic() || !b.is_dynamic() || !group.contains(&c.a) {
            continue;
        }
        let (upper, lower, iu, il) =
            if a.pose.translation.dot(up) > b.pose.translation.dot(up) { (a, b, c.a, c.b) } else { (b, a, c.b, c.a) };
        let r = upper.mass() / lower.mass();
        if r > ratio {
            ratio = r;
            pair = (iu, il);
        }
    }
    let height = stack_height(at, &group, up);
    let passes = s.iterations as usize * s.substeps as usize;
    let (more_iterations, more_substeps) = (more_iterations(s), more_substeps(s));
    if !s.warm_starting && height >= 2 {
        let explanation = format!(
            "warm_starting is off: a stack {height} bodies high starts its impulses from zero every step, and \
             {} iteration(s) × {} substeps cannot carry the weight down it",
            s.iterations, s.substeps
        );
        return (
            CauseKind::WarmStartingOff,
            explanation,
            vec![Change::set("warm_starting", true), more_iterations, more_substeps],
        );
    }
    if ratio > MASS_RATIO {
        let explanation = format!(
            "{} rests on {}, {ratio:.0}× lighter (above the {MASS_RATIO:.0}× the solver handles): the light body \
             cannot hold it off the ones below",
            name(at, pair.0 as usize),
            name(at, pair.1 as usize)
        );
        // The scene's own fix: the upper body at half the ratio the solver handles.
        let (upper, lower) = (&bodies[pair.0 as usize], &bodies[pair.1 as usize]);
        let lighter = upper.material.density * (0.5 * MASS_RATIO * lower.mass() / upper.mass());
        let density = Change::Density { body: pair.0, density: lighter.max(1.0) };
        return (CauseKind::MassRatio, explanation, vec![more_substeps, more_iterations, density]);
    }
    if height > 2 * passes {
        let explanation = format!(
            "a stack {height} bodies high with {} iteration(s) × {} substeps: fewer solver passes than half its height",
            s.iterations, s.substeps
        );
        return (CauseKind::TooFewIterations, explanation, vec![more_iterations, more_substeps]);
    }
    let explanation = format!(
        "no cause this tool knows fits (slop {:.4} m, contact_hertz {:.0}, {} iteration(s) × {} substeps)",
        s.slop, s.contact_hertz, s.iterations, s.substeps
    );
    (CauseKind::Unknown, explanation, vec![more_substeps, Change::set("slop", s.slop * 4.0)])
}

/// How many bodies high the bodies `group` stand: their span along `up` over the median body's
/// extent along it. The bodies in contact with a pile's body are a heap spread over a floor, not
/// a stack as tall as their number (a 76-body heap in the default scene was "a stack of 76").
fn stack_height(at: &World, group: &[u32], up: Vec3) -> usize {
    let bodies = at.bodies();
    // A body's box along `up`: its centre's height, give or take its half extents seen along up.
    let along = |i: u32| {
        let b = bodies[i as usize].aabb();
        let (centre, half) = ((b.min + b.max) * 0.5, (b.max - b.min) * 0.5);
        let reach = half.dot(up.abs());
        (centre.dot(up) - reach, centre.dot(up) + reach)
    };
    let spans: Vec<(Real, Real)> = group.iter().map(|&i| along(i)).collect();
    let (lo, hi) = spans.iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), &(p, q)| (lo.min(p), hi.max(q)));
    let mut extents: Vec<Real> = spans.iter().map(|(p, q)| q - p).collect();
    extents.sort_by(Real::total_cmp);
    let Some(&median) = extents.get(extents.len() / 2).filter(|m| **m > 0.0) else { return group.len() };
    (((hi - lo) / median).round() as usize).clamp(1, group.len())
}

/// `(x, y, z)` with `decimals` places, a value that rounds to zero written `0`, not `-0`.
fn vector_text(v: &[Real; 3], decimals: usize) -> String {
    let [x, y, z] = v.map(|c| crate::math::fixed_text(c, decimals));
    format!("({x}, {y}, {z})")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Twelve boxes side by side in two layers are a heap two bodies high; four on top of each
    /// other are a stack four high.
    #[test]
    fn a_stack_is_as_high_as_its_bodies_stand_not_as_many_as_they_are() {
        let height = |positions: &[(f32, f32)]| {
            let bodies: Vec<String> = positions
                .iter()
                .map(|(x, y)| format!("(shape: Cuboid(half_extents: (0.5, 0.5, 0.5)), position: ({x}, {y}, 0))"))
                .collect();
            let scene = Scene::parse(&format!("(bodies: [{}])", bodies.join(", ")), "heap.ron").unwrap();
            let world = scene.build().unwrap();
            let group: Vec<u32> = (0..positions.len() as u32).collect();
            stack_height(&world, &group, Vec3::Y)
        };
        let heap: Vec<(f32, f32)> = (0..12).map(|k| ((k % 6) as f32 * 1.01, 0.5 + (k / 6) as f32)).collect();
        assert_eq!(height(&heap), 2);
        let stack: Vec<(f32, f32)> = (0..4).map(|k| (0.0, 0.5 + k as f32)).collect();
        assert_eq!(height(&stack), 4);
    }

    /// A body through a wall with CCD on that began the step slower than one step through the
    /// thinnest shape was pressed through, not carried (a 2 cm plate under a pile sank through
    /// a 5 cm floor at 1 m/s and left it at 1.4 m/s, pushed by the contact whose normal turned
    /// once it was half through): more passes, not a lower speed threshold.
    #[test]
    fn a_slow_body_through_a_wall_with_ccd_on_was_pressed_through() {
        let scene = Scene::parse(
            "(bodies: [(kind: Static, shape: Cuboid(half_extents: (1, 0.025, 1)), position: (0, -0.025, 0)),
                       (shape: Cuboid(half_extents: (0.6, 0.01, 0.4)), position: (0, -0.06, 0),
                        linear_velocity: (0, -1.4, 0))])",
            "pressed.ron",
        )
        .unwrap();
        let world = scene.build().unwrap();
        let event =
            Event { symptom: Symptom::Tunneling, step: 130, bodies: vec![1, 0], detail: String::new(), size: 0.0 };
        let at = |centre| Speeds { centre, surface: centre + 1.0 };
        let slow = [Speeds::default(), at(1.0)];
        let (cause, why, fixes) = cause_of(&event, &world, &Before { first: &[], energy: [0.0; 2], speeds: &slow });
        assert_eq!(cause, CauseKind::PressedThrough, "{why}");
        assert!(why.contains("pressed through"), "{why}");
        assert_eq!(fixes, vec![Change::set("substeps", 16), Change::set("iterations", 4)]);
        // As fast as that when it began the step, one step's motion carried it.
        let fast = [Speeds::default(), at(1.4)];
        let (cause, ..) = cause_of(&event, &world, &Before { first: &[], energy: [0.0; 2], speeds: &fast });
        assert_eq!(cause, CauseKind::UnderCcdThreshold);
    }

    /// A body through a wall with CCD on is offered a lower speed threshold, and `ccd=Toi` only
    /// when the mode is not `Toi` already (re-running it as is read "does not remove it").
    #[test]
    fn a_tunneling_with_ccd_on_is_not_offered_the_mode_it_has() {
        let scene = Scene::parse(
            "(bodies: [(kind: Static, shape: Cuboid(half_extents: (0.005, 1, 1)), position: (0, 1, 0)),
                       (shape: Cuboid(half_extents: (0.01, 0.2, 0.2)), position: (0.5, 1, 0),
                        linear_velocity: (10, 0, 0))])",
            "plate.ron",
        )
        .unwrap();
        let event =
            Event { symptom: Symptom::Tunneling, step: 1, bodies: vec![1, 0], detail: String::new(), size: 0.0 };
        let before = Before { first: &[], energy: [0.0; 2], speeds: &[] };
        for (mode, toi_offered) in [(crate::ccd::CcdMode::Speculative, true), (crate::ccd::CcdMode::Toi, false)] {
            let mut world = scene.build().unwrap();
            let mut settings = world.settings.clone();
            settings.ccd = mode;
            world.set_settings(settings);
            let (cause, _, fixes) = cause_of(&event, &world, &before);
            assert_eq!(cause, CauseKind::UnderCcdThreshold);
            assert!(matches!(&fixes[0], Change::Set { field, .. } if field == "ccd_speed_threshold"), "{fixes:?}");
            assert_eq!(fixes.contains(&Change::set("ccd", "Toi")), toi_offered, "{mode:?}: {fixes:?}");
        }
    }
}
