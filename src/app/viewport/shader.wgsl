// The viewport's shaders: instanced lit meshes, depth-tested lines, screen-facing points.
// The target is Rgba8Unorm holding sRGB-encoded values (what egui samples), so lighting is
// done in linear space and encoded on output; line and point colours are already sRGB.

struct Uniforms {
    view_proj: mat4x4<f32>,
    // xyz: eye position; w: pixels per point.
    eye: vec4<f32>,
    light_dir: vec4<f32>,
    // Target size in pixels (x, y), then their reciprocals.
    viewport: vec4<f32>,
};

@group(0) @binding(0) var<uniform> u: Uniforms;

fn quat_rotate(q: vec4<f32>, v: vec3<f32>) -> vec3<f32> {
    let t = 2.0 * cross(q.xyz, v);
    return v + q.w * t + cross(q.xyz, t);
}

fn linear_from_srgb(c: vec3<f32>) -> vec3<f32> {
    let lo = c / 12.92;
    let hi = pow((c + 0.055) / 1.055, vec3<f32>(2.4));
    return select(hi, lo, c <= vec3<f32>(0.04045));
}

fn srgb_from_linear(c: vec3<f32>) -> vec3<f32> {
    let x = clamp(c, vec3<f32>(0.0), vec3<f32>(1.0));
    let lo = x * 12.92;
    let hi = 1.055 * pow(x, vec3<f32>(1.0 / 2.4)) - 0.055;
    return select(hi, lo, x <= vec3<f32>(0.0031308));
}

struct MeshOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,
    @location(3) @interpolate(flat) flags: u32,
};

@vertex
fn vs_mesh(
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) i_pos: vec3<f32>,
    @location(3) i_color: vec4<f32>,
    @location(4) i_rot: vec4<f32>,
    @location(5) i_scale: vec3<f32>,
    @location(6) i_flags: u32,
) -> MeshOut {
    var out: MeshOut;
    let world = i_pos + quat_rotate(i_rot, pos * i_scale);
    out.clip = u.view_proj * vec4<f32>(world, 1.0);
    out.world = world;
    // Normals transform with the inverse scale.
    out.normal = quat_rotate(i_rot, normal / max(i_scale, vec3<f32>(1e-6)));
    out.color = i_color;
    out.flags = i_flags;
    return out;
}

@fragment
fn fs_mesh(in: MeshOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in), 1.0);
}

// How much of a see-through static body's colour covers what lies behind it.
const SEE_THROUGH_ALPHA: f32 = 0.22;

// A static body drawn see-through (blended, after the opaque bodies, writing no depth): faces
// seen edge-on stay a little more opaque, so the outline of a wall or a floor still reads.
@fragment
fn fs_mesh_see_through(in: MeshOut) -> @location(0) vec4<f32> {
    let facing = abs(dot(normalize(in.normal), normalize(u.eye.xyz - in.world)));
    let alpha = SEE_THROUGH_ALPHA + (1.0 - facing) * 0.25;
    return vec4<f32>(shade(in), alpha);
}

// The lit, sRGB-encoded colour of a mesh fragment.
fn shade(in: MeshOut) -> vec3<f32> {
    let n = normalize(in.normal);
    let v = normalize(u.eye.xyz - in.world);
    let l = u.light_dir.xyz;
    let base = linear_from_srgb(in.color.rgb);
    let sky = vec3<f32>(0.62, 0.68, 0.80);
    let ground = vec3<f32>(0.30, 0.27, 0.24);
    let hemi = mix(ground, sky, n.y * 0.5 + 0.5);
    let diffuse = max(dot(n, l), 0.0);
    let h = normalize(l + v);
    let spec = pow(max(dot(n, h), 0.0), 40.0) * 0.22;
    let rim = pow(1.0 - max(dot(n, v), 0.0), 3.0);
    var c = base * (hemi * 0.55 + vec3<f32>(diffuse * 0.8)) + vec3<f32>(spec) + sky * rim * 0.10;
    if (in.flags & 1u) != 0u {
        c = c + vec3<f32>(1.0, 0.85, 0.25) * (0.15 + rim * 0.9);
    }
    return srgb_from_linear(c);
}

struct FlatOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
    @location(1) uv: vec2<f32>,
};

@vertex
fn vs_line(@location(0) pos: vec3<f32>, @location(1) color: vec4<f32>) -> FlatOut {
    var out: FlatOut;
    // Slide the vertex a little towards the eye along its view ray: the same pixel, a nearer
    // depth, so lines on a surface (grid on the floor, box edges) are not hidden by it.
    let p = u.eye.xyz + (pos - u.eye.xyz) * 0.997;
    out.clip = u.view_proj * vec4<f32>(p, 1.0);
    out.color = color;
    out.uv = vec2<f32>(0.0);
    return out;
}

@fragment
fn fs_line(in: FlatOut) -> @location(0) vec4<f32> {
    return in.color;
}

// The side of a contact marker in points (the engine's CONTACT_POINT_SIZE), given when the
// marker pipeline is made: contact markers carry no size of their own.
override contact_point_size: f32;

// One corner of a screen-facing square `size` points across centred on `pos`.
fn point_corner(vi: u32, pos: vec3<f32>, size: f32, color: vec4<f32>) -> FlatOut {
    var corners = array<vec2<f32>, 6>(
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, -1.0), vec2<f32>(1.0, 1.0),
        vec2<f32>(-1.0, -1.0), vec2<f32>(1.0, 1.0), vec2<f32>(-1.0, 1.0),
    );
    let corner = corners[vi];
    var out: FlatOut;
    let c = u.view_proj * vec4<f32>(pos, 1.0);
    // Half the size in pixels, converted to clip units (2 / viewport per pixel).
    let offset = corner * size * u.eye.w * u.viewport.zw;
    out.clip = vec4<f32>(c.xy + offset * c.w, c.z, c.w);
    out.color = color;
    out.uv = corner;
    return out;
}

@vertex
fn vs_point(
    @builtin(vertex_index) vi: u32,
    @location(0) pos: vec3<f32>,
    @location(1) size: f32,
    @location(2) color: vec4<f32>,
) -> FlatOut {
    return point_corner(vi, pos, size, color);
}

@vertex
fn vs_marker(
    @builtin(vertex_index) vi: u32,
    @location(0) pos: vec3<f32>,
    @location(1) color: vec4<f32>,
) -> FlatOut {
    return point_corner(vi, pos, contact_point_size, color);
}

@fragment
fn fs_point(in: FlatOut) -> @location(0) vec4<f32> {
    let r = length(in.uv);
    if r > 1.0 {
        discard;
    }
    // A dark ring keeps the dot visible on a body of the same colour.
    let ring = smoothstep(0.6, 0.8, r);
    return vec4<f32>(mix(in.color.rgb, vec3<f32>(0.05), ring), 1.0);
}
