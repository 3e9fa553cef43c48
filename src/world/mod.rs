//! The world: bodies, settings and the fixed-step pipeline.

mod advice;
mod ccd_step;
mod draw;
mod guard;
mod hash;
mod idle;
#[cfg(test)]
mod idle_tests;
mod joint_draw;
mod mesh_debug;
mod pairs;
mod profile;
mod scene;
mod sleep;
mod snapshot;

pub use crate::settings::{PositionCorrection, Settings};
pub use crate::timer::Laps;
pub use advice::{SLOP_PER_THICKNESS, slop_warning, thinnest_fixed_solid};
pub use guard::Fault;

/// A body [`World::try_add_body`] refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum AddBodyError {
    /// A dynamic triangle mesh or height field.
    #[error("body {index}{name} is a dynamic {shape}: a triangle mesh or height field can only be Static or Kinematic")]
    DynamicMesh {
        /// The index the body would have had.
        index: usize,
        /// ` "NAME"` for a named body, else empty.
        name: String,
        /// The shape's kind.
        shape: &'static str,
    },
}
pub use crate::contacts::{CachedPoint, ContactStore, PAIR_CACHE_MAX_TURN, PairEntry};
pub(crate) use hash::Fnv1a;
pub use hash::state_hash;
pub use joint_draw::{draw_joint, joint_radius};
pub use mesh_debug::{BVH_INNER_COLOR, BVH_LEAF_COLOR, CORRECTED_NORMAL_COLOR, RAW_NORMAL_COLOR};
pub use profile::{PHASES, StepProfile};
pub use snapshot::{BodySnapshot, PairSnapshot, Snapshot, SnapshotError, WarmEntry};

use crate::broadphase::{self, BroadPhase, BroadPhaseParams};
use crate::ccd::{self, CcdMode, CcdMotion, ToiEvent};
use crate::contacts::NarrowInput;
use crate::dynamics::joints::{Joint, JointError, JointReport, JointState, Joints};
use crate::dynamics::solver::{CachedImpulse, Contact, Solver, StepContext, Still};
use crate::dynamics::{Body, BodyKind, Rotations};
use crate::geometry::{Aabb, Ray, RayHit, Shape};
use crate::math::Real;
use crate::narrowphase::{self, MAX_MANIFOLD_POINTS, NarrowPhaseKind};
use crate::parallel::{self, BODY_BLOCK, Bodies, Crew, Threads};

/// Most candidate pairs one step takes to the narrow phase. A step's memory grows with its pairs
/// (a manifold and solver rows each, about 700 bytes); a scene that piles thousands of bodies
/// into one spot would otherwise exhaust memory. The pairs beyond it, last in canonical order,
/// are dropped for that step and counted in [`StepProfile::pairs_dropped`].
pub const MAX_PAIRS: usize = 1_000_000;

/// Most pairs of overlapping boxes a scene may start with, whatever their bodies' kinds. The
/// broad phase lists every overlapping pair of boxes before it drops those that can never
/// collide (two static or kinematic bodies), at about 40 bytes and some sorting each: 20,000
/// static spheres at one point (2e8 pairs) would take 7.8 GB and 50 s a step.
pub const MAX_OVERLAPS: usize = 4 * MAX_PAIRS;

/// Steps with fewer candidate pairs run on one thread (see [`World::set_parallel_min_pairs`]):
/// the default scene (about 350 pairs) is 2.3 times slower on two threads than on one, the
/// 1,000-body rain (2,760) a little faster.
pub const PARALLEL_MIN_PAIRS: usize = 2_000;

