//! Sequential-impulse contact solver over substeps (after Box2D v3's soft step): contacts are
//! found once per step; each substep integrates velocities, solves with position correction,
//! integrates positions and relaxes without it; restitution is applied last.
//!
//! Speed comes from the layout (`rows`): the passes touch only a compact velocity state per
//! body and, per manifold, Jacobians and effective masses computed once per step.

mod build;
mod colour;
mod context;
mod lanes;
mod passes;
mod prepare;
mod recycle;
mod rows;
mod wide;

use super::joints::{JointSolver, Joints};
use super::{Body, BodyKind, Rotations};
use crate::math::{Quat, Real, Vec3};
use crate::narrowphase::{MAX_MANIFOLD_POINTS, Manifold};
use crate::parallel::{self, Crew};
use crate::simd::Kernels;
use crate::timer::Laps;
use crate::union_find;
use colour::Colouring;
pub use context::StepContext;
use lanes::W;
use passes::BODY_BLOCK;
use prepare::BodyMass;
pub(crate) use rows::BodyState;
use rows::{Fall, ManifoldRows, PointInfo};
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
    /// The normal in world space as the narrow phase made it (zero: nothing kept); point 1's
    /// holds it in A's frame instead, whatever the point count, to tell how far A turned since.
    /// Like the lever arms the normal does not turn with A: turned with a support's spurious
    /// tilt it pushes the bodies sideways along the tilt (docs/dynamics.md, *Contact recycling*).
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
/// Cosine of the largest angle A may turn the kept normal through (0.5°) before the pair's
/// contact is made again: the kept normal does not turn with A, so a support that really turns
/// (a swinging plank, a struck body) gets its contact made again, while a spurious solver tilt
/// (0.015° in a frictionless pair settling) does not turn it.
pub const RECYCLE_TURN_COS: Real = 0.999_961_9;

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
    /// The point impulses of entry `warm`, a contact's match in this cache (`u32::MAX`: none).
    fn impulses(&self, warm: u32) -> Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]> {
        (warm != u32::MAX).then(|| &self.entries[warm as usize].1)
    }

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
    /// Body and row setup, velocity passes, position correction and the substeps' integration
    /// (which runs among the passes), ms.
    pub solve_ms: f64,
    /// The final write-back of poses and velocities to the bodies, ms.
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
    /// The step's contacts as the rows are built from: kept ones where still valid, else the
    /// narrow phase's; per contact the points' B-side lever-arm ends (world) and the slot of
    /// its kept points in the warm-start cache's pool.
    recycled: Vec<Contact>,
    arm_b: Vec<[Vec3; MAX_MANIFOLD_POINTS]>,
    slots: Vec<u32>,
    /// Per slot of the pool: a contact has it (scratch of `assign_slots`).
    taken: Vec<bool>,
    colouring: Colouring,
    /// Per bundle, its contacts' range of the colouring's order.
    chunks: Vec<std::ops::Range<usize>>,
    /// The coloured contacts, eight to a bundle, colour after colour.
    bundles: Vec<Bundle>,
    /// Some manifold has restitution (else the restitution pass is skipped).
    any_bounce: bool,
    /// Per bundle: what restitution reads.
    bounces: Vec<Bounce>,
    /// Per bundle: which contact each lane holds, with its points' feature ids.
    lanes: Vec<Lanes>,
    /// The rows of the contacts that got no colour, in contact order.
    overflow: Vec<ManifoldRows>,
    overflow_info: Vec<[PointInfo; MAX_MANIFOLD_POINTS]>,
    /// Per body: it touches a moving kinematic body, or is one (see `pinned`); and the bodies
    /// marked, by which the next step clears them.
    driven: Vec<bool>,
    driven_list: Vec<u32>,
    /// Per body: a contact of the step with a body outside its jointed group acts on the group
    /// (read by the joints, when there are any; `mark_outside_contacts`).
    outside_contact: Vec<bool>,
    /// Per body: its jointed group's root (scratch of `mark_outside_contacts`).
    joint_groups: Vec<u32>,
    /// A second copy of the rows of each contact between a driven body and a body that does not
    /// respond (static, kinematic or asleep), starting from no impulse, solved after each pass: in a
    /// single Gauss–Seidel pass the last row solved wins, and a body that a kinematic paddle
    /// drives into a pile took the pile's push into the floor or the paddle last (a capsule sank
    /// 9 mm into the floor in one step and passed under the paddle). Its impulses only add to
    /// the first copy's, so they stop what that copy let through and nothing else.
    pinned: Vec<ManifoldRows>,
    /// The joints' rows of the step (`crate::dynamics::joints`).
    joints: JointSolver,
    /// The bodies that move this step, when the passes run over them alone (`passes::Work::GravityMovers`).
    movers: Vec<u32>,
    /// The step whose bodies `prepare_bodies` last filled in (`Still::step`), with the body
    /// count and the material overrides (their bits) it used.
    prepared: Option<(u64, usize, Option<u32>, Option<u32>)>,
    /// The passes' list of jobs, kept for the next step's.
    pass_jobs: Vec<parallel::Job<passes::Work>>,
    /// Per colour, its first bundle, and the bundle count last (kept for the next step's).
    colour_ranges: Vec<usize>,
    /// The bundles with a lane against a body that does not move, in colour order, which the
    /// stop sweeps after each position-correcting pass (`wide::stop`); and per colour, its
    /// first entry, the count last (both kept for the next step's).
    stop_list: Vec<u32>,
    stop_ranges: Vec<usize>,
    isa: Option<Isa>,
}

