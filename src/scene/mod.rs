//! Scenes: the RON file format, its checks, generators, and conversion to and from a world.

mod error;
mod generate;
pub mod import;
mod joints;
mod schema;

pub use crate::rng::SplitMix64;
pub use error::{Problem, SceneError, ShapeError, one_line};
pub use generate::MAX_BODIES;
pub use joints::{BodyRef, JointDesc, JointKindDesc, MotorDesc};
pub use schema::{
    BodyDesc, CameraDesc, ChildDesc, Decomposition, Generator, Lesson, Rotation, RotationError, SCENE_VERSION, Scene,
    ShapeDesc,
};

use crate::dynamics::{Body, BodyKind};
use crate::geometry::{Compound, CompoundChild, ConvexHull, HeightField, Shape};
use crate::math::{Pose, Real, Vec3};
use crate::rules;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl Scene {
    /// Reads and checks a scene file.
    pub fn load(path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        Scene::parse(&read_text(path)?, path)
    }

    /// Parses and checks scene text; `path` only names the source in errors.
    pub fn parse(text: &str, path: impl AsRef<Path>) -> Result<Scene, SceneError> {
        let path = path.as_ref();
        let scene: Scene = parse_ron(text, path)?;
        scene.finish(path)
    }

    /// What loading does after parsing: reads the files the scene names (relative to `path`),
    /// checks the scene and records `path` as its file.
    pub fn finish(mut self, path: &Path) -> Result<Scene, SceneError> {
        // The shapes built while checking stay shared until the load ends, so bodies that name
        // the same file (or list the same points) are built once.
        let _pins = shared::Pins::start();
        import::resolve_files(&mut self, path)?;
        self.validate(path)?;
        self.file = SceneFile(Some(path.into()));
        Ok(self)
    }

    /// The checks parsing cannot make. Errors name the field path.
    pub fn validate(&self, path: &Path) -> Result<(), SceneError> {
        let invalid =
            |field: String, message: String| SceneError::Invalid { path: path.into(), field, message: message.into() };
        if self.version != SCENE_VERSION {
            return Err(invalid(
                "version".into(),
                format!("unsupported scene version {} (this build reads version {SCENE_VERSION})", self.version),
            ));
        }
        let bad_shape =
            |field: String, error: ShapeError| SceneError::Invalid { path: path.into(), field, message: error.into() };
        self.settings.validate().map_err(|e| SceneError::Invalid {
            path: path.into(),
            field: "settings".into(),
            message: e.into(),
        })?;
        for (i, b) in self.bodies.iter().enumerate() {
            shape_check(&b.shape).map_err(|e| bad_shape(format!("bodies[{i}].shape"), e))?;
            if b.kind == BodyKind::Dynamic && is_mesh(&b.shape) {
                let name = b.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
                return Err(invalid(
                    format!("bodies[{i}].kind"),
                    format!(
                        "body {i}{name} is dynamic, but a triangle mesh or height field can only be Static or Kinematic"
                    ),
                ));
            }
            b.rotation.validate().map_err(|e| bad_shape(format!("bodies[{i}]"), e.into()))?;
        }
        // The count first: it is exact for any counts, and the most basic of the checks.
        let total = self.bodies.len() as u128 + self.generators.iter().map(generate::count).sum::<u128>();
        if total > MAX_BODIES as u128 {
            return Err(invalid(
                "generators".into(),
                format!("the scene makes {total} bodies, more than the limit of {MAX_BODIES}"),
            ));
        }
        for (i, g) in self.generators.iter().enumerate() {
            generate::validate(g).map_err(|e| invalid(format!("generators[{i}].{}", e.field()), e.to_string()))?;
            match g {
                Generator::Grid { shape, .. } => shape_check(shape)
                    .and_then(|_| convex_only(shape))
                    .map_err(|e| bad_shape(format!("generators[{i}].shape"), e))?,
                Generator::Rain { shapes, .. } => {
                    for (k, s) in shapes.iter().enumerate() {
                        shape_check(s)
                            .and_then(|_| convex_only(s))
                            .map_err(|e| bad_shape(format!("generators[{i}].shapes[{k}]"), e))?;
                    }
                }
                Generator::Pyramid { .. } | Generator::Chain { .. } | Generator::Ragdoll { .. } => {}
            }
        }
        // The bodies as they would be built, once, where a check needs them: a separated rain
        // must find every body a clear place, and the joints their bodies.
        let separated = self.generators.iter().any(|g| matches!(g, Generator::Rain { separated: true, .. }));
        let jointed = !self.joints.is_empty() || self.generators.iter().any(Generator::makes_joints);
        if !(separated || jointed) {
            return Ok(());
        }
        let (mut bodies, mut joints) = (self.bodies.clone(), Vec::new());
        for (i, g) in self.generators.iter().enumerate() {
            generate::expand(g, &mut bodies, &mut joints)
                .map_err(|e| invalid(format!("generators[{i}].{}", e.field()), e.to_string()))?;
        }
        if jointed {
            self.resolve_joints(&bodies, |i| {
                let b = &bodies[i];
                Pose::new(b.position, b.rotation.to_quat())
            })
            .map_err(|(field, message)| invalid(field, message))?;
        }
        Ok(())
    }

    /// The joints of the scene: each generator's, in file order, then the listed ones, with
    /// their bodies found among `bodies` (the expanded ones) and defaults taken from the poses
    /// `pose(i)` gives. Errors name the field (`joints[2].axis_a`) and the problem.
    pub fn resolve_joints(
        &self,
        bodies: &[BodyDesc],
        pose: impl Fn(usize) -> Pose,
    ) -> Result<Vec<crate::dynamics::joints::Joint>, (String, String)> {
        let names: Vec<Option<&str>> = bodies.iter().map(|b| b.name.as_deref()).collect();
        let poses: Vec<Pose> = (0..bodies.len()).map(pose).collect();
        let generated = self.generated_joints();
        let mut out = Vec::with_capacity(generated.len() + self.joints.len());
        for (k, j) in generated.iter().enumerate() {
            out.push(j.to_joint(k, &names, &poses).map_err(|(f, m)| (format!("generators (joint {k}).{f}"), m))?);
        }
        for (i, j) in self.joints.iter().enumerate() {
            let k = generated.len() + i;
            out.push(j.to_joint(k, &names, &poses).map_err(|(f, m)| (format!("joints[{i}].{f}"), m))?);
        }
        Ok(out)
    }

    /// The joints the generators make, in file order.
    fn generated_joints(&self) -> Vec<JointDesc> {
        let mut bodies = self.bodies.clone();
        let mut joints = Vec::new();
        for g in &self.generators {
            // Every generator's bodies, for the indices of the later ones' (a rain that found
            // no clear place for a body is refused by `validate`).
            let _ = generate::expand(g, &mut bodies, &mut joints);
        }
        joints
    }

    /// Every body: the explicit ones, then each generator's, in file order.
    pub fn expanded_bodies(&self) -> Vec<BodyDesc> {
        let mut out = self.bodies.clone();
        let mut joints = Vec::new();
        for g in &self.generators {
            // A rain that found no clear place for a body is refused by `validate`.
            let _ = generate::expand(g, &mut out, &mut joints);
        }
        out
    }

    /// The scene as RON text, as scene files are written.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(4).struct_names(false);
        ron::ser::to_string_pretty(self, config).expect("a scene always serialises")
    }

    /// Writes the scene atomically: to a temporary file beside `path`, then renamed over it, so
    /// a crash never leaves a half-written file.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), SceneError> {
        write_atomic(path.as_ref(), self.to_ron().as_bytes())
    }
}

