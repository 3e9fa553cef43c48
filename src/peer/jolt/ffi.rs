//! The C interface of `shim.cpp`, declared by hand (the shim's structs are plain C data), and
//! its safe face: [`ShapeRef`] and [`JoltHandle`], which own what the shim hands out and check
//! every index and length before a call. Every `unsafe` of the Jolt peer is in this file.

use std::ffi::c_char;

/// Jolt's `PhysicsSystem` with its allocators and layer filters (opaque).
#[repr(C)]
pub(super) struct JsWorld {
    _private: [u8; 0],
}

/// A Jolt `Shape` (opaque, reference counted).
#[repr(C)]
pub(super) struct JsShape {
    _private: [u8; 0],
}

#[repr(C)]
pub(super) struct JsSettings {
    pub(super) gravity: [f32; 3],
    pub(super) collision_steps: u32,
    pub(super) velocity_steps: u32,
    pub(super) position_steps: u32,
    pub(super) baumgarte: f32,
    pub(super) speculative_distance: f32,
    pub(super) penetration_slop: f32,
    pub(super) min_velocity_for_restitution: f32,
    pub(super) body_pair_cache_distance: f32,
    pub(super) time_before_sleep: f32,
    pub(super) point_velocity_sleep_threshold: f32,
    pub(super) allow_sleeping: bool,
    pub(super) warm_start: bool,
}