/// Marks in `out`, per body, whether a contact from outside its jointed group (the bodies its
/// unbroken joints `links` connect, directly or through others) acts on any body of the group:
/// with a static body, a free body or another group's body. Contacts within a group (a whipping
/// chain's links striking each other) move with the joints that hold it. `group` is scratch:
/// each body's group root.
fn mark_outside_contacts(
    bodies: usize,
    links: impl Iterator<Item = (u32, u32)>,
    contacts: &[Contact],
    group: &mut Vec<u32>,
    out: &mut Vec<bool>,
) {
    union_find::reset(group, bodies);
    for (a, b) in links {
        union_find::join(group, a, b);
    }
    union_find::flatten(group);
    out.clear();
    out.resize(bodies, false);
    for c in contacts {
        let (ra, rb) = (group[c.a as usize], group[c.b as usize]);
        if ra != rb {
            out[ra as usize] = true;
            out[rb as usize] = true;
        }
    }
    // The whole group: the pull a contact loads onto one body travels through the joints.
    for i in 0..bodies {
        out[i] = out[group[i] as usize];
    }
}

/// A body's solver state and motion at the start of a step: an awake dynamic or a kinematic body
/// moves, at its velocity; an awake dynamic body with mass keeps the solved velocities.
fn start_motion(b: &Body) -> (BodyState, Motion) {
    let dynamic = b.is_dynamic() && !b.asleep && b.inv_mass > 0.0;
    let moves = (b.is_dynamic() && !b.asleep) || b.kind == BodyKind::Kinematic;
    let (v, w) = if moves { (b.linvel, b.angvel) } else { (Vec3::ZERO, Vec3::ZERO) };
    let state = BodyState { v, w, dp: Vec3::ZERO, dtheta: Vec3::ZERO };
    (state, Motion { dq: Quat::IDENTITY, dynamic, moves })
}

/// Writes a moving body's motion over the step to it: its pose, and its velocities if it keeps
/// the solved ones.
#[inline]
fn finish_motion(b: &mut Body, s: &BodyState, m: &Motion) {
    if !m.moves {
        return;
    }
    b.pose.translation += s.dp;
    b.pose.rotation = (m.dq * b.pose.rotation).normalize();
    if m.dynamic {
        b.linvel = s.v;
        b.angvel = s.w;
    }
}

/// Which bodies have not changed since the last step ([`Solver::step`]): `step` is the world's
/// step being solved, and `unchanged[i]` (for every body, or empty: none known) says that body
/// `i` is static or asleep now and was when the last step was solved, with no edit since. The
/// solver keeps what it made of such a body in that step.
#[derive(Clone, Copy, Debug, Default)]
pub struct Still<'a> {
    /// The world's step being solved (1 for its first).
    pub step: u64,
    /// Per body, unchanged since the last step was solved; or empty.
    pub unchanged: &'a [bool],
    /// The bodies not `unchanged`, ascending, when few and known: every other body is static
    /// or asleep now and was when the step began, so the per-body passes visit these alone.
    pub moved: Option<&'a [u32]>,
}