/// Parses RON text of the project's files (scenes, lessons): `Some` may be left out of optional
/// values. Errors name `path`, the line and the column.
pub fn parse_ron<T: serde::de::DeserializeOwned>(text: &str, path: &Path) -> Result<T, SceneError> {
    if_empty(text, path)?;
    let options = ron::Options::default().with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
    options.from_str(text).map_err(|e| {
        let (line, col) = (e.span.start.line, e.span.start.col);
        // A value's own rule ("0 must be greater than 0") does not know its field: the field
        // named just before the value on its line is written first (`dt: 0 must be …`).
        let message = match (&e.code, field_before(text, line, col)) {
            (ron::Error::Message(m), Some(field)) if !m.starts_with(field) => format!("{field}: {m}"),
            _ => e.code.to_string(),
        };
        SceneError::Parse { path: path.into(), line, col, message }
    })
}

/// The field whose value is at `line`:`col` (from 1) of `text` (its start, or for a vector
/// its end): the name before the last `:` before it on that line, if there is one.
fn field_before(text: &str, line: usize, col: usize) -> Option<&str> {
    let row = text.lines().nth(line.checked_sub(1)?)?;
    let before = row.char_indices().nth(col.checked_sub(1)?).map_or(row, |(at, _)| &row[..at]);
    let name = before[..before.rfind(':')?].trim_end();
    let start = name.rfind(|c: char| !(c.is_alphanumeric() || c == '_')).map_or(0, |k| k + 1);
    let field = &name[start..];
    (!field.is_empty() && !field.starts_with(|c: char| c.is_ascii_digit())).then_some(field)
}

