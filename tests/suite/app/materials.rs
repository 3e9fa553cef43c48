//! Issue 31: restitution and friction are tunable like any setting (the command line, the
//! Settings panel, `--compare`, the edited badge, recordings) and per body in the Inspector.
#![cfg(feature = "gui")]

use collidoscope::BodyKind;
use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, AppOptions, Command, PanelId, Simulation, build_app};
use collidoscope::math::Vec3;
use collidoscope::record::Action;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use eframe::egui::{self, Key, Modifiers};
use egui::accesskit::Role;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::PathBuf;

fn harness(app: App) -> Harness<'static, App> {
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

fn options(scene: &str, sets: &[(&str, &str)], compare: &[(&str, &str)]) -> AppOptions {
    let pairs = |v: &[(&str, &str)]| v.iter().map(|(f, x)| (f.to_string(), x.to_string())).collect();
    AppOptions {
        scene: PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes").join(scene),
        compare: pairs(compare),
        sets: pairs(sets),
        ..AppOptions::default()
    }
}

fn launch(opts: &AppOptions) -> Harness<'static, App> {
    harness(build_app(opts, None, None, &|| Viewport::new(None)).unwrap())
}

#[test]
fn material_settings_work_from_the_command_line_like_any_setting() {
    let h = launch(&options("restitution.ron", &[("restitution", "0.3")], &[]));
    assert_eq!(h.state().world().settings.restitution, Some(0.3));
    h.get_by_label("✏ edited: 1 setting");

    let h = launch(&options("ramp.ron", &[], &[("friction", "0")]));
    let a = &h.state().simulation().record.partner.as_ref().unwrap().world;
    assert_eq!(a.settings.friction, None, "A keeps each body's own friction");
    assert_eq!(h.state().world().settings.friction, Some(0.0), "B has friction 0 for all");

    let err = build_app(&options("ramp.ron", &[("friction", "-1")], &[]), None, None, &|| Viewport::new(None))
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("--set friction=-1") && err.contains("friction"), "{err}");
}

#[test]
fn the_settings_panel_overrides_restitution_for_every_body() {
    let sim = Simulation::load(&options("restitution.ron", &[], &[]).scene).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(PanelId::Settings);
    let mut h = harness(app);
    assert_eq!(h.state().world().settings.restitution, None);
    let all = h.get_all_by_label("all bodies").next().unwrap();
    all.scroll_to_me();
    h.run();
    h.get_all_by_label("all bodies").next().unwrap().click();
    h.run();
    assert!(h.state().world().settings.restitution.is_some(), "set for every body");
    h.get_by_role_and_label(Role::Slider, "Restitution").set_value_accesskit(0.8);
    h.run();
    assert_eq!(h.state().world().settings.restitution, Some(0.8));
    h.get_by_label("✏ edited: 1 setting");
    // The profiler marks the change like any other.
    assert!(h.state().simulation().history.markers().any(|(_, what)| what.contains("restitution")));
}

/// A floor and a ball dropping onto it.
fn drop_scene() -> Scene {
    let mut s = Scene { name: "drop".into(), ..Scene::default() };
    s.settings.sleeping = false;
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    s.bodies.push(floor);
    let mut ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.2 }, Vec3::new(0.0, 1.2, 0.0));
    ball.name = Some("ball".into());
    s.bodies.push(ball);
    s
}

