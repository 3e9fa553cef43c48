//! Motion trails: the recent centres of the bodies worth following, what makes a 5 cm bullet
//! at 200 m/s visible.
//! A body gets a trail while it is selected or moves more than half its own size (its bounding
//! radius) per step, the motion that can tunnel through a thin wall.

use crate::BodyKind;
use crate::math::Vec3;
use crate::world::World;
use std::collections::VecDeque;

/// Steps a trail keeps.
pub const TRAIL_STEPS: usize = 90;
/// Most bodies with a trail at once (the selected body always has one).
pub const MAX_TRAILS: usize = 32;

/// One body's recent centres, oldest first.
#[derive(Clone, Debug, PartialEq)]
pub struct Trail {
    /// The body followed.
    pub body: usize,
    /// Its recent centres, oldest first.
    pub points: VecDeque<Vec3>,
    /// The last step at which the body was fast (or selected); the trail fades out after it.
    last_fast: u64,
}

/// The trails of the bodies worth following, updated after every step.
#[derive(Clone, Debug, Default)]
pub struct Trails {
    trails: Vec<Trail>,
    step: Option<u64>,
}

impl Trails {
    /// Forgets every trail.
    pub fn clear(&mut self) {
        self.trails.clear();
        self.step = None;
    }

    /// The current trails.
    pub fn iter(&self) -> impl Iterator<Item = &Trail> {
        self.trails.iter()
    }

    /// Whether a body moves more than its bounding radius in one step.
    pub fn is_fast(world: &World, i: usize) -> bool {
        let b = &world.bodies()[i];
        b.kind != BodyKind::Static && b.linvel.length() * world.settings.dt > b.shape.bounding_radius()
    }

    /// Records the world after the step just taken.
    pub fn observe(&mut self, world: &World, selected: Option<usize>) {
        let step = world.step_count();
        // A reset, seek or new scene put the world at another step: start over.
        if self.step.is_some_and(|s| s + 1 != step) {
            self.trails.clear();
        }
        self.step = Some(step);
        let n = world.bodies().len();
        self.trails.retain(|t| t.body < n);
        for i in 0..n {
            let wanted = selected == Some(i) || Self::is_fast(world, i);
            let at = self.trails.iter().position(|t| t.body == i);
            let slot = match at {
                Some(k) => k,
                None if wanted && (self.trails.len() < MAX_TRAILS || selected == Some(i)) => {
                    self.trails.push(Trail { body: i, points: VecDeque::new(), last_fast: step });
                    self.trails.len() - 1
                }
                None => continue,
            };
            let t = &mut self.trails[slot];
            if wanted {
                t.last_fast = step;
            }
            if t.points.len() == TRAIL_STEPS {
                t.points.pop_front();
            }
            t.points.push_back(world.bodies()[i].pose.translation);
        }
        // A trail lasts as long as its points after the body stopped being followed.
        self.trails.retain(|t| step - t.last_fast < TRAIL_STEPS as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::{BodyDesc, Scene, ShapeDesc};

    fn bullet_world(speed: f32) -> World {
        let mut scene = Scene::default();
        let mut ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.05 }, Vec3::new(0.0, 1.0, 0.0));
        ball.linear_velocity = Vec3::new(speed, 0.0, 0.0);
        let crate_ = BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.5) }, Vec3::new(5.0, 0.5, 0.0));
        scene.bodies = vec![ball, crate_];
        scene.settings.gravity = Vec3::ZERO;
        // It must fly past the crate: discrete contacts only.
        scene.settings.ccd = crate::ccd::CcdMode::Off;
        scene.build().unwrap()
    }

    #[test]
    fn a_fast_body_leaves_a_trail_that_fades_after_it_slows() {
        let mut w = bullet_world(200.0);
        let mut trails = Trails::default();
        for _ in 0..10 {
            w.step();
            trails.observe(&w, None);
        }
        let bodies: Vec<usize> = trails.iter().map(|t| t.body).collect();
        assert_eq!(bodies, vec![0], "only the bullet is fast");
        let t = trails.iter().next().unwrap();
        assert_eq!(t.points.len(), 10);
        assert!(t.points.back().unwrap().x > t.points.front().unwrap().x + 20.0);
        // Stopped, it keeps its trail for TRAIL_STEPS steps, then the trail goes.
        w.body_mut(0).linvel = Vec3::ZERO;
        for _ in 0..TRAIL_STEPS {
            w.step();
            trails.observe(&w, None);
        }
        assert_eq!(trails.iter().count(), 0);
    }

    #[test]
    fn the_selected_body_has_a_trail_and_a_reset_starts_over() {
        let mut w = bullet_world(0.0);
        let mut trails = Trails::default();
        for _ in 0..5 {
            w.step();
            trails.observe(&w, Some(1));
        }
        assert_eq!(trails.iter().map(|t| (t.body, t.points.len())).collect::<Vec<_>>(), vec![(1, 5)]);
        let mut fresh = bullet_world(0.0);
        fresh.step();
        trails.observe(&fresh, Some(1));
        assert_eq!(trails.iter().next().unwrap().points.len(), 1, "a world at another step starts over");
    }
}
