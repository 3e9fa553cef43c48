//! Hostile input (issue #16): damaged and extreme scenes, recordings and command lines. Each
//! either works, giving a finite world, or fails with one clear message that names the file and
//! the place (`FILE:LINE:COL` or `FILE: field`); nothing panics, aborts, hangs or turns NaN.

use collidoscope::record::{Recorder, Recording};
use collidoscope::scene::SplitMix64;
use collidoscope::{Scene, SceneError, World};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;

fn scenes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes")
}

/// Every shipped scene's text, by file name.
fn shipped_scenes() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(scenes_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

/// The error names the file and a place: a line and column, or a field.
fn assert_places(err: &SceneError, file: &str, case: &str) {
    let msg = err.to_string();
    assert!(msg.starts_with(file), "{case}: the message must start with the file: {msg}");
    let place = match err {
        SceneError::Parse { line, col, .. } => *line >= 1 && *col >= 1,
        SceneError::Invalid { field, .. } => !field.is_empty(),
        SceneError::Io { .. } => false,
    };
    assert!(place, "{case}: no line:col or field in {msg}");
    assert_eq!(msg.lines().count(), 1, "{case}: one line: {msg}");
}

/// Steps a world built from an accepted scene and checks every body stays finite and no body
/// had to be frozen.
fn assert_runs_finite(scene: &Scene, steps: usize, case: &str) {
    let mut world: World = scene.build().unwrap_or_else(|e| panic!("{case}: a validated scene must build: {e}"));
    for _ in 0..steps {
        world.step();
        assert!(world.faults().is_empty(), "{case}: {}", world.faults()[0]);
    }
    for (i, b) in world.bodies().iter().enumerate() {
        let finite = b.pose.translation.is_finite() && b.pose.rotation.is_finite() && b.linvel.is_finite();
        assert!(finite, "{case}: body {i} is not finite: {:?}", b.pose);
    }
}

/// Parses `text` as `file`; an accepted scene small enough is stepped a few times.
fn check_text(text: &str, file: &str, case: &str) {
    match Scene::parse(text, file) {
        Ok(scene) => {
            if scene.expanded_bodies().len() <= 1500 {
                assert_runs_finite(&scene, 3, case);
            }
        }
        Err(e) => assert_places(&e, file, case),
    }
}

#[test]
fn truncated_and_mutated_shipped_scenes_fail_cleanly_or_run_finite() {
    let mut rng = SplitMix64::new(16);
    for (name, text) in shipped_scenes() {
        let bytes = text.as_bytes();
        for k in 1..=12 {
            let cut = bytes.len() * k / 13;
            let t = String::from_utf8_lossy(&bytes[..cut]);
            check_text(&t, &name, &format!("{name} cut at byte {cut}"));
        }
        for m in 0..24 {
            let mut b = bytes.to_vec();
            let at = (rng.next_u64() % b.len() as u64) as usize;
            let choices = b"0123456789-.eE(),:[]\"xyz_ \n";
            b[at] = choices[(rng.next_u64() % choices.len() as u64) as usize];
            let t = String::from_utf8_lossy(&b);
            check_text(&t, &name, &format!("{name} mutation {m}: byte {at} -> {:?}", b[at] as char));
        }
    }
}

/// A scene with one body of each shape and each generator; each `@NAME@` is a numeric place
/// that takes the value under test or its ordinary value from [`PLACES`].
const TEMPLATE: &str = r#"(
    settings: (gravity: (0, @G@, 0), dt: @DT@, slop: @SLOP@, sleep_time: @SLEEPT@, sleep_speed: @SLEEPV@),
    bodies: [
        (kind: Static, shape: Cuboid(half_extents: (10, 0.5, 10)), position: (0, -0.5, 0)),
        (shape: Sphere(radius: @R@), position: (0, @PY@, 0), linear_velocity: (@VX@, 0, 0), material: (density: @RHO@, friction: @MU@)),
        (shape: Cuboid(half_extents: (@HX@, 0.2, 0.3)), position: (1, 1, 0), rotation: Quat(@QX@, 0, 0, 1)),
        (shape: Capsule(half_height: @HH@, radius: 0.2), position: (-1, 1, 0), angular_velocity: (0, @W@, 0)),
        (shape: ConvexHull(points: [(0, 0, 0), (@PX@, 0, 0), (0, 0.5, 0), (0, 0, 0.5)]), position: (2, 1, 0)),
    ],
    generators: [
        Grid(counts: (2, 2, 1), shape: Sphere(radius: 0.2), origin: (0, 3, 0), spacing: (@SX@, 0.5, 0)),
        Rain(count: 3, seed: 1, min: (-1, 4, -1), max: (1, @RMAX@, 1), shapes: [Sphere(radius: 0.1)]),
        Pyramid(base: 2, half_extent: 0.2, origin: (3, 0, 0), gap: @GAP@),
    ],
)"#;

