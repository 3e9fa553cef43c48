//! Jolt Physics on the B side of the app's A/B view, driven through egui_kittest.
#![cfg(all(feature = "gui", feature = "jolt"))]

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
    let mut s = Scene { name: "Jolt A/B test".into(), ..Scene::default() };
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(10.0, 0.5, 10.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    s.bodies.push(floor);
    s.bodies.push(BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.4) }, Vec3::new(0.0, 1.0, 0.0)));
    s.bodies.push(BodyDesc::new(ShapeDesc::Sphere { radius: 0.3 }, Vec3::new(1.5, 2.0, 0.0)));
    s
}

#[test]
fn the_timeline_puts_jolt_on_the_b_side_in_lockstep() {
    let mut app = App::new(Simulation::new(scene(), None).unwrap(), Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(collidoscope::app::PanelId::Timeline);
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1100.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h.get_by_label("A/B vs Jolt").click();
    h.run();
    assert!(h.state().simulation().record.partner.as_ref().is_some_and(|p| p.is_peer()));
    h.get_by_label_contains("Jolt Physics 5.0: the scene mapped onto it (bodies only)");
    for _ in 0..40 {
        h.key_press(Key::S);
        h.run();
    }
    let sim = h.state().simulation();
    let p = sim.record.partner.as_ref().unwrap();
    assert_eq!((p.steps(), sim.world.step_count()), (40, 40), "lockstep");
    assert!(p.first_divergent.is_some(), "two engines, not the same bits");
    let (_, max) = p.max_divergence().unwrap();
    assert!(max > 0.0 && max < 0.05, "max divergence {max}");
    let (_, jolt, collid) = p.profiles.back().unwrap();
    assert!(jolt.total_ms > 0.0 && collid.total_ms > 0.0);
    assert_eq!(jolt.bodies, 3);
    // Jolt's box rests on the floor as Collidoscope's does.
    let y = p.other().bodies()[1].pose.translation.y;
    assert!((y - 0.4).abs() < 0.02, "Jolt's box at {y}");
}

#[test]
fn compare_engine_jolt_starts_from_the_scene_with_the_other_changes_on_both() {
    let mut sim = Simulation::new(scene(), None).unwrap();
    let changes = [("engine".to_string(), "jolt".to_string()), ("substeps".to_string(), "8".to_string())];
    sim.start_compare(&changes).unwrap();
    let p = sim.record.partner.as_ref().unwrap();
    assert!(p.is_peer());
    assert_eq!(p.engine_label(), "Jolt Physics 5.0");
    assert_eq!((sim.world.settings.substeps, p.other().settings.substeps), (8, 8));
}
