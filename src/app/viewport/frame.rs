//! The CPU side of one frame: body instances grouped by mesh, debug lines and points, and the
//! uniforms. Plain data, built without a GPU, so it can be tested and benchmarked.

use super::camera::Camera;
use super::colors::{BodyColors, pack_rgba, selected_color, state_color};
use super::{ColorMode, Layers, ViewOptions};
use crate::debug_draw::{DebugDraw, DrawCategory, contact_point_colors, contact_point_kind};
use crate::dynamics::BodyKind;
use crate::dynamics::solver::Contact;
use crate::geometry::Shape;
use crate::math::{Pose, Vec3};
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::world::{Settings, World};
use bytemuck::{Pod, Zeroable};
use rayon::prelude::*;
use std::collections::HashMap;
use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::Arc;

/// One placed, scaled, coloured copy of a unit mesh. Aligned to 16 bytes (its size is three
/// times that), so it is written as three SIMD stores.
#[repr(C, align(16))]
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

/// A contact point's marker: a screen-facing dot [`CONTACT_POINT_SIZE`] points across (the
/// marker pipeline's constant), so the GPU reads 16 bytes per contact point. Aligned to 16
/// bytes, one SIMD store each.
///
/// [`CONTACT_POINT_SIZE`]: crate::debug_draw::CONTACT_POINT_SIZE
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, PartialEq, Pod, Zeroable)]
pub struct ContactMarker {
    pub position: [f32; 3],
    /// RGBA8, sRGB-encoded: [`CONTACT_POINT_COLORS`] by [`contact_point_kind`].
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
    /// Instances of static bodies (each batch holds static bodies only, or none).
    pub fixed: bool,
    /// Drawn see-through, after every opaque batch: static bodies while
    /// [`ViewOptions::see_through_statics`] is on.
    pub see_through: bool,
}

/// Everything the GPU needs to draw one frame.
#[derive(Clone, Debug)]
pub struct FrameData {
    pub uniforms: Uniforms,
    pub instances: Vec<Instance>,
    /// Instance ranges by mesh, each mesh once for moving bodies and once for static ones.
    pub batches: Vec<Batch>,
    /// The distinct hulls, triangle meshes and height fields in this frame, in order of first
    /// use: one GPU mesh each.
    pub custom: Vec<Shape>,
    pub lines: Vec<LineVertex>,
    /// Where in `lines` the ones drawn over the bodies start ([`over_bodies`]); those before
    /// it are hidden by what stands in front of them.
    pub lines_over_bodies: usize,
    /// A marker per contact point of the last step, in contact order; drawn before `points`.
    pub markers: Vec<ContactMarker>,
    /// The other markers (CCD, joints, extra points), drawn over the contact markers.
    pub points: Vec<PointInstance>,
    /// Which build of its [`FrameScratch`] made it (0: none), so a recycled frame can be
    /// recognised as the last one built.
    serial: u64,
}

impl FrameData {
    /// Number of instances drawn with `mesh`.
    pub fn instance_count(&self, mesh: MeshKey) -> u32 {
        self.batches.iter().filter(|b| b.mesh == mesh).map(|b| b.instances.len() as u32).sum()
    }

    pub fn line_count(&self) -> usize {
        self.lines.len() / 2
    }

    /// Number of point markers drawn: contact markers and the others.
    pub fn point_count(&self) -> usize {
        self.markers.len() + self.points.len()
    }
}

/// Reusable buffers for [`build_frame_into`], so a running app does not reallocate each frame,
/// and what a frame can take from the last one: the bodies' instance layout while no body's
/// shape or kind changes ([`World::bodies_revision`]), and the whole frame while neither the
/// world ([`World::revision`]) nor the view changed (a paused app redraws every frame).
#[derive(Default)]
pub struct FrameScratch {
    debug: DebugDraw,
    colors: BodyColors,
    layout: Layout,
    /// Buffers of a frame already drawn, reused by the next one.
    spare: Option<FrameData>,
    /// What the last frame was built from.
    last: Option<Built>,
    /// Builds so far (the last frame's [`FrameData::serial`]).
    serial: u64,
    split: Split,
}

impl FrameScratch {
    /// Hands a drawn frame's buffers back for reuse.
    pub fn recycle(&mut self, frame: FrameData) {
        self.spare = Some(frame);
    }