/// Each placeholder with its ordinary value.
const PLACES: &[(&str, &str)] = &[
    ("G", "-9.81"),
    ("DT", "0.016666668"),
    ("SLOP", "0.001"),
    ("SLEEPT", "0.5"),
    ("SLEEPV", "0.05"),
    ("RHO", "1000"),
    ("MU", "0.5"),
    ("R", "0.3"),
    ("PY", "2"),
    ("VX", "1"),
    ("HX", "0.25"),
    ("QX", "0"),
    ("HH", "0.3"),
    ("W", "0"),
    ("PX", "0.5"),
    ("SX", "0.5"),
    ("RMAX", "6"),
    ("GAP", "0"),
];

fn template_with(place: &str, value: &str) -> String {
    let mut t = TEMPLATE.to_string();
    for (p, ordinary) in PLACES {
        t = t.replace(&format!("@{p}@"), if *p == place { value } else { ordinary });
    }
    assert!(!t.contains('@'), "a placeholder is left: {t}");
    t
}

#[test]
fn extreme_values_in_every_numeric_field_fail_cleanly_or_run_finite() {
    assert_runs_finite(&Scene::parse(&template_with("", ""), "t.ron").unwrap(), 30, "the template");
    let extremes =
        ["1e38", "-1e38", "3e38", "-3e38", "1e19", "1e-45", "-1e-45", "0", "-0", "-1", "1e6", "1e-6", "NaN", "inf"];
    for (place, _) in PLACES {
        for v in extremes {
            let case = format!("{place} = {v}");
            match Scene::parse(&template_with(place, v), "t.ron") {
                Ok(scene) => assert_runs_finite(&scene, 30, &case),
                Err(e) => assert_places(&e, "t.ron", &case),
            }
        }
    }
}