/// Bodies, their settings, and everything the pipeline keeps from one step to the next.
pub struct World {
    /// The settings the next step runs with; change them with [`World::set_settings`].
    pub settings: Settings,
    bodies: Vec<Body>,
    broad_phase: Box<dyn BroadPhase>,
    /// How many bodies the broad-phase structure holds: those of its last update, with the
    /// boxes in `aabbs` it was built from. Bodies added since are not in it.
    indexed: usize,
    aabbs: Vec<Aabb>,
    pairs: Vec<(u32, u32)>,
    /// The last update of a step with every dynamic body asleep, reused while nothing moves.
    idle: idle::IdlePairs,
    /// Every pair's state between steps, and the step's contacts.
    contacts: ContactStore,
    /// Per body: its rotation matrix this step, shared by its box–box pairs and the solver.
    rotations: Rotations,
    solver: Solver,
    /// The joints and their kept impulses.
    joints: Joints,
    /// Which bodies CCD handles this step, and what it did in the last.
    ccd: ccd_step::CcdState,
    /// Bodies whose state became non-finite in the last step, frozen.
    guard: guard::Guard,
    profile: StepProfile,
    step_count: u64,
    /// Changes whenever the world may have changed ([`World::revision`]).
    revision: u64,
    /// `revision` when the last step ended: while they agree, no edit came since.
    revision_after_step: u64,
    /// Changes whenever a body's shape or kind may have changed, or bodies were added
    /// ([`World::bodies_revision`]).
    bodies_revision: u64,
    /// The working lists of the step ([`StepLists`]), kept for the next.
    lists: StepLists,
    /// The threads the step runs on (not part of the settings: the results are the same).
    threads: Threads,
    /// Steps with fewer candidate pairs than this run on one thread even with a pool (the
    /// threads' hand-offs cost more than they save there); the results are the same either way.
    parallel_min_pairs: usize,
}

impl Clone for World {
    fn clone(&self) -> Self {
        World {
            settings: self.settings.clone(),
            bodies: self.bodies.clone(),
            broad_phase: broadphase::create(self.broad_phase.kind()),
            indexed: 0,
            aabbs: self.aabbs.clone(),
            pairs: self.pairs.clone(),
            // The new structure is empty: the clone's first step rebuilds it.
            idle: idle::IdlePairs::default(),
            contacts: self.contacts.clone(),
            rotations: Rotations::default(),
            solver: Solver::default(),
            joints: self.joints.clone(),
            ccd: self.ccd.clone(),
            guard: guard::Guard::default(),
            profile: self.profile,
            step_count: self.step_count,
            // A clone holds what the original holds: the same revisions, until either changes.
            revision: self.revision,
            // A clone's guard starts empty: its first step checks every body.
            revision_after_step: 0,
            bodies_revision: self.bodies_revision,
            lists: StepLists::default(),
            threads: self.threads.clone(),
            parallel_min_pairs: self.parallel_min_pairs,
        }
    }
}

/// What one step's phases hand on to the next.
#[derive(Default)]
struct StepState {
    /// The threads of the step, when it is large enough to share.
    crew: Option<Crew>,
    /// The step's working lists, taken from the world for the step and handed back at its end.
    lists: StepLists,
    /// No dynamic body was awake: only kinematic bodies could move.
    quiet: bool,
    /// The narrow phase built every cuboid's rotation matrix.
    boxes_read_rotations: bool,
    /// A moving body woke an island.
    woke: bool,
    /// The bodies may have been edited since the last step ended (a drag, a setting).
    edited: bool,
    /// Nothing could move: the solver and the sleep update did not run.
    still: bool,
    /// The broad phase made the boxes of those few movers alone and kept every other body's
    /// (all rested at the last update and still do).
    kept_resting: bool,
    /// The time-of-impact pass ran.
    swept: bool,
    /// Of the few movers, those asleep when the step began.
    movers_asleep_at_start: u32,
}

/// The working lists of a step, kept from step to step so that a step allocates none once the
/// scene's size is reached. Each is filled afresh in the step that reads it; a copy of the
/// world starts with none.
#[derive(Debug, Default)]
struct StepLists {
    /// Bodies that turn farther in the step than their speculative rows describe.
    turning: Vec<bool>,
    /// Per body: a kinematic body touches it (`ccd::left_their_rows`).
    by_kinematic: Vec<bool>,
    /// Per contact: the body it marks plus one (`ccd::left_their_rows`).
    contact_marks: Vec<u32>,
    /// The sleep update's islands.
    sleep: sleep::SleepLists,
    /// The bodies not at rest when the step began, when few.
    movers: Movers,
    /// The bodies of the step's pairs, ascending, when there are few pairs ([`FEW_PAIRS`]).
    pair_bodies: Vec<u32>,
    /// The bodies a moving body woke in the step, ascending.
    woken: Vec<u32>,
}

/// The bodies not at rest (neither static nor asleep, nor known to be) when the step began,
/// ascending, when they are few ([`FEW_MOVERS`]): the per-body passes then visit them alone.
#[derive(Debug, Default)]
struct Movers {
    list: Vec<u32>,
    few: bool,
    /// The bodies the resting flags will not mark when the next step begins, ascending, made
    /// as the step kept every box but the movers' (`next_known`): the movers whose new box was
    /// not made at rest. The next step takes them without a pass over every body's flag.
    next: Vec<u32>,
    next_known: bool,
}