/// A dynamic body touching one at least this many times heavier is pinched (`Solver::mark_driven`).
const PINCH_MASS_RATIO: Real = 10.0;

impl Solver {
    /// Solves `contacts` and integrates every body over one step of `ctx.dt`. `cache` holds
    /// last step's impulses sorted by pair, `matched` each contact's entry in it (`u32::MAX`:
    /// none); the cache is replaced with this step's. `rotations` holds the matrices of the
    /// awake dynamic bodies, built since they last moved (none is read in a free step). `joints` are solved with the contacts
    /// and keep their impulses. With a `crew`, the work is shared among its threads with the
    /// same results, bit for bit. A step with nothing to solve takes a shorter path with the
    /// same results ([`Solver::free`]). On `laps`, the time since its last lap up to the end of
    /// the passes counts as solving, the write-back to the bodies as integrating.
    #[allow(clippy::too_many_arguments)]
    pub fn step(
        &mut self,
        bodies: &mut [Body],
        (contacts, cache, matched): (&[Contact], &mut WarmCache, &[u32]),
        ctx: &StepContext,
        rotations: &Rotations,
        crew: Option<&Crew>,
        joints: &mut Joints,
        laps: &mut Laps,
        still: Still<'_>,
    ) -> SolverTimes {
        let mut times = SolverTimes::default();
        if Self::free(contacts, joints) {
            self.prepared = None;
            Self::step_free(bodies, cache, ctx);
            laps.lap(&mut times.solve_ms);
            return times;
        }
        self.prepare_bodies(bodies, rotations, ctx, crew, still);
        self.assign_slots(cache, matched);
        let mut recycled = std::mem::take(&mut self.recycled);
        self.recycle(bodies, contacts, cache, matched, &mut recycled, crew);
        let contacts = &recycled[..];
        self.mark_driven(bodies, contacts, still.moved);
        let isa = *self.isa.get_or_insert_with(Isa::best);
        self.prepare_rows(isa, bodies, contacts, (cache, matched), (ctx.fall(), ctx.impact_speed()), crew);
        self.prepare_pinned(contacts, ctx.fall());
        let masses = &self.masses;
        let mass = |i: usize| (masses[i].inv_mass, crate::math::Mat3::from_cols_array(&masses[i].inv_i));
        if !joints.is_empty() {
            mark_outside_contacts(
                bodies.len(),
                joints.links(),
                contacts,
                &mut self.joint_groups,
                &mut self.outside_contact,
            );
        }
        self.joints.prepare(
            (joints.list(), joints.states()),
            bodies,
            bodies.len(),
            (mass, &self.outside_contact),
            ctx.joint_softness(),
        );
        let (list, states) = joints.parts_mut();
        self.passes(crew, isa, ctx, states, still.moved);
        self.joints.check_breaks(list, states);
        self.store_cache(contacts, cache, crew);
        // The substeps' integration runs among the passes: it is counted with them.
        laps.lap(&mut times.solve_ms);
        let (states, motion) = (&self.states, &self.motion);
        match still.moved {
            // No other body moves.
            Some(list) => {
                list.iter().map(|&i| i as usize).for_each(|i| finish_motion(&mut bodies[i], &states[i], &motion[i]))
            }
            None => parallel::fill(crew, bodies, BODY_BLOCK, |r, out| {
                for ((s, m), b) in states[r.clone()].iter().zip(&motion[r]).zip(out) {
                    finish_motion(b, s, m);
                }
            }),
        }
        laps.lap(&mut times.integrate_ms);
        self.recycled = recycled;
        times
    }

    /// Whether a step has nothing to solve: no contact and no joint. Each body then moves on its
    /// own ([`Solver::step_free`]) and no rotation matrix is read.
    pub fn free(contacts: &[Contact], joints: &Joints) -> bool {
        contacts.is_empty() && joints.is_empty()
    }

