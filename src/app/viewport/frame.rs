//! The CPU side of one frame: body instances grouped by mesh, debug lines and points, and the
//! uniforms. Plain data, built without a GPU, so it can be tested and benchmarked.

use super::camera::Camera;
use super::colors::{BodyColors, pack_rgba};
use super::{Layers, ViewOptions};
use crate::debug_draw::{CONTACT_POINT_COLORS, CONTACT_POINT_SIZE, DebugDraw, DrawCategory, contact_point_kind};
use crate::geometry::Shape;
use crate::math::{Pose, Quat, Vec3};
use crate::world::World;
use bytemuck::{Pod, Zeroable};
use std::collections::HashMap;
use std::ops::Range;
use std::sync::Arc;

/// One placed, scaled, coloured copy of a unit mesh.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Instance {
    pub position: [f32; 3],
    /// RGBA8, sRGB-encoded.
    pub color: u32,
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    /// Bit 0: selected (drawn with a glowing rim).
    pub flags: u32,
}

pub const FLAG_SELECTED: u32 = 1;

/// A line-list vertex; consecutive pairs make one segment.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct LineVertex {
    pub position: [f32; 3],
    pub color: u32,
}

/// A screen-facing square marker.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct PointInstance {
    pub position: [f32; 3],
    /// Side length in physical pixels.
    pub size: f32,
    pub color: u32,
}

/// Per-frame shader constants.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct Uniforms {
    pub view_proj: [[f32; 4]; 4],
    /// Eye position; w: pixels per point.
    pub eye: [f32; 4],
    /// Unit direction towards the key light.
    pub light_dir: [f32; 4],
    /// Target size in physical pixels (x, y), then 1/x, 1/y.
    pub viewport: [f32; 4],
}

/// Which unit mesh a batch of instances uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MeshKey {
    Sphere,
    Cube,
    Cylinder,
    /// Index into [`FrameData::custom`]: a hull, a triangle mesh or a height field.
    Hull(usize),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Batch {
    pub mesh: MeshKey,
    pub instances: Range<u32>,
}

/// Everything the GPU needs to draw one frame.
#[derive(Clone, Debug)]
pub struct FrameData {
    pub uniforms: Uniforms,
    pub instances: Vec<Instance>,
    /// Instance ranges by mesh, each mesh once.
    pub batches: Vec<Batch>,
    /// The distinct hulls, triangle meshes and height fields in this frame, in order of first
    /// use: one GPU mesh each.
    pub custom: Vec<Shape>,
    pub lines: Vec<LineVertex>,
    pub points: Vec<PointInstance>,
}

impl FrameData {
    /// Number of instances drawn with `mesh`.
    pub fn instance_count(&self, mesh: MeshKey) -> u32 {
        self.batches.iter().filter(|b| b.mesh == mesh).map(|b| b.instances.len() as u32).sum()
    }

    pub fn line_count(&self) -> usize {
        self.lines.len() / 2
    }
}

/// Reusable buffers for [`build_frame_into`], so a running app does not reallocate each frame.
#[derive(Default)]
pub struct FrameScratch {
    debug: DebugDraw,
    groups: Vec<Vec<Instance>>,
    /// Hull address -> instance group; the world keeps the hulls alive while we build.
    hull_index: HashMap<usize, usize>,
    colors: BodyColors,
    /// Buffers of a frame already drawn, reused by the next one.
    spare: Option<FrameData>,
}

impl FrameScratch {
    /// Hands a drawn frame's buffers back for reuse.
    pub fn recycle(&mut self, frame: FrameData) {
        self.spare = Some(frame);
    }
}

/// Builds one frame for a viewport of `size_px` physical pixels (`pixels_per_point` scales
/// point markers, whose sizes are given in points).
pub fn build_frame(
    world: &World,
    view: &ViewOptions,
    camera: &Camera,
    size_px: [f32; 2],
    pixels_per_point: f32,
) -> FrameData {
    build_frame_into(world, view, camera, size_px, pixels_per_point, &mut FrameScratch::default())
}

