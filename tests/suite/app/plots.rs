//! Issue 31, point 11: plots do not magnify noise. The Inspector's history plot of a resting
//! body shows at least its quantity's minimum range, so micrometres of settling stay a flat line.
#![cfg(feature = "gui")]

use collidoscope::BodyKind;
use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Command, Simulation};
use collidoscope::math::Vec3;
use collidoscope::scene::{BodyDesc, Scene, ShapeDesc};
use eframe::egui;
use egui_kittest::Harness;

#[test]
fn a_resting_bodys_height_plot_keeps_a_minimum_range() {
    let mut floor =
        BodyDesc::new(ShapeDesc::Cuboid { half_extents: Vec3::new(5.0, 0.5, 5.0) }, Vec3::new(0.0, -0.5, 0.0));
    floor.kind = BodyKind::Static;
    let ball = BodyDesc::new(ShapeDesc::Sphere { radius: 0.5 }, Vec3::new(0.0, 0.5, 0.0));
    let mut scene = Scene { name: "Resting ball".into(), bodies: vec![floor, ball], ..Default::default() };
    scene.settings.sleeping = false;
    let mut app = App::new(Simulation::new(scene, None).unwrap(), Viewport::new(None), std::env::temp_dir());
    app.apply(Command::Select(Some(1)));
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    for _ in 0..90 {
        h.state_mut().step_once();
    }
    h.run();
    let trace = &h.state().simulation().trace;
    let (lo, hi) = trace.series(0).fold((f64::INFINITY, f64::NEG_INFINITY), |(l, u), [_, y]| (l.min(y), u.max(y)));
    assert!(hi - lo < 1e-3 && hi > lo - 1.0, "the ball settles by less than a millimetre: {lo}..{hi}");
    let (a, b) = h.state().inspector_plot_range().expect("a plot");
    assert!(b - a >= 0.1 - 1e-9, "the plot spans {a}..{b}, not the noise");
    assert!(a <= lo && b >= hi, "and holds the data");
}
