//! `diagnose` on the seeded bug scenes in scenes/bugs/: each names the right cause, and a fix it
//! suggests, re-run from a snapshot before the event (from the start for the solver's causes),
//! removes the event.

use collidoscope::Scene;
use collidoscope::diagnose::{CauseKind, Change, Diagnosis, Symptom, diagnose};
use rayon::prelude::*;
use std::path::Path;
use std::process::Command;

fn bug(name: &str) -> Scene {
    Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bugs").join(name)).unwrap()
}

/// The diagnosis of the first event with `symptom`, checked to have `cause`, to have been
/// reproduced from its snapshot, and to list a working fix first.
fn diagnosed(scene: &str, steps: u64, symptom: Symptom, cause: CauseKind) -> Diagnosis {
    diagnosed_scene(&bug(scene), scene, steps, symptom, cause)
}

/// [`diagnosed`] for a scene already loaded (`scene` names it in messages).
fn diagnosed_scene(loaded: &Scene, scene: &str, steps: u64, symptom: Symptom, cause: CauseKind) -> Diagnosis {
    let report = diagnose(loaded, steps).unwrap();
    let d = report
        .diagnoses
        .iter()
        .find(|d| d.event.symptom == symptom)
        .unwrap_or_else(|| panic!("{scene}: no {symptom:?} event\n{}", report.to_text()))
        .clone();
    assert_eq!(d.cause, cause, "{scene}\n{}", report.to_text());
    assert!(d.reproduced, "{scene}: the event does not recur from its snapshot\n{}", report.to_text());
    assert!(d.best_fix().is_some(), "{scene}: no fix removed the event\n{}", report.to_text());
    // Working fixes come first.
    assert!(d.fixes.windows(2).all(|w| w[0].removed >= w[1].removed), "{}", report.to_text());
    d
}

fn set(field: &str, value: &str) -> Change {
    Change::Set { field: field.into(), value: value.into() }
}

fn removes(d: &Diagnosis, change: &Change) -> bool {
    d.fixes.iter().any(|t| t.removed && &t.change == change)
}

#[test]
fn a_thin_plate_through_a_wall_is_speed_against_thickness_with_ccd_off() {
    let d = diagnosed("thin_plate_ccd_off.ron", 60, Symptom::Tunneling, CauseKind::FastAndThinWithoutCcd);
    assert_eq!(d.event.bodies, vec![2, 1], "the plate through the wall");
    assert!(d.explanation.contains("1.000 m per step") && d.explanation.contains("0.020 m"), "{}", d.explanation);
    assert!(removes(&d, &set("ccd", "Speculative")) && removes(&d, &set("ccd", "Toi")), "{d:?}");
}

#[test]
fn a_stack_without_warm_starting_is_told_to_warm_start() {
    let d = diagnosed("stack_no_warm_start.ron", 600, Symptom::Jitter, CauseKind::WarmStartingOff);
    assert!(removes(&d, &set("warm_starting", "true")), "{d:?}");
    // The stack sags from the first step: by the event it is coming apart, so the fixes are
    // tried from the start, as the setting would have been.
    assert!(d.event.step >= 70 && d.rerun_from == 0, "{d:?}");
}

/// The jitter lesson's stack with warm starting off switches no contact off: it stays in
/// place and never comes to rest, which is jitter too (it was "no symptoms found").
#[test]
fn the_jitter_lesson_without_warm_starting_is_told_to_warm_start() {
    let mut scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron")).unwrap();
    for sleeping in [true, false] {
        scene.settings.set_field("warm_starting", "false").unwrap();
        scene.settings.set_field("sleeping", &sleeping.to_string()).unwrap();
        let d =
            diagnosed_scene(&scene, "jitter.ron, warm starting off", 600, Symptom::Jitter, CauseKind::WarmStartingOff);
        assert!(d.event.detail.contains("without coming to rest"), "{d:?}");
        assert!(removes(&d, &set("warm_starting", "true")), "{d:?}");
        // Two seconds of it: the stack is judged after a whole second settling, then one more.
        assert_eq!(d.event.step, 120, "{d:?}");
    }
    // At the defaults the stack rests: nothing to report.
    scene.settings.set_field("warm_starting", "true").unwrap();
    let report = diagnose(&scene, 600).unwrap();
    assert!(report.diagnoses.is_empty(), "{}", report.to_text());
}

