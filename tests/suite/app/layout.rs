//! Issue 31, points 5 and 6: panels leave the view its room, in the app's real style (the larger
//! text of `setup_style`). The toolbar keeps its buttons while they fit; docks open at most a
//! quarter of the window wide; the profiler keeps its height; selecting a body brings the
//! Inspector as a tab of the dock on screen; the scene list fills its panel, grouped by topic,
//! with a filter; presentation mode with A/B shows two equal views and clips nothing at
//! 1600×1000 and 1280×720.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Dock, PanelId, Simulation, setup_style};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};

fn scene_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name)
}

/// The app on a shipped scene, listing the shipped scenes, in a window of `size` with the
/// app's own style.
fn styled(app: App, size: egui::Vec2) -> Harness<'static, App> {
    let mut h = Harness::builder().with_size(size).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    setup_style(&h.ctx);
    h.run();
    h.run();
    h
}

fn open(name: &str) -> App {
    let mut app = App::open(&scene_path(name), Viewport::new(None)).unwrap();
    app.set_scene_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes"));
    app
}

/// `name` with `panel` brought forward, in a window of `size` with the app's own style.
fn showing(name: &str, panel: PanelId, size: egui::Vec2) -> Harness<'static, App> {
    let mut app = open(name);
    app.open_panels_mut().show(panel);
    styled(app, size)
}

fn screen(h: &Harness<'static, App>) -> egui::Rect {
    h.ctx.content_rect()
}

/// At 1600 px the panel buttons sit on the toolbar row; in a narrow window they fold into a
/// menu. Either way nothing on the row runs past the window's edge.
#[test]
fn the_toolbar_keeps_its_buttons_while_they_fit() {
    for (width, folded) in [(1600.0, false), (1100.0, true)] {
        let h = styled(open("default.ron"), egui::vec2(width, 1000.0));
        assert_eq!(h.query_by_label("Panels…").is_some(), folded, "folded at {width}");
        let edge = screen(&h).right();
        let mut labels = vec!["▶ Play", "⏭ Step", "⟲ Reset", "📽 Presentation"];
        if !folded {
            labels.extend([
                "Frame all",
                "Scenes",
                "Settings",
                "Profiler",
                "Inspector",
                "View",
                "Sweep",
                "Pair",
                "Timeline",
            ]);
        }
        for l in labels {
            let r = h.get_all_by_label(l).next().unwrap_or_else(|| panic!("{l} at {width}")).rect();
            assert!(r.right() <= edge + 0.5, "{l} ends at {} past {edge} at {width}", r.right());
        }
    }
}

/// The width of a side dock: from the window's edge to the view.
fn dock_width(h: &Harness<'static, App>, dock: Dock) -> f32 {
    let view = h.state().viewport().rect();
    match dock {
        Dock::Left => view.left(),
        _ => screen(h).right() - view.right(),
    }
}

fn click(h: &mut Harness<'static, App>, label: &str) {
    h.get_all_by_label(label).next().unwrap_or_else(|| panic!("no {label}")).click();
    h.run();
    h.run();
}

/// Settings, Sweep, Inspector and View open at most a quarter of the window wide (their wide
/// rows scroll instead), and each keeps its width when its tab comes back.
#[test]
fn docks_open_at_most_a_quarter_of_the_window_and_keep_their_width() {
    let mut h = styled(open("default.ron"), egui::vec2(1600.0, 1000.0));
    // A quarter of the window, plus the gap between the dock and the view.
    let quarter = 1600.0 / 4.0 + 8.0;
    let mut widths = Vec::new();
    for (p, dock) in [
        ("Settings", Dock::Left),
        ("Sweep", Dock::Left),
        ("Inspector", Dock::Right),
        ("View", Dock::Right),
        ("Pair", Dock::Right),
    ] {
        click(&mut h, p);
        let w = dock_width(&h, dock);
        assert!(w > 100.0 && w <= quarter, "{p} opens {w} px wide");
        widths.push((p, dock, w));
    }
    let view = h.state().viewport().rect().width();
    assert!(view >= 0.49 * 1600.0, "the view keeps about half the window: {view}");
    // Back to each tab (through the dock's tab, after the toolbar's button of the same name).
    for (p, dock, w) in widths {
        h.get_all_by_label(p).last().unwrap().click();
        h.run();
        h.run();
        assert!((dock_width(&h, dock) - w).abs() < 1.0, "{p} came back {} wide, not {w}", dock_width(&h, dock));
    }
}