    /// Forgets what the last frame was built from, so the next one is built afresh from the
    /// world's state as after a step; the bodies' instance layout is kept. Benchmarks use it to
    /// time the frames of a running app.
    pub fn invalidate(&mut self) {
        self.last = None;
    }

    /// Splits passes over `min_items` items or more into blocks of `block` for rayon's threads,
    /// even when there is only one (by default from [`PARALLEL_MIN_ITEMS`] on, in blocks of
    /// 4,096, and only with more than one thread); tests set small values to run the shared
    /// passes on small scenes.
    pub fn set_parallel(&mut self, min_items: usize, block: usize) {
        self.split = Split { min_items, block: block.max(1), always: true };
    }

    /// How many frames were built so far; a frame taken unchanged from the last one does not
    /// count.
    pub fn builds(&self) -> u64 {
        self.serial
    }
}

/// The inputs a frame's instances, lines and points depend on (the camera and the target size
/// shape only the uniforms).
struct Built {
    serial: u64,
    revision: u64,
    /// The settings (the public field changes without a new revision).
    settings: Settings,
    layers: Layers,
    color_mode: ColorMode,
    selected: Option<usize>,
    body_colors: Option<Vec<[f32; 3]>>,
    broad_phase_depth: Option<u32>,
    see_through_statics: bool,
    extra: DebugDraw,
}

impl Built {
    fn of(serial: u64, world: &World, view: &ViewOptions) -> Self {
        Built {
            serial,
            revision: world.revision(),
            settings: world.settings.clone(),
            layers: view.layers.clone(),
            color_mode: view.color_mode,
            selected: view.selected,
            body_colors: view.body_colors.clone(),
            broad_phase_depth: view.broad_phase_depth,
            see_through_statics: view.see_through_statics,
            extra: view.extra.clone(),
        }
    }

    /// Whether a frame built from this would be built the same from `world` and `view`.
    fn matches(&self, world: &World, view: &ViewOptions) -> bool {
        self.revision == world.revision()
            && self.layers == view.layers
            && self.color_mode == view.color_mode
            && self.selected == view.selected
            && self.broad_phase_depth == view.broad_phase_depth
            && self.see_through_statics == view.see_through_statics
            && self.body_colors == view.body_colors
            && self.extra == view.extra
            && self.settings == world.settings
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

    let serial = scratch.serial + 1;
    // The recycled frame is the last one built, from this world and view: only the camera moved.
    let reusable = scratch.last.as_ref().filter(|b| b.matches(world, view)).map(|b| b.serial);
    let spare = match scratch.spare.take() {
        Some(mut f) if reusable == Some(f.serial) => {
            f.uniforms = uniforms;
            return f;
        }
        spare => spare,
    };
    scratch.serial = serial;
    scratch.last = Some(Built::of(serial, world, view));
    let (mut instances, mut lines, mut markers, mut points, batches, custom) =
        spare.map(|f| (f.instances, f.lines, f.markers, f.points, f.batches, f.custom)).unwrap_or_default();
    lines.clear();
    points.clear();
    let (batches, custom, reach) = body_instances(world, view, scratch, &mut instances, batches, custom);
    if view.layers.grid {
        grid_lines(reach, &mut lines);
    }
    if view.layers.axes {
        axis_lines(&mut lines);
    }
    if view.layers.contact_points {
        // An A/B view's bodies are coloured by divergence: its points in colours of their own.
        let colors = contact_point_colors(view.body_colors.is_some()).map(pack_rgba);
        contact_markers(world.contacts(), world.contact_point_counts(), scratch.split, colors, &mut markers);
        append_markers(world.resting_contacts(), colors, &mut markers);
    } else {
        markers.clear();
    }
    let mut lines_over_bodies = lines.len();
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
        for over in [false, true] {
            if over {
                lines_over_bodies = lines.len();
            }
            // The panels' own drawing (the Pair panel's simplices, polytopes and clipped
            // faces) goes over the bodies too: it is drawn about the bodies it explains, which
            // hid it (the GJK lesson's tetrahedron behind the selected hull).
            let extra = view.extra.lines.iter().filter(|l| over && view.layers.shows(l.category));
            for l in debug.lines.iter().filter(|l| over_bodies(l.category) == over).chain(extra) {
                let color = pack(l.color);
                lines.push(LineVertex { position: l.a.to_array(), color });
                lines.push(LineVertex { position: l.b.to_array(), color });
            }
        }
        points.extend(debug.points.iter().map(|p| PointInstance {
            position: p.p.to_array(),
            size: p.size,
            color: pack(p.color),
        }));
    }
    FrameData { uniforms, instances, batches, custom, lines, lines_over_bodies, markers, points, serial }
}

