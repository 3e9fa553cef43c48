//! Sequential-impulse contact solver over substeps (after Box2D v3's soft step): contacts are
//! found once per step; each substep integrates velocities, solves with position correction,
//! integrates positions and relaxes without it; restitution is applied last.
//!
//! Speed comes from the layout (`rows`): the passes touch only a compact velocity state per
//! body and, per manifold, Jacobians and effective masses computed once per step.

mod build;
mod colour;
mod lanes;
mod passes;
mod prepare;
mod recycle;
mod rows;
mod wide;

use super::{Body, BodyKind, Rotations};
use crate::math::{Quat, Real, Vec3};
use crate::narrowphase::{MAX_MANIFOLD_POINTS, Manifold};
use crate::parallel::{Crew, SharedMut};
use crate::settings::{PositionCorrection, Settings};
use crate::simd::Kernels;
use crate::timer::PhaseTimer;
use colour::Colouring;
use lanes::W;
use passes::{BODY_BLOCK, Passes};
use prepare::BodyMass;
use rows::{BodyState, Fall, ManifoldRows, PassParams, PointInfo, Softness};
use wide::{Bounce, Bundle, Isa};

/// A contact between two bodies: indices and manifold, as the narrow phase produced it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Contact {
    /// Body A's index.
    pub a: u32,
    /// Body B's index.
    pub b: u32,
    /// The manifold, normal from A to B.
    pub manifold: Manifold,
}

/// Impulses kept between steps for warm starting, matched by pair and feature id, or by
/// position where the id changed (see `prepare::find_point`). The point's share of the
/// manifold's friction impulse is a world-space vector, so it survives any change of friction
/// basis (or of the normal's sign pattern) between steps; its share of the twist impulse is
/// about the manifold's normal.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CachedImpulse {
    /// The point's feature id.
    pub id: u32,
    /// Normal impulse, N·s.
    pub normal: Real,
    /// Friction impulse, world space, N·s.
    pub tangent: Vec3,
    /// Twist impulse about the normal, N·m·s.
    pub twist: Real,
    /// Where the point was (world space) when the contact was found.
    pub point: Vec3,
}

/// One point of a pair's kept contact (contact recycling, after rapier's): the geometry of the
/// manifold as the narrow phase made it, reused while the bodies stay near where they were then,
/// so each body's lever arm stays what it was instead of following the current contact geometry
/// and the body's rotation (which lets tall soft-contact columns buckle: docs/dynamics.md,
/// *Stacks*). All zero: nothing kept.
/// `repr(C)`: recycling reads the fields as floats 0..15, in this order.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct Kept {
    /// The point on A's surface and on B's (the point ± depth/2 along the normal), each in its
    /// body's frame: the depth now is their separation along the kept normal.
    pub anchor_a: Vec3,
    /// The point on B's surface, in B's frame.
    pub anchor_b: Vec3,
    /// The lever arms, the point less each body's centre, in world space (they do not turn).
    pub arm_a: Vec3,
    /// B's lever arm, in world space.
    pub arm_b: Vec3,
    /// The normal in A's frame (zero: nothing kept).
    pub normal: Vec3,
}

/// How far (m) a kept point's anchor may move from its frozen lever arm, or the two anchors
/// slide apart, before the pair's contact is made again from the narrow phase.
pub const RECYCLE_DISTANCE: Real = 0.01;
/// How much deeper (m) the narrow phase may find the pair than its kept contact says before
/// the contact is made again.
pub const RECYCLE_DEPTH: Real = 0.000_5;
/// Cosine of the largest angle between a kept normal and the narrow phase's before the pair's
/// contact is made again (3°).
pub const RECYCLE_COS: Real = 0.998_629_5;

/// One pair's entry in the warm-starting cache: the pair and its points' impulses.
pub type CacheEntry = ((u32, u32), [CachedImpulse; MAX_MANIFOLD_POINTS]);

/// Warm-starting cache: last step's impulses per pair, sorted by pair, and each pair's kept
/// contact. The kept contacts live in a pool that persists from step to step, each entry naming
/// its slot: a pair whose contact is recycled keeps its slot, so its 240 bytes are neither
/// copied nor moved as pairs come and go; a contact made again is written into its pair's slot
/// (a new pair takes a slot no entry names). It reads as the slice of its entries.
#[derive(Clone, Debug, Default)]
pub struct WarmCache {
    entries: Vec<CacheEntry>,
    /// Per entry, the pool slot of its pair's kept points. No two entries name one slot.
    slots: Vec<u32>,
    /// Kept points (all zero: nothing kept); slots no entry names are free.
    pool: Vec<[Kept; MAX_MANIFOLD_POINTS]>,
}