#[test]
fn a_tall_stack_on_one_pass_is_told_to_take_more() {
    // One pass a step carries the weight a few boxes down: the stack sinks into itself (its
    // third box 19 cm into the second, short of the deep-penetration bar), and its bottom box,
    // held on the floor, never comes to rest before the stack leans over. The bottom box's
    // jitter is the event diagnosed.
    let d = diagnosed("tall_stack_one_pass.ron", 600, Symptom::Jitter, CauseKind::TooFewIterations);
    assert!(d.explanation.contains("1 iteration(s) × 1 substeps"), "{}", d.explanation);
    assert!(removes(&d, &set("iterations", "4")) && removes(&d, &set("substeps", "4")), "{d:?}");
    assert!(d.event.bodies == [1] && d.rerun_from == 0, "{d:?}");
}

#[test]
fn a_heavy_box_on_light_boxes_is_its_mass_ratio() {
    let d = diagnosed("heavy_on_light.ron", 120, Symptom::DeepPenetration, CauseKind::MassRatio);
    assert!(d.explanation.contains("390×"), "{}", d.explanation);
    assert!(matches!(d.best_fix().unwrap().change, Change::Density { body: 4, .. }), "{d:?}");
    // Dropped from 7 m higher, it lands after a second: the fixes are still tried from the
    // start, not from a second before the event.
    let mut dropped = bug("heavy_on_light.ron");
    dropped.bodies[4].position.y += 7.0;
    let d =
        diagnosed_scene(&dropped, "heavy_on_light.ron, dropped", 240, Symptom::DeepPenetration, CauseKind::MassRatio);
    assert!(d.event.step >= 70 && d.rerun_from == 0, "{d:?}");
    assert!(matches!(d.best_fix().unwrap().change, Change::Density { body: 4, .. }), "{d:?}");
}

#[test]
fn a_sphere_bumping_on_a_mesh_is_its_internal_edges() {
    let d = diagnosed("sphere_on_mesh_edges.ron", 120, Symptom::GhostBump, CauseKind::InternalEdges);
    assert!(removes(&d, &set("internal_edges", "VoidedFeatures")), "{d:?}");
}

#[test]
fn bodies_spawned_overlapping_are_moved_apart() {
    let d = diagnosed("spawn_overlap.ron", 60, Symptom::DeepPenetration, CauseKind::SpawnOverlap);
    assert_eq!(d.event.step, 1);
    match &d.best_fix().unwrap().change {
        Change::Move { body: 2, by } => assert!((by[1] - 0.401).abs() < 0.01, "{by:?}"),
        other => panic!("expected the upper box moved up, got {other:?}"),
    }
}

#[test]
fn a_body_50_km_out_is_recentred() {
    let d = diagnosed("far_from_origin.ron", 30, Symptom::FarFromOrigin, CauseKind::FarFromOrigin);
    assert!(d.explanation.contains("3.91 mm"), "{}", d.explanation);
    let fix = &d.best_fix().unwrap().change;
    assert!(matches!(fix, Change::Recentre { by } if (by[0] + 50000.0).abs() < 1.0));
    // Offsets that round to zero read 0, not -0.
    assert_eq!(fix.describe(), "move the scene by (-50000, 0, 0) m, to the origin");
}

/// The ragdoll's landing (docs/joints.md): the step after a foot meets the stairs gains energy,
/// which the joints' exact solve and the warm-started impact impulse make, not the number of
/// bodies joined (it was told "a stack of 12 bodies").
#[test]
fn a_ragdoll_gaining_energy_after_it_lands_is_the_impact_on_its_joints() {
    let scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/ragdoll.ron")).unwrap();
    let d = diagnosed_scene(&scene, "ragdoll.ron", 40, Symptom::EnergyGain, CauseKind::ImpactOnJoints);
    assert!((20..=30).contains(&d.event.step), "{d:?}");
    assert!(d.explanation.contains("an impact took") && d.explanation.contains("joint(s)"), "{}", d.explanation);
    assert!(removes(&d, &set("substeps", "16")), "{d:?}");
    assert!(removes(&d, &set("warm_starting", "false")), "{d:?}");
}

#[test]
fn a_scene_without_trouble_reports_no_symptom() {
    let scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/box_stack.ron")).unwrap();
    let report = diagnose(&scene, 120).unwrap();
    assert!(report.diagnoses.is_empty(), "{}", report.to_text());
}

