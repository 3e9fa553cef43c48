//! The shipped lessons played headless: every step entered in order with its settings in
//! force, each run to its stop (which must come), Back and Restart exact to the bit; and the
//! format's checks, each failing with the file and field named.

use collidoscope::lesson::{Lesson, LessonError, Phase, Player, Run, Start, apply_settings};
use std::path::{Path, PathBuf};

fn shipped() -> Vec<PathBuf> {
    Lesson::files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons")).unwrap()
}

#[test]
fn the_lessons_cover_the_topics_and_load() {
    let names: Vec<String> = shipped().iter().map(|p| p.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    for topic in [
        "sphere_box",
        "broad_phase",
        "sat_boxes",
        "gjk_epa",
        "manifolds",
        "ray_slab",
        "geometric_tests",
        "tunneling",
        "jitter",
        "stacking",
        "ghost_collisions",
    ] {
        assert!(names.iter().any(|n| n == topic), "lessons/{topic}.ron is shipped: {names:?}");
    }
    for f in shipped() {
        let text = std::fs::read_to_string(&f).unwrap();
        assert!(Lesson::is_lesson_text(&text), "{} reads as a lesson", f.display());
        Lesson::load(&f).unwrap_or_else(|e| panic!("{e}"));
    }
    let scene = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron")).unwrap();
    assert!(!Lesson::is_lesson_text(&scene), "a scene is not a lesson");
}

#[test]
fn every_step_of_every_lesson_runs_to_its_stop_with_its_settings_in_force() {
    for f in shipped() {
        let (lesson, scene) = Lesson::load(&f).unwrap();
        let mut player = Player::new(lesson.clone(), scene.clone());
        let (mut sim, _) = player.start(0).unwrap();
        let mut expected = scene.settings.clone();
        for (k, step) in lesson.steps.iter().enumerate() {
            let at = format!("{} step {}", f.display(), k + 1);
            assert_eq!(player.step(), k, "{at}");
            if let Start::SceneStart = step.start {
                expected = scene.settings.clone();
            }
            if let Start::Snapshot(s) = &step.start {
                expected = s.settings.clone();
            }
            expected = apply_settings(&expected, &step.settings).unwrap();
            assert_eq!(sim.world.settings, expected, "{at}: the step's settings are in force");
            let entered = sim.world.hash();
            // The Pair panel's iteration the step names is in the pair's trace at its start.
            player.check_pair_iteration(&sim).unwrap_or_else(|e| panic!("{at}: {e}"));
            if let Some(p) = &step.prediction {
                assert!(player.start_run(&mut sim).is_err(), "{at}: no run before an answer");
                player.set_answer((p.answer + 1) % p.choices.len());
                assert_eq!(player.answer(), Some((p.answer + 1) % p.choices.len()));
            }
            player.finish(&mut sim).unwrap_or_else(|e| panic!("{at}: {e}"));
            if step.run.stops() {
                assert_eq!(player.phase(), Phase::Done, "{at}");
                assert!(!sim.playing && sim.until.is_none(), "{at}: the clock stopped at the stop");
                let ran = sim.world.step_count() - player.start_of(k).unwrap().step;
                assert!(ran > 0 || step.run == Run::AllAsleep, "{at}: the run took steps");
            }
            // Restart: the step's own start, bit for bit.
            player.restart(&mut sim).unwrap();
            assert_eq!(sim.world.hash(), entered, "{at}: Restart step is exact");
            assert_eq!(sim.world.settings, expected, "{at}");
            if k + 1 < lesson.steps.len() {
                player.finish(&mut sim).unwrap();
                player.next(&mut sim).unwrap().unwrap();
                let next = sim.world.hash();
                // Back and forth: Back gives this step's start again.
                player.back(&mut sim).unwrap().unwrap();
                assert_eq!((player.step(), sim.world.hash()), (k, entered), "{at}: Back is exact");
                player.go_to(&mut sim, k + 1).unwrap();
                assert_eq!(sim.world.hash(), next, "{at}: Next again runs to the same start");
            }
        }
    }
}

#[test]
fn a_step_given_on_the_command_line_starts_where_the_lesson_brings_it() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/tunneling.ron");
    let (lesson, scene) = Lesson::load(&f).unwrap();
    let mut walk = Player::new(lesson.clone(), scene.clone());
    let (mut a, _) = walk.start(0).unwrap();
    for _ in 0..3 {
        walk.next(&mut a).unwrap();
    }
    let mut jump = Player::new(lesson, scene);
    let (b, _) = jump.start(3).unwrap();
    assert_eq!((jump.step(), b.world.hash()), (3, a.world.hash()));
    let e = jump.start(99).err().unwrap().to_string();
    assert!(e.contains("there is no step 100 (the lesson has 6 steps"), "{e}");
}

