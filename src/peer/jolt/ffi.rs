//! The C interface of `shim.cpp`, declared by hand (the shim's structs are plain C data).

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
    pub(super) fn js_shape_sphere(radius: f32, density: f32, err: *mut c_char, err_len: usize) -> *const JsShape;
    pub(super) fn js_shape_box(
        half: *const f32,
        convex_radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    pub(super) fn js_shape_capsule(
        half_height: f32,
        radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    pub(super) fn js_shape_hull(
        points: *const f32,
        n: u32,
        max_convex_radius: f32,
        density: f32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    pub(super) fn js_shape_mesh(
        vertices: *const f32,
        nv: u32,
        indices: *const u32,
        ntri: u32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    pub(super) fn js_shape_compound(
        children: *const *const JsShape,
        poses: *const f32,
        n: u32,
        err: *mut c_char,
        err_len: usize,
    ) -> *const JsShape;
    pub(super) fn js_shape_release(shape: *const JsShape);

    pub(super) fn js_world_new(max_bodies: u32) -> *mut JsWorld;
    pub(super) fn js_world_free(world: *mut JsWorld);
    pub(super) fn js_set_settings(world: *mut JsWorld, settings: *const JsSettings);
    pub(super) fn js_add_body(
        world: *mut JsWorld,
        shape: *const JsShape,
        desc: *const JsBodyDesc,
        err: *mut c_char,
        err_len: usize,
    ) -> bool;
    pub(super) fn js_body_configure(
        world: *mut JsWorld,
        i: u32,
        allow_sleeping: bool,
        linear_cast: bool,
        friction: f32,
        restitution: f32,
    );
    pub(super) fn js_wake_all(world: *mut JsWorld);
    pub(super) fn js_optimize_broad_phase(world: *mut JsWorld);
    pub(super) fn js_step(world: *mut JsWorld, dt: f32, collision_steps: u32, out: *mut JsStepStats);
    pub(super) fn js_read(world: *const JsWorld, out: *mut JsBodyState);
    pub(super) fn js_body_mass(world: *const JsWorld, i: u32, mass: *mut f32, inertia: *mut f32, com: *mut f32)
    -> bool;
}
