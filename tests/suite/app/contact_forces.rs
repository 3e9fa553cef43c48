//! Issue 31: contact forces shown. The world hands out each contact point's last impulses
//! (read-only); the Inspector lists them beside the depth, and the "contact_forces" layer draws
//! them as arrows scaled by their size.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::{Camera, Layers, ViewOptions, Viewport, build_frame};
use collidoscope::app::{App, Command, Simulation};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use collidoscope::{BodyKind, World};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// A 1 m crate resting on a floor (kept awake, so its contact stays in the step).
fn crate_on_floor() -> Scene {
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    floor.name = Some("floor".into());
    let mut crate_ = BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::splat(0.5) }, Vec3::new(0.0, 0.5, 0.0));
    crate_.name = Some("crate".into());
    let mut scene = Scene { name: "Crate".into(), bodies: vec![floor, crate_], ..Default::default() };
    scene.settings.sleeping = false;
    scene
}

/// The normal impulses under a resting crate add up to its weight times the step.
fn weight_impulse(world: &World) -> (f32, f32) {
    let k = world.contacts().iter().position(|c| (c.a, c.b) == (0, 1) || (c.a, c.b) == (1, 0)).expect("a contact");
    let n = world.contacts()[k].manifold.points().len();
    let imp = world.contact_impulses(k).expect("impulses of the last step");
    // The impulses are the last substep's: a step of resting contact is `substeps` of them.
    let sum: f32 = imp[..n].iter().map(|i| i.normal).sum::<f32>() * world.settings.substeps as f32;
    let crate_ = &world.bodies()[1];
    (sum, crate_.mass() * 9.81 * world.settings.dt)
}

#[test]
fn the_world_gives_each_contact_points_impulses_and_they_carry_a_resting_crates_weight() {
    let mut sim = Simulation::new(crate_on_floor(), None).unwrap();
    for _ in 0..60 {
        sim.step_once();
    }
    let (sum, weight) = weight_impulse(&sim.world);
    assert!((sum - weight).abs() < 0.05 * weight, "normal impulses {sum} N·s against m g dt {weight}");
    assert!(sim.world.contact_impulses(sim.world.contacts().len()).is_none(), "no contact, no impulses");
}

#[test]
fn the_inspector_lists_a_bodys_contacts_with_depth_and_impulses_and_the_layer_draws_them() {
    let sim = Simulation::new(crate_on_floor(), None).unwrap();
    let mut app = App::new(sim, Viewport::new(None), std::env::temp_dir());
    for _ in 0..60 {
        app.step_once();
    }
    app.apply(Command::Select(Some(1)));
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h.get_by_label("normal impulse");
    h.get_by_label("friction impulse");
    let world = h.state().world();
    let imp = world.contact_impulses(0).unwrap();
    let text = format!("{:.4} N·s", imp[0].normal * world.settings.substeps as f32);
    assert!(imp[0].normal > 0.0);
    assert!(h.query_all_by_label(&text).count() >= 1, "the first point's normal impulse {text} is listed");

    // The layer: one arrow per point with a normal impulse, plus one per point with friction,
    // the longest half a metre.
    let view = |forces: bool| ViewOptions {
        layers: Layers {
            contact_forces: forces,
            contact_points: false,
            ccd: false,
            grid: false,
            axes: false,
            trails: false,
            ..Default::default()
        },
        ..Default::default()
    };
    let lines = |v: &ViewOptions| build_frame(world, v, &Camera::default(), [800.0, 600.0], 1.0).lines.len() / 2;
    let points: usize = world.contacts().iter().map(|c| c.manifold.points().len()).sum();
    let (off, on) = (lines(&view(false)), lines(&view(true)));
    assert!(on - off >= points, "{} arrows for {points} points", on - off);
    // They start at contact points inside the bodies: drawn over the bodies, not hidden by them.
    let f = build_frame(world, &view(true), &Camera::default(), [800.0, 600.0], 1.0);
    assert!((f.lines.len() - f.lines_over_bodies) / 2 >= points, "the arrows are drawn over the bodies");
    let mut draw = collidoscope::debug_draw::DebugDraw::default();
    draw.set_filter(|c| c == collidoscope::debug_draw::DrawCategory::ContactForce);
    world.debug_draw(&mut draw);
    let longest = draw.lines.iter().map(|l| (l.b - l.a).length()).fold(0.0, f32::max);
    assert!((longest - 0.5).abs() < 1e-4, "longest arrow {longest}");
    // The normal impulses (white) stand along the floor's normal.
    let normal: Vec<_> = draw.lines.iter().filter(|l| l.color[0] > 0.9).collect();
    assert!(normal.len() >= points && normal.iter().all(|l| (l.b - l.a).normalize().y.abs() > 0.999));
}
