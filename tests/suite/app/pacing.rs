//! Issue 31: event pacing for teaching. "Pause at the next event" stops the clock on the step
//! of a first contact, a time of impact, a tunneling or a body leaving the view; slow motion
//! goes down to 0.01×; F during an A/B frames both worlds' moving bodies.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Persisted};
use collidoscope::session::pause::PauseAt;
use eframe::egui::{self, Key};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::PathBuf;

fn tunneling(compare: Option<(&str, &str)>) -> Harness<'static, App> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling.ron");
    let mut app = App::open(&path, Viewport::new(None)).unwrap();
    if let Some((f, v)) = compare {
        app.simulation_mut().start_compare(&[(f.into(), v.into())]).unwrap();
    }
    app.fixed_frame_steps = true;
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// Presses Space and steps frames (one simulation step each) until the clock stops.
fn play_until_paused(h: &mut Harness<'static, App>, most: usize) {
    h.key_press(Key::Space);
    h.step();
    for _ in 0..most {
        if !h.state().simulation().playing {
            break;
        }
        h.step();
    }
    assert!(!h.state().simulation().playing, "paused by itself within {most} frames");
    h.run();
}

#[test]
fn play_pauses_on_the_step_the_bullet_tunnels() {
    let mut h = tunneling(None);
    h.get_by_label("⏸ at").click();
    h.run();
    h.get_by_label("tunneling").click();
    h.run();
    h.key_press(Key::Escape);
    h.run();
    assert_eq!(h.state().simulation().pause.at, PauseAt::Tunneling);
    play_until_paused(&mut h, 30);
    assert_eq!(h.state().world().step_count(), 2, "the step the bullet crosses the wall");
    h.get_by_label("⏸ step 2: bullet passed through wall in one step");
    // Playing on clears the note; the bullet does not cross again.
    h.key_press(Key::Space);
    h.step();
    assert!(h.query_by_label_contains("passed through").is_none());
}

#[test]
fn play_pauses_when_a_moving_body_leaves_the_view() {
    let mut h = tunneling(None);
    h.state_mut().simulation_mut().pause.at = PauseAt::LeavingView;
    play_until_paused(&mut h, 30);
    let v = h.state().viewport();
    let bullet = h.state().world().bodies()[2].pose.translation;
    let seen = v.camera().project(bullet, v.rect()).is_some_and(|p| v.rect().contains(p));
    assert!(!seen, "paused with the bullet just out of view at {bullet}");
    assert!(h.state().world().step_count() >= 3, "the scene's camera shows the bullet beyond the wall first");
    h.get_by_label_contains("bullet left the view");
}

#[test]
fn slow_motion_reaches_a_hundredth_of_real_time() {
    let mut h = tunneling(None);
    h.state_mut().restore(Persisted { speed: 0.01, ..Persisted::default() });
    assert_eq!(h.state().simulation().speed, 0.01, "kept, not raised to a faster floor");
    let sim = h.state_mut().simulation_mut();
    sim.playing = true;
    let dt = sim.world.settings.dt as f64;
    // A hundredth of real time: one step of 1/60 s takes 100/60 s of frames.
    let steps: u32 = (0..99).map(|_| sim.advance(dt)).sum();
    assert_eq!(steps, 0);
    let steps: u32 = (0..2).map(|_| sim.advance(dt)).sum();
    assert_eq!(steps, 1);
}

#[test]
fn f_during_ab_frames_both_worlds_bodies() {
    let mut h = tunneling(Some(("ccd", "Toi")));
    for _ in 0..6 {
        h.key_press(Key::S);
        h.run();
    }
    h.key_press(Key::F);
    h.run();
    let sim = h.state().simulation();
    let a = sim.record.partner.as_ref().unwrap().world.bodies()[2].pose.translation;
    let b = sim.world.bodies()[2].pose.translation;
    assert!(a.x > 10.0 && b.x < 0.0, "A's bullet flew on, B's stopped: {a} {b}");
    let v = h.state().viewport();
    for p in [a, b] {
        let s = v.camera().project(p, v.rect());
        assert!(s.is_some_and(|s| v.rect().contains(s)), "{p} in view: {s:?} in {:?}", v.rect());
    }
}