/// The profiler's height does not change when the first step fills its table.
#[test]
fn the_profiler_keeps_its_height_on_the_first_step() {
    let mut h = showing("default.ron", PanelId::Profiler, egui::vec2(1600.0, 1000.0));
    h.get_by_label("No steps yet: press ▶ Play or Step.");
    let before = h.state().viewport().rect();
    for _ in 0..3 {
        h.state_mut().step_once();
        h.run();
    }
    h.get_by_label("bp candidates");
    assert_eq!(h.state().viewport().rect(), before, "the view keeps its height");
}

/// Selecting a body with the scene browser open brings the Inspector as a tab of that dock: the
/// view keeps its width.
#[test]
fn selecting_a_body_opens_the_inspector_as_a_tab_of_the_open_dock() {
    let mut h = styled(open("default.ron"), egui::vec2(1600.0, 1000.0));
    let view = h.state().viewport().rect();
    h.state_mut().apply(collidoscope::app::Command::Select(Some(3)));
    h.run();
    h.run();
    h.get_by_label("Body 3");
    let open = h.state().open_panels();
    assert_eq!(open.dock_of(PanelId::Inspector), Dock::Left);
    assert_eq!(open.tabs(Dock::Left), vec![PanelId::Scenes, PanelId::Inspector]);
    let now = h.state().viewport().rect();
    assert!((now.right() - view.right()).abs() < 0.5, "no new column: {now:?} was {view:?}");
    assert!(now.width() >= view.width() - 40.0, "the dock keeps about its width: {now:?} was {view:?}");
    // The Scenes tab is one click away.
    h.get_all_by_label("Scenes").last().unwrap().click();
    h.run();
    h.get_by_label("Play when a scene opens");
}

/// The scene list runs down its panel, grouped by topic, and the filter narrows it.
#[test]
fn the_scene_list_fills_its_panel_grouped_by_topic_with_a_filter() {
    let mut h = styled(open("default.ron"), egui::vec2(1600.0, 1000.0));
    for topic in ["Lessons", "Broad phase", "Narrow phase", "CCD", "Stacking", "Meshes"] {
        h.get_by_label(topic);
    }
    // What follows the list sits near the bottom of the window: the list took the height.
    let below = h.get_by_label("Play when a scene opens").rect();
    assert!(below.top() > 0.8 * 1000.0, "the list ends at {}", below.top());
    assert!(below.bottom() <= 1000.0, "and the rest still shows");
    h.get_by_label("Filter").click();
    h.run();
    h.get_by_label("Filter").type_text("tunnel");
    h.run();
    h.run();
    assert_eq!(h.state_mut().scenes_panel_mut().filter, "tunnel");
    h.get_by_label("tunneling.ron");
    h.get_by_label("tunneling_shapes.ron");
    assert!(h.query_by_label("pyramid.ron").is_none() && h.query_by_label("Stacking").is_none());
    h.get_by_label("tunneling.ron").click();
    h.run();
    assert!(h.state().simulation().path.as_deref().is_some_and(|p| p.ends_with("tunneling.ron")));
    h.get_by_label("✖ Clear").click();
    h.run();
    h.get_by_label("pyramid.ron");
}