#[test]
fn the_command_prints_text_and_json_and_reads_recordings() {
    let bin = || {
        let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
        c.current_dir(env!("CARGO_MANIFEST_DIR"));
        c
    };
    let out = bin().args(["diagnose", "scenes/bugs/thin_plate_ccd_off.ron", "--steps", "30"]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("tunneling") && text.contains("ccd=Toi"), "{text}");
    let out =
        bin().args(["diagnose", "scenes/bugs/thin_plate_ccd_off.ron", "--steps", "30", "--json"]).output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["diagnoses"][0]["cause"], "fast_and_thin_without_ccd");
    let rec = std::env::temp_dir().join(format!("collidoscope-diag-{}.cdrec", std::process::id()));
    let out =
        bin().args(["record", "scenes/bugs/thin_plate_ccd_off.ron", "--steps", "20", "-o"]).arg(&rec).output().unwrap();
    assert!(out.status.success());
    let out = bin().arg("diagnose").arg(&rec).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("20 steps") && text.contains("tunneling"), "{text}");
    // A recording is diagnosed as recorded: other settings or more steps than it holds are
    // refused (they would diagnose another run under the recording's name).
    for extra in [&["--set", "warm_starting=false"][..], &["--ccd", "toi"], &["--steps", "21"]] {
        let out = bin().arg("diagnose").arg(&rec).args(extra).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains("give its scene file"), "{extra:?}: {err}");
    }
    let out = bin().arg("diagnose").arg(&rec).args(["--steps", "10"]).output().unwrap();
    assert!(out.status.success(), "fewer steps than recorded: {}", String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::remove_file(&rec);
}

#[test]
fn shrink_writes_the_smallest_scene_that_still_tunnels() {
    let out = std::env::temp_dir().join(format!("collidoscope-shrunk-{}.ron", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["shrink", "scenes/bugs/crowd_tunneling.ron", "--event", "tunneling", "--steps", "60", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "{text}{}", String::from_utf8_lossy(&run.stderr));
    assert!(text.contains("bodies of 190 keep the tunneling event"), "{text}");
    let small = Scene::load(&out).unwrap();
    assert!(small.bodies.len() <= 3 && small.generators.is_empty(), "{:?}", small.bodies.len());
    let report = diagnose(&small, 60).unwrap();
    assert!(report.diagnoses.iter().any(|d| d.event.symptom == Symptom::Tunneling), "{}", report.to_text());
    let _ = std::fs::remove_file(&out);
    // An unknown kind names the choices.
    let bad = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["shrink", "scenes/bugs/crowd_tunneling.ron", "--event", "tunnel", "-o"])
        .arg(&out)
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&bad.stderr).contains("far_from_origin"));
}

#[test]
fn a_plate_through_a_floating_slab_is_relative_speed_against_thickness() {
    let d = diagnosed("plate_through_plate.ron", 60, Symptom::Passing, CauseKind::FastRelativeMotion);
    assert_eq!(d.event.bodies, vec![1, 0], "the plate through the slab");
    assert!(d.explanation.contains("1.000 m per step") && d.explanation.contains("0.020 m"), "{}", d.explanation);
    assert!(d.explanation.contains("ccd Off"), "{}", d.explanation);
    assert!(removes(&d, &set("ccd", "Toi")), "{d:?}");
}

/// The shipped scenes as they open, each run for its whole first 5 s (the pyramids of thousands
/// of boxes, which settle sooner and cost tens of ms a step, for 1 s): no dynamic body passes
/// through another.
#[test]
fn no_body_of_a_shipped_scene_passes_through_another() {
    use collidoscope::sweep::Passings;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    names.sort();
    assert!(names.len() > 30, "{names:?}");
    let found: Vec<String> = names
        .par_iter()
        .flat_map_iter(|name| {
            let mut w = Scene::load(dir.join(name)).unwrap().build().unwrap();
            let steps = if w.bodies().len() > 2_000 { 60 } else { 300 };
            let mut passings = Passings::new(&w);
            let mut seen = Vec::new();
            for _ in 0..steps {
                w.step();
                for (a, b) in passings.observe(&w) {
                    seen.push(format!("{name} step {}: body {a} through body {b}", w.step_count()));
                }
            }
            seen
        })
        .collect();
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// A light box struck by a heavy ball at 30 m/s gains far more than 5 m/s in one step: a
/// collision, which the rain scenes are full of, not an explosion. A box that speeds up that
/// much with nothing closing on it is one.
#[test]
fn a_struck_body_is_a_collision_not_an_explosion() {
    let scene = |ball_speed: f32| {
        Scene::parse(
            &format!(
                r#"(
                    settings: (gravity: (0, 0, 0)),
                    bodies: [
                        (name: "ball", shape: Sphere(radius: 0.5), position: (-2, 0, 0), linear_velocity: ({ball_speed}, 0, 0), material: (density: 5000)),
                        (name: "box", shape: Cuboid(half_extents: (0.2, 0.2, 0.2)), position: (0, 0, 0), material: (density: 100)),
                    ],
                )"#
            ),
            "struck.ron",
        )
        .unwrap()
    };
    let report = diagnose(&scene(30.0), 30).unwrap();
    assert!(!report.events.iter().any(|e| e.symptom == Symptom::Explosion), "{}", report.to_text());
    let mut w = scene(30.0).build().unwrap();
    for _ in 0..30 {
        w.step();
    }
    assert!(w.bodies()[1].linvel.x > 20.0, "the box was struck: {}", w.bodies()[1].linvel);
    // The same box kicked to 20 m/s between steps, touching nothing: an explosion.
    let e = diagnose_kick(scene(0.0));
    assert!(e.iter().any(|d| d.symptom == Symptom::Explosion && d.bodies == vec![1]), "{e:?}");
}

