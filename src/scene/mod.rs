//! Scenes: the RON file format, its checks, generators, and conversion to and from a world.

mod error;
mod generate;
pub mod rules;
mod schema;

pub use error::SceneError;
pub use generate::{MAX_BODIES, SplitMix64};
pub use schema::{BodyDesc, Generator, Rotation, SCENE_VERSION, Scene, ShapeDesc};

use crate::dynamics::Body;
use crate::geometry::{ConvexHull, Shape};
use crate::math::{Pose, Vec3};
use crate::world::World;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl Scene {
    /// Reads and checks a scene file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| SceneError::Io { path: path.into(), source })?;
        Scene::parse(&text, path)
    }

    /// Parses and checks scene text; `path` only names the source in errors.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path: PathBuf = path.as_ref().into();
        let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
        let scene: Scene = options.from_str(text).map_err(|e| SceneError::Parse {
            path: path.clone(),
            line: e.span.start.line,
            col: e.span.start.col,
            message: e.code.to_string(),
        })?;
        scene.validate(&path)?;
        Ok(scene)
    }

    /// The checks parsing cannot make. Errors name the field path.
    pub fn validate(&self, path: &Path) -> Result<(), SceneError> {
        let invalid = |field: String, message: String| SceneError::Invalid { path: path.into(), field, message };
        if self.version != SCENE_VERSION {
            return Err(invalid(
                "version".into(),
                format!("unsupported scene version {} (this build reads version {SCENE_VERSION})", self.version),
            ));
        }
        self.settings.validate().map_err(|m| invalid("settings".into(), m))?;
        for (i, b) in self.bodies.iter().enumerate() {
            shape_check(&b.shape).map_err(|m| invalid(format!("bodies[{i}].shape"), m))?;
            b.rotation.validate().map_err(|m| invalid(format!("bodies[{i}]"), m))?;
        }
        let mut total = self.bodies.len() as u64;
        for (i, g) in self.generators.iter().enumerate() {
            generate::validate(g).map_err(|(f, m)| invalid(format!("generators[{i}].{f}"), m))?;
            match g {
                Generator::Grid { shape, .. } => {
                    shape_check(shape).map_err(|m| invalid(format!("generators[{i}].shape"), m))?
                }
                Generator::Rain { shapes, .. } => {
                    for (k, s) in shapes.iter().enumerate() {
                        shape_check(s).map_err(|m| invalid(format!("generators[{i}].shapes[{k}]"), m))?;
                    }
                }
                Generator::Pyramid { .. } => {}
            }
            total += generate::count(g);
        }
        if total > MAX_BODIES {
            return Err(invalid(
                "generators".into(),
                format!("the scene makes {total} bodies, more than the limit of {MAX_BODIES}"),
            ));
        }
        Ok(())
    }

    /// Every body: the explicit ones, then each generator's, in file order.
    pub fn expanded_bodies(&self) -> Vec<BodyDesc> {
        let mut out = self.bodies.clone();
        for g in &self.generators {
            generate::expand(g, &mut out);
        }
        out
    }

    /// Builds the world this scene describes. Call [`Scene::validate`] first (load and parse do).
    pub fn build(&self) -> Result<World, SceneError> {
        let mut world = World::new(self.settings.clone());
        // Generators repeat shapes: build each distinct hull once and share it.
        let mut hulls = HullCache::new();
        for (i, d) in self.expanded_bodies().iter().enumerate() {
            let body = d.to_body(&mut hulls).map_err(|message| SceneError::Invalid {
                path: PathBuf::from(&self.name),
                field: format!("body {i} shape"),
                message,
            })?;
            world.add_body(body);
        }
        Ok(world)
    }

    /// The world's current state as a scene: settings and every body with its exact pose and
    /// velocity. Name and description come from `template`.
    pub fn from_world(world: &World, template: &Scene) -> Scene {
        let bodies = world.bodies().iter().map(BodyDesc::from_body).collect();
        Scene {
            version: SCENE_VERSION,
            name: template.name.clone(),
            description: template.description.clone(),
            settings: world.settings.clone(),
            bodies,
            generators: Vec::new(),
        }
    }

    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(4).struct_names(false);
        ron::ser::to_string_pretty(self, config).expect("a scene always serialises")
    }

    /// Writes the scene atomically: to a temporary file beside `path`, then renamed over it, so
    /// a crash never leaves a half-written file.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SceneError> {
        write_atomic(path.as_ref(), self.to_ron().as_bytes())
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    use std::io::Write;
    let io = |source| SceneError::Io { path: path.into(), source };
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "scene".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result.map_err(io)
}