/// Presentation mode with A and B side by side: two views of equal size with their one-line
/// headers level, legends on one line with every entry, and the A/B strip and the toolbar
/// inside the window, at a projector's 1280×720 as at 1600×1000.
#[test]
fn presentation_with_ab_shows_two_equal_views_and_clips_nothing() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0)] {
        let mut app = open("tunneling.ron");
        app.simulation_mut().start_compare(&[("ccd".into(), "Toi".into())]).unwrap();
        app.open_panels_mut().presenting = Some(PanelId::Settings);
        app.set_presentation_flag(true);
        let mut h = styled(app, size);
        app_steps(&mut h, 3);
        assert!(h.state().presentation());
        let zoom = h.ctx.zoom_factor();
        assert!((zoom - collidoscope::app::presentation_zoom(size)).abs() < 1e-3, "zoom {zoom} at {size:?}");
        assert!(zoom > 1.1, "enlarged for the room at {size:?}");
        let screen = screen(&h);
        let b = h.state().viewport().rect();
        let a = h.state().partner_viewport().expect("A's view").rect();
        assert!((a.width() - b.width()).abs() < 1.0 && (a.height() - b.height()).abs() < 1.0, "{a:?} {b:?}");
        assert!((a.top() - b.top()).abs() < 0.5, "the headers are level: {a:?} {b:?}");
        assert!(a.width() + b.width() >= 0.95 * screen.width(), "no side panel beside A/B: {a:?} {b:?} {screen:?}");
        assert!(a.height() >= 0.45 * screen.height(), "views {a:?} in {screen:?}");
        for v in [h.state().viewport(), h.state().partner_viewport().unwrap()] {
            assert_eq!(v.stats().legend_hidden, 0, "every legend entry fits on the line at {size:?}");
        }
        assert!(h.query_by_label("Warm starting").is_none(), "the chosen panel waits for A/B to end");
        let (la, lb) = (h.get_all_by_label("A").next().unwrap().rect(), h.get_all_by_label("B").next().unwrap().rect());
        assert!((la.center().y - lb.center().y).abs() < 0.5 && la.bottom() <= a.top() + 0.5, "{la:?} {lb:?}");
        for l in ["⟲ Both to the start", "◀ Back", "Single view", "✖ Close", "Colour scale", "Contact ε", "ms per step"]
        {
            let r = h.get_all_by_label(l).next().unwrap().rect();
            assert!(screen.expand(0.5).contains_rect(r), "{l} at {r:?} outside {screen:?} at {size:?}");
        }
        for l in ["▶ Play", "⏭ Step", "⟲ Reset", "📽 Presentation"] {
            let r = h.get_by_label(l).rect();
            assert!(r.right() <= screen.right() + 0.5, "{l} at {r:?} past {screen:?} at {size:?}");
        }
    }
}

/// Presenting a panel in a small window (a projector's 1280×720 with the app's fonts, or
/// smaller), the row cannot hold the speed and the clock too: the panel choice and the way out
/// (the Presentation toggle) stay inside the window, and the clock goes after them.
#[test]
fn presenting_on_a_small_window_keeps_the_panel_choice_and_the_way_out() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0), egui::vec2(900.0, 600.0)] {
        let mut app = open("geometric_tests.ron");
        app.open_panels_mut().presenting = Some(PanelId::Tests);
        app.set_presentation_flag(true);
        let mut h = styled(app, size);
        app_steps(&mut h, 2);
        assert!((h.ctx.zoom_factor() - collidoscope::app::presentation_zoom(size)).abs() < 1e-3);
        let screen = screen(&h);
        for l in ["▶ Play", "⟲ Reset", "Tests", "📽 Presentation"] {
            let r = h.get_all_by_label(l).map(|n| n.rect()).min_by(|a, b| a.top().total_cmp(&b.top())).unwrap();
            assert!(r.right() <= screen.right() + 0.5, "{l} at {r:?} past {screen:?} at {size:?}");
        }
    }
}

/// The Sweep panel's range (from, "to", to, the count) wraps under its field in a dock narrower
/// than the row, instead of running under the view.
#[test]
fn the_sweep_ranges_stay_in_their_dock() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0)] {
        let h = showing("box_stack.ron", PanelId::Sweep, size);
        let view = h.state().viewport().rect();
        let to: Vec<egui::Rect> = h.get_all_by_label("to").map(|n| n.rect()).collect();
        assert_eq!(to.len(), 2, "both axes' ranges at {size:?}");
        for r in &to {
            assert!(r.right() <= view.left() + 0.5, "\"to\" at {r:?} under the view {view:?} at {size:?}");
        }
        // Each axis's row ends above the next row: the second axis's range wrapped under its
        // field was drawn under the Steps row when that axis was off.
        let spacing: Vec<egui::Rect> = h.get_all_by_label("×").map(|n| n.rect()).collect();
        let steps = h.get_all_by_label("Steps").map(|n| n.rect().top()).fold(f32::INFINITY, f32::min);
        assert_eq!(spacing.len(), 2, "both axes' spacing boxes at {size:?}");
        assert!(spacing[0].bottom() <= to[1].top(), "the first axis's range runs into the second's at {size:?}");
        for r in spacing {
            assert!(r.bottom() <= steps, "an axis's range at {r:?} runs into the Steps row at {steps} at {size:?}");
        }
    }
}

