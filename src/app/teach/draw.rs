//! Drawing world-space lines, points and labels over the 3D view with egui's painter.

use super::super::viewport::Camera;
use crate::math::Vec3;
use eframe::egui::{self, Color32, FontId, Pos2, Stroke};

/// Colours of the x, y and z slabs (and axes), and of their intersection.
pub(super) const AXIS_COLORS: [Color32; 3] =
    [Color32::from_rgb(240, 95, 85), Color32::from_rgb(110, 215, 110), Color32::from_rgb(95, 155, 255)];
pub(super) const RESULT: Color32 = Color32::from_rgb(255, 210, 80);
pub(super) const INSIDE: Color32 = Color32::from_rgb(110, 220, 130);
pub(super) const OUTSIDE: Color32 = Color32::from_rgb(255, 105, 95);
pub(super) const FAINT: Color32 = Color32::from_rgba_premultiplied(150, 155, 165, 150);

pub struct View<'a> {
    pub painter: &'a egui::Painter,
    pub camera: &'a Camera,
    pub rect: egui::Rect,
    /// The labels drawn so far this frame, which a later label steps clear of.
    placed: std::cell::RefCell<Vec<egui::Rect>>,
}

impl<'a> View<'a> {
    /// Drawing over `rect` of the view seen by `camera`.
    pub fn new(painter: &'a egui::Painter, camera: &'a Camera, rect: egui::Rect) -> Self {
        View { painter, camera, rect, placed: Default::default() }
    }
}

