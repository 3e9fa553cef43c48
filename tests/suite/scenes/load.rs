//! Scene files: every kind of bad input names where it is; good scenes survive a round trip.

use collidoscope::scene::{Scene, SceneError};

/// A one-body scene with `body` as the only body's text, on line 4.
fn scene_with_body(body: &str) -> String {
    format!("(\n    version: 1,\n    bodies: [\n        {body},\n    ],\n)\n")
}

fn expect_error_on_line(text: &str, line: usize, needle: &str) {
    let err = Scene::parse(text, "bad.ron").expect_err("the scene should be rejected");
    let msg = err.to_string();
    assert!(msg.starts_with(&format!("bad.ron:{line}:")), "wrong place: {msg}\n--- scene:\n{text}");
    assert!(msg.to_lowercase().contains(&needle.to_lowercase()), "message {msg:?} should mention {needle:?}");
}

/// Each names its field, its value and the rule (a value's rule alone said "0 must be greater
/// than 0" of `dt: 0`).
#[test]
fn bad_values_are_rejected_with_their_line() {
    let cases = [
        ("(shape: Sphere(radius: NaN))", "radius: NaN is not a finite"),
        ("(shape: Sphere(radius: inf))", "not a finite"),
        ("(shape: Sphere(radius: -1))", "radius: -1 m is out of range: it must lie between 0.0001 and 10000 m"),
        ("(shape: Sphere(radius: 0))", "must lie between 0.0001 and 10000 m"),
        ("(shape: Cuboid(half_extents: (1, 0, 1)))", "half_extents: (1, 0, 1)"),
        ("(shape: Capsule(half_height: 1, radius: -0.5))", "must lie between"),
        (
            "(shape: Sphere(radius: 1), material: (friction: -0.2))",
            "friction: -0.2 is out of range: it must lie between 0 and 100",
        ),
        (
            "(shape: Sphere(radius: 1), material: (density: -5))",
            "density: -5 kg/m³ is out of range: it must lie between 0.001 and 1000000 kg/m³",
        ),
        ("(shape: Sphere(radius: 1), material: (restitution: 1.5))", "between 0 and 1"),
        ("(shape: Sphere(radius: 1), position: (0, NaN, 0))", "not a finite"),
        ("(shape: Sphere(radius: 1), kind: Floating)", "Floating"),
        ("(shape: Blob(radius: 1))", "Blob"),
        ("(shape: Sphere(radius: 1), colour: 3)", "colour"),
        ("(shape: Sphere(radius: 1), rotation: Quat(0, 0, 0, 0))", "quaternion"),
        ("(shape: Sphere(radius: 1) position: (0, 1, 0))", "expected"),
    ];
    for (body, needle) in cases {
        expect_error_on_line(&scene_with_body(body), 4, needle);
    }
}

#[test]
fn bad_settings_are_rejected_with_their_line() {
    let text = "(\n    version: 1,\n    settings: (\n        dt: -0.01,\n    ),\n)\n";
    expect_error_on_line(text, 4, "dt: -0.01 must be greater than 0");
    let text = "(\n    version: 1,\n    settings: (\n        broad_phase: Quadtree,\n    ),\n)\n";
    expect_error_on_line(text, 4, "Quadtree");
    let text =
        "(\n    version: 1,\n    settings: (\n        slop: 0.01,\n        gravity: (0, -9.81, inf),\n    ),\n)\n";
    expect_error_on_line(text, 5, "gravity: (0, -9.81, inf)");
}

#[test]
fn checks_after_parsing_name_the_field() {
    let flat = "(shape: ConvexHull(points: [(0, 0, 0), (1, 0, 0), (0, 1, 0), (1, 1, 0)]))";
    let err = Scene::parse(&scene_with_body(flat), "flat.ron").unwrap_err();
    assert!(matches!(err, SceneError::Invalid { .. }));
    assert!(err.to_string().starts_with("flat.ron: bodies[0].shape:"), "{err}");
    assert!(err.to_string().contains("coplanar"), "{err}");
    let err = Scene::parse("(version: 7)", "v.ron").unwrap_err();
    assert!(err.to_string().contains("version 7"), "{err}");
    let rain = "(generators: [Rain(count: 3, min: (1, 0, 0), max: (0, 1, 1), shapes: [Sphere(radius: 1)])])";
    let err = Scene::parse(rain, "rain.ron").unwrap_err();
    assert!(err.to_string().starts_with("rain.ron: generators[0].min:"), "{err}");
    let huge = "(generators: [Grid(counts: (1000, 1000, 1000), shape: Sphere(radius: 1), spacing: (2, 2, 2))])";
    assert!(Scene::parse(huge, "huge.ron").unwrap_err().to_string().contains("limit"));
}

#[test]
fn omitted_fields_take_defaults() {
    let s = Scene::parse("(bodies: [(shape: Sphere(radius: 0.5))])", "min.ron").unwrap();
    assert_eq!(s.version, 1);
    assert_eq!(s.settings, collidoscope::Settings::default());
    assert_eq!(s.bodies[0].material, collidoscope::Material::default());
    let w = s.build().unwrap();
    assert_eq!(w.bodies().len(), 1);
}

#[test]
fn shipped_scenes_load_save_and_load_equal() {
    let dir = std::env::temp_dir().join(format!("collidoscope-roundtrip-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ron") {
            continue;
        }
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        let out = dir.join(path.file_name().unwrap());
        scene.save(&out).unwrap();
        let again = Scene::load(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(scene, again, "{} changed in a round trip", path.display());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// No shipped scene's own settings let its bodies sink through its thinnest fixed body (the
/// slop warning of the app's Settings panel and of `run`).
#[test]
fn no_shipped_scene_has_a_slop_too_deep_for_its_thinnest_wall() {
    use collidoscope::world::{slop_warning, thinnest_fixed_solid};
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "ron") {
            continue;
        }
        let w = Scene::load(&path).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}"));
        let warning = slop_warning(w.settings.slop, w.bodies(), thinnest_fixed_solid(w.bodies()));
        assert_eq!(warning, None, "{}", path.display());
    }
}

#[test]
fn a_saved_world_state_reloads_to_the_same_hash() {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/default.ron")).unwrap();
    let mut w = scene.build().unwrap();
    for _ in 0..90 {
        w.step();
    }
    let snap = Scene::from_world(&w, &scene);
    let text = snap.to_ron();
    let back = Scene::parse(&text, "snap.ron").unwrap().build().unwrap();
    assert_eq!(back.hash(), w.hash());
}

#[test]
fn a_failed_save_leaves_no_file_behind() {
    let scene = Scene::default();
    let err = scene.save("/nonexistent-dir-collidoscope/x.ron").unwrap_err();
    assert!(err.to_string().contains("nonexistent-dir-collidoscope"), "{err}");
}
