//! A scene becomes a world, and a world's state a scene.

use super::{MAX_OVERLAPS, MAX_PAIRS, World};
use crate::scene::{BodyDesc, HullCache, JointDesc, SCENE_VERSION, Scene, SceneError};

impl Scene {
    /// Builds the world this scene describes. Call [`Scene::validate`] first (load and parse do).
    pub fn build(&self) -> Result<World, SceneError> {
        let mut world = World::new(self.settings.clone());
        // Generators repeat shapes: build each distinct hull once and share it.
        let mut hulls = HullCache::new();
        for (i, d) in self.expanded_bodies().iter().enumerate() {
            let body = d.to_body(&mut hulls).map_err(|error| SceneError::Invalid {
                path: self.file_label(),
                field: format!("body {i} shape"),
                message: error.into(),
            })?;
            world.add_body(body);
        }
        if !self.joints.is_empty() || self.generators.iter().any(crate::scene::Generator::makes_joints) {
            let bodies = self.expanded_bodies();
            let joints = self.resolve_joints(&bodies, |i| world.bodies()[i].pose).map_err(|(field, message)| {
                SceneError::Invalid { path: self.file_label(), field, message: message.into() }
            })?;
            for j in joints {
                world.add_joint(j).map_err(|e| SceneError::Invalid {
                    path: self.file_label(),
                    field: "joints".into(),
                    message: e.to_string().into(),
                })?;
            }
        }
        // A scene that starts with its bodies piled together would need more pairs than a step
        // takes (`MAX_PAIRS`) before it could push them apart.
        // Pairs of two static or two kinematic bodies (or a static and a kinematic one) never
        // become pairs, so only overlaps that involve a dynamic body count.
        let n = world.bodies().len();
        let dynamic: Vec<bool> = world.bodies().iter().map(|b| b.is_dynamic()).collect();
        let dynamics = dynamic.iter().filter(|&&d| d).count();
        let most = dynamics * dynamics.saturating_sub(1) / 2 + dynamics * (n - dynamics);
        if most > MAX_PAIRS
            && crate::broadphase::overlaps_exceed(world.aabbs(), MAX_PAIRS, |a, b| dynamic[a] || dynamic[b])
        {
            return Err(SceneError::Invalid {
                path: self.file_label(),
                field: "bodies".into(),
                message: format!(
                    "more than {} pairs of the scene's {n} bodies overlap at the start (bodies piled together): spread them out",
                    MAX_PAIRS
                )
                .into(),
            });
        }
        // Boxes that overlap without making pairs still cost the broad phase, which lists them.
        if n * n.saturating_sub(1) / 2 > MAX_OVERLAPS
            && crate::broadphase::overlaps_exceed(world.aabbs(), MAX_OVERLAPS, |_, _| true)
        {
            return Err(SceneError::Invalid {
                path: self.file_label(),
                field: "bodies".into(),
                message: format!(
                    "more than {MAX_OVERLAPS} pairs of the boxes of the scene's {n} bodies overlap at the start: static or \
                     kinematic bodies piled together never collide, but the broad phase lists every overlapping pair \
                     each step; spread them out or make them one body"
                )
                .into(),
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
            joints: world.joints().iter().map(JointDesc::from_joint).collect(),
            camera: template.camera,
            lesson: template.lesson,
            file: template.file.clone(),
        }
    }
}
