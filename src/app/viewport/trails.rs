//! Drawing motion trails ([`crate::session::trails`]) and minimum on-screen sizes: a moving
//! body smaller on screen than a few pixels is drawn at a minimum size with a ring around it.

use super::{Camera, ViewOptions};
use crate::math::Vec3;
use crate::session::trails::{MAX_TRAILS, Trails};
use crate::world::World;
use eframe::egui::{self, Color32, Rect, Stroke};

/// Bodies smaller than this on screen (radius, points) are drawn at this size with a ring.
pub const MIN_RADIUS_PX: f32 = 4.0;

/// Draws the trails (older parts fainter) and marks small moving bodies, over the 3D image.
pub fn draw(painter: &egui::Painter, rect: Rect, camera: &Camera, world: &World, view: &ViewOptions) {
    if !view.layers.trails {
        return;
    }
    for t in &view.trails {
        let n = t.points.len();
        let screen: Vec<Option<egui::Pos2>> = t.points.iter().map(|p| camera.project(*p, rect)).collect();
        for (k, w) in screen.windows(2).enumerate() {
            if let [Some(a), Some(b)] = w {
                let age = (k + 1) as f32 / n as f32;
                let color = Color32::from_rgba_unmultiplied(255, 210, 80, (40.0 + 215.0 * age) as u8);
                painter.line_segment([*a, *b], Stroke::new(1.0 + 2.0 * age, color));
            }
        }
    }
    for i in marked(world, camera, rect, view.selected) {
        let Some(c) = camera.project(world.bodies()[i].pose.translation, rect) else { continue };
        let fill =
            if view.selected == Some(i) { Color32::from_rgb(255, 235, 120) } else { Color32::from_rgb(255, 170, 60) };
        painter.circle_filled(c, MIN_RADIUS_PX, fill);
        painter.circle_stroke(c, MIN_RADIUS_PX + 5.0, Stroke::new(1.5, fill));
    }
}

/// The bodies drawn at the minimum size with a ring: those smaller on screen than
/// [`MIN_RADIUS_PX`] that move more than their own size in a step (the bodies that get a trail,
/// [`Trails::is_fast`]: a 5 cm bullet at 200 m/s), and the selected one; at most
/// [`MAX_TRAILS`], the selected first. A rain of small bodies falling a fraction of their size
/// a step is not marked: rings on every one hid the scene and what the layers drew over it.
pub fn marked(world: &World, camera: &Camera, rect: Rect, selected: Option<usize>) -> Vec<usize> {
    let small = |i: usize| {
        let b = &world.bodies()[i];
        screen_radius(camera, rect, b.pose.translation, b.shape.bounding_radius()).is_some_and(|px| px < MIN_RADIUS_PX)
    };
    let mut out: Vec<usize> = selected.filter(|&i| i < world.bodies().len() && small(i)).into_iter().collect();
    for i in 0..world.bodies().len() {
        if out.len() >= MAX_TRAILS {
            break;
        }
        if Some(i) != selected && Trails::is_fast(world, i) && small(i) {
            out.push(i);
        }
    }
    out
}

/// The on-screen radius (points) of a sphere of `radius` at `centre`; `None` behind the camera.
pub fn screen_radius(camera: &Camera, rect: Rect, centre: Vec3, radius: f32) -> Option<f32> {
    let (right, _) = camera.basis();
    let a = camera.project(centre, rect)?;
    let b = camera.project(centre + right * radius, rect)?;
    Some(a.distance(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_far_small_body_is_smaller_on_screen_than_the_minimum() {
        let camera = Camera::looking(Vec3::new(0.0, 1.0, 10.0), Vec3::new(0.0, 1.0, 0.0));
        let rect = Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(800.0, 600.0));
        let small = screen_radius(&camera, rect, Vec3::new(0.0, 1.0, 0.0), 0.005).unwrap();
        let large = screen_radius(&camera, rect, Vec3::new(0.0, 1.0, 0.0), 1.0).unwrap();
        assert!(small < MIN_RADIUS_PX && large > 20.0, "{small} {large}");
        assert!((large / small - 200.0).abs() < 1.0, "proportional to size: {large} / {small}");
    }

    /// A rain of small bodies falling two thirds of their size a step gets no ring; a bullet
    /// crossing more than its size a step does, as does the selected body; never more than
    /// `MAX_TRAILS`.
    #[test]
    fn only_fast_or_selected_small_bodies_are_marked() {
        use crate::scene::{BodyDesc, Scene, ShapeDesc};
        let mut scene = Scene::default();
        for k in 0..400 {
            let mut b =
                BodyDesc::new(ShapeDesc::Sphere { radius: 0.1 }, Vec3::new((k % 20) as f32, 5.0, (k / 20) as f32));
            b.linear_velocity = Vec3::new(0.0, -4.0, 0.0);
            scene.bodies.push(b);
        }
        let mut bullet = BodyDesc::new(ShapeDesc::Sphere { radius: 0.05 }, Vec3::new(-5.0, 2.0, 0.0));
        bullet.linear_velocity = Vec3::new(200.0, 0.0, 0.0);
        scene.bodies.push(bullet);
        scene.settings.gravity = Vec3::ZERO;
        let world = scene.build().unwrap();
        let camera = Camera::looking(Vec3::new(10.0, 30.0, 120.0), Vec3::new(10.0, 3.0, 10.0));
        let rect = Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(1280.0, 720.0));
        let px = screen_radius(&camera, rect, world.bodies()[0].pose.translation, 0.1).unwrap();
        assert!(px < MIN_RADIUS_PX, "the rain is small on screen ({px} px)");
        assert_eq!(marked(&world, &camera, rect, None), vec![400], "only the bullet");
        assert_eq!(marked(&world, &camera, rect, Some(7)), vec![7, 400], "the selected body first");
        // A rain at bullet speed is capped.
        let mut fast = scene.clone();
        fast.bodies.iter_mut().for_each(|b| b.linear_velocity = Vec3::new(0.0, -40.0, 0.0));
        let fast = fast.build().unwrap();
        assert_eq!(marked(&fast, &camera, rect, None).len(), MAX_TRAILS);
    }
}
