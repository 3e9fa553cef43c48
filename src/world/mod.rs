//! The world: bodies, settings and the fixed-step pipeline.

mod hash;
mod profile;
mod settings;
mod sleep;
mod snapshot;

pub use hash::state_hash;
pub use profile::{PHASES, PhaseTimer, StepProfile};
pub use settings::{PositionCorrection, Settings};
pub use snapshot::{BodyState, Snapshot, WarmEntry};

use crate::broadphase::{self, BroadPhase, BroadPhaseParams};
use crate::debug_draw::{DebugDraw, DrawCategory};
use crate::dynamics::solver::{self, CachedImpulse, Contact};
use crate::dynamics::{Body, BodyKind};
use crate::geometry::{Aabb, Ray, RayHit};
use crate::math::Real;
use crate::narrowphase::{self, MAX_MANIFOLD_POINTS, Tolerance};

/// Bodies, their settings, and everything the pipeline keeps from one step to the next.
pub struct World {
    pub settings: Settings,
    bodies: Vec<Body>,
    broad_phase: Box<dyn BroadPhase>,
    aabbs: Vec<Aabb>,
    pairs: Vec<(u32, u32)>,
    contacts: Vec<Contact>,
    warm_cache: Vec<((u32, u32), [CachedImpulse; MAX_MANIFOLD_POINTS])>,
    profile: StepProfile,
    step_count: u64,
}

impl Clone for World {
    fn clone(&self) -> Self {
        World {
            settings: self.settings.clone(),
            bodies: self.bodies.clone(),
            broad_phase: broadphase::create(self.broad_phase.kind()),
            aabbs: self.aabbs.clone(),
            pairs: self.pairs.clone(),
            contacts: self.contacts.clone(),
            warm_cache: self.warm_cache.clone(),
            profile: self.profile,
            step_count: self.step_count,
        }
    }
}

impl World {
    pub fn new(settings: Settings) -> Self {
        let broad_phase = broadphase::create(settings.broad_phase);
        World {
            settings,
            bodies: Vec::new(),
            broad_phase,
            aabbs: Vec::new(),
            pairs: Vec::new(),
            contacts: Vec::new(),
            warm_cache: Vec::new(),
            profile: StepProfile::default(),
            step_count: 0,
        }
    }

    /// Adds a body and returns its index.
    pub fn add_body(&mut self, body: Body) -> usize {
        self.bodies.push(body);
        self.aabbs.push(self.bodies.last().map(Body::aabb).unwrap_or(Aabb::EMPTY));
        self.bodies.len() - 1
    }

    pub fn bodies(&self) -> &[Body] {
        &self.bodies
    }

    /// Mutable access to one body; it is woken, since the caller may move it.
    pub fn body_mut(&mut self, i: usize) -> &mut Body {
        let b = &mut self.bodies[i];
        b.wake();
        b
    }

    /// The contacts found in the last step, sorted by pair.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// The candidate pairs of the last step's broad phase, sorted.
    pub fn pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The world AABBs as of the last step.
    pub fn aabbs(&self) -> &[Aabb] {
        &self.aabbs
    }

    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    pub fn time(&self) -> f64 {
        self.step_count as f64 * self.settings.dt as f64
    }

    pub fn hash(&self) -> u64 {
        state_hash(&self.bodies)
    }

    pub fn broad_phase(&self) -> &dyn BroadPhase {
        self.broad_phase.as_ref()
    }

