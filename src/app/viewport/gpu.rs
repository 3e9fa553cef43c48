//! The wgpu side: pipelines and unit meshes built once, an offscreen colour + depth target the
//! 3D scene is drawn into during egui's `prepare` step, and the egui paint callback.
//!
//! Rendering offscreen keeps the viewport independent of how eframe configured its own render
//! pass (depth buffer, MSAA): egui then shows the resolved colour texture as an ordinary image.

use super::frame::{ContactMarker, FrameData, Instance, LineVertex, MeshKey, PointInstance, Uniforms, custom_key};
use super::mesh::{self, MeshData, MeshVertex};
use crate::debug_draw::CONTACT_POINT_SIZE;
use crate::geometry::Shape;
use eframe::egui_wgpu::{self, CallbackResources, CallbackTrait, ScreenDescriptor, wgpu};
use std::collections::HashMap;
use std::sync::Arc;
use wgpu::util::DeviceExt;

/// The colour format egui expects of a native texture (sRGB-encoded values, no conversion).
pub(super) const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
pub(super) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// 4× MSAA: every WebGPU implementation, lavapipe included, supports it for these formats.
pub(super) const SAMPLES: u32 = 4;
/// Background, sRGB.
const CLEAR: wgpu::Color = wgpu::Color { r: 0.105, g: 0.115, b: 0.14, a: 1.0 };
/// A hull mesh nobody drew for this many frames is freed.
const HULL_TTL_FRAMES: u64 = 300;

struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

impl GpuMesh {
    fn new(device: &wgpu::Device, label: &str, m: &MeshData) -> Self {
        let vertices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&m.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&m.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        GpuMesh { vertices, indices, index_count: m.indices.len() as u32 }
    }
}

struct HullEntry {
    /// Held so the address used as key cannot be reused by another hull or mesh.
    _shape: Shape,
    mesh: GpuMesh,
    last_used: u64,
}

/// A vertex buffer that grows (to the next power of two) when a frame needs more.
struct GrowBuffer {
    label: &'static str,
    buffer: wgpu::Buffer,
}

impl GrowBuffer {
    fn new(device: &wgpu::Device, label: &'static str) -> Self {
        GrowBuffer { label, buffer: Self::alloc(device, label, 4096) }
    }

    fn alloc(device: &wgpu::Device, label: &str, size: u64) -> wgpu::Buffer {
        device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) {
        let len = bytes.len() as u64;
        if len > self.buffer.size() {
            self.buffer = Self::alloc(device, self.label, len.next_power_of_two());
        }
        if len > 0 {
            queue.write_buffer(&self.buffer, 0, bytes);
        }
    }
}

/// The offscreen target: multisampled colour and depth, resolved into `color`.
struct Target {
    size: [u32; 2],
    msaa_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
    color_view: wgpu::TextureView,
}

impl Target {
    fn new(device: &wgpu::Device, size: [u32; 2]) -> Self {
        let extent = wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 };
        let tex = |label, format, samples, usage| {
            device
                .create_texture(&wgpu::TextureDescriptor {
                    label: Some(label),
                    size: extent,
                    mip_level_count: 1,
                    sample_count: samples,
                    dimension: wgpu::TextureDimension::D2,
                    format,
                    usage,
                    view_formats: &[],
                })
                .create_view(&wgpu::TextureViewDescriptor::default())
        };
        let attach = wgpu::TextureUsages::RENDER_ATTACHMENT;
        Target {
            size,
            msaa_view: tex("viewport msaa colour", COLOR_FORMAT, SAMPLES, attach),
            depth_view: tex("viewport depth", DEPTH_FORMAT, SAMPLES, attach),
            color_view: tex("viewport colour", COLOR_FORMAT, 1, attach | wgpu::TextureUsages::TEXTURE_BINDING),
        }
    }
}

/// Everything on the GPU for one viewport; lives in egui's callback resources.
pub(super) struct ViewportGpu {
    mesh_pipeline: wgpu::RenderPipeline,
    see_through_pipeline: wgpu::RenderPipeline,
    line_pipeline: wgpu::RenderPipeline,
    line_over_pipeline: wgpu::RenderPipeline,
    point_pipeline: wgpu::RenderPipeline,
    marker_pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    sphere: GpuMesh,
    cube: GpuMesh,
    cylinder: GpuMesh,
    hulls: HashMap<usize, HullEntry>,
    instances: GrowBuffer,
    lines: GrowBuffer,
    markers: GrowBuffer,
    points: GrowBuffer,
    target: Option<Target>,
    frame: u64,
}

/// All viewports' GPU state, keyed by viewport id (the type map holds one value per type).
#[derive(Default)]
pub(super) struct ViewportGpus(pub HashMap<u64, ViewportGpu>);

