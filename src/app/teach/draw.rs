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

    fn backed(&self, at: Pos2, galley: std::sync::Arc<egui::Galley>, color: Color32) {
        let r = egui::Rect::from_min_size(at, galley.size());
        self.painter.rect_filled(r.expand(2.0), 3.0, Color32::from_rgba_unmultiplied(10, 12, 16, 190));
        self.painter.galley(at, galley, color);
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
