//! The app's panels driven without a window (egui_kittest): settings change live without a
//! reset, Step advances exactly one step, a broken scene shows its error and keeps the old scene,
//! and selecting a body (from the list or by clicking it in the 3D view) shows the inspector.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::{ViewAction, Viewport};
use collidoscope::app::{App, PanelId, Simulation};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use collidoscope::{BodyKind, World};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::path::PathBuf;

/// A floor, a box resting on it and a ball above it, with gravity so the ball is moving.
fn small_scene() -> Scene {
    let mut scene =
        Scene { name: "Test drop".into(), description: "A ball falls next to a box.".into(), ..Default::default() };
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    floor.name = Some("floor".into());
    let mut crate_ = BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.5) }, Vec3::new(2.0, 0.5, 0.0));
    crate_.name = Some("crate".into());
    let mut ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.5 }, Vec3::new(-1.5, 3.0, 0.0));
    ball.name = Some("ball".into());
    scene.bodies = vec![floor, crate_, ball];
    scene
}

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app)
}

/// Scrolls the widget labelled `label` into view, then clicks it like a user would.
fn click(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

fn app_with(scene: Scene) -> App {
    let sim = Simulation::new(scene, None).unwrap();
    App::new(sim, Viewport::new(None), std::env::temp_dir())
}

/// `app` with these panels brought forward, as a user's clicks on the toolbar would.
fn showing(mut app: App, panels: &[PanelId]) -> App {
    for &p in panels {
        app.open_panels_mut().show(p);
    }
    app
}

/// Bit patterns of every pose and velocity: equal only if nothing moved at all.
fn state(world: &World) -> Vec<u32> {
    world
        .bodies()
        .iter()
        .flat_map(|b| {
            let p = b.pose;
            [p.translation.to_array(), b.linvel.to_array(), b.angvel.to_array()]
                .into_iter()
                .flatten()
                .chain(p.rotation.to_array())
                .map(f32::to_bits)
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A fresh folder under the system temp dir for one test.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collidoscope-app-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn changing_settings_keeps_the_world_running_state() {
    let mut app = showing(app_with(small_scene()), &[PanelId::Settings]);
    for _ in 0..20 {
        app.simulation_mut().step_once();
    }
    let mut h = harness(app);
    let before = state(h.state().world());
    let scene_settings = h.state().simulation().scene.settings.clone();
    assert!(scene_settings.warm_starting);

    click(&mut h, "Warm starting");
    assert!(!h.state().world().settings.warm_starting, "the checkbox reached the world");

    h.get_by_role_and_label(egui::accesskit::Role::Slider, "Substeps").set_value_accesskit(9.0);
    h.run();
    assert_eq!(h.state().world().settings.substeps, 9, "the slider reached the world");

    assert_eq!(h.get_by_label("Position correction").value().as_deref(), Some("Soft"));
    click(&mut h, "Position correction");
    click(&mut h, "Baumgarte");
    assert_eq!(h.state().world().settings.position_correction, collidoscope::world::PositionCorrection::Baumgarte);

    let w = h.state().world();
    assert_eq!(w.step_count(), 20, "a settings change must not reset the world");
    assert_eq!(state(w), before, "nor move any body");

    // The changed settings are used from the next step on.
    h.get_by_label("⏭ Step").click();
    h.run();
    assert_eq!(h.state().world().step_count(), 21);
    assert_eq!(h.state().world().settings.substeps, 9);

    click(&mut h, "⟲ Back to the scene's values");
    assert_eq!(h.state().world().settings, scene_settings);
    assert_eq!(h.state().world().step_count(), 21);
}

/// A control that does nothing under the current choice is disabled: the grid's cell size
/// unless the broad phase is the grid, the CCD speed threshold while CCD is off.
#[test]
fn controls_that_do_nothing_under_the_current_choice_are_disabled() {
    let mut h = harness(showing(app_with(small_scene()), &[PanelId::Settings]));
    let disabled = |h: &Harness<'static, App>, label: &str| {
        h.get_by_role_and_label(egui::accesskit::Role::Slider, label).accesskit_node().is_disabled()
    };
    assert!(disabled(&h, "Grid cell size"), "Auto sizes its own grid");
    assert!(!disabled(&h, "CCD speed threshold"), "rapier3d's side of an A/B uses it under the default Speculative");
    let set = |h: &mut Harness<'static, App>, edit: &dyn Fn(&mut collidoscope::settings::Settings)| {
        let mut s = h.state().world().settings.clone();
        edit(&mut s);
        h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s)));
        h.run();
    };
    set(&mut h, &|s| s.ccd = collidoscope::ccd::CcdMode::Off);
    assert!(disabled(&h, "CCD speed threshold"), "CCD off sweeps nothing");
    set(&mut h, &|s| {
        s.broad_phase = collidoscope::broadphase::BroadPhaseKind::Grid;
        s.ccd = collidoscope::ccd::CcdMode::Toi;
    });
    assert!(!disabled(&h, "Grid cell size"), "the grid uses it");
    assert!(!disabled(&h, "CCD speed threshold"), "Toi uses it");
    // Position correction: each mode's own parameters.
    assert!(disabled(&h, "Baumgarte factor"), "Soft ignores the Baumgarte factor");
    assert!(!disabled(&h, "Contact hertz") && !disabled(&h, "Damping ratio"));
    set(&mut h, &|s| s.position_correction = collidoscope::world::PositionCorrection::Baumgarte);
    assert!(!disabled(&h, "Baumgarte factor"));
    assert!(disabled(&h, "Contact hertz") && disabled(&h, "Damping ratio"), "Baumgarte ignores the spring");
    // The body-pair cache is kept only with warm starting; the sleep thresholds only while sleeping.
    assert!(!disabled(&h, "Pair cache distance") && !disabled(&h, "Sleep speed") && !disabled(&h, "Sleep time"));
    set(&mut h, &|s| {
        s.warm_starting = false;
        s.sleeping = false;
    });
    assert!(disabled(&h, "Pair cache distance"), "no pair cache without warm starting");
    assert!(disabled(&h, "Sleep speed") && disabled(&h, "Sleep time"), "sleeping is off");
    // Every row the panel shows is a setting's, under its label from the settings' facts.
    for f in collidoscope::settings::Settings::FACTS {
        assert!(h.query_all_by_label(f.label).next().is_some(), "no row for {} ({})", f.name, f.label);
    }
}

