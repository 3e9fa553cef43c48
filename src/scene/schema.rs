//! The scene file schema (RON). Omitted fields take defaults; unknown fields are errors.

use crate::dynamics::{BodyKind, Material};
use crate::math::{Quat, Real, Vec3};
use crate::rules::de;
use crate::settings::Settings;
use serde::{Deserialize, Serialize};

/// The scene format version this build reads and writes.
pub const SCENE_VERSION: u32 = 1;

fn version_one() -> u32 {
    SCENE_VERSION
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
/// A scene file: settings, bodies and generators, with a name and a description.
pub struct Scene {
    #[serde(default = "version_one")]
    /// The file format's version ([`SCENE_VERSION`]).
    pub version: u32,
    #[serde(default)]
    /// The scene's title.
    pub name: String,
    #[serde(default)]
    /// What to look for in it, shown in the Scenes panel.
    pub description: String,
    #[serde(default)]
    /// The settings it runs with.
    pub settings: Settings,
    #[serde(default)]
    /// Bodies listed one by one.
    pub bodies: Vec<BodyDesc>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Generators that add many bodies each, after the listed ones.
    pub generators: Vec<Generator>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    /// Joints between the bodies (listed and generated), after the generators' own.
    pub joints: Vec<super::JointDesc>,
    /// Where the app's camera starts (and where Reset puts it back); framed on the bodies if
    /// omitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraDesc>,
    /// The teaching tool the app opens with this scene.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lesson: Option<Lesson>,
    /// The file it was loaded from (set by [`Scene::load`] and [`Scene::parse`]), for messages.
    #[serde(skip)]
    pub file: super::SceneFile,
}

/// A teaching tool of the app that a scene is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Lesson {
    /// The Ray tool: the slab method's per-axis intervals of a ray drawn in the view.
    RaySlab,
    /// Point in a view cone or sector, SAT of two rectangles, grid cell lookup, on the floor.
    GeometricTests,
}

/// A camera position for the app: the eye and the point it looks at, m.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CameraDesc {
    #[serde(deserialize_with = "de::coordinate_vec3")]
    /// Where the eye is.
    pub eye: Vec3,
    #[serde(deserialize_with = "de::coordinate_vec3")]
    /// The point it looks at.
    pub target: Vec3,
}

impl Default for Scene {
    fn default() -> Self {
        Scene {
            version: SCENE_VERSION,
            name: String::new(),
            description: String::new(),
            settings: Settings::default(),
            bodies: Vec::new(),
            generators: Vec::new(),
            joints: Vec::new(),
            camera: None,
            lesson: None,
            file: Default::default(),
        }
    }
}

/// A shape as written in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum ShapeDesc {
    /// A ball.
    Sphere {
        #[serde(deserialize_with = "de::size")]
        /// Its radius, m.
        radius: Real,
    },
    /// A box.
    Cuboid {
        #[serde(deserialize_with = "de::size_vec3")]
        /// Half its size along each body axis, m.
        half_extents: Vec3,
    },
    /// A segment along the body's Y axis, rounded by a radius.
    Capsule {
        #[serde(deserialize_with = "de::size")]
        /// Half the segment's length, m.
        half_height: Real,
        #[serde(deserialize_with = "de::size")]
        /// The rounding radius, m.
        radius: Real,
    },
    /// The hull of a point cloud; the body's position is the origin of these points. With
    /// `file`, the points are the vertices of a mesh file (see [`ShapeDesc::TriangleMesh`]).
    ConvexHull {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        /// The points, in body coordinates (none with `file`).
        points: Vec<Vec3>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A mesh file whose vertices are the points, relative to the scene file.
        file: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The object of the file to read (every object when absent).
        object: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A factor on the file's coordinates.
        scale: Option<Real>,
    },
    /// Triangles over the listed vertices, counter-clockwise seen from the side they face;
    /// static or kinematic bodies only. Or `file`: an OBJ or glTF file, relative to the scene
    /// file, read when the scene is loaded (every object, or the one named `object`, its
    /// vertices times `scale`); loading replaces these fields with the file's triangles.
    TriangleMesh {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        /// The vertices, in body coordinates.
        vertices: Vec<Vec3>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        /// Each triangle's three vertex indices.
        indices: Vec<[u32; 3]>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// An OBJ or glTF file, relative to the scene file.
        file: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The object of the file to read (every object when absent).
        object: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A factor on the file's coordinates.
        scale: Option<Real>,
    },
    /// Convex children, each at a pose in the body's frame, moving as one body of any kind; the
    /// body's position is the origin of the children's positions.
    /// Or `file`: an OBJ or glTF file (every object, or the one named `object`, times `scale`)
    /// cut into convex hulls by `decomposition`, read when the scene is loaded; loading
    /// replaces these fields with the hulls as children.
    Compound {
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        /// The children.
        children: Vec<ChildDesc>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A mesh file to decompose, relative to the scene file.
        file: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The object of the file to read (every object when absent).
        object: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// A factor on the file's coordinates.
        scale: Option<Real>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// How to cut the file's mesh into convex parts (defaults without it).
        decomposition: Option<Decomposition>,
    },
    /// A grid of heights, one list per row (rows run along z, columns along x), `cell` m apart,
    /// centred on the body's position; static or kinematic bodies only.
    HeightField {
        /// The spacing of the grid, m.
        cell: Real,
        /// The heights, one list per row, m.
        heights: Vec<Vec<Real>>,
    },
}

