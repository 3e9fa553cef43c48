//! `collidoscope record`: a scene stepped into a recording of keyframes and step hashes.

use super::{CliError, Overrides, parse_steps, parse_threads, whole};
use collidoscope::Scene;
use collidoscope::record::Recorder;
use collidoscope::scene::AtomicFile;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct RecordArgs {
    pub scene: PathBuf,
    /// Steps to record (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    /// Where to write the recording.
    #[arg(short, long, value_name = "REC.ron")]
    pub output: PathBuf,
    /// Take a keyframe snapshot every this many steps.
    #[arg(long, default_value_t = 60, allow_negative_numbers = true, value_parser = parse_keyframe_every)]
    pub keyframe_every: u32,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Threads to step on (default: every core). The results are the same for any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
}

/// Most body states the keyframes of one `record` may hold (about 250 MB in memory).
const MAX_KEYFRAME_STATES: u64 = 2_000_000;

fn parse_keyframe_every(s: &str) -> Result<u32, String> {
    whole(s, 1, u32::MAX as u64, "steps").map(|n| n as u32)
}

pub fn record(args: &RecordArgs) -> Result<(), CliError> {
    let mut scene = Scene::load(&args.scene)?;
    args.overrides.apply(&mut scene.settings)?;
    let mut world = scene.build()?;
    world.set_threads(args.threads.map_or(0, |n| n as usize));
    let keyframes = args.steps / args.keyframe_every as u64 + 1;
    let states = keyframes.saturating_mul(world.bodies().len() as u64);
    if states > MAX_KEYFRAME_STATES {
        let every =
            (args.steps * world.bodies().len() as u64).div_ceil(MAX_KEYFRAME_STATES - world.bodies().len() as u64);
        return Err(format!(
            "{} steps of {} bodies with a keyframe every {} steps would keep {states} body states, more than the \
             limit of {MAX_KEYFRAME_STATES}: record fewer steps or pass --keyframe-every {every} or more",
            args.steps,
            world.bodies().len(),
            args.keyframe_every
        )
        .into());
    }
    let output = AtomicFile::create(&args.output)?;
    let mut recorder = Recorder::new(&scene, &world, args.keyframe_every);
    for _ in 0..args.steps {
        recorder.step(&mut world);
    }
    let rec = recorder.finish();
    rec.write(output)?;
    println!("recorded {} steps ({} keyframes) to {}", rec.steps(), rec.keyframes.len(), args.output.display());
    println!("hash: {:016x}", world.hash());
    Ok(())
}
