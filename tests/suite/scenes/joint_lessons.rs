//! Issue 35's jointed lesson scenes: the rope bridge, the ragdoll on the stairs and the car on
//! the ramp run stable at the defaults (finite, bounded speeds, where their descriptions say
//! they end up), and every jointed scene's recording replays bit for bit on 1 and 2 threads.

use collidoscope::record::{Recorder, Recording};
use collidoscope::{Scene, World};
use std::path::PathBuf;

fn load(name: &str) -> (Scene, World) {
    let scene = Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let world = scene.build().unwrap();
    (scene, world)
}

fn body(w: &World, name: &str) -> usize {
    w.bodies().iter().position(|b| b.name.as_deref() == Some(name)).unwrap()
}

/// The fastest dynamic body's speed, m/s (infinite for a non-finite state).
fn fastest(w: &World) -> f32 {
    w.bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| if b.pose.translation.is_finite() && b.linvel.is_finite() { b.linvel.length() } else { f32::INFINITY })
        .fold(0.0, f32::max)
}

#[test]
fn the_rope_bridge_sags_below_its_posts_and_settles_with_the_crate_on_it() {
    let (_, mut w) = load("rope_bridge.ron");
    let planks: Vec<usize> = (1..=10).map(|i| body(&w, &format!("plank {i}"))).collect();
    let crate_ = body(&w, "crate");
    let post_top = 2.0;
    let mut worst = 0.0f32;
    for step in 1..=900 {
        w.step();
        let v = fastest(&w);
        assert!(v < 10.0, "step {step}: a body at {v} m/s");
        for &p in &planks {
            let y = w.bodies()[p].pose.translation.y;
            assert!(y < post_top && y > 0.8, "step {step}: plank #{p} at height {y}");
        }
        for k in 0..w.joints().len() {
            worst = worst.max(w.joint_report(k).linear_error);
        }
    }
    // The middle hangs lowest: a sag, not a straight plank walk.
    let y = |i: usize| w.bodies()[planks[i]].pose.translation.y;
    assert!(y(0) - y(4) > 0.4 && y(9) - y(5) > 0.4, "ends {} {}, middle {} {}", y(0), y(9), y(4), y(5));
    let c = w.bodies()[crate_].pose.translation;
    assert!(c.x.abs() < 0.6 && c.z.abs() < 0.4 && c.y > 1.0 && c.y < 1.6, "the crate rests on the middle: {c}");
    // Ropes have no damping of their own: the bridge still sways, slowly.
    assert!(fastest(&w) < 0.15, "swaying under 15 cm/s after 15 s: {} m/s", fastest(&w));
    assert!(worst < 0.02, "no rope stretched past its 9 cm by 2 cm: {worst} m");
}

#[test]
fn the_ragdoll_lands_on_the_stairs_and_settles() {
    let (scene, mut w) = load("ragdoll.ron");
    assert!(scene.bodies.len() >= 5, "the floor and its four steps");
    // Kinetic plus potential energy, J.
    let energy = |w: &World| {
        let g = w.settings.gravity;
        w.kinetic_energy()
            - w.bodies().iter().filter(|b| b.is_dynamic()).map(|b| b.mass() * g.dot(b.pose.translation)).sum::<f32>()
    };
    let (mut lowest, mut rise) = (f32::MAX, 0.0f32);
    for step in 1..=900 {
        w.step();
        let v = fastest(&w);
        assert!(v < 12.0, "step {step}: a body at {v} m/s");
        // From 10 s on it has landed: a joint or contact that jitters feeds energy in; a limb
        // left hanging off a step may still swing on its frictionless joints, trading speed
        // for height.
        if step > 600 {
            let e = energy(&w);
            rise = rise.max(e - lowest);
            lowest = lowest.min(e);
        }
    }
    assert!(rise < 1.0, "the energy rose {rise} J above its lowest in the last 5 s");
    assert!(w.kinetic_energy() < 2.0, "at rest or swinging gently after 15 s: {} J", w.kinetic_energy());
    // The trunk (hips, belly, chest and head, the generator's first four bodies) lies still.
    let first = w.bodies().iter().position(|b| b.is_dynamic()).unwrap();
    for (i, b) in w.bodies().iter().enumerate().skip(first).take(4) {
        assert!(b.linvel.length() < 0.05, "#{i} of the trunk at {} m/s after 15 s", b.linvel.length());
    }
    for (i, b) in w.bodies().iter().enumerate().filter(|(_, b)| b.is_dynamic()) {
        let p = b.pose.translation;
        assert!(p.y > 0.0 && p.x > -4.0 && p.x < 2.0, "#{i} {:?} ended at {p}", b.name);
    }
    for k in 0..w.joints().len() {
        let r = w.joint_report(k);
        assert!(r.linear_error < 0.01, "joint {k} open by {} m at rest", r.linear_error);
    }
}