/// The convex decomposition (V-HACD) of a compound read from a mesh file.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Decomposition {
    #[serde(default = "Decomposition::default_resolution")]
    /// Voxels along the mesh's longest side (8 to 256): finer finds smaller features, slower.
    pub resolution: u32,
    #[serde(default = "Decomposition::default_max_hulls")]
    /// Most convex parts kept (1 to 256).
    pub max_hulls: u32,
}

impl Decomposition {
    fn default_resolution() -> u32 {
        64
    }
    fn default_max_hulls() -> u32 {
        32
    }
}

impl Default for Decomposition {
    fn default() -> Self {
        Self { resolution: Self::default_resolution(), max_hulls: Self::default_max_hulls() }
    }
}

/// One child of a compound as written in a scene: a convex shape at a position and rotation in
/// the body's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChildDesc {
    /// A sphere, cuboid, capsule or convex hull.
    pub shape: ShapeDesc,
    #[serde(default, deserialize_with = "de::coordinate_vec3")]
    /// Where it sits in the body's frame, m.
    pub position: Vec3,
    #[serde(default)]
    /// How it is turned in the body's frame.
    pub rotation: Rotation,
}

impl ShapeDesc {
    /// The hull of these points, given inline.
    pub fn convex_hull(points: Vec<Vec3>) -> ShapeDesc {
        ShapeDesc::ConvexHull { points, file: None, object: None, scale: None }
    }

    /// A compound of these children, given inline.
    pub fn compound(children: Vec<ChildDesc>) -> ShapeDesc {
        ShapeDesc::Compound { children, file: None, object: None, scale: None, decomposition: None }
    }

    /// These triangles, given inline.
    pub fn triangle_mesh(vertices: Vec<Vec3>, indices: Vec<[u32; 3]>) -> ShapeDesc {
        ShapeDesc::TriangleMesh { vertices, indices, file: None, object: None, scale: None }
    }
}

/// An orientation as written in a scene.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RotationRaw", into = "RotationRaw")]
pub enum Rotation {
    /// Degrees about x, then y, then z (intrinsic XYZ).
    Euler(Real, Real, Real),
    /// Any non-zero quaternion `(x, y, z, w)`; it is normalised.
    Quat(Real, Real, Real, Real),
    /// Degrees about an axis.
    AxisAngle(Vec3, Real),
}

#[derive(Clone, Copy, Serialize, Deserialize)]
enum RotationRaw {
    Euler(Real, Real, Real),
    Quat(Real, Real, Real, Real),
    AxisAngle(Vec3, Real),
}

/// A rotation whose numbers are not finite or describe no rotation.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RotationError {
    /// An Euler angle that is not finite or beyond a million degrees.
    #[error("rotation: Euler angles must be finite numbers of at most ±1e6 degrees")]
    Euler,
    /// A quaternion that is not finite, zero, or too long to square.
    #[error(
        "rotation: the quaternion ({}, {}, {}, {}) must be finite, not zero, and of a length whose square is finite (components within about ±1e19)",
        .0[0], .0[1], .0[2], .0[3]
    )]
    Quat([Real; 4]),
    /// An axis that is not finite or zero, or an angle that is not finite or too large.
    #[error("rotation: the axis must be a finite non-zero vector and the angle finite, at most ±1e6 degrees")]
    AxisAngle,
}

