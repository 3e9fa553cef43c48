//! Hostile input, round two (issue #38), through the real binary: step counts in every command,
//! negative and out-of-range numbers, mistyped commands, sweeps and merges, engines, threads,
//! and output paths (device nodes, FIFOs, folders, symbolic links, read-only files, folders that
//! cannot be written). Each case exits 1 with an `error:` line naming the problem and changes
//! nothing on disk.

use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// A fresh folder for one case's files, removed when the case ends.
fn scratch(test: &str) -> crate::scratch::Scratch {
    crate::scratch::Scratch::new("collidoscope-h38cli", test)
}

/// Runs the binary, which must fail with exit status 1, print an `error:` line first and no
/// panic; the whole of stderr.
fn refused(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {err}\n{}", String::from_utf8_lossy(&out.stdout));
    assert!(err.starts_with("error:"), "{args:?}: {err}");
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

/// As [`refused`], and the message is one line.
fn one_line(args: &[&str]) -> String {
    let err = refused(args);
    assert_eq!(err.lines().count(), 1, "{args:?}: one line: {err}");
    err
}

const SCENE: &str = "scenes/box_stack.ron";

#[test]
fn every_command_bounds_steps_as_run_does() {
    // The compare cases: u64::MAX panicked, 1e12 aborted asking for 8 TB, 1e8 ran for
    // ever and 1,000,001 was accepted.
    for steps in ["18446744073709551615", "1e12", "100000000", "1000001", "-1", "many"] {
        for cmd in ["run", "compare", "sweep", "record"] {
            let mut args = vec![cmd, SCENE, "--steps", steps];
            match cmd {
                "sweep" => args.extend(["--vary", "slop=0..0.01:2"]),
                "record" => args.extend(["-o", "/nonexistent/never.ron"]),
                _ => {}
            }
            let err = refused(&args);
            assert!(err.contains("--steps") && err.contains("1000000"), "{cmd} --steps {steps}: {err}");
            assert!(!err.contains("unexpected argument"), "{cmd} --steps {steps}: {err}");
        }
    }
}

#[test]
fn negative_numbers_say_the_value_must_be_non_negative() {
    // The cases got clap's "unexpected argument '-1'".
    let cases: Vec<Vec<&str>> = vec![
        vec!["run", SCENE, "--steps", "-1"],
        vec!["run", SCENE, "--threads", "-1"],
        vec!["compare", SCENE, "--threads", "-1"],
        vec!["sweep", SCENE, "--vary", "slop=0..0.01:2", "--threads", "-1"],
        vec!["record", SCENE, "-o", "x.ron", "--keyframe-every", "-1"],
        vec![SCENE, "--select", "-1"],
        vec![SCENE, "--frames", "-1"],
    ];
    for args in cases {
        let err = refused(&args);
        assert!(err.contains("-1 is negative: the value must be non-negative"), "{args:?}: {err}");
        assert!(!err.contains("unexpected argument"), "{args:?}: {err}");
    }
}

#[test]
fn threads_out_of_range_are_refused() {
    for n in ["0", "1025", "99999999999", "two"] {
        for cmd in ["run", "compare", "record"] {
            let mut args = vec![cmd, SCENE, "--threads", n];
            if cmd == "record" {
                args.extend(["-o", "/nonexistent/x.ron"]);
            }
            let err = refused(&args);
            assert!(err.contains("--threads") && err.contains("from 1 to 1024"), "{args:?}: {err}");
        }
    }
}

#[test]
fn a_mistyped_command_is_named_with_a_suggestion() {
    for (typo, meant) in
        [("runn", "run"), ("chek", "check"), ("swep", "sweep"), ("replya", "replay"), ("comapre", "compare")]
    {
        let err = one_line(&[typo, SCENE]);
        assert!(err.contains(&format!("unknown command '{typo}'")), "{typo}: {err}");
        assert!(err.contains(&format!("did you mean '{meant}'")), "{typo}: {err}");
    }
}

#[test]
fn engines_are_named_and_metrics_need_collidoscope() {
    let err = refused(&["run", SCENE, "--engine", "bullet"]);
    assert!(err.contains("bullet") && err.contains("collidoscope"), "{err}");
    let dir = scratch("engine");
    let m = dir.join("m.csv");
    let err = one_line(&["run", SCENE, "--steps", "1", "--engine", "rapier", "--metrics", m.to_str().unwrap()]);
    assert!(err.contains("--engine collidoscope") || err.contains("no rapier3d"), "{err}");
    assert!(!m.exists(), "nothing written");
}

#[test]
fn sweeps_refuse_a_field_varied_twice_and_bounds_that_are_not_finite() {
    let err = one_line(&["sweep", SCENE, "--steps", "1", "--vary", "slop=0..0.01:2", "--vary", "slop=0.02"]);
    assert!(err.contains("slop is varied twice"), "{err}");
    for bound in ["jitter<NaN", "jitter<inf", "ms>-inf", "penetration<=nan"] {
        let err = one_line(&["sweep", SCENE, "--steps", "1", "--vary", "slop=0..0.01:2", "--require", bound]);
        assert!(err.contains("not a finite number"), "{bound}: {err}");
    }
}

/// A point file as `run --metrics` writes it, with `jitter` in the jitter_max column.
fn point_file(jitter: &str) -> String {
    format!(
        "slop,ms_per_step,jitter_max,jitter_p99,penetration_max,energy_rise,tunneled,asleep,divergence,hash\n\
         0.001,0.05,{jitter},0,0.001,0,0,4,0,00000000000000ab\n"
    )
}

#[test]
fn merges_refuse_metrics_that_are_not_finite() {
    let dir = scratch("merge");
    let d = dir.to_str().unwrap();
    std::fs::write(dir.join("point-00001.csv"), point_file("0.001")).unwrap();
    let ok = bin().args(["sweep", "--merge", d]).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    for bad in ["NaN", "inf", "-inf", "1e39"] {
        std::fs::write(dir.join("point-00002.csv"), point_file(bad)).unwrap();
        let err = one_line(&["sweep", "--merge", d]);
        assert!(err.contains("point-00002.csv: row 1: jitter_max is"), "{bad}: {err}");
        assert!(err.contains("not a finite number"), "{bad}: {err}");
    }
    std::fs::write(dir.join("point-00002.csv"), point_file("0").replace(",4,0,", ",-4,0,")).unwrap();
    let err = one_line(&["sweep", "--merge", d]);
    assert!(err.contains("asleep is -4, but it cannot be negative"), "{err}");
    std::fs::write(dir.join("point-00002.csv"), point_file("0").replace(",4,0,", ",4.5,0,")).unwrap();
    let err = one_line(&["sweep", "--merge", d]);
    assert!(err.contains("asleep is 4.5, not a whole count"), "{err}");
}

/// Every command's output options, with `{}` standing for the output path.
fn output_commands(dir: &Path) -> Vec<Vec<String>> {
    let jobs_dir = dir.join("jobs");
    std::fs::create_dir_all(&jobs_dir).unwrap();
    let mut cases: Vec<Vec<&str>> = vec![
        vec!["run", SCENE, "--steps", "2", "--csv", "{}"],
        vec!["run", SCENE, "--steps", "2", "--final-state", "{}"],
        vec!["run", SCENE, "--steps", "2", "--metrics", "{}"],
        vec!["record", SCENE, "--steps", "2", "-o", "{}"],
        vec!["sweep", SCENE, "--steps", "2", "--vary", "slop=0..0.01:2", "-o", "{}"],
        vec!["sweep", SCENE, "--steps", "2", "--vary", "slop=0..0.01:2", "--emit-jobs", "{}"],
    ];
    if cfg!(feature = "gui") {
        cases.push(vec![SCENE, "--screenshot", "{}", "--frames", "1"]);
    }
    cases.into_iter().map(|c| c.into_iter().map(String::from).collect()).collect()
}

fn with_path(args: &[String], path: &Path) -> Vec<String> {
    args.iter().map(|a| if a == "{}" { path.display().to_string() } else { a.clone() }).collect()
}

fn refused_owned(args: &[String]) -> String {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    one_line(&args)
}

#[cfg(unix)]
#[test]
fn outputs_never_replace_device_nodes_fifos_or_folders() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch("special");
    // The case: a character device (mknod c 1 3, /dev/null's numbers) was replaced.
    let dev = dir.join("null");
    let made = Command::new("mknod").arg(&dev).args(["c", "1", "3"]).status().map(|s| s.success()).unwrap_or(false);
    let fifo = dir.join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let folder = dir.join("folder");
    std::fs::create_dir_all(&folder).unwrap();
    let mut targets = vec![(fifo.clone(), "a FIFO (named pipe), not a regular file"), (folder.clone(), "is a folder")];
    if made {
        targets.push((dev.clone(), "is a character device, not a regular file"));
        // Through a link the device is still refused, and the link stays.
        let link = dir.join("link-to-null");
        std::os::unix::fs::symlink(&dev, &link).unwrap();
        targets.push((link, "is a character device"));
    } else {
        eprintln!("mknod is not permitted here: the device node case is not run");
    }
    for args in output_commands(&dir) {
        for (target, part) in &targets {
            let err = refused_owned(&with_path(&args, target));
            assert!(err.contains(part) && err.contains(&target.display().to_string()), "{args:?} {target:?}: {err}");
        }
        if made {
            assert!(std::fs::metadata(&dev).unwrap().file_type().is_char_device(), "the device is left as it is");
        }
        assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
        assert!(folder.is_dir() && std::fs::read_dir(&folder).unwrap().next().is_none());
    }
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert!(left.iter().all(|n| !n.to_string_lossy().ends_with(".tmp")), "{left:?}");
}