/// Whether a category's lines are drawn over the bodies, as the contact markers are: contact
/// normals and impulses start at contact points, which mostly lie inside a stack or a pile, so
/// drawn behind the bodies' faces they would hardly show.
pub(crate) fn over_bodies(category: DrawCategory) -> bool {
    matches!(category, DrawCategory::ContactNormal | DrawCategory::ContactForce)
}

/// How the passes over bodies, instances and contacts are shared between rayon's threads: a pass
/// over `min_items` items or more, with more than one thread, in blocks of `block` items. The
/// frame is built between steps, while the step's threads are idle; blocks write disjoint
/// slices in the serial order, so the output is the same on any number of threads. Each block is
/// a task of its own, so a thread the system stops for a while holds up one block only.
#[derive(Clone, Copy, Debug)]
struct Split {
    min_items: usize,
    block: usize,
    /// Split passes in blocks even on one thread (tests).
    always: bool,
}

impl Default for Split {
    fn default() -> Self {
        Split { min_items: PARALLEL_MIN_ITEMS, block: 4096, always: false }
    }
}

impl Split {
    fn parallel(&self, items: usize) -> bool {
        items >= self.min_items && (self.always || rayon::current_num_threads() > 1)
    }
}

/// Passes over fewer items than this run on the calling thread (handing blocks to the threads
/// costs more than it saves there).
pub const PARALLEL_MIN_ITEMS: usize = 16_384;

/// A marker per contact point of the last step, as [`World::debug_draw`] describes them
/// ([`CONTACT_POINT_COLORS`], [`CONTACT_POINT_SIZE`]), written straight from the contacts in
/// one pass over them. Shared between threads, the blocks' places come first, from each
/// contact's point count (`counts`, [`World::contact_point_counts`]: a byte a contact, not a
/// line of each).
///
/// [`CONTACT_POINT_SIZE`]: crate::debug_draw::CONTACT_POINT_SIZE
fn contact_markers(contacts: &[Contact], counts: &[u8], split: Split, colors: [u32; 2], out: &mut Vec<ContactMarker>) {
    out.clear();
    if !split.parallel(contacts.len()) {
        append_markers(contacts, colors, out);
        return;
    }
    // Count each block's markers, then write the blocks into their slices.
    debug_assert_eq!(counts.len(), contacts.len(), "a point count per contact");
    let counts: Vec<usize> = counts.chunks(split.block).map(|ns| ns.iter().map(|&n| usize::from(n)).sum()).collect();
    let total = counts.iter().sum();
    out.reserve(total);
    let mut slices = Vec::with_capacity(counts.len());
    let mut rest = &mut out.spare_capacity_mut()[..total];
    for &n in &counts {
        let (block, tail) = rest.split_at_mut(n);
        slices.push(block);
        rest = tail;
    }
    (contacts.par_chunks(split.block).zip(slices).with_max_len(1)).for_each(|(cs, block)| {
        let n = write_markers(cs, colors, block);
        assert_eq!(n, block.len(), "a block's markers fill its slice");
    });
    // SAFETY: the blocks' slices cover the first `total` slots, and each block filled its own.
    unsafe { out.set_len(total) };
}

/// Appends a marker per point of `contacts`, on this thread, in one pass (room for a full
/// manifold per contact is reserved, so the points need not be counted first).
fn append_markers(contacts: &[Contact], colors: [u32; 2], out: &mut Vec<ContactMarker>) {
    out.reserve(contacts.len() * MAX_MANIFOLD_POINTS);
    let start = out.len();
    let n = write_markers(contacts, colors, out.spare_capacity_mut());
    // SAFETY: `write_markers` wrote the `n` slots after the first `start`.
    unsafe { out.set_len(start + n) };
}

