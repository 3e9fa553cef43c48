//! The Sweep panel, scripted for its screenshot: open a scene, vary one or two settings, run the
//! sweep in the background, and save a PNG of the window once the plot is drawn.
//!
//! `cargo run --example sweep_panel [SCENE] [OUT.png] [two]` (defaults: scenes/box_stack.ron,
//! screenshots/sweep.png; `two` adds substeps for a heat map).

#[cfg(not(feature = "gui"))]
fn main() {
    eprintln!("this example needs the `gui` feature");
}

#[cfg(feature = "gui")]
fn main() -> Result<(), String> {
    use collidoscope::app::{App, Cue, OpenPanels, PanelId, Persisted, Script, run_script};
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = PathBuf::from(args.first().map_or("scenes/box_stack.ron", String::as_str));
    let out = PathBuf::from(args.get(1).map_or("screenshots/sweep.png", String::as_str));
    let two = args.get(2).is_some_and(|a| a == "two");

    /// Counts the frames drawn since the sweep's result arrived.
    struct Shot {
        settled: u32,
    }
    impl Script for Shot {
        fn after_frame(&mut self, app: &mut App) -> Cue {
            if app.sweep_panel_mut().result.is_some() {
                self.settled += 1;
            }
            if self.settled > 5 { Cue::Shoot } else { Cue::Run }
        }
    }

    run_script("Collidoscope — Sweep", &scene, out, move |app| {
        app.restore(Persisted { open: OpenPanels::only(PanelId::Sweep), ..Persisted::default() });
        let panel = app.sweep_panel_mut();
        panel.steps = 240;
        panel.metric = 3; // penetration_max
        panel.require = "penetration<0.005".into();
        panel.two = two;
        // Wide enough for every metric's column of the table.
        app.set_dock_width(760.0);
        let (scene, live) = (app.simulation().scene.clone(), app.world().settings.clone());
        app.sweep_panel_mut().start(&scene, &live);
        Ok(Box::new(Shot { settled: 0 }))
    })
    .map_err(|e| e.to_string())
}
