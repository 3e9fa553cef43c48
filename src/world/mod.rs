//! The world: bodies, settings and the fixed-step pipeline.

mod guard;
mod hash;
mod idle;
#[cfg(test)]
mod idle_tests;
mod mesh_debug;
mod pair_cache;
mod profile;
mod scene;
mod sleep;
mod snapshot;

pub use crate::settings::{PositionCorrection, Settings};
pub use crate::timer::PhaseTimer;
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
pub use hash::state_hash;
pub use mesh_debug::{BVH_INNER_COLOR, BVH_LEAF_COLOR, CORRECTED_NORMAL_COLOR, RAW_NORMAL_COLOR};
pub use pair_cache::{CachedPoint, PAIR_CACHE_MAX_TURN, PairEntry};
pub use profile::{PHASES, StepProfile};
pub use snapshot::{BodySnapshot, PairSnapshot, Snapshot, SnapshotError, WarmEntry};

use crate::broadphase::{self, BroadPhase, BroadPhaseParams};
use crate::ccd::{self, CcdMode, CcdSweep, ToiEvent};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::dynamics::solver::{CachedImpulse, Contact, Solver, WarmCache};
use crate::dynamics::{Body, BodyKind, Rotations};
use crate::geometry::{Aabb, Ray, RayHit, Shape};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::{self, MAX_MANIFOLD_POINTS, Manifold, NarrowPhaseKind, Tolerance};
use crate::parallel::{Crew, SharedMut, Threads};

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
    contacts: Vec<Contact>,
    /// Per candidate pair of the last step, sorted: its last narrow-phase result and the
    /// relative pose it was made at (the body-pair cache, `pair_cache`).
    pair_cache: Vec<PairEntry>,
    /// This step's entries, one per pair, swapped with `pair_cache` after the narrow phase.
    pair_cache_next: Vec<PairEntry>,
    /// The contacts of each run of pairs that a thread tests in a parallel step.
    narrow_runs: Vec<Vec<Contact>>,
    /// Per body: its rotation matrix this step, shared by its box–box pairs and the solver.
    rotations: Rotations,
    pub(crate) warm_cache: WarmCache,
    pub(crate) solver: Solver,
    /// Per body: swept by the time-of-impact pass this step.
    fast: Vec<bool>,
    /// Per body: its contacts reach as far as it can move this step (speculative CCD).
    reach: Vec<bool>,
    /// Per body: how far a body with reach that meets it can set it moving this step, m.
    pushed: Vec<Real>,
    /// Per body, made at the start of the narrow phase: what its pairs' tests depend on.
    pair_info: Vec<pair_cache::BodyInfo>,
    ccd_sweeps: Vec<CcdSweep>,
    toi_events: Vec<ToiEvent>,
    /// Bodies whose state became non-finite in the last step, frozen.
    guard: guard::Guard,
    profile: StepProfile,
    step_count: u64,
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
            pair_cache: self.pair_cache.clone(),
            pair_cache_next: Vec::new(),
            narrow_runs: Vec::new(),
            rotations: Rotations::default(),
            warm_cache: self.warm_cache.clone(),
            solver: Solver::default(),
            fast: self.fast.clone(),
            reach: self.reach.clone(),
            pushed: self.pushed.clone(),
            pair_info: Vec::new(),
            ccd_sweeps: self.ccd_sweeps.clone(),
            toi_events: self.toi_events.clone(),
            guard: guard::Guard::default(),
            profile: self.profile,
            step_count: self.step_count,
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
    /// With CCD on: every body's pose at the start of the step.
    toi_starts: Vec<Pose>,
    /// With CCD on: every body's spin at the start of the step, rad/s.
    start_spins: Vec<Real>,
    /// Bodies that turn farther in the step than their speculative rows describe.
    turning: Vec<bool>,
    /// No dynamic body was awake: only kinematic bodies could move.
    quiet: bool,
    /// The narrow phase built the cuboids' rotation matrices.
    boxes_read_rotations: bool,
    /// A moving body woke an island.
    woke: bool,
    /// Nothing could move: the solver and the sleep update did not run.
    still: bool,
}

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
            contacts: Vec::new(),
            pair_cache: Vec::new(),
            pair_cache_next: Vec::new(),
            narrow_runs: Vec::new(),
            rotations: Rotations::default(),
            warm_cache: WarmCache::default(),
            solver: Solver::default(),
            fast: Vec::new(),
            reach: Vec::new(),
            pushed: Vec::new(),
            pair_info: Vec::new(),
            ccd_sweeps: Vec::new(),
            toi_events: Vec::new(),
            guard: guard::Guard::default(),
            profile: StepProfile::default(),
            step_count: 0,
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

    /// The bodies, in the order they were added (a body's index is its id).
    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Mutable access to one body; it is woken, and the broad phase runs at the next step,
    /// since the caller may move it (a static body too, which waking does not show).
    pub fn body_mut(&mut self, i: usize) -> &mut Body {
        self.idle.forget();
        // The caller may change its shape: its pairs are tested afresh.
        let id = i as u32;
        self.pair_cache.retain(|e| e.pair.0 != id && e.pair.1 != id);
        let b = &mut self.bodies[i];
        b.wake();
        b
    }

    /// The contacts found in the last step, sorted by pair.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The impulses the solver applied at contact `k` of [`World::contacts`] in the last
    /// substep of the last step, one per manifold point in the manifold's order: normal impulse
    /// (N·s) and friction impulse (world space, N·s). Over a whole step of resting contact that
    /// is `substeps` times as much. `None` for a contact the solver kept no impulses for.
    pub fn contact_impulses(&self, k: usize) -> Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]> {
        let c = self.contacts.get(k)?;
        let pair = (c.a, c.b);
        let entry = self.warm_cache.get(k).filter(|e| e.0 == pair);
        entry.or_else(|| self.warm_cache.iter().find(|e| e.0 == pair)).map(|e| &e.1)
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
    pub fn ccd_sweeps(&self) -> &[CcdSweep] {
        &self.ccd_sweeps
    }

    /// The impacts the time-of-impact pass resolved in the last step.
    pub fn toi_events(&self) -> &[ToiEvent] {
        &self.toi_events
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
        if settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(settings.broad_phase);
            self.indexed = 0;
        }
        if settings != self.settings {
            self.wake_all();
            self.idle.forget();
            // Margins and methods may have changed: every pair is tested afresh.
            self.pair_cache.clear();
        }
        self.settings = settings;
    }

    /// Wakes every body.
    pub fn wake_all(&mut self) {
        self.bodies.iter_mut().for_each(Body::wake);
    }

    /// Total kinetic energy of the dynamic bodies.
    pub fn kinetic_energy(&self) -> Real {
        self.bodies.iter().map(Body::kinetic_energy).sum()
    }

    /// Advances the world by one fixed step, phase by phase: CCD preparation, broad phase,
    /// narrow phase, solve and integrate, time of impact, sleep. Fills [`World::profile`]. While
    /// nothing can move, the last broad-phase update is reused (see
    /// [`StepProfile::broad_phase_reused`]): the results are the same bits.
    pub fn step(&mut self) {
        let t_total = std::time::Instant::now();
        let mut p = StepProfile { bodies: self.bodies.len() as u32, ..Default::default() };
        let mut st = self.begin_step();
        self.prepare_ccd(&mut st, &mut p);
        self.find_pairs(&mut st, &mut p);
        self.find_contacts(&mut st, &mut p);
        self.solve(&mut st, &mut p);
        self.time_of_impact(&mut st, &mut p);
        self.update_sleep(&st);
        self.finish_step(p, t_total);
    }

    /// Builds the broad phase the settings name if it changed, clears last step's CCD records,
    /// and takes the threads of a step large enough to share (the bodies' boxes are the first
    /// part shared; the narrow phase and the solver are shared from `parallel_min_pairs` pairs).
    fn begin_step(&mut self) -> StepState {
        if self.settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(self.settings.broad_phase);
            self.indexed = 0;
        }
        self.ccd_sweeps.clear();
        self.toi_events.clear();
        self.guard.begin(&mut self.bodies, self.step_count + 1);
        let crew = if self.bodies.len() * 2 >= self.parallel_min_pairs { self.threads.crew() } else { None };
        StepState { crew, ..StepState::default() }
    }

    /// Which bodies are swept by time of impact and which get speculative reach; with CCD on,
    /// every body's pose and spin at the start of the step, for the time-of-impact pass.
    fn prepare_ccd(&mut self, st: &mut StepState, p: &mut StepProfile) {
        let ccd_mode = self.settings.ccd;
        let _t = PhaseTimer::new(&mut p.ccd_ms);
        self.fast.clear();
        self.fast.extend(self.bodies.iter().map(|b| ccd::needs_ccd(b, &self.settings)));
        self.reach.clear();
        self.reach.extend(self.bodies.iter().map(|b| ccd::needs_reach(b, &self.settings)));
        // With CCD on, a body that turns faster than its speculative rows describe is swept
        // too (`ccd::turns_past_rows`), also one slow enough to have no reach (a small body
        // spinning against a wall).
        if ccd_mode != CcdMode::Off {
            st.toi_starts.extend(self.bodies.iter().map(|b| b.pose));
            st.start_spins.extend(self.bodies.iter().map(|b| b.angvel.length()));
        }
    }

    /// Every body's box (swept along its path for fast bodies), the broad phase's candidate
    /// pairs, less those that can never interact, in canonical order; or last update's pairs
    /// while nothing can move.
    fn find_pairs(&mut self, st: &mut StepState, p: &mut StepProfile) {
        let dt = self.settings.dt;
        let ccd_mode = self.settings.ccd;
        let margin = self.settings.speculative_distance * 0.5;
        let _t = PhaseTimer::new(&mut p.broad_phase_ms);
        // No dynamic body awake: only kinematic bodies can move in this step.
        st.quiet = idle::quiet(&self.bodies);
        let bodies = &self.bodies;
        // Pairs that can never interact: neither moves, or both sleep.
        let active = |&(a, b): &(u32, u32)| {
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            let a_active = ba.kind != BodyKind::Static && !ba.asleep;
            let b_active = bb.kind != BodyKind::Static && !bb.asleep;
            (a_active || b_active) && (ba.is_dynamic() || bb.is_dynamic())
        };
        if st.quiet && self.idle.reusable(&self.settings, bodies, &self.aabbs, self.indexed, margin) {
            // Nothing moved since the kept update: its boxes and pairs still hold.
            self.pairs.clear();
            self.pairs.extend(self.idle.candidates().iter().copied().filter(active));
            p.broad = self.idle.reused_stats();
            p.broad_phase_reused = true;
        } else {
            self.aabbs.clear();
            let aabb = |b: &Body| b.aabb().expanded(margin);
            match &st.crew {
                None => self.aabbs.extend(bodies.iter().map(aabb)),
                Some(crew) => {
                    self.aabbs.resize(bodies.len(), Aabb::EMPTY);
                    let out = SharedMut::new(&mut self.aabbs);
                    crew.for_blocks(bodies.len(), 512, |r| {
                        // SAFETY: each block writes its own bodies' boxes.
                        let out = unsafe { out.range(r.clone()) };
                        for (o, b) in out.iter_mut().zip(&bodies[r]) {
                            *o = aabb(b);
                        }
                    });
                }
            }
            if ccd_mode != CcdMode::Off {
                // Fast bodies are found by everything along the path they may take this step
                // (the time-of-impact pass queries these boxes for what a sweep can meet).
                let swept = |i: &usize| self.fast[*i] || self.reach[*i];
                for (i, b) in bodies.iter().enumerate().filter(|(i, _)| swept(i)) {
                    let aabb = ccd::swept_aabb(b, dt).expanded(margin);
                    self.aabbs[i] = aabb;
                    if self.reach[i] {
                        let (from, to) = (b.pose, ccd::predicted_pose(b, dt));
                        self.ccd_sweeps.push(CcdSweep { body: i as u32, from, to, aabb });
                    }
                }
            }
            let params = BroadPhaseParams { grid_cell_size: self.settings.grid_cell_size };
            p.broad = self.broad_phase.update(&self.aabbs, &params, &mut self.pairs);
            self.indexed = self.aabbs.len();
            if st.quiet {
                self.idle.keep(&self.pairs, p.broad);
            }
            self.pairs.retain(active);
        }
        // Every structure returns the pairs in one canonical order (ascending), and the
        // filter keeps it, so the simulation is the same whichever structure ran.
        debug_assert!(self.pairs.is_sorted(), "{} returned unsorted pairs", self.broad_phase.kind().label());
        if self.pairs.len() > MAX_PAIRS {
            p.pairs_dropped = (self.pairs.len() - MAX_PAIRS) as u32;
            self.pairs.truncate(MAX_PAIRS);
        }
        p.broad_phase = self.broad_phase.resolved();
        p.pairs = self.pairs.len() as u32;
    }

    /// The contact manifold of every candidate pair (with speculative points for pairs that
    /// close fast), in pair order whichever thread tested each.
    fn find_contacts(&mut self, st: &mut StepState, p: &mut StepProfile) {
        let dt = self.settings.dt;
        let _t = PhaseTimer::new(&mut p.narrow_phase_ms);
        let tol = Tolerance { margin: self.settings.speculative_distance, epsilon: self.settings.contact_epsilon };
        self.contacts.clear();
        st.boxes_read_rotations = self.settings.narrow_phase == NarrowPhaseKind::Analytic && !self.pairs.is_empty();
        // Box–box pairs read their bodies' rotation matrices (with the analytic method).
        if st.boxes_read_rotations {
            self.rotations.build(&self.bodies, is_cuboid);
        }
        let rotations = &self.rotations;
        ccd::pushed_reach(&self.bodies, &self.reach, &self.pairs, dt, &mut self.pushed);
        self.pair_info.clear();
        let info = self.bodies.iter().zip(&self.reach).zip(&self.pushed);
        self.pair_info.extend(info.map(|((b, &reach), &pushed)| pair_cache::BodyInfo::new(b, reach, pushed)));
        let (bodies, info, pushed, settings) = (&self.bodies, &self.pair_info, &self.pushed, &self.settings);
        let cache_distance = settings.pair_cache_distance;
        // One pair's contacts (pushed to `out`: a mesh pair may have several manifolds) and its
        // body-pair cache entry (written to `entry`), from the pair and its last entry alone:
        // pairs can be tested in any order, on any thread, and the contacts kept in pair order.
        // Whether the cache answered: the caller then rebuilds the entry's manifold.
        // A tested pair's new entry is queued in `make` for slot `slot`, made eight at a time.
        let contact = |&(a, b): &(u32, u32),
                       old: Option<&PairEntry>,
                       (slot, entry): (usize, &mut PairEntry),
                       make: &mut pair_cache::Make,
                       out: &mut Vec<Contact>| {
            let (ia, ib) = (&info[a as usize], &info[b as usize]);
            let kinds = ia.kinds | ib.kinds;
            let mesh = kinds & pair_cache::MESH != 0;
            let compound = kinds & pair_cache::COMPOUND != 0;
            // Either body's own reach, or a push from a body with reach.
            let reach = kinds & pair_cache::REACH != 0;
            // Pairs with reach (whose margin changes with their speed) and compound pairs are
            // tested every step; others reuse their last result while the body that is not a
            // mesh stays near where it was relative to the other. Only with warm starting,
            // where the solver keeps contacts (contact recycling) and the narrow phase's
            // manifold mostly checks them: without it, every step's rows come straight from the
            // narrow phase.
            let cached = !reach && !compound && cache_distance > 0.0 && settings.warm_starting;
            let (pa, pb) = (&bodies[a as usize].pose, &bodies[b as usize].pose);
            let holds = |e: &PairEntry| match ib.kinds & pair_cache::MESH != 0 {
                false => e.holds(pa, pb, ib.radius, cache_distance),
                true => e.holds_for_a(pa, pb, ia.radius, cache_distance),
            };
            if let Some(e) = old.filter(|e| cached && holds(e)) {
                // Its manifold is rebuilt by the caller, eight entries at a time.
                *entry = *e;
                return true;
            }
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            let mut tol = tol;
            let pushed = if reach { pushed[a as usize].max(pushed[b as usize]) } else { 0.0 };
            if reach {
                // Reach as far as the pair can close in this step.
                tol.margin += ccd::pair_reach(ba, bb, dt) + pushed;
            }
            // Every leading corner gets its own speculative point.
            let to_contact = |m: &Manifold| Contact {
                a,
                b,
                manifold: if reach {
                    ccd::speculative_contact(m, ba, bb, dt, tol.margin, settings.slop, pushed)
                } else {
                    *m
                },
            };
            // The pair's manifolds: a mesh pair's, one per direction its triangles push; one at
            // most for any other, a convex pair's straight from the narrow phase.
            let (all, one);
            let (first, more): (Option<&Manifold>, &[Manifold]) = if compound || mesh {
                let (method, edges) = (settings.narrow_phase, settings.internal_edges);
                all = narrowphase::contact_manifolds_with_edges(
                    &ba.shape, &ba.pose, &bb.shape, &bb.pose, tol, method, edges,
                );
                (all.first(), all.as_slice())
            } else {
                one = narrowphase::contact_with_rotations(
                    &ba.shape,
                    &ba.pose,
                    &bb.shape,
                    &bb.pose,
                    || (rotations.get(a as usize, ba), rotations.get(b as usize, bb)),
                    tol,
                    settings.narrow_phase,
                );
                (one.as_ref(), &[])
            };
            let m = first.filter(|m| !m.is_empty());
            let rest = more.get(1..).unwrap_or_default();
            // The cache keeps one manifold: a mesh pair with more is tested every step. Its
            // entry is made with the batch's others.
            if cached && rest.is_empty() {
                make.push(slot, (a, b), &ba.pose, &bb.pose, m);
            } else {
                *entry = PairEntry::invalid((a, b));
            }
            out.extend(m.map(to_contact));
            out.extend(rest.iter().map(to_contact));
            false
        };
        let old_cache = &self.pair_cache;
        let hits = std::sync::atomic::AtomicU32::new(0);
        // The contacts of a run of pairs, with their cache entries written to `entries`.
        let run_contacts = |pairs: &[(u32, u32)], entries: &mut [PairEntry], out: &mut Vec<Contact>| {
            let Some(first) = pairs.first() else { return };
            let mut cursor = old_cache.partition_point(|e| e.pair < *first);
            let mut n = 0;
            let mut rebuild = pair_cache::Rebuild::default();
            let mut make = pair_cache::Make::default();
            for (k, pair) in pairs.iter().enumerate() {
                // B jumps through the bodies: ask for the pose and shape of the B a few pairs on.
                if let Some(&(_, b)) = pairs.get(k + 4) {
                    let body = &bodies[b as usize];
                    crate::simd::prefetch(&body.pose);
                    crate::simd::prefetch(&body.shape);
                }
                let old = pair_cache::find(old_cache, &mut cursor, *pair);
                let hit = contact(pair, old, (k, &mut entries[k]), &mut make, out);
                n += hit as u32;
                if hit && entries[k].len > 0 {
                    let (a, b) = (&bodies[pair.0 as usize].pose, &bodies[pair.1 as usize].pose);
                    out.push(Contact { a: pair.0, b: pair.1, manifold: Manifold::default() });
                    if rebuild.push(out.len() - 1, &entries[k], a, b) {
                        rebuild.finish(out, |c| &mut c.manifold);
                    }
                }
                if make.is_full() {
                    make.finish(entries);
                }
            }
            rebuild.finish(out, |c| &mut c.manifold);
            make.finish(entries);
            hits.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
        };
        self.pair_cache_next.resize(self.pairs.len(), PairEntry::invalid((0, 0)));
        self.pair_cache_next.truncate(self.pairs.len());
        match st.crew.as_ref().filter(|_| self.pairs.len() >= self.parallel_min_pairs) {
            None => run_contacts(&self.pairs, &mut self.pair_cache_next, &mut self.contacts),
            // Runs of pairs, each tested into its own buffer (kept from step to step), then
            // copied side by side into place: the contacts stay in pair order whichever
            // thread tested each.
            Some(crew) => {
                let run = self.pairs.len().div_ceil(4 * crew.threads()).max(64);
                let runs = self.pairs.len().div_ceil(run);
                self.narrow_runs.resize_with(runs, Vec::new);
                let found = SharedMut::new(&mut self.narrow_runs[..runs]);
                let entries = SharedMut::new(&mut self.pair_cache_next);
                let pairs = &self.pairs;
                crew.for_blocks(runs, 1, |r| {
                    for k in r {
                        let range = k * run..((k + 1) * run).min(pairs.len());
                        // SAFETY: each block fills its own runs and their pairs' entries.
                        let (out, entries) = unsafe { (found.get(k), entries.range(range.clone())) };
                        out.clear();
                        run_contacts(&pairs[range], entries, out);
                    }
                });
                let found = &self.narrow_runs[..runs];
                let mut starts = Vec::with_capacity(runs + 1);
                starts.push(0);
                for f in found {
                    starts.push(starts.last().unwrap() + f.len());
                }
                self.contacts.resize(starts[runs], Contact { a: 0, b: 0, manifold: Default::default() });
                let to = SharedMut::new(&mut self.contacts);
                crew.for_blocks(runs, 1, |r| {
                    for k in r {
                        // SAFETY: each run is copied to its own place.
                        unsafe { to.range(starts[k]..starts[k + 1]) }.copy_from_slice(&found[k]);
                    }
                });
            }
        }
        std::mem::swap(&mut self.pair_cache, &mut self.pair_cache_next);
        p.narrow_tests = self.pairs.len() as u32;
        p.pair_cache_hits = hits.into_inner();
        p.manifolds = self.contacts.len() as u32;
        p.contacts = self.contacts.iter().map(|c| c.manifold.len() as u32).sum();
    }

    /// Wakes islands touched by moving bodies, then solves the contacts and integrates, unless
    /// nothing can move.
    fn solve(&mut self, st: &mut StepState, p: &mut StepProfile) {
        st.woke = sleep::wake_touched(&mut self.bodies, &self.contacts);
        // Reused pairs, no contact and no kinematic body: nothing can move, so the solver would
        // only empty the warm-start cache, and the sleep update would change nothing.
        st.still = p.broad_phase_reused
            && self.contacts.is_empty()
            && !self.bodies.iter().any(|b| b.kind == BodyKind::Kinematic);
        if st.still {
            self.warm_cache.clear();
        } else {
            // The solver reads the matrices of the awake dynamic bodies (woken ones included).
            if !st.quiet || st.woke {
                let _t = PhaseTimer::new(&mut p.solve_ms);
                let built = |b: &Body| st.boxes_read_rotations && is_cuboid(b);
                self.rotations.build(&self.bodies, |b| b.is_dynamic() && !b.asleep && !built(b));
            }
            let times = self.solver.step(
                &mut self.bodies,
                &self.contacts,
                &self.settings,
                &mut self.warm_cache,
                &self.rotations,
                st.crew.as_ref().filter(|_| self.pairs.len() >= self.parallel_min_pairs),
            );
            p.solve_ms += times.solve_ms;
            p.integrate_ms += times.integrate_ms;
            self.guard.check(&mut self.bodies, self.step_count + 1, "solve");
            self.guard.forget_impulses(&mut self.warm_cache);
        }
    }

    /// Sweeps the fast and fast-turning bodies from their start poses and stops them at their
    /// first impact.
    fn time_of_impact(&mut self, st: &mut StepState, p: &mut StepProfile) {
        if !st.toi_starts.is_empty() {
            let _t = PhaseTimer::new(&mut p.ccd_ms);
            let settings = &self.settings;
            st.turning
                .extend(self.bodies.iter().zip(&st.start_spins).map(|(b, &s)| ccd::turns_past_rows(b, s, settings)));
            // And bodies the solver drove through their rows against static bodies, or out of
            // the box their pairs were found in.
            let (contacts, aabbs, starts) = (&self.contacts, &self.aabbs, &st.toi_starts);
            ccd::left_their_rows(&self.bodies, starts, contacts, aabbs, settings.slop, &mut st.turning);
        }
        if !st.toi_starts.is_empty() && self.fast.iter().chain(&st.turning).any(|&f| f) {
            let _t = PhaseTimer::new(&mut p.ccd_ms);
            p.toi_events = ccd::resolve_toi(
                &mut self.bodies,
                &st.toi_starts,
                &self.fast,
                &st.turning,
                self.broad_phase.as_ref(),
                &self.aabbs,
                &self.settings,
                &mut self.ccd_sweeps,
                &mut self.toi_events,
            );
            self.guard.check(&mut self.bodies, self.step_count + 1, "ccd");
            self.guard.forget_impulses(&mut self.warm_cache);
        }
    }

    /// Puts resting islands to sleep (or wakes every body when sleeping is off), and tells the
    /// idle tracker how the step went.
    fn update_sleep(&mut self, st: &StepState) {
        if self.settings.sleeping {
            if !st.still {
                sleep::update(&mut self.bodies, &self.contacts, &self.settings);
            }
        } else {
            self.bodies.iter_mut().filter(|b| b.asleep).for_each(Body::wake);
        }
        self.idle.end_step(st.quiet, st.woke, &self.settings);
    }

    /// The profile's body counts and total time; the step is done.
    fn finish_step(&mut self, mut p: StepProfile, t_total: std::time::Instant) {
        p.faults = self.guard.faults.len() as u32;
        p.sleeping_bodies = self.bodies.iter().filter(|b| b.asleep).count() as u32;
        p.awake_bodies = self.bodies.iter().filter(|b| b.is_dynamic() && !b.asleep).count() as u32;
        p.total_ms = t_total.elapsed().as_secs_f64() * 1e3;
        self.profile = p;
        self.step_count += 1;
    }

    /// The first body the ray hits, with the hit.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<(usize, RayHit)> {
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
                crate::geometry::ray_cast(&b.shape, &b.pose, ray, max_t).map(|h| (i as usize, h))
            })
            .min_by(|x, y| x.1.t.total_cmp(&y.1.t).then(x.0.cmp(&y.0)))
    }

    /// Describes the world's state for drawing: AABBs, contacts, velocities, broad phase.
    pub fn debug_draw(&self, draw: &mut DebugDraw) {
        // Categories the viewer switched off are skipped before any work is done for them.
        let (aabbs, velocities) = (draw.wants(DrawCategory::Aabb), draw.wants(DrawCategory::Velocity));
        if aabbs || velocities {
            for (b, aabb) in self.bodies.iter().zip(&self.aabbs) {
                if aabbs {
                    let color = if b.asleep { [0.4, 0.4, 0.6, 1.0] } else { [0.2, 0.9, 0.4, 1.0] };
                    draw.aabb(DrawCategory::Aabb, aabb, color);
                }
                if velocities && b.is_dynamic() && !b.asleep {
                    let p = b.pose.translation;
                    draw.line(DrawCategory::Velocity, p, p + b.linvel * 0.1, [1.0, 0.8, 0.1, 1.0]);
                }
            }
        }
        if draw.wants(DrawCategory::ContactPoint) || draw.wants(DrawCategory::ContactNormal) {
            for c in &self.contacts {
                for cp in c.manifold.points() {
                    let color = if cp.depth >= 0.0 { [1.0, 0.2, 0.2, 1.0] } else { [0.3, 0.6, 1.0, 1.0] };
                    draw.point(DrawCategory::ContactPoint, cp.point, 6.0, color);
                    // Length shows depth: a fixed stem plus ten times the penetration.
                    let len = 0.1 + 10.0 * cp.depth.max(0.0);
                    let tip = cp.point + c.manifold.normal * len;
                    draw.line(DrawCategory::ContactNormal, cp.point, tip, [1.0, 0.3, 0.9, 1.0]);
                }
            }
        }
        if draw.wants(DrawCategory::ContactForce) {
            self.debug_draw_forces(draw);
        }
        if draw.wants(DrawCategory::CandidatePair) {
            for &(a, b) in &self.pairs {
                let (pa, pb) = (self.bodies[a as usize].pose.translation, self.bodies[b as usize].pose.translation);
                draw.line(DrawCategory::CandidatePair, pa, pb, [0.9, 0.9, 0.9, 0.5]);
            }
        }
        if draw.wants(DrawCategory::BroadPhase) {
            self.broad_phase.debug_draw(&self.aabbs, draw);
        }
        if draw.wants(DrawCategory::Ccd) {
            self.debug_draw_ccd(draw);
        }
        if draw.wants(DrawCategory::NarrowPhase) {
            self.debug_draw_mesh_edges(DrawCategory::NarrowPhase, draw);
        }
        if draw.wants(DrawCategory::Mesh) {
            self.debug_draw_mesh_edges(DrawCategory::Mesh, draw);
            self.debug_draw_mesh_queries(draw);
            self.debug_draw_mesh_normals(draw);
        }
    }

    /// The mesh edges within half a metre of each awake dynamic body, active or inactive for
    /// the internal-edge modes.
    fn debug_draw_mesh_edges(&self, category: DrawCategory, draw: &mut DebugDraw) {
        for m in &self.bodies {
            let Some(mesh) = narrowphase::mesh::MeshRef::of(&m.shape) else { continue };
            for b in self.bodies.iter().filter(|b| b.is_dynamic() && !b.asleep) {
                let region = b.shape.aabb(&m.pose.inv_mul(&b.pose)).expanded(0.5);
                if region.overlaps(&m.shape.local_aabb()) {
                    narrowphase::mesh::draw_edges(mesh, &m.pose, &region, category, draw);
                }
            }
        }
    }

    /// Swept volumes of the fast bodies, their paths, and the impacts that stopped them.
    /// Each contact point's last normal impulse (along the normal, from A to B) and friction
    /// impulse, the longest arrow half a metre.
    fn debug_draw_forces(&self, draw: &mut DebugDraw) {
        let arrows: Vec<(Vec3, Vec3, Vec3)> = (0..self.contacts.len())
            .filter_map(|k| Some((&self.contacts[k], self.contact_impulses(k)?)))
            .flat_map(|(c, imp)| {
                c.manifold
                    .points()
                    .iter()
                    .zip(imp.iter())
                    .map(|(p, i)| (p.point, c.manifold.normal * i.normal, i.tangent))
            })
            .collect();
        let largest = arrows.iter().map(|(_, n, t)| n.length().max(t.length())).fold(0.0, Real::max);
        if largest <= 0.0 || !largest.is_finite() {
            return;
        }
        let scale = 0.5 / largest;
        for (p, n, t) in arrows {
            if n.length() > 0.0 {
                draw.line(DrawCategory::ContactForce, p, p + n * scale, [1.0, 0.55, 0.1, 1.0]);
            }
            if t.length() > 0.0 {
                draw.line(DrawCategory::ContactForce, p, p + t * scale, [0.3, 0.95, 0.95, 1.0]);
            }
        }
    }

    fn debug_draw_ccd(&self, draw: &mut DebugDraw) {
        const SWEEP: [f32; 4] = [1.0, 0.55, 0.0, 0.8];
        const IMPACT: [f32; 4] = [1.0, 0.1, 0.1, 1.0];
        const SWEEP_BOX: [f32; 4] = [1.0, 0.55, 0.0, 0.35];
        for s in &self.ccd_sweeps {
            // The shape where the sweep starts and where it would end, the path of its centre
            // between, and the box the sweep was tested in.
            let shape = &self.bodies[s.body as usize].shape;
            ccd::shape_outline(draw, DrawCategory::Ccd, shape, &s.from, SWEEP);
            ccd::shape_outline(draw, DrawCategory::Ccd, shape, &s.to, SWEEP);
            draw.aabb(DrawCategory::Ccd, &s.aabb, SWEEP_BOX);
            draw.line(DrawCategory::Ccd, s.from.translation, s.to.translation, SWEEP);
            draw.point(DrawCategory::Ccd, s.from.translation, 5.0, SWEEP);
        }
        for e in &self.toi_events {
            draw.point(DrawCategory::Ccd, e.point, 9.0, IMPACT);
            draw.point(DrawCategory::Ccd, e.center, 6.0, IMPACT);
            draw.line(DrawCategory::Ccd, e.point, e.point - e.normal * 0.25, IMPACT);
        }
    }
}

fn is_cuboid(b: &Body) -> bool {
    matches!(b.shape, Shape::Cuboid(_))
}
