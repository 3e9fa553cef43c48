//! rapier3d as a second engine on the same scene: a rapier world built body for body from a
//! Collidoscope world, stepped with the settings that have a counterpart, and read back into a
//! mirror [`World`] (poses, velocities, sleep) so that everything that reads a world — the state
//! hash, the final-state CSV, the viewport, the A/B divergence — reads rapier's result unchanged.
//! The mapping of each setting is tabled in the README ("rapier3d as a second engine").

mod joints;
#[cfg(feature = "jolt")]
pub mod jolt;
mod peer_world;
mod stats;
#[cfg(test)]
mod tests;

#[cfg(feature = "jolt")]
pub use jolt::{JoltError, JoltWorld};
pub use peer_world::{PeerError, PeerWorld};
pub use stats::{Stability, StabilityTracker, collidoscope_penetration, divergence};

use crate::ccd::CcdMode;
use crate::dynamics::{Body, BodyKind};
use crate::geometry::Shape;
use crate::math::{Pose, Quat, Real, Vec3};
use crate::world::{PositionCorrection, Settings, StepProfile, World};
use rapier3d::prelude as r;

pub use crate::engine::Engine;

/// A rapier3d world mirroring a Collidoscope world body for body (same order, same indices)
/// and joint for joint.
pub struct RapierWorld {
    physics: r::PhysicsWorld,
    handles: Vec<r::RigidBodyHandle>,
    /// Each joint's rapier joint (`None` once broken) and break force.
    joints: Vec<(Option<r::ImpulseJointHandle>, Option<Real>)>,
    /// Bodies as rapier has them after the last step; never stepped itself.
    mirror: World,
    profile: StepProfile,
    step_count: u64,
}

fn rv(v: Vec3) -> r::Vector {
    r::Vector::new(v.x, v.y, v.z)
}

fn cv(v: r::Vector) -> Vec3 {
    Vec3::new(v.x, v.y, v.z)
}

fn rq(q: Quat) -> r::Rotation {
    r::Rotation::from_xyzw(q.x, q.y, q.z, q.w)
}

fn cq(q: r::Rotation) -> Quat {
    Quat::from_xyzw(q.x, q.y, q.z, q.w)
}