/// How far ahead the frame's passes ask for what they will read: the contact this many on in
/// [`write_markers`], the body of the part this many on in the instance pass (16 was fastest
/// of 8, 16, 32 and 64 in `benches/frame.rs`).
const PREFETCH_AHEAD: usize = 16;

/// Writes a marker per contact point of `contacts` into the first slots of `out`, coloured by
/// `colors` ([`contact_point_kind`]); returns how many. Panics if `out` is too short.
fn write_markers(contacts: &[Contact], colors: [u32; 2], out: &mut [MaybeUninit<ContactMarker>]) -> usize {
    let mut n = 0;
    for (i, c) in contacts.iter().enumerate() {
        // Reading the contacts is most of this pass, and the hardware's own prefetch falls
        // behind: ask for the lines of the contact `PREFETCH_AHEAD` on (two lines cover one; the next
        // contact's ask covers the rest of a straddling one).
        let ahead = contacts.as_ptr().wrapping_add(i + PREFETCH_AHEAD);
        crate::simd::prefetch(ahead);
        crate::simd::prefetch(ahead.cast::<u8>().wrapping_add(64));
        let points = c.manifold.points();
        for (slot, cp) in out[n..n + points.len()].iter_mut().zip(points) {
            let marker = ContactMarker { position: cp.point.to_array(), color: colors[contact_point_kind(cp.depth)] };
            store_streaming(slot, marker);
        }
        n += points.len();
    }
    crate::simd::stores_done();
    n
}

/// A record written once per frame and read next by the GPU upload: 16-byte aligned, a whole
/// number of 16-byte lanes, of plain data.
trait Streamed: Pod {}

impl Streamed for ContactMarker {}
impl Streamed for Instance {}

/// Writes `value` into `slot`; on x86-64 past the caches (streaming stores,
/// [`crate::simd::store_streaming`]): the frame's records are written once and read next by the
/// GPU upload, so they need not evict the cache lines the world is read through, nor read each
/// line before writing it. [`crate::simd::stores_done`] ends a run of them.
#[inline(always)]
fn store_streaming<T: Streamed>(slot: &mut MaybeUninit<T>, value: T) {
    // SAFETY: `T: Pod` has no padding: every byte of `value` is initialised.
    unsafe { crate::simd::store_streaming(slot, value) }
}

/// Where each instance of the bodies comes from, in the order the instances are drawn: grouped
/// by mesh, moving bodies' groups first, then static bodies' (which the view can draw
/// see-through), in body order within a group. It depends on the bodies' shapes and kinds only, so it
/// is built once per [`World::bodies_revision`] and each frame only places and colours.
#[derive(Default)]
struct Layout {
    /// The [`World::bodies_revision`] it was built for.
    revision: Option<u64>,
    parts: Vec<Part>,
    batches: Vec<Batch>,
    /// The distinct hulls, triangle meshes and height fields, in order of first use.
    custom: Vec<Shape>,
    /// The poses of compound children in their body's frame, by [`Part::child`].
    children: Vec<Pose>,
    /// The non-static bodies with no part (a compound without children, or of compounds only),
    /// which count towards the grid's reach all the same.
    unplaced: Vec<u32>,
    /// Scratch for the build: parts by mesh group, of moving bodies (`[0]`) and of static
    /// ones (`[1]`), and hull address -> group.
    groups: [Vec<Vec<Part>>; 2],
    hull_index: HashMap<usize, usize>,
}

/// One instance: a body, or a compound's child, or one end of a capsule.
#[derive(Clone, Copy, Debug)]
struct Part {
    body: u32,
    /// Index into [`Layout::children`], or [`Part::WHOLE`] for the body's own pose.
    child: u32,
    /// A capsule's end sphere: `half_height` up (`END_UP`) or down (`END_DOWN`) the capsule's axis.
    end: u8,
    half_height: f32,
    scale: [f32; 3],
    /// The colour by state awake and asleep (what [`state_color`] gives).
    state_colors: [u32; 2],
    /// Whether its body counts towards the grid's reach: not static.
    reach: bool,
}

impl Part {
    const WHOLE: u32 = u32::MAX;
    const END_UP: u8 = 1;
    const END_DOWN: u8 = 2;
}

impl Layout {
    /// Sphere, cube and cylinder groups come first, then one per custom mesh.
    const FIXED: usize = 3;

