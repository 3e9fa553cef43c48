//! glTF 2.0 through the `gltf` crate (JSON and binary GLB): every TRIANGLES primitive of the
//! meshes the default scene's nodes place, with the nodes' transforms applied. Buffers come from
//! the GLB binary chunk, a `data:` URI (base64) or a file beside the glTF file.

use super::{ImportError, Part, select};
use crate::math::Vec3;
use base64::Engine;
use glam::Mat4;
use gltf::json;
use gltf::json::validation::Checked;
use gltf::mesh::Mode;
use std::path::Path;

pub(super) fn read(path: &Path, bytes: Vec<u8>, object: Option<&str>) -> Result<Vec<Part>, ImportError> {
    let doc = document(&bytes).map_err(|m| ImportError::Parse { path: path.into(), line: None, message: m.0 })?;
    let buffers = doc.buffers().map(|b| buffer(path, &doc, b)).collect::<Result<Vec<_>, _>>()?;
    let parse = |message: String| ImportError::Parse { path: path.into(), line: None, message };

    // (mesh, its transform, the node's name) for every mesh the scene places. The nodes form
    // trees (glTF 2.0, 3.5.3): a node reached twice (its own child, a cycle, two parents) is an
    // error, so the walk ends.
    let mut placed = Vec::new();
    match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => {
            let mut seen = vec![false; doc.nodes().len()];
            let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
            stack.reverse();
            while let Some((node, parent)) = stack.pop() {
                match seen.get_mut(node.index()) {
                    Some(s) if !*s => *s = true,
                    _ => {
                        return Err(parse(format!(
                            "node {} is reached twice from scene {}: it is its own descendant or has two parents, \
                             but glTF nodes must form trees",
                            node.index(),
                            scene.index()
                        )));
                    }
                }
                let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
                if let Some(mesh) = node.mesh() {
                    placed.push((mesh, world, node.name().unwrap_or_default().to_string()));
                }
                let mut children: Vec<_> = node.children().map(|c| (c, world)).collect();
                children.reverse();
                stack.extend(children);
            }
        }
        // A file of meshes without a scene: each mesh as it is.
        None => placed.extend(doc.meshes().map(|m| (m, Mat4::IDENTITY, String::new()))),
    }

    // A name selects a mesh by its own name or by the name of a node that places it.
    let mut names = Vec::new();
    for (mesh, _, node) in &placed {
        names.push(mesh.name().unwrap_or_default().to_string());
        names.push(node.clone());
    }
    let picked = select(path, object, &names)?;
    let data = Data { root: doc.as_json(), buffers: &buffers, file_bytes: bytes.len() };
    let (mut vertices_read, mut indices_read) = (0usize, 0usize);
    let mut parts = Vec::new();
    for (k, (mesh, world, node)) in placed.iter().enumerate() {
        if !(picked[2 * k] || picked[2 * k + 1]) {
            continue;
        }
        let mesh_name = match mesh.name() {
            Some(n) => format!("\"{}\"", n.escape_debug()),
            None => mesh.index().to_string(),
        };
        for (p, prim) in mesh.primitives().enumerate() {
            if prim.mode() != Mode::Triangles {
                return Err(ImportError::Mode {
                    path: path.into(),
                    mesh: mesh_name,
                    primitive: p,
                    mode: format!("{:?}", prim.mode()),
                });
            }
            let at = |message: String| parse(format!("mesh {mesh_name} primitive {p}: {message}"));
            let positions = prim.get(&gltf::Semantic::Positions).ok_or_else(|| at("no POSITION attribute".into()))?;
            // Each read is bounded by the file's bytes; the totals bound a mesh placed many times.
            let raw: Vec<Vec3> = data
                .read(positions.index(), Element::Vec3F32, |b| Vec3::new(f32_at(b, 0), f32_at(b, 4), f32_at(b, 8)))
                .map_err(|m| at(format!("POSITION (accessor {}): {m}", positions.index())))?;
            vertices_read += raw.len();
            if vertices_read > MAX_VERTICES {
                return Err(at(format!(
                    "the primitives placed hold more than {MAX_VERTICES} vertices in all, the most an import takes"
                )));
            }
            let name =
                if node.is_empty() { format!("mesh {mesh_name}") } else { format!("node \"{}\"", node.escape_debug()) };
            let name = format!("{name} primitive {p}");
            // As the file has it: a transform would smear one infinity over the other components.
            if let Some((index, v)) = raw.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(ImportError::NonFinite { path: path.into(), object: name, index, value: v.to_array() });
            }
            let vertices: Vec<Vec3> = raw.iter().map(|&v| world.transform_point3(v)).collect();
            let indices: Vec<u32> = match prim.indices() {
                Some(acc) => {
                    let read = data
                        .read_indices(acc.index())
                        .map_err(|m| at(format!("indices (accessor {}): {m}", acc.index())))?;
                    indices_read += read.len();
                    read
                }
                None => (0..vertices.len() as u32).collect(),
            };
            if prim.indices().is_none() {
                indices_read += indices.len();
            }
            if indices_read > 3 * MAX_TRIANGLES {
                return Err(at(format!(
                    "the primitives placed hold more than {MAX_TRIANGLES} triangles in all, the most an import takes"
                )));
            }
            if !indices.len().is_multiple_of(3) {
                return Err(at(format!("{} indices do not make whole triangles", indices.len())));
            }
            if let Some(&i) = indices.iter().find(|&&i| i as usize >= vertices.len()) {
                return Err(at(format!("index {i} is beyond its {} vertices", vertices.len())));
            }
            // A mirroring transform turns the winding over; swap it back so faces keep facing out.
            let mirrored = world.determinant() < 0.0;
            let triangles = indices
                .chunks_exact(3)
                .map(|t| if mirrored { [t[0], t[2], t[1]] } else { [t[0], t[1], t[2]] })
                .collect();
            parts.push(Part { name, vertices, triangles });
        }
    }
    Ok(parts)
}