#[test]
fn with_exact_joint_trees_no_limb_of_the_ragdoll_passes_through_another() {
    // The rigid anchors of the exact tree solve must not drive one limb through another (the
    // shins and thighs are not jointed to each other and collide). Watched with the Passings
    // detector the diagnose command uses, over the fall, the landing and the settling.
    let (_, mut w) = load("ragdoll.ron");
    let mut settings = w.settings.clone();
    settings.exact_joint_trees = true;
    w.set_settings(settings);
    let mut watch = collidoscope::sweep::Passings::new(&w);
    let mut deepest = (0.0f32, 0);
    for step in 1..=600 {
        w.step();
        let through = watch.observe(&w);
        assert!(through.is_empty(), "step {step}: (body, body passed through) {through:?}");
        for c in w.contacts() {
            let dynamic = |i: u32| w.bodies()[i as usize].is_dynamic();
            if dynamic(c.a) && dynamic(c.b) {
                let depth = c.manifold.points().iter().map(|p| p.depth).fold(0.0f32, f32::max);
                if depth > deepest.0 {
                    deepest = (depth, step);
                }
            }
        }
    }
    println!(
        "ragdoll with exact joint trees, 10 s: no passing; deepest contact between limbs {:.1} mm at step {}",
        deepest.0 * 1e3,
        deepest.1
    );
    assert!(deepest.0 < 0.03, "limbs {:.1} mm into each other at step {}", deepest.0 * 1e3, deepest.1);
}

#[test]
fn the_car_drives_down_the_ramp_to_the_wall_upright() {
    let (_, mut w) = load("car_ramp.ron");
    let chassis = body(&w, "chassis");
    let mut bottom = None;
    for step in 1..=900 {
        w.step();
        let v = fastest(&w);
        assert!(v < 12.0, "step {step}: a body at {v} m/s");
        if bottom.is_none() && w.bodies()[chassis].pose.translation.x > 4.5 {
            bottom = Some(step);
        }
    }
    let bottom = bottom.expect("the car reaches the bottom of the ramp");
    assert!(bottom < 400, "reached the floor at step {bottom}");
    let b = &w.bodies()[chassis];
    assert!((b.pose.translation.x - 10.3).abs() < 0.3, "stopped against the wall: {}", b.pose.translation);
    assert!((b.pose.rotation * collidoscope::math::Vec3::Y).y > 0.99, "upright");
    assert!(fastest(&w) < 0.05);
    // The wheels kept on their axles.
    for k in 0..w.joints().len() {
        let r = w.joint_report(k);
        assert!(r.linear_error < 0.005 && r.angular_error < 0.02, "joint {k}: {r:?}");
    }
}

/// Every scene in scenes/ with joints.
fn jointed_scenes() -> Vec<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"));
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .filter(|p| Scene::load(p).is_ok_and(|s| s.build().is_ok_and(|w| !w.joints().is_empty())))
        .collect();
    out.sort();
    out
}

#[test]
fn recordings_of_every_jointed_scene_replay_bit_for_bit_on_one_and_two_threads() {
    let scenes = jointed_scenes();
    let names: Vec<String> = scenes.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
    for expected in ["chain.ron", "pendulum.ron", "ragdoll.ron", "rope_bridge.ron", "car_ramp.ron", "hinge_door.ron"] {
        assert!(names.iter().any(|n| n == expected), "{expected} among the jointed scenes {names:?}");
    }
    let dir = std::env::temp_dir().join(format!("collidoscope-joint-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for path in &scenes {
        let scene = Scene::load(path).unwrap();
        let mut world = scene.build().unwrap();
        let mut rec = Recorder::new(&scene, &world, 60);
        for _ in 0..180 {
            rec.step(&mut world);
        }
        let file = dir.join(path.file_name().unwrap());
        rec.finish().save(&file).unwrap();
        let recording = Recording::load(&file).unwrap();
        assert_eq!(recording.verify(), Ok(180), "{}", path.display());
        for threads in [1, 2] {
            let mut w = recording.scene.build().unwrap();
            w.set_threads(threads);
            for (k, &h) in recording.hashes.iter().enumerate() {
                w.step();
                assert_eq!(w.hash(), h, "{} on {threads} threads: step {}", path.display(), k + 1);
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