#[test]
fn the_issue_cases_get_one_clear_message() {
    let err = |text: &str| Scene::parse(text, "s.ron").unwrap_err().to_string();
    // Counts whose product wraps a u64 are counted exactly.
    let wrap =
        "(generators: [Grid(counts: (2147483648, 2147483648, 4), shape: Sphere(radius: 0.1), spacing: (1, 1, 1))])";
    let e = err(wrap);
    assert!(e.contains("18446744073709551616 bodies") && e.contains("limit"), "{e}");
    let huge = "(generators: [Grid(counts: (4294967295, 4294967295, 4294967295), shape: Sphere(radius: 0.1), spacing: (0, 0, 0))])";
    assert!(err(huge).contains("79228162458924105385300197375 bodies"), "{}", err(huge));
    // Sizes, speeds, rotations and densities out of range name their line.
    for (body, what) in [
        ("(shape: Sphere(radius: 1e38))", "out of range"),
        ("(shape: Cuboid(half_extents: (1e-45, 1, 1)))", "out of range"),
        ("(shape: Sphere(radius: 1), linear_velocity: (3e38, 0, 0))", "speed"),
        ("(shape: Sphere(radius: 1), rotation: Quat(1e38, 0, 0, 1))", "quaternion"),
        ("(shape: Sphere(radius: 1), material: (density: 1e38))", "out of range"),
        ("(shape: Sphere(radius: 1), material: (density: 1e-45))", "out of range"),
    ] {
        let e = err(&format!("(bodies: [\n{body}])"));
        assert!(e.starts_with("s.ron:2:") && e.contains(what), "{body}: {e}");
    }
    assert!(err("(settings: (gravity: (0, -3e38, 0)))").contains("gravity"));
    // Hulls: a size out of range, and clouds too thin for a solid, say so.
    let hull = |s: f32| format!("(bodies: [(shape: ConvexHull(points: [(0,0,0), ({s},0,0), (0,{s},0), (0,0,{s})]))])");
    for s in [1e-20, 5e4] {
        let e = err(&hull(s));
        assert!(e.contains("bodies[0].shape") && e.contains("points span"), "{s}: {e}");
    }
    assert!(err(&hull(1e19)).contains("points[1]: (10000000000000000000, 0, 0): a coordinate beyond"));
    // Bodies piled at one point need more pairs than a step takes: refused when built.
    let pile = Scene::parse(
        "(generators: [Grid(counts: (5000, 1, 1), shape: Sphere(radius: 0.1), spacing: (0, 0, 0))])",
        "s.ron",
    )
    .unwrap();
    let e = pile.build().err().expect("refused").to_string();
    assert!(e.contains("piled together"), "{e}");
    for t in [1.01e-5, 2e-5, 3e-5] {
        let e = err(&format!("(bodies: [(shape: ConvexHull(points: [(0,0,0), (1,0,0), (0,1,0), (1,1,{t})]))])"));
        assert!(e.contains("thick"), "thickness {t}: {e}");
    }
}

#[test]
fn hulls_at_the_thinnest_accepted_build_at_any_orientation() {
    let mut rng = SplitMix64::new(3);
    for case in 0..400 {
        let size = 10f32.powf(rng.range(-3.0, 3.0));
        let thickness = collidoscope::geometry::ConvexHull::MIN_THICKNESS * rng.range(1.05, 3.0) * size;
        let q = rng.rotation();
        let n = 4 + (rng.next_u64() % 12) as usize;
        let mut pts: Vec<collidoscope::math::Vec3> =
            (0..n).map(|_| collidoscope::math::Vec3::new(rng.range(0.0, size), rng.range(0.0, size), 0.0)).collect();
        pts.push(collidoscope::math::Vec3::new(size * 0.5, size * 0.5, thickness));
        pts.push(collidoscope::math::Vec3::new(0.0, size, 0.0));
        pts.push(collidoscope::math::Vec3::new(size, 0.0, 0.0));
        let pts: Vec<_> = pts.into_iter().map(|p| q * p).collect();
        if let Err(e) = collidoscope::geometry::ConvexHull::new(&pts) {
            // The cloud's own plane may be measured a little thicker or thinner than built.
            assert!(matches!(e, collidoscope::geometry::HullError::TooFlat { .. }), "case {case}: {e}: {pts:?}");
        }
    }
}

#[test]
fn a_zero_sleep_time_does_not_freeze_a_thrown_ball() {
    for t in ["0", "-0"] {
        let text = format!(
            "(settings: (sleep_time: {t}), bodies: [(shape: Sphere(radius: 0.1), linear_velocity: (3, 5, 0))])"
        );
        let mut world = Scene::parse(&text, "s.ron").unwrap().build().unwrap();
        for _ in 0..10 {
            world.step();
        }
        let b = &world.bodies()[0];
        assert!(!b.is_asleep() && b.pose.translation.x > 0.4, "sleep_time {t}: {:?}", b.pose.translation);
    }
}

