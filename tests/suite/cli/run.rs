//! The command line, through the real binary.

use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn last_line(out: &[u8]) -> String {
    String::from_utf8_lossy(out).lines().last().unwrap_or("").to_string()
}

#[test]
fn run_prints_a_hash_that_repeats() {
    let run = || bin().args(["run", "scenes/default.ron", "--steps", "120"]).output().unwrap();
    let (a, b) = (run(), run());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let line = last_line(&a.stdout);
    assert!(line.starts_with("hash: ") && line.len() == 22, "{line:?}");
    assert!(line[6..].chars().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_eq!(line, last_line(&b.stdout));
    let text = String::from_utf8_lossy(&a.stdout);
    for phase in ["broad_phase", "narrow_phase", "solve", "integrate", "total"] {
        assert!(text.contains(phase), "summary lacks {phase}:\n{text}");
    }
}

/// `run scenes/box_stack.ron --steps STEPS EXTRA...`, which must succeed.
fn run_box_stack(steps: u32, extra: &[&str]) -> std::process::Output {
    let steps = steps.to_string();
    let mut args = vec!["run", "scenes/box_stack.ron", "--steps", &steps];
    args.extend_from_slice(extra);
    let out = bin().args(&args).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
}

#[test]
fn set_changes_the_run_and_bad_sets_fail_cleanly() {
    let hash = |extra: &[&str]| last_line(&run_box_stack(60, extra).stdout);
    assert_ne!(hash(&[]), hash(&["--set", "gravity=(0, -1.62, 0)"]));
    for bad in ["slop", "nope=1", "dt=-1", "substeps=zero"] {
        let out = bin().args(["run", "scenes/box_stack.ron", "--steps", "1", "--set", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "--set {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(err.lines().count(), 1, "one line, no panic: {err}");
        assert!(err.starts_with("error: "), "{err}");
    }
}

/// A slop that lets bodies sink past the middle of the thinnest fixed body is warned about,
/// and the run goes on; the scene's own slop is not.
#[test]
fn a_slop_too_deep_for_the_floor_is_warned_about() {
    let run = |extra: &[&str]| String::from_utf8_lossy(&run_box_stack(2, extra).stderr).into_owned();
    let quiet = run(&[]);
    assert!(!quiet.contains("slop"), "{quiet}");
    let err = run(&["--set", "slop=0.3"]);
    assert!(
        err.contains("warning: slop 300 mm lets resting bodies sink 150 mm into what they rest on, and 'floor' is only 1.00 m thick")
            && err.contains("keep slop at most 250 mm"),
        "{err}"
    );
}

#[test]
fn csv_and_final_state_have_the_documented_columns() {
    let dir = std::env::temp_dir().join(format!("collidoscope-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, fin) = (dir.join("steps.csv"), dir.join("final.csv"));
    let out = bin()
        .args(["run", "scenes/box_stack.ron", "--steps", "30", "--csv"])
        .arg(&csv)
        .arg("--final-state")
        .arg(&fin)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let steps = std::fs::read_to_string(&csv).unwrap();
    assert!(steps.starts_with(
        "step,total_ms,broad_phase_ms,narrow_phase_ms,ccd_ms,solve_ms,integrate_ms,bodies,pairs,contacts"
    ));
    assert_eq!(steps.lines().count(), 31);
    let columns = steps.lines().next().unwrap().split(',').count();
    assert!(steps.lines().all(|l| l.split(',').count() == columns), "every row has the header's columns");
    let state = std::fs::read_to_string(&fin).unwrap();
    let mut lines = state.lines();
    assert_eq!(lines.next(), Some("index,name,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,asleep"));
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 10);
    assert!(rows[0].starts_with("0,floor,"));
    assert!(rows.iter().all(|r| r.split(',').count() == 16));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn check_names_the_line_of_a_broken_file() {
    let dir = std::env::temp_dir().join(format!("collidoscope-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("broken.ron");
    std::fs::write(&bad, "(\n  version: 1,\n  bodies: [\n    (shape: Sphere(radius: -2)),\n  ],\n)\n").unwrap();
    let out = bin().arg("check").arg("scenes/default.ron").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("ok: scenes/default.ron"), "{text}");
    assert!(text.contains(&format!("{}:4:", bad.display())), "{text}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    let missing = bin().args(["run", "no/such/scene.ron"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no/such/scene.ron"));
    let unknown = bin().args(["run", "scenes/default.ron", "--broad-phase", "quadtree"]).output().unwrap();
    assert_eq!(unknown.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("quadtree"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[cfg(feature = "gui")]
#[test]
fn bad_compare_settings_fail_before_a_window_opens() {
    for (bad, named) in [("nope=1", "nope"), ("substeps=zero", "substeps"), ("ccd", "FIELD=VALUE")] {
        let out = bin().args(["scenes/tunneling.ron", "--compare", bad]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "--compare {bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--compare") && err.contains(named), "--compare {bad}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[cfg(feature = "gui")]
#[test]
fn bad_app_layers_sets_and_cameras_fail_before_a_window_opens() {
    for (args, named) in [
        (["--layer", "meshes"], "meshes"),
        (["--set", "internal_edges=Sometimes"], "internal_edges"),
        (["--set", "slop=-1"], "slop"),
        (["--camera", "0,1,2,0,1"], "six finite numbers"),
        (["--camera", "1,1,1,1,1,1"], "at the target"),
        (["--camera", "0,1,x,0,0,0"], "\"x\" is not a number"),
    ] {
        let out = bin().arg("scenes/ghost_lab.ron").args(args).output().unwrap();
        assert!(out.status.code().is_some_and(|c| c != 0), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(named), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn check_takes_lessons_and_names_the_field_of_a_broken_one() {
    let dir = std::env::temp_dir().join(format!("collidoscope-check-lesson-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad_lesson.ron");
    let scene = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron");
    let text = format!(
        "(title: \"T\", scene: File({:?}), steps: [(text: \"a\", layers: [\"aabs\"])])",
        scene.display().to_string()
    );
    std::fs::write(&bad, text).unwrap();
    let out = bin().args(["check", "lessons/jitter.ron", "scenes/jitter.ron"]).arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("ok: lessons/jitter.ron (lesson: 5 steps on lessons/../scenes/jitter.ron with 5 bodies"),
        "{text}"
    );
    assert!(text.contains("ok: scenes/jitter.ron (5 bodies)"), "{text}");
    #[cfg(feature = "gui")]
    assert!(text.contains(&format!("{}: steps[0].layers[0]: unknown layer \"aabs\"", bad.display())), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 of 3 files failed the check"));
    // The app refuses a step the lesson does not have before any window opens.
    let out = bin()
        .args(["--lesson", "lessons/jitter.ron", "--step", "9", "--screenshot"])
        .arg(dir.join("x.png"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    #[cfg(feature = "gui")]
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--step 9: lessons/jitter.ron has 5 steps"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reader that stops early (`collidoscope run … | head -1`) ends the command quietly: no
/// panic, success.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::Stdio;
    let mut child = bin()
        .args(["run", "scenes/box_stack.ron", "--steps", "30"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && !err.contains("panicked"), "{:?}: {err}", out.status);
}