#[test]
fn step_while_paused_advances_exactly_one_step() {
    let mut h = harness(app_with(small_scene()));
    assert!(!h.state().simulation().playing);
    h.run_steps(10);
    assert_eq!(h.state().world().step_count(), 0, "paused frames do not step");

    h.get_by_label("⏭ Step").click();
    h.run();
    assert_eq!(h.state().world().step_count(), 1);
    h.run_steps(10);
    assert_eq!(h.state().world().step_count(), 1, "still paused after a step");

    h.key_press(egui::Key::S);
    h.run();
    assert_eq!(h.state().world().step_count(), 2);
    h.key_press(egui::Key::ArrowRight);
    h.run();
    assert_eq!(h.state().world().step_count(), 3);
    assert_eq!(h.state().simulation().history.len(), 3, "each step is in the profiler history");
    h.get_by_label("step 3");

    // Stepping while playing pauses first, then runs one step.
    h.state_mut().simulation_mut().playing = true;
    h.key_press(egui::Key::S);
    h.step();
    assert!(!h.state().simulation().playing);
    assert_eq!(h.state().world().step_count(), 4);
}

/// Once everything sleeps the profiler says the broad phase reused its pairs; a Step after the
/// user drags nothing keeps saying so, and waking a body brings the full broad phase back.
#[test]
fn profiler_says_when_a_sleeping_world_reuses_its_pairs() {
    let mut scene = small_scene();
    scene.bodies.truncate(2); // the floor and the resting crate: asleep within a second
    let mut h = harness(showing(app_with(scene), &[PanelId::Profiler]));
    for _ in 0..240 {
        h.state_mut().simulation_mut().step_once();
    }
    assert!(h.state().world().bodies()[1].is_asleep(), "the crate fell asleep");
    h.run();
    let note = "Broad phase: last update's pairs reused (no body awake, nothing edited)";
    h.get_by_label(note);
    // Waking the crate (as a drag does) runs the broad phase again on the next step.
    h.state_mut().simulation_mut().world.body_mut(1).linvel = Vec3::new(0.0, 1.0, 0.0);
    h.state_mut().simulation_mut().step_once();
    h.run();
    assert!(h.query_by_label(note).is_none(), "the note stays after a wake");
}