#[repr(C)]
pub(super) struct JsBodyDesc {
    pub(super) position: [f32; 3],
    /// x, y, z, w.
    pub(super) rotation: [f32; 4],
    pub(super) linvel: [f32; 3],
    pub(super) angvel: [f32; 3],
    /// 0 static, 1 dynamic, 2 kinematic.
    pub(super) kind: u32,
    pub(super) friction: f32,
    pub(super) restitution: f32,
    pub(super) linear_damping: f32,
    pub(super) angular_damping: f32,
    pub(super) max_linear_velocity: f32,
    pub(super) max_angular_velocity: f32,
    pub(super) allow_sleeping: bool,
    pub(super) linear_cast: bool,
    pub(super) asleep: bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct JsBodyState {
    pub(super) position: [f32; 3],
    pub(super) rotation: [f32; 4],
    pub(super) linvel: [f32; 3],
    pub(super) angvel: [f32; 3],
    pub(super) active: bool,
}

/// One joint as Jolt takes it (`src/peer/jolt/joints.rs` fills it in).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct JsJointDesc {
    /// Body indices, -1 for the world.
    pub(super) a: i32,
    pub(super) b: i32,
    /// 0 fixed, 1 point, 2 swing-twist, 3 hinge, 4 slider, 5 distance.
    pub(super) kind: u32,
    pub(super) point_a: [f32; 3],
    pub(super) point_b: [f32; 3],
    pub(super) axis_a: [f32; 3],
    pub(super) normal_a: [f32; 3],
    pub(super) axis_b: [f32; 3],
    pub(super) normal_b: [f32; 3],
    pub(super) has_limits: bool,
    pub(super) limit_min: f32,
    pub(super) limit_max: f32,
    pub(super) cone: f32,
    pub(super) has_motor: bool,
    pub(super) motor_speed: f32,
    pub(super) motor_max: f32,
    pub(super) stiffness: f32,
    pub(super) damping: f32,
    pub(super) collide: bool,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct JsStepStats {
    pub(super) update_ms: f64,
    pub(super) deepest_penetration: f32,
    pub(super) manifolds: u32,
    pub(super) points: u32,
    pub(super) active_bodies: u32,
    pub(super) error: u32,
}

unsafe extern "C" {
    fn js_shape_sphere(radius: f32, density: f32, err: *mut c_char, err_len: usize) -> *const JsShape;
    fn js_shape_box(
        half: *const f32,
        convex_radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    fn js_shape_capsule(
        half_height: f32,
        radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    fn js_shape_hull(
        points: *const f32,
        n: u32,
        max_convex_radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    fn js_shape_mesh(
        vertices: *const f32,
        nv: u32,
        indices: *const u32,
        ntri: u32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    fn js_shape_compound(
        children: *const *const JsShape,
        poses: *const f32,
        n: u32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    fn js_shape_release(shape: *const JsShape);

    fn js_world_new(max_bodies: u32) -> *mut JsWorld;
    fn js_world_free(world: *mut JsWorld);
    fn js_set_settings(world: *mut JsWorld, settings: *const JsSettings);
    fn js_add_body(
        world: *mut JsWorld,
        shape: *const JsShape,
        desc: *const JsBodyDesc,
        err: *mut c_char,
        err_len: usize,
    ) -> bool;
    fn js_body_configure(
        world: *mut JsWorld,
        i: u32,
        allow_sleeping: bool,
        linear_cast: bool,
        friction: f32,
        restitution: f32,
    );
    fn js_wake_all(world: *mut JsWorld);
    fn js_optimize_broad_phase(world: *mut JsWorld);
    fn js_step(world: *mut JsWorld, dt: f32, collision_steps: u32, out: *mut JsStepStats);
    fn js_read(world: *const JsWorld, out: *mut JsBodyState);
    fn js_add_joint(world: *mut JsWorld, desc: *const JsJointDesc, err: *mut c_char, err_len: usize) -> bool;
    fn js_joint_impulse(world: *const JsWorld, k: u32) -> f32;
    fn js_joint_disable(world: *mut JsWorld, k: u32);
    fn js_body_mass(world: *const JsWorld, i: u32, mass: *mut f32, inertia: *mut f32, com: *mut f32) -> bool;
}

/// Jolt's reason for refusing a shape or a body, as the shim wrote it.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub(super) struct Refused(pub(super) String);

/// An owned Jolt shape reference.
pub(super) struct ShapeRef(*const JsShape);

impl Drop for ShapeRef {
    fn drop(&mut self) {
        // SAFETY: the pointer came from a js_shape_* constructor, which handed us one reference.
        unsafe { js_shape_release(self.0) }
    }
}

/// Calls a shim constructor with an error buffer; the message on failure.
fn with_err(f: impl FnOnce(*mut c_char, usize) -> *const JsShape) -> Result<ShapeRef, Refused> {
    let mut buf = [0 as c_char; 256];
    let p = f(buf.as_mut_ptr(), buf.len());
    if p.is_null() { Err(Refused(message(&buf))) } else { Ok(ShapeRef(p)) }
}

/// The shim's NUL-terminated message in `buf`.
fn message(buf: &[c_char; 256]) -> String {
    // The shim writes a NUL-terminated message within the buffer on failure; the last byte
    // is NUL whatever it wrote, so the read ends inside the buffer.
    let mut b = *buf;
    b[255] = 0;
    // SAFETY: `b` ends with a NUL (set just above).
    unsafe { std::ffi::CStr::from_ptr(b.as_ptr()) }.to_string_lossy().into_owned()
}

// SAFETY (every constructor below): the pointers are to live slices of the stated lengths, and
// the error buffer comes from `with_err`.
impl ShapeRef {
    pub(super) fn sphere(radius: f32, density: f32) -> Result<ShapeRef, Refused> {
        with_err(|e, n| unsafe { js_shape_sphere(radius, density, e, n) })
    }

    pub(super) fn cuboid(half: [f32; 3], convex_radius: f32, density: f32) -> Result<ShapeRef, Refused> {
        with_err(|e, n| unsafe { js_shape_box(half.as_ptr(), convex_radius, density, e, n) })
    }

    pub(super) fn capsule(half_height: f32, radius: f32, density: f32) -> Result<ShapeRef, Refused> {
        with_err(|e, n| unsafe { js_shape_capsule(half_height, radius, density, e, n) })
    }

    /// A hull of `points` (x, y, z each).
    pub(super) fn hull(points: &[[f32; 3]], max_convex_radius: f32, density: f32) -> Result<ShapeRef, Refused> {
        let n = points.len() as u32;
        with_err(|e, len| unsafe { js_shape_hull(points.as_ptr().cast(), n, max_convex_radius, density, e, len) })
    }

    /// A triangle mesh; every index must name one of `vertices` (checked).
    pub(super) fn mesh(vertices: &[[f32; 3]], triangles: &[[u32; 3]]) -> Result<ShapeRef, Refused> {
        if let Some(bad) = triangles.iter().flatten().find(|&&i| i as usize >= vertices.len()) {
            return Err(Refused(format!("triangle index {bad} out of range of {} vertices", vertices.len())));
        }
        let (nv, nt) = (vertices.len() as u32, triangles.len() as u32);
        with_err(|e, n| unsafe { js_shape_mesh(vertices.as_ptr().cast(), nv, triangles.as_ptr().cast(), nt, e, n) })
    }

    /// A static compound of `children`, each at its pose (x, y, z, then the quaternion's x, y,
    /// z, w).
    pub(super) fn compound(children: &[ShapeRef], poses: &[[f32; 7]]) -> Result<ShapeRef, Refused> {
        assert_eq!(children.len(), poses.len(), "one pose per child");
        let ptrs: Vec<*const JsShape> = children.iter().map(|k| k.0).collect();
        let n = ptrs.len() as u32;
        with_err(|e, len| unsafe { js_shape_compound(ptrs.as_ptr(), poses.as_ptr().cast(), n, e, len) })
    }
}

/// An owned Jolt world and the numbers of bodies and joints added to it, against which every
/// index and output buffer is checked.
pub(super) struct JoltHandle {
    raw: *mut JsWorld,
    bodies: usize,
    joints: usize,
}

// SAFETY: the Jolt world is owned by this value alone and used through `&mut self` (or `&self`
// for reads); Jolt's objects may move between threads.
unsafe impl Send for JoltHandle {}

impl Drop for JoltHandle {
    fn drop(&mut self) {
        // SAFETY: `raw` came from js_world_new and is freed once.
        unsafe { js_world_free(self.raw) }
    }
}

// SAFETY (every call below): `raw` is a live world (from `new`, freed only on drop), the
// descriptors and outputs are live values of the stated sizes, and body and joint indices are
// below `bodies` and `joints` (checked).
impl JoltHandle {
    /// A world with room for `max_bodies` bodies.
    pub(super) fn new(max_bodies: usize) -> Self {
        JoltHandle { raw: unsafe { js_world_new(max_bodies as u32) }, bodies: 0, joints: 0 }
    }

    /// Adds a body of `shape` described by `desc`; Jolt's message when it refuses.
    pub(super) fn add_body(&mut self, shape: &ShapeRef, desc: &JsBodyDesc) -> Result<(), Refused> {
        let mut buf = [0 as c_char; 256];
        if unsafe { js_add_body(self.raw, shape.0, desc, buf.as_mut_ptr(), buf.len()) } {
            self.bodies += 1;
            Ok(())
        } else {
            Err(Refused(message(&buf)))
        }
    }

    /// Adds the next joint in scene order (`None`: a placeholder for one that had broken, which
    /// never acts); Jolt's message when it refuses.
    pub(super) fn add_joint(&mut self, desc: Option<&JsJointDesc>) -> Result<(), Refused> {
        if let Some(d) = desc {
            for side in [d.a, d.b] {
                if side < -1 || side >= self.bodies as i32 {
                    return Err(Refused(format!("body {side} out of range of {}", self.bodies)));
                }
            }
        }
        let p = desc.map_or(std::ptr::null(), |d| d as *const JsJointDesc);
        let mut buf = [0 as c_char; 256];
        if unsafe { js_add_joint(self.raw, p, buf.as_mut_ptr(), buf.len()) } {
            self.joints += 1;
            Ok(())
        } else {
            Err(Refused(message(&buf)))
        }
    }

    /// Joint `k`'s impulse in the last step (N·s; see the shim), or `None` if it does not act.
    pub(super) fn joint_impulse(&self, k: usize) -> Option<f32> {
        assert!(k < self.joints, "joint {k} out of range of {}", self.joints);
        let i = unsafe { js_joint_impulse(self.raw, k as u32) };
        (i >= 0.0).then_some(i)
    }

    /// Joint `k` stops acting.
    pub(super) fn disable_joint(&mut self, k: usize) {
        assert!(k < self.joints, "joint {k} out of range of {}", self.joints);
        unsafe { js_joint_disable(self.raw, k as u32) }
    }

    pub(super) fn set_settings(&mut self, settings: &JsSettings) {
        unsafe { js_set_settings(self.raw, settings) }
    }

    /// Body `i`'s flags and material.
    pub(super) fn configure(
        &mut self,
        i: usize,
        allow_sleeping: bool,
        linear_cast: bool,
        friction: f32,
        restitution: f32,
    ) {
        assert!(i < self.bodies, "body {i} out of range of {}", self.bodies);
        unsafe { js_body_configure(self.raw, i as u32, allow_sleeping, linear_cast, friction, restitution) }
    }

    pub(super) fn wake_all(&mut self) {
        unsafe { js_wake_all(self.raw) }
    }

    pub(super) fn optimize_broad_phase(&mut self) {
        unsafe { js_optimize_broad_phase(self.raw) }
    }

    /// One step of `dt` in `collision_steps` collision steps.
    pub(super) fn step(&mut self, dt: f32, collision_steps: u32) -> JsStepStats {
        let mut stats = JsStepStats::default();
        unsafe { js_step(self.raw, dt, collision_steps, &mut stats) };
        stats
    }

    /// Every body's state, in the order added, into `out` (one entry per body).
    pub(super) fn read(&self, out: &mut [JsBodyState]) {
        assert_eq!(out.len(), self.bodies, "one state per body");
        unsafe { js_read(self.raw, out.as_mut_ptr()) }
    }

    /// Body `i`'s mass, inertia (column-major) and centre of mass, if it is dynamic.
    pub(super) fn body_mass(&self, i: usize) -> Option<(f32, [f32; 9], [f32; 3])> {
        if i >= self.bodies {
            return None;
        }
        let (mut mass, mut inertia, mut com) = (0.0, [0.0; 9], [0.0; 3]);
        let dynamic = unsafe { js_body_mass(self.raw, i as u32, &mut mass, inertia.as_mut_ptr(), com.as_mut_ptr()) };
        dynamic.then_some((mass, inertia, com))
    }
}
