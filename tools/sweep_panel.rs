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
    use collidoscope::app::viewport::Viewport;
    use collidoscope::app::{App, OpenPanels, Persisted, PngShot, Simulation, setup_style};
    use eframe::egui;
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = PathBuf::from(args.first().map_or("scenes/box_stack.ron", String::as_str));
    let out = PathBuf::from(args.get(1).map_or("screenshots/sweep.png", String::as_str));
    let two = args.get(2).is_some_and(|a| a == "two");

    struct Shot {
        app: App,
        started: bool,
        settled: u32,
        shot: PngShot,
    }
    impl eframe::App for Shot {
        fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
            if !self.started {
                self.started = true;
                let (scene, live) = (self.app.simulation().scene.clone(), self.app.world().settings.clone());
                self.app.sweep_panel_mut().start(&scene, &live);
            }
            self.app.show(ui);
            ui.ctx().request_repaint();
            if self.app.sweep_panel_mut().result.is_some() {
                self.settled += 1;
            }
            if self.settled > 5 {
                self.shot.request(ui.ctx());
            }
            self.shot.write_when_ready();
        }
    }

    let native = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default().with_title("Collidoscope — Sweep").with_inner_size([1600.0, 1000.0]),
        renderer: eframe::Renderer::Wgpu,
        persist_window: false,
        ..Default::default()
    };
    eframe::run_native(
        "Collidoscope sweep walk-through",
        native,
        Box::new(move |cc| {
            setup_style(&cc.egui_ctx);
            let sim = Simulation::load(&scene)?;
            let mut app = App::new(sim, Viewport::new(cc.wgpu_render_state.as_ref()), PathBuf::from("scenes"));
            let open = OpenPanels {
                sweep: true,
                scenes: false,
                settings: false,
                inspector: false,
                view: false,
                profiler: false,
                ..OpenPanels::default()
            };
            app.restore(Persisted { open, ..Persisted::default() });
            let panel = app.sweep_panel_mut();
            panel.steps = 240;
            panel.metric = 3; // penetration_max
            panel.require = "penetration<0.005".into();
            panel.two = two;
            Ok(Box::new(Shot { app, started: false, settled: 0, shot: PngShot::new(out) }))
        }),
    )
    .map_err(|e| e.to_string())
}