impl Movers {
    /// Lists the bodies `resting` (per body, or empty when unknown) does not mark, when they
    /// are few; the number of them, or `None` when `resting` is unknown.
    fn find(&mut self, resting: &[bool]) -> Option<usize> {
        let n = resting.len();
        let known = std::mem::take(&mut self.next_known);
        if n == 0 {
            self.few = false;
            self.list.clear();
            return None;
        }
        let moving = match known {
            // The last step listed them (the flags changed only for its movers since).
            true => {
                debug_assert!(self.next.iter().all(|&i| !resting[i as usize]));
                debug_assert_eq!(self.next.len(), resting.iter().filter(|&&r| !r).count());
                std::mem::swap(&mut self.list, &mut self.next);
                self.list.len()
            }
            false => resting.iter().filter(|&&r| !r).count(),
        };
        self.few = moving * FEW_MOVERS < n;
        if !self.few {
            self.list.clear();
        } else if !known {
            self.list.clear();
            self.list.extend(resting.iter().enumerate().filter(|(_, r)| !**r).map(|(i, _)| i as u32));
        }
        Some(moving)
    }

    /// After the step made the movers' boxes alone (`still`: per body, made at rest): the
    /// bodies the next step's resting flags will not mark, unless something clears them.
    fn note_next(&mut self, still: &[bool]) {
        self.next.clear();
        self.next.extend(self.list.iter().copied().filter(|&i| !still[i as usize]));
        self.next_known = true;
    }

    /// The bodies a per-body pass over those that may have moved since the step began visits:
    /// the few movers alone, or all `n` once a body `woke` in the step.
    fn bodies(&self, n: usize, woke: bool) -> Bodies<'_> {
        match self.few && !woke {
            true => Bodies::Listed(&self.list),
            false => Bodies::All(n),
        }
    }
}

impl Clone for StepLists {
    fn clone(&self) -> Self {
        Self::default()
    }
}

/// A process-wide revision number, never handed out twice.
fn next_revision() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl StepState {
    /// The crew for the narrow phase and the solver: only from `min` pairs on.
    fn shared(&self, pairs: usize, min: usize) -> Option<&Crew> {
        self.crew.as_ref().filter(|_| pairs >= min)
    }

    /// [`Movers::bodies`] after the solver: all bodies once one woke, or once the
    /// time-of-impact pass ran (it wakes what it strikes).
    fn movers_after_wake(&self, n: usize) -> Bodies<'_> {
        self.lists.movers.bodies(n, self.woke || self.swept)
    }
}

/// Fewer bodies not at rest than one in this many are few: the step's per-body passes then
/// visit them alone (a ball rolling past a pile asleep).
const FEW_MOVERS: usize = 8;

/// Fewer pairs than one per this many bodies are few: the narrow phase's per-body work is then
/// for the bodies of the pairs alone.
const FEW_PAIRS: usize = 8;

impl World {
    /// An empty world with these settings.
    pub fn new(settings: Settings) -> Self {
        let broad_phase = broadphase::create(settings.broad_phase);
        World {
            settings,
            bodies: Vec::new(),
            broad_phase,
            indexed: 0,
            aabbs: Vec::new(),
            pairs: Vec::new(),
            idle: idle::IdlePairs::default(),
            contacts: ContactStore::default(),
            rotations: Rotations::default(),
            solver: Solver::default(),
            joints: Joints::default(),
            ccd: ccd_step::CcdState::default(),
            guard: guard::Guard::default(),
            profile: StepProfile::default(),
            step_count: 0,
            revision: next_revision(),
            revision_after_step: 0,
            bodies_revision: next_revision(),
            lists: StepLists::default(),
            threads: Threads::default(),
            parallel_min_pairs: PARALLEL_MIN_PAIRS,
        }
    }

    /// Adds a body and returns its index.
    ///
    /// # Panics
    /// On a body the world refuses ([`World::try_add_body`]: a dynamic mesh or height field),
    /// with the error's message.
    pub fn add_body(&mut self, body: Body) -> usize {
        self.try_add_body(body).unwrap_or_else(|e| panic!("{e}"))
    }

