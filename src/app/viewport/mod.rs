//! The 3D viewport: an orbit camera, instanced lit bodies and GPU debug lines drawn through an
//! `egui_wgpu` paint callback, and the mouse/key interaction that turns into [`ViewAction`]s.
//! It only reads the world; the app applies the actions.

mod camera;
pub mod colors;
pub mod frame;
mod gpu;
mod input;
pub mod mesh;
pub mod trails;

pub use camera::Camera;
pub use frame::{FrameData, FrameScratch, MeshKey, build_frame, build_frame_into};

use crate::math::Vec3;
use crate::world::World;
use eframe::egui::{self, Rect, Sense, TextureId};
use eframe::egui_wgpu::{self, wgpu};
use gpu::{ViewportCallback, ViewportGpu, ViewportGpus};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// What the viewport shows; persisted by the app with the rest of the view state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ViewOptions {
    pub layers: Layers,
    pub color_mode: ColorMode,
    /// The selected body, drawn highlighted.
    pub selected: Option<usize>,
    /// The selected joint (an index into the world's joints), shown in the Inspector. Not
    /// persisted.
    #[serde(skip)]
    pub selected_joint: Option<usize>,
    /// Per-body sRGB colours that replace `color_mode` (an A/B view colours by divergence);
    /// bodies past its end keep their usual colour. Not persisted.
    #[serde(skip)]
    pub body_colors: Option<Vec<[f32; 3]>>,
    /// The legend entries that go with `body_colors` (label, sRGB colour); without them the
    /// legend describes `color_mode`. Not persisted.
    #[serde(skip)]
    pub legend: Option<Vec<(String, [f32; 3])>>,
    /// Draw tree and octree nodes of the broad-phase layer only down to this depth; `None`: all.
    pub broad_phase_depth: Option<u32>,
    /// Lines and points the app's panels add to the world's (e.g. the pair panel's traces),
    /// filtered by the same layers. Not persisted.
    #[serde(skip)]
    pub extra: crate::debug_draw::DebugDraw,
    /// The trails to draw (the app copies the simulation's each frame). Not persisted.
    #[serde(skip)]
    pub trails: Vec<crate::session::trails::Trail>,
    /// Keep the camera's target on the selected body as it moves (key C).
    pub follow: bool,
    /// Draw static bodies (floors, walls, terrain) see-through, so a pile inside a walled bin
    /// or a body pushed into a wall stays in sight; a click then selects the body behind a
    /// static one, if there is one (key X).
    pub see_through_statics: bool,
    /// A narrow view (one of A/B's): the legend and the help each on one line. Not persisted.
    #[serde(skip)]
    pub folded: bool,
    /// No help line under the view (a clip's frames). Not persisted.
    #[serde(skip)]
    pub bare: bool,
}

/// Debug-draw layers, each toggled on its own; `grid` and `axes` are the viewer's own.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Layers {
    pub aabbs: bool,
    pub contact_points: bool,
    pub contact_normals: bool,
    /// Each contact point's normal and friction impulse of the last step, as arrows.
    pub contact_forces: bool,
    pub velocities: bool,
    pub broad_phase: bool,
    pub candidate_pairs: bool,
    pub ccd: bool,
    pub narrow_phase: bool,
    /// Triangles, BVH nodes and raw against corrected normals of meshes near moving bodies.
    pub mesh: bool,
    pub grid: bool,
    pub axes: bool,
    /// Trails behind fast and selected bodies, and small moving bodies drawn at a minimum size.
    pub trails: bool,
    /// Joints: anchors, axes, limits as arcs and ranges, the current error.
    pub joints: bool,
}

impl Default for Layers {
    fn default() -> Self {
        Layers {
            aabbs: false,
            contact_points: true,
            contact_normals: false,
            contact_forces: false,
            velocities: false,
            broad_phase: false,
            candidate_pairs: false,
            ccd: true,
            narrow_phase: false,
            mesh: false,
            grid: true,
            axes: true,
            trails: true,
            joints: true,
        }
    }
}

impl Layers {
    /// The layers' names, as `--layer` takes them.
    pub const NAMES: [&'static str; 14] = [
        "aabbs",
        "contact_points",
        "contact_normals",
        "contact_forces",
        "velocities",
        "broad_phase",
        "candidate_pairs",
        "ccd",
        "narrow_phase",
        "mesh",
        "grid",
        "axes",
        "trails",
        "joints",
    ];