fn app_steps(h: &mut Harness<'static, App>, n: usize) {
    for _ in 0..n {
        h.state_mut().step_once();
        h.run();
    }
    h.run();
}

/// The tunneling lessons with CCD off: paused on the step a body passes through, the view shows
/// where it was before the step, where it is after, and the body it passed through.
#[test]
fn the_tunneling_lessons_show_both_sides_of_the_wall_at_the_moment_of_tunneling() {
    use collidoscope::session::pause::PauseAt;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut lessons: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("tunneling"))
        .collect();
    lessons.sort();
    assert_eq!(lessons.len(), 5);
    let mut bad = Vec::new();
    for path in lessons {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let mut app = App::open(&path, Viewport::new(None)).unwrap();
        let mut s = app.world().settings.clone();
        s.ccd = collidoscope::ccd::CcdMode::Off;
        app.apply(collidoscope::app::Command::SetSettings(Box::new(s)));
        app.simulation_mut().pause.at = PauseAt::Tunneling;
        let mut h = styled(app, egui::vec2(1600.0, 1000.0));
        let mut before = Vec::new();
        // Where the pause cannot tell (the plates of the crossing and spinning-plate lessons
        // pass with their edges, their centres never crossing a body), the moment one body's
        // centre passes another's along its path, within 3 m of it.
        let mut passed = None;
        let position = |h: &Harness<'static, App>| -> Vec<_> {
            h.state().world().bodies().iter().map(|b| b.pose.translation).collect()
        };
        for _ in 0..180 {
            before = position(&h);
            h.state_mut().step_once();
            if h.state().simulation().paused_by.is_some() {
                break;
            }
            let after = position(&h);
            let bodies = h.state().world().bodies();
            passed = (0..after.len()).filter(|&i| bodies[i].is_dynamic()).find_map(|i| {
                let path = (after[i] - before[i]).normalize_or_zero();
                (0..after.len()).filter(|&j| j != i).find_map(|j| {
                    let (was, now) = ((before[i] - before[j]).dot(path), (after[i] - after[j]).dot(path));
                    let off = (after[i] - after[j]) - path * now;
                    (was < 0.0 && now >= 0.0 && off.length() < 3.0).then_some((i, j))
                })
            });
            if passed.is_some() {
                break;
            }
        }
        h.run();
        let why = h.state().simulation().paused_by.clone();
        if let (None, Some((i, j))) = (&why, passed) {
            let (world, v) = (h.state().world(), h.state().viewport());
            let rect = v.rect().shrink(12.0);
            let after = world.bodies()[i].pose.translation;
            for (what, p) in
                [("before", before[i]), ("after", after), ("passed body", world.bodies()[j].pose.translation)]
            {
                if !v.camera().project(p, v.rect()).is_some_and(|s| rect.contains(s)) {
                    bad.push(format!("{name}: body {i} passing body {j}: {what} ({p}) is out of view"));
                }
            }
            continue;
        }
        let Some(why) = why else {
            bad.push(format!("{name}: nothing tunneled with CCD off"));
            continue;
        };
        let world = h.state().world();
        let named = |n: &str| world.bodies().iter().position(|b| b.name.as_deref() == Some(n));
        let text = why.split_once(": ").map_or(why.as_str(), |(_, t)| t);
        let (body, rest) = text.split_once(" passed through ").expect("the pause names the bodies");
        let wall = rest.trim_end_matches(" in one step");
        let (Some(i), Some(j)) = (named(body), named(wall)) else {
            bad.push(format!("{name}: cannot find {body} or {wall}"));
            continue;
        };
        let v = h.state().viewport();
        let rect = v.rect().shrink(12.0);
        let points = [
            ("before", before[i]),
            ("after", world.bodies()[i].pose.translation),
            ("wall", world.bodies()[j].pose.translation),
        ];
        for (what, p) in points {
            if !v.camera().project(p, v.rect()).is_some_and(|s| rect.contains(s)) {
                bad.push(format!("{name}: {body} {what} the step ({p}) is out of view ({why})"));
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// A Simulation for unit-level checks of the dock placement kept across runs.
#[test]
fn a_moved_inspector_is_remembered_with_the_layout() {
    let sim = Simulation::load(&scene_path("default.ron")).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.apply(collidoscope::app::Command::Select(Some(3)));
    let saved = app.persisted();
    assert_eq!(saved.open.dock_of(PanelId::Inspector), Dock::Left);
    let text = ron::to_string(&saved).unwrap();
    let (back, msg) = collidoscope::app::Persisted::parse(Some(&text));
    assert!(msg.is_none());
    assert_eq!(back.unwrap().open.dock_of(PanelId::Inspector), Dock::Left);
}

/// The Settings panel's sliders keep a usable rail at a projector's 1280×720, where its dock is
/// 320 px wide: beside the longest label ("Max correction velocity") they shrank to stubs, so
/// there each label stacks over its control. Every slider ends inside the dock.
#[test]
fn the_settings_sliders_keep_their_rails_in_a_narrow_dock() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0)] {
        let h = showing("box_stack.ron", PanelId::Settings, size);
        let view = h.state().viewport().rect();
        for label in ["Max correction velocity", "Restitution threshold", "Slop", "Contact hertz"] {
            let r = h.get_by_role_and_label(egui::accesskit::Role::Slider, label).rect();
            assert!(r.width() >= 80.0, "{label}'s slider is {:.0} px wide at {size:?}", r.width());
            assert!(r.right() <= view.left() + 0.5, "{label}'s slider at {r:?} under the view {view:?} at {size:?}");
        }
    }
}