/// The file parsed and validated by the `gltf` crate, after the checks its own parsing and
/// validation rely on without making: a GLB header's length, and the accessor each primitive's
/// attributes name (the validation looks POSITION's up by index).
fn document(bytes: &[u8]) -> Result<gltf::Gltf, Malformed> {
    if bytes.starts_with(b"glTF") {
        let header = bytes
            .get(..12)
            .ok_or_else(|| Malformed(format!("the GLB header is cut short ({} of 12 bytes)", bytes.len())))?;
        let declared = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if declared < 12 {
            return Err(Malformed(format!("the GLB header declares {declared} bytes in all, fewer than its own 12")));
        }
    }
    let gltf =
        gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| Malformed(format!("not valid glTF: {e}")))?;
    let root = gltf.document.as_json();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let named = prim.attributes.values().map(|a| a.value()).chain(prim.indices.map(|a| a.value()));
            if let Some(a) = named.into_iter().find(|&a| a >= root.accessors.len()) {
                return Err(Malformed(format!(
                    "mesh {m} primitive {p} refers to accessor {a}, but the file has {}",
                    root.accessors.len()
                )));
            }
        }
    }
    let gltf::Gltf { document, blob } = gltf;
    let document =
        gltf::Document::from_json(document.into_json()).map_err(|e| Malformed(format!("not valid glTF: {e}")))?;
    Ok(gltf::Gltf { document, blob })
}

/// Most vertices one import reads, over every primitive placed (a node graph may place one
/// mesh many times).
pub(super) const MAX_VERTICES: usize = 4_000_000;
/// Most triangles one import reads, over every primitive placed.
pub(super) const MAX_TRIANGLES: usize = 4_000_000;

/// Largest byte stride glTF allows (3.6.2.4).
const MAX_STRIDE: u64 = 252;

/// The kinds of element read.
#[derive(Clone, Copy, PartialEq)]
enum Element {
    /// A POSITION: three 32-bit floats.
    Vec3F32,
    /// An index: one unsigned integer of this many bytes.
    Index(u64),
}

impl Element {
    fn size(self) -> u64 {
        match self {
            Element::Vec3F32 => 12,
            Element::Index(n) => n,
        }
    }
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

fn uint(b: &[u8]) -> u32 {
    match b.len() {
        1 => b[0] as u32,
        2 => u16::from_le_bytes([b[0], b[1]]) as u32,
        _ => u32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    }
}

fn type_name(t: &Checked<json::accessor::Type>) -> String {
    match t {
        Checked::Valid(t) => format!("{t:?}").to_uppercase(),
        Checked::Invalid => "an unknown type".into(),
    }
}

fn component_name(c: json::accessor::ComponentType) -> &'static str {
    use json::accessor::ComponentType::*;
    match c {
        I8 => "BYTE",
        U8 => "UNSIGNED_BYTE",
        I16 => "SHORT",
        U16 => "UNSIGNED_SHORT",
        U32 => "UNSIGNED_INT",
        F32 => "FLOAT",
    }
}

/// The file's accessors over its buffers, read with every offset, stride and count checked
/// against the bytes present before anything is allocated.
struct Data<'a> {
    root: &'a json::Root,
    buffers: &'a [Vec<u8>],
    /// The file's own size: an accessor without a buffer view (zeros) may hold at most this
    /// many elements, so a tiny file cannot ask for a huge one.
    file_bytes: usize,
}

