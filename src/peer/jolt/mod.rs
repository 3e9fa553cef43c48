//! Jolt Physics 5.0 as a third engine on the same scene: a Jolt `PhysicsSystem` built body for
//! body from a Collidoscope world through a small C++ shim (`shim.cpp`, compiled by build.rs
//! against the Jolt source joltc-sys bundles), stepped on the calling thread, and read back into
//! a mirror [`World`] as rapier's adapter does, so that the hash, the final-state CSV, the
//! viewport and the A/B divergence read Jolt's result unchanged. The mapping of each shape and
//! setting is tabled in the README ("Jolt Physics as a third engine"); that of each joint in
//! docs/joints.md (*Jolt Physics*).

mod ffi;
mod joints;
// Builds Jolt from the source it bundles and links the library the shim calls into.
use joltc_sys as _;
#[cfg(test)]
mod tests;

use crate::ccd::CcdMode;
use crate::dynamics::joints::joint_label;
use crate::dynamics::{Body, BodyKind, Material};
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Quat, Real, Vec3};
use crate::world::{Settings, StepProfile, World};
use ffi::{JoltHandle, JsBodyDesc, JsBodyState, JsSettings, Refused, ShapeRef};

/// Jolt's default convex radius (`cDefaultConvexRadius`): boxes and hulls are shrunk by it and
/// swept back out, which rounds their edges and corners by up to this much.
pub const CONVEX_RADIUS: Real = 0.05;

/// Speeds Jolt clamps bodies to: far above any scene's, as Collidoscope caps none.
const NO_SPEED_CAP: Real = 1e15;

/// What can go wrong building a Jolt world.
#[derive(Debug, thiserror::Error)]
pub enum JoltError {
    /// Jolt refused a body's shape (for example a hull its own builder finds degenerate).
    #[error("Jolt cannot build body {body}'s {shape}: {message}")]
    Shape {
        /// The body's index in the scene.
        body: usize,
        /// The shape, described.
        shape: String,
        /// Jolt's reason.
        message: String,
    },
    /// Jolt refused a body.
    #[error("Jolt cannot add body {body}: {message}")]
    Body {
        /// The body's index in the scene.
        body: usize,
        /// Jolt's reason.
        message: String,
    },
    /// A joint has a feature Jolt's constraints cannot express, or Jolt refused it.
    #[error("Jolt cannot map joint {joint} ({kind}): {message}")]
    Joint {
        /// The joint's index and name.
        joint: String,
        /// The joint's kind.
        kind: &'static str,
        /// The feature, or Jolt's reason.
        message: String,
    },
}

/// The radius Jolt rounds a box by: its default, but no more than half the thinnest half extent
/// (Jolt refuses a radius that fills the box).
fn box_convex_radius(half: Vec3) -> Real {
    CONVEX_RADIUS.min(0.5 * half.min_element())
}

/// Jolt's shape for `shape` in its body's frame, with `density` (kg/m³). Meshes and height fields
/// become Jolt mesh shapes of the same triangles (height fields split their cells as Collidoscope
/// does); a compound is a static compound of the same children at the same poses.
fn jolt_shape(shape: &Shape, density: Real) -> Result<ShapeRef, Refused> {
    match shape {
        Shape::Sphere(s) => ShapeRef::sphere(s.radius, density),
        Shape::Cuboid(c) => ShapeRef::cuboid(c.half_extents.to_array(), box_convex_radius(c.half_extents), density),
        Shape::Capsule(c) => ShapeRef::capsule(c.half_height, c.radius, density),
        Shape::ConvexHull(h) => {
            let pts: Vec<[Real; 3]> = h.vertices().iter().map(|v| v.to_array()).collect();
            ShapeRef::hull(&pts, CONVEX_RADIUS, density)
        }
        Shape::TriangleMesh(m) => mesh(m.vertices(), m.triangles()),
        Shape::HeightField(h) => {
            let tris: Vec<[Vec3; 3]> = (0..h.len() as u32).map(|t| h.triangle(t)).collect();
            let vertices: Vec<Vec3> = tris.iter().flatten().copied().collect();
            let indices: Vec<[u32; 3]> = (0..tris.len() as u32).map(|t| [3 * t, 3 * t + 1, 3 * t + 2]).collect();
            mesh(&vertices, &indices)
        }
        Shape::Compound(c) => {
            let kids = c.children().iter().map(|k| jolt_shape(&k.shape, density)).collect::<Result<Vec<_>, _>>()?;
            let poses: Vec<[Real; 7]> = c
                .children()
                .iter()
                .map(|k| {
                    let (t, q) = (k.pose.translation, k.pose.rotation);
                    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
                })
                .collect();
            ShapeRef::compound(&kids, &poses)
        }
    }
}

