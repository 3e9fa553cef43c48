//! The teaching tools driven headless (egui_kittest): the Ray tool lists the engine's slab
//! numbers, owns the left-drag only while switched on, and names the parallel and inside cases;
//! the geometric tests lesson moves its handles by dragging on the floor and reports each test.
#![cfg(feature = "gui")]

use collidoscope::app::App;
use collidoscope::app::teach::RayTarget;
use collidoscope::app::viewport::Viewport;
use collidoscope::geometry::planar::Vec2;
use collidoscope::math::Vec3;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn harness(scene: &str) -> Harness<'static, App> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(scene);
    let app = App::open(&path, Viewport::new(None)).unwrap();
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// The screen point of world point `p` in the main view.
fn screen(h: &Harness<'static, App>, p: Vec3) -> egui::Pos2 {
    let v = h.state().viewport();
    let s = v.camera().project(p, v.rect()).unwrap();
    assert!(v.rect().contains(s), "{p} is in view: {s:?} in {:?}", v.rect());
    s
}

/// A left-drag from `a` to `b` over a few frames.
fn drag(h: &mut Harness<'static, App>, a: egui::Pos2, b: egui::Pos2) {
    h.hover_at(a);
    h.run();
    h.drag_at(a);
    h.run();
    for k in 1..=4 {
        h.hover_at(a + (b - a) * (k as f32 / 4.0));
        h.run();
    }
    h.drop_at(b);
    h.run();
}

#[test]
fn the_ray_tool_lists_the_engines_slab_numbers_and_owns_the_left_drag() {
    let mut h = harness("ray_slab.ron");
    assert!(h.state().teach().open_ray && h.state().teach().ray.active, "the lesson scene opens the tool");
    // The first ray: the table is the engine's slab trace of the crate's AABB.
    let r = h.state().teach().ray.report(h.state().world()).expect("the first ray hits the crate");
    let crate_ = &h.state().world().bodies()[r.body];
    assert_eq!(crate_.name.as_deref(), Some("crate"));
    let ray = h.state().teach().ray.ray();
    assert_eq!(r.trace, crate_.aabb().slab_trace(ray.origin, ray.dir, h.state().teach().ray.max_t()));
    let (t0, t1) = r.trace.hit().unwrap();
    assert_eq!((r.trace.enter_axis, r.trace.exit_axis), (Some(0), Some(2)), "in by x, out by z: {:?}", r.trace);
    h.get_by_label_contains("Slab test of the AABB of #1 crate");
    h.get_by_label(&format!("Hit: in the box for t in [{t0:.3}, {t1:.3}]"));
    assert_eq!(h.get_all_by_label("every t").count(), 1, "level: y is parallel, the origin in its slab");

    // A drag on the level plane draws a new ray along +x: the camera stays, nothing is pulled.
    let camera = h.state().viewport().camera().clone();
    let (a, b) = (Vec3::new(-3.0, 0.5, 1.5), Vec3::new(1.0, 0.5, 1.5));
    let (sa, sb) = (screen(&h, a), screen(&h, b));
    drag(&mut h, sa, sb);
    let tool = &h.state().teach().ray;
    assert!(tool.origin.distance(a) < 0.02, "the press is the origin: {}", tool.origin);
    assert_eq!(tool.heading, 0.0, "snapped to +x");
    assert_eq!(tool.ray().dir, Vec3::X, "exact zeros: parallel to the y and z slabs");
    assert_eq!(h.state().viewport().camera(), &camera, "the drag did not orbit");
    assert!(h.state().simulation().drag.is_none());
    // Along z = 1.5 it hits the ball; two parallel axes, both with the origin inside their slab.
    let r = h.state().teach().ray.report(h.state().world()).unwrap();
    assert_eq!(h.state().world().bodies()[r.body].name.as_deref(), Some("ball"));
    assert_eq!(h.get_all_by_label("every t").count(), 2);

    // Parallel and outside: at y = 1.5 the crate's y slab rules the ray out with no t. The
    // crate is picked by selecting it (a click still selects while the tool is on).
    h.state_mut().teach_mut().ray.origin = Vec3::new(-3.0, 1.5, 0.0);
    let at = screen(&h, Vec3::new(0.0, 1.0, 0.0));
    h.hover_at(at);
    h.drag_at(at);
    h.drop_at(at);
    h.run();
    assert_eq!(h.state().view().selected, Some(1), "a click on the crate selects it");
    h.get_by_label("the selected, #1").scroll_to_me();
    h.run();
    h.get_by_label("the selected, #1").click();
    h.run();
    assert_eq!(h.state().teach().ray.target, RayTarget::Body(1));
    h.get_by_label("no t");
    h.get_by_label("Miss: parallel to the y slab and outside it");

    // Inside: from the crate's middle, t_enter is the ray's start and the x entry lies behind.
    h.state_mut().teach_mut().ray.origin = Vec3::new(0.0, 0.5, 0.2);
    h.run();
    let r = h.state().teach().ray.report(h.state().world()).unwrap();
    assert!(r.trace.origin_inside && r.trace.enter_axis.is_none());
    h.get_by_label_contains("Hit, origin inside the box: in it for t in [0, 0.500]");
    h.get_by_label("-0.500");

    // Switched off, the same left-drag orbits the camera again.
    h.get_by_label("✏ Draw rays with the mouse").click();
    h.run();
    assert!(!h.state().teach().ray.active);
    let before = h.state().teach().ray.origin;
    drag(&mut h, sa, sb);
    assert_ne!(h.state().viewport().camera(), &camera, "a plain drag orbits");
    assert_eq!(h.state().teach().ray.origin, before, "and draws no ray");
}

