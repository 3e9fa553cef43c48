//! Every shipped lesson walked in the app (egui_kittest) from its first step to its last with the
//! lesson panel's own buttons: each step's settings, camera, layers and panels in force; a
//! prediction answered before its run and the outcome shown after; Restart step and Back
//! giving the step's start again, bit for bit (same state hash).
#![cfg(feature = "gui")]

use collidoscope::app::viewport::{Camera, Viewport};
use collidoscope::app::{App, PanelId, setup_style};
use collidoscope::ccd::CcdMode;
use collidoscope::lesson::{Lesson, PairIteration, Phase, Start, apply_settings, text};
use collidoscope::scene::Scene;
use collidoscope::session::pause::PauseAt;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::{NodeT, Queryable};
use std::path::{Path, PathBuf};

fn lessons() -> Vec<PathBuf> {
    Lesson::files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons")).unwrap()
}

fn harness(lesson: &Path, size: egui::Vec2) -> Harness<'static, App> {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
    let mut app = App::open(&scene, Viewport::new(None)).unwrap();
    app.open_lesson(lesson, 0).unwrap_or_else(|e| panic!("{e}"));
    app.fixed_frame_steps = true;
    let mut h = Harness::builder().with_size(size).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    setup_style(&h.ctx);
    h.run();
    h
}

/// A few frames: the app repaints without end while it plays, so `run` would not settle.
fn frames(h: &mut Harness<'static, App>) {
    h.run_steps(3);
}

fn click(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).click();
    frames(h);
}

fn step(h: &Harness<'static, App>) -> usize {
    h.state().lesson_player().unwrap().step()
}

