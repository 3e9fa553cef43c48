//! Recording, review, forks and A/B lockstep through the [`Simulation`], without a window.

use super::*;
use crate::BodyKind;
use crate::math::{Real, Vec3};
use crate::record::{Action, Divergence};
use crate::scene::{BodyDesc, Rotation, Scene, ShapeDesc};
use crate::session::{Simulation, Status};

/// A floor, three boxes dropped onto it at angles, and a sphere rolling into them.
fn scene() -> Scene {
    let mut s = Scene::default();
    s.settings.sleeping = false;
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(10.0, 0.5, 10.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    s.bodies.push(floor);
    for (k, x) in [-1.0_f32, 0.2, 1.4].into_iter().enumerate() {
        let mut b =
            BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.4) }, Vec3::new(x, 0.6 + k as f32, 0.0));
        b.rotation = Rotation::Euler(10.0 * k as f32, 20.0, 5.0);
        s.bodies.push(b);
    }
    let mut ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.3 }, Vec3::new(-4.0, 0.3, 0.0));
    ball.linear_velocity = Vec3::new(6.0, 0.0, 0.0);
    s.bodies.push(ball);
    s
}

fn sim() -> Simulation {
    Simulation::new(scene(), None).unwrap()
}

/// Records `steps` steps with a settings change, a shot and a drag on the way.
fn recorded(steps: u64) -> Simulation {
    let mut sim = sim();
    sim.start_recording().unwrap();
    for s in 0..steps {
        match s {
            5 => sim.user_settings(Settings { substeps: 6, ..sim.world.settings.clone() }),
            9 => {
                sim.shoot(Vec3::new(0.0, 4.0, 4.0), Vec3::new(0.0, -5.0, -30.0));
            }
            12 => {
                sim.start_drag(2, Vec3::new(0.1, 0.2, 0.0));
                sim.drag_to(Vec3::new(0.5, 3.0, 0.0));
            }
            30 => sim.drag = None,
            _ => {}
        }
        sim.step_once();
    }
    sim.stop_recording();
    sim
}

#[test]
fn a_recording_made_in_the_app_verifies_and_holds_every_action() {
    let mut sim = recorded(50);
    let rec = sim.record.review.as_ref().unwrap().recording.clone();
    assert_eq!(rec.steps(), 50);
    assert_eq!(rec.verify(), Ok(50));
    let kinds = |f: fn(&Action) -> bool| rec.actions.iter().filter(|a| f(&a.action)).count();
    assert_eq!(kinds(|a| matches!(a, Action::Settings(_))), 1);
    assert_eq!(kinds(|a| matches!(a, Action::AddBody(_))), 1);
    // One wake when grabbed, then the spring's velocities on each of the 18 held steps.
    assert_eq!(kinds(|a| matches!(a, Action::Velocity { body: 2, .. })), 19);
    sim.verify_recording();
    assert_eq!(sim.record.status, Some(Status::Done("verified 50 steps".into())));

    // The drags matter: without them the replay leaves the recording where the first one was.
    let mut edited = (*rec).clone();
    edited.actions.retain(|a| !matches!(a.action, Action::Velocity { .. }));
    assert!(matches!(edited.verify(), Err(Divergence::Hash { step: 13, .. })), "{:?}", edited.verify());
}