    /// Every layer on.
    pub fn all() -> Layers {
        let mut layers = Layers::default();
        for name in Layers::NAMES {
            *layers.flag(name).expect("every name has a switch") = true;
        }
        layers
    }

    /// Turns the layer named `name` (one of [`Layers::NAMES`]) on or off.
    pub fn set(&mut self, name: &str, on: bool) -> Result<(), super::UnknownLayer> {
        *self.flag(name).ok_or_else(|| super::UnknownLayer { name: name.to_string() })? = on;
        Ok(())
    }

    /// Whether the layer named `name` is on; `None` for a name not in [`Layers::NAMES`].
    pub fn get(&self, name: &str) -> Option<bool> {
        self.clone().flag(name).map(|f| *f)
    }

    /// The switch of the layer named `name`.
    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "aabbs" => &mut self.aabbs,
            "contact_points" => &mut self.contact_points,
            "contact_normals" => &mut self.contact_normals,
            "contact_forces" => &mut self.contact_forces,
            "velocities" => &mut self.velocities,
            "broad_phase" => &mut self.broad_phase,
            "candidate_pairs" => &mut self.candidate_pairs,
            "ccd" => &mut self.ccd,
            "narrow_phase" => &mut self.narrow_phase,
            "mesh" => &mut self.mesh,
            "grid" => &mut self.grid,
            "axes" => &mut self.axes,
            "trails" => &mut self.trails,
            "joints" => &mut self.joints,
            _ => return None,
        })
    }

    /// The names of the layers that are on, as `--layer` takes them.
    pub fn names_on(&self) -> Vec<&'static str> {
        let off = |name: &str| {
            let mut l = self.clone();
            l.set(name, false).is_ok() && &l == self
        };
        Layers::NAMES.into_iter().filter(|n| !off(n)).collect()
    }
}

/// How bodies are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ColorMode {
    /// Dynamic, asleep, static, kinematic.
    #[default]
    State,
    /// One colour per island of touching dynamic bodies.
    Island,
    /// Blue when still to red at [`colors::SPEED_FULL_SCALE`] m/s.
    Speed,
}

/// What the user asked for in the viewport this frame.
#[derive(Clone, Debug, PartialEq)]
pub enum ViewAction {
    /// A click on a body, or on nothing.
    Select(Option<usize>),
    /// A click near a joint's anchors (index into the world's joints).
    SelectJoint(Option<usize>),
    /// A left-drag began on a dynamic body, at `local_anchor` in the body's frame.
    DragStart {
        body: usize,
        local_anchor: Vec3,
    },
    /// The cursor's point on the drag plane (through the grab point, facing the camera).
    DragTo {
        target: Vec3,
    },
    DragEnd,
    /// A left-drag while a teaching tool owns it ([`Viewport::set_tool`]): the camera rays
    /// through the press and through the cursor now; `done` on release.
    Tool {
        press: crate::geometry::Ray,
        now: crate::geometry::Ray,
        done: bool,
    },
    /// Key B: launch a fast sphere from the camera along the ray under the cursor.
    Shoot {
        origin: Vec3,
        velocity: Vec3,
    },
}

/// Speed of a shot sphere, m/s (the shot's own constants are the session's).
pub use crate::session::sim::SHOOT_SPEED;

/// The link to eframe's wgpu renderer, absent in headless tests.
struct GpuLink {
    render_state: egui_wgpu::RenderState,
    texture: Option<TextureId>,
}

/// Camera, GPU state and interaction state of one 3D view.
pub struct Viewport {
    camera: Camera,
    id: u64,
    gpu: Option<GpuLink>,
    drag: input::Drag,
    scratch: FrameScratch,
    /// The rect of the last frame, for picking outside `ui` and for `frame_all`'s aspect.
    last_rect: Rect,
    /// Counts of the last frame built, for the status line and tests.
    stats: FrameStats,
    /// The frame handed to the paint callback; its buffers are reused once egui drops it.
    in_flight: Option<Arc<FrameData>>,
    /// A teaching tool owns the plain left-drag (no body pulls, no orbit from it).
    tool: bool,
}