fn mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<ShapeRef, Refused> {
    let v: Vec<[Real; 3]> = vertices.iter().map(|p| p.to_array()).collect();
    ShapeRef::mesh(&v, triangles)
}

/// Jolt's physics settings for `s` (see the README's mapping table).
fn jolt_settings(s: &Settings) -> JsSettings {
    JsSettings {
        gravity: s.gravity.to_array(),
        // Collidoscope detects collisions once a step and solves in substeps; Jolt solves each
        // collision step with velocity then position iterations.
        collision_steps: 1,
        velocity_steps: s.substeps * s.iterations,
        position_steps: s.substeps,
        // Soft contacts have no Jolt counterpart: Jolt corrects by Baumgarte in both modes.
        baumgarte: s.baumgarte,
        speculative_distance: s.speculative_distance,
        penetration_slop: s.slop,
        min_velocity_for_restitution: s.restitution_threshold,
        body_pair_cache_distance: s.pair_cache_distance,
        time_before_sleep: s.sleep_time,
        point_velocity_sleep_threshold: s.sleep_speed,
        allow_sleeping: s.sleeping,
        warm_start: s.warm_starting,
    }
}

/// Whether Jolt may sweep a body (`LinearCast` motion quality): every dynamic body with either
/// CCD mode, bullets or not. Jolt's own motion test (a step's travel beyond
/// `mLinearCastThreshold`, 75 % of the body's inner radius) picks the bodies it sweeps, so
/// Collidoscope's speed threshold and bullet flag have no counterpart; Jolt has no per-body
/// speculative margin to map `Speculative` onto either.
fn linear_cast(kind: BodyKind, s: &Settings) -> bool {
    kind == BodyKind::Dynamic && s.ccd != CcdMode::Off
}

/// A Jolt world mirroring a Collidoscope world body for body and joint for joint (same order,
/// same indices).
pub struct JoltWorld {
    raw: JoltHandle,
    /// Each joint's break force (N) while it acts; `acts` is false once it broke.
    joints: Vec<JointLife>,
    /// Bodies as Jolt has them after the last step; never stepped itself.
    mirror: World,
    states: Vec<JsBodyState>,
    profile: StepProfile,
    penetration: Real,
}

impl JoltWorld {
    /// Jolt's copy of `world`: every body with its shape, pose, velocities, material and flags,
    /// every joint (`joints::jolt_joint`), and the world's settings.
    pub fn from_world(world: &World) -> Result<JoltWorld, JoltError> {
        let s = &world.settings;
        let n = world.bodies().len();
        let mut raw = JoltHandle::new(n);
        let mut mirror = World::new(s.clone());
        for (i, b) in world.bodies().iter().enumerate() {
            let shape = jolt_shape(&b.shape, b.material.density).map_err(|Refused(message)| JoltError::Shape {
                body: i,
                shape: b.shape.describe(),
                message,
            })?;
            raw.add_body(&shape, &body_desc(b, s)).map_err(|Refused(message)| JoltError::Body { body: i, message })?;
            mirror.add_body(b.clone());
        }
        let mut joints = Vec::with_capacity(world.joints().len());
        for (k, (j, state)) in world.joints().iter().zip(world.joint_states()).enumerate() {
            let refused = |message: String| JoltError::Joint {
                joint: joint_label(k, j.name.as_deref()),
                kind: j.kind.label(),
                message,
            };
            // The mirror carries the joints (never stepped: for reports and drawing).
            mirror.add_joint(j.clone()).expect("a joint the world accepted");
            let desc = if state.broken {
                None
            } else {
                Some(joints::jolt_joint(j).map_err(|joints::Unmapped(m)| refused(m))?)
            };
            raw.add_joint(desc.as_ref()).map_err(|Refused(m)| refused(m))?;
            joints.push(JointLife { break_force: j.break_force, acts: !state.broken });
        }
        raw.set_settings(&jolt_settings(s));
        raw.optimize_broad_phase();
        let mut jw = JoltWorld {
            raw,
            joints,
            mirror,
            states: vec![JsBodyState::default(); n],
            profile: StepProfile::default(),
            penetration: 0.0,
        };
        jw.read_back();
        Ok(jw)
    }

