//! Mesh import: the triangles of an OBJ or glTF 2.0 (.gltf + buffers, or .glb) file, for a
//! scene's `TriangleMesh(file: ...)` and `ConvexHull(file: ...)`.

mod decompose;
mod gltf;
mod obj;

pub use decompose::decompose;

use super::{Generator, Scene, SceneError, ShapeDesc, ShapeError, rules};
use crate::math::{Real, Vec3};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// What a file gave: every selected object's triangles over one vertex list, in the file's
/// units times the scale, counter-clockwise seen from the side they face.
#[derive(Clone, Debug, PartialEq)]
pub struct ImportedMesh {
    /// The vertices.
    pub vertices: Vec<Vec3>,
    /// Each triangle's three vertex indices.
    pub triangles: Vec<[u32; 3]>,
    /// Each object the triangles came from, in order: its name as errors give it (`object
    /// "ramp"`, `node "tri" primitive 0`) and the index of its first triangle.
    pub objects: Vec<(String, usize)>,
}

/// Why a file gave no mesh. Every message starts with the file's path as it was opened.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The file could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// The extension is not .obj, .gltf or .glb.
    #[error("{}: not a mesh file this build reads (.{ext}): use .obj, .gltf or .glb", path.display())]
    Format {
        /// The file.
        path: PathBuf,
        /// The file's extension.
        ext: String,
    },
    /// The file is malformed.
    #[error("{}{}: {message}", path.display(), line.map(|l| format!(":{l}")).unwrap_or_default())]
    Parse {
        /// The file.
        path: PathBuf,
        /// The line, when the parser gave one.
        line: Option<usize>,
        /// What is wrong.
        message: String,
    },
    /// A glTF buffer is missing or malformed.
    #[error("{}: buffer {buffer}: {message}", path.display())]
    Buffer {
        /// The file.
        path: PathBuf,
        /// The buffer's index.
        buffer: usize,
        /// What is wrong.
        message: String,
    },
    /// A glTF primitive is not a triangle list.
    #[error("{}: mesh {mesh} primitive {primitive}: mode {mode} is not supported (only TRIANGLES)", path.display())]
    Mode {
        /// The file.
        path: PathBuf,
        /// The mesh's name.
        mesh: String,
        /// The primitive's index.
        primitive: usize,
        /// Its drawing mode.
        mode: String,
    },
    /// The object has no triangle.
    #[error("{}: {object} has no triangles", path.display())]
    NoTriangles {
        /// The file.
        path: PathBuf,
        /// The object.
        object: String,
    },
    /// No object has the name asked for.
    #[error("{}: no object named \"{}\"; the file has {}", path.display(), .name.escape_debug(), list(.names))]
    NotFound {
        /// The file.
        path: PathBuf,
        /// The name asked for.
        name: String,
        /// The names the file has.
        names: Vec<String>,
    },
    /// A triangle of a mesh with (almost) no area.
    #[error(
        "{}: triangle {triangle} of {object} is degenerate (area {area:e}; triangle {index} of the merged mesh)",
        path.display()
    )]
    Degenerate {
        /// The file.
        path: PathBuf,
        /// The object.
        object: String,
        /// The triangle's index within the object.
        triangle: usize,
        /// Its index in the merged mesh.
        index: usize,
        /// Its area.
        area: Real,
    },
    /// A vertex is not finite.
    #[error("{}: vertex {index} of {object} is not finite: ({}, {}, {})", path.display(), value[0], value[1], value[2])]
    NonFinite {
        /// The file.
        path: PathBuf,
        /// The object.
        object: String,
        /// The vertex's index.
        index: usize,
        /// Its coordinates.
        value: [Real; 3],
    },
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "no named objects".into()
    } else {
        names.iter().map(|n| format!("\"{}\"", n.escape_debug())).collect::<Vec<_>>().join(", ")
    }
}