    /// Adds a body and returns its index, or refuses a dynamic triangle mesh or height field
    /// (they have no volume to give a mass, and their contacts are with convex shapes only) with
    /// an error naming the body.
    pub fn try_add_body(&mut self, body: Body) -> Result<usize, AddBodyError> {
        if body.kind == crate::dynamics::BodyKind::Dynamic && body.shape.is_mesh() {
            let index = self.bodies.len();
            let name = body.name.as_ref().map_or(String::new(), |n| format!(" \"{n}\""));
            return Err(AddBodyError::DynamicMesh {
                index,
                name,
                shape: if matches!(body.shape, Shape::TriangleMesh(_)) { "triangle mesh" } else { "height field" },
            });
        }
        let mut body = body;
        if body.kind == BodyKind::Static {
            self.weld_seams(&mut body);
        }
        self.bodies.push(body);
        self.touch_bodies();
        self.idle.forget();
        self.aabbs.push(self.bodies.last().map(Body::aabb).unwrap_or(Aabb::EMPTY));
        Ok(self.bodies.len() - 1)
    }

    /// Welds a static triangle mesh being added to the static meshes already in the world where
    /// their boundary edges meet ([`narrowphase::mesh::weld_seams`]), so that a seam between
    /// two meshes is an internal edge. Meshes moved after they were added keep their welds.
    fn weld_seams(&mut self, body: &mut Body) {
        let near = body.aabb().expanded(2.0 * narrowphase::mesh::WELD_DISTANCE);
        let Shape::TriangleMesh(mesh) = &mut body.shape else { return };
        for (other, aabb) in self.bodies.iter_mut().zip(&self.aabbs) {
            if other.kind != BodyKind::Static || !aabb.overlaps(&near) {
                continue;
            }
            if let Shape::TriangleMesh(o) = &mut other.shape {
                let (for_new, for_old) = narrowphase::mesh::find_seams(mesh, &body.pose, o, &other.pose);
                if !for_new.is_empty() {
                    std::sync::Arc::make_mut(mesh).weld(for_new);
                    std::sync::Arc::make_mut(o).weld(for_old);
                }
            }
        }
    }

    /// Adds a joint between bodies already in the world and returns its index, or refuses one
    /// that names a missing body, joins a body to itself or has a bad number. Its bodies wake.
    pub fn add_joint(&mut self, joint: Joint) -> Result<usize, JointError> {
        joint.check(self.joints.list().len(), self.bodies.len())?;
        for i in [joint.a, joint.b].into_iter().flatten() {
            self.bodies[i as usize].wake();
        }
        self.touch();
        self.idle.forget();
        self.joints.push(joint);
        Ok(self.joints.list().len() - 1)
    }

    /// The joints, in the order they were added.
    pub fn joints(&self) -> &[Joint] {
        self.joints.list()
    }

    /// Whether a joint keeps bodies `a` and `b` from colliding (a joint between them with
    /// `collide: false`): their shapes may overlap by design.
    pub fn joint_filters(&self, a: usize, b: usize) -> bool {
        let (lo, hi) = (a.min(b) as u32, a.max(b) as u32);
        self.joints.filters((lo, hi))
    }

    /// Each joint's kept impulses and whether it broke.
    pub fn joint_states(&self) -> &[JointState] {
        self.joints.states()
    }

    /// What joint `k` is doing now ([`Joint::report`]).
    pub fn joint_report(&self, k: usize) -> JointReport {
        let h = self.settings.dt / self.settings.substeps.max(1) as Real;
        self.joints.list()[k].report(&self.bodies, &self.joints.states()[k], h)
    }

    /// The bodies, in the order they were added (a body's index is its id).
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Mutable access to one body; it is woken, and the broad phase runs at the next step,
    /// since the caller may move it (a static body too, which waking does not show).
    pub fn body_mut(&mut self, i: usize) -> &mut Body {
        self.touch_bodies();
        self.idle.forget();
        // The caller may change its shape: its pairs are tested afresh.
        self.contacts.forget_body(i as u32);
        let b = &mut self.bodies[i];
        b.wake();
        b
    }

    /// The contacts found in the last step, sorted by pair.
    pub fn contacts(&self) -> &[Contact] {
        self.contacts.contacts()
    }

    /// The contacts of the islands asleep, as the step each fell asleep found them: a pair with
    /// no body awake is not tested, so [`World::contacts`] leaves them out. For drawing what a
    /// resting pile stands on; the solver does not read them, and a woken island's are dropped
    /// at the next step.
    pub fn resting_contacts(&self) -> &[Contact] {
        self.contacts.resting()
    }

