//! Jolt Physics 5.0 as a third engine on the same scene: a Jolt `PhysicsSystem` built body for
//! body from a Collidoscope world through a small C++ shim (`shim.cpp`, compiled by build.rs
//! against the Jolt source joltc-sys bundles), stepped on the calling thread, and read back into
//! a mirror [`World`] as rapier's adapter does, so that the hash, the final-state CSV, the
//! viewport and the A/B divergence read Jolt's result unchanged. The mapping of each shape and
//! setting is tabled in the README ("Jolt Physics as a third engine").

mod ffi;
// Builds Jolt from the source it bundles and links the library the shim calls into.
use joltc_sys as _;
#[cfg(test)]
mod tests;

use crate::ccd::CcdMode;
use crate::dynamics::{Body, BodyKind};
use crate::geometry::Shape;
use crate::math::{Mat3, Pose, Quat, Real, Vec3};
use crate::world::{Settings, StepProfile, World};
use ffi::{JsBodyDesc, JsBodyState, JsSettings, JsStepStats};
use std::ffi::c_char;

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
}

/// An owned Jolt shape reference.
struct ShapeRef(*const ffi::JsShape);

impl Drop for ShapeRef {
    fn drop(&mut self) {
        // SAFETY: the pointer came from a js_shape_* constructor, which handed us one reference.
        unsafe { ffi::js_shape_release(self.0) }
    }
}

/// Calls a shim constructor with an error buffer; the message on failure.
fn with_err(f: impl FnOnce(*mut c_char, usize) -> *const ffi::JsShape) -> Result<ShapeRef, String> {
    let mut buf = [0 as c_char; 256];
    let p = f(buf.as_mut_ptr(), buf.len());
    if p.is_null() {
        // SAFETY: the shim writes a NUL-terminated message within the buffer on failure.
        let msg = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
        Err(msg.to_string_lossy().into_owned())
    } else {
        Ok(ShapeRef(p))
    }
}

/// The radius Jolt rounds a box by: its default, but no more than half the thinnest half extent
/// (Jolt refuses a radius that fills the box).
fn box_convex_radius(half: Vec3) -> Real {
    CONVEX_RADIUS.min(0.5 * half.min_element())
}

/// Jolt's shape for `shape` in its body's frame, with `density` (kg/m³). Meshes and height fields
/// become Jolt mesh shapes of the same triangles (height fields split their cells as Collidoscope
/// does); a compound is a static compound of the same children at the same poses.
fn jolt_shape(shape: &Shape, density: Real) -> Result<ShapeRef, String> {
    // SAFETY (every call below): the pointers are to live slices of the stated lengths, and the
    // error buffer comes from `with_err`.
    match shape {
        Shape::Sphere(s) => with_err(|e, n| unsafe { ffi::js_shape_sphere(s.radius, density, e, n) }),
        Shape::Cuboid(c) => {
            let h = c.half_extents.to_array();
            let r = box_convex_radius(c.half_extents);
            with_err(|e, n| unsafe { ffi::js_shape_box(h.as_ptr(), r, density, e, n) })
        }
        Shape::Capsule(c) => with_err(|e, n| unsafe { ffi::js_shape_capsule(c.half_height, c.radius, density, e, n) }),
        Shape::ConvexHull(h) => {
            let pts: Vec<Real> = h.vertices().iter().flat_map(|v| v.to_array()).collect();
            let count = h.vertices().len() as u32;
            with_err(|e, n| unsafe { ffi::js_shape_hull(pts.as_ptr(), count, CONVEX_RADIUS, density, e, n) })
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
            let ptrs: Vec<*const ffi::JsShape> = kids.iter().map(|k| k.0).collect();
            let poses: Vec<Real> = c
                .children()
                .iter()
                .flat_map(|k| {
                    let (t, q) = (k.pose.translation, k.pose.rotation);
                    [t.x, t.y, t.z, q.x, q.y, q.z, q.w]
                })
                .collect();
            with_err(|e, n| unsafe { ffi::js_shape_compound(ptrs.as_ptr(), poses.as_ptr(), ptrs.len() as u32, e, n) })
        }
    }
}