impl WarmCache {
    /// A cache of these entries and their kept contacts (`kept` as long as `entries`).
    pub fn new(entries: Vec<CacheEntry>, kept: Vec<[Kept; MAX_MANIFOLD_POINTS]>) -> Self {
        assert_eq!(entries.len(), kept.len(), "one kept contact per entry");
        let slots = (0..entries.len() as u32).collect();
        WarmCache { entries, slots, pool: kept }
    }

    /// Each entry's kept contact, in entry order.
    pub fn kept(&self) -> impl Iterator<Item = &[Kept; MAX_MANIFOLD_POINTS]> {
        self.slots.iter().map(|&s| &self.pool[s as usize])
    }

    /// Empties the cache.
    pub fn clear(&mut self) {
        self.entries.clear();
        self.slots.clear();
        self.pool.clear();
    }

    /// Keeps the entries (and their kept contacts) for whose pair `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut((u32, u32)) -> bool) {
        let mut k = 0;
        for i in 0..self.entries.len() {
            if keep(self.entries[i].0) {
                self.entries.swap(k, i);
                self.slots.swap(k, i);
                k += 1;
            }
        }
        self.entries.truncate(k);
        self.slots.truncate(k);
    }
}

/// Two caches are equal when they hold the same entries with the same kept contacts, wherever
/// in their pools those are.
impl PartialEq for WarmCache {
    fn eq(&self, other: &Self) -> bool {
        self.entries == other.entries && self.kept().eq(other.kept())
    }
}

impl std::ops::Deref for WarmCache {
    type Target = [CacheEntry];
    fn deref(&self) -> &[CacheEntry] {
        &self.entries
    }
}

/// Time spent in the solver's parts, ms.
#[derive(Clone, Copy, Debug, Default)]
pub struct SolverTimes {
    /// Velocity passes and position correction, ms.
    pub solve_ms: f64,
    /// Position integration, ms.
    pub integrate_ms: f64,
}

/// Which contact each lane of a bundle holds (`u32::MAX`: an empty lane), with the number of
/// points and their feature ids: what the warm-start cache needs, read bundle by bundle.
#[derive(Clone, Copy, Debug)]
struct Lanes {
    contact: [u32; W],
    len: [u8; W],
    ids: [[u32; MAX_MANIFOLD_POINTS]; W],
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes { contact: [u32::MAX; W], len: [0; W], ids: [[u32::MAX; MAX_MANIFOLD_POINTS]; W] }
    }
}

/// How a body takes part in the step's integration.
#[derive(Clone, Copy, Debug)]
struct Motion {
    /// The rotation since the step began.
    dq: Quat,
    /// Dynamic and awake: gravity acts on it and it keeps the solved velocities.
    dynamic: bool,
    /// Moves at all this step (dynamic and awake, or kinematic).
    moves: bool,
}

/// The contact solver. It keeps its buffers between steps so a step allocates nothing once the
/// scene's size is reached.
#[derive(Clone, Debug, Default)]
pub struct Solver {
    states: Vec<BodyState>,
    motion: Vec<Motion>,
    masses: Vec<BodyMass>,
    /// Per body, its pose at the start of the step as eight floats (rotation x, y, z, w,
    /// translation x, y, z, 0), which recycling reads eight bodies at a time.
    poses: Vec<[f32; 8]>,
    /// Per body: the solver changes its velocity (dynamic and awake).
    responds: Vec<bool>,
    /// Per contact: its entry in last step's warm-start cache (`u32::MAX`: none).
    warm: Vec<u32>,
    /// The step's contacts as the rows are built from: kept ones where still valid, else the
    /// narrow phase's; per contact the points' B-side lever-arm ends (world) and the slot of
    /// its kept points in the warm-start cache's pool.
    recycled: Vec<Contact>,
    arm_b: Vec<[Vec3; MAX_MANIFOLD_POINTS]>,
    slots: Vec<u32>,
    /// Per slot of the pool: a contact has it (scratch of `assign_slots`).
    taken: Vec<bool>,
    colouring: Colouring,
    /// The coloured contacts, eight to a bundle, colour after colour.
    bundles: Vec<Bundle>,
    /// Some bundle has a lane with restitution (else the restitution pass is skipped).
    any_bounce: bool,
    /// Per bundle: what restitution reads.
    bounces: Vec<Bounce>,
    /// Per bundle: which contact each lane holds, with its points' feature ids.
    lanes: Vec<Lanes>,
    /// The rows of the contacts that got no colour, in contact order.
    overflow: Vec<ManifoldRows>,
    overflow_info: Vec<[PointInfo; MAX_MANIFOLD_POINTS]>,
    /// Per body: it touches a moving kinematic body, or is one (see `pinned`).
    driven: Vec<bool>,
    /// A second copy of the rows of each contact between a driven body and a body that does not
    /// respond (static, kinematic or asleep), starting from no impulse, solved after each pass: in a
    /// single Gauss–Seidel pass the last row solved wins, and a body that a kinematic paddle
    /// drives into a pile took the pile's push into the floor or the paddle last (a capsule sank
    /// 9 mm into the floor in one step and passed under the paddle). Its impulses only add to
    /// the first copy's, so they stop what that copy let through and nothing else.
    pinned: Vec<ManifoldRows>,
    isa: Option<Isa>,
}

