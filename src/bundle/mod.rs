//! Case bundles: what `diagnose --bundle` hands to another user in one zip file or folder (the
//! minimal scene, its compact recording, the report as text and JSON, and a clip or the reason
//! there is none), and reading one back to open it.

use crate::record::Recording;
use crate::scene::{Scene, SceneError, write_atomic};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The scene, as RON.
pub const SCENE: &str = "scene.ron";
/// The recording of the scene, in the binary format.
pub const RECORDING: &str = "recording.cdrec";
/// The diagnosis as text.
pub const REPORT_TEXT: &str = "report.txt";
/// The diagnosis as JSON.
pub const REPORT_JSON: &str = "report.json";
/// The clip, when one could be rendered.
pub const CLIP: &str = "clip.gif";
/// Why the bundle has no clip, in its place.
pub const NO_CLIP: &str = "no_clip.txt";
/// What the bundle holds, where it came from and how to open it.
pub const ABOUT: &str = "case.txt";

/// Largest entry read from a bundle: more is refused as damage rather than read into memory.
const MAX_ENTRY: u64 = 1 << 30;

/// Why a bundle could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum BundleError {
    /// The zip archive is damaged or not a zip file.
    #[error("{}: not a readable case bundle: {message}", .path.display())]
    Damaged {
        /// The bundle.
        path: PathBuf,
        /// What the zip reader said.
        message: String,
    },
    /// A file every bundle holds is missing.
    #[error("{}: the bundle has no {entry}; a case bundle holds {SCENE}, {RECORDING}, {REPORT_TEXT} and {REPORT_JSON}", .path.display())]
    Missing {
        /// The bundle.
        path: PathBuf,
        /// The file's name.
        entry: &'static str,
    },
    /// A folder to write the bundle to holds other files.
    #[error("{}: the folder exists and is not a case bundle (no {ABOUT}); it is left as it is", .0.display())]
    NotABundle(PathBuf),
    /// The bundle's folder name is a file (a bundle is a folder, or a file ending in `.zip`).
    #[error("{}: a file, not a folder; a case bundle is written to a folder, or to a file ending in .zip; it is left as it is", .0.display())]
    FileNotFolder(PathBuf),
    /// The bundle's scene is not the one its recording was recorded from (a file swapped or
    /// edited): opening it would show one case under the other's name.
    #[error("{}: {SCENE} is not the scene {RECORDING} was recorded from (was one of them replaced or edited?); open the recording alone, or write the bundle again", .0.display())]
    Mismatch(PathBuf),
    /// A file of the bundle could not be read, parsed or written.
    #[error(transparent)]
    Scene(#[from] SceneError),
}

/// The steps a bundle's clip shows, and how: steps `from..=to` of its recording, static bodies
/// see-through or solid.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ClipSpan {
    /// The clip's first step.
    pub from: u64,
    /// Its last step.
    pub to: u64,
    /// Whether the clip draws static bodies see-through.
    pub see_through: bool,
}

impl ClipSpan {
    /// The command that makes this clip from the bundle's recording.
    pub fn command(&self) -> String {
        let ClipSpan { from, to, see_through } = *self;
        let see = if see_through { " --see-through" } else { "" };
        format!("`collidoscope clip {RECORDING} -o {CLIP} --from {from} --to {to}{see}`")
    }
}

/// Why a bundle holds no clip: what its `no_clip.txt` says, with the command that makes the
/// clip from the bundle's recording.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum NoClip {
    /// No display to render on when the bundle was made.
    #[error(
        "no display was available when the bundle was made (DISPLAY and WAYLAND_DISPLAY are unset); make the clip with {} under xvfb-run or xshot",
        .0.command()
    )]
    NoDisplay(ClipSpan),
    /// Rendering or encoding failed.
    #[error("the clip could not be rendered ({message}); make it with {}", .span.command())]
    NotRendered {
        /// The clip.
        span: ClipSpan,
        /// Why, in the renderer's words.
        message: String,
    },
    /// The program was built without a window.
    #[error(
        "this build has no window (built without the `gui` feature); make the clip with {} in a build with one",
        .0.command()
    )]
    NoWindow(ClipSpan),
    /// A bundle read back: the reason its `no_clip.txt` gives.
    #[error("{0}")]
    Noted(String),
    /// A bundle read back with neither a clip nor a reason.
    #[error("the bundle has no clip")]
    Absent,
}