impl Data<'_> {
    /// The bytes of buffer view `v`, checked to lie inside its buffer, and its stride.
    fn view(&self, v: usize) -> Result<(&[u8], Option<u64>), Malformed> {
        let view = self.root.buffer_views.get(v).ok_or_else(|| Malformed(format!("buffer view {v} does not exist")))?;
        let b = view.buffer.value();
        let buf =
            self.buffers.get(b).ok_or_else(|| Malformed(format!("buffer view {v}: buffer {b} does not exist")))?;
        let (off, len) = (view.byte_offset.map_or(0, |o| o.0), view.byte_length.0);
        let end = off.checked_add(len).filter(|&e| e <= buf.len() as u64).ok_or_else(|| {
            Malformed(format!("buffer view {v} (bytes {off} + {len}) runs past the {} bytes of buffer {b}", buf.len()))
        })?;
        let stride = view.byte_stride.map(|s| s.0 as u64).filter(|&s| s != 0);
        Ok((&buf[off as usize..end as usize], stride))
    }

    /// `count` elements of `size` bytes from view `v` at `offset`, `stride` apart (packed when
    /// `None`), each decoded by `decode`.
    fn elements<T>(
        &self,
        v: usize,
        offset: u64,
        count: u64,
        size: u64,
        stride: Option<u64>,
        decode: &impl Fn(&[u8]) -> T,
    ) -> Result<Vec<T>, Malformed> {
        let (bytes, view_stride) = self.view(v)?;
        let stride = stride.or(view_stride).unwrap_or(size);
        if stride < size {
            return Err(Malformed(format!(
                "buffer view {v} has a byte stride of {stride}, smaller than one element ({size} bytes)"
            )));
        }
        if stride > MAX_STRIDE.max(size) || (!stride.is_multiple_of(4) && stride != size) {
            return Err(Malformed(format!(
                "buffer view {v} has a byte stride of {stride}: glTF allows multiples of 4 up to {MAX_STRIDE}"
            )));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let end = stride.checked_mul(count - 1).and_then(|x| x.checked_add(offset)).and_then(|x| x.checked_add(size));
        if end.is_none_or(|e| e > bytes.len() as u64) {
            return Err(Malformed(format!(
                "{count} elements of {size} bytes, {stride} apart from byte {offset}, do not fit in the {} bytes of buffer view {v}",
                bytes.len()
            )));
        }
        // Every element lies inside `bytes`, so `count` is at most its length: the allocation
        // is bounded by the file.
        Ok((0..count)
            .map(|k| {
                let at = (offset + k * stride) as usize;
                decode(&bytes[at..at + size as usize])
            })
            .collect())
    }

    /// Accessor `a`, which must hold elements of kind `kind`, read whole (its sparse
    /// substitutions applied).
    fn read<T: Copy + Default>(
        &self,
        a: usize,
        kind: Element,
        decode: impl Fn(&[u8]) -> T,
    ) -> Result<Vec<T>, Malformed> {
        let acc = self.root.accessors.get(a).ok_or_else(|| Malformed(format!("accessor {a} does not exist")))?;
        let Checked::Valid(component) = &acc.component_type else {
            return Err(Malformed("the component type is unknown".into()));
        };
        let component = component.0;
        use json::accessor::{ComponentType, Type};
        let fits = match kind {
            Element::Vec3F32 => acc.type_ == Checked::Valid(Type::Vec3) && component == ComponentType::F32,
            Element::Index(_) => acc.type_ == Checked::Valid(Type::Scalar),
        };
        if !fits || acc.normalized {
            let want = match kind {
                Element::Vec3F32 => "VEC3 of FLOAT",
                Element::Index(_) => "SCALAR of UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
            };
            return Err(Malformed(format!(
                "holds {} of {}{}, but must hold {want}",
                type_name(&acc.type_),
                component_name(component),
                if acc.normalized { " (normalized)" } else { "" }
            )));
        }
        let count = acc.count.0;
        let size = kind.size();
        let mut out = match acc.buffer_view {
            Some(v) => self.elements(v.value(), acc.byte_offset.map_or(0, |o| o.0), count, size, None, &decode)?,
            None => {
                if count > self.file_bytes as u64 {
                    return Err(Malformed(format!(
                        "has no buffer view and {count} elements, more than the file's {} bytes can justify",
                        self.file_bytes
                    )));
                }
                vec![T::default(); count as usize]
            }
        };
        if let Some(sparse) = &acc.sparse {
            let n = sparse.count.0;
            if n > count {
                return Err(Malformed(format!("its sparse part substitutes {n} elements of its {count}")));
            }
            let isize = match &sparse.indices.component_type {
                Checked::Valid(json::accessor::IndexComponentType(c)) => match *c {
                    ComponentType::U8 => 1,
                    ComponentType::U16 => 2,
                    ComponentType::U32 => 4,
                    other => {
                        return Err(Malformed(format!(
                            "its sparse indices are {}, not unsigned integers",
                            component_name(other)
                        )));
                    }
                },
                Checked::Invalid => return Err(Malformed("its sparse indices have an unknown component type".into())),
            };
            let at = self
                .elements(
                    sparse.indices.buffer_view.value(),
                    sparse.indices.byte_offset.0,
                    n,
                    isize,
                    Some(isize),
                    &uint,
                )
                .map_err(|e| Malformed(format!("sparse indices: {e}")))?;
            let values = self
                .elements(sparse.values.buffer_view.value(), sparse.values.byte_offset.0, n, size, Some(size), &decode)
                .map_err(|e| Malformed(format!("sparse values: {e}")))?;
            for (i, v) in at.into_iter().zip(values) {
                let slot = out
                    .get_mut(i as usize)
                    .ok_or_else(|| Malformed(format!("sparse index {i} is beyond its {count} elements")))?;
                *slot = v;
            }
        }
        Ok(out)
    }

    /// An indices accessor: unsigned bytes, shorts or ints.
    fn read_indices(&self, a: usize) -> Result<Vec<u32>, Malformed> {
        let acc = self.root.accessors.get(a).ok_or_else(|| Malformed(format!("accessor {a} does not exist")))?;
        use json::accessor::ComponentType;
        let size = match &acc.component_type {
            Checked::Valid(json::accessor::GenericComponentType(ComponentType::U8)) => 1,
            Checked::Valid(json::accessor::GenericComponentType(ComponentType::U16)) => 2,
            Checked::Valid(json::accessor::GenericComponentType(ComponentType::U32)) => 4,
            Checked::Valid(json::accessor::GenericComponentType(other)) => {
                let other = *other;
                return Err(Malformed(format!(
                    "the indices are {}: they must be UNSIGNED_BYTE, UNSIGNED_SHORT or UNSIGNED_INT",
                    component_name(other)
                )));
            }
            Checked::Invalid => return Err(Malformed("the component type is unknown".into())),
        };
        self.read(a, Element::Index(size), uint)
    }
}