#[cfg(unix)]
#[test]
fn outputs_follow_links_to_regular_files_and_refuse_links_to_nothing() {
    let dir = scratch("links");
    let target = dir.join("real.csv");
    std::fs::write(&target, "old").unwrap();
    let link = dir.join("link.csv");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let out = bin().args(["run", SCENE, "--steps", "2", "--final-state"]).arg(&link).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "the link stays a link");
    assert!(std::fs::read_to_string(&target).unwrap().starts_with("index,name,"), "its file is replaced");
    let dangling = dir.join("dangling.csv");
    std::os::unix::fs::symlink(dir.join("nowhere/x.csv"), &dangling).unwrap();
    for args in output_commands(&dir) {
        let err = refused_owned(&with_path(&args, &dangling));
        assert!(err.contains("is a symbolic link to") && err.contains("which does not exist"), "{args:?}: {err}");
        assert!(std::fs::symlink_metadata(&dangling).unwrap().file_type().is_symlink());
    }
}

#[test]
fn read_only_targets_are_refused_in_every_command() {
    let dir = scratch("read-only");
    let target = dir.join("keep.csv");
    std::fs::write(&target, "precious").unwrap();
    let mut perm = std::fs::metadata(&target).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&target, perm).unwrap();
    for args in output_commands(&dir) {
        let err = refused_owned(&with_path(&args, &target));
        assert!(err.contains("read-only") && err.contains("keep.csv"), "{args:?}: {err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    }
    // A read-only point file of a sweep's jobs is refused when the jobs are written, not when
    // the job runs; the jobs file is not written.
    let jobs = dir.join("jobs.txt");
    let point = dir.join("point-00002.csv");
    std::fs::write(&point, "old").unwrap();
    let mut perm = std::fs::metadata(&point).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&point, perm).unwrap();
    let err = one_line(&["sweep", SCENE, "--vary", "slop=0..0.01:3", "--emit-jobs", jobs.to_str().unwrap()]);
    assert!(err.contains("point-00002.csv") && err.contains("read-only"), "{err}");
    assert!(!jobs.exists());
    #[allow(clippy::permissions_set_readonly_false)]
    for p in [&target, &point] {
        let mut perm = std::fs::metadata(p).unwrap().permissions();
        perm.set_readonly(false);
        std::fs::set_permissions(p, perm).unwrap();
    }
}

