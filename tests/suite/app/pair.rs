//! The pair panel and the small broad-phase controls, driven without a window (egui_kittest):
//! on the box–box SAT lesson the pair panel lists one table row per SAT axis the trace tested
//! and adds narrow-phase lines to the view; the grid cell size's "auto" button changes the
//! setting live without resetting the world.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Simulation};
use collidoscope::broadphase::suggest_cell_size;
use collidoscope::debug_draw::DrawCategory;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness(app: App) -> Harness<'static, App> {
    Harness::builder().with_size(egui::vec2(1600.0, 1400.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app)
}

/// [`harness`] with the Pair panel open, and room for it on the right.
fn pair_harness(mut app: App) -> Harness<'static, App> {
    let open = app.open_panels_mut();
    open.pair = true;
    open.inspector = false;
    open.view = false;
    harness(app)
}

fn lesson() -> App {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/narrowphase_box_box_sat.ron");
    let sim = Simulation::load(&path).unwrap();
    App::new(sim, Viewport::new(None), std::env::temp_dir())
}

#[test]
fn pair_panel_shows_the_sat_table_and_draws_the_trace() {
    let mut app = lesson();
    app.simulation_mut().step_once();
    app.view_mut().selected = Some(1);
    let mut h = pair_harness(app);
    h.run();

    let trace = h.state().pair_panel().trace.clone().expect("a trace for the selected pair");
    let sat = trace.sat.as_ref().expect("box-box analytic uses SAT");
    // 3 face normals of each box + 9 edge cross products, minus parallel edge pairs skipped.
    assert!(sat.axes.len() <= 15 && sat.axes.len() >= 6, "{} axes", sat.axes.len());
    let chosen = sat.chosen.expect("a winning axis");
    // The lesson: crossed edges 5 cm into each other, so an edge-edge axis wins at about -0.05.
    assert!(format!("{:?}", sat.axes[chosen].kind).starts_with("Edge"), "{:?}", sat.axes[chosen]);
    assert!((sat.axes[chosen].separation + 0.05).abs() < 0.01, "{:?}", sat.axes[chosen]);

    // One table row per axis: the kind column names each axis.
    let rows = ["FaceA", "FaceB", "Edge"].iter().map(|k| h.query_all_by_label_contains(k).count()).sum::<usize>();
    assert_eq!(rows, sat.axes.len());
    h.get_by_label("Separation");
    h.get_by_label_contains("Minkowski difference A - B, drawn around the world origin");

    let extra = &h.state().view().extra;
    let narrow = extra.lines.iter().filter(|l| l.category == DrawCategory::NarrowPhase).count();
    assert!(narrow > 0 && narrow == extra.lines.len(), "{narrow} of {} lines", extra.lines.len());
    // The Minkowski points (8 x 8 corners) and the origin are drawn.
    assert!(extra.points.len() > 64, "{} points", extra.points.len());
}

#[test]
fn pair_panel_switches_to_gjk_without_sat() {
    let mut app = lesson();
    app.view_mut().selected = Some(0);
    app.open_panels_mut().pair = true;
    let mut h = harness(app);
    h.run();
    h.get_by_label("GJK").click();
    h.run();
    let trace = h.state().pair_panel().trace.clone().unwrap();
    assert!(trace.sat.is_none());
    assert!(!trace.gjk_simplices.is_empty());
    h.get_by_label("SAT not used (GJK method, or shapes without faces).");
}

#[test]
fn auto_cell_size_changes_the_setting_without_reset() {
    let mut app = lesson();
    // The cell size is the grid's alone (the panel disables it under any other broad phase).
    let mut grid = app.world().settings.clone();
    grid.broad_phase = collidoscope::broadphase::BroadPhaseKind::Grid;
    app.apply(collidoscope::app::Command::SetSettings(Box::new(grid)));
    for _ in 0..5 {
        app.simulation_mut().step_once();
    }
    app.simulation_mut().playing = false;
    let before = app.world().settings.grid_cell_size;
    let want = suggest_cell_size(app.world().aabbs());
    assert!((want - before).abs() > 1e-3, "the lesson's default {before} should differ from {want}");
    app.open_panels_mut().show(collidoscope::app::PanelId::Settings);
    let mut h = harness(app);
    h.run();
    h.get_by_label("auto").scroll_to_me();
    h.run();
    h.get_by_label("auto").click();
    h.run();
    let world = h.state().world();
    assert_eq!(world.settings.grid_cell_size, want);
    assert_eq!(world.step_count(), 5);
}