#[test]
fn broken_scene_shows_its_error_and_keeps_the_current_scene() {
    let dir = temp_dir("broken");
    let good = dir.join("good.ron");
    small_scene().save(&good).unwrap();
    std::fs::write(
        dir.join("broken.ron"),
        "(\n    name: \"Broken\",\n    bodies: [ (shape: Sphere(radius: -1.0)) ],\n)\n",
    )
    .unwrap();

    let mut app = App::open(&good, Viewport::new(None)).unwrap();
    app.set_scene_dir(dir.clone());
    for _ in 0..5 {
        app.simulation_mut().step_once();
    }
    let mut h = harness(app);
    let before = state(h.state().world());
    let button =
        |h: &Harness<'static, App>, name: &str| h.get_by_role_and_label(egui::accesskit::Role::Button, name).rect();
    button(&h, "good.ron");
    let mentions = |h: &Harness<'static, App>| h.query_all_by_label_contains("broken.ron:3:").count();
    assert_eq!(mentions(&h), 0);
    h.get_by_role_and_label(egui::accesskit::Role::Button, "broken.ron").click();
    h.run();
    let error = h.state().scene_error().expect("the load error is kept").to_string();
    assert!(error.contains("broken.ron:3:"), "FILE:LINE:COL in {error:?}");
    assert_eq!(mentions(&h), 1, "the error is shown in the window");
    h.get_by_label("The current scene stays open.");
    assert_eq!(h.state().simulation().scene.name, "Test drop");
    assert_eq!(h.state().world().step_count(), 5);
    assert_eq!(state(h.state().world()), before);

    // A good file still opens, and the error goes away.
    h.get_by_role_and_label(egui::accesskit::Role::Button, "good.ron").click();
    h.run();
    assert!(h.state().scene_error().is_none());
    assert_eq!(h.state().world().step_count(), 0, "a freshly opened scene starts at step 0");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn selecting_a_body_shows_its_inspector() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    assert!(h.query_by_label("Click a body in the 3D view, or pick one below.").is_none(), "first run: no inspector");
    click(&mut h, "Inspector");
    h.get_by_label("Click a body in the 3D view, or pick one below.");
    assert!(h.query_by_label("Body 2").is_none());

    // From the body list.
    h.get_by_label("All bodies (3)").click();
    h.run();
    h.get_by_label("#2 ball (Dynamic sphere)").click();
    h.run();
    assert_eq!(h.state().view().selected, Some(2));
    h.get_by_label("Body 2");
    h.get_by_label("sphere r=0.5");
    h.get_by_label_contains("kg");

    // A body touching another lists its contacts.
    h.state_mut().apply_view_action(ViewAction::Select(Some(1)));
    for _ in 0..3 {
        h.state_mut().simulation_mut().step_once();
    }
    h.run();
    h.get_by_label("Body 1");
    h.get_by_label("Contacts (1)");
    h.get_by_label_contains("with #0 floor");

    // By clicking the ball in the 3D view: project its centre with the viewport's camera.
    let (camera, rect) = (h.state().viewport().camera().clone(), h.state().viewport().rect());
    let ball = h.state().world().bodies()[2].pose.translation;
    let clip = camera.view_proj(rect.aspect_ratio()) * ball.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let pos =
        egui::pos2(rect.left() + (ndc.x + 1.0) * 0.5 * rect.width(), rect.top() + (1.0 - ndc.y) * 0.5 * rect.height());
    assert!(rect.contains(pos), "the ball is in view at {pos:?} of {rect:?}");
    h.state_mut().apply_view_action(ViewAction::Select(None));
    h.run();
    assert!(h.query_by_label("Body 2").is_none());
    h.hover_at(pos);
    h.drag_at(pos);
    h.drop_at(pos);
    h.run();
    assert_eq!(h.state().view().selected, Some(2), "a click on the ball selects it");
    h.get_by_label("Body 2");
}