/// Blows passed on within a step are collisions too: a heavy ball at 30 m/s striking the first
/// of two light boxes in a row (the second touches only the first, which was at rest), and a
/// cube spinning at 400 rad/s set on a floor, whose corners strike it at 57 m/s and throw it.
/// Before, each was reported as an explosion: neither body's centre had closed on anything at
/// speed.
#[test]
fn blows_passed_along_a_row_or_from_a_spin_are_collisions_not_explosions() {
    let row = Scene::parse(
        r#"(
            settings: (gravity: (0, 0, 0)),
            bodies: [
                (name: "ball", shape: Sphere(radius: 0.5), position: (-2, 0, 0), linear_velocity: (30, 0, 0), material: (density: 5000)),
                (name: "first", shape: Cuboid(half_extents: (0.2, 0.2, 0.2)), position: (0, 0, 0), material: (density: 100)),
                (name: "second", shape: Cuboid(half_extents: (0.2, 0.2, 0.2)), position: (0.4, 0, 0), material: (density: 100)),
            ],
        )"#,
        "row.ron",
    )
    .unwrap();
    let spin = Scene::parse(
        r#"(
            bodies: [
                (name: "floor", kind: Static, shape: Cuboid(half_extents: (20, 0.5, 20)), position: (0, -0.5, 0)),
                (name: "cube", shape: Cuboid(half_extents: (0.1, 0.1, 0.1)), position: (0, 0.1, 0), angular_velocity: (0, 0, 400)),
            ],
        )"#,
        "spin.ron",
    )
    .unwrap();
    for (scene, struck) in [(&spin, 1usize), (&row, 2)] {
        let mut w = scene.build().unwrap();
        let top = (0..30)
            .map(|_| {
                w.step();
                w.bodies()[struck].linvel.length()
            })
            .fold(0.0, f32::max);
        assert!(top > 5.0, "body {struck} reached {top} m/s");
        let report = diagnose(scene, 30).unwrap();
        assert!(!report.events.iter().any(|e| e.symptom == Symptom::Explosion), "{}", report.to_text());
    }
}

/// The events of `scene` run 10 steps, its box given 20 m/s at the fifth (as a solver blowing
/// up would), through the diagnosis's own watch.
fn diagnose_kick(scene: Scene) -> Vec<collidoscope::diagnose::Event> {
    collidoscope::diagnose::diagnose_stepping(&scene, 10, |w| {
        if w.step_count() == 4 {
            w.body_mut(1).linvel = collidoscope::math::Vec3::new(20.0, 0.0, 0.0);
        }
        w.step();
    })
    .unwrap()
    .events
}

/// A deep penetration that one step's motion made with CCD off is put down to that motion, and
/// the CCD modes remove it (a plate spinning into a wall was "no cause this tool knows").
#[test]
fn a_penetration_one_fast_step_made_is_fast_motion_without_ccd() {
    let mut scene =
        Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling_spinning_plate.ron")).unwrap();
    scene.settings.ccd = collidoscope::ccd::CcdMode::Off;
    let d = diagnosed_scene(
        &scene,
        "tunneling_spinning_plate.ron",
        30,
        Symptom::DeepPenetration,
        CauseKind::FastWithoutCcd,
    );
    assert!(d.explanation.contains("plate") && d.explanation.contains("with ccd Off"), "{}", d.explanation);
    assert!(removes(&d, &set("ccd", "Speculative")) && removes(&d, &set("ccd", "Toi")), "{d:?}");
}