/// An empty file (or one of white space alone) is refused as such, not as a missing `(`.
pub fn if_empty(text: &str, path: &Path) -> Result<(), SceneError> {
    if text.trim().is_empty() {
        return Err(SceneError::Parse { path: path.into(), line: 1, col: 1, message: "the file is empty".into() });
    }
    Ok(())
}

/// "the scene has 5 bodies (0 to 4)", or "the scene has no bodies": what an index out of range
/// is told.
pub fn bodies_text(bodies: usize) -> String {
    match bodies {
        0 => "the scene has no bodies".into(),
        1 => "the scene has 1 body (0)".into(),
        n => format!("the scene has {n} bodies (0 to {})", n - 1),
    }
}

/// The first bytes of a binary recording (`crate::record`'s format): a high byte (no text file
/// starts with it), the name, and a newline a text-mode transfer would mangle. Here, below the
/// recordings, so that the text loader can name such a file given where text was wanted.
pub const RECORDING_MAGIC: [u8; 8] = *b"\x89CDREC\r\n";

/// What a file that is not text is, by its first bytes, for the error: a binary recording or a
/// zip archive (a case bundle) given where text was wanted.
fn binary_kind(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&RECORDING_MAGIC) {
        Some(
            "it is a binary recording (.cdrec), not a text file: `collidoscope replay` checks it and \
             `collidoscope diagnose` takes it",
        )
    } else if bytes.starts_with(b"PK\x03\x04") {
        Some("it is a zip archive, not a text file: a case bundle opens with `collidoscope open`")
    } else {
        None
    }
}

/// Reads a text file: UTF-8, with or without a byte-order mark. Bytes that are not UTF-8 are
/// an error at their line and column.
pub fn read_text(path: &Path) -> Result<String, SceneError> {
    decode_text(&read_file(path)?, path).map(str::to_string)
}

/// The bytes of a regular file (a folder, device, FIFO or socket is refused); errors name `path`.
pub fn read_file(path: &Path) -> Result<Vec<u8>, SceneError> {
    import::read_regular(path).map_err(|source| SceneError::Io { path: path.into(), source })
}

/// `bytes` as UTF-8 text, a leading byte-order mark dropped. Bytes that are not UTF-8 are an
/// error at their line and column in `path`.
pub fn decode_text<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str, SceneError> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    // By its first bytes, before decoding: a zip's can be valid UTF-8.
    if let Some(kind) = binary_kind(bytes) {
        return Err(SceneError::Parse { path: path.into(), line: 1, col: 1, message: kind.into() });
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        let line = 1 + good.iter().filter(|&&b| b == b'\n').count();
        let line_start = good.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Columns count characters, as the parser's do.
        let col = 1 + String::from_utf8_lossy(&good[line_start..]).chars().count();
        SceneError::Parse {
            path: path.into(),
            line,
            col,
            message: format!("byte 0x{:02x} is not UTF-8: save the file as UTF-8 text", bytes[e.valid_up_to()]),
        }
    })
}