#[test]
fn outputs_in_folders_that_cannot_be_written_fail_before_the_run() {
    // As root every folder is writable, so this takes a folder that cannot hold files whoever
    // runs it: a path through a regular file. The longest run and sweep are refused at once.
    let dir = scratch("no-folder");
    let file = dir.join("file");
    std::fs::write(&file, "x").unwrap();
    let inside = file.join("out.csv");
    for args in output_commands(&dir) {
        let args: Vec<String> = args.iter().map(|a| if a == "2" { "1000000".to_string() } else { a.clone() }).collect();
        let start = std::time::Instant::now();
        let err = refused_owned(&with_path(&args, &inside));
        assert!(
            err.contains(&inside.display().to_string()) && err.contains("cannot write in its folder"),
            "{args:?}: {err}"
        );
        assert!(start.elapsed().as_secs_f64() < 20.0, "{args:?}: refused before the run");
    }
    let missing = dir.join("no/such/folder/out.csv");
    let err = one_line(&["run", SCENE, "--steps", "1000000", "--csv", missing.to_str().unwrap()]);
    assert!(err.contains("cannot write in its folder"), "{err}");
}

#[test]
fn edge_case_meshes_run_in_both_engines_and_compare() {
    // A fin (an edge shared by three triangles, accepted) and a height field at the smallest
    // cell, under a sphere each: every engine steps them without a panic, and compare runs both.
    let dir = scratch("engines");
    let scene = dir.join("fin.ron");
    std::fs::write(
        &scene,
        "(bodies: [
            (kind: Static, shape: TriangleMesh(vertices: [(0,0,0),(1,0,0),(0.5,0,1),(0.5,0,-1),(0.5,1,0)],
                                               indices: [(0,2,1),(1,3,0),(0,1,4)])),
            (shape: Sphere(radius: 0.2), position: (0.5, 2, 0.3)),
            (kind: Static, shape: HeightField(cell: 1e-4, heights: [[0,0],[0,0]]), position: (5,0,0)),
            (shape: Sphere(radius: 0.2), position: (5, 1, 0)),
        ])",
    )
    .unwrap();
    let s = scene.to_str().unwrap();
    let engines: &[&str] = match (cfg!(feature = "rapier"), cfg!(feature = "jolt")) {
        (_, true) => &["collidoscope", "rapier", "jolt"],
        (true, false) => &["collidoscope", "rapier"],
        _ => &["collidoscope"],
    };
    for engine in engines {
        let out = bin().args(["run", s, "--steps", "120", "--engine", engine]).output().unwrap();
        if *engine == "jolt" {
            // Jolt drops triangles below its size threshold: the 0.1 mm cell leaves none, and it
            // says so by body rather than crashing.
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(err.contains("Jolt cannot build body 2's height field"), "{err}");
            continue;
        }
        assert!(out.status.success(), "{engine}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("hash: "), "{engine}");
    }
    // (With Jolt, compare stops at Jolt's refusal above.)
    if cfg!(feature = "rapier") && !cfg!(feature = "jolt") {
        let out = bin().args(["compare", s, "--steps", "60", "--threads", "2"]).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stdout).contains("divergence from ours, max m"));
    }
}