    fn update(&mut self, world: &World) {
        if self.revision == Some(world.bodies_revision()) {
            return;
        }
        self.revision = Some(world.bodies_revision());
        self.parts.clear();
        self.batches.clear();
        self.custom.clear();
        self.children.clear();
        self.unplaced.clear();
        self.hull_index.clear();
        for groups in &mut self.groups {
            groups.iter_mut().for_each(Vec::clear);
            if groups.len() < Self::FIXED {
                groups.resize_with(Self::FIXED, Vec::new);
            }
        }
        for (i, b) in world.bodies().iter().enumerate() {
            let state_colors = [state_color(i, b.kind, false), state_color(i, b.kind, true)];
            let reach = b.kind != BodyKind::Static;
            let groups = &mut self.groups[usize::from(!reach)];
            let part = |child: u32, scale: Vec3| Part {
                body: i as u32,
                child,
                end: 0,
                half_height: 0.0,
                scale: scale.to_array(),
                state_colors,
                reach,
            };

            // A compound's children are drawn each as its own shape at its world pose.
            let single = [(&b.shape, Part::WHOLE)];
            let kids: Vec<(&Shape, u32)>;
            let shapes: &[(&Shape, u32)] = match &b.shape {
                Shape::Compound(c) => {
                    kids = (c.children().iter())
                        .map(|k| {
                            self.children.push(k.pose);
                            (&k.shape, self.children.len() as u32 - 1)
                        })
                        .collect();
                    &kids
                }
                _ => &single,
            };
            let mut placed = false;
            for &(shape, child) in shapes {
                placed |= !matches!(shape, Shape::Compound(_));
                match shape {
                    Shape::Sphere(s) => groups[0].push(part(child, Vec3::splat(s.radius))),
                    Shape::Cuboid(c) => groups[1].push(part(child, c.half_extents)),
                    Shape::Capsule(c) => {
                        groups[2].push(part(child, Vec3::new(c.radius, c.half_height, c.radius)));
                        for end in [Part::END_UP, Part::END_DOWN] {
                            let p = Part { end, half_height: c.half_height, ..part(child, Vec3::splat(c.radius)) };
                            groups[0].push(p);
                        }
                    }
                    Shape::ConvexHull(_) | Shape::TriangleMesh(_) | Shape::HeightField(_) => {
                        let custom = &mut self.custom;
                        let g = *self.hull_index.entry(custom_key(shape)).or_insert_with(|| {
                            custom.push(shape.clone());
                            Self::FIXED + custom.len() - 1
                        });
                        if groups.len() <= g {
                            groups.resize_with(g + 1, Vec::new);
                        }
                        groups[g].push(part(child, Vec3::ONE));
                    }
                    Shape::Compound(_) => {}
                }
            }
            if reach && !placed {
                self.unplaced.push(i as u32);
            }
        }
        let used = Self::FIXED + self.custom.len();
        let all = self.groups.iter().flat_map(|g| g.iter().take(used));
        self.parts.reserve_exact(all.map(Vec::len).sum());
        for (fixed, groups) in self.groups.iter().enumerate() {
            for (g, group) in groups.iter().take(used).enumerate() {
                if group.is_empty() {
                    continue;
                }
                let start = self.parts.len() as u32;
                self.parts.extend_from_slice(group);
                let mesh = match g {
                    0 => MeshKey::Sphere,
                    1 => MeshKey::Cube,
                    2 => MeshKey::Cylinder,
                    _ => MeshKey::Hull(g - Self::FIXED),
                };
                let instances = start..self.parts.len() as u32;
                self.batches.push(Batch { mesh, instances, fixed: fixed == 1, see_through: false });
            }
        }
    }
}