/// Everything a bundle holds.
#[derive(Clone, Debug, PartialEq)]
pub struct Bundle {
    /// The (minimal) scene.
    pub scene: Scene,
    /// The scene's run.
    pub recording: Recording,
    /// The report as text.
    pub report_text: String,
    /// The report as JSON.
    pub report_json: String,
    /// The clip as a GIF, or why there is none.
    pub clip: Result<Vec<u8>, NoClip>,
    /// What the bundle holds, where it came from and how to open it.
    pub about: String,
}

impl Bundle {
    /// The bundle's files, by name, in the order they are written.
    pub fn files(&self) -> Vec<(&'static str, Vec<u8>)> {
        let mut files = vec![
            (ABOUT, self.about.clone().into_bytes()),
            (SCENE, self.scene.to_ron().into_bytes()),
            (RECORDING, self.recording.to_binary(Default::default())),
            (REPORT_TEXT, self.report_text.clone().into_bytes()),
            (REPORT_JSON, self.report_json.clone().into_bytes()),
        ];
        match &self.clip {
            Ok(gif) => files.push((CLIP, gif.clone())),
            Err(why) => files.push((NO_CLIP, format!("{why}\n").into_bytes())),
        }
        files
    }

    /// Writes the bundle atomically: a zip archive for a name ending in `.zip`, a folder
    /// otherwise. A folder is written beside its place and renamed into it; it replaces only
    /// an empty folder or an earlier bundle.
    pub fn write(&self, path: &Path) -> Result<(), BundleError> {
        if is_zip_name(path) { self.write_zip(path) } else { self.write_folder(path) }
    }

    fn write_zip(&self, path: &Path) -> Result<(), BundleError> {
        use zip::write::SimpleFileOptions;
        let damaged = |e: zip::result::ZipError| BundleError::Damaged { path: path.into(), message: e.to_string() };
        let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        for (name, bytes) in self.files() {
            // The recording and the GIF are compressed already.
            let method = if name == RECORDING || name == CLIP {
                zip::CompressionMethod::Stored
            } else {
                zip::CompressionMethod::Deflated
            };
            zip.start_file(name, SimpleFileOptions::default().compression_method(method)).map_err(damaged)?;
            zip.write_all(&bytes).map_err(|source| SceneError::Io { path: path.into(), source })?;
        }
        let bytes = zip.finish().map_err(damaged)?.into_inner();
        write_atomic(path, &bytes)?;
        Ok(())
    }

    fn write_folder(&self, dir: &Path) -> Result<(), BundleError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| BundleError::Scene(SceneError::Io { path, source })
        };
        check_folder(dir)?;
        let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "case".into());
        let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
        let old = parent.join(format!(".{name}.{}.old", std::process::id()));
        let _ = std::fs::remove_dir_all(&tmp);
        std::fs::create_dir(&tmp).map_err(io(&tmp))?;
        let written = (|| {
            for (file, bytes) in self.files() {
                write_atomic(&tmp.join(file), &bytes)?;
            }
            if dir.exists() {
                std::fs::rename(dir, &old).map_err(io(dir))?;
            }
            std::fs::rename(&tmp, dir).map_err(io(dir))
        })();
        if written.is_err() {
            let _ = std::fs::remove_dir_all(&tmp);
            if old.exists() && !dir.exists() {
                let _ = std::fs::rename(&old, dir);
            }
        }
        written?;
        let _ = std::fs::remove_dir_all(&old);
        Ok(())
    }

    /// Reads a bundle (zip or folder). The recording is read as `replay` reads it (a binary
    /// one with keyframe digests is re-run on the way); a missing file, a damaged archive or a
    /// file that does not parse is an error naming the bundle and the file.
    pub fn read(path: &Path) -> Result<Bundle, BundleError> {
        let files = if path.is_dir() { read_folder(path)? } else { read_zip(path)? };
        let get = |entry: &'static str| {
            files
                .iter()
                .find(|(n, _)| n == entry)
                .map(|(_, b)| b.as_slice())
                .ok_or_else(|| BundleError::Missing { path: path.into(), entry })
        };
        let inside = |entry: &str| path.join(entry);
        let text = |entry: &'static str| -> Result<String, BundleError> {
            String::from_utf8(get(entry)?.to_vec()).map_err(|e| {
                BundleError::Scene(SceneError::Parse {
                    path: inside(entry),
                    line: 1,
                    col: 1,
                    message: format!("not UTF-8 text: {e}"),
                })
            })
        };
        let scene = Scene::parse(&text(SCENE)?, inside(SCENE))?;
        let recording = Recording::from_binary(get(RECORDING)?, &inside(RECORDING))?;
        if recording.scene.to_ron() != scene.to_ron() {
            return Err(BundleError::Mismatch(path.into()));
        }
        let clip = match get(CLIP) {
            Ok(gif) => Ok(gif.to_vec()),
            Err(_) => Err(text(NO_CLIP).map_or(NoClip::Absent, |t| NoClip::Noted(t.trim().to_string()))),
        };
        Ok(Bundle {
            scene,
            recording,
            report_text: text(REPORT_TEXT)?,
            report_json: text(REPORT_JSON)?,
            clip,
            about: text(ABOUT).unwrap_or_default(),
        })
    }

    /// Writes the scene and the recording into `dir` (made if missing), for the app to open:
    /// their paths.
    pub fn unpack(&self, dir: &Path) -> Result<(PathBuf, PathBuf), BundleError> {
        std::fs::create_dir_all(dir).map_err(|source| SceneError::Io { path: dir.into(), source })?;
        let (scene, recording) = (dir.join(SCENE), dir.join(RECORDING));
        write_atomic(&scene, self.scene.to_ron().as_bytes())?;
        write_atomic(&recording, &self.recording.to_binary(Default::default()))?;
        Ok((scene, recording))
    }
}

