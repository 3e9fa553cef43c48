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
    use collidoscope::app::{App, Command, Cue, OpenPanels, Persisted, Script, run_script};
    use std::path::{Path, PathBuf};

    let args: Vec<String> = std::env::args().skip(1).collect();
    let which = args.first().cloned().unwrap_or_else(|| "ray".into());
    let out = PathBuf::from(args.get(1).cloned().unwrap_or_else(|| format!("screenshots/{which}.png")));
    let (scene, frames) = match which.as_str() {
        "ray" => ("scenes/ray_slab.ron", 20),
        "tests" => ("scenes/geometric_tests.ron", 20),
        "jitter" => ("scenes/jitter.ron", 300),
        other => return Err(format!("unknown shot {other}: ray, tests or jitter")),
    };

    /// Runs `frames` frames, pauses, takes the picture a few frames later and closes.
    struct Shot {
        frames: u32,
        seen: u32,
    }
    impl Script for Shot {
        fn after_frame(&mut self, app: &mut App) -> Cue {
            self.seen += 1;
            if self.seen == self.frames {
                app.simulation_mut().playing = false;
            }
            match self.seen {
                s if s > self.frames + 30 => Cue::Close,
                s if s > self.frames + 3 => Cue::Shoot,
                _ => Cue::Run,
            }
        }
    }

    run_script("Collidoscope", Path::new(scene), out, move |app| {
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
        Ok(Box::new(Shot { frames, seen: 0 }))
    })
    .map_err(|e| e.to_string())
}
