use crate::geometry::{Aabb, Shape};
use crate::math::{Mat3, Pose, Quat, Real, Vec3};
use serde::{Deserialize, Serialize};

/// How a body moves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum BodyKind {
    /// Moved by forces and contacts.
    #[default]
    Dynamic,
    /// Never moves.
    Static,
    /// Moves at its set velocity, pushes dynamic bodies and is never pushed.
    Kinematic,
}

/// Surface and bulk properties.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Material {
    /// Bounciness in [0, 1]: the fraction of approach speed kept after an impact.
    #[serde(deserialize_with = "crate::rules::de::unit_interval")]
    pub restitution: Real,
    /// Coulomb friction coefficient, in [0, 100].
    #[serde(deserialize_with = "crate::rules::de::friction")]
    pub friction: Real,
    /// Mass per unit volume (kg/m³), in [1e-3, 1e6].
    #[serde(deserialize_with = "crate::rules::de::density")]
    pub density: Real,
}

impl Default for Material {
    fn default() -> Self {
        Self { restitution: 0.0, friction: 0.5, density: 1000.0 }
    }
}

impl Material {
    /// This material with the settings' world-wide `friction` and `restitution` overrides (the
    /// Settings panel's, `--set friction=` / `restitution=`) in place of its own where they are
    /// set: what the solver, and the peer engines mapped from a scene, take.
    pub fn with_overrides(self, friction: Option<Real>, restitution: Option<Real>) -> Material {
        Material {
            friction: friction.unwrap_or(self.friction),
            restitution: restitution.unwrap_or(self.restitution),
            ..self
        }
    }
}

/// A rigid body. The pose's translation is the centre of mass.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// The body's name in the scene, if any.
    pub name: Option<String>,
    /// Dynamic, static or kinematic.
    pub kind: BodyKind,
    /// The collision shape, in body coordinates.
    pub shape: Shape,
    /// Position of the centre of mass and orientation.
    pub pose: Pose,
    /// Linear velocity, m/s.
    pub linvel: Vec3,
    /// Angular velocity, rad/s, in world axes.
    pub angvel: Vec3,
    /// Friction, restitution, density.
    pub material: Material,
    /// Always swept by continuous collision detection, whatever its speed.
    pub bullet: bool,
    pub(crate) inv_mass: Real,
    pub(crate) inv_inertia_local: Mat3,
    pub(crate) mass: Real,
    pub(crate) sleep_time: Real,
    pub(crate) asleep: bool,
    /// While asleep: the island it fell asleep with, so that waking one member wakes them all.
    pub(crate) sleep_island: Option<u32>,
}

impl Body {
    /// A body at rest, its mass and inertia from the shape and the material's density.
    pub fn new(kind: BodyKind, shape: Shape, pose: Pose, material: Material) -> Self {
        let mut b = Body {
            name: None,
            kind,
            shape,
            pose,
            linvel: Vec3::ZERO,
            angvel: Vec3::ZERO,
            material,
            bullet: false,
            inv_mass: 0.0,
            inv_inertia_local: Mat3::ZERO,
            mass: 0.0,
            sleep_time: 0.0,
            asleep: false,
            sleep_island: None,
        };
        b.update_mass();
        b
    }

    /// The body with this name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The body with these velocities.
    pub fn with_velocity(mut self, linvel: Vec3, angvel: Vec3) -> Self {
        self.linvel = linvel;
        self.angvel = angvel;
        self
    }

    /// Recomputes mass and inertia from the shape and density.
    pub fn update_mass(&mut self) {
        if self.kind == BodyKind::Dynamic {
            let mp = self.shape.mass_properties(self.material.density);
            self.mass = mp.mass;
            self.inv_mass = if mp.mass > 0.0 { 1.0 / mp.mass } else { 0.0 };
            self.inv_inertia_local = mp.inertia.inverse();
            if !self.inv_inertia_local.is_finite() {
                self.inv_inertia_local = Mat3::ZERO;
            }
        } else {
            self.mass = 0.0;
            self.inv_mass = 0.0;
            self.inv_inertia_local = Mat3::ZERO;
        }
    }

    /// Whether the solver moves it (a dynamic body).
    pub fn is_dynamic(&self) -> bool {
        self.kind == BodyKind::Dynamic
    }

    /// Mass, kg (0 for static and kinematic bodies).
    pub fn mass(&self) -> Real {
        self.mass
    }

    /// Inverse mass, 1/kg (0 for static and kinematic bodies).
    pub fn inv_mass(&self) -> Real {
        self.inv_mass
    }

    /// Whether it sleeps.
    pub fn is_asleep(&self) -> bool {
        self.asleep
    }

    /// The inverse inertia tensor in world axes (R I⁻¹ Rᵀ; glam's SSE matrices: the scalar
    /// matrices' products and sums in the same order, so the same bits in fewer instructions).
    pub fn inv_inertia_world(&self) -> Mat3 {
        self.inv_inertia_world_with(&glam::Mat3A::from_quat(self.pose.rotation))
    }

    /// [`Body::inv_inertia_world`] given the rotation matrix, `Mat3A::from_quat(pose.rotation)`.
    pub(crate) fn inv_inertia_world_with(&self, r: &glam::Mat3A) -> Mat3 {
        Mat3::from(*r * glam::Mat3A::from(self.inv_inertia_local) * r.transpose())
    }

    /// Its bounding box in world space.
    pub fn aabb(&self) -> Aabb {
        self.shape.aabb(&self.pose)
    }

    /// The velocity of the body's material point at `world_point`.
    pub fn velocity_at(&self, world_point: Vec3) -> Vec3 {
        self.linvel + self.angvel.cross(world_point - self.pose.translation)
    }

    /// Kinetic energy, translational plus rotational.
    pub fn kinetic_energy(&self) -> Real {
        if !self.is_dynamic() {
            return 0.0;
        }
        let r = Mat3::from_quat(self.pose.rotation);
        let w_local = r.transpose() * self.angvel;
        let inertia = self.inv_inertia_local.inverse();
        0.5 * self.mass * self.linvel.length_squared() + 0.5 * w_local.dot(inertia * w_local)
    }

    /// Wakes the body up and restarts its sleep timer.
    pub fn wake(&mut self) {
        self.asleep = false;
        self.sleep_time = 0.0;
        self.sleep_island = None;
    }

    pub(crate) fn integrate_rotation(rotation: Quat, angvel: Vec3, dt: Real) -> Quat {
        let w = angvel * dt;
        let dq = Quat::from_xyzw(w.x * 0.5, w.y * 0.5, w.z * 0.5, 0.0) * rotation;
        (rotation + dq).normalize()
    }
}