/// Fails now, leaving nothing behind, if a bundle could not be written to `path` later: a zip
/// file as any output, a folder only if it is new, empty or an earlier bundle, in a folder that
/// can be written.
pub fn check(path: &Path) -> Result<(), BundleError> {
    if is_zip_name(path) {
        return Ok(crate::scene::AtomicFile::check(path)?);
    }
    check_folder(path)?;
    let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "case".into());
    let probe = parent.join(format!(".{name}.{}.probe", std::process::id()));
    std::fs::create_dir(&probe).map_err(|e| SceneError::Io {
        path: path.into(),
        source: std::io::Error::new(e.kind(), format!("cannot write in {}: {e}", parent.display())),
    })?;
    let _ = std::fs::remove_dir(&probe);
    Ok(())
}

/// Refuses a folder that holds files but no bundle, or a path that is not a folder.
fn check_folder(dir: &Path) -> Result<(), BundleError> {
    if let Ok(meta) = std::fs::symlink_metadata(dir) {
        let empty = meta.is_dir()
            && std::fs::read_dir(dir).map_err(|source| SceneError::Io { path: dir.into(), source })?.next().is_none();
        if !meta.is_dir() && !meta.file_type().is_symlink() {
            return Err(BundleError::FileNotFolder(dir.into()));
        }
        if !meta.is_dir() || !(empty || dir.join(ABOUT).is_file()) {
            return Err(BundleError::NotABundle(dir.into()));
        }
    }
    Ok(())
}

/// Whether `path` names a bundle: a `.zip` file, or a folder holding a scene and a recording.
pub fn is_bundle(path: &Path) -> bool {
    (is_zip_name(path) && path.is_file()) || (path.join(SCENE).is_file() && path.join(RECORDING).is_file())
}

fn is_zip_name(path: &Path) -> bool {
    path.extension().is_some_and(|e| e.eq_ignore_ascii_case("zip"))
}

/// The files of a bundle's folder that it may hold.
fn read_folder(dir: &Path) -> Result<Vec<(String, Vec<u8>)>, BundleError> {
    let mut files = Vec::new();
    for name in [ABOUT, SCENE, RECORDING, REPORT_TEXT, REPORT_JSON, CLIP, NO_CLIP] {
        let p = dir.join(name);
        if p.exists() {
            let bytes = crate::scene::import::read_regular(&p).map_err(|source| SceneError::Io { path: p, source })?;
            files.push((name.to_string(), bytes));
        }
    }
    Ok(files)
}

/// Every file of a zip archive, each checked against its CRC as it is read.
fn read_zip(path: &Path) -> Result<Vec<(String, Vec<u8>)>, BundleError> {
    let bytes =
        crate::scene::import::read_regular(path).map_err(|source| SceneError::Io { path: path.into(), source })?;
    let damaged = |message: String| BundleError::Damaged { path: path.into(), message };
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).map_err(|e| damaged(e.to_string()))?;
    let mut files = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| damaged(format!("entry {i}: {e}")))?;
        let name = entry.name().map_err(|e| damaged(format!("entry {i}: {e}")))?.into_owned();
        if entry.size() > MAX_ENTRY {
            return Err(damaged(format!("{name} claims {} bytes, more than a bundle holds", entry.size())));
        }
        let mut data = Vec::with_capacity(entry.size() as usize);
        (&mut entry).take(MAX_ENTRY + 1).read_to_end(&mut data).map_err(|e| damaged(format!("{name}: {e}")))?;
        files.push((name, data));
    }
    Ok(files)
}