/// A fix is judged by the bar of the run it is compared with: a larger slop raises a deep
/// penetration's bar (20 slops) without making the overlap any shallower, so it does not
/// remove it (`tunneling_shapes` reported "slop=0.004 removes it" while the overlap stayed 7 cm).
#[test]
fn a_larger_slop_does_not_remove_a_deep_penetration_by_raising_its_bar() {
    let scene = Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling_shapes.ron")).unwrap();
    let report = diagnose(&scene, 60).unwrap();
    let d = report.diagnoses.iter().find(|d| d.event.symptom == Symptom::DeepPenetration).expect("a deep penetration");
    let slop = d.fixes.iter().find(|t| matches!(&t.change, Change::Set { field, .. } if field == "slop"));
    let slop = slop.unwrap_or_else(|| panic!("a slop fix is tried\n{}", report.to_text()));
    assert!(!slop.removed, "{}", report.to_text());
}

/// Of a symptom's events the deepest is diagnosed, not the first (`fast_drops_ccd_off.ron`): a
/// sphere dropped at 12 m/s onto a thick floor with CCD off goes 12 cm in at the first step, one
/// dropped at 30 m/s from higher goes 47 cm in four steps later, and the report gives the second, says of how many
/// bodies it is the deepest, and puts it down to the step's motion (the step that found it
/// deep ended with the contact's push, slower than the sphere came in).
#[test]
fn the_deepest_penetration_is_diagnosed_not_the_first() {
    let scene = bug("fast_drops_ccd_off.ron");
    let report = diagnose(&scene, 30).unwrap();
    let text = report.to_text();
    let deep: Vec<_> = report.events.iter().filter(|e| e.symptom == Symptom::DeepPenetration).collect();
    assert_eq!(deep.len(), 2, "{text}");
    let (slow, fast) =
        (deep.iter().find(|e| e.bodies[0] == 1).unwrap(), deep.iter().find(|e| e.bodies[0] == 2).unwrap());
    assert!(slow.step < fast.step && slow.size < fast.size, "the case: the first is the shallower\n{text}");
    let d = report.diagnoses.iter().find(|d| d.event.symptom == Symptom::DeepPenetration).unwrap();
    assert_eq!(&&d.event, fast, "{text}");
    assert!(d.event.size > 0.4, "{text}");
    assert_eq!(d.bodies_with_symptom, 2, "{text}");
    assert!(text.contains("the deepest of the 2 bodies it happened to"), "{text}");
    assert_eq!(d.cause, CauseKind::FastWithoutCcd, "{text}");
    assert!(removes(d, &set("ccd", "Speculative")), "{text}");
}

/// A body placed in two others is cleared of the deeper by moving that one out: the move is
/// judged on the pair it separates, over the first steps (it was "does not remove it" because
/// the body still overlapped the third, as a rain placed without `separated` can).
#[test]
fn moving_one_body_out_of_a_body_placed_in_two_removes_that_overlap() {
    let scene = Scene::parse(
        r#"(
            version: 1,
            name: "placed in two",
            bodies: [
                (name: "a", shape: Sphere(radius: 0.5), position: (0, 10, 0)),
                (name: "b", shape: Sphere(radius: 0.5), position: (0, 10, 0.5)),
                (name: "c", shape: Sphere(radius: 0.5), position: (0.85, 10, 0)),
            ],
        )"#,
        "placed_in_two.ron",
    )
    .unwrap();
    let d = diagnosed_scene(&scene, "placed_in_two.ron", 30, Symptom::DeepPenetration, CauseKind::SpawnOverlap);
    let mut pair = d.event.bodies.clone();
    pair.sort_unstable();
    assert_eq!(pair, [0, 1], "{d:?}");
    assert!(
        d.fixes.iter().any(|t| t.removed && matches!(t.change, Change::Move { body: 1, .. })),
        "moving b out of a removes it: {d:?}"
    );
}

/// Energy gained as a deep overlap is pushed apart is put down to the push: the fast sphere of
/// `fast_drops_ccd_off.ron`, 43 cm into the floor, is pushed out at up to
/// `max_correction_velocity`, and a push slow enough removes the event, as the CCD modes do by
/// keeping it out.
#[test]
fn energy_gained_pushing_a_deep_overlap_apart_is_the_push() {
    let d = diagnosed("fast_drops_ccd_off.ron", 30, Symptom::EnergyGain, CauseKind::OverlapPushedOut);
    assert!(d.explanation.contains("fast") && d.explanation.contains("max_correction_velocity 3"), "{}", d.explanation);
    let slower =
        d.fixes.iter().find(|t| matches!(&t.change, Change::Set { field, .. } if field == "max_correction_velocity"));
    assert!(slower.is_some_and(|t| t.removed), "a slower push removes it: {d:?}");
    assert!(removes(&d, &set("ccd", "Speculative")), "{d:?}");
}
