//! No subcommand: the app, opened on a scene.

use super::{CliError, parse_assignment, whole};
#[cfg(feature = "gui")]
use collidoscope::{app::AppError, scene::AtomicFile};
use std::path::{Path, PathBuf};

/// What opens the app (no subcommand).
#[derive(clap::Args)]
pub struct AppArgs {
    /// Scene to open in the app (default: scenes/default.ron).
    pub scene: Option<PathBuf>,
    /// Render, save a PNG of the window to this file, and exit.
    #[arg(long, value_name = "OUT.png")]
    pub screenshot: Option<PathBuf>,
    /// Frames to simulate and render before the screenshot.
    #[arg(long, default_value_t = 120, allow_negative_numbers = true, value_parser = parse_frames)]
    pub frames: u32,
    /// Open side by side from the scene's start: B with this setting changed (RON value, as for
    /// `run --set`), A as the scene has it. Repeat for several settings, e.g.
    /// `--compare ccd=Toi --compare substeps=8`. `--compare engine=rapier` (or `engine=jolt`) puts
    /// rapier3d (or Jolt Physics) on the B side instead (the other changes then apply to both).
    #[arg(long = "compare", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    pub compare: Vec<(String, String)>,
    /// Bring a panel forward (scenes, settings, profiler, inspector, view, sweep, diagnose, pair,
    /// ray, tests, timeline); repeat for several.
    #[arg(long = "show", value_name = "PANEL")]
    pub show: Vec<String>,
    /// Open in presentation mode: the view, the play controls and the first `--show` panel.
    #[arg(long)]
    pub presentation: bool,
    /// Select this body (its index in the scene) when the app opens.
    #[arg(long, value_name = "INDEX", allow_negative_numbers = true, value_parser = parse_select)]
    pub select: Option<usize>,
    /// Turn a debug layer on (aabbs, contact_points, contact_normals, contact_forces, velocities, broad_phase,
    /// candidate_pairs, ccd, narrow_phase, mesh, grid, axes, trails, joints); repeat for several.
    #[arg(long = "layer", value_name = "NAME")]
    pub layers: Vec<String>,
    /// Draw static bodies (floors, walls, terrain) see-through, as the key X does.
    #[arg(long)]
    pub see_through: bool,
    /// Change a setting of the opened scene, as `run --set` does, e.g. `--set
    /// internal_edges=None`; repeat for several. With `--compare`, both sides start from it.
    #[arg(long = "set", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    pub sets: Vec<(String, String)>,
    /// Start the camera at an eye looking at a target, over the scene's camera:
    /// `--camera EX,EY,EZ,TX,TY,TZ` (metres).
    #[arg(long, value_name = "EYE,TARGET", allow_hyphen_values = true, value_parser = parse_camera)]
    pub camera: Option<collidoscope::scene::CameraDesc>,
    /// The window's inner size in points, e.g. `--size 1280x720` for a projector (default
    /// 1600x1000).
    #[arg(long, value_name = "WIDTHxHEIGHT", value_parser = parse_size)]
    pub size: Option<[f32; 2]>,
    /// Open a guided lesson (lessons/*.ron) instead of a scene: its scene, its first step.
    #[arg(long, value_name = "FILE", conflicts_with = "scene")]
    pub lesson: Option<PathBuf>,
    /// With --lesson: start at this step (from 1), the earlier steps run to their stops.
    #[arg(long, value_name = "N", requires = "lesson", value_parser = parse_step)]
    pub step: Option<usize>,
}

fn parse_step(s: &str) -> Result<usize, String> {
    whole(s, 1, collidoscope::lesson::MAX_STEPS as u64, "(a step, from 1)").map(|n| n as usize)
}

/// `1280x720` as a window size: at least the window's smallest (800x500), at most 16384 a side.
fn parse_size(s: &str) -> Result<[f32; 2], String> {
    super::parse_dims(s, [800, 500], 16384).map(|[w, h]| [w as f32, h as f32])
}

/// `EX,EY,EZ,TX,TY,TZ` as a camera: six finite numbers, the eye apart from the target.
pub(super) fn parse_camera(s: &str) -> Result<collidoscope::scene::CameraDesc, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|x| x.trim().parse::<f32>().map_err(|e| format!("{x:?} is not a number: {e}")))
        .collect::<Result<_, _>>()?;
    if v.len() != 6 || v.iter().any(|x| !x.is_finite()) {
        return Err(format!("expected six finite numbers EX,EY,EZ,TX,TY,TZ, got {s:?}"));
    }
    use collidoscope::math::Vec3;
    let (eye, target) = (Vec3::new(v[0], v[1], v[2]), Vec3::new(v[3], v[4], v[5]));
    if eye.distance(target) < 1e-3 {
        return Err(format!("the eye {eye} is at the target"));
    }
    Ok(collidoscope::scene::CameraDesc { eye, target })
}

fn parse_frames(s: &str) -> Result<u32, String> {
    whole(s, 0, u32::MAX as u64, "frames").map(|n| n as u32)
}

