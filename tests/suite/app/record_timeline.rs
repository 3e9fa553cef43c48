//! Issue 7 in the app, driven through egui_kittest: record with the button, verify, scrub back,
//! fork with a changed setting, and A/B in lockstep.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Command, Simulation};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use collidoscope::{BodyKind, Settings};
use eframe::egui::{self, Key, Modifiers};
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};

/// A floor, two boxes falling onto it and a ball rolling at them.
fn scene() -> Scene {
    let mut s = Scene { name: "record test".into(), ..Scene::default() };
    s.settings.sleeping = false;
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(10.0, 0.5, 10.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    s.bodies.push(floor);
    s.bodies.push(BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.4) }, Vec3::new(0.0, 1.0, 0.0)));
    s.bodies.push(BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.4) }, Vec3::new(0.1, 2.2, 0.0)));
    let mut ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.3 }, Vec3::new(-3.0, 0.3, 0.0));
    ball.linear_velocity = Vec3::new(5.0, 0.0, 0.0);
    s.bodies.push(ball);
    s
}

fn harness() -> Harness<'static, App> {
    let sim = Simulation::new(scene(), None).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(collidoscope::app::PanelId::Timeline);
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1100.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

fn press(h: &mut Harness<'_, App>, key: Key, times: usize) {
    for _ in 0..times {
        h.key_press(key);
        h.run();
    }
}

fn click(h: &mut Harness<'_, App>, label: &str) {
    h.get_by_label(label).click();
    h.run();
}

/// Records `steps` steps with the record button and stops with Ctrl+R.
fn record(h: &mut Harness<'_, App>, steps: usize) {
    click(h, "⏺ Record");
    assert!(h.state().simulation().is_recording());
    press(h, Key::S, steps);
    h.key_press_modifiers(Modifiers::COMMAND, Key::R);
    h.run();
    assert!(!h.state().simulation().is_recording());
}

fn recorded_hash(h: &Harness<'_, App>, step: usize) -> u64 {
    h.state().simulation().record.review.as_ref().unwrap().recording.hashes[step - 1]
}

#[test]
fn recording_with_the_button_then_verify_passes() {
    let mut h = harness();
    record(&mut h, 40);
    assert_eq!(h.state().world().step_count(), 40);
    click(&mut h, "✔ Verify");
    h.get_by_label("verified 40 steps");
    // A tampered recording must not verify.
    let sim = h.state_mut().simulation_mut();
    let review = sim.record.review.as_mut().unwrap();
    let mut rec = (*review.recording).clone();
    rec.hashes[20] ^= 1;
    review.recording = std::sync::Arc::new(rec);
    click(&mut h, "✔ Verify");
    assert!(h.query_by_label("verified 40 steps").is_none());
    h.get_by_label_contains("diverged at step 21");
}

#[test]
fn scrubbing_back_reproduces_the_recorded_hash() {
    let mut h = harness();
    record(&mut h, 70);
    click(&mut h, "⏮");
    assert_eq!(h.state().world().step_count(), 0);
    // Forward with S replays the recording; back with ← and the button restores keyframes.
    press(&mut h, Key::S, 65);
    assert_eq!(h.state().world().hash(), recorded_hash(&h, 65));
    press(&mut h, Key::ArrowLeft, 3);
    click(&mut h, "◀ Step back");
    assert_eq!(h.state().world().step_count(), 61);
    assert_eq!(h.state().world().hash(), recorded_hash(&h, 61));
    h.get_by_label("step 61 / 70");
}

#[test]
fn a_fork_with_a_changed_setting_shows_the_first_divergent_step() {
    let mut h = harness();
    record(&mut h, 50);
    press(&mut h, Key::ArrowLeft, 30);
    assert_eq!(h.state().world().step_count(), 20);
    // What the settings panel sends when a slider moves.
    let s = Settings { gravity: Vec3::new(0.0, -3.0, 0.0), ..h.state().world().settings.clone() };
    h.state_mut().apply(Command::SetSettings(Box::new(s)));
    h.run();
    assert!(h.state().simulation().is_recording(), "changing a setting while reviewing forks");
    press(&mut h, Key::S, 10);
    let first = h.state().simulation().record.partner.as_ref().map(|p| p.first_divergent);
    assert_eq!(first, Some(Some(21)));
    h.get_by_label("first divergent step: 21");
    let sim = h.state().simulation();
    let a = &sim.record.partner.as_ref().unwrap().world;
    assert_eq!(a.step_count(), 30);
    assert_eq!(a.hash(), sim.record.review.as_ref().unwrap().recording.hashes[29], "A is the original");
}

#[test]
fn ab_stepping_advances_both_worlds_equally() {
    let mut h = harness();
    press(&mut h, Key::S, 3);
    click(&mut h, "A/B from here");
    h.get_by_label("identical so far (same state hash every step)");
    press(&mut h, Key::S, 12);
    let sim = h.state().simulation();
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!((p.world.step_count(), sim.world.step_count()), (15, 15));
    assert_eq!(p.world.hash(), sim.world.hash(), "same settings, same run");
    h.get_by_label("since step 3: 12 steps in lockstep");
    // Nothing is apart, so no body is named as the farthest.
    h.get_by_label("no body apart: max Δ 0.0000 m");
    assert!(h.query_by_label_contains("mean Δ").is_none());
    click(&mut h, "End A/B");
    assert!(h.state().simulation().record.partner.is_none());
}

#[test]
fn the_timeline_can_be_hidden_and_shows_itself_while_recording() {
    let mut h = harness();
    // The toolbar's toggle comes first; the panel has a heading of the same name.
    let toggle = |h: &mut Harness<'_, App>| {
        h.get_all_by_label("Timeline").next().unwrap().click();
        h.run();
    };
    toggle(&mut h);
    assert!(!h.state().open_panels().timeline);
    assert!(h.query_by_label("⏺ Record").is_none(), "the timeline is hidden");
    h.key_press_modifiers(Modifiers::COMMAND, Key::R);
    h.run();
    assert!(h.state().simulation().is_recording());
    h.get_by_label("⏹ Stop recording");
    click(&mut h, "⏹ Stop recording");
    assert!(!h.state().simulation().is_recording());
    assert!(h.query_by_label("⏺ Record").is_none(), "hidden again once recording stops");
    toggle(&mut h);
    h.get_by_label("⏺ Record");
}

/// "Export clip…" is offered for a recording on the timeline only.
#[test]
fn export_clip_waits_for_a_recording_on_the_timeline() {
    let mut h = harness();
    let disabled = |h: &Harness<'_, App>| h.get_by_label("🎞 Export clip…").accesskit_node().is_disabled();
    assert!(disabled(&h), "nothing to export before a recording");
    record(&mut h, 5);
    assert!(!disabled(&h), "the finished recording can be exported");
}