/// The bytes of one buffer, at least as long as the file declares it. A buffer file must be a
/// regular file named by a relative path beside the glTF file (no scheme such as `file:` or
/// `http:`, no absolute path).
fn buffer(path: &Path, doc: &gltf::Gltf, b: gltf::Buffer) -> Result<Vec<u8>, ImportError> {
    let err = |message: String| ImportError::Buffer { path: path.into(), buffer: b.index(), message };
    let data = match b.source() {
        gltf::buffer::Source::Bin => {
            doc.blob.clone().ok_or_else(|| err("refers to the GLB binary chunk, but the file has none".into()))?
        }
        gltf::buffer::Source::Uri(uri) if uri.starts_with("data:") => {
            let (head, payload) = uri.split_once(',').ok_or_else(|| err("a data: URI without a comma".into()))?;
            if !head.ends_with(";base64") {
                return Err(err(format!("the data: URI ({head}) is not base64; only base64 data URIs are read")));
            }
            base64::engine::general_purpose::STANDARD
                .decode(payload)
                .map_err(|e| err(format!("the base64 data: URI does not decode: {e}")))?
        }
        gltf::buffer::Source::Uri(uri) => {
            let scheme = uri
                .split_once(':')
                .is_some_and(|(s, _)| s.len() > 1 && s.chars().all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)));
            let decoded = percent_decode(uri);
            if scheme || Path::new(&decoded).is_absolute() || uri.is_empty() {
                return Err(err(format!(
                    "the URI \"{uri}\" is not a relative path: buffers are read from files beside the glTF file or from data: URIs"
                )));
            }
            let file = path.parent().unwrap_or(Path::new("")).join(decoded);
            super::read_regular(&file).map_err(|e| err(format!("cannot read {} (\"{uri}\"): {e}", file.display())))?
        }
    };
    if (data.len() as u64) < b.length() as u64 {
        return Err(err(format!("holds {} bytes, but the file declares {}", data.len(), b.length())));
    }
    Ok(data)
}

/// `%XX` escapes of a relative URI decoded to bytes; anything else kept as written.
fn percent_decode(uri: &str) -> String {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && let (Some(h), Some(l)) = (bytes.get(i + 1).and_then(|&b| hex(b)), bytes.get(i + 2).and_then(|&b| hex(b)))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// What a glTF file breaks (its header, an accessor, a buffer view), in words; the import
/// reports it as a parse error of the file, prefixed with the mesh and primitive.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Malformed(String);