/// The Ray panel's slab table fits its dock at a projector's size, in the slab lesson presented
/// and not: its t columns are inside the window and on screen without scrolling (the lesson
/// presented at 1280×720 left the panel 280 points: its five columns ran past the dock's edge,
/// and the table sat below the ray's inputs, off the bottom).
#[test]
fn the_ray_panels_slab_table_is_in_view_in_a_narrow_dock() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0)] {
        for presenting in [false, true] {
            let mut app = open("ray_slab.ron");
            let lesson = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/ray_slab.ron");
            app.open_lesson(&lesson, 1).unwrap_or_else(|e| panic!("{e}"));
            if presenting {
                app.open_panels_mut().presenting = Some(PanelId::Ray);
                app.set_presentation_flag(true);
            }
            let mut h = styled(app, size);
            app_steps(&mut h, 2);
            let edge = screen(&h);
            for label in ["t near", "t far", "Origin"] {
                let r = h.get_by_label(label).rect();
                assert!(
                    r.right() <= edge.right() + 0.5,
                    "{label} at {r:?} past the window's edge {edge:?} at {size:?}, presenting {presenting}"
                );
            }
            for label in ["t near", "t far"] {
                let r = h.get_by_label(label).rect();
                assert!(
                    r.bottom() <= edge.bottom(),
                    "{label} at {r:?} below the window {edge:?} at {size:?}, presenting {presenting}"
                );
            }
        }
    }
}

/// The profiler shows the broad phase's counts (AABB tests, candidates, overlaps) on screen in
/// a short bottom dock at a projector's size: the broad-phase lesson compares them, and they
/// were at the foot of a grid that scrolled out of sight.
#[test]
fn the_profiler_shows_the_broad_phase_counts_without_scrolling() {
    for size in [egui::vec2(1600.0, 1000.0), egui::vec2(1280.0, 720.0)] {
        let mut app = open("box_stack.ron");
        app.open_panels_mut().show(PanelId::Profiler);
        let mut h = styled(app, size);
        app_steps(&mut h, 3);
        let r = h.get_by_label_contains("AABB tests, ").rect();
        assert!(screen(&h).contains_rect(r), "{r:?} off the window at {size:?}");
        h.get_by_label_contains(" candidates, ");
    }
}