#[test]
fn inspector_material_edits_are_recorded_and_replayed() {
    let sim = Simulation::new(drop_scene(), None).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(PanelId::Timeline);
    let mut h = harness(app);
    h.key_press_modifiers(Modifiers::COMMAND, Key::R);
    h.run();
    assert!(h.state().simulation().is_recording());
    h.state_mut().apply(Command::Select(Some(1)));
    h.run();
    let mass = h.state().world().bodies()[1].mass();
    for (name, v) in [("restitution", 0.7), ("friction", 0.1), ("density", 2000.0)] {
        let w = h.get_by_role_and_label(Role::SpinButton, name);
        w.scroll_to_me();
        h.run();
        h.get_by_role_and_label(Role::SpinButton, name).set_value_accesskit(v);
        h.run();
    }
    let b = &h.state().world().bodies()[1];
    assert_eq!((b.material.restitution, b.material.friction, b.material.density), (0.7, 0.1, 2000.0));
    assert!((b.mass() - 2.0 * mass).abs() < 1e-4 * mass, "the density gives a new mass: {} vs {mass}", b.mass());
    for _ in 0..60 {
        h.key_press(Key::S);
        h.run();
    }
    let bounced = h.state().world().bodies()[1].pose.translation.y;
    h.key_press_modifiers(Modifiers::COMMAND, Key::R);
    h.run();
    let rec = h.state().simulation().record.review.as_ref().unwrap().recording.clone();
    assert_eq!(rec.actions.iter().filter(|a| matches!(a.action, Action::Material { body: 1, .. })).count(), 3);
    assert_eq!(rec.verify(), Ok(60), "the replay reproduces every step");
    // Replayed from its scene, the ball has the edited material at the end.
    let mut sim = Simulation::new(Scene::default(), None).unwrap();
    let dir = std::env::temp_dir().join(format!("collidoscope-materials-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("material.ron");
    rec.save(&path).unwrap();
    sim.open_recording(&path);
    sim.apply_record(collidoscope::session::timeline::RecordCommand::Seek(60));
    assert_eq!(sim.world.bodies()[1].material.restitution, 0.7);
    assert_eq!(sim.world.bodies()[1].pose.translation.y, bounced);
}

/// Clicks Run sweep and steps frames until it has finished (the panel repaints while the sweep
/// runs, so the harness steps frame by frame meanwhile).
pub(super) fn run_sweep(h: &mut Harness<'static, App>) {
    h.get_by_label("▶ Run sweep").scroll_to_me();
    h.run();
    h.get_by_label("▶ Run sweep").click();
    let start = std::time::Instant::now();
    h.step();
    while h.state_mut().sweep_panel_mut().is_running() {
        assert!(start.elapsed().as_secs() < 120, "the sweep did not finish");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run();
    let panel = h.state_mut().sweep_panel_mut();
    assert!(panel.result.is_some(), "the sweep gave no result: {:?}", panel.error());
}

fn swept(h: &mut Harness<'static, App>) -> Vec<String> {
    let r = h.state_mut().sweep_panel_mut().result.as_ref().expect("a result");
    r.points
        .iter()
        .map(|p| p.assignments.iter().map(|(f, v)| format!("{f}={v}")).collect::<Vec<_>>().join(" "))
        .collect()
}

#[test]
fn the_sweep_panel_varies_restitution_and_the_choices() {
    let sim = Simulation::load(&options("tunneling.ron", &[], &[]).scene).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.open_panels_mut().show(PanelId::Sweep);
    app.sweep_panel_mut().steps = 20;
    let mut h = harness(app);
    // A choice picked in the field list offers all its values.
    h.get_by_role_and_label(Role::ComboBox, "Vary").scroll_to_me();
    h.run();
    h.get_by_role_and_label(Role::ComboBox, "Vary").click();
    h.run();
    h.get_by_label("ccd").scroll_to_me();
    h.run();
    h.get_by_label("ccd").click();
    h.run();
    h.key_press(Key::Escape);
    h.run();
    assert_eq!(h.state_mut().sweep_panel_mut().axes[0].field, "ccd");
    assert_eq!(h.state_mut().sweep_panel_mut().axes[0].values, "Off, Speculative, Toi");
    run_sweep(&mut h);
    assert_eq!(swept(&mut h), ["ccd=Off", "ccd=Speculative", "ccd=Toi"]);
    let r = h.state_mut().sweep_panel_mut().result.as_ref().unwrap();
    assert_eq!(r.points.iter().map(|p| p.settings.ccd).collect::<Vec<_>>(), collidoscope::ccd::CcdMode::ALL);

    // Restitution over a range, and broad phases by name, as a heat map.
    {
        let panel = h.state_mut().sweep_panel_mut();
        panel.axes[0] = collidoscope_axis("restitution", "0", "1", 3);
        panel.two = true;
        panel.axes[1].field = "broad_phase".into();
        panel.axes[1].values = "Grid, Bvh".into();
    }
    run_sweep(&mut h);
    let got = swept(&mut h);
    assert_eq!(got.len(), 6, "{got:?}");
    assert!(got.contains(&"restitution=0.5 broad_phase=Bvh".to_string()), "{got:?}");
    let r = h.state_mut().sweep_panel_mut().result.as_ref().unwrap();
    assert!(r.points.iter().any(|p| p.settings.restitution == Some(0.5)));
}

fn collidoscope_axis(field: &str, from: &str, to: &str, count: usize) -> collidoscope::app::SweepAxis {
    collidoscope::app::SweepAxis {
        field: field.into(),
        from: from.into(),
        to: to.into(),
        count,
        geometric: false,
        values: String::new(),
    }
}
