//! `collidoscope shrink`: a scene cut down, body by body, to the fewest bodies that still show
//! an event (see `collidoscope::diagnose::shrink`).

use super::{CliError, Overrides, parse_choice, parse_steps};
use collidoscope::Scene;
use collidoscope::diagnose::{Symptom, shrink};
use collidoscope::scene::AtomicFile;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct ShrinkArgs {
    pub scene: PathBuf,
    /// The event to keep: tunneling, passing, jitter, energy_gain, deep_penetration, explosion,
    /// non_finite, ghost_bump or far_from_origin.
    #[arg(long, value_name = "KIND", value_parser = parse_symptom)]
    pub event: Symptom,
    /// Keep the event for this body (its index with generators expanded).
    #[arg(long, value_name = "N")]
    pub body: Option<u32>,
    /// Steps each run may take to show the event.
    #[arg(long, default_value_t = 300, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    /// Where to write the smallest scene found.
    #[arg(short, long, value_name = "OUT.ron")]
    pub output: PathBuf,
    #[command(flatten)]
    pub overrides: Overrides,
}

fn parse_symptom(s: &str) -> Result<Symptom, String> {
    parse_choice(&Symptom::ALL, Symptom::cli_name, s)
}

pub fn run(args: &ShrinkArgs) -> Result<(), CliError> {
    super::check_outputs(&[&args.scene], &[("--output", Some(&args.output))])?;
    let mut scene = Scene::load(&args.scene)?;
    args.overrides.apply(&mut scene.settings)?;
    AtomicFile::check(&args.output)?;
    let before = scene.expanded_bodies().len();
    let s = shrink(&scene, args.event, args.body, args.steps)
        .map_err(|e| CliError::Usage(format!("{}: {e}", args.scene.display())))?;
    s.scene.save(&args.output)?;
    let kept: Vec<String> = s.kept.iter().map(|k| k.to_string()).collect();
    let cure = s.cure.as_ref().map_or(String::new(), |c| format!(", which {} removes", c.describe()));
    outln!(
        "{} bodies of {before} keep the {} event (at step {}) and its cause ({}{cure}) after {} runs: bodies {} of \
         the original",
        s.scene.bodies.len(),
        args.event.label(),
        s.step,
        s.cause.label(),
        s.runs,
        kept.join(", ")
    );
    outln!("wrote {}", args.output.display());
    Ok(())
}