/// The Sweep panel runs the open scene over a range of a setting in the background, plots it,
/// draws a heat map for two settings, and applies a point to the live settings.
#[test]
fn the_sweep_panel_runs_in_the_background_and_applies_a_point() {
    let mut app = showing(app_with(small_scene()), &[PanelId::Sweep]);
    app.sweep_panel_mut().steps = 30;
    let mut h = harness(app);
    h.run();
    super::materials::run_sweep(&mut h);
    let n = h.state_mut().sweep_panel_mut().result.as_ref().map(|r| r.outcomes.len());
    assert_eq!(n, Some(6), "six points of slop 0..0.01");
    h.get_by_label_contains("Cheapest meeting the bounds: slop=");
    h.get_all_by_label("Apply").next().unwrap().scroll_to_me();
    h.run();
    h.get_all_by_label("Apply").next().unwrap().click();
    h.run();
    let chosen = h
        .state_mut()
        .sweep_panel_mut()
        .result
        .as_ref()
        .unwrap()
        .points
        .iter()
        .map(|p| p.settings.slop)
        .collect::<Vec<_>>();
    assert!(chosen.contains(&h.state().world().settings.slop), "an Apply set one of the swept values");

    // Two settings: a heat map of 3 × 2 points.
    {
        let panel = h.state_mut().sweep_panel_mut();
        panel.two = true;
        panel.axes[0].count = 3;
        panel.axes[1].count = 2;
    }
    super::materials::run_sweep(&mut h);
    let r = h.state_mut().sweep_panel_mut().result.as_ref().map(|r| (r.fields.clone(), r.outcomes.len()));
    assert_eq!(r, Some((vec!["slop".to_string(), "substeps".to_string()], 6)));
    h.get_by_label_contains("(columns) × substeps (rows)");
}

/// Where each toolbar control sits.
fn toolbar_rects(h: &Harness<'static, App>) -> Vec<egui::Rect> {
    ["⏭ Step", "⟲ Reset", "📽 Presentation"].iter().map(|l| h.get_by_label(l).rect()).collect()
}

/// The toolbar keeps every control in place across play and pause and from 1 to 9,999,999
/// steps, in one row, at the default window size and at a narrow one (where the panel toggles
/// fold into a menu).
#[test]
fn the_toolbar_never_moves() {
    for width in [1600.0, 1100.0] {
        let mut h = Harness::builder()
            .with_size(egui::vec2(width, 1000.0))
            .build_ui_state(|ui, app: &mut App| app.show(ui), app_with(small_scene()));
        h.run();
        let start = toolbar_rects(&h);
        let row = start[0].center().y;
        assert!(start.iter().all(|r| (r.center().y - row).abs() < 1.0), "one row at {width}: {start:?}");
        let folded = h.query_by_label("Panels…").is_some();
        assert_eq!(folded, width < 1600.0, "the toggles fold into a menu only in a narrow window");
        for steps in [1u64, 42, 9_999_999] {
            for playing in [true, false] {
                let world = &mut h.state_mut().simulation_mut().world;
                let mut snap = world.snapshot();
                snap.step = steps;
                world.restore(&snap).unwrap();
                h.state_mut().simulation_mut().playing = playing;
                h.run_steps(2);
                assert_eq!(toolbar_rects(&h), start, "width {width}, {steps} steps, playing {playing}");
                h.get_by_label(if playing { "⏸ Pause" } else { "▶ Play" });
            }
        }
        h.state_mut().simulation_mut().playing = false;
    }
}

/// A scene opens paused on its first step; R puts the scene and the camera back as they opened.
#[test]
fn the_app_opens_paused_and_reset_restores_the_camera() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    h.run();
    assert!(!h.state().simulation().playing, "opens paused");
    assert_eq!(h.state().world().step_count(), 0);
    let home = h.state_mut().viewport_mut().camera().clone();
    h.state_mut().viewport_mut().camera_mut().orbit(1.0, -3.0);
    h.state_mut().viewport_mut().camera_mut().zoom(0.2);
    assert!(h.state_mut().viewport_mut().camera().pitch >= 0.0, "orbit stays above the target");
    click(&mut h, "⏭ Step");
    h.key_press(egui::Key::R);
    h.run();
    assert_eq!(h.state().world().step_count(), 0);
    assert_eq!(*h.state_mut().viewport_mut().camera(), home, "R restores the camera");
    assert!(!h.state().simulation().playing);
}