/// rapier's collider for a shape in its body's frame. A hull's vertices are the re-centred ones
/// Collidoscope keeps (centre of mass at the origin), so both bodies share one origin.
fn collider(shape: &Shape) -> r::ColliderBuilder {
    match shape {
        Shape::Sphere(s) => r::ColliderBuilder::ball(s.radius),
        Shape::Cuboid(c) => r::ColliderBuilder::cuboid(c.half_extents.x, c.half_extents.y, c.half_extents.z),
        Shape::Capsule(c) => r::ColliderBuilder::capsule_y(c.half_height, c.radius),
        Shape::ConvexHull(h) => {
            let points: Vec<r::Vector> = h.vertices().iter().map(|&p| rv(p)).collect();
            // Collidoscope's hull of these points was built already, so rapier's exists too.
            r::ColliderBuilder::convex_hull(&points).expect("a hull Collidoscope accepted")
        }
        Shape::TriangleMesh(m) => trimesh(m.vertices().to_vec(), m.triangles().to_vec()),
        // rapier's compound of the same children at the same (re-centred) poses.
        Shape::Compound(c) => r::ColliderBuilder::compound(
            c.children()
                .iter()
                .map(|k| (r::Pose::from_parts(rv(k.pose.translation), rq(k.pose.rotation)), collider(&k.shape).shape))
                .collect(),
        ),
        // The height field's own triangles, so both engines split each cell the same way.
        Shape::HeightField(h) => {
            let tris = (0..h.len() as u32).map(|t| h.triangle(t)).collect::<Vec<_>>();
            let vertices = tris.iter().flatten().copied().collect();
            trimesh(vertices, (0..tris.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect())
        }
    }
}

fn trimesh(vertices: Vec<Vec3>, indices: Vec<[u32; 3]>) -> r::ColliderBuilder {
    let vertices = vertices.into_iter().map(rv).collect();
    // Collidoscope accepted the mesh: no degenerate triangle, every index in range.
    r::ColliderBuilder::trimesh(vertices, indices).expect("a mesh Collidoscope accepted")
}

/// rapier's integration parameters for `s` (see the README's mapping table).
pub fn integration_parameters(s: &Settings) -> r::IntegrationParameters {
    let mut p = r::IntegrationParameters { dt: s.dt, ..Default::default() };
    // rapier's solver iterations are substeps (TGS soft); its PGS iterations run in each.
    p.num_solver_iterations = s.substeps as usize;
    p.num_internal_pgs_iterations = s.iterations as usize;
    if s.position_correction == PositionCorrection::Soft {
        let spring = r::SpringCoefficients::new(s.contact_hertz, s.damping_ratio);
        p.contact_softness = spring;
        // Collidoscope has one stiffness for every contact.
        p.static_contact_softness = spring;
    }
    p.warmstart_coefficient = if s.warm_starting { 1.0 } else { 0.0 };
    p.normalized_prediction_distance = s.speculative_distance;
    p.normalized_max_corrective_velocity = s.max_correction_velocity;
    p.normalized_allowed_linear_error = s.slop;
    // Collidoscope caps no speed.
    p.normalized_max_linear_velocity = f32::MAX;
    p.max_ccd_substeps = if s.ccd == CcdMode::Off { 0 } else { 1 };
    p
}

impl RapierWorld {
    /// rapier's copy of `world`: every body with its shape, pose, velocities, material and
    /// flags, every joint (`joints::generic`), and the world's settings.
    pub fn from_world(world: &World) -> RapierWorld {
        let mut physics = r::PhysicsWorld::new();
        let mut mirror = World::new(world.settings.clone());
        let mut handles = Vec::with_capacity(world.bodies().len());
        for b in world.bodies() {
            handles.push(insert(&mut physics, b, &world.settings));
            mirror.add_body(b.clone());
        }
        // The world's side of joints: one fixed body at the origin, without a shape.
        let ground = world
            .joints()
            .iter()
            .any(|j| j.a.is_none() || j.b.is_none())
            .then(|| physics.insert_body(r::RigidBodyBuilder::fixed()));
        let mut joints = Vec::with_capacity(world.joints().len());
        for (j, state) in world.joints().iter().zip(world.joint_states()) {
            // The mirror carries the joints (never stepped: for reports and drawing).
            mirror.add_joint(j.clone()).expect("a joint the world accepted");
            if state.broken {
                joints.push((None, j.break_force));
                continue;
            }
            let side = |s: Option<u32>| s.map(|i| handles[i as usize]).or(ground).expect("a world side has the ground");
            let h = physics.insert_impulse_joint(side(j.a), side(j.b), joints::generic(j));
            joints.push((Some(h), j.break_force));
        }
        let mut rw = RapierWorld { physics, handles, joints, mirror, profile: StepProfile::default(), step_count: 0 };
        rw.set_settings(world.settings.clone());
        rw.read_back();
        rw
    }

    /// Applies the settings that have a rapier counterpart; the mirror keeps all of them.
    pub fn set_settings(&mut self, s: Settings) {
        self.physics.gravity = rv(s.gravity);
        self.physics.integration_parameters = integration_parameters(&s);
        for (i, &h) in self.handles.iter().enumerate() {
            let b = &self.mirror.bodies()[i];
            let (kind, bullet, radius) = (b.kind, b.bullet, b.shape.bounding_radius());
            let body = &mut self.physics.bodies[h];
            apply_body_settings(body, kind, bullet, radius, &s);
            let m = b.material.with_overrides(s.friction, s.restitution);
            for &c in self.physics.bodies[h].colliders() {
                if let Some(c) = self.physics.colliders.get_mut(c) {
                    c.set_friction(m.friction);
                    c.set_restitution(m.restitution);
                }
            }
        }
        if s != self.mirror.settings {
            // As Collidoscope does: a settings change wakes every body.
            self.physics.wake_up_all(true);
        }
        self.mirror.set_settings(s);
        self.read_back();
    }

    /// Advances rapier by one step and reads its state and counters back.
    pub fn step(&mut self) {
        let t = std::time::Instant::now();
        self.physics.step();
        let wall_ms = t.elapsed().as_secs_f64() * 1e3;
        self.break_joints();
        self.step_count += 1;
        self.read_back();
        self.profile = self.counters(wall_ms);
    }

    /// Removes the joints whose force in the last step exceeded their break force.
    fn break_joints(&mut self) {
        let dt = self.mirror.settings.dt;
        for (handle, limit) in &mut self.joints {
            let (Some(h), Some(limit)) = (*handle, *limit) else { continue };
            if self.physics.impulse_joints.get(h).is_some_and(|j| joints::force(j, dt) > limit) {
                self.physics.remove_impulse_joint(h);
                *handle = None;
            }
        }
    }

    /// Whether joint `k` still acts (false once it broke).
    pub fn joint_acts(&self, k: usize) -> bool {
        self.joints[k].0.is_some()
    }

    /// The bodies as rapier has them after the last step, in scene order.
    pub fn world(&self) -> &World {
        &self.mirror
    }

    /// The settings the scene ran with.
    pub fn settings(&self) -> &Settings {
        &self.mirror.settings
    }

    /// The bodies as Collidoscope bodies, with rapier's poses and velocities.
    pub fn bodies(&self) -> &[Body] {
        self.mirror.bodies()
    }

    /// Steps taken.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Simulated time, s.
    pub fn time(&self) -> f64 {
        self.step_count as f64 * self.mirror.settings.dt as f64
    }

    /// The state hash of rapier's bodies, the same function as [`World::hash`].
    pub fn hash(&self) -> u64 {
        self.mirror.hash()
    }

    /// rapier's timings and counters of the last step in Collidoscope's columns.
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// The deepest penetration among rapier's current contacts, m (0 if none).
    pub fn max_penetration(&self) -> f32 {
        let mut deepest = 0.0f32;
        for pair in self.physics.narrow_phase.contact_pairs() {
            if let r::PairContacts::Rigid(c) = &pair.contacts {
                for m in &c.manifolds {
                    for p in &m.points {
                        deepest = deepest.max(-p.dist);
                    }
                }
            }
        }
        deepest
    }

    /// The rapier body of scene body `i`.
    pub fn rapier_body(&self, i: usize) -> &r::RigidBody {
        &self.physics.bodies[self.handles[i]]
    }

    /// Copies rapier's poses, velocities and sleep states into the mirror.
    fn read_back(&mut self) {
        for (i, &h) in self.handles.iter().enumerate() {
            let rb = &self.physics.bodies[h];
            let b = self.mirror.body_mut(i);
            b.pose = Pose::new(cv(rb.translation()), cq(*rb.rotation()));
            b.linvel = cv(rb.linvel());
            b.angvel = cv(rb.angvel());
            b.asleep = rb.is_sleeping();
        }
    }

    fn counters(&self, wall_ms: f64) -> StepProfile {
        let c = &self.physics.physics_pipeline.counters;
        let mut p = StepProfile {
            // Wall-clock around rapier's step, as Collidoscope's total is around its own.
            total_ms: wall_ms,
            broad_phase_ms: c.cd.broad_phase_time.time_ms() + c.cd.final_broad_phase_time.time_ms(),
            narrow_phase_ms: c.cd.narrow_phase_time.time_ms(),
            ccd_ms: c.ccd.toi_computation_time.time_ms(),
            // rapier integrates inside its solver: the solve column holds both.
            solve_ms: c.stages.solver_time.time_ms(),
            integrate_ms: 0.0,
            bodies: self.handles.len() as u32,
            pairs: c.cd.ncontact_pairs as u32,
            narrow_tests: c.cd.ncontact_pairs as u32,
            ..Default::default()
        };
        for pair in self.physics.narrow_phase.contact_pairs() {
            if let r::PairContacts::Rigid(rc) = &pair.contacts {
                for m in rc.solver_manifolds() {
                    let n = m.data.solver_contacts.len() as u32;
                    if n > 0 {
                        p.manifolds += 1;
                        p.contacts += n;
                    }
                }
            }
        }
        let bodies = self.mirror.bodies();
        p.sleeping_bodies = bodies.iter().filter(|b| b.asleep).count() as u32;
        p.awake_bodies = bodies.iter().filter(|b| b.is_dynamic() && !b.asleep).count() as u32;
        p
    }
}

fn insert(physics: &mut r::PhysicsWorld, b: &Body, s: &Settings) -> r::RigidBodyHandle {
    let builder = match b.kind {
        BodyKind::Dynamic => r::RigidBodyBuilder::dynamic(),
        BodyKind::Static => r::RigidBodyBuilder::fixed(),
        BodyKind::Kinematic => r::RigidBodyBuilder::kinematic_velocity_based(),
    };
    let body = builder
        .pose(r::Pose::from_parts(rv(b.pose.translation), rq(b.pose.rotation)))
        .linvel(rv(b.linvel))
        .angvel(rv(b.angvel))
        // Collidoscope integrates rotation without the gyroscopic term.
        .gyroscopic_forces_enabled(false)
        .sleeping(b.is_asleep() && b.kind == BodyKind::Dynamic);
    let m = b.material.with_overrides(s.friction, s.restitution);
    let coll = collider(&b.shape)
        .density(m.density)
        .friction(m.friction)
        .friction_combine_rule(r::CoefficientCombineRule::GeometricMean)
        .restitution(m.restitution)
        .restitution_combine_rule(r::CoefficientCombineRule::Max);
    let (h, _) = physics.insert(body, coll);
    apply_body_settings(&mut physics.bodies[h], b.kind, b.bullet, b.shape.bounding_radius(), s);
    h
}

/// The per-body part of the settings: sleeping and its thresholds, and CCD. Collidoscope judges
/// spin by the speed of the body's farthest point, so rapier's angular threshold is the sleep
/// speed over the body's bounding radius.
fn apply_body_settings(body: &mut r::RigidBody, kind: BodyKind, bullet: bool, radius: Real, s: &Settings) {
    let act = body.activation_mut();
    act.normalized_linear_threshold = if s.sleeping { s.sleep_speed } else { -1.0 };
    act.angular_threshold = if s.sleeping { s.sleep_speed / radius.max(1e-6) } else { -1.0 };
    act.time_until_sleep = s.sleep_time;
    if !s.sleeping && body.is_sleeping() {
        body.wake_up(true);
    }
    let dynamic = kind == BodyKind::Dynamic;
    // Toi: rapier's own motion test decides which body is fast enough to sweep (Collidoscope's
    // speed threshold has no counterpart), so every dynamic body may be swept; a bullet is
    // swept in either CCD mode.
    body.enable_ccd(dynamic && (s.ccd == CcdMode::Toi || (s.ccd != CcdMode::Off && bullet)));
    // Speculative: rapier's soft CCD widens contacts by a fixed distance, here what a body at
    // the threshold speed travels in one step (Collidoscope widens by each fast body's travel).
    let soft = if dynamic && s.ccd == CcdMode::Speculative { s.ccd_speed_threshold * s.dt } else { 0.0 };
    body.set_soft_ccd_prediction(soft);
}