/// Writes `bytes` to `path` through a temporary file and a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), SceneError> {
    use std::io::Write;
    let mut out = AtomicFile::create(path)?;
    out.write_all(bytes).map_err(|source| SceneError::Io { path: path.into(), source })?;
    out.commit()
}

/// A file written through a temporary file beside it and renamed over it by
/// [`AtomicFile::commit`], so a crash or an error never leaves a half-written file. Dropped
/// without a commit, it removes the temporary file and leaves `path` as it was. It replaces only
/// a regular file the user may write: a folder, a device node, a FIFO or a socket is refused
/// (a rename would put a regular file in its place), and so is a read-only file. A symbolic
/// link is followed: the regular file it points to is replaced and the link stays; a link to
/// nothing is refused. Every output of the command line and the app is written through it.
pub struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    out: Option<std::io::BufWriter<std::fs::File>>,
}

/// Why `path` cannot be replaced by an output, without touching it; `Ok` with the file a write
/// replaces (the link's target for a symbolic link) and its metadata when it exists.
fn output_target(path: &Path) -> Result<(PathBuf, Option<std::fs::Metadata>), SceneError> {
    let refuse =
        |kind, message: String| SceneError::Io { path: path.into(), source: std::io::Error::new(kind, message) };
    use std::io::ErrorKind;
    if path.as_os_str().is_empty() {
        return Err(refuse(ErrorKind::InvalidInput, "an empty path is not a file name".into()));
    }
    let link = std::fs::symlink_metadata(path).ok().is_some_and(|m| m.file_type().is_symlink());
    let target = match std::fs::canonicalize(path) {
        Ok(t) => t,
        Err(_) if link => {
            let to = std::fs::read_link(path).map(|t| t.display().to_string()).unwrap_or_default();
            return Err(refuse(
                ErrorKind::NotFound,
                format!("is a symbolic link to {to}, which does not exist; name the file itself"),
            ));
        }
        Err(_) => path.to_path_buf(),
    };
    let meta = match std::fs::metadata(&target) {
        Ok(m) => m,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok((target, None)),
        Err(e) => {
            let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
            return Err(refuse(e.kind(), format!("cannot write in its folder {}: {e}", dir.display())));
        }
    };
    let what = file_kind(&meta);
    if meta.is_dir() {
        return Err(refuse(ErrorKind::IsADirectory, "is a folder, not a file; it is left as it is".into()));
    }
    if !meta.is_file() {
        return Err(refuse(
            ErrorKind::InvalidInput,
            format!("is {what}, not a regular file; outputs replace only regular files, so it is left as it is"),
        ));
    }
    let writable = std::fs::OpenOptions::new().append(true).open(&target).is_ok();
    if meta.permissions().readonly() || !writable {
        return Err(refuse(ErrorKind::PermissionDenied, "the file is read-only; it is left as it is".into()));
    }
    Ok((target, Some(meta)))
}

/// What a file is, in words, for messages.
fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let t = meta.file_type();
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    if t.is_dir() {
        "a folder"
    } else if t.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

impl AtomicFile {
    /// Starts writing `path` through a temporary file beside it; nothing changes at `path` until
    /// [`AtomicFile::commit`]. Refuses (see [`AtomicFile`]) anything but a writable regular file
    /// or a new name in a folder that can be written.
    pub fn create(path: &Path) -> Result<AtomicFile, SceneError> {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let io = |source| SceneError::Io { path: path.into(), source };
        let (target, existing) = output_target(path)?;
        let dir = target.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "scene".into());
        let unique = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{name}.{}.{unique}.tmp", std::process::id()));
        let file = std::fs::OpenOptions::new().write(true).create_new(true).open(&tmp).map_err(|e| {
            io(std::io::Error::new(e.kind(), format!("cannot write in its folder {}: {e}", dir.display())))
        })?;
        // The replacement keeps the permissions of the file it replaces.
        if let Some(meta) = existing {
            let _ = file.set_permissions(meta.permissions());
        }
        Ok(AtomicFile { path: target, tmp, out: Some(std::io::BufWriter::new(file)) })
    }

    /// Whether `path` could be written as [`AtomicFile::create`] would, leaving nothing behind:
    /// for outputs written at the end of a long run, checked before it starts.
    pub fn check(path: &Path) -> Result<(), SceneError> {
        drop(AtomicFile::create(path)?);
        Ok(())
    }

    /// The file this will replace.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs and renames the temporary file over the target.
    pub fn commit(mut self) -> Result<(), SceneError> {
        let out = self.out.take().expect("an uncommitted file has its writer");
        let result = (|| {
            let file = out.into_inner().map_err(|e| e.into_error())?;
            file.sync_all()?;
            std::fs::rename(&self.tmp, &self.path)
        })();
        result.map_err(|source| SceneError::Io { path: self.path.clone(), source })
    }
}

