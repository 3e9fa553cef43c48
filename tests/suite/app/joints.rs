//! Issue 35, the app: joints drawn (anchors, axes, limit arcs, cone, slider range, the error in
//! red) from known joint states, the Joints layer's toggle, selecting a joint (by a click near it
//! or from the Inspector's lists) and the Inspector's joint rows and plot, and the Settings
//! panel's Joints section with its help.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::{Camera, Layers, ViewAction, ViewOptions, Viewport, build_frame};
use collidoscope::app::{App, Command, PanelId, Simulation};
use collidoscope::debug_draw::{DebugDraw, DebugLine, DrawCategory, joint_colors};
use collidoscope::math::{Quat, Vec3};
use collidoscope::{Scene, World};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn scene(name: &str) -> Scene {
    Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A post and a door (as in hinge_door.ron) with one joint of the kind given in RON.
fn door_with(joint: &str) -> World {
    let text = r#"(
        settings: (sleeping: false),
        bodies: [
            (name: "post", kind: Static, shape: Cuboid(half_extents: (0.05, 1.1, 0.05)), position: (0, 1.1, 0)),
            (name: "door", shape: Cuboid(half_extents: (0.5, 1, 0.02)), position: (0.55, 1.1, 0)),
        ],
        joints: [JOINT],
    )"#;
    Scene::parse(&text.replace("JOINT", joint), "door.ron").unwrap().build().unwrap()
}

fn joint_lines(world: &World) -> DebugDraw {
    let mut d = DebugDraw::default();
    d.set_filter(|c| c == DrawCategory::Joint);
    world.debug_draw(&mut d);
    d
}

fn colored(d: &DebugDraw, color: [f32; 4]) -> Vec<DebugLine> {
    d.lines.iter().filter(|l| l.color == color).copied().collect()
}

fn close(a: Vec3, b: Vec3) -> bool {
    (a - b).length() < 1e-4
}

/// A's zero angle about its axis, as the drawing takes it.
fn zero_of(world: &World, k: usize) -> Vec3 {
    let j = &world.joints()[k];
    let pa = j.a.map_or(collidoscope::math::Pose::IDENTITY, |i| world.bodies()[i as usize].pose);
    pa.rotation * j.axis_a.normalize().any_orthonormal_vector()
}

#[test]
fn a_hinges_limits_are_an_arc_and_its_angle_a_marker_on_it() {
    let mut w = door_with(
        r#"(kind: Hinge(limits: (0, 90), motor: (speed: 1, max_force: 30)), a: "post", b: "door", anchor_a: (0.05, 0, 0), axis_a: (0, 1, 0))"#,
    );
    let d = joint_lines(&w);
    let r = w.joint_report(0);
    // Both anchors as dots at the report's anchors, here the same point.
    assert_eq!(d.points.len(), 2);
    assert!(d.points.iter().all(|p| close(p.p, Vec3::new(0.05, 1.1, 0.0))), "{:?}", d.points);
    // The axis: vertical through the anchor.
    let axis = colored(&d, joint_colors::AXIS);
    assert_eq!(axis.len(), 1);
    assert!((axis[0].b - axis[0].a).normalize().dot(Vec3::Y) > 0.9999);
    // The limit arc from 0° to 90° about the axis: its two radii end on the circle at those angles.
    let size = collidoscope::world::joint_radius(&w.joints()[0], w.bodies());
    let zero = zero_of(&w, 0);
    let limit = colored(&d, joint_colors::LIMIT_HIT);
    assert!(limit.len() > 4, "at its lower limit the arc is drawn as hit: {} lines", limit.len());
    let at = |deg: f32| r.anchor_a + Quat::from_axis_angle(Vec3::Y, deg.to_radians()) * zero * size;
    for deg in [0.0, 90.0] {
        assert!(limit.iter().any(|l| close(l.a, at(deg)) || close(l.b, at(deg))), "no arc point at {deg}°");
    }
    // Every other point lies on the circle, between the limits.
    let side = zero.cross(Vec3::Y).normalize();
    for p in limit.iter().flat_map(|l| [l.a, l.b]).filter(|p| !close(*p, r.anchor_a)) {
        let v = p - r.anchor_a;
        assert!((v.length() - size).abs() < 1e-4, "{p} off the circle");
        let deg = (-v.dot(side)).atan2(v.dot(zero)).to_degrees();
        assert!((-0.01..=90.01).contains(&deg), "arc point at {deg}°");
    }
    // No error yet; the marker points at angle zero.
    assert!(colored(&d, joint_colors::ERROR).is_empty());
    let marker = |w: &World| {
        let d = joint_lines(w);
        let m = colored(&d, joint_colors::CURRENT);
        assert_eq!(m.len(), 1);
        (m[0].b - m[0].a).normalize()
    };
    assert!(close(marker(&w), zero));
    // The motor turns the door: the marker follows the joint's angle.
    for _ in 0..40 {
        w.step();
    }
    let angle = w.joint_report(0).coordinate;
    assert!(angle > 0.2, "the motor turned the door {angle} rad");
    let expected = Quat::from_axis_angle(Vec3::Y, angle) * zero_of(&w, 0);
    assert!((marker(&w) - expected).length() < 2e-3, "marker {} for {angle} rad, expected {expected}", marker(&w));
    assert!(!colored(&joint_lines(&w), joint_colors::LIMIT).is_empty(), "off its limit the arc is plain");
}