#[test]
fn scrubbing_back_reproduces_the_recorded_hash_and_playback_follows_the_recording() {
    let mut sim = recorded(130);
    let rec = sim.record.review.as_ref().unwrap().recording.clone();
    for step in [125, 61, 60, 7, 0, 64, 66, 130] {
        sim.seek(step);
        assert_eq!(sim.world.step_count(), step);
        let r = sim.record.review.as_ref().unwrap();
        assert!(r.follows(&sim.world), "step {step}");
        if step > 0 {
            assert_eq!(sim.world.hash(), rec.hashes[step as usize - 1], "step {step}");
        }
    }
    sim.apply_record(RecordCommand::StepBack);
    assert_eq!(sim.world.step_count(), 129);
    assert_eq!(sim.world.hash(), rec.hashes[128]);

    // Playing from step 10 replays the recorded actions (the shot at 9 is already in).
    sim.seek(10);
    for s in 11..=40 {
        sim.step_once();
        assert_eq!(sim.world.hash(), rec.hashes[s - 1], "step {s}");
    }
    assert!(sim.record.review.as_ref().unwrap().follows(&sim.world));
    assert!(sim.record.tape.is_none(), "replaying records nothing");
    assert!(sim.record.status.as_ref().is_none_or(|s| s.is_done()), "{:?}", sim.record.status);

    // At the end playback stops, or starts over when looping.
    sim.seek(129);
    sim.playing = true;
    sim.step_once();
    sim.step_once();
    assert_eq!(sim.world.step_count(), 130);
    assert!(!sim.playing);
    sim.apply_record(RecordCommand::SetLooping(true));
    sim.playing = true;
    sim.step_once();
    assert_eq!(sim.world.step_count(), 0);
}

#[test]
fn a_fork_with_a_changed_setting_reports_the_first_divergent_step() {
    let mut sim = recorded(90);
    let original = sim.record.review.as_ref().unwrap().recording.clone();
    sim.seek(40);
    sim.user_settings(Settings { gravity: Vec3::new(0.0, -4.0, 0.0), ..sim.world.settings.clone() });
    assert!(sim.is_recording(), "the change forked the run");
    assert_eq!(sim.world.step_count(), 40);
    for _ in 0..20 {
        sim.step_once();
    }
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!(p.first_divergent, Some(41));
    assert_eq!(p.world.step_count(), 60);
    assert_eq!(p.world.hash(), original.hashes[59], "A replays the original");
    assert!(p.max_divergence().unwrap().1 > 0.01);
    // Static bodies are not counted: the mean is over the bodies that can move.
    let moving: Vec<Real> = p
        .world
        .bodies()
        .iter()
        .zip(&p.divergence)
        .filter(|(b, _)| b.kind != BodyKind::Static)
        .map(|(_, d)| d.unwrap())
        .collect();
    assert!(p.world.bodies().iter().zip(&p.divergence).all(|(b, d)| d.is_some() != (b.kind == BodyKind::Static)));
    assert_eq!(p.mean_divergence(), moving.iter().sum::<Real>() / moving.len() as Real);
    // The fork is itself a whole recording: the original up to 40, the change, then its own run.
    sim.stop_recording();
    let fork = sim.record.review.as_ref().unwrap().recording.clone();
    assert_eq!(fork.hashes[..40], original.hashes[..40]);
    assert_ne!(fork.hashes[40], original.hashes[40]);
    assert_eq!(fork.verify(), Ok(60));
}

#[test]
fn a_fork_without_a_change_never_diverges() {
    let mut sim = recorded(90);
    let original = sim.record.review.as_ref().unwrap().recording.clone();
    // After the recorded drag ended, so the original has no more actions.
    sim.seek(40);
    sim.apply_record(RecordCommand::Fork);
    for _ in 0..30 {
        sim.step_once();
    }
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!(p.first_divergent, None);
    assert_eq!(p.max_divergence().unwrap().1, 0.0);
    assert_eq!(sim.world.hash(), original.hashes[69]);
}