#[test]
fn a_bad_window_size_is_refused_before_any_window() {
    for (size, says) in [
        ("1280", "expected WIDTHxHEIGHT"),
        ("wide x 720", "the width `wide ` is not a whole number"),
        ("640x480", "the width 640 is outside 800..=16384"),
        ("1280x100", "the height 100 is outside 500..=16384"),
    ] {
        let err = refused(&[SCENE, "--size", size]);
        assert!(err.contains("--size") && err.contains(says), "{size}: {err}");
    }
}

/// App options that do not fit what they open are refused before any window: a body the scene
/// does not have (it was ignored), a lesson's step without a lesson (it was ignored), a case
/// bundle side by side, and a screenshot named other than `.png` (PNG bytes went into it).
#[test]
fn app_options_that_do_not_fit_the_scene_are_refused_before_any_window() {
    let dir = scratch("bundle_compare");
    // Merged point files name their own scene.
    let err = one_line(&["sweep", SCENE, "--merge", dir.to_str().unwrap()]);
    assert!(err.contains("--merge") && err.contains("give no scene"), "{err}");
    if !cfg!(feature = "gui") {
        return;
    }
    let err = one_line(&[SCENE, "--select", "10"]);
    assert!(err.contains("--select 10: the scene has 10 bodies (0 to 9)"), "{err}");
    let err = one_line(&["--lesson", "lessons/jitter.ron", "--select", "5"]);
    assert!(err.contains("--select 5: the scene has 5 bodies"), "{err}");
    let err = one_line(&[SCENE, "--step", "2"]);
    assert!(err.contains("--step") && err.contains("--lesson"), "{err}");
    // A screenshot is a PNG, whatever the name says.
    let jpg = dir.join("shot.jpg").display().to_string();
    let err = one_line(&[SCENE, "--screenshot", jpg.as_str()]);
    assert!(err.contains("give a file name ending in .png"), "{err}");
    let case = dir.join("case.zip");
    crate::bundle::diagnose_bundle("scenes/bugs/thin_plate_ccd_off.ron", 30, &case);
    let case = case.to_string_lossy().into_owned();
    for option in ["--compare", "--set"] {
        let err = one_line(&[case.as_str(), option, "ccd=Toi"]);
        assert!(err.contains("a case bundle opens with its recording") && err.contains(option), "{err}");
    }
}

