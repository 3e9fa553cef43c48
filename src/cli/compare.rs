//! `run --engine` and `compare`: a scene stepped by Collidoscope or by rapier3d, and both
//! engines' figures side by side.

use super::{CliError, Overrides, parse_steps, parse_threads};
#[cfg(feature = "rapier")]
use collidoscope::stepper::Stepper;
use std::path::PathBuf;
#[cfg(feature = "rapier")]
use {super::run::median_max, collidoscope::Scene, collidoscope::math::Real};

#[derive(clap::Args)]
pub struct CompareArgs {
    pub scene: PathBuf,
    /// Steps to simulate in each engine (at most 1,000,000).
    #[arg(long, default_value_t = 600, allow_negative_numbers = true, value_parser = parse_steps)]
    pub steps: u64,
    #[command(flatten)]
    pub overrides: Overrides,
    /// Threads Collidoscope steps on (default: one, as rapier3d here). The results are the same for
    /// any count.
    #[arg(long, value_name = "N", allow_negative_numbers = true, value_parser = parse_threads)]
    pub threads: Option<u32>,
}

/// The value at fraction `q` of the sorted values (nearest rank).
#[cfg(feature = "rapier")]
fn quantile(v: &[f64], q: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() { 0.0 } else { v[((v.len() - 1) as f64 * q).round() as usize] }
}

#[cfg(not(feature = "rapier"))]
pub fn compare(_args: &CompareArgs) -> Result<(), CliError> {
    Err("this build has no rapier3d (built without the `rapier` feature)".into())
}

/// One engine's run: per-step times, stability figures, and the end state.
#[cfg(feature = "rapier")]
struct Outcome {
    ms: Vec<f64>,
    stability: collidoscope::peer::Stability,
    end: Vec<collidoscope::Body>,
    hash: u64,
    /// The widest any joint's anchors came apart over the run, and the most all of them were
    /// apart at once (a chain's stretch), m.
    joint_gaps: (Real, Real),
}

#[cfg(feature = "rapier")]
fn simulate(mut engine: Stepper, steps: u64) -> Outcome {
    use collidoscope::peer::StabilityTracker;
    let dt = engine.world().settings.dt as f64;
    let mut tracker = StabilityTracker::new(engine.world().bodies(), engine.world().settings.gravity);
    let mut ms = Vec::with_capacity(steps as usize);
    let mut joint_gaps: (Real, Real) = (0.0, 0.0);
    for k in 1..=steps {
        engine.step();
        ms.push(engine.profile().total_ms);
        let w = engine.world();
        tracker.observe(w.bodies(), k as f64 * dt, engine.penetration());
        let gaps = (0..w.joints().len()).map(|j| w.joint_report(j).linear_error);
        let (widest, sum) = gaps.fold((0.0, 0.0), |(m, s): (Real, Real), g| (m.max(g), s + g));
        joint_gaps = (joint_gaps.0.max(widest), joint_gaps.1.max(sum));
    }
    let (stability, end, hash) = (tracker.finish(), engine.world().bodies().to_vec(), engine.world().hash());
    Outcome { ms, stability, end, hash, joint_gaps }
}