#[test]
fn ab_lockstep_advances_both_worlds_equally() {
    let mut sim = sim();
    for _ in 0..5 {
        sim.step_once();
    }
    sim.apply_record(RecordCommand::StartAb { from_start: false });
    sim.user_settings(Settings { substeps: 1, ..sim.world.settings.clone() });
    for _ in 0..25 {
        sim.step_once();
        let p = sim.record.partner.as_ref().unwrap();
        assert_eq!(p.world.step_count(), sim.world.step_count());
    }
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!((p.start, p.steps()), (5, 25));
    assert_eq!(p.profiles.len(), 25);
    assert!(p.first_divergent.is_some_and(|s| s > 5));
    assert_eq!(p.world.settings.substeps, 4, "A keeps its settings");

    sim.apply_record(RecordCommand::StartAb { from_start: true });
    assert_eq!(sim.world.step_count(), 0);
    assert_eq!(sim.world.settings.substeps, 1, "from the start, with the settings B has now");
    sim.apply_record(RecordCommand::PartnerSettings(Box::new(Settings { substeps: 1, ..Settings::default() })));
    sim.step_once();
    assert_eq!(sim.record.partner.as_ref().unwrap().world.step_count(), 1);
}

#[test]
fn saved_recordings_open_and_broken_ones_keep_the_state() {
    let dir = std::env::temp_dir().join(format!("collidoscope-app-record-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("run.ron");
    let mut sim = recorded(20);
    sim.save_recording(&path);
    assert!(matches!(&sim.record.status, Some(Status::Done(m)) if m.contains("20 steps")), "{:?}", sim.record.status);

    let mut other = Simulation::new(Scene::default(), None).unwrap();
    other.open_recording(&path);
    assert_eq!(other.record.status, Some(Status::Done(format!("Opened {} (20 steps)", path.display()))));
    let r = other.record.review.as_ref().unwrap();
    assert_eq!((r.cursor, other.world.step_count()), (0, 0));
    assert!(r.events.iter().any(|e| e.kind == crate::record::EventKind::NewContact));
    assert_eq!(other.scene, r.recording.scene);

    let broken = dir.join("broken.ron");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&broken, &text[..text.len() / 3]).unwrap();
    let before = other.world.hash();
    other.open_recording(&broken);
    let Some(Status::Failed(e)) = &other.record.status else { panic!("{:?}", other.record.status) };
    assert!(e.starts_with(&format!("{}:", broken.display())), "names the file: {e}");
    assert!(e.split(':').nth(1).is_some_and(|l| l.parse::<usize>().is_ok()), "and the line: {e}");
    assert_eq!(other.world.hash(), before);
    assert_eq!(other.record.review.as_ref().unwrap().steps(), 20, "the open recording stays");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_reset_while_recording_stops_the_recording() {
    let mut sim = sim();
    sim.start_recording().unwrap();
    for _ in 0..10 {
        sim.step_once();
    }
    sim.reset().unwrap();
    sim.step_once();
    assert!(!sim.is_recording());
    assert!(matches!(&sim.record.status, Some(Status::Failed(m)) if m.contains("reset")));
    assert_eq!(sim.record.review.as_ref().unwrap().steps(), 10);
    assert_eq!(sim.record.review.as_ref().unwrap().recording.verify(), Ok(10));
}

#[test]
fn recording_after_running_starts_a_new_scene_from_the_state() {
    let mut sim = sim();
    for _ in 0..15 {
        sim.step_once();
    }
    let before: Vec<Vec3> = sim.world.bodies().iter().map(|b| b.pose.translation).collect();
    sim.start_recording().unwrap();
    assert_eq!(sim.world.step_count(), 0);
    let after: Vec<Vec3> = sim.world.bodies().iter().map(|b| b.pose.translation).collect();
    assert_eq!(before, after);
    for _ in 0..10 {
        sim.step_once();
    }
    sim.stop_recording();
    assert_eq!(sim.record.review.as_ref().unwrap().recording.verify(), Ok(10));
}

#[test]
fn opening_a_scene_while_recording_keeps_the_recording_on_the_timeline() {
    let dir = std::env::temp_dir().join(format!("collidoscope-app-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let other_scene = dir.join("other.ron");
    Scene::default().save(&other_scene).unwrap();

    let mut sim = sim();
    sim.start_recording().unwrap();
    for _ in 0..12 {
        sim.step_once();
    }
    let recorded_hash = sim.world.hash();
    sim.open(&other_scene).unwrap();
    assert!(!sim.is_recording());
    assert_eq!(sim.world.step_count(), 0);
    assert_eq!(sim.world.bodies().len(), Scene::default().build().unwrap().bodies().len(), "the new scene is open");
    assert!(matches!(&sim.record.status, Some(Status::Done(m)) if m.contains("12 steps")), "{:?}", sim.record.status);
    let review = sim.record.review.as_ref().unwrap();
    assert_eq!(review.steps(), 12);
    assert!(!review.follows(&sim.world), "the new world is not the recording's");

    // The recording can still be scrubbed back to and saved.
    sim.seek(12);
    assert_eq!(sim.world.hash(), recorded_hash);
    let saved = dir.join("kept.ron");
    sim.save_recording(&saved);
    assert_eq!(crate::record::Recording::load(&saved).unwrap().verify(), Ok(12));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_late_fork_starts_from_the_nearest_keyframe_and_keeps_the_original_prefix() {
    let sim = recorded(200);
    let review = sim.record.review.as_ref().unwrap();
    let original = review.recording.clone();
    let (tape, world) = Tape::fork(&original, &review.events, 130).unwrap();
    assert_eq!((world.step_count(), world.hash()), (130, original.hashes[129]));
    let fork = tape.recording();
    assert_eq!(*fork, original.prefix(130));
    assert_eq!(fork.keyframes.iter().map(|k| k.step).collect::<Vec<_>>(), [0, 60, 120]);
    assert_eq!(fork.verify(), Ok(130));
    let before: Vec<_> = review.events.iter().filter(|e| e.step <= 130).cloned().collect();
    assert_eq!(tape.events, before);

    // Recording on from the fork gives the original's steps, keyframes and all.
    let (mut tape, mut world) = (tape, world);
    for _ in 130..200 {
        tape.step(&mut world);
    }
    assert_eq!(tape.recording().hashes, original.hashes);
    assert_eq!(tape.recording().keyframes, original.keyframes);
    // Contacts that were touching before the fork are not reported again as new.
    assert!(
        tape.events.iter().filter(|e| e.step > 130).all(|e| e.kind != crate::record::EventKind::NewContact
            || review.events.iter().any(|o| o.step > 130 && o.kind == e.kind && o.bodies == e.bodies)),
        "{:?}",
        tape.events
    );

    // Resuming needs the world the prefix ends in.
    assert!(crate::record::Recorder::resume(original.prefix(130), &sim.world).is_err());

    // A recording that no longer replays in the window is refused.
    let mut broken = (*original).clone();
    broken.hashes[125] ^= 1;
    let err = Tape::fork(&broken, &review.events, 130).err().unwrap().to_string();
    assert!(err.contains("step 126"), "{err}");
}

#[test]
fn compare_from_the_command_line_starts_ab_with_b_changed() {
    let mut sim = sim();
    for _ in 0..5 {
        sim.step_once();
    }
    let scene_settings = sim.world.settings.clone();
    let changes = [("substeps".to_string(), "8".to_string()), ("restitution_threshold".to_string(), "2.5".to_string())];
    sim.start_compare(&changes).unwrap();
    assert_eq!(sim.world.step_count(), 0, "from the scene's start");
    assert_eq!((sim.world.settings.substeps, sim.world.settings.restitution_threshold), (8, 2.5));
    let a = &sim.record.partner.as_ref().unwrap().world;
    assert_eq!(a.settings, scene_settings, "A keeps the scene's settings");
    assert_eq!(a.hash(), sim.scene.build().unwrap().hash());

    let before = sim.world.settings.clone();
    let err = sim.start_compare(&[("nope".to_string(), "1".to_string())]).unwrap_err().to_string();
    assert!(err.contains("nope"), "{err}");
    assert_eq!(sim.world.settings, before, "a bad change changes nothing");
}