    /// Per contact of [`World::contacts`], its manifold's point count: for a pass that counts
    /// points, without reading the contacts themselves.
    pub fn contact_point_counts(&self) -> &[u8] {
        self.contacts.point_counts()
    }

    /// The solver, for its tests.
    #[cfg(test)]
    pub(crate) fn solver(&self) -> &Solver {
        &self.solver
    }

    /// Every pair's state between steps: the body-pair cache, the warm-start cache (the
    /// solver's tests read it).
    #[cfg(test)]
    pub(crate) fn contact_store(&self) -> &ContactStore {
        &self.contacts
    }

    /// The impulses the solver applied at contact `k` of [`World::contacts`] in the last
    /// substep of the last step, one per manifold point in the manifold's order: normal impulse
    /// (N·s) and friction impulse (world space, N·s). Over a whole step of resting contact that
    /// is `substeps` times as much. `None` for a contact the solver kept no impulses for.
    pub fn contact_impulses(&self, k: usize) -> Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]> {
        self.contacts.impulses(k)
    }

    /// The candidate pairs of the last step's broad phase, sorted.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The world AABBs as of the last step.
    pub fn aabbs(&self) -> &[Aabb] {
        &self.aabbs
    }

    /// The sweeps of the bodies CCD handled in the last step.
    pub fn ccd_motions(&self) -> &[CcdMotion] {
        &self.ccd.motions
    }

    /// The impacts the time-of-impact pass resolved in the last step.
    pub fn toi_events(&self) -> &[ToiEvent] {
        &self.ccd.events
    }

    /// The bodies whose state became non-finite in the last step; each was frozen (made static
    /// at its pose before the step) so it cannot spread NaN to others.
    pub fn faults(&self) -> &[Fault] {
        &self.guard.faults
    }

    /// Times and counters of the last step.
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// Steps on `n` threads from now on (0: all cores). One thread, the default, is the plain
    /// serial path; any count gives the same results, bit for bit (docs/parallel.md).
    pub fn set_threads(&mut self, n: usize) {
        if n != self.threads.count() || n == 0 {
            self.threads = Threads::new(n);
        }
    }

    /// Steps with fewer candidate pairs than `n` run on one thread even when the world has more
    /// ([`PARALLEL_MIN_PAIRS`] by default; 0: every step uses them). Results do not change.
    pub fn set_parallel_min_pairs(&mut self, n: usize) {
        self.parallel_min_pairs = n;
    }

    /// The number of threads the world steps on.
    pub fn threads(&self) -> usize {
        self.threads.count()
    }

    /// Steps taken.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// A number that changes whenever the world may have changed: a step, an added body or
    /// joint, [`World::body_mut`], [`World::set_settings`], [`World::wake_all`],
    /// [`World::restore`] (writes to the public `settings` field do not count). Numbers come
    /// from one counter for the whole process, so two worlds share one only when one is an
    /// unchanged clone of the other. A viewer keys what it draws on it.
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// A number that changes whenever bodies were added or a body's shape or kind may have
    /// changed ([`World::body_mut`], [`World::restore`]), but not with a step: what a viewer
    /// derives from the bodies' shapes alone stays valid while it holds.
    pub fn bodies_revision(&self) -> u64 {
        self.bodies_revision
    }

    /// Marks a change of state: a new [`World::revision`].
    fn touch(&mut self) {
        self.revision = next_revision();
    }

    /// Marks a change of the bodies' shapes, kinds or number (and so of state).
    fn touch_bodies(&mut self) {
        self.touch();
        self.bodies_revision = next_revision();
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step_count as f64 * self.settings.dt as f64
    }

    /// The state hash: the bits of every body's pose and velocity.
    pub fn hash(&self) -> u64 {
        state_hash(&self.bodies)
    }

    /// The broad phase that runs the steps.
    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.broad_phase.as_ref()
    }

    /// Replaces the settings. The world keeps its state; a new broad phase is built if the
    /// choice changed, and sleeping bodies wake so the change takes effect.
    pub fn set_settings(&mut self, settings: Settings) {
        self.touch();
        if settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(settings.broad_phase);
            self.indexed = 0;
        }
        if settings != self.settings {
            self.wake_all();
            self.idle.forget();
            // Margins and methods may have changed: every pair is tested afresh.
            self.contacts.forget_pairs();
        }
        self.settings = settings;
    }

    /// Wakes every body.
    pub fn wake_all(&mut self) {
        self.touch();
        self.idle.forget_boxes();
        self.bodies.iter_mut().for_each(Body::wake);
    }

    /// Total kinetic energy of the dynamic bodies.
    pub fn kinetic_energy(&self) -> Real {
        self.bodies.iter().map(Body::kinetic_energy).sum()
    }

    /// Advances the world by one fixed step, phase by phase: CCD preparation, broad phase,
    /// narrow phase, solve and integrate, time of impact, sleep, with subnormal floats flushed
    /// to zero ([`crate::fp`]). Fills [`World::profile`]. While
    /// nothing can move, the last broad-phase update is reused (see
    /// [`StepProfile::broad_phase_reused`]): the results are the same bits. The phases are
    /// timed one after another on one [`Laps`]: the step's setup counts with the CCD
    /// preparation, waking touched islands with solving.
    pub fn step(&mut self) {
        // Subnormals flushed to zero for the step ([`crate::fp`]).
        let _mode = crate::fp::FlushSubnormals::new();
        // Whether the bodies may have been edited since the last step ended.
        let edited = self.revision != self.revision_after_step;
        self.touch();
        let mut laps = Laps::start();
        if self.idle.at_rest(&self.settings) {
            self.step_at_rest(&laps);
            return;
        }
        let mut p = StepProfile { bodies: self.bodies.len() as u32, ..Default::default() };
        let mut st = self.begin_step(edited);
        self.prepare_ccd(&mut st);
        laps.lap(&mut p.ccd_ms);
        self.find_pairs(&mut st, &mut p);
        laps.lap(&mut p.broad_phase_ms);
        self.find_contacts(&mut st, &mut p);
        laps.lap(&mut p.narrow_phase_ms);
        self.solve(&mut st, &mut p, &mut laps);
        self.time_of_impact(&mut st, &mut p, &mut laps);
        self.update_sleep(&mut st, p.broad_phase_reused);
        self.finish_step(p, &laps, &st);
        self.lists = st.lists;
    }

    /// Builds the broad phase the settings name if it changed, clears last step's CCD records,
    /// and takes the threads of a step with enough bodies that can move to share (the bodies'
    /// boxes are the first part shared; the narrow phase and the solver are shared from `parallel_min_pairs` pairs).
    fn begin_step(&mut self, edited: bool) -> StepState {
        if self.settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(self.settings.broad_phase);
            self.indexed = 0;
        }
        self.ccd.motions.clear();
        self.ccd.events.clear();
        // Counted by the bodies that can move: in a world mostly asleep a body at rest costs each
        // per-body pass a few instructions, less than handing its block to another thread.
        let n = self.bodies.len();
        let resting = self.idle.resting(n);
        let mut lists = std::mem::take(&mut self.lists);
        let moving = match lists.movers.find(resting) {
            Some(moving) => moving,
            None => self.bodies.iter().filter(|b| b.kind != BodyKind::Static && !b.asleep).count(),
        };
        let crew = if moving * 2 >= self.parallel_min_pairs { self.threads.crew() } else { None };
        let which = lists.movers.bodies(n, false);
        self.guard.begin(&mut self.bodies, self.step_count + 1, crew.as_ref(), (edited, resting, which));
        let asleep = lists.movers.list.iter().filter(|&&i| self.bodies[i as usize].asleep).count() as u32;
        StepState { crew, lists, movers_asleep_at_start: asleep, edited, ..StepState::default() }
    }

    /// The contact manifold of every candidate pair (with speculative points for pairs that
    /// close fast), in pair order whichever thread tested each.
    fn find_contacts(&mut self, st: &mut StepState, p: &mut StepProfile) {
        // With few pairs among many bodies (a ball rolling past a pile asleep), the per-body
        // work of the narrow phase is for the bodies of the pairs alone: no other is read.
        let n = self.bodies.len();
        let used = &mut st.lists.pair_bodies;
        used.clear();
        let few = self.pairs.len() * FEW_PAIRS < n;
        if few {
            used.extend(self.pairs.iter().flat_map(|&(a, b)| [a, b]));
            used.sort_unstable();
            used.dedup();
        }
        let which = if few { Bodies::Listed(&st.lists.pair_bodies) } else { Bodies::All(n) };
        // Box–box pairs read their bodies' rotation matrices (with the analytic method).
        let boxes_read = self.settings.narrow_phase == NarrowPhaseKind::Analytic && !self.pairs.is_empty();
        st.boxes_read_rotations = boxes_read && !few;
        if boxes_read {
            self.rotations.build_among(&self.bodies, which, is_cuboid, st.crew.as_ref());
        }
        let input = NarrowInput {
            bodies: &self.bodies,
            reach: &self.ccd.reach,
            swept: &self.ccd.fast,
            pairs: &self.pairs,
            rotations: &self.rotations,
            settings: &self.settings,
            which,
        };
        p.pair_cache_hits = self.contacts.find(input, st.shared(self.pairs.len(), self.parallel_min_pairs));
        p.narrow_tests = self.pairs.len() as u32;
        self.count_contacts(p);
    }

    /// The profile's counts of the step's manifolds and contact points.
    fn count_contacts(&self, p: &mut StepProfile) {
        p.manifolds = self.contacts.contacts().len() as u32;
        p.contacts = self.contacts.point_counts().iter().map(|&n| u32::from(n)).sum();
    }

    /// Wakes islands touched by moving bodies (their resting contacts join the step's), then
    /// solves the contacts and integrates, unless
    /// nothing can move (then no lap is taken: `solve_ms` and `integrate_ms` stay zero).
    fn solve(&mut self, st: &mut StepState, p: &mut StepProfile, laps: &mut Laps) {
        st.woke = sleep::wake_touched(&mut self.bodies, self.contacts.contacts(), &self.joints, &mut st.lists.woken);
        if st.woke && self.contacts.wake_resting(&self.bodies, &st.lists.woken) {
            self.count_contacts(p);
        }
        // Reused pairs, no contact and no kinematic body: nothing can move, so the solver would
        // only empty the warm-start cache, and the sleep update would change nothing.
        st.still = p.broad_phase_reused
            && self.contacts.contacts().is_empty()
            && !self.bodies.iter().any(|b| b.kind == BodyKind::Kinematic);
        if st.still {
            self.contacts.still();
            return;
        }
        // The solver reads the matrices of the awake dynamic bodies (woken ones included), when
        // it has something to solve.
        let free = Solver::free(self.contacts.contacts(), &self.joints);
        if (!st.quiet || st.woke) && !free {
            let built = |b: &Body| st.boxes_read_rotations && is_cuboid(b);
            let which = st.movers_after_wake(self.bodies.len());
            let read = |b: &Body| b.is_dynamic() && !b.asleep && !built(b);
            self.rotations.build_among(&self.bodies, which, read, st.crew.as_ref());
        }
        let crew = st.shared(self.pairs.len(), self.parallel_min_pairs);
        let ctx = StepContext::new(&self.settings);
        let input = self.contacts.for_solver(&ctx, crew);
        let (bodies, joints) = (&mut self.bodies, &mut self.joints);
        // Bodies woken since the broad phase have changed: with a wake, none is known unchanged.
        let unchanged = if st.woke { &[][..] } else { self.idle.unchanged() };
        // With the boxes of the movers alone made (`StepState::kept_resting`), they are the
        // bodies not unchanged.
        let moved = (st.kept_resting && !st.woke).then_some(&st.lists.movers.list[..]);
        let still = Still { step: self.step_count + 1, unchanged, moved };
        let times = self.solver.step(bodies, input, &ctx, &self.rotations, crew, joints, laps, still);
        p.solve_ms += times.solve_ms;
        p.integrate_ms += times.integrate_ms;
        let moved = st.movers_after_wake(self.bodies.len());
        self.guard.check(&mut self.bodies, self.step_count + 1, "solve", st.crew.as_ref(), moved);
        self.contacts.forget_impulses_of(&self.guard.frozen());
        self.joints.forget_impulses_of(&self.guard.frozen());
    }

    /// Puts resting islands to sleep (or wakes every body when sleeping is off), and tells the
    /// idle tracker how the step went (`reused`: the broad phase reused the kept update).
    fn update_sleep(&mut self, st: &mut StepState, reused: bool) {
        if self.settings.sleeping {
            if !st.still {
                // The movers, when no kinematic body is among them (it can join bodies asleep
                // into an island without waking them).
                let n = self.bodies.len();
                let mut lists = std::mem::take(&mut st.lists.sleep);
                let which = match st.movers_after_wake(n) {
                    Bodies::Listed(list) if list.iter().all(|&i| self.bodies[i as usize].kind == BodyKind::Dynamic) => {
                        Bodies::Listed(list)
                    }
                    _ => Bodies::All(n),
                };
                let (contacts, joints, settings) = (self.contacts.contacts(), &self.joints, &self.settings);
                let fell = sleep::update(&mut self.bodies, contacts, joints, settings, &mut lists, which);
                st.lists.sleep = lists;
                // Only a fall asleep, a wake or an edit changes which islands sleep: a ball rolling
                // past a pile asleep does not pay a pass over the pile's resting contacts.
                if fell || st.woke || st.edited {
                    self.contacts.keep_resting(&self.bodies, fell);
                }
            }
        } else if self.bodies.iter().any(|b| b.asleep) {
            self.idle.forget_boxes();
            self.bodies.iter_mut().filter(|b| b.asleep).for_each(Body::wake);
            self.contacts.keep_resting(&self.bodies, false);
        }
        self.idle.end_step(st.quiet, st.woke, (reused, st.still), &self.settings);
    }

    /// A step of a world at rest ([`idle::IdlePairs::at_rest`]): the full pipeline would find
    /// what the last step found and change nothing, so only the count and the timing move
    /// (`idle_tests` holds this against the full pipeline, bit for bit).
    fn step_at_rest(&mut self, laps: &Laps) {
        self.guard.faults.clear();
        self.ccd.motions.clear();
        self.ccd.events.clear();
        self.profile = StepProfile {
            broad_phase_ms: 0.0,
            narrow_phase_ms: 0.0,
            ccd_ms: 0.0,
            solve_ms: 0.0,
            integrate_ms: 0.0,
            faults: 0,
            total_ms: laps.total_ms(),
            ..self.profile
        };
        self.step_count += 1;
        self.revision_after_step = self.revision;
    }

    /// The profile's body counts and total time; the step is done.
    fn finish_step(&mut self, mut p: StepProfile, laps: &Laps, st: &StepState) {
        p.faults = self.guard.faults.len() as u32;
        let full = |bodies: &[Body]| {
            let sleeping = bodies.iter().filter(|b| b.asleep).count() as u32;
            (sleeping, bodies.iter().filter(|b| b.is_dynamic() && !b.asleep).count() as u32)
        };
        (p.sleeping_bodies, p.awake_bodies) = match st.movers_after_wake(self.bodies.len()) {
            // No other body changed since the last step, which counted them (no edit came
            // since: the movers are known).
            Bodies::Listed(movers) => {
                let asleep = movers.iter().filter(|&&i| self.bodies[i as usize].asleep).count() as u32;
                let awake =
                    movers.iter().filter(|&&i| self.bodies[i as usize].is_dynamic() && !self.bodies[i as usize].asleep);
                let counts = (self.profile.sleeping_bodies + asleep - st.movers_asleep_at_start, awake.count() as u32);
                debug_assert_eq!(counts, full(&self.bodies), "sleeping and awake bodies");
                counts
            }
            Bodies::All(_) => full(&self.bodies),
        };
        p.total_ms = laps.total_ms();
        self.profile = p;
        self.step_count += 1;
        self.revision_after_step = self.revision;
    }

    /// The first body the ray hits, with the hit.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<(usize, RayHit)> {
        self.ray_cast_where(ray, max_t, |_| true)
    }

    /// The first body the ray hits of those `keep` accepts, with the hit.
    pub fn ray_cast_where(&self, ray: &Ray, max_t: Real, keep: impl Fn(&Body) -> bool) -> Option<(usize, RayHit)> {
        let mut candidates = Vec::new();
        let indexed = self.indexed.min(self.bodies.len()).min(self.aabbs.len());
        self.broad_phase.query_ray(&self.aabbs[..indexed], ray, max_t, &mut candidates);
        // The structure holds last step's boxes: test directly the bodies it does not cover,
        // those added since and those that moved out of the box it holds.
        for (i, b) in self.bodies.iter().enumerate() {
            let now = b.aabb();
            let covered = i < indexed && self.aabbs[i].contains(&now);
            if !covered && now.ray_interval(ray.origin, ray.dir, max_t).is_some() {
                candidates.push(i as u32);
            }
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates
            .into_iter()
            .filter_map(|i| {
                let b = &self.bodies[i as usize];
                keep(b)
                    .then(|| crate::geometry::ray_cast(&b.shape, &b.pose, ray, max_t))
                    .flatten()
                    .map(|h| (i as usize, h))
            })
            .min_by(|x, y| x.1.t.total_cmp(&y.1.t).then(x.0.cmp(&y.0)))
    }
}

fn is_cuboid(b: &Body) -> bool {
    matches!(b.shape, Shape::Cuboid(_))
}
