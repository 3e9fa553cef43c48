//! A scene becomes a world, and a world's state a scene.

use super::{MAX_PAIRS, World};
use crate::scene::{BodyDesc, HullCache, SCENE_VERSION, Scene, SceneError};
use std::path::PathBuf;

impl Scene {
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
        // A scene that starts with its bodies piled together would need more pairs than a step
        // takes (`MAX_PAIRS`) before it could push them apart.
        let n = world.bodies().len();
        if n * n.saturating_sub(1) / 2 > MAX_PAIRS && crate::broadphase::overlaps_exceed(world.aabbs(), MAX_PAIRS) {
            return Err(SceneError::Invalid {
                path: PathBuf::from(&self.name),
                field: "bodies".into(),
                message: format!(
                    "more than {} pairs of the scene's {n} bodies overlap at the start (bodies piled together): spread them out",
                    MAX_PAIRS
                ),
            });
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
            camera: template.camera,
            lesson: template.lesson,
        }
    }
}
