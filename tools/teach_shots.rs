//! The teaching tools and the jitter lesson, scripted for their screenshots: open the lesson
//! scene, set it up as its description says, run a number of frames (one step each) and save a
//! PNG of the window.
//!
//! `cargo run --example teach_shots -- ray|tests|jitter OUT.png` (under a display, e.g.
//! `/work/shared/tools/xshot /tmp/x.png 120 -- target/debug/examples/teach_shots ray OUT.png`).

#[cfg(not(feature = "gui"))]
fn main() {
    eprintln!("this example needs the `gui` feature");
}

#[cfg(feature = "gui")]
fn main() -> Result<(), String> {
    use collidoscope::app::viewport::Viewport;
    use collidoscope::app::{App, Command, OpenPanels, Persisted, PngShot, Simulation, setup_style};
    use eframe::egui;
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().cloned().unwrap_or_else(|| "ray".into());
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| format!("screenshots/{which}.png")));
    let (scene, frames) = match which.as_str() {
        "ray" => ("scenes/ray_slab.ron", 20),
        "tests" => ("scenes/geometric_tests.ron", 20),
        "jitter" => ("scenes/jitter.ron", 300),
        other => return Err(format!("unknown shot {other}: ray, tests or jitter")),
    };

    struct Shot {
        app: App,
        frames: u32,
        seen: u32,
        shot: PngShot,
    }
    impl eframe::App for Shot {
        fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
            self.app.show(ui);
            ui.ctx().request_repaint();
            self.seen += 1;
            if self.seen == self.frames {
                self.app.simulation_mut().playing = false;
            }
            if self.seen > self.frames + 3 {
                self.shot.request(ui.ctx());
            }
            self.shot.write_when_ready();
            if self.seen > self.frames + 30 {
                ui.ctx().send_viewport_cmd(egui::ViewportCommand::Close);
            }
        }
    }

    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title("Collidoscope").with_inner_size([1600.0, 1000.0]),
        renderer: eframe::Renderer::Wgpu,
        persist_window: false,
        ..Default::default()
    };
    eframe::run_native(
        "Collidoscope teaching shots",
        native,
        Box::new(move |cc| {
            setup_style(&cc.egui_ctx);
            let sim = Simulation::load(std::path::Path::new(scene))?;
            let mut app = App::new(sim, Viewport::new(cc.wgpu_render_state.as_ref()), PathBuf::from("scenes"));
            let jitter = which == "jitter";
            let open = OpenPanels {
                scenes: false,
                settings: jitter,
                profiler: false,
                inspector: jitter,
                view: false,
                timeline: false,
                ..OpenPanels::default()
            };
            app.restore(Persisted { open, ..Persisted::default() });
            app.fixed_frame_steps = true;
            if jitter {
                // The description's recipe: sleeping off to keep watching, warm starting off.
                let mut s = app.world().settings.clone();
                s.sleeping = false;
                s.warm_starting = false;
                app.apply(Command::SetSettings(Box::new(s)));
                let top = app.world().bodies().iter().position(|b| b.name.as_deref() == Some("top box"));
                app.apply(Command::Select(top));
                app.set_trace_series(1);
                app.simulation_mut().playing = true;
            }
            Ok(Box::new(Shot { app, frames, seen: 0, shot: PngShot::new(out) }))
        }),
    )
    .map_err(|e| e.to_string())
}
