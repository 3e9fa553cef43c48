//! Drawing motion trails ([`crate::session::trails`]) and minimum on-screen sizes: a moving
//! body smaller on screen than a few pixels is drawn at a minimum size with a ring around it.

use super::{Camera, ViewOptions};
use crate::BodyKind;
use crate::math::Vec3;
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
    for (i, b) in world.bodies().iter().enumerate() {
        if b.kind == BodyKind::Static {
            continue;
        }
        let selected = view.selected == Some(i);
        if !selected && b.linvel.length() < 0.5 {
            continue;
        }
        let Some(px) = screen_radius(camera, rect, b.pose.translation, b.shape.bounding_radius()) else { continue };
        if px >= MIN_RADIUS_PX {
            continue;
        }
        let Some(c) = camera.project(b.pose.translation, rect) else { continue };
        let fill = if selected { Color32::from_rgb(255, 235, 120) } else { Color32::from_rgb(255, 170, 60) };
        painter.circle_filled(c, MIN_RADIUS_PX, fill);
        painter.circle_stroke(c, MIN_RADIUS_PX + 5.0, Stroke::new(1.5, fill));
    }
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
}