impl std::io::Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.as_mut().expect("an uncommitted file has its writer").write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.as_mut().expect("an uncommitted file has its writer").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        // Not committed (or the commit failed): the target keeps what it had.
        if self.out.take().is_some() || self.tmp.exists() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Hulls already built, keyed by their points' bits, so that equal point lists share one hull.
pub type HullCache = BTreeMap<Vec<[u32; 3]>, Arc<ConvexHull>>;

/// The file a scene was loaded from, for messages about it made after loading (building a
/// world); `None` for a scene made in code. Not part of the scene: it is never written, and
/// any two compare equal.
#[derive(Clone, Debug, Default)]
pub struct SceneFile(pub Option<PathBuf>);

impl PartialEq for SceneFile {
    fn eq(&self, _: &SceneFile) -> bool {
        true
    }
}

impl Scene {
    /// The scene's file as messages name it: its path, else its name, else "scene".
    pub fn file_label(&self) -> PathBuf {
        match &self.file.0 {
            Some(p) => p.clone(),
            None if !self.name.is_empty() => PathBuf::from(&self.name),
            None => PathBuf::from("scene"),
        }
    }
}

/// Triangle meshes and hulls built from scene descriptions, shared by content: a description
/// whose vertices and triangles (or points) have the bits of one already built and still in use
/// gets that shape, so a scene whose bodies name one mesh file builds its mesh once. Shapes are
/// immutable once built (welding copies a shared mesh first), so sharing changes no result.
mod shared {
    use crate::geometry::{ConvexHull, HullError, MeshError, TriangleMesh};
    use crate::math::Vec3;
    use std::any::Any;
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::hash::{Hash, Hasher};
    use std::sync::{Arc, Mutex, Weak};

    type Meshes = HashMap<u64, Vec<Weak<TriangleMesh>>>;
    type Hulls = HashMap<u64, Vec<(Vec<[u32; 3]>, Weak<ConvexHull>)>>;
    static MESHES: Mutex<Option<Meshes>> = Mutex::new(None);
    static HULLS: Mutex<Option<Hulls>> = Mutex::new(None);

    thread_local! {
        /// Shapes kept alive while a scene loads on this thread (see [`Pins`]).
        static PINNED: RefCell<Option<Vec<Arc<dyn Any + Send + Sync>>>> = const { RefCell::new(None) };
    }

    /// Keeps every shape built on this thread alive until dropped (the checks of one scene load
    /// build and drop each shape; pinned, the next body naming the same file finds it).
    pub(super) struct Pins(bool);

    impl Pins {
        pub(super) fn start() -> Pins {
            Pins(PINNED.with(|p| {
                let mut p = p.borrow_mut();
                let outermost = p.is_none();
                p.get_or_insert_with(Vec::new);
                outermost
            }))
        }
    }

    impl Drop for Pins {
        fn drop(&mut self) {
            // The outermost load ends: release what it pinned.
            if self.0 {
                PINNED.with(|p| *p.borrow_mut() = None);
            }
        }
    }

    fn pin<T: Any + Send + Sync>(shape: &Arc<T>) {
        PINNED.with(|p| {
            if let Some(v) = p.borrow_mut().as_mut() {
                v.push(shape.clone());
            }
        });
    }

    fn bits(points: &[Vec3]) -> Vec<[u32; 3]> {
        points.iter().map(|p| p.to_array().map(f32::to_bits)).collect()
    }