    /// Replaces the settings. The world keeps its state; a new broad phase is built if the
    /// choice changed, and sleeping bodies wake so the change takes effect.
    pub fn set_settings(&mut self, settings: Settings) {
        if settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(settings.broad_phase);
        }
        if settings != self.settings {
            self.wake_all();
        }
        self.settings = settings;
    }

    pub fn wake_all(&mut self) {
        self.bodies.iter_mut().for_each(Body::wake);
    }

    /// Total kinetic energy of the dynamic bodies.
    pub fn kinetic_energy(&self) -> Real {
        self.bodies.iter().map(Body::kinetic_energy).sum()
    }

    /// Advances the world by one fixed step: broad phase, narrow phase, solve and integrate,
    /// sleep. Fills [`World::profile`].
    pub fn step(&mut self) {
        let t_total = std::time::Instant::now();
        let mut p = StepProfile { bodies: self.bodies.len() as u32, ..Default::default() };
        if self.settings.broad_phase != self.broad_phase.kind() {
            self.broad_phase = broadphase::create(self.settings.broad_phase);
        }

        {
            let _t = PhaseTimer::new(&mut p.broad_phase_ms);
            let margin = self.settings.speculative_distance * 0.5;
            self.aabbs.clear();
            self.aabbs.extend(self.bodies.iter().map(|b| b.aabb().expanded(margin)));
            let params = BroadPhaseParams { grid_cell_size: self.settings.grid_cell_size };
            p.broad = self.broad_phase.update(&self.aabbs, &params, &mut self.pairs);
            let bodies = &self.bodies;
            // Pairs that can never interact: neither moves, or both sleep.
            self.pairs.retain(|&(a, b)| {
                let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
                let a_active = ba.kind != BodyKind::Static && !ba.asleep;
                let b_active = bb.kind != BodyKind::Static && !bb.asleep;
                (a_active || b_active) && (ba.is_dynamic() || bb.is_dynamic())
            });
            // One canonical order, whichever structure ran.
            self.pairs.sort_unstable();
            p.pairs = self.pairs.len() as u32;
        }

        {
            let _t = PhaseTimer::new(&mut p.narrow_phase_ms);
            let tol = Tolerance { margin: self.settings.speculative_distance, epsilon: self.settings.contact_epsilon };
            self.contacts.clear();
            for &(a, b) in &self.pairs {
                let (ba, bb) = (&self.bodies[a as usize], &self.bodies[b as usize]);
                if let Some(m) =
                    narrowphase::contact(&ba.shape, &ba.pose, &bb.shape, &bb.pose, tol, self.settings.narrow_phase)
                    && !m.is_empty()
                {
                    self.contacts.push(Contact { a, b, manifold: m });
                }
            }
            p.narrow_tests = self.pairs.len() as u32;
            p.manifolds = self.contacts.len() as u32;
            p.contacts = self.contacts.iter().map(|c| c.manifold.len() as u32).sum();
        }

        sleep::wake_touched(&mut self.bodies, &self.contacts);
        solver::solve_and_integrate(
            &mut self.bodies,
            &self.contacts,
            &self.settings,
            &mut self.warm_cache,
            &mut p.solve_ms,
            &mut p.integrate_ms,
        );
        if self.settings.sleeping {
            sleep::update(&mut self.bodies, &self.contacts, &self.settings);
        } else {
            self.bodies.iter_mut().filter(|b| b.asleep).for_each(Body::wake);
        }
        p.sleeping_bodies = self.bodies.iter().filter(|b| b.asleep).count() as u32;
        p.awake_bodies = self.bodies.iter().filter(|b| b.is_dynamic() && !b.asleep).count() as u32;
        p.total_ms = t_total.elapsed().as_secs_f64() * 1e3;
        self.profile = p;
        self.step_count += 1;
    }

    /// The first body the ray hits, with the hit.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<(usize, RayHit)> {
        let mut candidates = Vec::new();
        let aabbs: Vec<Aabb> = self.bodies.iter().map(Body::aabb).collect();
        self.broad_phase.query_ray(&aabbs, ray, max_t, &mut candidates);
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
        for (b, aabb) in self.bodies.iter().zip(&self.aabbs) {
            let color = if b.asleep { [0.4, 0.4, 0.6, 1.0] } else { [0.2, 0.9, 0.4, 1.0] };
            draw.aabb(DrawCategory::Aabb, aabb, color);
            if b.is_dynamic() && !b.asleep {
                let p = b.pose.translation;
                draw.line(DrawCategory::Velocity, p, p + b.linvel * 0.1, [1.0, 0.8, 0.1, 1.0]);
            }
        }
        for c in &self.contacts {
            for cp in c.manifold.points() {
                let color = if cp.depth >= 0.0 { [1.0, 0.2, 0.2, 1.0] } else { [0.3, 0.6, 1.0, 1.0] };
                draw.point(DrawCategory::ContactPoint, cp.point, 6.0, color);
                // Length shows depth: a fixed stem plus ten times the penetration.
                let len = 0.1 + 10.0 * cp.depth.max(0.0);
                draw.line(
                    DrawCategory::ContactNormal,
                    cp.point,
                    cp.point + c.manifold.normal * len,
                    [1.0, 0.3, 0.9, 1.0],
                );
            }
        }
        for &(a, b) in &self.pairs {
            let (pa, pb) = (self.bodies[a as usize].pose.translation, self.bodies[b as usize].pose.translation);
            draw.line(DrawCategory::CandidatePair, pa, pb, [0.9, 0.9, 0.9, 0.5]);
        }
        self.broad_phase.debug_draw(&self.aabbs, draw);
    }
}