    /// Applies the settings that have a Jolt counterpart; the mirror keeps all of them.
    pub fn set_settings(&mut self, s: Settings) {
        let js = jolt_settings(&s);
        self.raw.set_settings(&js);
        for (i, b) in self.mirror.bodies().iter().enumerate() {
            let m = b.material.with_overrides(s.friction, s.restitution);
            self.raw.configure(i, s.sleeping, linear_cast(b.kind, &s), m.friction, m.restitution);
        }
        if s != self.mirror.settings {
            // As Collidoscope does: a settings change wakes every body.
            self.raw.wake_all();
        }
        self.mirror.set_settings(s);
        self.read_back();
    }

    /// Advances Jolt by one step (one collision step, on this thread) and reads its state back.
    pub fn step(&mut self) {
        let stats = self.raw.step(self.mirror.settings.dt, 1);
        self.break_joints();
        self.penetration = stats.deepest_penetration.max(0.0);
        self.read_back();
        let bodies = self.mirror.bodies();
        self.profile = StepProfile {
            // Wall-clock around Jolt's Update; Jolt's phases are not timed separately here.
            total_ms: stats.update_ms,
            bodies: bodies.len() as u32,
            manifolds: stats.manifolds,
            contacts: stats.points,
            awake_bodies: stats.active_bodies,
            sleeping_bodies: bodies.iter().filter(|b| b.asleep).count() as u32,
            ..Default::default()
        };
    }

    /// Stops the joints whose force in the last step exceeded their break force: Jolt's impulse
    /// on the joint over the step (one collision step) over the step's length. Collidoscope
    /// checks each substep's force, so a joint breaks here on the step's mean force, as on
    /// rapier3d's side.
    fn break_joints(&mut self) {
        let dt = self.mirror.settings.dt;
        for (k, life) in self.joints.iter_mut().enumerate() {
            let (true, Some(limit)) = (life.acts, life.break_force) else { continue };
            if self.raw.joint_impulse(k).is_some_and(|i| i / dt > limit) {
                self.raw.disable_joint(k);
                life.acts = false;
            }
        }
    }

    /// Whether joint `k` still acts (false once it broke).
    pub fn joint_acts(&self, k: usize) -> bool {
        self.joints[k].acts
    }

    /// The bodies as Jolt has them after the last step, in scene order.
    pub fn world(&self) -> &World {
        &self.mirror
    }

    /// Jolt's timing and counters of the last step in Collidoscope's columns.
    pub fn profile(&self) -> &StepProfile {
        &self.profile
    }

    /// The deepest penetration among the contacts Jolt reported in the last step, m.
    pub fn max_penetration(&self) -> Real {
        self.penetration
    }

    /// Jolt's mass, inertia about the centre of mass (body frame) and centre of mass of body
    /// `i`, or `None` if it is not dynamic.
    pub fn mass_properties(&self, i: usize) -> Option<(Real, Mat3, Vec3)> {
        let (mass, inertia, com) = self.raw.body_mass(i)?;
        Some((mass, Mat3::from_cols_array(&inertia), Vec3::from_array(com)))
    }

    /// Copies Jolt's poses, velocities and sleep states into the mirror.
    fn read_back(&mut self) {
        self.raw.read(&mut self.states);
        for (i, st) in self.states.iter().enumerate() {
            let b = self.mirror.body_mut(i);
            b.pose = Pose::new(Vec3::from_array(st.position), Quat::from_array(st.rotation));
            b.linvel = Vec3::from_array(st.linvel);
            b.angvel = Vec3::from_array(st.angvel);
            b.asleep = b.kind == BodyKind::Dynamic && !st.active;
        }
    }
}

/// A joint's break force and whether it still acts.
struct JointLife {
    break_force: Option<Real>,
    acts: bool,
}

fn body_desc(b: &Body, s: &Settings) -> JsBodyDesc {
    let Material { friction, restitution, .. } = b.material.with_overrides(s.friction, s.restitution);
    JsBodyDesc {
        position: b.pose.translation.to_array(),
        rotation: b.pose.rotation.to_array(),
        linvel: b.linvel.to_array(),
        angvel: b.angvel.to_array(),
        kind: match b.kind {
            BodyKind::Static => 0,
            BodyKind::Dynamic => 1,
            BodyKind::Kinematic => 2,
        },
        friction,
        restitution,
        // Collidoscope has no damping and no speed cap.
        linear_damping: 0.0,
        angular_damping: 0.0,
        max_linear_velocity: NO_SPEED_CAP,
        max_angular_velocity: NO_SPEED_CAP,
        allow_sleeping: s.sleeping,
        linear_cast: linear_cast(b.kind, s),
        asleep: b.is_asleep() && b.kind == BodyKind::Dynamic,
    }
}