/// Reads the mesh in `path` (by its extension): every object merged, or the one named
/// `object`, each vertex multiplied by `scale`.
pub fn import_mesh(path: &Path, object: Option<&str>, scale: Real) -> Result<ImportedMesh, ImportError> {
    let ext = extension(path);
    if !matches!(ext.as_str(), "obj" | "gltf" | "glb") {
        return Err(ImportError::Format { path: path.into(), ext });
    }
    import_mesh_bytes(path, read(path)?, object, scale)
}

fn extension(path: &Path) -> String {
    path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default()
}

/// As [`import_mesh`], from the file's bytes: `path` gives the format (by its extension), the
/// folder external glTF buffers are read from, and the name errors give.
pub fn import_mesh_bytes(
    path: &Path,
    bytes: Vec<u8>,
    object: Option<&str>,
    scale: Real,
) -> Result<ImportedMesh, ImportError> {
    let parts = match extension(path).as_str() {
        "obj" => obj::read(path, bytes, object)?,
        "gltf" | "glb" => gltf::read(path, bytes, object)?,
        ext => return Err(ImportError::Format { path: path.into(), ext: ext.into() }),
    };
    let mut mesh = ImportedMesh { vertices: Vec::new(), triangles: Vec::new(), objects: Vec::new() };
    for part in parts {
        if let Some((index, v)) = part.vertices.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(ImportError::NonFinite { path: path.into(), object: part.name, index, value: v.to_array() });
        }
        let base = mesh.vertices.len() as u32;
        mesh.objects.push((part.name, mesh.triangles.len()));
        mesh.vertices.extend(part.vertices.iter().map(|v| *v * scale));
        mesh.triangles.extend(part.triangles.iter().map(|t| t.map(|i| i + base)));
    }
    if mesh.triangles.is_empty() {
        let object = object.map_or_else(|| "the file".to_string(), |n| format!("\"{}\"", n.escape_debug()));
        return Err(ImportError::NoTriangles { path: path.into(), object });
    }
    Ok(mesh)
}

/// One object of a file: its name (for errors) and its triangles in the scene's frame.
struct Part {
    name: String,
    vertices: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
}

fn read(path: &Path) -> Result<Vec<u8>, ImportError> {
    read_regular(path).map_err(|source| ImportError::Read { path: path.into(), source })
}

/// The bytes of a regular file. A folder, a device (`/dev/zero` never ends), a FIFO (it
/// blocks) or a socket is refused before it is opened for reading.
pub(crate) fn read_regular(path: &Path) -> std::io::Result<Vec<u8>> {
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        let what = if meta.is_dir() { "a folder" } else { "a device, FIFO or socket" };
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("it is {what}, not a regular file")));
    }
    std::fs::read(path)
}

/// The objects named `object` among `names`, or all of them; not found lists the names there are.
fn select(path: &Path, object: Option<&str>, names: &[String]) -> Result<Vec<bool>, ImportError> {
    let Some(name) = object else { return Ok(vec![true; names.len()]) };
    let picked: Vec<bool> = names.iter().map(|n| n == name).collect();
    if picked.contains(&true) {
        return Ok(picked);
    }
    let mut unique: Vec<String> = Vec::new();
    for n in names.iter().filter(|n| !n.is_empty()) {
        if !unique.contains(n) {
            unique.push(n.clone());
        }
    }
    Err(ImportError::NotFound { path: path.into(), name: name.into(), names: unique })
}

/// Reads every mesh file a scene's shapes name (relative to the scene file's folder) into the
/// shapes' inline fields, so the scene no longer depends on the files (recordings carry it
/// whole). A file named by several shapes is read once. Errors name the shape's field and the
/// file.
pub(crate) fn resolve_files(scene: &mut Scene, scene_path: &Path) -> Result<(), SceneError> {
    let base = scene_path.parent().unwrap_or(Path::new(""));
    let mut cache = Cache::new();
    let invalid = |field: String, error: ShapeError| SceneError::Invalid {
        path: scene_path.into(),
        field,
        message: error.into(),
    };
    for (i, b) in scene.bodies.iter_mut().enumerate() {
        resolve(&mut b.shape, base, &mut cache).map_err(|m| invalid(format!("bodies[{i}].shape"), m))?;
    }
    for (i, g) in scene.generators.iter_mut().enumerate() {
        match g {
            Generator::Grid { shape, .. } => {
                resolve(shape, base, &mut cache).map_err(|m| invalid(format!("generators[{i}].shape"), m))?
            }
            Generator::Rain { shapes, .. } => {
                for (k, s) in shapes.iter_mut().enumerate() {
                    resolve(s, base, &mut cache).map_err(|m| invalid(format!("generators[{i}].shapes[{k}]"), m))?;
                }
            }
            Generator::Pyramid { .. } | Generator::Chain { .. } | Generator::Ragdoll { .. } => {}
        }
    }
    Ok(())
}