/// [`build_frame`] with caller-owned scratch buffers.
pub fn build_frame_into(
    world: &World,
    view: &ViewOptions,
    camera: &Camera,
    size_px: [f32; 2],
    pixels_per_point: f32,
    scratch: &mut FrameScratch,
) -> FrameData {
    let [w, h] = [size_px[0].max(1.0), size_px[1].max(1.0)];
    let (right, up) = camera.basis();
    // Key light over the viewer's left shoulder, so the faces seen most are lit.
    let light = (up * 0.9 + Vec3::Y * 0.6 - right * 0.45 - camera.forward() * 0.5).normalize();
    let uniforms = Uniforms {
        view_proj: camera.view_proj(w / h).to_cols_array_2d(),
        eye: camera.eye().extend(pixels_per_point.clamp(0.25, 8.0)).to_array(),
        light_dir: light.extend(0.0).to_array(),
        viewport: [w, h, 1.0 / w, 1.0 / h],
    };

    let spare = scratch.spare.take();
    let (mut instances, mut lines, mut points) = spare.map(|f| (f.instances, f.lines, f.points)).unwrap_or_default();
    instances.clear();
    lines.clear();
    points.clear();
    let (batches, custom) = body_instances(world, view, scratch, &mut instances);
    if view.layers.grid {
        grid_lines(world, &mut lines);
    }
    if view.layers.axes {
        axis_lines(&mut lines);
    }
    if view.layers.contact_points {
        contact_points(world, &mut points);
    }
    if view.layers.any_debug() {
        let debug = &mut scratch.debug;
        debug.clear();
        // Contact points, the most numerous primitive, were written above straight from the
        // contacts; the world describes the rest.
        let shows = |c: DrawCategory| c != DrawCategory::ContactPoint && view.layers.shows(c);
        match view.broad_phase_depth.filter(|_| view.layers.broad_phase) {
            // The world draws its structure whole: draw it here with the depth limit instead.
            Some(depth) => {
                debug.set_filter(|c| c != DrawCategory::BroadPhase && shows(c));
                world.debug_draw(debug);
                debug.set_filter(shows);
                let opts = crate::broadphase::BroadPhaseDrawOptions { max_depth: Some(depth) };
                world.broad_phase().debug_draw_with(world.aabbs(), &opts, debug);
            }
            None => {
                debug.set_filter(shows);
                world.debug_draw(debug);
            }
        }
        debug.lines.extend(view.extra.lines.iter().filter(|l| view.layers.shows(l.category)));
        debug.points.extend(view.extra.points.iter().filter(|p| view.layers.shows(p.category)));
        // The engine uses a handful of colours: remember the last one packed.
        let mut last = ([f32::NAN; 4], 0u32);
        let mut pack = |c: [f32; 4]| {
            if c != last.0 {
                last = (c, pack_rgba(c));
            }
            last.1
        };
        lines.reserve(debug.lines.len() * 2);
        for l in &debug.lines {
            let color = pack(l.color);
            lines.push(LineVertex { position: l.a.to_array(), color });
            lines.push(LineVertex { position: l.b.to_array(), color });
        }
        points.extend(debug.points.iter().map(|p| PointInstance {
            position: p.p.to_array(),
            size: p.size,
            color: pack(p.color),
        }));
    }
    FrameData { uniforms, instances, batches, custom, lines, points }
}

/// A marker per contact point of the last step, as [`World::debug_draw`] describes them
/// ([`CONTACT_POINT_COLORS`], [`CONTACT_POINT_SIZE`]), written without the intermediate list.
fn contact_points(world: &World, out: &mut Vec<PointInstance>) {
    // No counting pass to reserve: `out` is the last frame's buffer, already about this size.
    let colors = CONTACT_POINT_COLORS.map(pack_rgba);
    for c in world.contacts() {
        for cp in c.manifold.points() {
            out.push(PointInstance {
                position: cp.point.to_array(),
                size: CONTACT_POINT_SIZE,
                color: colors[contact_point_kind(cp.depth)],
            });
        }
    }
}

