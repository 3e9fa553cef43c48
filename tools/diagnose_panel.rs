//! The Diagnose panel, scripted for its screenshot: open a seeded bug scene, diagnose it in the
//! background, reduce its first event to a minimal case, and save a PNG of the window once both
//! are shown.
//!
//! `cargo run --example diagnose_panel [SCENE] [OUT.png] [STEPS]` (defaults:
//! scenes/bugs/crowd_tunneling.ron, screenshots/diagnose.png, 60).

#[cfg(not(feature = "gui"))]
fn main() {
    eprintln!("this example needs the `gui` feature");
}

#[cfg(feature = "gui")]
fn main() -> Result<(), String> {
    use collidoscope::app::{App, Cue, OpenPanels, PanelId, Persisted, Script, run_script};
    use collidoscope::diagnose::HORIZON;
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = PathBuf::from(args.first().map_or("scenes/bugs/crowd_tunneling.ron", String::as_str));
    let out = PathBuf::from(args.get(1).map_or("screenshots/diagnose.png", String::as_str));
    let steps: u64 = args.get(2).map_or(Ok(60), |s| s.parse()).map_err(|e| format!("STEPS: {e}"))?;

    /// Asks for the reduction once the report is in, then counts the frames drawn since the
    /// minimal case arrived.
    struct Shot {
        reducing: bool,
        settled: u32,
    }
    impl Script for Shot {
        fn after_frame(&mut self, app: &mut App) -> Cue {
            let scene = app.simulation().scene.clone();
            let panel = app.diagnose_panel_mut();
            if !self.reducing
                && let Some(e) = panel.result.as_ref().and_then(|d| d.report.diagnoses.first()).map(|d| d.event.clone())
            {
                panel.start_shrink(&scene, e.symptom, e.bodies.first().copied(), e.step + HORIZON);
                self.reducing = true;
            }
            let done = panel.result.as_ref().is_some_and(|d| d.report.diagnoses.is_empty())
                || panel.reduced.is_some()
                || panel.error.is_some()
                || panel.shrink_error.is_some();
            if done {
                self.settled += 1;
            }
            if self.settled > 5 { Cue::Shoot } else { Cue::Run }
        }
    }

    run_script("Collidoscope — Diagnose", &scene, out, move |app| {
        app.restore(Persisted { open: OpenPanels::only(PanelId::Diagnose), ..Persisted::default() });
        app.set_dock_width(640.0);
        app.diagnose_panel_mut().steps = steps;
        let (scene, live) = (app.simulation().scene.clone(), app.world().settings.clone());
        app.diagnose_panel_mut().start(&scene, &live);
        Ok(Box::new(Shot { reducing: false, settled: 0 }))
    })
    .map_err(|e| e.to_string())
}