/// A file's selection: (path, object, scale bits).
type Key = (PathBuf, Option<String>, u32);

/// What one scene load has read and worked out, so that a file named by many shapes is read,
/// checked and decomposed once: meshes by selection, the selections already checked for
/// degenerate triangles, and V-HACD's parts by selection and parameters.
#[derive(Default)]
struct Cache {
    meshes: BTreeMap<Key, ImportedMesh>,
    sound: std::collections::BTreeSet<Key>,
    parts: BTreeMap<(Key, u32, u32), Vec<Vec<Vec3>>>,
}

impl Cache {
    fn new() -> Cache {
        Cache::default()
    }
}

/// The mesh of file `name` (relative to `base`), its `object` or all of it, scaled (1 when
/// `None`, checked against [`SCALE`]), read once per scene load; with the file's path.
fn read_cached(
    base: &Path,
    name: &str,
    object: Option<String>,
    scale: Option<Real>,
    cache: &mut Cache,
) -> Result<Key, ShapeError> {
    let scale = scale.unwrap_or(1.0);
    rules::within(scale, SCALE.0, SCALE.1, "").map_err(|e| ShapeError::at("scale", e))?;
    let path = base.join(name);
    let key = (path.clone(), object, scale.to_bits());
    if !cache.meshes.contains_key(&key) {
        let m = import_mesh(&path, key.1.as_deref(), scale)
            .map_err(|error| ShapeError::Import { name: name.to_string(), error })?;
        cache.meshes.insert(key.clone(), m);
    }
    Ok(key)
}

fn resolve(shape: &mut ShapeDesc, base: &Path, cache: &mut Cache) -> Result<(), ShapeError> {
    if let ShapeDesc::Compound { .. } = shape {
        return resolve_compound(shape, base, cache);
    }
    let is_mesh = matches!(shape, ShapeDesc::TriangleMesh { .. });
    let (file, object, scale, inline) = match shape {
        ShapeDesc::TriangleMesh { vertices, indices, file, object, scale } => {
            (file, object, scale, !vertices.is_empty() || !indices.is_empty())
        }
        ShapeDesc::ConvexHull { points, file, object, scale } => (file, object, scale, !points.is_empty()),
        _ => return Ok(()),
    };
    let Some(name) = file.take() else { return Ok(()) };
    let what = if is_mesh { "vertices and indices" } else { "points" };
    if inline {
        return Err(ShapeError::FileAndInline(what));
    }
    let key = read_cached(base, &name, object.take(), scale.take(), cache)?;
    let path = key.0.clone();
    let mesh = &cache.meshes[&key];
    if is_mesh && !cache.sound.contains(&key) {
        degenerate(&path, mesh).map_err(|error| ShapeError::Import { name: name.clone(), error })?;
    }
    *shape = if is_mesh {
        ShapeDesc::triangle_mesh(mesh.vertices.clone(), mesh.triangles.clone())
    } else {
        ShapeDesc::convex_hull(distinct(&mesh.vertices))
    };
    if is_mesh {
        cache.sound.insert(key);
    }
    // The checks validation makes again, here so their message names the file.
    super::shape_check(shape).map_err(|e| ShapeError::InFile { name, path, error: Box::new(e) })
}