#[test]
fn every_shipped_lesson_walks_from_first_step_to_last_in_the_app() {
    for file in lessons() {
        let (lesson, scene) = Lesson::load(&file).unwrap();
        let mut h = harness(&file, egui::vec2(1600.0, 1000.0));
        let mut expected = scene.settings.clone();
        let mut entered = Vec::new();
        for (k, s) in lesson.steps.iter().enumerate() {
            let at = format!("{} step {}", file.display(), k + 1);
            assert_eq!(step(&h), k, "{at}");
            match &s.start {
                Start::SceneStart => expected = scene.settings.clone(),
                Start::Snapshot(snap) => expected = snap.settings.clone(),
                Start::Continue => {}
            }
            expected = apply_settings(&expected, &s.settings).unwrap();
            let app = h.state();
            assert_eq!(app.world().settings, expected, "{at}: settings in force");
            if let Some(c) = s.camera {
                let want = Camera::looking(c.eye, c.target);
                let cam = app.viewport().camera();
                assert!(cam.eye().distance(want.eye()) < 1e-3 && cam.target == want.target, "{at}: camera");
            }
            for p in &s.panels {
                let p: PanelId = p.parse().unwrap();
                assert!(app.open_panels().visible(p), "{at}: panel {p:?} on screen");
            }
            if let Some(layers) = &s.layers {
                for name in collidoscope::app::viewport::Layers::NAMES {
                    let mut l = app.view().layers.clone();
                    l.set(name, !layers.iter().any(|x| x == name)).unwrap();
                    assert_ne!(l, app.view().layers, "{at}: layer {name} as the step says");
                }
            }
            if let Some(see_through) = s.see_through {
                assert_eq!(app.view().see_through_statics, see_through, "{at}: static bodies as the step says");
            }
            if let Some(name) = &s.highlight {
                let i = app.view().selected.expect("a body is highlighted");
                assert_eq!(app.world().bodies()[i].name.as_ref(), Some(name), "{at}");
            }
            h.get_by_label_contains(&format!("Step {} of {}", k + 1, lesson.steps.len()));
            if let Some(it) = s.pair_iteration {
                // The Pair panel's GJK slider comes first, then EPA's; both read "iteration".
                let (name, want) = it.parts();
                let sliders: Vec<(f64, egui::Rect)> = h
                    .get_all_by_role_and_label(egui::accesskit::Role::Slider, "iteration")
                    .map(|n| (n.accesskit_node().numeric_value().expect("a slider has a value"), n.rect()))
                    .collect();
                assert_eq!(sliders.len(), 2, "{at}: the GJK and EPA sliders");
                let (shown, rect) = sliders[usize::from(matches!(it, PairIteration::Epa(_)))];
                assert_eq!(shown, want as f64, "{at}: the {name} slider at the step's iteration");
                let screen = h.ctx.content_rect();
                assert!(screen.contains_rect(rect), "{at}: the {name} slider {rect:?} scrolled into view");
                assert!(h.state().lesson_error().is_none(), "{at}: {:?}", h.state().lesson_error());
            }
            let hash = h.state().world().hash();
            entered.push(hash);
            if let Some(p) = &s.prediction {
                // The run waits for the answer: Play is held.
                click(&mut h, "▶ Play");
                assert!(!h.state().simulation().playing, "{at}: no run before the answer");
                let wrong = (p.answer + 1) % p.choices.len();
                let letter = char::from(b'A' + wrong as u8);
                h.get_by_label(&format!("{letter} {}", text::plain(&p.choices[wrong]))).click();
                frames(&mut h);
                assert_eq!(h.state().lesson_player().unwrap().answer(), Some(wrong), "{at}");
            }
            if s.run.stops() {
                click(&mut h, &format!("▶ Run {}", s.run.describe()));
                let mut frames = 0;
                while h.state().lesson_player().unwrap().phase() != Phase::Done {
                    h.step();
                    frames += 1;
                    assert!(frames < 2000, "{at}: the run stops");
                }
                assert!(!h.state().simulation().playing, "{at}");
                assert!(h.query_by_label_contains("Stopped at step").is_some(), "{at}: the stop is named");
                if let Some(p) = &s.prediction {
                    let letter = |i: usize| char::from(b'A' + i as u8);
                    let verdict = format!(
                        "You predicted {}; what happened is {}.",
                        letter((p.answer + 1) % p.choices.len()),
                        letter(p.answer)
                    );
                    assert!(h.query_by_label(&verdict).is_some(), "{at}: {verdict}");
                }
                click(&mut h, "⟲ Restart");
                assert_eq!(h.state().world().hash(), hash, "{at}: Restart step is exact");
                assert_eq!(h.state().lesson_player().unwrap().phase(), Phase::Ready);
            }
            if k + 1 < lesson.steps.len() {
                click(&mut h, "Next ▶");
                if k > 0 {
                    // Back from here and Next again: the previous start exactly, then this one.
                    let here = h.state().world().hash();
                    click(&mut h, "◀ Back");
                    assert_eq!((step(&h), h.state().world().hash()), (k, hash), "{at}: Back is exact");
                    click(&mut h, "Next ▶");
                    assert_eq!(h.state().world().hash(), here, "{at}: Next again, the same start");
                }
            }
        }
        // From the last step back to the first, each step's start as it was entered.
        for k in (0..lesson.steps.len() - 1).rev() {
            click(&mut h, "◀ Back");
            assert_eq!(
                (step(&h), h.state().world().hash()),
                (k, entered[k]),
                "{}: Back to step {}",
                file.display(),
                k + 1
            );
        }
    }
}

/// A glyph the fonts lack panics when drawn: every symbol math spans write is drawn once.
#[test]
fn the_apps_fonts_draw_every_symbol_of_the_math_markup() {
    let symbols = text::symbols();
    // The fonts set take effect from the next frame: the symbols are drawn from the second.
    let mut h = Harness::builder().build_ui_state(
        move |ui, shown: &mut bool| {
            if *shown {
                ui.label(symbols.as_str());
                ui.label(egui::RichText::new("✔ ◀ ▶ ⟲ ➕ ⚠ … – ° é").strong());
            }
        },
        false,
    );
    setup_style(&h.ctx);
    h.run();
    *h.state_mut() = true;
    h.run();
}

