//! `run --engine` and `compare`: a scene stepped by Collidoscope or by rapier3d, and both
//! engines' figures side by side.

use super::{CliError, Overrides, parse_steps, parse_threads};
use collidoscope::{StepProfile, World};
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

/// One engine stepping a scene.
pub enum Stepper {
    Collidoscope(Box<World>),
    #[cfg(feature = "rapier")]
    Rapier(Box<collidoscope::peer::RapierWorld>),
}

impl Stepper {
    /// `engine` is a `--engine` name; `world` is the scene built with its settings.
    pub fn new(engine: &str, world: World) -> Result<Stepper, CliError> {
        match engine {
            "collidoscope" => Ok(Stepper::Collidoscope(Box::new(world))),
            // rapier3d would run the scene without its joints: refuse rather than compare unlike
            // worlds.
            #[cfg(feature = "rapier")]
            "rapier" if !world.joints().is_empty() => Err(format!(
                "the scene has {} joints, and joints are not mapped onto rapier3d: run it with --engine collidoscope",
                world.joints().len()
            )
            .into()),
            #[cfg(feature = "rapier")]
            "rapier" => Ok(Stepper::Rapier(Box::new(collidoscope::peer::RapierWorld::from_world(&world)))),
            #[cfg(not(feature = "rapier"))]
            "rapier" => Err("this build has no rapier3d (built without the `rapier` feature)".into()),
            other => Err(format!("unknown engine {other:?}; choose collidoscope or rapier").into()),
        }
    }

    pub fn step(&mut self) {
        match self {
            Stepper::Collidoscope(w) => w.step(),
            #[cfg(feature = "rapier")]
            Stepper::Rapier(r) => r.step(),
        }
    }

    pub fn profile(&self) -> &StepProfile {
        match self {
            Stepper::Collidoscope(w) => w.profile(),
            #[cfg(feature = "rapier")]
            Stepper::Rapier(r) => r.profile(),
        }
    }

    /// The bodies after the last step (for rapier, its state read back into a world).
    pub fn world(&self) -> &World {
        match self {
            Stepper::Collidoscope(w) => w,
            #[cfg(feature = "rapier")]
            Stepper::Rapier(r) => r.world(),
        }
    }

    pub fn label(&self) -> &'static str {
        match self {
            Stepper::Collidoscope(_) => "Collidoscope",
            #[cfg(feature = "rapier")]
            Stepper::Rapier(_) => "rapier3d 0.36 (scene mapped onto it)",
        }
    }

    /// The deepest penetration among the current contacts, m.
    #[cfg(feature = "rapier")]
    fn penetration(&self) -> Real {
        match self {
            Stepper::Collidoscope(w) => collidoscope::peer::collidoscope_penetration(w),
            Stepper::Rapier(r) => r.max_penetration(),
        }
    }
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
}

#[cfg(feature = "rapier")]
fn simulate(mut engine: Stepper, steps: u64) -> Outcome {
    use collidoscope::peer::StabilityTracker;
    let dt = engine.world().settings.dt as f64;
    let mut tracker = StabilityTracker::new(engine.world().bodies(), engine.world().settings.gravity);
    let mut ms = Vec::with_capacity(steps as usize);
    for k in 1..=steps {
        engine.step();
        ms.push(engine.profile().total_ms);
        tracker.observe(engine.world().bodies(), k as f64 * dt, engine.penetration());
    }
    Outcome { ms, stability: tracker.finish(), end: engine.world().bodies().to_vec(), hash: engine.world().hash() }
}

#[cfg(feature = "rapier")]
pub fn compare(args: &CompareArgs) -> Result<(), CliError> {
    let scene = Scene::load(&args.scene)?;
    let mut settings = scene.settings.clone();
    args.overrides.apply(&mut settings)?;
    let mut world = scene.build()?;
    world.set_settings(settings);
    // One thread unless asked: rapier3d runs on one here, so the times compare like for like.
    world.set_threads(args.threads.map_or(1, |n| n as usize));
    let n = world.bodies().len();
    let threads = world.threads();
    let s = world.settings.clone();
    // One engine after the other, so neither shares the cores or the caches with the other.
    let a = simulate(Stepper::new("collidoscope", world.clone())?, args.steps);
    let b = simulate(Stepper::new("rapier", world)?, args.steps);

    outln!(
        "scene: {} ({n} bodies), {} steps of {:.4} s = {:.2} s simulated, {} substeps x {} iterations",
        if scene.name.is_empty() { "unnamed" } else { &scene.name },
        args.steps,
        s.dt,
        args.steps as f64 * s.dt as f64,
        s.substeps,
        s.iterations
    );
    outln!("collidoscope on {threads} thread{}, rapier3d on one", if threads == 1 { "" } else { "s" });
    outln!("{:<30} {:>14} {:>14} {:>14}", "", "collidoscope", "rapier", "rapier/collid.");
    let row3 = |name: &str, x: f64, y: f64| {
        let ratio = if x > 0.0 { format!("{:.2}", y / x) } else { "-".into() };
        outln!("{name:<30} {x:>14.4} {y:>14.4} {ratio:>14}");
    };
    row3("ms per step, median", median_max(&mut a.ms.clone()).0, median_max(&mut b.ms.clone()).0);
    row3("ms per step, p90", quantile(&a.ms, 0.9), quantile(&b.ms, 0.9));
    let (sa, sb) = (a.stability, b.stability);
    let row = |name: &str, x: Real, y: Real| outln!("{name:<30} {x:>14.6} {y:>14.6}");
    row("max displacement m", sa.max_displacement, sb.max_displacement);
    row("max horizontal drift m", sa.max_horizontal_drift, sb.max_horizontal_drift);
    row("max out-of-plane drift m", sa.max_out_of_plane, sb.max_out_of_plane);
    row("max tilt deg", sa.max_tilt_deg, sb.max_tilt_deg);
    let asleep = |t: Option<f64>| t.map_or("never".to_string(), |t| format!("{t:.4}"));
    outln!("{:<30} {:>14} {:>14}", "all asleep at s", asleep(sa.all_asleep_at), asleep(sb.all_asleep_at));
    row("resting speed m/s", sa.resting_speed, sb.resting_speed);
    row("max penetration m", sa.max_penetration, sb.max_penetration);
    outln!("{:<30} {:>14} {:>14}", "hash", format!("{:016x}", a.hash), format!("{:016x}", b.hash));
    let (max, mean) = collidoscope::peer::divergence(&a.end, &b.end);
    outln!("divergence after {} steps: max {max:.6} m, mean {mean:.6} m", args.steps);
    Ok(())
}
