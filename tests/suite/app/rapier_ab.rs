//! A peer engine on the B side of the app's A/B view, driven through egui_kittest: rapier3d
//! (issue 17) and, with the feature `jolt`, Jolt Physics.
#![cfg(all(feature = "gui", feature = "rapier"))]

use collidoscope::BodyKind;
use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Simulation};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use eframe::egui::{self, Key};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// A floor and two boxes falling onto it.
fn scene() -> Scene {
    let mut s = Scene { name: "rapier A/B test".into(), ..Scene::default() };
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(10.0, 0.5, 10.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    s.bodies.push(floor);
    s.bodies.push(BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.4) }, Vec3::new(0.0, 1.0, 0.0)));
    s.bodies.push(BodyDesc::new(ShapeDesc::Sphere { radius: 0.3 }, Vec3::new(1.5, 2.0, 0.0)));
    s
}

#[test]
fn the_timeline_puts_rapier_on_the_b_side_in_lockstep() {
    b_side_in_lockstep("A/B vs rapier3d", "rapier3d 0.36");
}

#[cfg(feature = "jolt")]
#[test]
fn the_timeline_puts_jolt_on_the_b_side_in_lockstep() {
    b_side_in_lockstep("A/B vs Jolt", "Jolt Physics 5.0");
}

/// Clicks `button` on the Timeline, steps 40 times and checks the engine `label` on B.
fn b_side_in_lockstep(button: &str, label: &str) {
    let mut app = App::new(Simulation::new(scene(), None).unwrap(), Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(collidoscope::app::PanelId::Timeline);
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1100.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h.get_by_label(button).click();
    h.run();
    assert!(h.state().simulation().record.partner.as_ref().is_some_and(|p| p.is_peer()));
    // Each side's one-line header says which engine it is.
    h.get_by_label_contains(&format!("{label}: the scene mapped onto it (its bodies drawn)"));
    h.get_by_label_contains("Collidoscope: the app's world (drag, shoot, edit here)");
    for _ in 0..40 {
        h.key_press(Key::S);
        h.run();
    }
    let sim = h.state().simulation();
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!((p.steps(), sim.world.step_count()), (40, 40), "lockstep");
    h.get_by_label("since step 0: 40 steps in lockstep");
    // Two engines: not the same bits, but the same scene within a few centimetres after the
    // box has landed (0.67 s).
    assert!(p.first_divergent.is_some());
    // So the panel does not call step 1 the first divergent one: it says how the two are compared.
    assert!(h.query_by_label_contains("first divergent step").is_none());
    h.get_by_label_contains("another engine: compared by the bodies' distances");
    let (_, max) = p.max_divergence().unwrap();
    assert!(max > 0.0 && max < 0.05, "max divergence {max}");
    // The two step profiles are the peer's and Collidoscope's.
    let (_, peer, collid) = p.profiles.back().unwrap();
    assert!(peer.total_ms > 0.0 && collid.total_ms > 0.0);
    assert_eq!(peer.bodies, 3);
    assert_eq!(p.engine_label(), label);
    // The peer's box rests on the floor as Collidoscope's does.
    let y = p.other().bodies()[1].pose.translation.y;
    assert!((y - 0.4).abs() < 0.02, "{label}'s box at {y}");
}

#[test]
fn compare_engine_rapier_starts_from_the_scene_with_the_other_changes_on_both() {
    let mut engines = vec![("rapier", "rapier3d 0.36")];
    if cfg!(feature = "jolt") {
        engines.push(("jolt", "Jolt Physics 5.0"));
    }
    for (engine, label) in engines {
        let mut sim = Simulation::new(scene(), None).unwrap();
        let changes = [("engine".to_string(), engine.to_string()), ("substeps".to_string(), "8".to_string())];
        sim.start_compare(&changes).unwrap();
        let p = sim.record.partner.as_ref().unwrap();
        assert!(p.is_peer());
        assert_eq!(p.engine_label(), label);
        assert_eq!((sim.world.settings.substeps, p.other().settings.substeps), (8, 8));
    }
    let bad = [("engine".to_string(), "bullet".to_string())];
    let err = Simulation::new(scene(), None).unwrap().start_compare(&bad).unwrap_err().to_string();
    assert!(err.contains("engine=bullet"), "{err}");
}
