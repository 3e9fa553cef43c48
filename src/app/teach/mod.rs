//! Teaching tools: the Ray tool (the slab method of a ray drawn in the view) and the geometric
//! tests lesson (view cone, rectangle SAT, grid cell on the floor). Each has a panel and draws
//! over the 3D view; the geometry they show comes from the engine (`geometry::slab`,
//! `geometry::planar`). While one is switched on, it owns the plain left-drag in the view.

mod draw;
mod lesson;
mod ray;

pub use lesson::{Handle, TestsLesson};
pub use ray::{RAY_REACH, RayReport, RayTarget, RayTool};

use super::PanelId;
use super::viewport::Camera;
use crate::geometry::Ray;
use crate::scene::Lesson;
use crate::session::sim::Simulation;
use crate::world::World;
use eframe::egui;
use std::path::PathBuf;

/// The state of both tools and whether their panels are open.
#[derive(Default)]
pub struct Teach {
    pub ray: RayTool,
    pub tests: TestsLesson,
    pub open_ray: bool,
    pub open_tests: bool,
    /// The scene seen last (path and name), to open the lesson a newly opened scene names.
    seen: Option<(Option<PathBuf>, String)>,
}

impl Teach {
    /// On a newly opened scene: clears what the tools drew on the last one (their drawings
    /// belong to the scene they were made on), closes them, and opens (and switches on) the tool
    /// the new scene is built for. Call every frame; returns whether the tools' panels changed.
    pub fn sync(&mut self, sim: &Simulation) -> bool {
        let now = (sim.path.clone(), sim.scene.name.clone());
        if self.seen.as_ref() == Some(&now) {
            return false;
        }
        // The first scene seen keeps the tools as the last run left them.
        if self.seen.replace(now).is_some() {
            self.ray = RayTool::default();
            self.tests = TestsLesson::default();
            self.open_ray = false;
            self.open_tests = false;
        }
        match sim.scene.lesson {
            Some(Lesson::RaySlab) => {
                self.open_ray = true;
                self.set_active(true, false);
            }
            Some(Lesson::GeometricTests) => {
                self.open_tests = true;
                self.set_active(false, true);
            }
            None => self.set_active(false, false),
        }
        true
    }

    /// Switches the tools on or off; at most one owns the drag.
    fn set_active(&mut self, ray: bool, tests: bool) {
        self.ray.active = ray;
        self.tests.active = tests && !ray;
    }

    /// A tool owns the plain left-drag in the view.
    pub fn owns_drag(&self) -> bool {
        (self.open_ray && self.ray.active) || (self.open_tests && self.tests.active)
    }

    pub fn any_open(&self) -> bool {
        self.open_ray || self.open_tests
    }

    /// Gives the plain left-drag in the view to the Ray tool or the tests lesson, switching the
    /// other off.
    pub fn take_drag(&mut self, tool: PanelId) {
        match tool {
            PanelId::Ray => self.tests.active = false,
            PanelId::Tests => self.ray.active = false,
            _ => {}
        }
    }

    /// A drag in the view while a tool owns it.
    pub fn tool_drag(&mut self, press: &Ray, now: &Ray, done: bool) {
        if self.open_ray && self.ray.active {
            self.ray.drag(press, now);
        } else if self.open_tests && self.tests.active {
            self.tests.drag(press, now, done);
        }
    }

    /// Draws the open tools over the 3D view in `rect` (seen through `camera`); the Ray tool's
    /// drawing not while `ray_veiled` (a lesson's prediction about it waits for its answer).
    pub fn paint(&self, painter: &egui::Painter, camera: &Camera, rect: egui::Rect, world: &World, ray_veiled: bool) {
        let view = draw::View::new(painter, camera, rect);
        if self.open_tests {
            self.tests.paint(&view);
        }
        if self.open_ray && !ray_veiled {
            self.ray.paint(&view, world);
        }
        let hint = if self.open_ray && self.ray.active {
            Some("Ray tool: drag draws a ray · right-drag: orbit · shift-drag: pan")
        } else if self.open_tests && self.tests.active {
            Some("Tests: drag a handle on the floor · right-drag: orbit · shift-drag: pan")
        } else {
            None
        };
        if let Some(h) = hint {
            view.banner(h);
        }
    }
}