    /// The mesh of these vertices and triangles, built or shared.
    pub(super) fn mesh(vertices: &[Vec3], triangles: &[[u32; 3]]) -> Result<Arc<TriangleMesh>, MeshError> {
        // The key samples the data (hashing all of it for every body would cost more than the
        // comparison that confirms a match); equal keys are compared in full.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (vertices.len(), triangles.len()).hash(&mut h);
        let step = |n: usize| (n / 16).max(1);
        for v in vertices.iter().step_by(step(vertices.len())) {
            v.to_array().map(f32::to_bits).hash(&mut h);
        }
        for t in triangles.iter().step_by(step(triangles.len())) {
            t.hash(&mut h);
        }
        let key = h.finish();
        let same = |m: &TriangleMesh| {
            m.triangles() == triangles
                && m.vertices().len() == vertices.len()
                && m.vertices()
                    .iter()
                    .zip(vertices)
                    .all(|(a, b)| a.to_array().map(f32::to_bits) == b.to_array().map(f32::to_bits))
        };
        let found = {
            let mut lock = MESHES.lock().unwrap_or_else(|e| e.into_inner());
            let map = lock.get_or_insert_with(HashMap::new);
            map.get(&key).and_then(|v| v.iter().filter_map(Weak::upgrade).find(|m| same(m)))
        };
        let m = match found {
            Some(m) => m,
            None => {
                let m = Arc::new(TriangleMesh::new(vertices.to_vec(), triangles.to_vec())?);
                let mut lock = MESHES.lock().unwrap_or_else(|e| e.into_inner());
                let map = lock.get_or_insert_with(HashMap::new);
                map.retain(|_, v| {
                    v.retain(|w| w.strong_count() > 0);
                    !v.is_empty()
                });
                map.entry(key).or_default().push(Arc::downgrade(&m));
                m
            }
        };
        pin(&m);
        Ok(m)
    }

    /// The hull of these points, built or shared.
    pub(super) fn hull(points: &[Vec3]) -> Result<Arc<ConvexHull>, HullError> {
        let key_bits = bits(points);
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key_bits.hash(&mut h);
        let key = h.finish();
        let found = {
            let mut lock = HULLS.lock().unwrap_or_else(|e| e.into_inner());
            let map = lock.get_or_insert_with(HashMap::new);
            map.get(&key).and_then(|v| v.iter().find(|(b, _)| *b == key_bits).and_then(|(_, w)| w.upgrade()))
        };
        let hull = match found {
            Some(hull) => hull,
            None => {
                let hull = Arc::new(ConvexHull::new(points)?);
                let mut lock = HULLS.lock().unwrap_or_else(|e| e.into_inner());
                let map = lock.get_or_insert_with(HashMap::new);
                map.retain(|_, v| {
                    v.retain(|(_, w)| w.strong_count() > 0);
                    !v.is_empty()
                });
                map.entry(key).or_default().push((key_bits, Arc::downgrade(&hull)));
                hull
            }
        };
        pin(&hull);
        Ok(hull)
    }
}

impl BodyDesc {
    /// The description of a body as it is now: exact pose and velocities.
    pub fn from_body(b: &Body) -> BodyDesc {
        let q = b.pose.rotation;
        BodyDesc {
            name: b.name.clone(),
            kind: b.kind,
            shape: shape_desc(&b.shape),
            position: b.pose.translation,
            rotation: Rotation::Quat(q.x, q.y, q.z, q.w),
            linear_velocity: b.linvel,
            angular_velocity: b.angvel,
            material: b.material,
            bullet: b.bullet,
        }
    }

    /// Makes the body this description gives; `hulls` shares hulls between bodies.
    pub(crate) fn to_body(&self, hulls: &mut HullCache) -> Result<Body, ShapeError> {
        let shape = make_shape(&self.shape, hulls)?;
        let rotation = self.rotation.to_quat();
        let pose = Pose::new(self.position + rotation * centre_offset(&shape), rotation);
        let mut body =
            Body::new(self.kind, shape, pose, self.material).with_velocity(self.linear_velocity, self.angular_velocity);
        body.name = self.name.clone();
        body.bullet = self.bullet;
        Ok(body)
    }
}