/// Opening a lesson replaces the scene as opening a scene does: a recording in progress stops
/// and stays on the timeline, and the speed and "pause at" choice stay.
#[test]
fn opening_a_lesson_keeps_the_recording_speed_and_pause_choice() {
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
    let mut app = App::open(&scene, Viewport::new(None)).unwrap();
    let sim = app.simulation_mut();
    sim.speed = 0.5;
    sim.pause.at = PauseAt::Tunneling;
    sim.start_recording().unwrap();
    for _ in 0..7 {
        sim.step_once();
    }
    app.open_lesson(&lessons()[0], 0).unwrap_or_else(|e| panic!("{e}"));
    let sim = app.simulation();
    assert!(app.lesson_player().is_some());
    assert!(!sim.is_recording());
    assert_eq!(sim.record.review.as_ref().map(|r| r.steps()), Some(7), "the recording stays on the timeline");
    assert_eq!((sim.speed, sim.pause.at), (0.5, PauseAt::Tunneling));
}

#[test]
fn a_lesson_opens_at_a_step_and_a_bad_one_keeps_the_current_scene() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/jitter.ron");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
    let mut app = App::open(&scene, Viewport::new(None)).unwrap();
    app.open_lesson(&file, 2).unwrap();
    assert_eq!(app.lesson_player().unwrap().step(), 2);
    assert!(!app.world().settings.warm_starting && app.world().settings.iterations == 8);
    let dir = std::env::temp_dir().join(format!("collidoscope_badlesson_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.ron");
    std::fs::write(&bad, "(title: \"x\", scene: File(\"nope.ron\"), steps: [(text: \"a\")])").unwrap();
    let before = app.world().hash();
    let e = app.open_lesson(&bad, 0).unwrap_err().to_string();
    assert!(e.contains("bad.ron: scene:"), "{e}");
    assert_eq!(app.world().hash(), before, "the current state stays");
    assert_eq!(app.lesson_player().unwrap().step(), 2, "and the open lesson");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_ab_from_the_start_in_a_lesson_starts_from_the_steps_start_and_settings() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/tunneling.ron");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
    let mut app = App::open(&scene, Viewport::new(None)).unwrap();
    // Step 4 ("Time of impact") starts from the scene's start with `ccd = Toi`; the scene file has `Off`.
    app.open_lesson(&file, 4).unwrap();
    assert_eq!(app.world().settings.ccd, CcdMode::Toi);
    let step_start = app.world().clone();
    let sim = app.simulation_mut();
    for _ in 0..3 {
        sim.step_once();
    }
    sim.start_compare(&[("substeps".to_string(), "8".to_string())]).unwrap();
    let a = &sim.record.partner.as_ref().unwrap().world;
    assert_eq!(a.settings, step_start.settings, "A runs the step's settings, not the scene file's");
    assert_eq!(a.hash(), step_start.hash(), "A starts at the step's start");
    assert_eq!((sim.world.settings.ccd, sim.world.settings.substeps), (CcdMode::Toi, 8), "B: the step's, changed");

    // A recording opened over the lesson brings its own scene: the step's start no longer applies.
    let mut other = App::open(&scene, Viewport::new(None)).unwrap();
    other.open_lesson(&file, 4).unwrap();
    let sim = other.simulation_mut();
    assert!(sim.step_start.is_some());
    sim.open_recording(&Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/recordings/box_stack.ron"));
    assert!(sim.record.review.is_some() && sim.step_start.is_none(), "{:?}", sim.record.status);

    // Another scene closes the lesson, and with it the step's start: the scene file's settings.
    app.open_scene(&scene);
    assert!(app.lesson_player().is_none());
    let sim = app.simulation_mut();
    sim.start_compare(&[("substeps".to_string(), "8".to_string())]).unwrap();
    let a = &sim.record.partner.as_ref().unwrap().world;
    assert_eq!(a.settings, sim.scene.settings, "outside a lesson, A runs the scene file's settings");
}

#[test]
fn add_step_from_current_state_captures_the_view_and_saves_the_lesson() {
    let dir = std::env::temp_dir().join(format!("collidoscope_author_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mine.ron");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron");
    std::fs::write(
        &file,
        format!("(title: \"Mine\", scene: File({:?}), steps: [(text: \"Look.\")])", scene.display().to_string()),
    )
    .unwrap();
    let mut h = harness(&file, egui::vec2(1600.0, 1000.0));
    // Some state worth capturing: a few steps, a changed setting, a layer, a body, a panel.
    for _ in 0..5 {
        click(&mut h, "⏭ Step");
    }
    let mut s = h.state().world().settings.clone();
    s.iterations = 6;
    h.state_mut().apply(collidoscope::app::Command::SetSettings(Box::new(s)));
    h.state_mut().view_mut().layers.aabbs = true;
    h.state_mut().view_mut().see_through_statics = true;
    h.state_mut().apply(collidoscope::app::Command::Select(Some(4)));
    h.state_mut().open_panels_mut().show(PanelId::Profiler);
    frames(&mut h);
    let hash = h.state().world().hash();
    let camera = h.state().viewport().camera().clone();
    h.get_by_label("Author: add a step").click();
    frames(&mut h);
    h.get_by_label("Title").click();
    frames(&mut h);
    h.get_by_label("Title").type_text("Six iterations");
    frames(&mut h);
    let multiline = egui::accesskit::Role::MultilineTextInput;
    h.get_by_role(multiline).click();
    frames(&mut h);
    h.get_by_role(multiline).type_text("The stack after five steps, with **six** iterations.");
    frames(&mut h);
    click(&mut h, "➕ Add step from current state");
    assert!(h.state().lesson_error().is_none(), "{:?}", h.state().lesson_error());
    let (saved, _) = Lesson::load(&file).unwrap();
    assert_eq!(saved.steps.len(), 2);
    let st = &saved.steps[1];
    assert_eq!(
        (st.title.as_str(), st.text.as_str()),
        ("Six iterations", "The stack after five steps, with **six** iterations.")
    );
    assert_eq!(st.settings.get("iterations").map(String::as_str), Some("6"));
    assert_eq!(st.highlight.as_deref(), Some("top box"));
    assert!(st.layers.as_ref().unwrap().iter().any(|l| l == "aabbs"));
    assert_eq!(st.see_through, Some(true));
    assert!(st.panels.iter().any(|p| p == "profiler"));
    let c = st.camera.unwrap();
    assert!(c.eye.distance(camera.eye()) < 1e-4 && c.target == camera.target);
    // Going to the new step restores the captured state exactly, the view's see-through statics
    // too.
    h.state_mut().view_mut().see_through_statics = false;
    click(&mut h, "Next ▶");
    assert_eq!(step(&h), 1);
    assert!(h.state().view().see_through_statics);
    assert_eq!(h.state().world().hash(), hash);
    assert_eq!(h.state().world().step_count(), 5);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With the Pair panel open on a named pair, "Add step" records the partner and the GJK/EPA
/// slider last moved; the new step opens the panel on that pair at that iteration.
#[test]
fn add_step_captures_the_pair_panels_partner_and_slider() {
    let dir = std::env::temp_dir().join(format!("collidoscope_author_pair_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("pair.ron");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/narrowphase_hulls_gjk.ron");
    std::fs::write(
        &file,
        format!(
            "(title: \"Pair\", scene: File({:?}), steps: [(text: \"Look.\", panels: [\"pair\"], \
             highlight: \"wedge (drag me)\", partner: \"gem\", pair_iteration: Gjk(0))])",
            scene.display().to_string()
        ),
    )
    .unwrap();
    let mut h = harness(&file, egui::vec2(1600.0, 1000.0));
    let gjk = |h: &Harness<'static, App>| {
        h.get_all_by_role_and_label(egui::accesskit::Role::Slider, "iteration")
            .next()
            .unwrap()
            .accesskit_node()
            .numeric_value()
    };
    assert_eq!(gjk(&h), Some(0.0));
    h.get_all_by_role_and_label(egui::accesskit::Role::Slider, "iteration").next().unwrap().set_value_accesskit(2.0);
    frames(&mut h);
    assert_eq!(gjk(&h), Some(2.0));
    h.get_by_label("Author: add a step").click();
    frames(&mut h);
    let multiline = egui::accesskit::Role::MultilineTextInput;
    h.get_by_role(multiline).click();
    frames(&mut h);
    h.get_by_role(multiline).type_text("Two iterations in.");
    frames(&mut h);
    click(&mut h, "➕ Add step from current state");
    assert!(h.state().lesson_error().is_none(), "{:?}", h.state().lesson_error());
    let (saved, _) = Lesson::load(&file).unwrap();
    assert_eq!(saved.steps.len(), 2, "the step is added");
    let st = &saved.steps[1];
    assert_eq!((st.highlight.as_deref(), st.partner.as_deref()), (Some("wedge (drag me)"), Some("gem")));
    assert_eq!(st.pair_iteration, Some(PairIteration::Gjk(2)));
    assert_eq!(st.plot, None, "the Inspector was not on screen");
    // Back to the first step (slider reset by hand), then Next: the captured slider returns.
    click(&mut h, "◀ Back");
    h.get_all_by_role_and_label(egui::accesskit::Role::Slider, "iteration").next().unwrap().set_value_accesskit(0.0);
    frames(&mut h);
    click(&mut h, "Next ▶");
    assert_eq!(step(&h), 1);
    assert_eq!(gjk(&h), Some(2.0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The Scenes panel lists the shipped lessons by title above the scenes; a click opens one with
/// the player at its first step. A broken lesson is marked in the list, and opening it shows
/// its error there while the open lesson and scene stay. A lesson file given where a scene goes
/// (the path field) opens as a lesson; opening a scene closes the lesson.
#[test]
fn the_scenes_panel_opens_a_lesson_by_its_title_and_a_broken_one_keeps_the_current_scene() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut app = App::open(&root.join("scenes/default.ron"), Viewport::new(None)).unwrap();
    app.set_scene_dir(root.join("scenes"));
    app.open_panels_mut().show(PanelId::Scenes);
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    setup_style(&h.ctx);
    h.run();
    let button = |title: &str| format!("📖 {title}");
    for f in lessons() {
        let (lesson, _) = Lesson::load(&f).unwrap();
        h.get_by_role_and_label(egui::accesskit::Role::Button, &button(&lesson.title));
    }
    h.get_by_label("📖 Open lesson…");
    let open = |h: &mut Harness<'static, App>, label: &str| {
        h.get_by_label(label).scroll_to_me();
        h.run();
        click(h, label);
    };
    open(&mut h, &button("Jitter: warm starting, iterations, slop"));
    let jitter = root.join("lessons/jitter.ron");
    let player = h.state().lesson_player().expect("the lesson opened");
    assert_eq!((player.lesson.file.as_deref(), player.step()), (Some(jitter.as_path()), 0));
    assert_eq!(h.state().simulation().scene.name, Scene::load(root.join("scenes/jitter.ron")).unwrap().name);
    h.get_by_label_contains("Step 1 of 5");
    assert!(h.state().scene_error().is_none());

    // A broken lesson beside another scenes folder.
    let dir = std::env::temp_dir().join(format!("collidoscope-lessons-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("scenes")).unwrap();
    std::fs::create_dir_all(dir.join("lessons")).unwrap();
    let scene = root.join("scenes/jitter.ron");
    let broken = format!(
        "(\n    title: \"Broken\",\n    scene: File({:?}),\n    steps: [(text: \"a\", settings: {{\"slopp\": \"1\"}})],\n)\n",
        scene.display().to_string()
    );
    std::fs::write(dir.join("lessons/broken.ron"), broken).unwrap();
    h.state_mut().set_scene_dir(dir.join("scenes"));
    // The lesson brought its own panels forward.
    h.state_mut().open_panels_mut().show(PanelId::Scenes);
    h.run();
    h.get_by_label("cannot be read");
    for _ in 0..3 {
        h.state_mut().simulation_mut().step_once();
    }
    h.run();
    let before = h.state().world().hash();
    open(&mut h, &button("broken.ron"));
    let error = h.state().scene_error().expect("the error is kept").to_string();
    assert!(error.contains("broken.ron: steps[0].settings.slopp: unknown setting"), "{error}");
    h.get_by_label("The current scene stays open.");
    assert_eq!(h.state().lesson_player().and_then(|p| p.lesson.file.as_deref()), Some(jitter.as_path()));
    assert_eq!((h.state().world().hash(), h.state().world().step_count()), (before, 3), "the world is untouched");
    let _ = std::fs::remove_dir_all(&dir);

    // The path field takes a lesson as well as a scene.
    let path = |h: &mut Harness<'static, App>, p: &Path| {
        h.state_mut().open_panels_mut().show(PanelId::Scenes);
        h.state_mut().scenes_panel_mut().typed_path = p.to_string_lossy().into_owned();
        h.run();
        click(h, "Open");
    };
    path(&mut h, &root.join("lessons/tunneling.ron"));
    let player = h.state().lesson_player().expect("a lesson");
    assert!(player.lesson.file.as_ref().is_some_and(|f| f.ends_with("lessons/tunneling.ron")));
    assert!(h.state().scene_error().is_none(), "{:?}", h.state().scene_error());
    path(&mut h, &root.join("scenes/box_stack.ron"));
    assert_eq!(h.state().simulation().scene.name, "Box stack");
    assert!(h.state().lesson_player().is_none(), "a scene opened closes the lesson");
    assert!(h.query_by_label_contains("Step 1 of").is_none());
}

/// Presentation mode on a projector (1280×720) and at 1600×1000: on every step of every shipped
/// lesson that asks a prediction, the question, each choice and Run are inside the window with
/// no scrolling, the step's heading and the navigation too, and the view keeps most of the
/// window's height.
#[test]
fn presenting_a_prediction_shows_the_question_every_choice_and_run_without_scrolling() {
    for size in [egui::vec2(1280.0, 720.0), egui::vec2(1600.0, 1000.0)] {
        for file in lessons() {
            let (lesson, _) = Lesson::load(&file).unwrap();
            for (k, s) in lesson.steps.iter().enumerate() {
                let Some(p) = &s.prediction else { continue };
                let at = format!("{} step {} at {size:?}", file.display(), k + 1);
                let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
                let app = App::open(&scene, Viewport::new(None)).unwrap();
                let mut h = Harness::builder().with_size(size).build_ui_state(|ui, app: &mut App| app.show(ui), app);
                // The app's fonts (with the math symbols) are in place from the frame after this.
                setup_style(&h.ctx);
                h.run();
                h.state_mut().open_lesson(&file, k).unwrap_or_else(|e| panic!("{at}: {e}"));
                h.state_mut().set_presentation_flag(true);
                h.run_steps(4);
                let zoom = h.ctx.zoom_factor();
                assert!((zoom - collidoscope::app::presentation_zoom(size)).abs() < 1e-3, "{at}: zoom {zoom}");
                let screen = h.ctx.content_rect();
                let inside = |label: &str, r: egui::Rect| {
                    assert!(screen.expand(0.5).contains_rect(r), "{at}: {label} at {r:?} outside {screen:?}");
                };
                let mut labels: Vec<String> =
                    p.choices.iter().enumerate().map(|(i, c)| format!("{} {}", letter(i), text::plain(c))).collect();
                labels.extend([format!("▶ Run {}", s.run.describe()), "Next ▶".into(), "◀ Back".into()]);
                for l in &labels {
                    inside(l, h.get_by_label(l).rect());
                }
                inside("the heading", h.get_by_label_contains(&format!("Step {} of", k + 1)).rect());
                let question = format!("Predict  {}", text::plain(&p.question));
                inside("the question", h.get_by_label(&question).rect());
                let view = h.state().viewport().rect();
                assert!(view.height() >= 0.4 * screen.height(), "{at}: the view {view:?} in {screen:?}");
                let choice = h.get_by_label(&labels[0]).rect();
                assert!(choice.top() >= view.bottom() - 0.5, "{at}: the choices are under the view, not over it");
            }
        }
    }
}

/// Presenting the GJK/EPA lesson, a step that sets the Pair panel's slider scrolls the panel
/// to it: the slider is in the window, at the step's iteration.
#[test]
fn presenting_a_pair_iteration_scrolls_its_slider_into_view() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/gjk_epa.ron");
    let (lesson, _) = Lesson::load(&file).unwrap();
    for size in [egui::vec2(1280.0, 720.0), egui::vec2(1600.0, 1000.0)] {
        let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
        let app = App::open(&scene, Viewport::new(None)).unwrap();
        let mut h = Harness::builder().with_size(size).build_ui_state(|ui, app: &mut App| app.show(ui), app);
        setup_style(&h.ctx);
        h.run();
        h.state_mut().open_lesson(&file, 0).unwrap();
        h.state_mut().set_presentation_flag(true);
        h.run_steps(4);
        let mut checked = 0;
        for (k, s) in lesson.steps.iter().enumerate() {
            if k > 0 {
                click(&mut h, "Next ▶");
            }
            let Some(it) = s.pair_iteration else { continue };
            let (name, want) = it.parts();
            let n = usize::from(matches!(it, PairIteration::Epa(_)));
            let slider = h.get_all_by_role_and_label(egui::accesskit::Role::Slider, "iteration").nth(n).unwrap();
            let (value, rect) = (slider.accesskit_node().numeric_value(), slider.rect());
            let at = format!("step {} at {size:?}", k + 1);
            assert_eq!(value, Some(want as f64), "{at}: {name}");
            assert!(h.ctx.content_rect().contains_rect(rect), "{at}: the {name} slider at {rect:?} is in the window");
            checked += 1;
        }
        assert!(checked >= 3, "the lesson sets the slider on {checked} steps");
    }
}

fn letter(i: usize) -> char {
    char::from(b'A' + i as u8)
}

/// While a step's prediction waits for the class's answer, the panels the step brings forward
/// (which show what happens: the answer) are veiled, and so is the Ray tool's drawing; the
/// class's choice opens them. The slab lesson's parallel-axis step showed "parallel, every t"
/// under its question about a parallel slab.
#[test]
fn a_prediction_veils_the_panels_that_show_its_answer_until_the_class_chooses() {
    let lesson = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/ray_slab.ron");
    let (l, _) = Lesson::load(&lesson).unwrap();
    let k = l.steps.iter().position(|s| s.prediction.is_some()).expect("a step that asks");
    let scene = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/default.ron");
    let mut app = App::open(&scene, Viewport::new(None)).unwrap();
    app.open_lesson(&lesson, k).unwrap_or_else(|e| panic!("{e}"));
    app.fixed_frame_steps = true;
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    setup_style(&h.ctx);
    frames(&mut h);
    assert!(h.query_by_label("t near").is_none(), "the slab table waits for the answer");
    h.get_by_label_contains("it opens once the class has chosen");
    let p = l.steps[k].prediction.as_ref().unwrap();
    h.get_by_label(&format!("{} {}", letter(0), text::plain(&p.choices[0]))).click();
    frames(&mut h);
    h.get_by_label("t near");
    assert!(h.query_by_label_contains("it opens once the class has chosen").is_none());
}
