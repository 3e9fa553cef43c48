//! Issue 31, point 8: the Sweep panel answers "what is the cheapest good setting": a table of
//! every metric with the bounds each point breaks, the base settings said, and a field's range
//! taken from its slider.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, Command, PanelId};
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

#[test]
fn the_sweep_table_shows_every_metric_and_the_bounds_each_point_breaks() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling.ron");
    let mut app = App::open(&path, Viewport::new(None)).unwrap();
    // An edit of the live settings: the sweep says it starts from it.
    let mut s = app.world().settings.clone();
    s.sleep_time = 1.0;
    app.apply(Command::SetSettings(Box::new(s)));
    app.open_panels_mut().show(PanelId::Sweep);
    {
        let p = app.sweep_panel_mut();
        p.steps = 20;
        p.runs = 3;
        p.axes[0].set_field("ccd");
    }
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1200.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h.get_by_label_contains("Around the scene file's settings with your 1 edit(s): sleep_time 0.5 -> 1.0");
    super::materials::run_sweep(&mut h);
    for head in ["time/step", "jitter", "jitter p99", "penetration", "energy rise", "tunneled", "asleep", "divergence"]
    {
        h.get_by_label(head);
    }
    // A small scene's steps are given in µs: in ms they all read 0.00x.
    assert!(h.query_all_by_label_contains(" µs").count() >= 1, "the points' times in µs");
    // With CCD off the ball passes the wall: a bound on tunneling rules that point out, and an
    // impossible bound on time rules out all of them, each point saying why.
    h.state_mut().sweep_panel_mut().require = "tunneled<1, ms<0.0000001".into();
    h.run();
    h.get_by_label("No point meets the bounds");
    h.get_by_label("ms_per_step<0.0000001 broken by 3 of 3 points");
    h.get_by_label("tunneled<1 broken by 1 of 3 points");
    h.get_by_label("tunneled<1, ms_per_step<0.0000001");
    assert_eq!(
        h.query_all_by_label("ms_per_step<0.0000001").count(),
        2,
        "the two other points break the time bound only"
    );
    // Without the impossible bound the cheapest point that does not tunnel is chosen.
    h.state_mut().sweep_panel_mut().require = "tunneled<1".into();
    h.run();
    h.get_by_label_contains("Cheapest meeting the bounds: ccd=");
    assert!(h.query_by_label_contains("Cheapest meeting the bounds: ccd=Off").is_none());
}