/// Selecting a body starts its history: the inspector plots it and counts contact changes.
#[test]
fn the_inspector_plots_the_selected_body_over_time() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    h.state_mut().apply(collidoscope::app::Command::Select(Some(2)));
    h.run();
    h.get_by_label("Play or step to plot this body.");
    for _ in 0..90 {
        h.state_mut().step_once();
    }
    h.run();
    assert_eq!(h.state().simulation().trace.len(), 90);
    assert_eq!(h.state().simulation().trace.body(), Some(2));
    let heights: Vec<f64> = h.state().simulation().trace.series(0).map(|p| p[1]).collect();
    assert!(heights[0] > heights[89], "the ball fell: {} -> {}", heights[0], heights[89]);
    h.get_by_label_contains("contact changes since selected: ");
    h.get_by_label("Over time");
}

/// The path field beside "Open file…" opens a typed path (for desktops without a file dialog);
/// a bad path shows the error and keeps the scene.
#[test]
fn the_path_field_opens_a_typed_scene() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    h.state_mut().open_panels_mut().scenes = true;
    h.run();
    let scenes = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes");
    h.get_by_label("Path").click();
    h.run();
    h.get_by_label("Path").type_text(scenes.join("nope.ron").to_str().unwrap());
    h.run();
    click(&mut h, "Open");
    assert!(h.state().scene_error().is_some_and(|e| e.contains("nope.ron")), "{:?}", h.state().scene_error());
    assert_eq!(h.state().simulation().scene.name, "Test drop");
    h.state_mut().scenes_panel_mut().typed_path = scenes.join("box_stack.ron").to_string_lossy().into_owned();
    h.run();
    click(&mut h, "Open");
    assert_eq!(h.state().simulation().scene.name, "Box stack");
    assert!(h.state().scene_error().is_none());
}

/// A settings change leaves a marker on the profiler's plot with what changed; the counters
/// include the broad phase's; a nonsensical ε is flagged beside the setting.
#[test]
fn the_profiler_marks_setting_changes_and_the_settings_flag_a_large_epsilon() {
    let mut h = harness(showing(app_with(small_scene()), &[PanelId::Profiler, PanelId::Settings]));
    h.run();
    for _ in 0..5 {
        h.state_mut().step_once();
    }
    // Two edits at one step (a slider dragged while paused) make one marker.
    let mut s = h.state().world().settings.clone();
    s.substeps = 6;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s.clone())));
    s.substeps = 8;
    s.contact_epsilon = 1e-2;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s)));
    for _ in 0..5 {
        h.state_mut().step_once();
    }
    h.run();
    let markers: Vec<(u64, String)> =
        h.state().simulation().history.markers().map(|(s, w)| (s, w.to_string())).collect();
    assert_eq!(markers.len(), 1, "{markers:?}");
    assert_eq!(markers[0].0, 5);
    assert!(markers[0].1.contains("substeps 4 -> 8") && markers[0].1.contains("contact_epsilon"), "{markers:?}");
    h.get_by_label("bp candidates");
    h.get_by_label_contains("⚠ ε lets boxes count as touching up to √ε = 100 mm apart");
}

/// A slop deeper than a quarter of the thinnest fixed body is flagged under the slop, naming
/// that body; a slop within it is not.
#[test]
fn the_settings_flag_a_slop_too_deep_for_the_floor() {
    let mut h = harness(showing(app_with(small_scene()), &[PanelId::Settings]));
    h.run();
    assert!(h.query_by_label_contains("⚠ slop").is_none(), "the default slop on a 1 m floor");
    let mut s = h.state().world().settings.clone();
    s.slop = 0.3;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s.clone())));
    h.run();
    h.get_by_label_contains(
        "⚠ slop 300 mm lets resting bodies sink 150 mm into what they rest on, and 'floor' is only 1.00 m thick",
    );
    s.slop = 0.25;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s)));
    h.run();
    assert!(h.query_by_label_contains("⚠ slop").is_none(), "a quarter of the floor's thickness");
}