    /// A step with nothing to solve ([`Solver::free`]): each substep's passes would only add
    /// gravity and integrate, body by body, so each moving body does just that, through the
    /// same functions, and the warm-start cache is left with no entry, as the passes leave it.
    /// Timed as solving (each body's write-back is part of its loop).
    fn step_free(bodies: &mut [Body], cache: &mut WarmCache, ctx: &StepContext) {
        let dv = ctx.gravity * ctx.h;
        for b in bodies.iter_mut() {
            let (mut s, mut m) = start_motion(b);
            if !m.moves {
                continue;
            }
            let (s, m) = (std::slice::from_mut(&mut s), std::slice::from_mut(&mut m));
            for _ in 0..ctx.substeps {
                passes::gravity(s, m, dv);
                passes::integrate(s, m, ctx.h, ctx.max_w);
            }
            finish_motion(b, &s[0], &m[0]);
        }
        cache.entries.clear();
        cache.slots.clear();
    }

    /// Gives each contact the pool slot of its kept points: a pair with a cache entry keeps the
    /// entry's slot (a recycled contact's points stay where they are), a new pair takes a slot
    /// no such pair has (a gone pair's) or a new one at the end of the pool.
    fn assign_slots(&mut self, cache: &mut WarmCache, matched: &[u32]) {
        self.taken.clear();
        self.taken.resize(cache.pool.len(), false);
        for &w in matched {
            if w != u32::MAX {
                let s = cache.slots[w as usize] as usize;
                // `recycle` writes each contact's slot, on any thread: they must differ.
                assert!(!self.taken[s], "two cache entries name kept slot {s}");
                self.taken[s] = true;
            }
        }
        self.slots.clear();
        let mut free = 0;
        for &w in matched {
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
        matched: &[u32],
        out: &mut Vec<Contact>,
        crew: Option<&Crew>,
    ) {
        let n = contacts.len();
        out.resize(n, Contact { a: 0, b: 0, manifold: Manifold::default() });
        self.arm_b.resize(n, [Vec3::ZERO; MAX_MANIFOLD_POINTS]);
        let isa = *self.isa.get_or_insert_with(Isa::best);
        let entries = &cache.entries;
        let poses = &self.poses;
        // Each block writes its own contacts, and their pool slots, which no other contact has
        // (`assign_slots`; `Scatter` checks).
        let pool = parallel::Scatter::new(&mut cache.pool, &self.slots);
        parallel::fill(crew, (&mut out[..], &mut self.arm_b[..], pool), 64, |r, (out, arm_b, pool)| {
            let slots = recycle::Slots { out, arm_b, pool };
            recycle::run(isa, bodies, poses, &contacts[r.clone()], &matched[r], entries, slots);
        });
    }

    /// Marks the moving kinematic bodies that touch something and what they touch, and the
    /// dynamic bodies pressed by a much heavier dynamic body (`driven`): in one Gauss–Seidel
    /// pass the row solved last wins, so a small body between a heavy one and the floor took the
    /// heavy body's push into the floor (a 2 t box driven at 8 m/s onto a ball on a 2 cm floor
    /// pushed it through). Their rows against bodies that do not respond get a second copy.
    fn mark_driven(&mut self, bodies: &[Body], contacts: &[Contact], moved: Option<&[u32]>) {
        // Only the bodies marked last time are cleared: a step costs its contacts.
        for &i in &self.driven_list {
            self.driven[i as usize] = false;
        }
        self.driven_list.clear();
        debug_assert!(!self.driven.contains(&true));
        self.driven.resize(bodies.len(), false);
        let (driven, list) = (&mut self.driven, &mut self.driven_list);
        let mut mark = |i: usize| {
            if !driven[i] {
                driven[i] = true;
                list.push(i as u32);
            }
        };
        let driving = |b: &Body| b.kind == BodyKind::Kinematic && (b.linvel != Vec3::ZERO || b.angvel != Vec3::ZERO);
        // A kinematic body is never at rest: with a list of the moved bodies, it is on it.
        let kinematic = match moved {
            Some(list) => list.iter().any(|&i| driving(&bodies[i as usize])),
            None => bodies.iter().any(driving),
        };
        for c in contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            if kinematic && (driving(&bodies[a]) || driving(&bodies[b])) {
                mark(a);
                mark(b);
            }
            // Both respond: the lighter is pinched when the other is PINCH_MASS_RATIO times heavier.
            let (ma, mb) = (self.masses[a].inv_mass, self.masses[b].inv_mass);
            if ma > 0.0 && mb > 0.0 {
                if ma > PINCH_MASS_RATIO * mb {
                    mark(a);
                } else if mb > PINCH_MASS_RATIO * ma {
                    mark(b);
                }
            }
        }
    }

