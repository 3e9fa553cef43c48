//! Instruction-count driver for `World::step` on a scene file.
//!
//! `step_driver SCENE STEPS [--no-sleep] [--from SNAP.ron] [--save SNAP.ron]` builds the scene
//! (with sleeping off if asked, as the step bench does), restores the snapshot if given, then
//! steps STEPS times and prints the state hash. With `--save` it instead steps until every
//! dynamic body sleeps (at most STEPS) and saves the snapshot there, so that a fully asleep
//! world can be measured without simulating its fall under valgrind:
//! `valgrind --tool=callgrind --toggle-collect='*World::step*' step_driver SCENE 100 --from SNAP.ron`.

use collidoscope::Scene;
use collidoscope::world::Snapshot;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: step_driver SCENE STEPS [--no-sleep] [--from SNAP.ron] [--save SNAP.ron]";
    let (scene, steps) = match (args.first(), args.get(1).and_then(|s| s.parse::<u64>().ok())) {
        (Some(scene), Some(steps)) => (scene, steps),
        _ => return Err(usage.into()),
    };
    let option = |name: &str| args.iter().position(|a| a == name).and_then(|i| args.get(i + 1));
    let mut world = Scene::load(scene).and_then(|s| s.build()).map_err(|e| e.to_string())?;
    if args.iter().any(|a| a == "--no-sleep") {
        let mut settings = world.settings.clone();
        settings.sleeping = false;
        world.set_settings(settings);
    }
    if let Some(path) = option("--from") {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let snap: Snapshot = ron::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        world.restore(&snap).map_err(|e| e.to_string())?;
    }
    if let Some(path) = option("--save") {
        let asleep = |w: &collidoscope::World| w.bodies().iter().all(|b| !b.is_dynamic() || b.is_asleep());
        while !asleep(&world) && world.step_count() < steps {
            world.step();
        }
        if !asleep(&world) {
            return Err(format!("not asleep after {} steps", world.step_count()));
        }
        let text = ron::to_string(&world.snapshot()).map_err(|e| e.to_string())?;
        std::fs::write(path, text).map_err(|e| format!("{path}: {e}"))?;
        println!("asleep at step {}, saved to {path}", world.step_count());
        return Ok(());
    }
    let t = std::time::Instant::now();
    for _ in 0..steps {
        world.step();
    }
    let ms = t.elapsed().as_secs_f64() * 1e3 / steps.max(1) as f64;
    println!("{steps} steps, {ms:.4} ms a step, hash {:016x}", world.hash());
    Ok(())
}
