//! glTF 2.0 through the `gltf` crate (JSON and binary GLB): every TRIANGLES primitive of the
//! meshes the default scene's nodes place, with the nodes' transforms applied. Buffers come from
//! the GLB binary chunk, a `data:` URI (base64) or a file beside the glTF file.

use super::{ImportError, Part, select};
use crate::math::Vec3;
use base64::Engine;
use glam::Mat4;
use gltf::mesh::Mode;
use std::path::Path;

pub(super) fn read(path: &Path, bytes: Vec<u8>, object: Option<&str>) -> Result<Vec<Part>, ImportError> {
    let doc = gltf::Gltf::from_slice(&bytes).map_err(|e| ImportError::Parse {
        path: path.into(),
        line: None,
        message: format!("not valid glTF: {e}"),
    })?;
    let buffers = doc.buffers().map(|b| buffer(path, &doc, b)).collect::<Result<Vec<_>, _>>()?;

    // (mesh, its transform, the node's name) for every mesh the scene places.
    let mut placed = Vec::new();
    match doc.default_scene().or_else(|| doc.scenes().next()) {
        Some(scene) => {
            let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
            stack.reverse();
            while let Some((node, parent)) = stack.pop() {
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
    let mut parts = Vec::new();
    for (k, (mesh, world, node)) in placed.iter().enumerate() {
        if !(picked[2 * k] || picked[2 * k + 1]) {
            continue;
        }
        let mesh_name = match mesh.name() {
            Some(n) => format!("\"{n}\""),
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
            let at = |message: String| ImportError::Parse {
                path: path.into(),
                line: None,
                message: format!("mesh {mesh_name} primitive {p}: {message}"),
            };
            let reader = prim.reader(|b| buffers.get(b.index()).map(Vec::as_slice));
            let positions = prim.get(&gltf::Semantic::Positions).ok_or_else(|| at("no POSITION attribute".into()))?;
            in_bounds(&positions, &buffers).map_err(|m| at(format!("POSITION: {m}")))?;
            let raw: Vec<Vec3> = reader
                .read_positions()
                .ok_or_else(|| at("POSITION cannot be read".into()))?
                .map(Vec3::from_array)
                .collect();
            if raw.len() != positions.count() {
                return Err(at(format!("POSITION holds {} of its {} vertices", raw.len(), positions.count())));
            }
            let name = if node.is_empty() { format!("mesh {mesh_name}") } else { format!("node \"{node}\"") };
            let name = format!("{name} primitive {p}");
            // As the file has it: a transform would smear one infinity over the other components.
            if let Some((index, v)) = raw.iter().enumerate().find(|(_, v)| !v.is_finite()) {
                return Err(ImportError::NonFinite { path: path.into(), object: name, index, value: v.to_array() });
            }
            let vertices: Vec<Vec3> = raw.iter().map(|&v| world.transform_point3(v)).collect();
            let indices: Vec<u32> = match prim.indices() {
                Some(acc) => {
                    in_bounds(&acc, &buffers).map_err(|m| at(format!("indices: {m}")))?;
                    let read: Vec<u32> =
                        reader.read_indices().ok_or_else(|| at("indices cannot be read".into()))?.into_u32().collect();
                    if read.len() != acc.count() {
                        return Err(at(format!("indices hold {} of their {}", read.len(), acc.count())));
                    }
                    read
                }
                None => (0..vertices.len() as u32).collect(),
            };
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

/// The bytes of one buffer, at least as long as the file declares it.
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
            let file = path.parent().unwrap_or(Path::new("")).join(percent_decode(uri));
            std::fs::read(&file).map_err(|e| err(format!("cannot read {} (\"{uri}\"): {e}", file.display())))?
        }
    };
    if data.len() < b.length() {
        return Err(err(format!("holds {} bytes, but the file declares {}", data.len(), b.length())));
    }
    Ok(data)
}

/// Checks that every element of an accessor lies inside its buffer view, and the view inside its
/// buffer, so reading it cannot run off the end.
fn in_bounds(acc: &gltf::Accessor, buffers: &[Vec<u8>]) -> Result<(), String> {
    let Some(view) = acc.view() else { return Ok(()) };
    let len = buffers.get(view.buffer().index()).map_or(0, Vec::len);
    if view.offset() + view.length() > len {
        return Err(format!(
            "buffer view {} ends at byte {}, beyond its buffer's {len}",
            view.index(),
            view.offset() + view.length()
        ));
    }
    if acc.count() > 0 {
        let stride = view.stride().unwrap_or(acc.size());
        let end = acc.offset() + stride * (acc.count() - 1) + acc.size();
        if end > view.length() {
            return Err(format!(
                "accessor {} ends at byte {end} of buffer view {}, which has {}",
                acc.index(),
                view.index(),
                view.length()
            ));
        }
    }
    Ok(())
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