fn mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<ShapeRef, String> {
    let v: Vec<Real> = vertices.iter().flat_map(|p| p.to_array()).collect();
    let t: Vec<u32> = triangles.iter().flatten().copied().collect();
    // SAFETY: as in `jolt_shape`.
    with_err(|e, n| unsafe {
        ffi::js_shape_mesh(v.as_ptr(), vertices.len() as u32, t.as_ptr(), triangles.len() as u32, e, n)
    })
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

/// A Jolt world mirroring a Collidoscope world body for body (same order, same indices).
pub struct JoltWorld {
    raw: *mut ffi::JsWorld,
    /// Bodies as Jolt has them after the last step; never stepped itself.
    mirror: World,
    states: Vec<JsBodyState>,
    profile: StepProfile,
    penetration: Real,
}

// SAFETY: the Jolt world is owned by this value alone and used through `&mut self` (or `&self`
// for reads); Jolt's objects may move between threads.
unsafe impl Send for JoltWorld {}

impl Drop for JoltWorld {
    fn drop(&mut self) {
        // SAFETY: `raw` came from js_world_new and is freed once.
        unsafe { ffi::js_world_free(self.raw) }
    }
}

impl JoltWorld {
    /// Jolt's copy of `world`: every body with its shape, pose, velocities, material and flags,
    /// and the world's settings.
    pub fn from_world(world: &World) -> Result<JoltWorld, JoltError> {
        let s = &world.settings;
        let n = world.bodies().len();
        // SAFETY: creates a world we own.
        let raw = unsafe { ffi::js_world_new(n as u32) };
        let mut mirror = World::new(s.clone());
        let mut jw = JoltWorld {
            raw,
            mirror: World::new(s.clone()),
            states: vec![JsBodyState::default(); n],
            profile: StepProfile::default(),
            penetration: 0.0,
        };
        for (i, b) in world.bodies().iter().enumerate() {
            let shape = jolt_shape(&b.shape, b.material.density).map_err(|message| JoltError::Shape {
                body: i,
                shape: b.shape.describe(),
                message,
            })?;
            let desc = body_desc(b, s);
            let mut buf = [0 as c_char; 256];
            // SAFETY: a live world and shape, a filled descriptor, a buffer of the stated size.
            let ok = unsafe { ffi::js_add_body(raw, shape.0, &desc, buf.as_mut_ptr(), buf.len()) };
            if !ok {
                // SAFETY: NUL-terminated by the shim on failure.
                let message = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_string_lossy().into_owned();
                return Err(JoltError::Body { body: i, message });
            }
            mirror.add_body(b.clone());
        }
        jw.mirror = mirror;
        let settings = jolt_settings(s);
        // SAFETY: a live world and settings.
        unsafe {
            ffi::js_set_settings(raw, &settings);
            ffi::js_optimize_broad_phase(raw);
        }
        jw.read_back();
        Ok(jw)
    }

    /// Applies the settings that have a Jolt counterpart; the mirror keeps all of them.
    pub fn set_settings(&mut self, s: Settings) {
        let js = jolt_settings(&s);
        // SAFETY: a live world; indices are in range (one per mirrored body).
        unsafe {
            ffi::js_set_settings(self.raw, &js);
            for (i, b) in self.mirror.bodies().iter().enumerate() {
                let m = effective_material(b, &s);
                ffi::js_body_configure(self.raw, i as u32, s.sleeping, linear_cast(b.kind, &s), m.0, m.1);
            }
            if s != self.mirror.settings {
                // As Collidoscope does: a settings change wakes every body.
                ffi::js_wake_all(self.raw);
            }
        }
        self.mirror.set_settings(s);
        self.read_back();
    }

    /// Advances Jolt by one step (one collision step, on this thread) and reads its state back.
    pub fn step(&mut self) {
        let mut stats = JsStepStats::default();
        // SAFETY: a live world.
        unsafe { ffi::js_step(self.raw, self.mirror.settings.dt, 1, &mut stats) };
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
        let (mut mass, mut inertia, mut com) = (0.0, [0.0; 9], [0.0; 3]);
        if i >= self.states.len() {
            return None;
        }
        // SAFETY: a live world, an index in range, outputs of the stated sizes.
        let dynamic =
            unsafe { ffi::js_body_mass(self.raw, i as u32, &mut mass, inertia.as_mut_ptr(), com.as_mut_ptr()) };
        dynamic.then(|| (mass, Mat3::from_cols_array(&inertia), Vec3::from_array(com)))
    }

    /// Copies Jolt's poses, velocities and sleep states into the mirror.
    fn read_back(&mut self) {
        // SAFETY: `states` holds one entry per body added.
        unsafe { ffi::js_read(self.raw, self.states.as_mut_ptr()) };
        for (i, st) in self.states.iter().enumerate() {
            let b = self.mirror.body_mut(i);
            b.pose = Pose::new(Vec3::from_array(st.position), Quat::from_array(st.rotation));
            b.linvel = Vec3::from_array(st.linvel);
            b.angvel = Vec3::from_array(st.angvel);
            b.asleep = b.kind == BodyKind::Dynamic && !st.active;
        }
    }
}

/// A body's friction and restitution with the world-wide overrides applied.
fn effective_material(b: &Body, s: &Settings) -> (Real, Real) {
    (s.friction.unwrap_or(b.material.friction), s.restitution.unwrap_or(b.material.restitution))
}

fn body_desc(b: &Body, s: &Settings) -> JsBodyDesc {
    let (friction, restitution) = effective_material(b, s);
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