/// One instance per sphere, cuboid and hull; three per capsule (side + two end spheres),
/// written into `instances` grouped by mesh, from the bodies' layout (rebuilt only when the
/// bodies' shapes or kinds changed). Returns the batches and the custom meshes, reusing the
/// vectors given, and the grid's reach ([`reach_of`]), taken from the bodies on the same pass.
fn body_instances(
    world: &World,
    view: &ViewOptions,
    scratch: &mut FrameScratch,
    instances: &mut Vec<Instance>,
    mut batches: Vec<Batch>,
    mut custom: Vec<Shape>,
) -> (Vec<Batch>, Vec<Shape>, f32) {
    let layout = &mut scratch.layout;
    layout.update(world);
    scratch.colors.prepare(world, view.color_mode);
    batches.clone_from(&layout.batches);
    for b in &mut batches {
        b.see_through = b.fixed && view.see_through_statics;
    }
    custom.clone_from(&layout.custom);
    // One instance per part, every slot written below.
    let count = layout.parts.len();
    instances.clear();
    instances.reserve(count);
    let room = &mut instances.spare_capacity_mut()[..count];
    let (bodies, children, colors) = (world.bodies(), &layout.children[..], &scratch.colors);
    // Colouring by state without per-body colours reads the layout's colours; else each body's
    // colour is worked out as it is drawn.
    let by_state = view.color_mode == ColorMode::State && view.body_colors.is_none();
    let selected = view.selected.map_or(u32::MAX, |s| u32::try_from(s).unwrap_or(u32::MAX));
    // The largest of maxima is the same in any grouping: blocks may run on any thread.
    let write = |out: &mut [MaybeUninit<Instance>], parts: &[Part]| {
        assert_eq!(out.len(), parts.len(), "a slot per part");
        let mut reach = GRID_MIN_REACH;
        for (k, (slot, p)) in out.iter_mut().zip(parts).enumerate() {
            // As for the contact markers: ask ahead for the pose of the body drawn
            // `PREFETCH_AHEAD` parts on.
            if let Some(b) = parts.get(k + PREFETCH_AHEAD).and_then(|q| bodies.get(q.body as usize)) {
                crate::simd::prefetch(&b.pose);
            }
            let i = p.body as usize;
            let b = &bodies[i];
            if p.reach {
                reach = reach_of(reach, b.pose.translation);
            }
            let pose = if p.child == Part::WHOLE { b.pose } else { b.pose.mul(&children[p.child as usize]) };
            let (mut position, rotation) = (pose.translation, pose.rotation);
            if p.end != 0 {
                let axis = rotation * Vec3::new(0.0, p.half_height, 0.0);
                position = if p.end == Part::END_UP { position + axis } else { position - axis };
            }
            let is_selected = p.body == selected;
            let color = if by_state {
                if is_selected { selected_color() } else { p.state_colors[usize::from(b.is_asleep())] }
            } else {
                match view.body_colors.as_ref().and_then(|c| c.get(i)).filter(|_| !is_selected) {
                    Some(&[cr, cg, cb]) => pack_rgba([cr, cg, cb, 1.0]),
                    None => colors.color(i, b, view.color_mode, is_selected),
                }
            };
            let instance = Instance {
                position: position.to_array(),
                color,
                rotation: rotation.to_array(),
                scale: p.scale,
                flags: if is_selected { FLAG_SELECTED } else { 0 },
            };
            store_streaming(slot, instance);
        }
        crate::simd::stores_done();
        reach
    };
    let split = scratch.split;
    let reach = if split.parallel(count) {
        let blocks = room.par_chunks_mut(split.block).zip(layout.parts.par_chunks(split.block)).with_max_len(1);
        blocks.map(|(out, parts)| write(out, parts)).reduce(|| GRID_MIN_REACH, f32::max)
    } else {
        write(room, &layout.parts)
    };
    // SAFETY: `write` filled each slot of `room`, the first `count`, one per part.
    unsafe { instances.set_len(count) };
    let reach = layout.unplaced.iter().fold(reach, |r, &i| reach_of(r, bodies[i as usize].pose.translation));
    (batches, custom, reach)
}

/// The grid's half-width where no body is further out, m.
const GRID_MIN_REACH: f32 = 10.0;

/// The grid's half-width `reach` widened to cover a body at `p` (ignored if not finite): 2 m
/// past its larger horizontal coordinate.
#[inline(always)]
fn reach_of(reach: f32, p: Vec3) -> f32 {
    if p.is_finite() { reach.max(p.x.abs().max(p.z.abs()) + 2.0) } else { reach }
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

/// A square grid on y = 0 every metre, a brighter line every 5 m, sized to the scene: `reach`
/// metres each way from the centre (at most 100), which [`body_instances`] works out.
fn grid_lines(reach: f32, out: &mut Vec<LineVertex>) {
    let n = reach.ceil().min(100.0) as i32;
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