fn parse_select(s: &str) -> Result<usize, String> {
    whole(s, 0, collidoscope::scene::MAX_BODIES - 1, "(a body's index)").map(|n| n as usize)
}

/// `scenes/default.ron` in the working directory, or else beside the crate's manifest.
fn default_scene() -> PathBuf {
    let local = PathBuf::from("scenes/default.ron");
    if local.exists() { local } else { Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron") }
}

#[cfg(feature = "gui")]
pub fn open_app(args: AppArgs) -> Result<(), CliError> {
    let AppArgs {
        scene,
        screenshot,
        frames,
        compare,
        show,
        presentation,
        select,
        layers,
        see_through,
        sets,
        camera,
        size,
        lesson,
        step,
    } = args;
    // clap's `requires` does not hold for an argument of the command with no subcommand.
    if step.is_some() && lesson.is_none() {
        return Err(CliError::Usage("--step N opens a lesson at step N: give the lesson with --lesson FILE".into()));
    }
    // The screenshot is written after the frames are rendered: a path it cannot go to fails now.
    if let Some(out) = &screenshot {
        AtomicFile::check(out)?;
        if !out.extension().is_some_and(|e| e.eq_ignore_ascii_case("png")) {
            return Err(CliError::Usage(format!(
                "--screenshot {}: the picture is a PNG; give a file name ending in .png",
                out.display()
            )));
        }
    }
    let reopen_last = scene.is_none() && screenshot.is_none() && lesson.is_none();
    let bundle = scene.as_ref().filter(|p| collidoscope::bundle::is_bundle(p)).cloned();
    let scene = scene.unwrap_or_else(default_scene);
    let show = show
        .iter()
        .map(|p| p.parse())
        .collect::<Result<Vec<_>, collidoscope::app::UnknownPanel>>()
        .map_err(AppError::from)?;
    let options = collidoscope::app::AppOptions {
        scene,
        screenshot,
        frames,
        reopen_last,
        compare,
        show,
        presentation,
        select,
        layers,
        see_through_statics: see_through,
        sets,
        camera,
        size,
        lesson: lesson.map(|l| (l, step.unwrap_or(1) - 1)),
        recording: None,
    };
    // A case bundle given as the scene opens as `collidoscope open` does, with the other options.
    if let Some(p) = bundle {
        if let Some(option) = [(!options.compare.is_empty(), "--compare"), (!options.sets.is_empty(), "--set")]
            .into_iter()
            .find_map(|(given, name)| given.then_some(name))
        {
            return Err(CliError::Usage(format!(
                "{}: a case bundle opens with its recording on the timeline, which replays the recorded settings; \
                 {option} changes a scene (unpack the bundle and give its scene.ron)",
                p.display()
            )));
        }
        return open_bundle_with(&p, options);
    }
    collidoscope::app::run(options).map_err(CliError::from)
}

/// `collidoscope open BUNDLE`: the bundle read and checked, then the app with its scene and its
/// recording on the timeline. A zip's two files are unpacked into a temporary folder that is
/// removed when the app closes.
#[cfg(feature = "gui")]
pub fn open_bundle(path: &Path) -> Result<(), CliError> {
    open_bundle_with(path, collidoscope::app::AppOptions::default())
}

/// [`open_bundle`] with the app's other options (a screenshot, panels, layers, a camera…); their
/// scene and recording are the bundle's.
#[cfg(feature = "gui")]
fn open_bundle_with(path: &Path, options: collidoscope::app::AppOptions) -> Result<(), CliError> {
    let bundle = collidoscope::bundle::Bundle::read(path).map_err(|e| CliError::Usage(e.to_string()))?;
    let (dir, temporary) = if path.is_dir() {
        (path.to_path_buf(), false)
    } else {
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "case".into());
        (std::env::temp_dir().join(format!("collidoscope-{stem}-{}", std::process::id())), true)
    };
    let (scene, recording) = if temporary {
        bundle.unpack(&dir).map_err(|e| CliError::Usage(e.to_string()))?
    } else {
        (dir.join(collidoscope::bundle::SCENE), dir.join(collidoscope::bundle::RECORDING))
    };
    outln!("{}", bundle.about.trim_end());
    let opened = collidoscope::app::run(collidoscope::app::AppOptions {
        scene,
        recording: Some(recording),
        reopen_last: false,
        lesson: None,
        ..options
    });
    if temporary {
        let _ = std::fs::remove_dir_all(&dir);
    }
    opened.map_err(CliError::from)
}

#[cfg(not(feature = "gui"))]
pub fn open_bundle(path: &Path) -> Result<(), CliError> {
    collidoscope::bundle::Bundle::read(path).map_err(|e| CliError::Usage(e.to_string()))?;
    Err(format!(
        "{} is a readable case bundle, but this build has no window (built without the `gui` feature); `collidoscope replay` checks a recording",
        path.display()
    )
    .into())
}

#[cfg(not(feature = "gui"))]
pub fn open_app(_args: AppArgs) -> Result<(), CliError> {
    let _ = default_scene;
    Err("this build has no window (built without the `gui` feature); use `collidoscope run SCENE`".into())
}