/// A scene may say where the camera starts; the app opens there and Reset goes back there.
#[test]
fn a_scene_camera_is_where_the_app_opens_and_resets() {
    let mut scene = small_scene();
    let (eye, target) = (Vec3::new(-3.0, 1.0, 2.0), Vec3::new(0.0, 0.5, 0.0));
    scene.camera = Some(collidoscope::scene::CameraDesc { eye, target });
    let mut h = harness(app_with(scene));
    h.run();
    let cam = h.state_mut().viewport_mut().camera().clone();
    assert!(cam.eye().distance(eye) < 1e-3 && cam.target == target, "{cam:?}");
    h.state_mut().viewport_mut().camera_mut().zoom(3.0);
    h.key_press(egui::Key::R);
    h.run();
    assert!(h.state_mut().viewport_mut().camera().eye().distance(eye) < 1e-3);
}

/// The first run shows the scene browser only: the 3D view has most of the window.
#[test]
fn the_first_run_gives_the_view_most_of_the_window() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    h.run();
    let view = h.state().viewport().rect();
    assert!(view.width() >= 0.7 * 1600.0 && view.height() >= 0.85 * 1000.0, "view {view:?}");
    h.get_by_label("Play when a scene opens");
    assert!(h.query_by_label("Warm starting").is_none(), "no settings panel");
    assert!(h.query_by_label("bp candidates").is_none(), "no profiler");
}

/// Panels of one side share a dock as tabs, one shown at a time, each with its own width; the
/// dock collapses to a strip and comes back.
#[test]
fn side_panels_are_tabs_of_a_dock_that_collapses() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    let wide = h.state().viewport().rect().width();
    click(&mut h, "Settings");
    h.get_by_label("Warm starting");
    assert!(h.query_by_label("Play when a scene opens").is_none(), "the Scenes tab is behind");
    // The dock's tab (after the toolbar's button of the same name) brings Scenes forward.
    h.get_all_by_label("Scenes").nth(1).expect("a Scenes tab").click();
    h.run();
    h.get_by_label("Play when a scene opens");
    assert!(h.query_by_label("Warm starting").is_none());
    assert!(h.state().open_panels().settings, "Settings stays open behind its tab");
    h.get_by_label("«").click();
    h.run();
    h.run();
    assert!(h.state().viewport().rect().width() > wide + 200.0, "the collapsed dock gives the view its width");
    h.get_by_label("»").click();
    h.run();
    h.get_by_label("Play when a scene opens");
}

/// A/B from a layout with both docks and the profiler open: both views get half the window;
/// ending A/B brings the panels back and clears its messages.
#[test]
fn ab_views_get_half_the_window_each_and_end_cleanly() {
    let app = showing(
        app_with(small_scene()),
        &[PanelId::Settings, PanelId::Inspector, PanelId::Profiler, PanelId::Timeline],
    );
    let mut h = harness(app);
    h.run();
    click(&mut h, "A/B from start");
    h.run();
    h.run();
    let b = h.state().viewport().rect();
    assert!(b.width() >= 0.49 * 1600.0, "B's view {b:?}");
    assert!(h.query_by_label("Warm starting").is_none() && h.query_by_label("bp candidates").is_none());
    assert!(h.state().simulation().record.status.is_some(), "A/B says what it compares");
    click(&mut h, "End A/B");
    h.run();
    assert!(h.state().simulation().record.status.is_none(), "the A/B message went with A/B");
    h.get_by_label("Warm starting");
    assert!(h.state().open_panels().profiler && h.state().open_panels().inspector, "the panels are back");
}

/// Presentation mode shows the view, the play controls and one chosen panel only.
#[test]
fn presentation_mode_shows_the_view_the_controls_and_one_panel() {
    let app = showing(app_with(small_scene()), &[PanelId::Settings, PanelId::Inspector, PanelId::Profiler]);
    let mut h = harness(app);
    h.run();
    h.key_press(egui::Key::P);
    h.run();
    h.run();
    assert!(h.state().presentation());
    h.get_by_label("▶ Play");
    assert!(h.query_by_label("Frame all").is_none(), "no panel toggles or view buttons");
    assert!(h.query_by_label("Warm starting").is_none() && h.query_by_label("bp candidates").is_none());
    h.get_by_label("Play when a scene opens");
    h.state_mut().open_panels_mut().presenting = None;
    h.run();
    h.run();
    let view = h.state().viewport().rect();
    let zoomed_width = 1600.0 / collidoscope::app::PRESENTATION_ZOOM;
    assert!(view.width() >= 0.98 * zoomed_width, "with no panel the view is the whole width: {view:?}");
    h.key_press(egui::Key::P);
    h.run();
    h.get_by_label("Warm starting");
}