/// Hulls already built, keyed by their points' bits, so that equal point lists share one hull.
pub type HullCache = BTreeMap<Vec<[u32; 3]>, Arc<ConvexHull>>;

impl BodyDesc {
    /// The description of a body as it is now: exact pose and velocities.
    pub fn from_body(b: &Body) -> BodyDesc {
        let q = b.pose.rotation;
        BodyDesc {
            name: b.name.clone(),
            kind: b.kind,
            shape: shape_desc(&b.shape),
            position: b.pose.translation,
            rotation: Rotation::Quat(q.x, q.y, q.z, q.w),
            linear_velocity: b.linvel,
            angular_velocity: b.angvel,
            material: b.material,
            bullet: b.bullet,
        }
    }

    /// Makes the body this description gives; `hulls` shares hulls between bodies.
    pub(crate) fn to_body(&self, hulls: &mut HullCache) -> Result<Body, String> {
        let shape = make_shape(&self.shape, hulls)?;
        let rotation = self.rotation.to_quat();
        // A hull is re-centred on its centre of mass; the body moves with it.
        let com_offset = match &shape {
            Shape::ConvexHull(h) => -h.shift(),
            _ => Vec3::ZERO,
        };
        let pose = Pose::new(self.position + rotation * com_offset, rotation);
        let mut body =
            Body::new(self.kind, shape, pose, self.material).with_velocity(self.linear_velocity, self.angular_velocity);
        body.name = self.name.clone();
        body.bullet = self.bullet;
        Ok(body)
    }
}

fn shape_check(s: &ShapeDesc) -> Result<(), String> {
    if let ShapeDesc::ConvexHull { points } = s {
        ConvexHull::new(points).map_err(|e| e.to_string())?;
    }
    Ok(())
}

pub(crate) fn make_shape(d: &ShapeDesc, hulls: &mut HullCache) -> Result<Shape, String> {
    Ok(match d {
        ShapeDesc::Sphere { radius } => Shape::sphere(*radius),
        ShapeDesc::Cuboid { half_extents } => Shape::cuboid(*half_extents),
        ShapeDesc::Capsule { half_height, radius } => Shape::capsule(*half_height, *radius),
        ShapeDesc::ConvexHull { points } => {
            let key: Vec<[u32; 3]> = points.iter().map(|p| p.to_array().map(f32::to_bits)).collect();
            if let Some(h) = hulls.get(&key) {
                Shape::ConvexHull(h.clone())
            } else {
                let h = Arc::new(ConvexHull::new(points).map_err(|e| e.to_string())?);
                hulls.insert(key, h.clone());
                Shape::ConvexHull(h)
            }
        }
    })
}

pub(crate) fn shape_desc(s: &Shape) -> ShapeDesc {
    match s {
        Shape::Sphere(s) => ShapeDesc::Sphere { radius: s.radius },
        Shape::Cuboid(c) => ShapeDesc::Cuboid { half_extents: c.half_extents },
        Shape::Capsule(c) => ShapeDesc::Capsule { half_height: c.half_height, radius: c.radius },
        Shape::ConvexHull(h) => ShapeDesc::ConvexHull { points: h.vertices().to_vec() },
    }
}