/// Sizes of the last frame drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    pub instances: usize,
    /// Instances drawn see-through (static bodies, [`ViewOptions::see_through_statics`]).
    pub see_through_instances: usize,
    pub draw_batches: usize,
    pub lines: usize,
    pub points: usize,
    /// Legend entries a folded legend had no room for.
    pub legend_hidden: usize,
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl Viewport {
    /// `render_state` is eframe's (`cc.wgpu_render_state.as_ref()`); with `None` (headless
    /// tests) nothing 3D is drawn but input, picking and actions work the same.
    pub fn new(render_state: Option<&egui_wgpu::RenderState>) -> Self {
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let gpu = render_state.map(|rs| {
            let gpu = ViewportGpu::new(&rs.device);
            let mut renderer = rs.renderer.write();
            let store = &mut renderer.callback_resources;
            if store.get::<ViewportGpus>().is_none() {
                store.insert(ViewportGpus::default());
            }
            if let Some(all) = store.get_mut::<ViewportGpus>() {
                all.0.insert(id, gpu);
            }
            GpuLink { render_state: rs.clone(), texture: None }
        });
        Viewport {
            camera: Camera::default(),
            id,
            gpu,
            drag: input::Drag::default(),
            scratch: FrameScratch::default(),
            last_rect: Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(1280.0, 720.0)),
            stats: FrameStats::default(),
            in_flight: None,
            tool: false,
        }
    }

    /// Another viewport drawing through the same GPU (none in headless tests), with a copy of
    /// this one's camera: the second view of an A/B comparison.
    pub fn sibling(&self) -> Viewport {
        let mut v = Viewport::new(self.gpu.as_ref().map(|g| &g.render_state));
        v.camera = self.camera.clone();
        v
    }

    pub fn camera(&self) -> &Camera {
        &self.camera
    }

    pub fn camera_mut(&mut self) -> &mut Camera {
        &mut self.camera
    }

    /// The screen rect the viewport last drew into.
    pub fn rect(&self) -> Rect {
        self.last_rect
    }

    /// Hands the plain left-drag to a teaching tool (reported as [`ViewAction::Tool`]), or back.
    /// Right-drag still orbits, middle or Shift-drag pans, a click still selects.
    pub fn set_tool(&mut self, on: bool) {
        self.tool = on;
    }

    pub fn stats(&self) -> FrameStats {
        self.stats
    }

    /// Aims the camera so every moving body is in view (every body if none moves: a large
    /// static floor would otherwise shrink the interesting part to a speck).
    pub fn frame_all(&mut self, world: &World) {
        self.frame_worlds(&[world]);
    }

    /// Frames the bodies of several worlds seen through this one camera (A and B of an A/B).
    pub fn frame_worlds(&mut self, worlds: &[&World]) {
        let aspect = self.last_rect.aspect_ratio();
        if let Some(b) = frame_box_of(worlds, true) {
            self.camera.frame_box(&b, aspect);
        }
    }

    /// Frames every moving body (all bodies if none moves), none left out: how a scene without
    /// a camera of its own opens.
    pub fn frame_start(&mut self, world: &World) {
        let aspect = self.last_rect.aspect_ratio();
        if let Some(b) = frame_box_of(&[world], false) {
            self.camera.frame_box(&b, aspect);
        }
    }

    /// Draws the world into the available space and returns what the user asked for.
    pub fn ui(&mut self, ui: &mut egui::Ui, world: &World, view: &ViewOptions) -> Vec<ViewAction> {
        let size = ui.available_size().max(egui::vec2(32.0, 32.0));
        let (rect, response) = ui.allocate_exact_size(size, Sense::click_and_drag());
        self.last_rect = rect;
        let mut actions = Vec::new();
        self.handle_input(ui, &response, rect, world, view, &mut actions);

        let ppp = ui.ctx().pixels_per_point();
        let size_px = [(rect.width() * ppp).round().max(1.0), (rect.height() * ppp).round().max(1.0)];
        if let Some(done) = self.in_flight.take().and_then(|f| Arc::try_unwrap(f).ok()) {
            self.scratch.recycle(done);
        }
        let frame = build_frame_into(world, view, &self.camera, size_px, ppp, &mut self.scratch);
        self.stats = FrameStats {
            instances: frame.instances.len(),
            see_through_instances: frame.batches.iter().filter(|b| b.see_through).map(|b| b.instances.len()).sum(),
            draw_batches: frame.batches.len(),
            lines: frame.line_count(),
            points: frame.point_count(),
            legend_hidden: 0,
        };
        let painter = ui.painter_at(rect);
        match self.texture_for(size_px) {
            Some(texture) => {
                let frame = Arc::new(frame);
                self.in_flight = Some(frame.clone());
                painter.add(gpu::callback_shape(rect, ViewportCallback { id: self.id, frame }));
                let uv = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
                painter.image(texture, rect, uv, egui::Color32::WHITE);
            }
            None => {
                self.scratch.recycle(frame);
                painter.rect_filled(rect, 0.0, egui::Color32::from_rgb(27, 29, 36));
            }
        }
        trails::draw(&painter, rect, &self.camera, world, view);
        self.stats.legend_hidden = input::draw_overlay(&painter, rect, view, world, self.tool);
        actions
    }

    /// Sizes the offscreen target to `size_px` and returns its egui texture, registering or
    /// re-pointing it when the size changed. `None` without a GPU.
    fn texture_for(&mut self, size_px: [f32; 2]) -> Option<TextureId> {
        let link = self.gpu.as_mut()?;
        let size = [size_px[0] as u32, size_px[1] as u32];
        let device = &link.render_state.device;
        let mut renderer = link.render_state.renderer.write();
        let view: Option<wgpu::TextureView> = renderer
            .callback_resources
            .get_mut::<ViewportGpus>()
            .and_then(|all| all.0.get_mut(&self.id))
            .and_then(|gpu| gpu.resize(device, size).cloned());
        if let Some(view) = view {
            match link.texture {
                Some(id) => renderer.update_egui_texture_from_wgpu_texture(device, &view, wgpu::FilterMode::Linear, id),
                None => link.texture = Some(renderer.register_native_texture(device, &view, wgpu::FilterMode::Linear)),
            }
        }
        link.texture
    }
}