impl ViewportGpu {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let shader = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("viewport shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shader.wgsl").into()),
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport uniforms"),
            size: std::mem::size_of::<Uniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bgl = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("viewport uniforms"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewport uniforms"),
            layout: &bgl,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: uniforms.as_entire_binding() }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewport"),
            bind_group_layouts: &[Some(&bgl)],
            immediate_size: 0,
        });

        let mesh_buffers = [
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<MeshVertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
            }),
            Some(wgpu::VertexBufferLayout {
                array_stride: std::mem::size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![
                    2 => Float32x3, 3 => Unorm8x4, 4 => Float32x4, 5 => Float32x3, 6 => Uint32
                ],
            }),
        ];
        let line_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4],
        })];
        let point_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<PointInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32, 2 => Unorm8x4],
        })];
        let marker_buffers = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<ContactMarker>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4],
        })];
        // The contact markers' side, the one value the marker pipeline's shader is given.
        let marker_constants = [("contact_point_size", f64::from(CONTACT_POINT_SIZE))];

        let pipeline = |label: &str,
                        (vs, constants): (&str, &[(&str, f64)]),
                        fs: &str,
                        buffers: &[Option<wgpu::VertexBufferLayout>],
                        topology: wgpu::PrimitiveTopology,
                        depth_write: bool,
                        depth_compare: wgpu::CompareFunction,
                        blend: Option<wgpu::BlendState>,
                        cull: Option<wgpu::Face>| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &shader,
                    entry_point: Some(vs),
                    compilation_options: wgpu::PipelineCompilationOptions { constants, ..Default::default() },
                    buffers,
                },
                primitive: wgpu::PrimitiveState { topology, cull_mode: cull, ..Default::default() },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth_write),
                    depth_compare: Some(depth_compare),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: wgpu::MultisampleState { count: SAMPLES, mask: !0, alpha_to_coverage_enabled: false },
                fragment: Some(wgpu::FragmentState {
                    module: &shader,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: COLOR_FORMAT,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        // Reverse-Z: 1 at the near plane, 0 at infinity, so nearer means greater. Meshes show
        // their front faces (a see-through wall blends its near side only); lines and the
        // screen-facing markers are not culled.
        let alpha = Some(wgpu::BlendState::ALPHA_BLENDING);
        let mesh_pipeline = pipeline(
            "viewport meshes",
            ("vs_mesh", &[]),
            "fs_mesh",
            &mesh_buffers,
            wgpu::PrimitiveTopology::TriangleList,
            true,
            wgpu::CompareFunction::Greater,
            None,
            Some(wgpu::Face::Back),
        );
        // Static bodies drawn see-through: after the opaque meshes, blended, hiding nothing
        // behind them (no depth written), hidden by what stands in front of them.
        let see_through_pipeline = pipeline(
            "viewport see-through meshes",
            ("vs_mesh", &[]),
            "fs_mesh_see_through",
            &mesh_buffers,
            wgpu::PrimitiveTopology::TriangleList,
            false,
            wgpu::CompareFunction::Greater,
            alpha,
            Some(wgpu::Face::Back),
        );
        let lines = |label: &str, depth_compare: wgpu::CompareFunction| {
            let list = wgpu::PrimitiveTopology::LineList;
            pipeline(label, ("vs_line", &[]), "fs_line", &line_buffers, list, false, depth_compare, alpha, None)
        };
        let line_pipeline = lines("viewport lines", wgpu::CompareFunction::GreaterEqual);
        // Contact normals and impulses, which start inside a stack, are drawn over the bodies
        // (`frame::over_bodies`).
        let line_over_pipeline = lines("viewport lines over bodies", wgpu::CompareFunction::Always);
        // Points (contact markers first, then the others) are drawn over everything, in their
        // order: contacts usually sit inside a stack.
        let point_pipeline = pipeline(
            "viewport points",
            ("vs_point", &[]),
            "fs_point",
            &point_buffers,
            wgpu::PrimitiveTopology::TriangleList,
            false,
            wgpu::CompareFunction::Always,
            alpha,
            None,
        );
        let marker_pipeline = pipeline(
            "viewport contact markers",
            ("vs_marker", &marker_constants),
            "fs_point",
            &marker_buffers,
            wgpu::PrimitiveTopology::TriangleList,
            false,
            wgpu::CompareFunction::Always,
            alpha,
            None,
        );

        ViewportGpu {
            mesh_pipeline,
            see_through_pipeline,
            line_pipeline,
            line_over_pipeline,
            point_pipeline,
            marker_pipeline,
            uniforms,
            bind_group,
            sphere: GpuMesh::new(device, "sphere", &mesh::unit_sphere(24, 14)),
            cube: GpuMesh::new(device, "cube", &mesh::unit_cube()),
            cylinder: GpuMesh::new(device, "cylinder", &mesh::unit_cylinder(24)),
            hulls: HashMap::new(),
            instances: GrowBuffer::new(device, "viewport instances"),
            lines: GrowBuffer::new(device, "viewport lines"),
            markers: GrowBuffer::new(device, "viewport contact markers"),
            points: GrowBuffer::new(device, "viewport points"),
            target: None,
            frame: 0,
        }
    }

    /// Makes the offscreen target `size` pixels; returns the new colour view if it changed.
    pub(super) fn resize(&mut self, device: &wgpu::Device, size: [u32; 2]) -> Option<&wgpu::TextureView> {
        let size = [size[0].clamp(1, 8192), size[1].clamp(1, 8192)];
        if self.target.as_ref().is_some_and(|t| t.size == size) {
            return None;
        }
        self.target = Some(Target::new(device, size));
        self.target.as_ref().map(|t| &t.color_view)
    }

    /// Uploads the frame and records the offscreen pass into `encoder`.
    fn render(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        encoder: &mut wgpu::CommandEncoder,
        frame: &FrameData,
    ) {
        let Some(target) = &self.target else { return };
        self.frame += 1;
        queue.write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&frame.uniforms));
        self.instances.write(device, queue, bytemuck::cast_slice(&frame.instances));
        self.lines.write(device, queue, bytemuck::cast_slice(&frame.lines));
        self.markers.write(device, queue, bytemuck::cast_slice(&frame.markers));
        self.points.write(device, queue, bytemuck::cast_slice(&frame.points));
        for shape in &frame.custom {
            let key = custom_key(shape);
            let now = self.frame;
            self.hulls
                .entry(key)
                .or_insert_with(|| HullEntry {
                    _shape: shape.clone(),
                    mesh: GpuMesh::new(device, "hull", &mesh::custom_mesh(shape)),
                    last_used: now,
                })
                .last_used = now;
        }
        let now = self.frame;
        self.hulls.retain(|_, e| now - e.last_used < HULL_TTL_FRAMES);

        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("viewport 3d"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.msaa_view,
                depth_slice: None,
                resolve_target: Some(&target.color_view),
                ops: wgpu::Operations { load: wgpu::LoadOp::Clear(CLEAR), store: wgpu::StoreOp::Discard },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &target.depth_view,
                depth_ops: Some(wgpu::Operations { load: wgpu::LoadOp::Clear(0.0), store: wgpu::StoreOp::Discard }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);

        // Opaque bodies first, then the see-through ones over them.
        for (see_through, pipeline) in [(false, &self.mesh_pipeline), (true, &self.see_through_pipeline)] {
            let mut batches = frame.batches.iter().filter(|b| b.see_through == see_through).peekable();
            if batches.peek().is_none() {
                continue;
            }
            pass.set_pipeline(pipeline);
            pass.set_vertex_buffer(1, self.instances.buffer.slice(..));
            for batch in batches {
                let mesh = match batch.mesh {
                    MeshKey::Sphere => &self.sphere,
                    MeshKey::Cube => &self.cube,
                    MeshKey::Cylinder => &self.cylinder,
                    MeshKey::Hull(i) => match frame.custom.get(i).and_then(|h| self.hulls.get(&custom_key(h))) {
                        Some(e) => &e.mesh,
                        None => continue,
                    },
                };
                pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..mesh.index_count, 0, batch.instances.clone());
            }
        }
        let (n, over) = (frame.lines.len() as u32, frame.lines_over_bodies as u32);
        for (pipeline, range) in [(&self.line_pipeline, 0..over), (&self.line_over_pipeline, over..n)] {
            if !range.is_empty() {
                pass.set_pipeline(pipeline);
                pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
                pass.draw(range, 0..1);
            }
        }
        if !frame.markers.is_empty() {
            pass.set_pipeline(&self.marker_pipeline);
            pass.set_vertex_buffer(0, self.markers.buffer.slice(..));
            pass.draw(0..6, 0..frame.markers.len() as u32);
        }
        if !frame.points.is_empty() {
            pass.set_pipeline(&self.point_pipeline);
            pass.set_vertex_buffer(0, self.points.buffer.slice(..));
            pass.draw(0..6, 0..frame.points.len() as u32);
        }
    }
}

/// The egui paint callback for one frame: it renders the scene offscreen in `prepare`; egui
/// then draws the resolved texture as an image, so `paint` has nothing left to do.
pub(super) struct ViewportCallback {
    pub id: u64,
    pub frame: Arc<FrameData>,
}

impl CallbackTrait for ViewportCallback {
    fn prepare(
        &self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        _screen: &ScreenDescriptor,
        encoder: &mut wgpu::CommandEncoder,
        resources: &mut CallbackResources,
    ) -> Vec<wgpu::CommandBuffer> {
        if let Some(gpu) = resources.get_mut::<ViewportGpus>().and_then(|g| g.0.get_mut(&self.id)) {
            gpu.render(device, queue, encoder, &self.frame);
        }
        Vec::new()
    }

    fn paint(
        &self,
        _info: eframe::egui::PaintCallbackInfo,
        _pass: &mut wgpu::RenderPass<'static>,
        _resources: &CallbackResources,
    ) {
    }
}

/// Shorthand used by the viewport to add its callback shape.
pub(super) fn callback_shape(rect: eframe::egui::Rect, callback: ViewportCallback) -> eframe::egui::Shape {
    eframe::egui::Shape::Callback(egui_wgpu::Callback::new_paint_callback(rect, callback))
}
