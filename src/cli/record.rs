//! `collidoscope record`: a scene stepped into a recording of keyframes and step hashes.

use super::{CliError, Overrides, parse_steps, parse_threads, whole};
use collidoscope::Scene;
use collidoscope::record::{EXTENSION, KeyframeStorage, Recorder, StreamRecorder};
use collidoscope::scene::{AtomicFile, SceneError};
use std::path::PathBuf;

/// The file format of a recording.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Compact, checksummed and compressed, streamed to the file as the run goes.
    Binary,
    /// Readable text, keyframes in full (thousands of times larger).
    Ron,
}

#[derive(clap::Args)]
pub struct RecordArgs {
    pub scene: PathBuf,
    /// Steps to record (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    /// Where to write the recording (`REC.cdrec` for the binary format, `REC.ron` for RON).
    #[arg(short, long, value_name = "REC.cdrec")]
    pub output: PathBuf,
    /// The file format [default: ron for an output ending in .ron, binary otherwise].
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// In the binary format, store each keyframe in full (opens without a re-run, but hundreds
    /// of times larger) rather than a digest that reading the file checks a re-run against.
    #[arg(long)]
    pub full_keyframes: bool,
    /// Take a keyframe snapshot every this many steps.
    #[arg(long, default_value_t = 60, allow_negative_numbers = true, value_parser = parse_keyframe_every)]
    pub keyframe_every: u32,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Threads to step on (default: every core). The results are the same for any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
}

/// Most body states the keyframes of one RON `record` may hold in memory (about 250 MB); a
/// binary recording streams its keyframes to the file instead.
const MAX_KEYFRAME_STATES: u64 = 2_000_000;

fn parse_keyframe_every(s: &str) -> Result<u32, String> {
    whole(s, 1, u32::MAX as u64, "steps").map(|n| n as u32)
}

pub fn record(args: &RecordArgs) -> Result<(), CliError> {
    super::check_outputs(&[&args.scene], &[("--output", Some(&args.output))])?;
    let mut scene = Scene::load(&args.scene)?;
    args.overrides.apply(&mut scene.settings)?;
    let mut world = scene.build()?;
    world.set_threads(args.threads.map_or(0, |n| n as usize));
    super::warn_about_settings(&world);
    let format = args.format.unwrap_or(if args.output.extension().is_some_and(|e| e == "ron") {
        Format::Ron
    } else {
        Format::Binary
    });
    let keyframes = args.steps / args.keyframe_every as u64 + 1;
    let output = AtomicFile::create(&args.output)?;
    if format == Format::Binary {
        let storage = if args.full_keyframes { KeyframeStorage::Full } else { KeyframeStorage::Digest };
        let io = |source| SceneError::Io { path: args.output.clone(), source };
        let mut recorder = StreamRecorder::new(output, &scene, &world, args.keyframe_every, storage).map_err(io)?;
        for _ in 0..args.steps {
            recorder.step(&mut world).map_err(io)?;
        }
        recorder.finish().map_err(io)?.commit()?;
        let note = if args.output.extension().is_some_and(|e| e == EXTENSION) {
            String::new()
        } else {
            format!(" (binary format; .{EXTENSION} is its usual extension)")
        };
        outln!("recorded {} steps ({keyframes} keyframes) to {}{note}", args.steps, args.output.display());
    } else {
        let states = keyframes.saturating_mul(world.bodies().len() as u64);
        if states > MAX_KEYFRAME_STATES {
            let every =
                (args.steps * world.bodies().len() as u64).div_ceil(MAX_KEYFRAME_STATES - world.bodies().len() as u64);
            return Err(format!(
                "{} steps of {} bodies with a keyframe every {} steps would keep {states} body states, more than \
                 the limit of {MAX_KEYFRAME_STATES} for RON: record fewer steps, pass --keyframe-every {every} or \
                 more, or record in the binary format",
                args.steps,
                world.bodies().len(),
                args.keyframe_every
            )
            .into());
        }
        let mut recorder = Recorder::new(&scene, &world, args.keyframe_every);
        for _ in 0..args.steps {
            recorder.step(&mut world);
        }
        let rec = recorder.finish();
        rec.write(output)?;
        outln!("recorded {} steps ({} keyframes) to {}", rec.steps(), rec.keyframes.len(), args.output.display());
    }
    outln!("hash: {:016x}", world.hash());
    Ok(())
}