/// X draws the static bodies see-through (the View panel's box follows it) and back.
#[test]
fn key_x_draws_static_bodies_see_through() {
    let mut h = harness(showing(app_with(small_scene()), &[PanelId::View]));
    h.run();
    assert_eq!(h.state().viewport().stats().see_through_instances, 0);
    h.key_press(egui::Key::X);
    h.run();
    h.run();
    assert!(h.state().view().see_through_statics);
    assert_eq!(h.state().viewport().stats().see_through_instances, 1, "the floor");
    let toggled = h.get_by_label("See-through static bodies (X)").accesskit_node().toggled();
    assert_eq!(toggled, Some(egui::accesskit::Toggled::True), "the View panel's box shows it");
    h.get_by_label("See-through static bodies (X)").click();
    h.run();
    h.run();
    assert!(!h.state().view().see_through_statics, "the box turns it off");
    assert_eq!(h.state().viewport().stats().see_through_instances, 0);
}

/// C keeps the camera on the selected body; a fast body leaves a trail the view draws.
#[test]
fn follow_keeps_the_camera_on_the_selected_body_and_fast_bodies_leave_trails() {
    let mut scene = small_scene();
    scene.bodies[2].linear_velocity = Vec3::new(30.0, 0.0, 0.0);
    let mut h = harness(app_with(scene));
    h.run();
    h.state_mut().apply(collidoscope::app::Command::Select(Some(2)));
    h.key_press(egui::Key::C);
    h.run();
    for _ in 0..20 {
        h.state_mut().step_once();
    }
    h.run();
    let ball = h.state().world().bodies()[2].pose.translation;
    let target = h.state_mut().viewport_mut().camera().target;
    assert!(target.distance(ball) < 1e-4, "target {target} ball {ball}");
    let trails = &h.state().view().trails;
    assert_eq!(trails.iter().map(|t| (t.body, t.points.len())).collect::<Vec<_>>(), vec![(2, 20)]);
}

/// A preferences file that cannot be read starts the app with defaults and says so.
#[test]
fn unreadable_preferences_are_announced() {
    let (p, msg) = collidoscope::app::Persisted::parse(Some("(open: (scenes: maybe))"));
    assert!(p.is_none());
    let msg = msg.expect("a message");
    assert!(msg.contains("could not be read"), "{msg}");
    let (p, msg) = collidoscope::app::Persisted::parse(Some("(autoplay: true)"));
    assert!(p.is_some_and(|p| p.autoplay) && msg.is_none());
    let mut app = app_with(small_scene());
    app.announce("The saved preferences could not be read".into());
    let mut h = harness(app);
    h.run();
    h.get_by_label("The saved preferences could not be read");
}

/// Issue 20: the thread count is a preference of the app, kept with its other preferences and
/// not in the scene; the open world steps on it, and a newly opened one too.
#[test]
fn the_thread_count_is_a_kept_preference_the_world_steps_on() {
    let mut app = app_with(small_scene());
    assert_eq!(app.persisted().profiler.threads, collidoscope::parallel::available(), "default: every core");
    let mut prefs = app.persisted();
    // One thread: a count the panel's field accepts on any machine, and not the default on any
    // machine with more than one core.
    prefs.profiler.threads = 1;
    app.restore(prefs);
    let mut h = harness(app);
    h.run();
    assert_eq!(h.state().world().threads(), 1);
    assert_eq!(h.state().persisted().profiler.threads, 1, "kept for the next run");
    let fresh = Simulation::new(small_scene(), None).unwrap();
    *h.state_mut().simulation_mut() = fresh;
    h.state_mut().simulation_mut().world.set_threads(2);
    h.run();
    assert_eq!(h.state().world().threads(), 1, "a newly opened world steps on it too");
}