impl View<'_> {
    /// Depth of `p` in front of the near plane (negative: behind it).
    fn depth(&self, p: Vec3) -> f32 {
        self.camera.forward().dot(p - self.camera.eye()) - 1.5 * self.camera.near()
    }

    pub fn screen(&self, p: Vec3) -> Option<Pos2> {
        if self.depth(p) <= 0.0 {
            return None;
        }
        self.camera.project(p, self.rect).filter(|s| s.is_finite())
    }

    /// The screen ends of segment `a b`, clipped to the part in front of the camera.
    pub fn clip(&self, a: Vec3, b: Vec3) -> Option<(Pos2, Pos2)> {
        let (da, db) = (self.depth(a), self.depth(b));
        if da <= 0.0 && db <= 0.0 {
            return None;
        }
        let cut = |p: Vec3, q: Vec3, dp: f32, dq: f32| p + (q - p) * ((0.0 - dp) / (dq - dp) + 1e-4);
        let (a, b) = match (da > 0.0, db > 0.0) {
            (true, true) => (a, b),
            (false, _) => (cut(a, b, da, db), b),
            (_, false) => (a, cut(b, a, db, da)),
        };
        Some((self.camera.project(a, self.rect)?, self.camera.project(b, self.rect)?))
    }

    pub fn line(&self, a: Vec3, b: Vec3, stroke: impl Into<Stroke>) {
        if let Some((p, q)) = self.clip(a, b) {
            self.painter.line_segment([p, q], stroke);
        }
    }

    /// A segment drawn `offset` points to the side of where it is on screen.
    pub fn line_offset(&self, a: Vec3, b: Vec3, side: egui::Vec2, stroke: impl Into<Stroke>) {
        if let Some((p, q)) = self.clip(a, b) {
            self.painter.line_segment([p + side, q + side], stroke);
        }
    }

    /// A closed outline through `points`.
    pub fn outline(&self, points: &[Vec3], stroke: impl Into<Stroke> + Copy) {
        for k in 0..points.len() {
            self.line(points[k], points[(k + 1) % points.len()], stroke);
        }
    }

    /// A filled convex polygon (skipped if any corner is behind the camera).
    pub fn fill(&self, points: &[Vec3], color: Color32) {
        let screen: Option<Vec<Pos2>> = points.iter().map(|p| self.screen(*p)).collect();
        if let Some(s) = screen {
            self.painter.add(egui::Shape::convex_polygon(s, color, Stroke::NONE));
        }
    }

    pub fn dot(&self, p: Vec3, radius: f32, color: Color32) {
        if let Some(s) = self.screen(p) {
            self.painter.circle_filled(s, radius, color);
        }
    }

    pub fn ring(&self, p: Vec3, radius: f32, color: Color32) {
        if let Some(s) = self.screen(p) {
            self.painter.circle_stroke(s, radius, Stroke::new(2.0, color));
        }
    }

    /// Text beside world point `p`, on a dark backing so it reads over any scene.
    pub fn label(&self, p: Vec3, offset: egui::Vec2, text: impl Into<String>, color: Color32) {
        if let Some(s) = self.screen(p) {
            self.text(s + offset, text.into(), color);
        }
    }

    /// Text that ends at `offset` beside world point `p` (for labels left of a point).
    pub fn label_left(&self, p: Vec3, offset: egui::Vec2, text: impl Into<String>, color: Color32) {
        if let Some(s) = self.screen(p) {
            let galley = self.painter.layout_no_wrap(text.into(), FontId::proportional(13.0), color);
            let at = s + offset - egui::vec2(galley.size().x, 0.0);
            self.backed(at, galley, color);
        }
    }

    pub fn text(&self, at: Pos2, text: String, color: Color32) {
        let galley = self.painter.layout_no_wrap(text, FontId::proportional(13.0), color);
        self.backed(at, galley, color);
    }

    /// Draws `galley` at `at` on its backing, moved down past any label already drawn that it
    /// would cover (the origin's label sat under the entry's where the ray starts near the box).
    fn backed(&self, at: Pos2, galley: std::sync::Arc<egui::Galley>, color: Color32) {
        let mut r = egui::Rect::from_min_size(at, galley.size()).expand(2.0);
        let mut placed = self.placed.borrow_mut();
        for _ in 0..placed.len() {
            match placed.iter().find(|p| p.intersects(r)) {
                Some(p) => r = r.translate(egui::vec2(0.0, p.bottom() + 2.0 - r.top())),
                None => break,
            }
        }
        placed.push(r);
        self.painter.rect_filled(r, 3.0, Color32::from_rgba_unmultiplied(10, 12, 16, 190));
        self.painter.galley(r.min + egui::vec2(2.0, 2.0), galley, color);
    }

    /// A line of text along the top left of the view: what the drag does now.
    pub fn banner(&self, text: &str) {
        self.text(self.rect.left_top() + egui::vec2(8.0, 8.0), text.to_owned(), RESULT);
    }

    /// The 12 edges of the box `[min, max]`.
    pub fn aabb(&self, min: Vec3, max: Vec3, stroke: impl Into<Stroke> + Copy) {
        let c = |i: usize| crate::geometry::Aabb { min, max }.corner(i);
        for i in 0..8 {
            for bit in [1, 2, 4] {
                if i & bit == 0 {
                    self.line(c(i), c(i | bit), stroke);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two labels at one spot are drawn one under the other, not over each other.
    #[test]
    fn a_label_steps_clear_of_the_labels_drawn_before_it() {
        let ctx = egui::Context::default();
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            let painter = ui.ctx().layer_painter(egui::LayerId::background());
            let camera = Camera::looking(Vec3::new(0.0, 1.0, 10.0), Vec3::new(0.0, 1.0, 0.0));
            let rect = egui::Rect::from_min_size(egui::pos2(0.0, 0.0), egui::vec2(800.0, 600.0));
            let v = View::new(&painter, &camera, rect);
            let p = Vec3::new(0.0, 1.0, 0.0);
            v.label(p, egui::vec2(0.0, 0.0), "origin, t = 0", Color32::WHITE);
            v.label_left(p, egui::vec2(60.0, 4.0), "t_enter 1.53 = the shape's hit", RESULT);
            v.label(p, egui::vec2(300.0, 0.0), "far away", RESULT);
            let placed = v.placed.borrow();
            assert_eq!(placed.len(), 3);
            assert!(!placed[0].intersects(placed[1]), "{placed:?}");
            assert!(placed[1].top() >= placed[0].bottom(), "moved down: {placed:?}");
            let far =
                egui::Rect::from_min_size(camera.project(p, rect).unwrap() + egui::vec2(300.0, 0.0), placed[2].size());
            assert!((placed[2].min - far.min).length() < 3.0, "a label in the clear stays: {placed:?}");
        });
        // No renderer takes the font texture here.
        out.textures_delta.clear();
    }
}
