//! The orbit camera: a target point seen from `distance` away at `yaw`/`pitch`, Y up.

use crate::geometry::{Aabb, Ray};
use crate::math::{Mat4, Vec3};
use eframe::egui;
use glam::Vec4;
use serde::{Deserialize, Serialize};

/// Pitch stays just short of straight up/down so the view basis never degenerates.
const MAX_PITCH: f32 = 1.55;
const MIN_DISTANCE: f32 = 0.05;
const MAX_DISTANCE: f32 = 5_000.0;

/// An orbit camera. Angles in radians; `yaw = 0` looks along -Z, positive pitch looks down.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Camera {
    pub target: Vec3,
    pub yaw: f32,
    pub pitch: f32,
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Default for Camera {
    fn default() -> Self {
        Camera { target: Vec3::new(0.0, 1.0, 0.0), yaw: 0.6, pitch: 0.45, distance: 18.0, fov_y: 50f32.to_radians() }
    }
}

impl Camera {
    /// Unit vector from the eye towards the target.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(-sy * cp, -sp, -cy * cp)
    }

    /// The camera's right and up unit vectors (right-handed with `forward`).
    pub fn basis(&self) -> (Vec3, Vec3) {
        let f = self.forward();
        let right = f.cross(Vec3::Y).try_normalize().unwrap_or(Vec3::X);
        (right, right.cross(f))
    }

    /// A camera at `eye` looking at `target` (the field of view of the default camera).
    pub fn looking(eye: Vec3, target: Vec3) -> Camera {
        let d = target - eye;
        let distance = d.length();
        if !(distance.is_finite() && distance > 1e-6) {
            return Camera { target, ..Camera::default() };
        }
        let f = d / distance;
        let pitch = (-f.y).clamp(-1.0, 1.0).asin().clamp(-MAX_PITCH, MAX_PITCH);
        let yaw = (-f.x).atan2(-f.z).rem_euclid(std::f32::consts::TAU);
        Camera { target, yaw, pitch, distance: distance.clamp(MIN_DISTANCE, MAX_DISTANCE), ..Camera::default() }
    }

    pub fn eye(&self) -> Vec3 {
        self.target - self.forward() * self.distance
    }

    /// Near plane distance; the projection has no far plane (reverse-Z, infinite).
    pub fn near(&self) -> f32 {
        (self.distance * 1e-3).clamp(0.01, 1.0)
    }

    /// World to view space: x right, y up, looking down -z.
    pub fn view(&self) -> Mat4 {
        let (r, u) = self.basis();
        let (f, e) = (self.forward(), self.eye());
        Mat4::from_cols(
            Vec4::new(r.x, u.x, -f.x, 0.0),
            Vec4::new(r.y, u.y, -f.y, 0.0),
            Vec4::new(r.z, u.z, -f.z, 0.0),
            Vec4::new(-r.dot(e), -u.dot(e), f.dot(e), 1.0),
        )
    }

    /// Right-handed perspective with depth 1 at the near plane falling to 0 at infinity
    /// (reverse-Z: even precision over distance, no far plane to clip a large scene).
    pub fn projection(&self, aspect: f32) -> Mat4 {
        let f = 1.0 / (self.fov_y * 0.5).tan();
        Mat4::from_cols(
            Vec4::new(f / aspect.max(1e-3), 0.0, 0.0, 0.0),
            Vec4::new(0.0, f, 0.0, 0.0),
            Vec4::new(0.0, 0.0, 0.0, -1.0),
            Vec4::new(0.0, 0.0, self.near(), 0.0),
        )
    }

    pub fn view_proj(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// The world ray from the eye through screen point `pos` of the viewport `rect`. Its
    /// direction has unit length, so the ray's `t` is a distance.
    pub fn ray_through(&self, pos: egui::Pos2, rect: egui::Rect) -> Ray {
        let w = rect.width().max(1.0);
        let h = rect.height().max(1.0);
        let ndc_x = (pos.x - rect.left()) / w * 2.0 - 1.0;
        let ndc_y = 1.0 - (pos.y - rect.top()) / h * 2.0;
        let t = (self.fov_y * 0.5).tan();
        let (right, up) = self.basis();
        let dir = self.forward() + right * (ndc_x * t * w / h) + up * (ndc_y * t);
        Ray::new(self.eye(), dir.normalize())
    }

    /// The screen point of world point `p` in viewport `rect`; `None` behind the camera.
    pub fn project(&self, p: Vec3, rect: egui::Rect) -> Option<egui::Pos2> {
        let clip = self.view_proj(rect.aspect_ratio()) * p.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let (x, y) = (clip.x / clip.w, clip.y / clip.w);
        Some(egui::pos2(rect.left() + (x + 1.0) * 0.5 * rect.width(), rect.top() + (1.0 - y) * 0.5 * rect.height()))
    }

    /// Rotates about the target by screen-drag amounts (radians). The eye stays level with the
    /// target or above it, so orbiting never swings the view under the floor.
    pub fn orbit(&mut self, d_yaw: f32, d_pitch: f32) {
        self.yaw = (self.yaw + d_yaw).rem_euclid(std::f32::consts::TAU);
        self.pitch = (self.pitch + d_pitch).clamp(0.0, MAX_PITCH);
    }

    /// Moves the target in the view plane by a drag of `(dx, dy)` points in a viewport
    /// `height` points tall, so the grabbed point follows the cursor at the target's depth.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (right, up) = self.basis();
        let world_per_point = 2.0 * self.distance * (self.fov_y * 0.5).tan() / height.max(1.0);
        self.target += (-right * dx + up * dy) * world_per_point;
    }

    /// Multiplies the distance by `factor` (< 1 moves closer).
    pub fn zoom(&mut self, factor: f32) {
        if factor.is_finite() && factor > 0.0 {
            self.distance = (self.distance * factor).clamp(MIN_DISTANCE, MAX_DISTANCE);
        }
    }

    /// Aims at the box's centre from far enough that its bounding sphere fits the narrower
    /// field of view of a viewport with this `aspect` (width / height).
    pub fn frame_box(&mut self, aabb: &Aabb, aspect: f32) {
        if !(aabb.min.is_finite() && aabb.max.is_finite()) || aabb.min.cmpgt(aabb.max).any() {
            return;
        }
        let radius = (aabb.extents().length() * 0.5).max(0.25);
        let half_y = self.fov_y * 0.5;
        let half_x = (half_y.tan() * aspect.max(1e-3)).atan();
        let half = half_x.min(half_y);
        self.target = aabb.center();
        self.distance = (radius / half.sin() * 1.05).clamp(MIN_DISTANCE, MAX_DISTANCE);
    }

    /// Replaces non-finite or out-of-range values (e.g. from an old settings file).
    pub fn sanitized(mut self) -> Self {
        let d = Camera::default();
        if !self.target.is_finite() {
            self.target = d.target;
        }
        if !self.yaw.is_finite() {
            self.yaw = d.yaw;
        }
        self.pitch = if self.pitch.is_finite() { self.pitch.clamp(-MAX_PITCH, MAX_PITCH) } else { d.pitch };
        self.distance =
            if self.distance.is_finite() { self.distance.clamp(MIN_DISTANCE, MAX_DISTANCE) } else { d.distance };
        self.fov_y = if self.fov_y.is_finite() { self.fov_y.clamp(0.1, 2.5) } else { d.fov_y };
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use eframe::egui::{Pos2, Rect, pos2, vec2};

    fn project(cam: &Camera, aspect: f32, p: Vec3) -> Vec3 {
        cam.view_proj(aspect).project_point3(p)
    }

    #[test]
    fn looking_puts_the_eye_where_asked() {
        let (eye, target) = (Vec3::new(-1.0, 0.4, 2.5), Vec3::new(0.5, 0.1, 0.0));
        let cam = Camera::looking(eye, target);
        assert!(cam.eye().distance(eye) < 1e-4, "{} vs {eye}", cam.eye());
        assert_eq!(cam.target, target);
    }

    #[test]
    fn ray_through_the_centre_hits_the_target() {
        let cam = Camera { target: Vec3::new(1.0, 2.0, -3.0), yaw: 1.1, pitch: -0.3, distance: 7.0, fov_y: 0.9 };
        let rect = Rect::from_min_size(pos2(10.0, 20.0), vec2(800.0, 500.0));
        let ray = cam.ray_through(rect.center(), rect);
        assert!((ray.origin - cam.eye()).length() < 1e-5);
        assert!((ray.at(cam.distance) - cam.target).length() < 1e-4, "{:?}", ray.at(cam.distance));
    }

    #[test]
    fn ray_through_a_pixel_projects_back_to_that_pixel() {
        let cam = Camera { target: Vec3::ZERO, yaw: -0.7, pitch: 0.6, distance: 12.0, fov_y: 1.0 };
        let rect = Rect::from_min_size(pos2(0.0, 0.0), vec2(640.0, 360.0));
        let aspect = rect.width() / rect.height();
        for pos in [pos2(0.0, 0.0), pos2(640.0, 360.0), pos2(100.0, 300.0), pos2(500.0, 40.0)] {
            let ray = cam.ray_through(pos, rect);
            let ndc = project(&cam, aspect, ray.at(5.0));
            let back = Pos2::new((ndc.x + 1.0) * 0.5 * rect.width(), (1.0 - ndc.y) * 0.5 * rect.height());
            assert!((back - pos).length() < 1e-2, "{pos:?} -> {back:?}");
            assert!(ndc.z > 0.0 && ndc.z <= 1.0, "depth {} outside the reverse-Z range", ndc.z);
        }
    }

    #[test]
    fn depth_decreases_with_distance() {
        let cam = Camera::default();
        let near = project(&cam, 1.5, cam.target - cam.forward() * 2.0);
        let far = project(&cam, 1.5, cam.target + cam.forward() * 50.0);
        assert!(near.z > far.z);
    }

    #[test]
    fn frame_box_fits_every_corner_in_view() {
        let aabb = Aabb { min: Vec3::new(-30.0, 0.0, -2.0), max: Vec3::new(10.0, 25.0, 4.0) };
        for aspect in [0.5, 1.0, 2.5] {
            for (yaw, pitch) in [(0.0, 0.0), (0.8, 0.5), (2.5, -1.2)] {
                let mut cam = Camera { yaw, pitch, ..Camera::default() };
                cam.frame_box(&aabb, aspect);
                for i in 0..8 {
                    let c = aabb.corner(i);
                    let ndc = project(&cam, aspect, c);
                    assert!(ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0 && ndc.z > 0.0, "corner {c} at {ndc}");
                }
            }
        }
    }

    #[test]
    fn orbit_and_pan_keep_the_camera_sane() {
        let mut cam = Camera::default();
        cam.orbit(0.3, 10.0);
        assert!(cam.pitch <= MAX_PITCH);
        let before = cam.target;
        cam.pan(100.0, 0.0, 500.0);
        let (right, _) = cam.basis();
        assert!((cam.target - before).dot(right) < 0.0, "dragging right moves the target left");
        cam.zoom(0.0);
        cam.zoom(f32::NAN);
        assert!(cam.distance.is_finite() && cam.distance > 0.0);
        let bad = Camera { distance: f32::NAN, target: Vec3::splat(f32::INFINITY), ..cam }.sanitized();
        assert!(bad.distance.is_finite() && bad.target.is_finite());
    }
}
