//! Issue 31: an A/B replays. R resets both worlds to the A/B's start and keeps the lockstep;
//! Step, Play and Back act on both.
#![cfg(feature = "gui")]

use collidoscope::World;
use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Simulation};
use collidoscope::ccd::CcdMode;
use collidoscope::scene::Scene;
use eframe::egui::{self, Key};
use egui_kittest::Harness;
use std::path::PathBuf;

/// `collidoscope scenes/tunneling.ron --compare ccd=Toi`, one step per frame while playing.
fn tunneling_ab() -> Harness<'static, App> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling.ron");
    let mut app = App::open(&path, Viewport::new(None)).unwrap();
    app.simulation_mut().start_compare(&[("ccd".into(), "Toi".into())]).unwrap();
    app.fixed_frame_steps = true;
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

fn press(h: &mut Harness<'static, App>, key: Key, times: usize) {
    for _ in 0..times {
        h.key_press(key);
        h.run();
    }
}

fn sim<'a>(h: &'a Harness<'static, App>) -> &'a Simulation {
    h.state().simulation()
}

/// (A's step, A's hash, B's step, B's hash).
fn both(h: &Harness<'static, App>) -> (u64, u64, u64, u64) {
    let a: &World = &sim(h).record.partner.as_ref().expect("the A/B goes on").world;
    let b = &sim(h).world;
    (a.step_count(), a.hash(), b.step_count(), b.hash())
}

#[test]
fn r_during_ab_resets_both_worlds_to_its_start_and_keeps_the_lockstep() {
    let mut h = tunneling_ab();
    let start = both(&h);
    let mut run = Vec::new();
    for _ in 0..6 {
        press(&mut h, Key::S, 1);
        run.push(both(&h));
    }
    assert_eq!(run[5].0, 6);
    assert_eq!(run[5].2, 6);
    assert_ne!(run[5].1, run[5].3, "A (Off) and B (Toi) differ");
    let divergent = sim(&h).record.partner.as_ref().unwrap().first_divergent;

    press(&mut h, Key::R, 1);
    assert_eq!(both(&h), start, "both worlds back at the A/B's start");
    let p = sim(&h).record.partner.as_ref().unwrap();
    assert!(!p.out_of_step && sim(&h).record.side_by_side, "still side by side, in lockstep");
    assert_eq!((p.steps(), p.first_divergent), (0, None));
    assert_eq!(p.world.settings.ccd, Scene::load(sim(&h).path.clone().unwrap()).unwrap().settings.ccd);
    assert_eq!(sim(&h).world.settings.ccd, CcdMode::Toi, "each side keeps its settings");

    // Step replays the same run on both sides.
    for want in &run[..3] {
        press(&mut h, Key::S, 1);
        assert_eq!(both(&h), *want);
    }
    // Back takes both one step back.
    press(&mut h, Key::ArrowLeft, 1);
    assert_eq!(both(&h), run[1]);
    press(&mut h, Key::ArrowLeft, 1);
    assert_eq!(both(&h), run[0]);
    // Play steps both (one step a frame here) through the same states.
    h.key_press(Key::Space);
    h.step();
    while both(&h).2 < 6 {
        h.step();
    }
    press(&mut h, Key::Space, 1);
    assert_eq!(both(&h), run[5]);
    assert_eq!(sim(&h).record.partner.as_ref().unwrap().first_divergent, divergent);
    assert_eq!(sim(&h).record.partner.as_ref().unwrap().steps(), 6);
}