fn parse_err(text: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/bad.ron");
    match Lesson::parse(text, &path) {
        Err(e @ (LessonError::File(_) | LessonError::Invalid { .. } | LessonError::Scene { .. })) => {
            let s = e.to_string();
            assert!(s.starts_with(&path.display().to_string()), "{s}");
            s
        }
        other => panic!("expected an error, got {:?}", other.map(|_| ())),
    }
}

#[test]
fn broken_lessons_name_the_file_and_the_field() {
    let ok_step = r#"(text: "Look.")"#;
    let lesson = |steps: &str| format!(r#"(title: "T", scene: File("../scenes/jitter.ron"), steps: [{steps}])"#);
    assert!(
        parse_err("(title: \"T\", scene: File(\"x\"),\n steps: [(text: 5)])").contains(":2:"),
        "line of the parser"
    );
    assert!(parse_err(&lesson("")).contains("steps: a lesson has 1 to"));
    let e = parse_err(&lesson(r#"(text: "a", settings: {"slop": "-1"})"#));
    assert!(e.contains("steps[0].settings.slop:"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", settings: {"slopp": "1"})"#));
    assert!(e.contains("steps[0].settings.slopp: unknown setting \"slopp\""), "{e}");
    let e = parse_err(&lesson(&format!(r#"{ok_step}, (text: "a **b")"#)));
    assert!(e.contains("steps[1].text: `**` (strong) opened at character 2 is never closed"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", highlight: "nobody")"#));
    assert!(e.contains("steps[0].highlight: no body is named \"nobody\"") && e.contains("top box"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", highlight: "top box", plot: "colour")"#));
    assert!(e.contains("steps[0].plot: unknown plot \"colour\"; the plots are height, speed"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", run: Steps(0))"#));
    assert!(e.contains("steps[0].run: Steps(0)"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", run: Seconds(-1))"#));
    assert!(e.contains("steps[0].run: Seconds(-1)"), "{e}");
    let e = parse_err(&lesson(
        r#"(text: "a", run: Steps(5), prediction: (question: "q", choices: ["x", "y"], answer: 2))"#,
    ));
    assert!(e.contains("steps[0].prediction.answer: choice 2 does not exist"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", prediction: (question: "q", choices: ["x", "y"], answer: 0))"#));
    assert!(e.contains("steps[0].prediction: a prediction is answered before a run"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", run: Steps(5), prediction: (question: "q", choices: ["x"]))"#));
    assert!(e.contains("steps[0].prediction.choices: give 2 to 6 choices, not 1"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", camera: (eye: (1, 1, 1), target: (1, 1, 1)))"#));
    assert!(e.contains("steps[0].camera: the eye"), "{e}");
    let e = parse_err(&lesson(&format!("{ok_step}, (text: \"{}\")", "x".repeat(800))));
    assert!(e.contains("steps[1].text: 800 characters, more than 700"), "{e}");
    let e = parse_err(r#"(title: "T", scene: File("../scenes/nope.ron"), steps: [(text: "a")])"#);
    assert!(e.contains(": scene: ") && e.contains("nope.ron"), "{e}");
    let e = parse_err(r#"(title: "", scene: File("../scenes/jitter.ron"), steps: [(text: "a")])"#);
    assert!(e.contains("title: is empty"), "{e}");
    let e = parse_err(&lesson(r#"(text: "a", nonsense: 1)"#));
    assert!(e.contains("nonsense"), "{e}");
}

/// A step's Pair panel iteration needs a named pair shown in the Pair panel (checked on
/// load), and one the pair's trace has where the step starts (checked on entering it).
#[test]
fn a_pair_iteration_names_a_shown_pair_and_an_iteration_its_trace_has() {
    let lesson = |step: &str| {
        format!(r#"(title: "T", scene: File("../scenes/narrowphase_hulls_gjk.ron"), steps: [(text: "a", {step})])"#)
    };
    let pair = r#"highlight: "wedge (drag me)", partner: "gem""#;
    let e = parse_err(&lesson(r#"panels: ["pair"], highlight: "gem", pair_iteration: Gjk(1)"#));
    assert!(
        e.contains("steps[0].pair_iteration: the Pair panel traces a named pair: give `highlight` and `partner`"),
        "{e}"
    );
    let e = parse_err(&lesson(&format!("{pair}, pair_iteration: Epa(0)")));
    assert!(e.contains("steps[0].pair_iteration: the Pair panel shows it: add \"pair\" to `panels`"), "{e}");
    let e = parse_err(&lesson(&format!(r#"panels: ["pair"], {pair}, pair_iteration: Simplex(1)"#)));
    assert!(e.contains("bad.ron:1:") && e.contains("Simplex"), "{e}");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/bad.ron");
    let check = |it: &str| {
        let (lesson, scene) =
            Lesson::parse(&lesson(&format!(r#"panels: ["pair"], {pair}, pair_iteration: {it}"#)), &path)
                .unwrap_or_else(|e| panic!("{it}: {e}"));
        let named = lesson.steps[0].pair_iteration;
        assert!(named.is_some(), "{it}");
        let mut player = Player::new(lesson, scene);
        let (sim, view) = player.start(0).unwrap();
        assert_eq!(view.pair_iteration, named, "the view change carries it to the panel");
        player.check_pair_iteration(&sim).map_err(|e| e.to_string())
    };
    // The two hulls' trace: GJK iterations 0 to 4, EPA 0 to 2.
    assert_eq!(check("Gjk(4)"), Ok(()));
    assert_eq!(check("Epa(2)"), Ok(()));
    let e = check("Gjk(5)").unwrap_err();
    assert!(e.starts_with(&path.display().to_string()), "{e}");
    assert!(
        e.contains("steps[0].pair_iteration: GJK iteration 5 does not exist: the trace of wedge (drag me) and gem at this step's start has GJK iterations 0 to 4"),
        "{e}"
    );
    let e = check("Epa(3)").unwrap_err();
    assert!(e.contains("EPA iteration 3 does not exist") && e.contains("has EPA iterations 0 to 2"), "{e}");
}

#[test]
fn view_names_are_checked_against_the_names_given() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/bad.ron");
    let text = r#"(title: "T", scene: File("../scenes/jitter.ron"), steps: [(text: "a", layers: ["aabbs"], panels: ["Pair"]), (text: "b", layers: ["aabs"])])"#;
    let (lesson, _) = Lesson::parse(text, &path).unwrap();
    let names = collidoscope::lesson::ViewNames { layers: &["aabbs", "grid"], panels: &["pair", "scenes"] };
    let e = lesson.check_view(&names).unwrap_err().to_string();
    assert!(e.contains("steps[1].layers[0]: unknown layer \"aabs\"; the layers are aabbs, grid"), "{e}");
}

#[test]
fn an_inline_scene_and_a_saved_lesson_load_back_the_same() {
    let dir = std::env::temp_dir().join(format!("collidoscope_lesson_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("inline.ron");
    let text = r#"(title: "Inline", scene: Inline((name: "ball", bodies: [(name: "ball", shape: Sphere(radius: 0.5), position: (0, 2, 0))])), steps: [(text: "Drop it.", run: Steps(10), highlight: "ball", plot: "height")])"#;
    let (lesson, scene) = Lesson::parse(text, &path).unwrap();
    assert_eq!(scene.bodies.len(), 1);
    lesson.save(&path).unwrap();
    let (again, _) = Lesson::load(&path).unwrap();
    assert_eq!(again.steps, lesson.steps);
    let mut player = Player::new(again, scene);
    let (mut sim, view) = player.start(0).unwrap();
    assert_eq!((view.highlight, view.plot), (Some(0), Some(0)));
    player.start_run(&mut sim).unwrap();
    while sim.playing {
        sim.advance(1.0 / 60.0);
        player.frame(&mut sim);
    }
    assert_eq!(sim.world.step_count(), 10, "the clock stops on the step the run ends");
    player.frame(&mut sim);
    assert_eq!(player.phase(), Phase::Done);
    assert!(player.stopped_by.as_deref().unwrap().contains("reached step 10"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The state at the end of each step's run, for the claims below.
fn ends(name: &str) -> Vec<collidoscope::session::Simulation> {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons").join(name);
    let (lesson, scene) = Lesson::load(&f).unwrap();
    let mut player = Player::new(lesson.clone(), scene.clone());
    let (mut sim, _) = player.start(0).unwrap();
    let mut out = Vec::new();
    for k in 0..lesson.steps.len() {
        player.finish(&mut sim).unwrap();
        // A copy of the end state: the scene rebuilt and the snapshot restored.
        let mut copy = collidoscope::session::Simulation::new(scene.clone(), None).unwrap();
        copy.world.restore(&sim.world.snapshot()).unwrap();
        out.push(copy);
        if k + 1 < lesson.steps.len() {
            player.next(&mut sim).unwrap();
        }
    }
    out
}

fn at<'a>(sim: &'a collidoscope::session::Simulation, name: &str) -> &'a collidoscope::Body {
    sim.world.bodies().iter().find(|b| b.name.as_deref() == Some(name)).unwrap()
}

/// What the predictions' answers and explanations say happens, checked on the engine: a
/// failure means a lesson no longer tells the truth.
#[test]
fn the_predictions_answers_are_what_the_engine_does() {
    let j = ends("jitter.ron");
    assert!(j[0].world.step_count() <= 60, "the stack sleeps within a second: {}", j[0].world.step_count());
    let off = at(&j[1], "top box").linvel.length();
    assert!(off > 0.005 && !j[1].world.bodies().iter().all(|b| b.is_asleep()), "warm starting off jitters: {off}");
    let s = ends("stacking.ron");
    assert!(s[1].world.step_count() <= 120, "asleep within two seconds: {}", s[1].world.step_count());
    let sag = at(&s[1], "slab").pose.translation.y - at(&s[2], "slab").pose.translation.y;
    assert!((0.04..0.1).contains(&sag), "one substep sags a few centimetres: {sag}");
    assert!(at(&s[3], "slab").pose.translation.distance(at(&s[1], "slab").pose.translation) > 1.0, "it falls");
    let t = ends("tunneling.ron");
    assert!(at(&t[1], "bullet").pose.translation.x > 0.0, "Off: beyond the wall");
    assert!(at(&t[2], "bullet").pose.translation.x < 0.0, "Speculative: stopped at the near face");
    assert!(t[4].world.step_count() <= 3, "the TOI event at the wall: step {}", t[4].world.step_count());
    let g = ends("ghost_collisions.ron");
    let (raw, fixed) = (at(&g[1], "flat box"), at(&g[2], "flat box"));
    assert!(raw.linvel.length() < 0.5 && (raw.pose.translation.z + 6.2).abs() > 0.3, "raw: slowed and veered");
    assert!(fixed.linvel.length() > 0.8 && (fixed.pose.translation.z + 6.2).abs() < 0.05, "corrected: straight on");
}

#[test]
fn the_broad_phase_lesson_counts_what_it_says() {
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("lessons/broad_phase.ron");
    let (lesson, scene) = Lesson::load(&f).unwrap();
    let mut player = Player::new(lesson, scene);
    let (mut sim, _) = player.start(1).unwrap();
    player.finish(&mut sim).unwrap();
    assert_eq!(sim.world.profile().broad.aabb_tests, 601 * 600 / 2, "brute force: every pair");
    let overlaps = sim.world.profile().broad.true_overlaps;
    player.next(&mut sim).unwrap();
    player.next(&mut sim).unwrap();
    player.finish(&mut sim).unwrap();
    let grid = sim.world.profile().broad;
    assert!(grid.aabb_tests * 20 < 601 * 600 / 2, "the grid: a few percent: {}", grid.aabb_tests);
    assert_eq!(grid.true_overlaps, overlaps, "the same overlaps");
}