/// A dynamic body touching one at least this many times heavier is pinched (`Solver::mark_driven`).
const PINCH_MASS_RATIO: Real = 10.0;

/// Largest rotation (rad) a body may turn through in one substep.
const MAX_ROTATION_PER_SUBSTEP: Real = 0.25 * std::f32::consts::PI;

/// The softness of contacts whose bodies both move, and of contacts against a body that does
/// not (static, kinematic or asleep): those are twice as stiff, as only one side gives.
fn softness(settings: &Settings, h: Real) -> [Softness; 2] {
    [soft_at(settings, settings.contact_hertz, h), soft_at(settings, 2.0 * settings.contact_hertz, h)]
}

fn soft_at(settings: &Settings, hertz: Real, h: Real) -> Softness {
    match settings.position_correction {
        PositionCorrection::Soft => {
            // Stiffer than a quarter of the substep rate would be unstable.
            let hz = hertz.min(0.25 / h);
            let omega = 2.0 * std::f32::consts::PI * hz;
            let zeta = settings.damping_ratio;
            let a1 = 2.0 * zeta + h * omega;
            let a2 = h * omega * a1;
            let a3 = 1.0 / (1.0 + a2);
            Softness { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
        }
        PositionCorrection::Baumgarte => {
            Softness { bias_rate: settings.baumgarte / h, mass_scale: 1.0, impulse_scale: 0.0 }
        }
    }
}

impl Solver {
    /// Solves `contacts` and integrates every body over one step of `settings.dt`. `cache`
    /// holds last step's impulses sorted by pair and is replaced with this step's. `rotations`
    /// holds the matrices of the awake dynamic bodies, built since they last moved. With a
    /// `crew`, the work is shared among its threads with the same results, bit for bit.
    pub fn step(
        &mut self,
        bodies: &mut [Body],
        contacts: &[Contact],
        settings: &Settings,
        cache: &mut WarmCache,
        rotations: &Rotations,
        crew: Option<&Crew>,
    ) -> SolverTimes {
        let mut times = SolverTimes::default();
        let substeps = settings.substeps.max(1);
        let h = settings.dt / substeps as Real;
        let inv_h = 1.0 / h;

        let t_prepare = PhaseTimer::new(&mut times.solve_ms);
        self.prepare_bodies(bodies, rotations, settings, crew);
        self.match_cache(contacts, settings, cache, crew);
        self.assign_slots(cache);
        let mut recycled = std::mem::take(&mut self.recycled);
        self.recycle(bodies, contacts, cache, &mut recycled, crew);
        let contacts = &recycled[..];
        self.mark_driven(bodies, contacts);
        let isa = *self.isa.get_or_insert_with(Isa::best);
        let fall = Fall { gravity: settings.gravity, dt: settings.dt };
        self.prepare_rows(isa, bodies, contacts, cache, fall, crew);
        self.prepare_pinned(contacts, fall);
        // Where position correction stops pushing. Soft contacts aim at half the slop so that
        // their sag under load still settles within it; Baumgarte pushes only beyond it.
        let rest_depth = match settings.position_correction {
            PositionCorrection::Soft => 0.5 * settings.slop,
            PositionCorrection::Baumgarte => settings.slop,
        };
        let solve = PassParams {
            soft: softness(settings, h),
            inv_h,
            rest_depth,
            max_push: settings.max_correction_velocity,
            use_bias: true,
            first_point: 0,
        };
        let relax = PassParams { use_bias: false, ..solve };
        // Rotation per substep is capped so that fast spin cannot wrap the quaternion update.
        let max_w = MAX_ROTATION_PER_SUBSTEP * inv_h;
        drop(t_prepare);

        let params = Passes { isa, substeps: substeps as usize, h, max_w, solve, relax };
        match crew {
            None => self.passes(settings, &params, &mut times),
            Some(crew) => {
                {
                    let _t = PhaseTimer::new(&mut times.solve_ms);
                    self.passes_parallel(crew, settings, &params);
                    // The substeps' integration runs among the passes: it is counted with them.
                }
            }
        }

        {
            let _t = PhaseTimer::new(&mut times.solve_ms);
            self.store_cache(contacts, cache, crew);
        }

        {
            let _t = PhaseTimer::new(&mut times.integrate_ms);
            let write_back = |((s, m), b): ((&BodyState, &Motion), &mut Body)| {
                if !m.moves {
                    return;
                }
                b.pose.translation += s.dp;
                b.pose.rotation = (m.dq * b.pose.rotation).normalize();
                if m.dynamic {
                    b.linvel = s.v;
                    b.angvel = s.w;
                }
            };
            match crew {
                None => self.states.iter().zip(self.motion.iter()).zip(bodies.iter_mut()).for_each(write_back),
                Some(crew) => {
                    let (states, motion, n) = (&self.states, &self.motion, bodies.len());
                    let bodies = SharedMut::new(bodies);
                    crew.for_blocks(n, BODY_BLOCK, |r| {
                        // SAFETY: each block writes back its own bodies.
                        let out = unsafe { bodies.range(r.clone()) };
                        states[r.clone()].iter().zip(&motion[r]).zip(out).for_each(write_back);
                    });
                }
            }
        }
        self.recycled = recycled;
        times
    }

    /// Gives each contact the pool slot of its kept points: a pair with a cache entry keeps the
    /// entry's slot (a recycled contact's points stay where they are), a new pair takes a slot
    /// no such pair has (a gone pair's) or a new one at the end of the pool.
    fn assign_slots(&mut self, cache: &mut WarmCache) {
        self.taken.clear();
        self.taken.resize(cache.pool.len(), false);
        for &w in &self.warm {
            if w != u32::MAX {
                let s = cache.slots[w as usize] as usize;
                // `recycle` writes each contact's slot, on any thread: they must differ.
                assert!(!self.taken[s], "two cache entries name kept slot {s}");
                self.taken[s] = true;
            }
        }
        self.slots.clear();
        let mut free = 0;
        for &w in &self.warm {
            let s = if w != u32::MAX {
                cache.slots[w as usize]
            } else {
                while free < self.taken.len() && self.taken[free] {
                    free += 1;
                }
                if free == self.taken.len() {
                    cache.pool.push([Kept::default(); MAX_MANIFOLD_POINTS]);
                    self.taken.push(false);
                }
                self.taken[free] = true;
                free as u32
            };
            self.slots.push(s);
        }
    }

    /// Fills `out` with the contacts the rows are built from: a pair's kept contact while its
    /// point count is the narrow phase's and its bodies stay within [`RECYCLE_DISTANCE`] and
    /// [`RECYCLE_COS`] of where they were when it was made, else the narrow phase's manifold,
    /// which is kept from now on (in the contact's pool slot). Also fills the B-side lever-arm
    /// ends.
    fn recycle(
        &mut self,
        bodies: &[Body],
        contacts: &[Contact],
        cache: &mut WarmCache,
        out: &mut Vec<Contact>,
        crew: Option<&Crew>,
    ) {
        let n = contacts.len();
        out.resize(n, Contact { a: 0, b: 0, manifold: Manifold::default() });
        out.truncate(n);
        self.arm_b.resize(n, [Vec3::ZERO; MAX_MANIFOLD_POINTS]);
        self.arm_b.truncate(n);
        let isa = *self.isa.get_or_insert_with(Isa::best);
        let (entries, pool) = (&cache.entries, SharedMut::new(&mut cache.pool));
        let (warm, poses, slot) = (&self.warm, &self.poses, &self.slots);
        match crew {
            None => {
                let slots = recycle::Slots { out, arm_b: &mut self.arm_b, slot, pool: &pool };
                recycle::run(isa, bodies, poses, contacts, warm, entries, slots);
            }
            Some(crew) => {
                let (out, arm_b) = (SharedMut::new(out), SharedMut::new(&mut self.arm_b));
                crew.for_blocks(n, 64, |r| {
                    // SAFETY: each block writes its own contacts' slots (and their pool slots,
                    // which no other contact has: `assign_slots`).
                    let slots = unsafe {
                        recycle::Slots {
                            out: out.range(r.clone()),
                            arm_b: arm_b.range(r.clone()),
                            slot: &slot[r.clone()],
                            pool: &pool,
                        }
                    };
                    recycle::run(isa, bodies, poses, &contacts[r.clone()], &warm[r], entries, slots);
                });
            }
        }
    }

    /// Marks the moving kinematic bodies that touch something and what they touch, and the
    /// dynamic bodies pressed by a much heavier dynamic body (`driven`): in one Gauss–Seidel
    /// pass the row solved last wins, so a small body between a heavy one and the floor took the
    /// heavy body's push into the floor (a 2 t box driven at 8 m/s onto a ball on a 2 cm floor
    /// pushed it through). Their rows against bodies that do not respond get a second copy.
    fn mark_driven(&mut self, bodies: &[Body], contacts: &[Contact]) {
        self.driven.clear();
        self.driven.resize(bodies.len(), false);
        let driving = |b: &Body| b.kind == BodyKind::Kinematic && (b.linvel != Vec3::ZERO || b.angvel != Vec3::ZERO);
        let kinematic = bodies.iter().any(driving);
        for c in contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            if kinematic && (driving(&bodies[a]) || driving(&bodies[b])) {
                self.driven[a] = true;
                self.driven[b] = true;
            }
            // Both respond: the lighter is pinched when the other is PINCH_MASS_RATIO times heavier.
            let (ma, mb) = (self.masses[a].inv_mass, self.masses[b].inv_mass);
            if ma > 0.0 && mb > 0.0 {
                if ma > PINCH_MASS_RATIO * mb {
                    self.driven[a] = true;
                } else if mb > PINCH_MASS_RATIO * ma {
                    self.driven[b] = true;
                }
            }
        }
    }

    /// Each body's solver state and mass; the `restitution` and `friction` settings, when set,
    /// stand in for every body's own material in the pair combine.
    fn prepare_bodies(&mut self, bodies: &[Body], rotations: &Rotations, settings: &Settings, crew: Option<&Crew>) {
        let entry = |i: usize, b: &Body| {
            let dynamic = b.is_dynamic() && !b.asleep && b.inv_mass > 0.0;
            let moves = (b.is_dynamic() && !b.asleep) || b.kind == BodyKind::Kinematic;
            let (v, w) = if moves { (b.linvel, b.angvel) } else { (Vec3::ZERO, Vec3::ZERO) };
            let awake_dynamic = b.is_dynamic() && !b.asleep;
            let mass = BodyMass {
                inv_mass: if awake_dynamic { b.inv_mass } else { 0.0 },
                inv_i: if awake_dynamic {
                    b.inv_inertia_world_with(rotations.get(i, b)).to_cols_array()
                } else {
                    [0.0; 9]
                },
                pos: b.pose.translation,
                friction: settings.friction.unwrap_or(b.material.friction),
                restitution: settings.restitution.unwrap_or(b.material.restitution),
            };
            let state = BodyState { v, w, dp: Vec3::ZERO, dtheta: Vec3::ZERO };
            let (q, x) = (b.pose.rotation, b.pose.translation);
            let pose = [q.x, q.y, q.z, q.w, x.x, x.y, x.z, 0.0];
            (state, Motion { dq: Quat::IDENTITY, dynamic, moves }, mass, awake_dynamic, pose)
        };
        match crew {
            None => {
                self.states.clear();
                self.motion.clear();
                self.masses.clear();
                self.responds.clear();
                self.poses.clear();
                for (i, b) in bodies.iter().enumerate() {
                    let (state, motion, mass, responds, pose) = entry(i, b);
                    self.states.push(state);
                    self.motion.push(motion);
                    self.masses.push(mass);
                    self.responds.push(responds);
                    self.poses.push(pose);
                }
            }
            Some(crew) => {
                let n = bodies.len();
                self.states.resize(n, BodyState::default());
                self.states.truncate(n);
                self.motion.resize(n, Motion { dq: Quat::IDENTITY, dynamic: false, moves: false });
                self.masses.resize(n, BodyMass::default());
                self.responds.resize(n, false);
                self.poses.resize(n, [0.0; 8]);
                let (s, m) = (SharedMut::new(&mut self.states), SharedMut::new(&mut self.motion));
                let (ms, rs) = (SharedMut::new(&mut self.masses), SharedMut::new(&mut self.responds));
                let ps = SharedMut::new(&mut self.poses);
                crew.for_blocks(n, BODY_BLOCK, |r| {
                    for i in r {
                        // SAFETY: each block writes its own bodies' slots.
                        unsafe { (*s.get(i), *m.get(i), *ms.get(i), *rs.get(i), *ps.get(i)) = entry(i, &bodies[i]) };
                    }
                });
            }
        }
    }

    /// Finds each contact's entry in last step's cache: both are sorted by pair, so one walk (on
    /// a pool, one walk per run of contacts, each starting where a binary search puts it: the
    /// same entries).
    fn match_cache(&mut self, contacts: &[Contact], settings: &Settings, cache: &WarmCache, crew: Option<&Crew>) {
        const RUN: usize = 1024;
        // A pair with several manifolds (a mesh pair across a crease) has them side by side in
        // both lists: the n-th of them takes the pair's n-th entry, if it has one.
        let walk = |start: usize, warm: &mut [u32]| {
            let run = &contacts[start..start + warm.len()];
            let Some(first) = run.first() else { return };
            let mut cursor = cache.partition_point(|e| e.0 < (first.a, first.b));
            let same = |c: &Contact, d: &Contact| (c.a, c.b) == (d.a, d.b);
            let mut nth = contacts[..start].iter().rev().take_while(|c| same(c, first)).count();
            for (k, (w, c)) in warm.iter_mut().zip(run).enumerate() {
                nth = if k > 0 && same(c, &run[k - 1]) {
                    nth + 1
                } else if k > 0 {
                    0
                } else {
                    nth
                };
                *w = if settings.warm_starting {
                    prepare::find_cached(cache, &mut cursor, (c.a, c.b))
                        .map(|e| e + nth)
                        .filter(|&e| cache.get(e).is_some_and(|e| e.0 == (c.a, c.b)))
                        .map_or(u32::MAX, |e| e as u32)
                } else {
                    u32::MAX
                };
            }
        };
        self.warm.resize(contacts.len(), u32::MAX);
        self.warm.truncate(contacts.len());
        match crew {
            None => walk(0, &mut self.warm),
            Some(crew) => {
                let warm = SharedMut::new(&mut self.warm);
                crew.for_blocks(contacts.len().div_ceil(RUN), 1, |r| {
                    for k in r {
                        let run = k * RUN..((k + 1) * RUN).min(contacts.len());
                        // SAFETY: each block walks its own runs.
                        walk(run.start, unsafe { warm.range(run) });
                    }
                });
            }
        }
    }

    /// Colours the contacts, then builds each one's rows straight into its bundle lane (or the
    /// overflow). The last state, after the bodies', is the dummy body of empty lanes.
    fn prepare_rows(
        &mut self,
        isa: Isa,
        bodies: &[Body],
        contacts: &[Contact],
        cache: &WarmCache,
        fall: Fall,
        crew: Option<&Crew>,
    ) {
        let dummy = bodies.len() as u32;
        self.states.push(BodyState::default());
        self.colouring.build(contacts, &self.responds);
        let rows_of = |m: u32, info: &mut [PointInfo; MAX_MANIFOLD_POINTS]| {
            let c = &contacts[m as usize];
            let (ia, ib) = (c.a as usize, c.b as usize);
            let cached = self.warm[m as usize];
            prepare::manifold_rows(
                c,
                (&self.masses[ia], &self.states[ia]),
                (&self.masses[ib], &self.states[ib]),
                (cached != u32::MAX).then(|| &cache[cached as usize].1),
                &self.arm_b[m as usize],
                fall,
                info,
            )
        };
        let count: usize = (0..self.colouring.colours()).map(|c| self.colouring.colour(c).len().div_ceil(W)).sum();
        self.bundles.resize(count, Bundle::default());
        self.bounces.resize(count, Bounce::default());
        self.lanes.resize(count, Lanes::default());
        let src = build::Sources {
            contacts,
            arm_b: &self.arm_b,
            masses: &self.masses,
            states: &self.states,
            warm: &self.warm,
            responds: &self.responds,
            cache,
            dummy,
            fall,
        };
        let order = &self.colouring.order;
        match crew {
            Some(crew) => {
                // Each bundle is built from its own contacts alone: side by side, in any order.
                let mut chunks = Vec::with_capacity(count);
                for c in 0..self.colouring.colours() {
                    let (start, len) = (self.colouring.starts[c], self.colouring.colour(c).len());
                    chunks.extend((start..start + len).step_by(W).map(|at| at..(at + W).min(start + len)));
                }
                let (bundles, bounces) = (SharedMut::new(&mut self.bundles), SharedMut::new(&mut self.bounces));
                let lanes = SharedMut::new(&mut self.lanes);
                crew.for_blocks(count, 16, |r| {
                    let mut inputs = build::Inputs::default();
                    for k in r {
                        // SAFETY: each block builds its own bundles.
                        let (bundle, bounce, lanes) = unsafe { (bundles.get(k), bounces.get(k), lanes.get(k)) };
                        build::bundle(isa, &src, &mut inputs, &order[chunks[k].clone()], bundle, bounce, lanes);
                    }
                });
                self.any_bounce = self.bundles.iter().any(|b| b.bounces);
            }
            None => {
                let mut inputs = build::Inputs::default();
                let mut any_bounce = false;
                let mut next = 0;
                for c in 0..self.colouring.colours() {
                    let colour = self.colouring.colour(c);
                    for (k, chunk) in colour.chunks(W).enumerate() {
                        // Rows are built in colour order, which jumps through the contacts, the
                        // cache and the bodies: ask for the contacts two bundles ahead, and for
                        // the bodies of the next bundle, whose contacts were asked for one
                        // bundle ago.
                        let at = self.colouring.starts[c] + k * W;
                        for &m in order.iter().skip(at + 2 * W).take(W) {
                            prepare::prefetch(&contacts[m as usize]);
                            if let Some(e) = cache.get(self.warm[m as usize] as usize) {
                                prepare::prefetch(e);
                            }
                        }
                        for &m in order.iter().skip(at + W).take(W) {
                            let contact = &contacts[m as usize];
                            for body in [contact.a as usize, contact.b as usize] {
                                crate::simd::prefetch(&self.masses[body]);
                                crate::simd::prefetch(&self.states[body]);
                            }
                        }
                        let (bundle, lanes, bounce) =
                            (&mut self.bundles[next], &mut self.lanes[next], &mut self.bounces[next]);
                        next += 1;
                        build::bundle(isa, &src, &mut inputs, chunk, bundle, bounce, lanes);
                        any_bounce |= bundle.bounces;
                    }
                }
                self.any_bounce = any_bounce;
            }
        }
        self.overflow.clear();
        self.overflow_info.clear();
        for &m in &self.colouring.overflow {
            let mut info = [PointInfo::default(); MAX_MANIFOLD_POINTS];
            self.overflow.push(rows_of(m, &mut info));
            self.overflow_info.push(info);
        }
    }

    /// The second copy of the driven bodies' rows against bodies that do not respond
    /// (`pinned`), in contact order, starting from no impulse.
    fn prepare_pinned(&mut self, contacts: &[Contact], fall: Fall) {
        self.pinned.clear();
        if !self.driven.contains(&true) {
            return;
        }
        for (m, c) in contacts.iter().enumerate() {
            let (ia, ib) = (c.a as usize, c.b as usize);
            if !(self.driven[ia] || self.driven[ib]) || self.responds[ia] == self.responds[ib] {
                continue;
            }
            let mut info = [PointInfo::default(); MAX_MANIFOLD_POINTS];
            let (a, b) = ((&self.masses[ia], &self.states[ia]), (&self.masses[ib], &self.states[ib]));
            self.pinned.push(prepare::manifold_rows(c, a, b, None, &self.arm_b[m], fall, &mut info));
        }
    }
}

#[cfg(test)]
impl Solver {
    /// A solver that runs the given code path.
    fn with_isa(isa: Isa) -> Self {
        Solver { isa: Some(isa), ..Default::default() }
    }
}

#[cfg(test)]
mod tests;