impl TryFrom<RotationRaw> for Rotation {
    type Error = RotationError;
    fn try_from(r: RotationRaw) -> Result<Self, RotationError> {
        let rot = match r {
            RotationRaw::Euler(x, y, z) => Rotation::Euler(x, y, z),
            RotationRaw::Quat(x, y, z, w) => Rotation::Quat(x, y, z, w),
            RotationRaw::AxisAngle(a, d) => Rotation::AxisAngle(a, d),
        };
        rot.validate()?;
        Ok(rot)
    }
}

impl From<Rotation> for RotationRaw {
    fn from(r: Rotation) -> Self {
        match r {
            Rotation::Euler(x, y, z) => RotationRaw::Euler(x, y, z),
            Rotation::Quat(x, y, z, w) => RotationRaw::Quat(x, y, z, w),
            Rotation::AxisAngle(a, d) => RotationRaw::AxisAngle(a, d),
        }
    }
}

impl Default for Rotation {
    fn default() -> Self {
        Rotation::Euler(0.0, 0.0, 0.0)
    }
}

impl Rotation {
    /// Checks that the rotation's numbers are finite and describe a rotation.
    pub fn validate(&self) -> Result<(), RotationError> {
        // Angles beyond a million degrees lose every digit of their fraction of a turn in f32.
        let angle = |d: Real| d.is_finite() && d.abs() <= 1e6;
        match *self {
            Rotation::Euler(x, y, z) => {
                if !(angle(x) && angle(y) && angle(z)) {
                    return Err(RotationError::Euler);
                }
            }
            Rotation::Quat(x, y, z, w) => {
                let q = Quat::from_xyzw(x, y, z, w);
                let len2 = q.length_squared();
                if !q.is_finite() || !len2.is_finite() || len2 < 1e-12 {
                    return Err(RotationError::Quat([x, y, z, w]));
                }
            }
            Rotation::AxisAngle(a, d) => {
                let len2 = a.length_squared();
                if !a.is_finite() || !len2.is_finite() || len2 < 1e-12 || !angle(d) {
                    return Err(RotationError::AxisAngle);
                }
            }
        }
        Ok(())
    }

    /// The rotation as a unit quaternion.
    pub fn to_quat(self) -> Quat {
        match self {
            Rotation::Euler(x, y, z) => {
                Quat::from_euler(glam::EulerRot::XYZ, x.to_radians(), y.to_radians(), z.to_radians())
            }
            Rotation::Quat(x, y, z, w) => {
                // A saved pose is already unit length: keep its exact bits so reloads are exact.
                let q = Quat::from_xyzw(x, y, z, w);
                if (q.length_squared() - 1.0).abs() <= 4.0 * Real::EPSILON { q } else { q.normalize() }
            }
            Rotation::AxisAngle(a, d) => Quat::from_axis_angle(a.normalize(), d.to_radians()),
        }
    }
}

/// One body as written in a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodyDesc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The body's name, if any.
    pub name: Option<String>,
    #[serde(default)]
    /// Dynamic (the default), static or kinematic.
    pub kind: BodyKind,
    /// The collision shape.
    pub shape: ShapeDesc,
    #[serde(default, deserialize_with = "de::coordinate_vec3")]
    /// Position of the centre of mass, m.
    pub position: Vec3,
    #[serde(default)]
    /// Orientation.
    pub rotation: Rotation,
    #[serde(default, deserialize_with = "de::velocity_vec3")]
    /// Linear velocity at the start, m/s.
    pub linear_velocity: Vec3,
    #[serde(default, deserialize_with = "de::spin_vec3")]
    /// Angular velocity at the start, rad/s.
    pub angular_velocity: Vec3,
    #[serde(default)]
    /// Friction, restitution, density.
    pub material: Material,
    #[serde(default)]
    /// Swept by time of impact whatever its speed.
    pub bullet: bool,
}

impl BodyDesc {
    /// A dynamic body of this shape at `position`, at rest, with the default material.
    pub fn new(shape: ShapeDesc, position: Vec3) -> Self {
        BodyDesc {
            name: None,
            kind: BodyKind::Dynamic,
            shape,
            position,
            rotation: Rotation::default(),
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            material: Material::default(),
            bullet: false,
        }
    }
}