impl Drop for Viewport {
    fn drop(&mut self) {
        if let Some(link) = &self.gpu {
            let mut renderer = link.render_state.renderer.write();
            if let Some(all) = renderer.callback_resources.get_mut::<ViewportGpus>() {
                all.0.remove(&self.id);
            }
            if let Some(id) = link.texture {
                renderer.free_texture(&id);
            }
        }
    }
}

/// The box `frame_all` aims at (over every world given): moving bodies if any, else all bodies; leaving out bodies that
/// flew far from the rest (farther from the median centre than 20 m and four times the median
/// distance), so one escaped ball does not shrink the scene to a speck.
/// With `leave_out_far` off every body counts.
pub(crate) fn frame_box_of(worlds: &[&World], leave_out_far: bool) -> Option<crate::geometry::Aabb> {
    let pick = |moving: bool| -> Vec<crate::geometry::Aabb> {
        worlds
            .iter()
            .flat_map(|w| w.bodies())
            .filter(|b| !moving || b.kind != crate::BodyKind::Static)
            .map(|b| b.aabb())
            .filter(|a| a.min.is_finite() && a.max.is_finite())
            .collect()
    };
    let mut boxes = pick(true);
    if boxes.is_empty() {
        boxes = pick(false);
    }
    if !leave_out_far {
        return boxes.into_iter().reduce(|a, b| a.merge(&b));
    }
    let median = |mut v: Vec<f32>| {
        v.sort_by(f32::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    };
    let centre = crate::math::Vec3::new(
        median(boxes.iter().map(|b| b.center().x).collect()),
        median(boxes.iter().map(|b| b.center().y).collect()),
        median(boxes.iter().map(|b| b.center().z).collect()),
    );
    let reach = (4.0 * median(boxes.iter().map(|b| b.center().distance(centre)).collect())).max(20.0);
    let near = boxes.iter().filter(|b| b.center().distance(centre) <= reach).copied().reduce(|a, b| a.merge(&b));
    near.or_else(|| boxes.into_iter().reduce(|a, b| a.merge(&b)))
}

#[cfg(test)]
mod tests;
