//! `collidoscope clip`: a scene or recording rendered over a range of steps into an animated GIF
//! or a PNG sequence (see `collidoscope::app::clip`).

use super::{CliError, parse_assignment, parse_dims, parse_steps};
use collidoscope::clip::ClipOutput;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ClipArgs {
    /// A scene file, or a recording (binary or RON) to replay.
    pub case: PathBuf,
    /// The GIF to write (`case.gif`), or a folder for a PNG sequence (`frames/`, or with --png).
    #[arg(short, long, value_name = "OUT.gif|DIR/")]
    pub output: PathBuf,
    /// Write numbered PNGs (frame_0000.png, …) into the folder `-o` names.
    #[arg(long)]
    pub png: bool,
    /// The first step shown (0: the scene as built).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = parse_steps)]
    pub from: u64,
    /// The last step shown (default: a recording's end, or 120 steps after --from for a scene).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_steps)]
    pub to: Option<u64>,
    /// Steps between two frames.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_every)]
    pub every: u64,
    /// The camera: `--camera EX,EY,EZ,TX,TY,TZ` (metres; default: the scene's camera, else the
    /// moving bodies framed at the first and last frames).
    #[arg(long, value_name = "EYE,TARGET", allow_hyphen_values = true, value_parser = super::app::parse_camera)]
    pub camera: Option<collidoscope::scene::CameraDesc>,
    /// The frames' size in pixels.
    #[arg(long, value_name = "WIDTHxHEIGHT", default_value = "640x360", value_parser = parse_clip_size)]
    pub size: [u32; 2],
    /// Frames per second, 1 to 50 (default: real time, as far as 50 allows).
    #[arg(long, allow_negative_numbers = true, value_parser = parse_fps)]
    pub fps: Option<u32>,
    /// Turn a debug layer on (as for the app); repeat for several.
    #[arg(long = "layer", value_name = "NAME")]
    pub layers: Vec<String>,
    /// Draw static bodies (floors, walls, terrain) see-through, as the app's X does.
    #[arg(long)]
    pub see_through: bool,
    /// Change a setting of a scene, e.g. `--set ccd=Off`; repeat for several.
    #[arg(long = "set", value_name = "FIELD=VALUE", value_parser = parse_assignment)]
    pub sets: Vec<(String, String)>,
}

fn parse_every(s: &str) -> Result<u64, String> {
    super::whole(s, 1, 1_000_000, "steps")
}

fn parse_fps(s: &str) -> Result<u32, String> {
    super::whole(s, 1, collidoscope::clip::MAX_FPS as u64, "frames per second").map(|n| n as u32)
}

/// A clip's frame size: 16 to 4096 pixels a side.
fn parse_clip_size(s: &str) -> Result<[u32; 2], String> {
    parse_dims(s, [16, 16], 4096)
}

#[cfg(feature = "gui")]
pub fn run(args: &ClipArgs) -> Result<(), CliError> {
    super::check_outputs(&[&args.case], &[("--output", Some(&args.output))])?;
    let output = ClipOutput::from_path(&args.output, args.png).map_err(collidoscope::app::AppError::from)?;
    let opts = collidoscope::app::clip::ClipOptions {
        case: args.case.clone(),
        output,
        from: args.from,
        to: args.to,
        every: args.every,
        camera: args.camera,
        size: args.size,
        fps: args.fps,
        layers: args.layers.clone(),
        see_through_statics: args.see_through,
        sets: args.sets.clone(),
    };
    let s = collidoscope::app::clip::record_clip(&opts)?;
    outln!(
        "wrote {} frames (steps {} to {}, every {}; {} ms apart) to {}",
        s.frames,
        s.range.from,
        s.range.last(),
        s.range.every,
        s.delay_cs as u32 * 10,
        args.output.display()
    );
    Ok(())
}

#[cfg(not(feature = "gui"))]
pub fn run(_args: &ClipArgs) -> Result<(), CliError> {
    let _ = (ClipOutput::from_path, parse_dims, parse_assignment);
    Err("clip renders through the app's window: this build has none (built without the `gui` feature)".into())
}