#[test]
fn the_gap_between_anchors_is_drawn_red_and_its_length_is_the_error() {
    // B's anchor given 0.2 m from A's: the joint starts open by that much.
    let w = door_with(r#"(kind: Ball(), a: "post", b: "door", anchor_a: (0.05, 0, 0), anchor_b: (-0.5, 0.2, 0))"#);
    let r = w.joint_report(0);
    assert!((r.linear_error - 0.2).abs() < 1e-5);
    let err = colored(&joint_lines(&w), joint_colors::ERROR);
    assert_eq!(err.len(), 1);
    assert!(close(err[0].a, r.anchor_a) && close(err[0].b, r.anchor_b), "{err:?}");
    // A rope: only the stretch past its length is red, the rest is the link.
    let w = door_with(
        r#"(kind: Rope(length: 0.1), a: "post", b: "door", anchor_a: (0.05, 0, 0), anchor_b: (-0.5, 0.3, 0))"#,
    );
    let d = joint_lines(&w);
    let err = colored(&d, joint_colors::ERROR);
    assert_eq!(err.len(), 1);
    assert!(((err[0].b - err[0].a).length() - 0.2).abs() < 1e-5, "0.3 m apart, 0.1 m allowed");
    // A slack rope has no error.
    let w =
        door_with(r#"(kind: Rope(length: 1), a: "post", b: "door", anchor_a: (0.05, 0, 0), anchor_b: (-0.5, 0.3, 0))"#);
    assert!(colored(&joint_lines(&w), joint_colors::ERROR).is_empty());
}

#[test]
fn a_cone_limit_is_a_rim_at_its_half_angle_and_a_slider_range_a_segment_along_its_axis() {
    let w = door_with(r#"(kind: Ball(cone: 30), a: "post", b: "door", anchor_a: (0.05, 0, 0), axis_a: (1, 0, 0))"#);
    let d = joint_lines(&w);
    let r = w.joint_report(0);
    let size = collidoscope::world::joint_radius(&w.joints()[0], w.bodies());
    let rim = colored(&d, joint_colors::LIMIT);
    assert!(rim.len() >= 24, "{} lines", rim.len());
    for p in rim.iter().flat_map(|l| [l.a, l.b]).filter(|p| !close(*p, r.anchor_a)) {
        let v = p - r.anchor_a;
        assert!((v.length() - size).abs() < 1e-4);
        assert!((v.normalize().dot(Vec3::X).acos().to_degrees() - 30.0).abs() < 0.01, "rim point at {p}");
    }
    // B's axis, inside the cone, white.
    assert_eq!(colored(&d, joint_colors::CURRENT).len(), 1);

    let w = door_with(
        r#"(kind: Prismatic(limits: (-0.25, 0.5)), a: "post", b: "door", anchor_a: (0.05, 0, 0), axis_a: (1, 0, 0))"#,
    );
    let d = joint_lines(&w);
    let a = w.joint_report(0).anchor_a;
    let range = colored(&d, joint_colors::LIMIT);
    assert_eq!(range.len(), 3, "the range and a tick at each end");
    assert!(close(range[0].a, a - Vec3::X * 0.25) && close(range[0].b, a + Vec3::X * 0.5), "{:?}", range[0]);
}

#[test]
fn the_joints_layer_is_a_toggle_of_the_view_panel() {
    let sim = Simulation::new(scene("chain.ron"), None).unwrap();
    let app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.state_mut().open_panels_mut().show(PanelId::View);
    h.run();
    assert!(h.state().view().layers.joints, "joints are drawn by default");
    let lines = |world: &World, joints: bool| {
        let view = ViewOptions {
            layers: Layers {
                joints,
                contact_points: false,
                ccd: false,
                grid: false,
                axes: false,
                ..Default::default()
            },
            ..Default::default()
        };
        build_frame(world, &view, &Camera::default(), [800.0, 600.0], 1.0).lines.len() / 2
    };
    let world = h.state().world();
    // Each of the 21 joints draws an arm from each of its bodies (the first hangs from the world).
    assert_eq!(lines(world, true), 2 * 21 - 1);
    assert_eq!(lines(world, false), 0);
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Joints").click();
    h.run();
    assert!(!h.state().view().layers.joints);
    assert!(!h.state().view().layers.names_on().contains(&"joints"));
    h.get_by_role_and_label(egui::accesskit::Role::CheckBox, "Joints").click();
    h.run();
    assert!(h.state().view().layers.joints);
}

/// A screen point of `p` in the app's 3D view.
fn on_screen(h: &Harness<'static, App>, p: Vec3) -> egui::Pos2 {
    let (camera, rect) = (h.state().viewport().camera().clone(), h.state().viewport().rect());
    let clip = camera.view_proj(rect.aspect_ratio()) * p.extend(1.0);
    let ndc = clip.truncate() / clip.w;
    let pos =
        egui::pos2(rect.left() + (ndc.x + 1.0) * 0.5 * rect.width(), rect.top() + (1.0 - ndc.y) * 0.5 * rect.height());
    assert!(rect.contains(pos), "{p} is in view at {pos:?} of {rect:?}");
    pos
}

#[test]
fn a_joint_is_selected_from_the_inspector_or_by_a_click_and_shows_its_state_and_plot() {
    let sim = Simulation::new(scene("hinge_door.ron"), None).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    app.apply(Command::Select(Some(2)));
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    // The door's joints, listed under it; a click selects one.
    h.get_by_label("Joints (1)");
    h.get_by_label("#0 Hinge with #1 post").click();
    h.run();
    assert_eq!(h.state().view().selected_joint, Some(0));
    h.get_by_label("Joint 0");
    h.get_by_label("Hinge, limits 0.0° to 90.0°, motor");
    h.get_by_label("#1 post — #2 door");
    h.get_by_label("at the lower limit (0.0° to 90.0°)");
    h.get_by_label("Play or step to plot this joint.");
    // The motor drives the door to its upper limit and holds it there with its full torque.
    for _ in 0..240 {
        h.state_mut().step_once();
    }
    h.run();
    h.get_by_label("at the upper limit (0.0° to 90.0°)");
    h.get_by_label_contains("(saturated)");
    let r = h.state().world().joint_report(0);
    h.get_by_label(&format!("{:.3} N", r.force));
    h.get_by_label(&format!("{:.3}°", r.angular_error.to_degrees()));
    let trace = &h.state().simulation().joint_trace;
    assert_eq!((trace.joint(), trace.len()), (Some(0), 240));
    let angle = trace.series(4).last().unwrap()[1];
    assert!((angle - 90.0).abs() < 1.0, "the plot's last angle {angle}°");
    h.get_by_label("Joint over time");

    // Deselect, then click near the hinge in the view.
    h.get_by_label("Deselect joint").click();
    h.run();
    assert_eq!(h.state().view().selected_joint, None);
    assert!(h.query_by_label("Joint 0").is_none());
    let anchor = h.state().world().joint_report(0).anchor_a;
    let pos = on_screen(&h, anchor + Vec3::Y * 0.3);
    h.state_mut().apply_view_action(ViewAction::Select(None));
    h.hover_at(pos);
    h.drag_at(pos);
    h.drop_at(pos);
    h.run();
    // 30 cm above the hinge's anchors, far more than a few points on screen: not the joint.
    assert_eq!(h.state().view().selected_joint, None);
    let mid = {
        let r = h.state().world().joint_report(0);
        0.5 * (r.anchor_a + r.anchor_b)
    };
    let pos = on_screen(&h, mid);
    h.hover_at(pos);
    h.drag_at(pos);
    h.drop_at(pos);
    h.run();
    assert_eq!(h.state().view().selected_joint, Some(0), "a click on the anchors selects the joint");
    h.get_by_label("Joint 0");
    // Selecting a body the joint does not hold lets the joint go.
    h.state_mut().apply_view_action(ViewAction::Select(Some(0)));
    h.run();
    assert_eq!(h.state().view().selected_joint, None);
    // The world's joints, listed at the bottom of the Inspector (with nothing selected, in view).
    h.state_mut().apply_view_action(ViewAction::Select(None));
    h.run();
    h.get_by_label("All joints (1)").click();
    h.run();
    let entry = "#0 Hinge \"hinge\": #1 post — #2 door";
    h.get_by_label(entry).scroll_to_me();
    h.run();
    h.get_by_label(entry).click();
    h.run();
    assert_eq!((h.state().view().selected, h.state().view().selected_joint), (Some(2), Some(0)));
}

#[test]
fn the_settings_panel_lists_the_joint_settings_under_joints_with_their_help() {
    let sim = Simulation::new(scene("chain.ron"), None).unwrap();
    let app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.ctx.all_styles_mut(|s| s.interaction.tooltip_delay = 0.0);
    h.state_mut().open_panels_mut().show(PanelId::Settings);
    h.run();
    h.get_by_label("Joints");
    let joint_facts: Vec<_> = collidoscope::settings::Settings::FACTS
        .iter()
        .filter(|f| f.section == collidoscope::settings::Section::Joints)
        .collect();
    assert!(joint_facts.len() >= 2, "the joint solver's settings: {}", joint_facts.len());
    for f in joint_facts {
        assert!(!f.help.is_empty(), "{} has no help", f.name);
        // A number's name is a label beside its control; a switch's is its checkbox's.
        let role = egui::accesskit::Role::Label;
        let beside = h.query_by_role_and_label(role, f.label).is_some();
        if beside { h.get_by_role_and_label(role, f.label) } else { h.get_by_label(f.label) }.scroll_to_me();
        h.run();
        if beside { h.get_by_role_and_label(role, f.label) } else { h.get_by_label(f.label) }.hover();
        h.run();
        let first_line = f.help.lines().next().unwrap();
        assert!(h.query_by_label_contains(first_line).is_some(), "hovering {} shows {first_line:?}", f.label);
    }
}