#[test]
fn text_encodings_byte_order_marks_and_bad_bytes() {
    let dir = std::env::temp_dir().join(format!("collidoscope-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bom = dir.join("bom.ron");
    std::fs::write(&bom, b"\xEF\xBB\xBF(name: \"with a BOM\")").unwrap();
    assert_eq!(Scene::load(&bom).unwrap().name, "with a BOM");
    let latin1 = dir.join("latin1.ron");
    std::fs::write(&latin1, b"(\n  name: \"caf\xE9\",\n)").unwrap();
    let e = Scene::load(&latin1).unwrap_err();
    assert_eq!(e.line(), Some(2), "{e}");
    assert!(e.to_string().contains(":2:13: byte 0xe9 is not UTF-8"), "{e}");
    // A binary recording or a zip (a case bundle) where a scene was wanted is named as such,
    // and an empty file as empty, not as a bad byte or a missing `(`.
    let rec = dir.join("run.cdrec");
    recorded(3, 10).save(&rec).unwrap();
    let zip = dir.join("case.zip");
    std::fs::write(&zip, b"PK\x03\x04\x14\x00\x00\x00\xca\xfe").unwrap();
    let empty = dir.join("empty.ron");
    std::fs::write(&empty, b" \n").unwrap();
    for (file, says) in
        [(&rec, "it is a binary recording (.cdrec)"), (&zip, "it is a zip archive"), (&empty, "the file is empty")]
    {
        let e = Scene::load(file).unwrap_err().to_string();
        assert!(e.contains(says) && e.contains(":1:1:"), "{e}");
    }
    let e = Recording::load(&empty).unwrap_err().to_string();
    assert!(e.contains("the file is empty"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

fn recorded(steps: u64, every: u32) -> Recording {
    let scene = Scene::load(scenes_dir().join("box_stack.ron")).unwrap();
    let mut world = scene.build().unwrap();
    let mut rec = Recorder::new(&scene, &world, every);
    for _ in 0..steps {
        rec.step(&mut world);
    }
    rec.finish()
}

#[test]
fn replay_checks_the_last_keyframe_and_refuses_duplicates() {
    let rec = recorded(20, 10);
    assert_eq!(rec.keyframes.last().unwrap().step, 20);
    assert_eq!(rec.verify(), Ok(20));
    // A moved body in the final keyframe fails at step 20, naming the body.
    let mut moved = rec.clone();
    moved.keyframes.last_mut().unwrap().bodies[1].translation.x += 0.001;
    let e = moved.verify().unwrap_err().to_string();
    assert!(e.starts_with("keyframe at step 20: body 1") && e.contains("position"), "{e}");
    // A duplicated keyframe cannot hide the later ones.
    let mut dup = rec.clone();
    let k = dup.keyframes[1].clone();
    dup.keyframes.insert(1, k);
    assert!(dup.verify().unwrap_err().to_string().contains("second keyframe for step 10"));
    // Through the file loader too.
    let text = ron::to_string(&moved).unwrap();
    assert!(Recording::parse(&text, "r.ron").unwrap().verify().is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, rng_seed: proptest::test_runner::RngSeed::Fixed(0x4057), failure_persistence: None, ..ProptestConfig::default() })]

    /// Random scenes over the schema, in and out of range: loading never panics, and an
    /// accepted scene runs finite.
    #[test]
    fn random_scenes_fail_cleanly_or_run_finite(
        shapes in prop::collection::vec((0u8..4, -6.0f32..6.0, -6.0f32..6.0), 1..5),
        exps in prop::collection::vec(-50.0f32..40.0, 6),
        signs in prop::collection::vec(any::<bool>(), 6),
    ) {
        let v = |k: usize| { let x = 10f32.powf(exps[k]); if signs[k] { -x } else { x } };
        let mut bodies = String::new();
        for (i, (kind, a, b)) in shapes.iter().enumerate() {
            let (sa, sb) = (10f32.powf(*a), 10f32.powf(*b));
            let shape = match kind {
                0 => format!("Sphere(radius: {sa:e})"),
                1 => format!("Cuboid(half_extents: ({sa:e}, {sb:e}, {sa:e}))"),
                2 => format!("Capsule(half_height: {sa:e}, radius: {sb:e})"),
                _ => format!("ConvexHull(points: [(0,0,0), ({sa:e},0,0), (0,{sb:e},0), (0,0,{sa:e})])"),
            };
            bodies.push_str(&format!(
                "(shape: {shape}, position: ({}, {:e}, 0), linear_velocity: ({:e}, 0, 0), angular_velocity: (0, {:e}, 0), material: (density: {:e})),\n",
                i as f32 * 3.0, v(0), v(1), v(2), v(3).abs()
            ));
        }
        let text = format!(
            "(settings: (gravity: (0, {:e}, 0), sleep_time: {:e}),\n bodies: [\n(kind: Static, shape: Cuboid(half_extents: (50, 1, 50)), position: (0, -1, 0)),\n{bodies}])",
            v(4), v(5).abs()
        );
        match Scene::parse(&text, "p.ron") {
            Ok(scene) => assert_runs_finite(&scene, 10, &text),
            Err(e) => assert_places(&e, "p.ron", &text),
        }
    }

    /// Byte damage to a recording: loading and verifying never panic.
    #[test]
    fn damaged_recordings_fail_cleanly(at in 0.0f64..1.0, byte in any::<u8>(), cut in any::<bool>()) {
        let text = ron::to_string(&recorded(3, 2)).unwrap();
        let mut b = text.into_bytes();
        let i = ((b.len() - 1) as f64 * at) as usize;
        if cut { b.truncate(i) } else { b[i] = byte }
        let text = String::from_utf8_lossy(&b);
        match Recording::parse(&text, "r.ron") {
            Ok(rec) => { let _ = rec.verify(); }
            Err(e) => assert_places(&e, "r.ron", &text),
        }
    }
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn one_error_line(args: &[&str]) -> String {
    let out = bin().args(args).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&out.stdout));
    let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    err
}

#[test]
fn step_counts_out_of_range_are_refused_before_any_work() {
    for steps in ["18446744073709551615", "100000000", "-1", "many"] {
        let err = one_error_line(&["run", "scenes/box_stack.ron", "--steps", steps]);
        assert!(err.contains("--steps") && !err.contains("tip:"), "{steps}: {err}");
    }
    let never = std::env::temp_dir().join(format!("collidoscope-never-{}.ron", std::process::id()));
    let err =
        one_error_line(&["record", "scenes/large_pyramid.ron", "--steps", "1000000", "-o", never.to_str().unwrap()]);
    assert!(err.contains("--keyframe-every"), "{err}");
    assert!(!never.exists());
}

#[test]
fn outputs_never_replace_a_read_only_file() {
    let dir = std::env::temp_dir().join(format!("collidoscope-ro-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let target = dir.join("keep.csv");
    std::fs::write(&target, "precious").unwrap();
    let mut perm = std::fs::metadata(&target).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&target, perm).unwrap();
    let t = target.to_str().unwrap();
    for args in [
        vec!["run", "scenes/box_stack.ron", "--steps", "2", "--csv", t],
        vec!["run", "scenes/box_stack.ron", "--steps", "2", "--final-state", t],
        vec!["record", "scenes/box_stack.ron", "--steps", "2", "-o", t],
    ] {
        let err = one_error_line(&args);
        assert!(err.contains("read-only") && err.contains("keep.csv"), "{err}");
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
    }
    let mut perm = std::fs::metadata(&target).unwrap().permissions();
    #[allow(clippy::permissions_set_readonly_false)]
    perm.set_readonly(false);
    std::fs::set_permissions(&target, perm).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