#[cfg(feature = "rapier")]
pub fn compare(args: &CompareArgs) -> Result<(), CliError> {
    use collidoscope::engine::Engine;
    let scene = Scene::load(&args.scene)?;
    let mut settings = scene.settings.clone();
    args.overrides.apply(&mut settings)?;
    let mut world = scene.build()?;
    world.set_settings(settings);
    super::warn_about_settings(&world);
    // One thread unless asked: the peer engines run on one here, so the times compare like for like.
    world.set_threads(args.threads.map_or(1, |n| n as usize));
    let n = world.bodies().len();
    let threads = world.threads();
    let s = world.settings.clone();
    // One engine after the other, so none shares the cores or the caches with another. A peer
    // engine that refuses the scene (a shape or a joint it cannot build, named) is left out and
    // said so; the others still compare.
    let jointed = !world.joints().is_empty();
    let mut runs: Vec<(Engine, Outcome)> = Vec::new();
    let mut refused: Vec<String> = Vec::new();
    for &e in Engine::ALL {
        match Stepper::new(e, world.clone()) {
            Ok(stepper) => runs.push((e, simulate(stepper, args.steps))),
            Err(why) if e != Engine::Collidoscope => refused.push(format!("{} ({why})", e.label())),
            Err(why) => return Err(why.to_string().into()),
        }
    }

    outln!(
        "scene: {} ({n} bodies), {} steps of {:.4} s = {:.2} s simulated, {} substeps x {} iterations",
        if scene.name.is_empty() { "unnamed" } else { &scene.name },
        args.steps,
        s.dt,
        args.steps as f64 * s.dt as f64,
        s.substeps,
        s.iterations
    );
    let peers: Vec<&str> = runs[1..].iter().map(|(e, _)| e.label()).collect();
    let peers =
        if peers.is_empty() { "no peer engine".to_string() } else { format!("{} on one each", peers.join(" and ")) };
    outln!("collidoscope on {threads} thread{}, {peers}", if threads == 1 { "" } else { "s" });
    let cells = |f: &dyn Fn(&Outcome) -> String| runs.iter().map(|(_, o)| format!(" {:>16}", f(o))).collect::<String>();
    let head: String = runs.iter().map(|(e, _)| format!(" {:>16}", e.cli_name())).collect();
    outln!("{:<30}{head}", "");
    let ours = median_max(&mut runs[0].1.ms.clone()).0;
    // A world asleep steps in microseconds: shown to four places its median read 0.0000 beside a
    // ratio of 58, so small times get six.
    let ms_text = |ms: f64| if ms > 0.0 && ms < 0.01 { format!("{ms:.6}") } else { format!("{ms:.4}") };
    let ms_row = |name: &str, f: &dyn Fn(&Outcome) -> f64| outln!("{name:<30}{}", cells(&|o| ms_text(f(o))));
    ms_row("ms per step, median", &|o| median_max(&mut o.ms.clone()).0);
    ms_row("ms per step, p90", &|o| quantile(&o.ms, 0.9));
    let ratio = |o: &Outcome| {
        let m = median_max(&mut o.ms.clone()).0;
        if ours > 0.0 { format!("{:.2}", m / ours) } else { "-".into() }
    };
    outln!("{:<30}{}", "median / collidoscope's", cells(&ratio));
    let row = |name: &str, f: &dyn Fn(&collidoscope::peer::Stability) -> Real| {
        outln!("{name:<30}{}", cells(&|o| format!("{:.6}", f(&o.stability))))
    };
    row("max displacement m", &|s| s.max_displacement);
    row("max horizontal drift m", &|s| s.max_horizontal_drift);
    row("max out-of-plane drift m", &|s| s.max_out_of_plane);
    row("max tilt deg", &|s| s.max_tilt_deg);
    let asleep = |o: &Outcome| o.stability.all_asleep_at.map_or("never".to_string(), |t| format!("{t:.4}"));
    outln!("{:<30}{}", "all asleep at s", cells(&asleep));
    row("resting speed m/s", &|s| s.resting_speed);
    row("max penetration m", &|s| s.max_penetration);
    if jointed {
        outln!("{:<30}{}", "joint gap, widest m", cells(&|o| format!("{:.6}", o.joint_gaps.0)));
        outln!("{:<30}{}", "joint gaps summed, most m", cells(&|o| format!("{:.6}", o.joint_gaps.1)));
    }
    if !refused.is_empty() {
        outln!("not run: {}", refused.join("; "));
    }
    outln!("{:<30}{}", "hash", cells(&|o| format!("{:016x}", o.hash)));
    let diverge = |o: &Outcome| collidoscope::peer::divergence(&runs[0].1.end, &o.end);
    outln!("{:<30}{}", "divergence from ours, max m", cells(&|o| format!("{:.6}", diverge(o).0)));
    outln!("{:<30}{}", "divergence from ours, mean m", cells(&|o| format!("{:.6}", diverge(o).1)));
    Ok(())
}