/// One instance per sphere, cuboid and hull; three per capsule (side + two end spheres),
/// appended to `instances` grouped by mesh.
fn body_instances(
    world: &World,
    view: &ViewOptions,
    scratch: &mut FrameScratch,
    instances: &mut Vec<Instance>,
) -> (Vec<Batch>, Vec<Shape>) {
    const FIXED: usize = 3; // sphere, cube, cylinder groups come first
    scratch.hull_index.clear();
    scratch.groups.iter_mut().for_each(Vec::clear);
    if scratch.groups.len() < FIXED {
        scratch.groups.resize_with(FIXED, Vec::new);
    }
    let mut hulls: Vec<Shape> = Vec::new();
    scratch.colors.prepare(world, view.color_mode);
    let groups = &mut scratch.groups;

    for (i, b) in world.bodies().iter().enumerate() {
        let selected = view.selected == Some(i);
        let color = match view.body_colors.as_ref().and_then(|c| c.get(i)).filter(|_| !selected) {
            Some(&[cr, cg, cb]) => pack_rgba([cr, cg, cb, 1.0]),
            None => scratch.colors.color(i, b, view.color_mode, selected),
        };
        let flags = if selected { FLAG_SELECTED } else { 0 };
        let make = |position: Vec3, rotation: Quat, scale: Vec3| Instance {
            position: position.to_array(),
            color,
            rotation: rotation.to_array(),
            scale: scale.to_array(),
            flags,
        };
        // A compound's children are drawn each as its own shape at its world pose.
        let single = [(&b.shape, b.pose)];
        let kids: Vec<(&Shape, Pose)>;
        let parts: &[(&Shape, Pose)] = match &b.shape {
            Shape::Compound(c) => {
                kids = c.children().iter().map(|k| (&k.shape, b.pose.mul(&k.pose))).collect();
                &kids
            }
            _ => &single,
        };
        for &(shape, pose) in parts {
            let (pos, rot) = (pose.translation, pose.rotation);
            match shape {
                Shape::Sphere(s) => groups[0].push(make(pos, rot, Vec3::splat(s.radius))),
                Shape::Cuboid(c) => groups[1].push(make(pos, rot, c.half_extents)),
                Shape::Capsule(c) => {
                    let axis = rot * Vec3::new(0.0, c.half_height, 0.0);
                    groups[2].push(make(pos, rot, Vec3::new(c.radius, c.half_height, c.radius)));
                    groups[0].push(make(pos + axis, rot, Vec3::splat(c.radius)));
                    groups[0].push(make(pos - axis, rot, Vec3::splat(c.radius)));
                }
                Shape::ConvexHull(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => {
                    let key = custom_key(shape);
                    let g = *scratch.hull_index.entry(key).or_insert_with(|| {
                        hulls.push(shape.clone());
                        FIXED + hulls.len() - 1
                    });
                    if groups.len() <= g {
                        groups.resize_with(g + 1, Vec::new);
                    }
                    groups[g].push(make(pos, rot, Vec3::ONE));
                }
                Shape::Compound(_) => {}
            }
        }
    }

    let used = FIXED + hulls.len();
    instances.reserve(groups[..used].iter().map(Vec::len).sum());
    let mut batches = Vec::new();
    for (g, group) in groups[..used].iter().enumerate() {
        if group.is_empty() {
            continue;
        }
        let start = instances.len() as u32;
        instances.extend_from_slice(group);
        let mesh = match g {
            0 => MeshKey::Sphere,
            1 => MeshKey::Cube,
            2 => MeshKey::Cylinder,
            _ => MeshKey::Hull(g - FIXED),
        };
        batches.push(Batch { mesh, instances: start..instances.len() as u32 });
    }
    (batches, hulls)
}

/// The address of a shape's shared data (hull, mesh, height field): the key of its GPU mesh.
pub fn custom_key(shape: &Shape) -> usize {
    match shape {
        Shape::ConvexHull(h) => Arc::as_ptr(h) as *const () as usize,
        Shape::TriangleMesh(m) => Arc::as_ptr(m) as *const () as usize,
        Shape::HeightField(h) => Arc::as_ptr(h) as *const () as usize,
        _ => 0,
    }
}

/// A square grid on y = 0 every metre, a brighter line every 5 m, sized to the scene.
fn grid_lines(world: &World, out: &mut Vec<LineVertex>) {
    let mut extent: f32 = 10.0;
    for b in world.bodies().iter().filter(|b| b.kind != crate::BodyKind::Static) {
        let p = b.pose.translation;
        if p.is_finite() {
            extent = extent.max(p.x.abs().max(p.z.abs()) + 2.0);
        }
    }
    let n = extent.ceil().min(100.0) as i32;
    let minor = pack_rgba([0.42, 0.44, 0.48, 0.55]);
    let major = pack_rgba([0.62, 0.64, 0.70, 0.8]);
    let e = n as f32;
    for k in -n..=n {
        if k == 0 {
            continue; // the axes mark the centre lines
        }
        let c = if k % 5 == 0 { major } else { minor };
        let t = k as f32;
        push_line(out, Vec3::new(t, 0.0, -e), Vec3::new(t, 0.0, e), c);
        push_line(out, Vec3::new(-e, 0.0, t), Vec3::new(e, 0.0, t), c);
    }
    let centre = pack_rgba([0.75, 0.77, 0.82, 0.9]);
    push_line(out, Vec3::new(-e, 0.0, 0.0), Vec3::ZERO, centre);
    push_line(out, Vec3::new(0.0, 0.0, -e), Vec3::ZERO, centre);
}

/// X red, Y green, Z blue, 2 m long from the origin.
fn axis_lines(out: &mut Vec<LineVertex>) {
    let axes = [(Vec3::X, [0.95, 0.25, 0.2, 1.0]), (Vec3::Y, [0.3, 0.9, 0.3, 1.0]), (Vec3::Z, [0.25, 0.5, 1.0, 1.0])];
    for (axis, color) in axes {
        push_line(out, Vec3::ZERO, axis * 2.0, pack_rgba(color));
    }
}

fn push_line(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, color: u32) {
    out.push(LineVertex { position: a.to_array(), color });
    out.push(LineVertex { position: b.to_array(), color });
}

impl Layers {
    /// Whether primitives of `category` are drawn. Rays have no toggle: they are drawn only
    /// when someone asked for one.
    pub fn shows(&self, category: DrawCategory) -> bool {
        match category {
            DrawCategory::Aabb => self.aabbs,
            DrawCategory::ContactPoint => self.contact_points,
            DrawCategory::ContactNormal => self.contact_normals,
            DrawCategory::ContactForce => self.contact_forces,
            DrawCategory::Velocity => self.velocities,
            DrawCategory::BroadPhase => self.broad_phase,
            DrawCategory::CandidatePair => self.candidate_pairs,
            DrawCategory::Ccd => self.ccd,
            DrawCategory::NarrowPhase => self.narrow_phase,
            DrawCategory::Mesh => self.mesh,
            DrawCategory::Joint => self.joints,
            DrawCategory::Ray => true,
        }
    }

    /// Whether any engine debug layer is on (grid and axes are the viewer's own).
    pub fn any_debug(&self) -> bool {
        // Rays have no toggle (`shows` is always true for them): they do not count.
        DrawCategory::ALL.iter().any(|&c| c != DrawCategory::Ray && self.shows(c))
    }
}