#[test]
fn depth_limit_draws_the_structure_to_that_depth_and_extra_lines_follow_their_layer() {
    use collidoscope::app::viewport::{Camera, Layers, ViewOptions, build_frame};
    use collidoscope::broadphase::{BroadPhaseDrawOptions, BroadPhaseKind};
    use collidoscope::debug_draw::DebugDraw;
    use collidoscope::math::Vec3;

    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/pyramid.ron");
    let mut sim = Simulation::load(&path).unwrap();
    let mut settings = sim.world.settings.clone();
    settings.broad_phase = BroadPhaseKind::Bvh;
    sim.world.set_settings(settings);
    sim.step_once();
    let world = &sim.world;
    let layers =
        Layers { broad_phase: true, grid: false, axes: false, contact_points: false, ccd: false, ..Default::default() };
    let mut view = ViewOptions { layers, ..Default::default() };
    let lines = |view: &ViewOptions| build_frame(world, view, &Camera::default(), [800.0, 600.0], 1.0).lines.len() / 2;
    let reference = |max_depth: Option<u32>| {
        let mut d = DebugDraw::default();
        world.broad_phase().debug_draw_with(world.aabbs(), &BroadPhaseDrawOptions { max_depth }, &mut d);
        d.lines.len()
    };

    let all = lines(&view);
    assert_eq!(all, reference(None));
    view.broad_phase_depth = Some(1);
    let shallow = lines(&view);
    assert_eq!(shallow, reference(Some(1)));
    assert!(0 < shallow && shallow < all, "depth 1: {shallow} lines, all: {all}");

    // Extra lines are shown only with their layer.
    view.extra.line(DrawCategory::NarrowPhase, Vec3::ZERO, Vec3::X, [1.0; 4]);
    assert_eq!(lines(&view), shallow);
    view.layers.narrow_phase = true;
    assert_eq!(lines(&view), shallow + 1);
}

/// Issue 31, point 9: the Pair panel draws as soon as it opens, before any step: the narrow phase
/// runs on demand for the chosen pair, its Minkowski difference fills a plot in the panel, and
/// the view's narrow-phase layer comes on.
#[test]
fn the_pair_panel_draws_on_open_before_any_step() {
    let mut app = lesson();
    assert_eq!(app.world().step_count(), 0);
    assert!(!app.view().layers.narrow_phase);
    app.view_mut().selected = Some(1);
    {
        let open = app.open_panels_mut();
        open.inspector = false;
        open.view = false;
    }
    app.open_panels_mut().show(collidoscope::app::PanelId::Pair);
    let mut h = harness(app);
    h.run();
    assert_eq!(h.state().world().step_count(), 0, "nothing stepped");
    let trace = h.state().pair_panel().trace.clone().expect("a trace on open");
    assert!(trace.manifold.is_some(), "the lesson's boxes overlap at the start");
    assert_eq!(h.state().pair_panel().plotted, trace.minkowski.len());
    assert!(trace.minkowski.len() >= 64, "8 × 8 corner differences");
    h.get_by_label_contains("Minkowski difference A − B, seen along");
    assert!(h.state().view().layers.narrow_phase, "the trace shows in the view");
    assert!(!h.state().view().extra.lines.is_empty());
}

/// On a compound (or a mesh) the panel gives the world's answer and says why no single GJK, EPA
/// or SAT run is traced, instead of "the cores do not overlap" beside four contact points.
#[test]
fn pair_panel_on_a_compound_says_it_is_tested_part_by_part() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/compounds.ron");
    let mut app = App::new(Simulation::load(&path).unwrap(), Viewport::new(None), std::env::temp_dir());
    for _ in 0..120 {
        app.simulation_mut().step_once();
    }
    let compound = app.world().bodies().iter().position(|b| b.shape.is_compound() && b.is_dynamic()).unwrap();
    app.view_mut().selected = Some(compound);
    let mut h = pair_harness(app);
    h.run();
    h.get_by_label_contains("a compound is tested child by child");
    for misleading in ["cores do not overlap", "SAT not used", "No GJK iterations"] {
        assert!(h.query_by_label_contains(misleading).is_none(), "{misleading}");
    }
}