/// Where a built shape's centre (its origin in the body: a hull's or compound's centre of mass,
/// on which it is re-centred) lies in the frame the scene file describes it in; the body is
/// placed there.
pub(crate) fn centre_offset(shape: &Shape) -> Vec3 {
    match shape {
        Shape::ConvexHull(h) => -h.shift(),
        Shape::Compound(c) => -c.shift(),
        _ => Vec3::ZERO,
    }
}

fn is_mesh(s: &ShapeDesc) -> bool {
    matches!(s, ShapeDesc::TriangleMesh { .. } | ShapeDesc::HeightField { .. })
}

/// Generators make dynamic bodies, which cannot be meshes.
fn convex_only(s: &ShapeDesc) -> Result<(), ShapeError> {
    if is_mesh(s) { Err(ShapeError::MeshInGenerator) } else { Ok(()) }
}

pub(crate) fn shape_check(s: &ShapeDesc) -> Result<(), ShapeError> {
    import::unresolved(s)?;
    if let ShapeDesc::ConvexHull { points, .. } = s {
        if let Some((i, e)) =
            points.iter().enumerate().find_map(|(i, p)| rules::coordinate_vec3(*p).err().map(|e| (i, e)))
        {
            return Err(ShapeError::at(format!("points[{i}]"), e));
        }
        if points.len() >= 4 {
            let bounds = crate::geometry::Aabb::from_points(points.iter().copied());
            let size = bounds.extents().max_element();
            // A cloud of one repeated point is reported as such by the hull below.
            if size > 0.0 {
                let (lo, hi) = rules::limits::SIZE;
                rules::within(size, 2.0 * lo, 2.0 * hi, " m").map_err(ShapeError::Span)?;
            }
        }
        shared::hull(points)?;
    }
    match s {
        ShapeDesc::TriangleMesh { vertices, indices, .. } => {
            if let Some((i, e)) =
                vertices.iter().enumerate().find_map(|(i, p)| rules::coordinate_vec3(*p).err().map(|e| (i, e)))
            {
                return Err(ShapeError::at(format!("vertices[{i}]"), e));
            }
            shared::mesh(vertices, indices)?;
        }
        ShapeDesc::HeightField { cell, heights } => {
            height_field(*cell, heights)?;
        }
        ShapeDesc::Compound { children, decomposition, .. } => {
            if decomposition.is_some() {
                return Err(ShapeError::DecompositionWithoutFile);
            }
            for (i, c) in children.iter().enumerate() {
                let at = |field: &str, e: ShapeError| ShapeError::at(format!("children[{i}].{field}"), e);
                match &c.shape {
                    ShapeDesc::Compound { .. } | ShapeDesc::TriangleMesh { .. } | ShapeDesc::HeightField { .. } => {
                        return Err(at("shape", ShapeError::ChildNotConvex));
                    }
                    child => shape_check(child).map_err(|e| at("shape", e))?,
                }
                rules::coordinate_vec3(c.position).map_err(|e| at("position", e.into()))?;
                c.rotation.validate().map_err(|e| at("rotation", e.into()))?;
            }
            compound(children, &mut HullCache::new())?;
        }
        _ => {}
    }
    Ok(())
}

/// The compound these children make; its errors name the child (`children[i]`).
fn compound(children: &[ChildDesc], hulls: &mut HullCache) -> Result<Compound, ShapeError> {
    let mut kids = Vec::with_capacity(children.len());
    for (i, c) in children.iter().enumerate() {
        let shape = make_shape(&c.shape, hulls).map_err(|e| ShapeError::at(format!("children[{i}].shape"), e))?;
        // A hull child is re-centred on its centre of mass: its pose moves with it.
        let shift = match &shape {
            Shape::ConvexHull(h) => -h.shift(),
            _ => Vec3::ZERO,
        };
        let rotation = c.rotation.to_quat();
        kids.push(CompoundChild { shape, pose: Pose::new(c.position + rotation * shift, rotation) });
    }
    Compound::new(kids).map_err(ShapeError::Compound)
}