/// A few lines that make many bodies.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum Generator {
    /// A pyramid of cubes: `base` on the bottom row, one fewer per row, in the x-y plane.
    Pyramid {
        /// Cubes on the bottom row.
        base: u32,
        #[serde(default = "half", deserialize_with = "de::size")]
        /// Half the cubes' size, m.
        half_extent: Real,
        /// Centre of the bottom row's bottom face.
        #[serde(default, deserialize_with = "de::coordinate_vec3")]
        origin: Vec3,
        /// Gap between neighbouring cubes.
        #[serde(default, deserialize_with = "de::non_negative")]
        gap: Real,
        #[serde(default)]
        /// The cubes' material.
        material: Material,
    },
    /// A `counts.0 × counts.1 × counts.2` block of one shape; `(n, m, 1)` is a wall.
    Grid {
        /// Bodies along x, y and z.
        counts: (u32, u32, u32),
        /// The shape of every body.
        shape: ShapeDesc,
        /// Position of the first body.
        #[serde(default, deserialize_with = "de::coordinate_vec3")]
        origin: Vec3,
        /// Distance between neighbouring centres on each axis.
        #[serde(deserialize_with = "de::coordinate_vec3")]
        spacing: Vec3,
        #[serde(default)]
        /// Every body's orientation.
        rotation: Rotation,
        #[serde(default)]
        /// Every body's kind.
        kind: BodyKind,
        #[serde(default, deserialize_with = "de::velocity_vec3")]
        /// Every body's starting velocity, m/s.
        linear_velocity: Vec3,
        #[serde(default)]
        /// Every body's material.
        material: Material,
    },
    /// `count` bodies at seeded random places in a box, shapes drawn from `shapes`.
    Rain {
        /// How many bodies.
        count: u32,
        #[serde(default)]
        /// Seed of the random places and shapes.
        seed: u64,
        #[serde(deserialize_with = "de::coordinate_vec3")]
        /// The box's lower corner.
        min: Vec3,
        #[serde(deserialize_with = "de::coordinate_vec3")]
        /// The box's upper corner.
        max: Vec3,
        /// The shapes drawn from.
        shapes: Vec<ShapeDesc>,
        /// Random orientations.
        #[serde(default = "yes")]
        random_rotation: bool,
        #[serde(default, deserialize_with = "de::velocity_vec3")]
        /// Every body's starting velocity, m/s.
        linear_velocity: Vec3,
        #[serde(default)]
        /// Every body's material.
        material: Material,
        /// Place each body clear of those placed before it (their bounding spheres apart), so the
        /// rain starts without overlaps; off, places are drawn independently and bodies may start
        /// inside each other.
        #[serde(default)]
        separated: bool,
    },
    /// A chain of `links` capsules, each `link_length` long, ball-jointed end to end from a point
    /// fixed in the world at `origin` along `direction`; with `end_radius`, a ball at its end
    /// `end_mass_ratio` times as heavy as a link.
    Chain {
        /// Links.
        links: u32,
        /// The fixed point, m.
        #[serde(default, deserialize_with = "de::coordinate_vec3")]
        origin: Vec3,
        /// Which way the chain runs from it (down when omitted).
        #[serde(default = "down")]
        direction: Vec3,
        /// Each link's length, m.
        #[serde(default = "tenth", deserialize_with = "de::size")]
        link_length: Real,
        /// The links' radius, m.
        #[serde(default = "hundredth", deserialize_with = "de::size")]
        radius: Real,
        /// The end ball's radius (0: none), m.
        #[serde(default, deserialize_with = "de::non_negative")]
        end_radius: Real,
        /// The end ball's mass over a link's.
        #[serde(default = "one", deserialize_with = "de::positive")]
        end_mass_ratio: Real,
        #[serde(default)]
        /// The links' material (the ball's density follows the ratio).
        material: Material,
    },
    /// A ragdoll of 12 bodies with ball joints (cone limits) and hinged knees and elbows,
    /// standing with its feet at `origin`, `scale` times a 1.8 m person.
    Ragdoll {
        /// Where its feet are, m.
        #[serde(default, deserialize_with = "de::coordinate_vec3")]
        origin: Vec3,
        /// Size over a 1.8 m person's.
        #[serde(default = "one", deserialize_with = "de::positive")]
        scale: Real,
        #[serde(default)]
        /// Every part's material.
        material: Material,
    },
}

impl Generator {
    /// Whether it makes joints as well as bodies.
    pub fn makes_joints(&self) -> bool {
        matches!(self, Generator::Chain { .. } | Generator::Ragdoll { .. })
    }
}

fn down() -> Vec3 {
    Vec3::NEG_Y
}

fn tenth() -> Real {
    0.1
}

fn hundredth() -> Real {
    0.01
}

fn one() -> Real {
    1.0
}

fn half() -> Real {
    0.5
}

fn yes() -> bool {
    true
}