/// The first degenerate triangle of an imported mesh ([`crate::geometry::degenerate_area`], the
/// mesh check's test), named by its object and its index there. A hull reads only the vertices,
/// so its files are not checked for this.
fn degenerate(path: &Path, mesh: &ImportedMesh) -> Result<(), ImportError> {
    for (index, t) in mesh.triangles.iter().enumerate() {
        let Some(area) = crate::geometry::degenerate_area(&t.map(|i| mesh.vertices[i as usize])) else { continue };
        let k = mesh.objects.partition_point(|(_, first)| *first <= index).saturating_sub(1);
        let (object, first) = mesh.objects.get(k).cloned().unwrap_or_else(|| ("the file".into(), 0));
        return Err(ImportError::Degenerate { path: path.into(), object, triangle: index - first, index, area });
    }
    Ok(())
}

/// A compound read from a file: its mesh cut into convex hulls, each a child.
fn resolve_compound(shape: &mut ShapeDesc, base: &Path, cache: &mut Cache) -> Result<(), ShapeError> {
    let ShapeDesc::Compound { children, file, object, scale, decomposition } = shape else { return Ok(()) };
    let Some(name) = file.take() else {
        if object.is_some() || scale.is_some() || decomposition.is_some() {
            return Err(ShapeError::DecompositionWithoutFile);
        }
        // Hull children may name their own files.
        for (i, c) in children.iter_mut().enumerate() {
            resolve(&mut c.shape, base, cache).map_err(|e| ShapeError::at(format!("children[{i}].shape"), e))?;
        }
        return Ok(());
    };
    if !children.is_empty() {
        return Err(ShapeError::FileAndInline("children"));
    }
    let d = decomposition.take().unwrap_or_default();
    rules::within(d.resolution as Real, 8.0, 256.0, "").map_err(|e| ShapeError::at("decomposition.resolution", e))?;
    rules::within(d.max_hulls as Real, 1.0, 256.0, "").map_err(|e| ShapeError::at("decomposition.max_hulls", e))?;
    let key = read_cached(base, &name, object.take(), scale.take(), cache)?;
    let path = key.0.clone();
    let mesh = &cache.meshes[&key];
    let at = (key, d.resolution, d.max_hulls);
    let parts = match cache.parts.get(&at) {
        Some(p) => p.clone(),
        None => {
            let p = decompose(mesh, d.resolution, d.max_hulls);
            cache.parts.insert(at, p.clone());
            p
        }
    };
    if parts.is_empty() {
        return Err(ShapeError::NoConvexPart { name, path });
    }
    *children = parts
        .into_iter()
        .map(|points| super::ChildDesc {
            shape: ShapeDesc::convex_hull(distinct(&points)),
            position: Vec3::ZERO,
            rotation: Default::default(),
        })
        .collect();
    super::shape_check(shape).map_err(|e| ShapeError::InFile { name, path, error: Box::new(e) })
}

/// The range of a file's `scale`.
const SCALE: (Real, Real) = (1e-6, 1e6);

/// The vertices without repeats (files repeat a vertex for each face's normal), first seen first.
fn distinct(vertices: &[Vec3]) -> Vec<Vec3> {
    let mut seen = std::collections::BTreeSet::new();
    vertices.iter().copied().filter(|v| seen.insert(v.to_array().map(f32::to_bits))).collect()
}

/// A shape that still names a file was not loaded from a scene file (which reads it), or has a
/// selector without a file: an error naming the field.
pub(crate) fn unresolved(shape: &ShapeDesc) -> Result<(), ShapeError> {
    let (file, object, scale) = match shape {
        ShapeDesc::TriangleMesh { file, object, scale, .. }
        | ShapeDesc::ConvexHull { file, object, scale, .. }
        | ShapeDesc::Compound { file, object, scale, .. } => (file, object, scale),
        _ => return Ok(()),
    };
    if let Some(f) = file {
        return Err(ShapeError::Unread(f.clone()));
    }
    if object.is_some() || scale.is_some() {
        return Err(ShapeError::SelectorWithoutFile);
    }
    Ok(())
}