/// A body pinned to the inspector's plot keeps being plotted after another is selected, so two
/// bodies' histories can be compared; unpinning drops it.
#[test]
fn the_inspector_plots_pinned_bodies_beside_the_selected_one() {
    let mut h = harness(app_with(small_scene()));
    h.run();
    h.state_mut().apply(collidoscope::app::Command::Select(Some(2)));
    h.run();
    click(&mut h, "📌 Pin to the plot");
    h.state_mut().apply(collidoscope::app::Command::Select(Some(1)));
    for _ in 0..30 {
        h.state_mut().step_once();
    }
    h.run();
    let sim = h.state().simulation();
    assert_eq!(sim.pinned.iter().map(|t| (t.body(), t.len())).collect::<Vec<_>>(), vec![(Some(2), 30)]);
    assert_eq!((sim.trace.body(), sim.trace.len()), (Some(1), 30));
    h.get_by_label("#1 (selected)");
    h.get_by_label("#2 (pinned)");
    click(&mut h, "✖ #2");
    assert!(h.state().simulation().pinned.is_empty());
    assert!(h.query_by_label("#2 (pinned)").is_none());
}

/// Issue 19: a scene naming a mesh file that is missing shows the error with the path it tried
/// and keeps the current scene; the shipped mesh_import.ron opens with its imported meshes.
#[test]
fn a_scene_whose_mesh_file_is_missing_keeps_the_current_scene() {
    let dir = temp_dir("mesh-import");
    std::fs::write(dir.join("rocks.ron"), "(bodies: [(kind: Static, shape: TriangleMesh(file: \"assets/gone.obj\"))])")
        .unwrap();
    let mut app = app_with(small_scene());
    for _ in 0..3 {
        app.simulation_mut().step_once();
    }
    let before = state(app.world());
    app.open_scene(&dir.join("rocks.ron"));
    let error = app.scene_error().expect("the load error is kept").to_string();
    assert!(error.contains(&dir.join("assets/gone.obj").display().to_string()), "{error}");
    assert_eq!(app.simulation().scene.name, "Test drop");
    assert_eq!((app.world().step_count(), state(app.world())), (3, before));

    app.open_scene(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/mesh_import.ron"));
    assert!(app.scene_error().is_none(), "{:?}", app.scene_error());
    assert_eq!(app.simulation().scene.name, "Mesh import");
    assert!(app.world().bodies()[0].shape.is_mesh());
    let mut h = harness(app);
    h.run();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// On a scene with meshes, each A/B side says which internal-edge mode it runs, and the A/B
/// settings grid sets B's mode apart from A's.
#[test]
fn ab_on_a_mesh_scene_names_each_sides_internal_edge_mode() {
    use collidoscope::narrowphase::mesh::InternalEdges;
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ghost_lab.ron")).unwrap();
    let mut h = harness(showing(app_with(scene), &[PanelId::Timeline]));
    h.run();
    click(&mut h, "A/B from start");
    h.run();
    h.run();
    assert_eq!(h.query_all_by_label_contains("internal edges Voided features").count(), 2, "both sides say it");
    // B is the app's world: its mode goes through the settings like any other change.
    let mut s = h.state().world().settings.clone();
    s.internal_edges = InternalEdges::None;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s)));
    h.run();
    h.run();
    h.get_by_label_contains("internal edges None");
    h.get_by_label_contains("internal edges Voided features");
    assert!(h.query_all_by_label("Internal edges").count() >= 1, "a row in the A/B grid");
}

/// A body asleep lists the contacts its island fell asleep with, as the view draws them (its
/// pairs are not tested while it sleeps, and the inspector said "None in the last step" under a
/// view showing its contact points).
#[test]
fn the_inspector_lists_a_sleeping_bodys_resting_contacts() {
    let mut app = showing(app_with(small_scene()), &[PanelId::Inspector]);
    let mut steps = 0;
    while !app.world().bodies()[1].is_asleep() {
        app.simulation_mut().step_once();
        steps += 1;
        assert!(steps < 600, "the crate on the floor falls asleep");
    }
    // The step it fell asleep in still tested its pair; the next does not.
    app.simulation_mut().step_once();
    assert!(app.world().bodies()[1].is_asleep());
    assert!(app.world().contacts().iter().all(|c| c.a != 1 && c.b != 1), "no pair of the crate is tested");
    app.apply_view_action(ViewAction::Select(Some(1)));
    let mut h = harness(app);
    h.run();
    h.get_by_label("Body 1");
    h.get_by_label("Contacts (1)");
    h.get_by_label_contains("with #0 floor");
    h.get_by_label_contains("the contacts its island fell asleep with");
    assert!(h.query_by_label("None in the last step.").is_none());
}