#[test]
fn the_tests_lesson_moves_its_handles_and_reports_each_test() {
    let mut h = harness("geometric_tests.ron");
    assert!(h.state().teach().open_tests && h.state().teach().tests.active);
    assert!(!h.state().teach().ray.active);
    h.get_by_label_contains("Sector (heights ignored):");

    // Drag the point into the sector's middle.
    let (from, to) = {
        let t = &h.state().teach().tests;
        let (s, c) = t.facing.to_radians().sin_cos();
        (t.point, t.apex + Vec2::new(c, s) * t.range * 0.5)
    };
    let (sa, sb) = (screen(&h, Vec3::new(from.x, 0.0, from.y)), screen(&h, Vec3::new(to.x, 0.0, to.y)));
    drag(&mut h, sa, sb);
    let t = &h.state().teach().tests;
    assert!(t.point.distance(to) < 0.02, "the point follows the cursor: {} vs {to}", t.point);
    let (sector, cone) = t.cone_tests();
    assert!(sector.inside() && cone.inside());
    assert_eq!(h.get_all_by_label("inside").count(), 2);

    // Raised 4 m, its shadow stays in the sector but it leaves the view cone.
    h.state_mut().teach_mut().tests.point_height = 4.0;
    h.run();
    h.get_by_label("inside");
    h.get_by_label("outside");

    // B dragged onto A: no separating axis is left.
    h.get_by_label_contains("Apart: ");
    let (a, b) = (h.state().teach().tests.rect_a.center, h.state().teach().tests.rect_b.center);
    let (sa, sb) = (screen(&h, Vec3::new(b.x, 0.0, b.y)), screen(&h, Vec3::new(a.x + 0.5, 0.0, a.y)));
    drag(&mut h, sa, sb);
    assert!(h.state().teach().tests.sat().overlaps());
    h.get_by_label_contains("Overlapping: no axis separates them");

    // The grid cell of a negative coordinate rounds down.
    h.state_mut().teach_mut().tests.point = Vec2::new(-0.5, 0.25);
    h.run();
    h.get_by_label_contains("is in cell (-1, 0)");
}

#[test]
fn the_view_panel_opens_the_teaching_tools_on_any_scene() {
    let mut h = harness("jitter.ron");
    assert!(!h.state().teach().any_open() && !h.state().teach().owns_drag());
    h.state_mut().open_panels_mut().show(collidoscope::app::PanelId::View);
    h.run();
    h.get_by_label("Ray").scroll_to_me();
    h.run();
    h.get_by_label("Ray").click();
    h.run();
    assert!(h.state().teach().open_ray && !h.state().teach().owns_drag(), "open, the drag still pulls bodies");
    h.get_by_label("✏ Draw rays with the mouse").click();
    h.run();
    assert!(h.state().teach().owns_drag());
    // The Ray tab is in front of the View panel now: back to the View tab for the other tool.
    h.get_all_by_label("View").last().expect("the View tab").click();
    h.run();
    for label in ["Tests", "✋ Drag the handles in the view"] {
        h.get_by_label(label).scroll_to_me();
        h.run();
        h.get_by_label(label).click();
        h.run();
    }
    let t = h.state().teach();
    assert!(t.tests.active && !t.ray.active, "one tool owns the drag at a time");
}

#[test]
fn overlays_belong_to_their_scene_and_opening_another_clears_them() {
    // Issue 31: the Ray and Tests drawings stayed over the next scene.
    let mut h = harness("ray_slab.ron");
    let a = screen(&h, Vec3::new(-1.5, 0.5, -0.5));
    let b = screen(&h, Vec3::new(1.0, 0.5, 1.0));
    drag(&mut h, a, b);
    let drawn = h.state().teach().ray.origin;
    assert_ne!(drawn, collidoscope::app::teach::RayTool::default().origin, "a ray was drawn on this scene");
    // The tests lesson opened by hand on the same scene, its handle moved.
    h.state_mut().open_panels_mut().show(collidoscope::app::PanelId::Tests);
    h.state_mut().teach_mut().tests.point = Vec2::new(3.0, 3.0);
    h.run();
    assert!(h.state().teach().open_ray && h.state().teach().open_tests);

    let jitter = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron");
    h.state_mut().apply(collidoscope::app::Command::OpenScene(jitter));
    h.run();
    let t = h.state().teach();
    assert!(!t.open_ray && !t.open_tests && !t.owns_drag(), "the tools close with the scene they drew on");
    let open = h.state().open_panels();
    assert!(!open.ray && !open.tests, "their panels too");
    assert_eq!(t.ray.origin, collidoscope::app::teach::RayTool::default().origin, "the ray is gone");
    assert_ne!(t.tests.point, Vec2::new(3.0, 3.0), "the moved handle is gone");

    // Reopening the tool on the new scene starts it afresh; a reset keeps it.
    h.state_mut().open_panels_mut().show(collidoscope::app::PanelId::Ray);
    h.run();
    h.key_press(egui::Key::R);
    h.run();
    assert!(h.state().teach().open_ray, "a reset is the same scene: the tool stays");
}
