//! The A/B walk-through, scripted: record the tunneling scene, scrub back to the step before
//! the bullet passes the wall, fork it with CCD on, and show both outcomes side by side. Writes
//! a PNG of the window (used for `screenshots/ab_compare.png`) and closes.
//!
//! `cargo run --example ab_compare [SCENE] [OUT.png] [CCD]` (defaults: scenes/tunneling.ron,
//! screenshots/ab_compare.png, Toi).

#[cfg(not(feature = "gui"))]
fn main() {
    eprintln!("this example needs the `gui` feature");
}

#[cfg(feature = "gui")]
fn main() -> Result<(), String> {
    use collidoscope::app::viewport::Camera;
    use collidoscope::app::{App, AppError, Command, Cue, OpenPanels, Persisted, Script, run_script};
    use collidoscope::ccd::CcdMode;
    use collidoscope::math::Vec3;
    use collidoscope::session::timeline::RecordCommand;
    use std::path::PathBuf;

    let args: Vec<String> = std::env::args().skip(1).collect();
    let scene = PathBuf::from(args.first().map_or("scenes/tunneling.ron", String::as_str));
    let out = PathBuf::from(args.get(1).map_or("screenshots/ab_compare.png", String::as_str));
    let ccd = match args.get(2).map(String::as_str) {
        None => CcdMode::Toi,
        Some(name) => CcdMode::from_cli_name(name).ok_or_else(|| format!("unknown CCD mode {name}"))?,
    };
    /// Steps recorded, and steps run after the fork before the picture.
    const RECORDED: usize = 45;
    const AFTER_FORK: u32 = 40;

    struct Walkthrough {
        frames: u32,
    }
    impl Script for Walkthrough {
        fn after_frame(&mut self, app: &mut App) -> Cue {
            self.frames += 1;
            if self.frames >= AFTER_FORK {
                app.simulation_mut().playing = false;
            }
            if self.frames > AFTER_FORK + 2 { Cue::Shoot } else { Cue::Run }
        }
    }

    run_script("Collidoscope — A/B", &scene, out, move |app| {
        let camera =
            Camera { target: Vec3::new(-0.3, 0.2, 0.0), yaw: 0.9, pitch: 0.3, distance: 2.2, ..Camera::default() };
        let open = OpenPanels { scenes: false, timeline: true, ..OpenPanels::default() };
        app.restore(Persisted { camera: Some(camera), open, ..Persisted::default() });

        // 1. Record the miss.
        app.apply(Command::Record(RecordCommand::ToggleRecording));
        for _ in 0..RECORDED {
            app.step_once();
        }
        app.apply(Command::Record(RecordCommand::ToggleRecording));

        // 2. Scrub back to the step before the bullet is past the wall (x > 0).
        let rec =
            app.simulation().record.review.as_ref().ok_or(AppError::Script("no recording".into()))?.recording.clone();
        let bullet = app.world().bodies().iter().position(|b| b.name.as_deref() == Some("bullet")).unwrap_or(2);
        let past = |step: u64| rec.world_at(step).map(|w| w.bodies()[bullet].pose.translation.x > 0.0);
        let miss = (1..=rec.steps())
            .find(|&s| past(s).unwrap_or(false))
            .ok_or(AppError::Script("the bullet never passed the wall".into()))?;
        app.apply(Command::Record(RecordCommand::Seek(miss - 1)));

        // 3. Fork with CCD on: B continues with it, A replays the original beside it.
        let settings = collidoscope::Settings { ccd, ..app.world().settings.clone() };
        app.apply(Command::SetSettings(Box::new(settings)));
        println!("missed at step {miss}; forked at step {} with CCD {ccd:?}", miss - 1);

        // 4. Run both, one step per frame.
        app.fixed_frame_steps = true;
        app.simulation_mut().playing = true;
        Ok(Box::new(Walkthrough { frames: 0 }))
    })
    .map_err(|e| e.to_string())
}
