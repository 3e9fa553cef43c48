//! `collidoscope clip` through the real binary: its errors come before any window, whether or
//! not a display exists; with a display (Xvfb and Mesa's software Vulkan will do) it writes a
//! GIF and a PNG sequence of the frames asked for.

use crate::scratch::Scratch;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn clip(args: &[&str], display: bool) -> Output {
    let mut c = bin();
    c.arg("clip").args(args);
    if !display {
        c.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    }
    c.output().unwrap()
}

/// The one-line error of a failed run.
fn error(out: &Output) -> String {
    assert_eq!(out.status.code(), Some(1), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(err.starts_with("error: ") && err.lines().count() == 1, "one line, no panic: {err}");
    err
}

#[test]
fn without_a_display_clip_says_what_to_run_it_under() {
    let dir = Scratch::new("clip", "no_display");
    let gif = dir.join("case.gif");
    let err = error(&clip(&["scenes/tunneling.ron", "-o", gif.to_str().unwrap(), "--to", "10"], false));
    assert!(err.contains("clip needs a display; run it under xvfb-run or xshot"), "{err}");
    assert!(!gif.exists());
}

#[test]
fn bad_ranges_outputs_and_flags_are_clear_errors() {
    let dir = Scratch::new("clip", "errors");
    let gif = dir.join("case.gif");
    let gif = gif.to_str().unwrap();
    for display in [false, true] {
        let err = error(&clip(&["scenes/tunneling.ron", "-o", gif, "--from", "30", "--to", "10"], display));
        assert!(err.contains("--to 10 is before --from 30"), "{err}");
        let rec = "scenes/recordings/tunneling_ccd_off.ron";
        let err = error(&clip(&[rec, "-o", gif, "--to", "100000"], display));
        assert!(err.contains("--to 100000 is beyond the recording's end"), "{err}");
        let err = error(&clip(&[rec, "-o", gif, "--set", "ccd=Toi"], display));
        assert!(err.contains("a recording replays the settings it was recorded with"), "{err}");
        let err = error(&clip(&["scenes/tunneling.ron", "-o", "/nonexistent/dir/case.gif"], display));
        assert!(err.contains("/nonexistent/dir/case.gif"), "{err}");
        let err = error(&clip(&["scenes/tunneling.ron", "-o", dir.join("case.mp4").to_str().unwrap()], display));
        assert!(err.contains("case.mp4") && err.contains(".gif"), "{err}");
        let err = error(&clip(&["scenes/missing.ron", "-o", gif], display));
        assert!(err.contains("scenes/missing.ron"), "{err}");
        let err = error(&clip(&["scenes/tunneling.ron", "-o", gif, "--layer", "nope"], display));
        assert!(err.contains("unknown layer"), "{err}");
    }
    for bad in [["--every", "0"], ["--fps", "60"], ["--size", "10x10"], ["--to", "-3"]] {
        let out = clip(&["scenes/tunneling.ron", "-o", gif, bad[0], bad[1]], false);
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(bad[0]) || err.contains(bad[1]), "{bad:?}: {err}");
    }
    assert!(!dir.join("case.gif").exists());
}

/// Whether a window can open; else the reason the test is skipped, printed.
fn display() -> bool {
    let named = ["DISPLAY", "WAYLAND_DISPLAY"].iter().any(|v| std::env::var_os(v).is_some_and(|s| !s.is_empty()));
    if !named {
        eprintln!("skipped: no display (DISPLAY and WAYLAND_DISPLAY unset); run under xvfb-run to render clips");
    }
    named
}

#[test]
fn with_a_display_clip_writes_the_frames_asked_for() {
    if !display() {
        return;
    }
    let dir = Scratch::new("clip", "render");
    let gif = dir.join("case.gif");
    let out = clip(
        &[
            "scenes/tunneling.ron",
            "-o",
            gif.to_str().unwrap(),
            "--from",
            "2",
            "--to",
            "20",
            "--every",
            "3",
            "--size",
            "160x90",
        ],
        true,
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut d = opts.read_info(std::fs::File::open(&gif).unwrap()).unwrap();
    assert_eq!((d.width(), d.height()), (160, 90));
    let mut delays = Vec::new();
    while let Some(f) = d.read_next_frame().unwrap() {
        delays.push(f.delay);
    }
    // Steps 2, 5, …, 20: seven frames, 3/60 s apart.
    assert_eq!(delays, [5; 7]);
    let pngs = dir.join("pngs");
    let out =
        clip(&["scenes/tunneling.ron", "-o", pngs.to_str().unwrap(), "--png", "--to", "4", "--size", "64x48"], true);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    for i in 0..5 {
        let p = pngs.join(format!("frame_{i:04}.png"));
        let info = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&p).unwrap())).read_info().unwrap();
        assert_eq!((info.info().width, info.info().height), (64, 48), "{}", p.display());
    }
    assert!(!pngs.join("frame_0005.png").exists());
}

/// The words the timeline's "Export clip…" passes to `collidoscope clip` parse, and render the
/// recording's every step when a display exists.
#[test]
fn the_timelines_export_words_make_a_clip_of_the_whole_recording() {
    use collidoscope::app::clip::export_args;
    use collidoscope::app::viewport::Camera;
    use collidoscope::math::Vec3;
    let dir = Scratch::new("clip", "export");
    let gif = dir.join("export.gif");
    let rec = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/recordings/tunneling_ccd_toi.ron");
    let steps = collidoscope::record::Recording::load(&rec).unwrap().steps();
    let camera = Camera::looking(Vec3::new(-1.0, 1.6, 12.5), Vec3::new(-1.0, 0.8, 0.0));
    let words = export_args(&rec, &gif, steps, &camera, &["trails", "ccd"], true);
    let shown = display();
    let mut c = bin();
    c.args(&words).arg("--size").arg("96x54");
    if !shown {
        c.env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY");
    }
    let out = c.output().unwrap();
    if !shown {
        assert!(error(&out).contains("clip needs a display"));
        return;
    }
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let d = gif::DecodeOptions::new().read_info(std::fs::File::open(&gif).unwrap()).unwrap();
    let frames = d.into_iter().count() as u64;
    assert_eq!(frames, steps + 1);
}