    /// Each body's solver state and mass; the `restitution` and `friction` settings, when set,
    /// stand in for every body's own material in the pair combine.
    fn prepare_bodies(
        &mut self,
        bodies: &[Body],
        rotations: &Rotations,
        ctx: &StepContext,
        crew: Option<&Crew>,
        still: Still<'_>,
    ) {
        let entry = |i: usize, b: &Body| {
            let (state, motion) = start_motion(b);
            let material = b.material.with_overrides(ctx.friction, ctx.restitution);
            let awake_dynamic = b.is_dynamic() && !b.asleep;
            let mass = BodyMass {
                inv_mass: if awake_dynamic { b.inv_mass } else { 0.0 },
                inv_i: if awake_dynamic {
                    b.inv_inertia_world_with(rotations.get(i, b)).to_cols_array()
                } else {
                    [0.0; 9]
                },
                pos: b.pose.translation,
                friction: material.friction,
                restitution: material.restitution,
            };
            let (q, x) = (b.pose.rotation, b.pose.translation);
            let pose = [q.x, q.y, q.z, q.w, x.x, x.y, x.z, 0.0];
            (state, motion, mass, awake_dynamic, pose)
        };
        let n = bodies.len();
        // Bodies that stayed still since the last step's entries were made keep them, when that
        // was the step before this one, for as many bodies, with the same overrides. No pass
        // writes the state of a body that does not move.
        let overrides = (ctx.friction.map(Real::to_bits), ctx.restitution.map(Real::to_bits));
        let keep = still.step.checked_sub(1).map(|last| (last, n, overrides.0, overrides.1)) == self.prepared
            && still.unchanged.len() == n;
        self.prepared = Some((still.step, n, overrides.0, overrides.1));
        let unchanged = if keep { still.unchanged } else { &[] };
        self.states.resize(n, BodyState::default());
        self.motion.resize(n, Motion { dq: Quat::IDENTITY, dynamic: false, moves: false });
        self.masses.resize(n, BodyMass::default());
        self.responds.resize(n, false);
        self.poses.resize(n, [0.0; 8]);
        let out = (
            &mut self.states[..],
            &mut self.motion[..],
            &mut self.masses[..],
            &mut self.responds[..],
            &mut self.poses[..],
        );
        if keep && let Some(list) = still.moved {
            // The others are unchanged.
            let (s, m, ms, rs, ps) = out;
            for i in list.iter().map(|&i| i as usize) {
                (s[i], m[i], ms[i], rs[i], ps[i]) = entry(i, &bodies[i]);
            }
            return;
        }
        parallel::fill(crew, out, BODY_BLOCK, |r, (s, m, ms, rs, ps)| {
            for (k, i) in r.enumerate() {
                if unchanged.get(i).copied().unwrap_or(false) {
                    continue;
                }
                (s[k], m[k], ms[k], rs[k], ps[k]) = entry(i, &bodies[i]);
            }
        });
    }

