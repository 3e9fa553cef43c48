//! `run --engine rapier` and `compare`, through the real binary (feature `rapier`).
#![cfg(feature = "rapier")]

use std::collections::BTreeMap;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn stdout(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The engines `compare` runs in this build, in its column order.
fn engines() -> Vec<&'static str> {
    let mut e = vec!["collidoscope", "rapier"];
    if cfg!(feature = "jolt") {
        e.push("jolt");
    }
    e
}

#[test]
fn compare_prints_every_engine_side_by_side() {
    let text = stdout(&["compare", "scenes/box_stack.ron", "--steps", "40"]);
    // Each figure row: a label, then one value per engine.
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| l.len() > 30 && !l.starts_with("scene:")) {
        let (label, values) = line.split_at(30);
        rows.insert(label.trim().to_string(), values.split_whitespace().map(str::to_string).collect());
    }
    let num = |label: &str, k: usize| -> f64 {
        let v = rows.get(label).unwrap_or_else(|| panic!("no row {label:?} in:\n{text}"));
        v[k].parse().unwrap_or_else(|_| panic!("{label:?}[{k}] = {:?} in:\n{text}", v[k]))
    };
    let engines = engines();
    assert_eq!(rows[""], engines, "{text}");
    for (k, engine) in engines.iter().enumerate() {
        let (ours, theirs) = (num("ms per step, median", 0), num("ms per step, median", k));
        assert!(ours > 0.0 && theirs > 0.0, "{text}");
        let ratio = num("median / collidoscope's", k);
        assert!((ratio - theirs / ours).abs() <= 0.01 * ratio + 0.006, "{engine}: ratio {ratio} vs {}", theirs / ours);
        assert!(num("ms per step, p90", k) >= num("ms per step, median", k), "{text}");
        // Forty steps of a standing stack (its slab starts 5 cm up): every engine keeps it
        // within centimetres of that, upright.
        assert!(num("max displacement m", k) < 0.1, "{text}");
        // Jolt's boxes, rounded by its convex radius, settle with more drift (25 mm).
        assert!(num("max horizontal drift m", k) < 0.03, "{text}");
        assert!(num("max tilt deg", k) < 2.0, "{text}");
        assert!(num("max penetration m", k) < 0.03, "{text}");
        assert!(num("max horizontal drift m", k) <= num("max displacement m", k) + 1e-6);
        // Distances from our run: none for ours, centimetres at most for the others.
        let (max, mean) = (num("divergence from ours, max m", k), num("divergence from ours, mean m", k));
        assert!(max >= mean && max < 0.05, "{engine}: {max} {mean}");
        assert_eq!(k == 0, max == 0.0, "{engine}: {max}");
    }
    // 40 steps is too soon to sleep for ours and rapier's; Jolt judges rest by its own test.
    assert_eq!(rows["all asleep at s"][..2], ["never", "never"], "{text}");
}

#[test]
fn run_with_each_peer_engine_writes_the_same_formats_and_repeats() {
    for engine in &engines()[1..] {
        run_with(engine);
    }
}

fn run_with(engine: &str) {
    let dir = std::env::temp_dir().join(format!("collidoscope-peer-cli-{engine}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, fin) = (dir.join("steps.csv"), dir.join("final.csv"));
    let run = || {
        let out = bin()
            .args(["run", "scenes/box_stack.ron", "--steps", "30", "--engine", engine, "--csv"])
            .arg(&csv)
            .arg("--final-state")
            .arg(&fin)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let (a, b) = (run(), run());
    let hash = |t: &str| t.lines().last().unwrap().to_string();
    assert!(hash(&a).starts_with("hash: ") && hash(&a).len() == 22, "{a}");
    assert_eq!(hash(&a), hash(&b), "{engine} runs repeat");
    let label = if engine == "rapier" { "engine: rapier3d" } else { "engine: Jolt Physics" };
    assert!(a.contains(label), "{a}");
    let collid = stdout(&["run", "scenes/box_stack.ron", "--steps", "30"]);
    assert_ne!(hash(&a), hash(&collid), "a different engine, a different state");
    let csv = std::fs::read_to_string(&csv).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next().unwrap(), collidoscope::StepProfile::CSV_HEADER);
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 30);
    let last: Vec<&str> = rows[29].split(',').collect();
    assert_eq!(last[0], "30");
    assert_eq!(last[7], "10", "bodies");
    assert!(last[1].parse::<f64>().unwrap() > 0.0, "{engine}'s step time: {}", rows[29]);
    assert!(last[9].parse::<u32>().unwrap() >= 4 * 9, "contacts of nine stacked boxes: {}", rows[29]);
    let fin = std::fs::read_to_string(&fin).unwrap();
    assert!(fin.starts_with("index,name,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,asleep\n"));
    assert_eq!(fin.lines().count(), 11);
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(feature = "jolt")]
#[test]
fn compare_leaves_out_an_engine_that_refuses_the_scene_and_says_why() {
    // Jolt's mesh builder refuses the degenerate triangles of 0.1 mm height-field cells.
    let dir = std::env::temp_dir().join(format!("collidoscope_refused_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("tiny_cells.ron");
    std::fs::write(
        &scene,
        r#"(bodies: [
            (kind: Static, shape: HeightField(cell: 0.0001, heights: [[0, 0, 0], [0, 0, 0], [0, 0, 0]])),
            (kind: Static, shape: Cuboid(half_extents: (2, 0.5, 2)), position: (0, -0.5, 0)),
            (shape: Sphere(radius: 0.1), position: (0.5, 0.3, 0.5)),
        ])"#,
    )
    .unwrap();
    let out = bin().args(["compare", scene.to_str().unwrap(), "--steps", "5"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}{}", String::from_utf8_lossy(&out.stderr));
    let head = text.lines().find(|l| l.trim_start().starts_with("collidoscope") && !l.contains("thread")).unwrap();
    assert_eq!(head.split_whitespace().collect::<Vec<_>>(), ["collidoscope", "rapier"], "{text}");
    let note = text.lines().find(|l| l.starts_with("not run:")).unwrap_or_else(|| panic!("{text}"));
    assert!(note.contains("Jolt Physics") && note.contains("body 0"), "{note}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn compare_runs_a_jointed_scene_in_every_engine_with_its_joint_gaps() {
    // The pendulum lesson: a rod and a rope pendulum, one second.
    let text = stdout(&["compare", "scenes/pendulum.ron", "--steps", "60"]);
    let head = text.lines().find(|l| l.trim_start().starts_with("collidoscope") && !l.contains("thread")).unwrap();
    assert_eq!(head.split_whitespace().collect::<Vec<_>>(), engines(), "{text}");
    assert!(!text.contains("not run:"), "{text}");
    let row = text.lines().find(|l| l.starts_with("joint gap, widest m")).unwrap_or_else(|| panic!("{text}"));
    let gaps: Vec<f64> = row[30..].split_whitespace().map(|v| v.parse().unwrap()).collect();
    assert_eq!(gaps.len(), engines().len(), "{row}");
    // Every engine holds the rod and the rope within centimetres.
    assert!(gaps.iter().all(|&g| g < 0.02), "{row}");
}

#[cfg(not(feature = "jolt"))]
#[test]
fn jolt_asked_of_a_build_without_it_is_refused_by_name() {
    let out = bin().args(["run", "scenes/box_stack.ron", "--steps", "1", "--engine", "jolt"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no jolt engine (built without the `jolt` feature)"), "{err}");
}