/// A height field from rows of heights; rows of unequal length are an error naming the row.
/// The cell is a size (1e-4 to 1e4 m) and the field's extent, `cell` times its rows or columns
/// less one, must keep its corners within the coordinate limit on either side of its centre.
fn height_field(cell: Real, heights: &[Vec<Real>]) -> Result<HeightField, ShapeError> {
    let (lo, hi) = rules::limits::SIZE;
    rules::within(cell, lo, hi, " m").map_err(|e| ShapeError::at("cell", e))?;
    let cols = heights.first().map_or(0, Vec::len);
    let span = cell as f64 * (heights.len().max(cols).saturating_sub(1)) as f64;
    let limit = 2.0 * rules::limits::COORDINATE as f64;
    if span > limit {
        return Err(ShapeError::FieldSpan {
            span,
            rows: heights.len(),
            cols,
            cell,
            limit,
            coordinate: rules::limits::COORDINATE,
        });
    }
    if let Some((r, row)) = heights.iter().enumerate().find(|(_, row)| row.len() != cols) {
        return Err(ShapeError::RaggedRow { row: r, len: row.len(), cols });
    }
    if let Some((r, c, e)) = heights
        .iter()
        .enumerate()
        .find_map(|(r, row)| row.iter().enumerate().find_map(|(c, &h)| rules::coordinate(h).err().map(|e| (r, c, e))))
    {
        return Err(ShapeError::at(format!("heights[{r}][{c}]"), e));
    }
    Ok(HeightField::new(heights.len(), cols, cell, heights.concat())?)
}

pub(crate) fn make_shape(d: &ShapeDesc, hulls: &mut HullCache) -> Result<Shape, ShapeError> {
    Ok(match d {
        ShapeDesc::Sphere { radius } => Shape::sphere(*radius),
        ShapeDesc::Cuboid { half_extents } => Shape::cuboid(*half_extents),
        ShapeDesc::Capsule { half_height, radius } => Shape::capsule(*half_height, *radius),
        ShapeDesc::ConvexHull { points, .. } => {
            let key: Vec<[u32; 3]> = points.iter().map(|p| p.to_array().map(f32::to_bits)).collect();
            if let Some(h) = hulls.get(&key) {
                Shape::ConvexHull(h.clone())
            } else {
                let h = shared::hull(points)?;
                hulls.insert(key, h.clone());
                Shape::ConvexHull(h)
            }
        }
        ShapeDesc::TriangleMesh { vertices, indices, .. } => Shape::TriangleMesh(shared::mesh(vertices, indices)?),
        ShapeDesc::HeightField { cell, heights } => Shape::HeightField(Arc::new(height_field(*cell, heights)?)),
        ShapeDesc::Compound { children, .. } => Shape::Compound(Arc::new(compound(children, hulls)?)),
    })
}

pub(crate) fn shape_desc(s: &Shape) -> ShapeDesc {
    match s {
        Shape::Sphere(s) => ShapeDesc::Sphere { radius: s.radius },
        Shape::Cuboid(c) => ShapeDesc::Cuboid { half_extents: c.half_extents },
        Shape::Capsule(c) => ShapeDesc::Capsule { half_height: c.half_height, radius: c.radius },
        Shape::ConvexHull(h) => ShapeDesc::convex_hull(h.vertices().to_vec()),
        Shape::TriangleMesh(m) => ShapeDesc::triangle_mesh(m.vertices().to_vec(), m.triangles().to_vec()),
        Shape::HeightField(h) => ShapeDesc::HeightField {
            cell: h.cell(),
            heights: h.heights().chunks(h.cols()).map(|r| r.to_vec()).collect(),
        },
        Shape::Compound(c) => ShapeDesc::compound(
            c.children()
                .iter()
                .map(|k| {
                    let q = k.pose.rotation;
                    ChildDesc {
                        shape: shape_desc(&k.shape),
                        position: k.pose.translation,
                        rotation: Rotation::Quat(q.x, q.y, q.z, q.w),
                    }
                })
                .collect(),
        ),
    }
}