    /// Colours the contacts, then builds each one's rows straight into its bundle lane (or the
    /// overflow). The last state, after the bodies', is the dummy body of empty lanes.
    fn prepare_rows(
        &mut self,
        isa: Isa,
        bodies: &[Body],
        contacts: &[Contact],
        (cache, warm): (&WarmCache, &[u32]),
        (fall, impact_speed): (Fall, Real),
        crew: Option<&Crew>,
    ) {
        let dummy = bodies.len() as u32;
        self.states.push(BodyState::default());
        // A contact whose bodies close faster than an impact's speed, from the velocities the
        // solver starts with (zero for a static body or one at rest): a stop (a row striking a
        // wall, a box landing on a stack) has to travel down its chain within the step.
        let states = &self.states;
        let impact = contacts
            .iter()
            .any(|c| (states[c.a as usize].v - states[c.b as usize].v).dot(c.manifold.normal) > impact_speed);
        self.colouring.build(contacts, &self.responds, impact);
        // Each bundle is built from its own contacts alone: side by side, in any order.
        self.chunks.clear();
        for c in 0..self.colouring.colours() {
            let (start, len) = (self.colouring.starts[c], self.colouring.colour(c).len());
            self.chunks.extend((start..start + len).step_by(W).map(|at| at..(at + W).min(start + len)));
        }
        let count = self.chunks.len();
        self.bundles.resize(count, Bundle::default());
        self.bounces.resize(count, Bounce::default());
        self.lanes.resize(count, Lanes::default());
        let src = build::Sources {
            contacts,
            arm_b: &self.arm_b,
            masses: &self.masses,
            states: &self.states,
            warm,
            responds: &self.responds,
            cache,
            dummy,
            fall,
        };
        let (order, chunks) = (&self.colouring.order, &self.chunks);
        let out = (&mut self.bundles[..count], &mut self.bounces[..count], &mut self.lanes[..count]);
        parallel::fill(crew, out, 16, |r, (bundles, bounces, lanes)| {
            let mut inputs = build::Inputs::default();
            for (i, k) in r.clone().enumerate() {
                // Rows are built in colour order, which jumps through the contacts, the cache
                // and the bodies: ask for the contacts two bundles ahead, and for the bodies of
                // the next bundle, whose contacts were asked for one bundle ago.
                for &m in chunks.get(k + 2).map_or(&[][..], |c| &order[c.clone()]) {
                    prepare::prefetch(&contacts[m as usize]);
                    if let Some(e) = cache.get(warm[m as usize] as usize) {
                        prepare::prefetch(e);
                    }
                }
                for &m in chunks.get(k + 1).map_or(&[][..], |c| &order[c.clone()]) {
                    let contact = &contacts[m as usize];
                    for body in [contact.a as usize, contact.b as usize] {
                        crate::simd::prefetch(&src.masses[body]);
                        crate::simd::prefetch(&src.states[body]);
                    }
                }
                build::bundle(
                    isa,
                    &src,
                    &mut inputs,
                    &order[chunks[k].clone()],
                    &mut bundles[i],
                    &mut bounces[i],
                    &mut lanes[i],
                );
            }
        });
        self.overflow.clear();
        self.overflow_info.clear();
        for &m in &self.colouring.overflow {
            let mut info = [PointInfo::default(); MAX_MANIFOLD_POINTS];
            let m = m as usize;
            let rows = self.manifold_rows(contacts, m, cache.impulses(warm[m]), fall, &mut info);
            self.overflow.push(rows);
            self.overflow_info.push(info);
        }
        // With restitution anywhere, the relax passes track every point's end-of-substep
        // impulse and the restitution pass sweeps every manifold (it holds the contacts that do
        // not bounce, `rows::restitution`).
        self.any_bounce = self.bundles[..count].iter().zip(&self.bounces[..count]).any(|(b, x)| b.bounces(x))
            || self.overflow.iter().any(|r| r.restitution != 0.0);
    }

    /// The second copy of the driven bodies' rows against bodies that do not respond
    /// (`pinned`), in contact order, starting from no impulse.
    fn prepare_pinned(&mut self, contacts: &[Contact], fall: Fall) {
        self.pinned.clear();
        if self.driven_list.is_empty() {
            return;
        }
        for (m, c) in contacts.iter().enumerate() {
            let (ia, ib) = (c.a as usize, c.b as usize);
            if !(self.driven[ia] || self.driven[ib]) || self.responds[ia] == self.responds[ib] {
                continue;
            }
            let rows = self.manifold_rows(contacts, m, None, fall, &mut [PointInfo::default(); MAX_MANIFOLD_POINTS]);
            self.pinned.push(rows);
        }
    }

    /// Contact `m`'s rows built on their own (`prepare::manifold_rows`), from these warm-start
    /// impulses: the overflow's, the pinned copy's, and in tests the bundles' reference.
    fn manifold_rows(
        &self,
        contacts: &[Contact],
        m: usize,
        cached: Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]>,
        fall: Fall,
        info: &mut [PointInfo; MAX_MANIFOLD_POINTS],
    ) -> ManifoldRows {
        let c = &contacts[m];
        let (a, b) = (c.a as usize, c.b as usize);
        let sides = ((&self.masses[a], &self.states[a]), (&self.masses[b], &self.states[b]));
        prepare::manifold_rows(c, sides.0, sides.1, cached, &self.arm_b[m], fall, info)
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