/// An output that is one of the command's inputs is refused before anything runs, by its own
/// name or another (`..`, a link), and the input is left as it was; two outputs of one run that
/// name one file are refused too.
#[test]
fn outputs_never_replace_their_own_input() {
    let dir = scratch("input-as-output");
    let scene = dir.join("scene.ron");
    let text = std::fs::read_to_string(SCENE).unwrap();
    std::fs::write(&scene, &text).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let mut names = vec![scene.clone(), dir.join("sub/../scene.ron")];
    #[cfg(unix)]
    {
        let link = dir.join("link.ron");
        std::os::unix::fs::symlink(&scene, &link).unwrap();
        names.push(link);
    }
    let s = scene.display().to_string();
    for out in &names {
        let o = out.display().to_string();
        let mut cases: Vec<Vec<&str>> = vec![
            vec!["run", &s, "--steps", "2", "--csv", &o],
            vec!["run", &s, "--steps", "2", "--final-state", &o],
            vec!["run", &s, "--steps", "2", "--metrics", &o],
            vec!["record", &s, "--steps", "2", "-o", &o],
            vec!["sweep", &s, "--steps", "2", "--vary", "slop=0..0.01:2", "-o", &o],
            vec!["diagnose", &s, "--steps", "2", "--report", &o],
            vec!["diagnose", &s, "--steps", "2", "--bundle", &o],
            vec!["shrink", &s, "--event", "jitter", "--steps", "2", "-o", &o],
        ];
        if cfg!(feature = "gui") {
            cases.push(vec!["clip", &s, "--to", "2", "-o", &o]);
        }
        for args in cases {
            let err = one_line(&args);
            assert!(err.contains("that is the input") && err.contains(&o), "{args:?}: {err}");
            assert_eq!(std::fs::read_to_string(&scene).unwrap(), text, "{args:?} left the scene as it was");
        }
    }
    // A bundle goes to a folder or a .zip: a file of another name is said to be a file.
    let other = dir.join("notes.txt");
    std::fs::write(&other, "mine").unwrap();
    let err = one_line(&["diagnose", &s, "--steps", "2", "--bundle", &other.display().to_string()]);
    assert!(err.contains("a file, not a folder"), "{err}");
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "mine");
    let table = dir.join("table.csv").display().to_string();
    let err = one_line(&["run", &s, "--steps", "2", "--csv", &table, "--metrics", &table]);
    assert!(err.contains("--metrics and --csv both write"), "{err}");
    assert!(!dir.join("table.csv").exists());
}
