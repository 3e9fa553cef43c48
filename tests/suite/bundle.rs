//! Case bundles (`diagnose --bundle`): written as a zip or a folder and read back whole, the
//! recording still verifying; damaged archives are clear errors; the command line writes one
//! for a tunneling case and says why it has no clip without a display.

use crate::scratch::Scratch;
use collidoscope::bundle::{ABOUT, Bundle, ClipSpan, NO_CLIP, NoClip, RECORDING, SCENE, is_bundle};
use collidoscope::diagnose::diagnose;
use collidoscope::record::Recorder;
use collidoscope::scene::Scene;
use std::path::Path;
use std::process::Command;

fn scene(name: &str) -> Scene {
    Scene::load(format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// A bundle of the tunneling scene's first `steps` steps, without a clip.
fn bundle(steps: u64) -> Bundle {
    let scene = scene("tunneling.ron");
    let mut world = scene.build().unwrap();
    let mut rec = Recorder::new(&scene, &world, 10);
    for _ in 0..steps {
        rec.step(&mut world);
    }
    let report = diagnose(&scene, steps).unwrap();
    Bundle {
        scene,
        recording: rec.finish(),
        report_text: report.to_text(),
        report_json: serde_json::to_string(&report).unwrap(),
        clip: Err(NoClip::NoDisplay(ClipSpan { from: 0, to: steps, see_through: true })),
        about: "a test bundle\n".into(),
    }
}

fn assert_same(got: &Bundle, want: &Bundle) {
    assert_eq!(got.scene, want.scene);
    assert_eq!(got.recording.scene, want.recording.scene);
    assert_eq!(got.recording.hashes, want.recording.hashes);
    assert_eq!(got.recording.keyframes.len(), want.recording.keyframes.len());
    assert_eq!(got.recording.verify(), Ok(want.recording.steps()));
    assert_eq!((&got.report_text, &got.report_json), (&want.report_text, &want.report_json));
    // A missing clip's reason comes back in its own words.
    let why = |b: &Bundle| b.clip.clone().map_err(|e| e.to_string());
    assert_eq!(why(got), why(want));
    assert_eq!(got.about, want.about);
}

#[test]
fn a_bundle_round_trips_as_a_zip_and_as_a_folder() {
    let dir = Scratch::new("bundle", "round_trip");
    let b = bundle(40);
    let zip = dir.join("case.zip");
    b.write(&zip).unwrap();
    assert!(is_bundle(&zip));
    assert_same(&Bundle::read(&zip).unwrap(), &b);
    let folder = dir.join("case");
    b.write(&folder).unwrap();
    assert!(is_bundle(&folder) && folder.join(NO_CLIP).is_file());
    assert_same(&Bundle::read(&folder).unwrap(), &b);
    // A second write replaces the earlier bundle; a folder of other files is left alone.
    let mut with_clip = bundle(20);
    with_clip.clip = Ok(b"GIF89a...".to_vec());
    with_clip.write(&folder).unwrap();
    assert_same(&Bundle::read(&folder).unwrap(), &with_clip);
    assert!(!folder.join(NO_CLIP).exists());
    let other = dir.join("notes");
    std::fs::create_dir(&other).unwrap();
    std::fs::write(other.join("todo.txt"), "keep me").unwrap();
    let e = b.write(&other).unwrap_err().to_string();
    assert!(e.contains("notes") && e.contains("not a case bundle"), "{e}");
    assert_eq!(std::fs::read_to_string(other.join("todo.txt")).unwrap(), "keep me");
    // Nothing but the bundles is left in the scratch folder.
    let mut names: Vec<String> =
        std::fs::read_dir(&*dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    assert_eq!(names, ["case", "case.zip", "notes"]);
    // Unpacked for the app: the scene and the recording, as they were.
    let (s, r) = Bundle::read(&zip).unwrap().unpack(&dir.join("open")).unwrap();
    assert_eq!(Scene::load(&s).unwrap(), b.scene);
    assert_eq!(collidoscope::record::Recording::load(&r).unwrap().hashes, b.recording.hashes);
}

#[test]
fn a_damaged_or_incomplete_zip_is_a_clear_error() {
    let dir = Scratch::new("bundle", "damaged");
    let good = dir.join("good.zip");
    bundle(30).write(&good).unwrap();
    let bytes = std::fs::read(&good).unwrap();
    let read = |name: &str, data: &[u8]| {
        let p = dir.join(name);
        std::fs::write(&p, data).unwrap();
        Bundle::read(&p).map(|_| ()).unwrap_err().to_string()
    };
    let e = read("cut.zip", &bytes[..bytes.len() / 2]);
    assert!(e.contains("cut.zip") && e.contains("not a readable case bundle"), "{e}");
    let e = read("text.zip", b"this is not a zip file");
    assert!(e.contains("text.zip") && e.contains("not a readable case bundle"), "{e}");
    // Every byte flipped in turn across the archive's data (a stride, to keep it quick): an
    // error naming the bundle, or (in padding the reader skips) the same bundle, never a panic.
    let mut errors = 0;
    for at in (0..bytes.len()).step_by(97) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x5a;
        let p = dir.join("flipped.zip");
        std::fs::write(&p, &bad).unwrap();
        if let Err(e) = Bundle::read(&p) {
            let e = e.to_string();
            assert!(e.contains("flipped.zip"), "byte {at}: {e}");
            errors += 1;
        }
    }
    assert!(errors > 0);
    // A zip without the scene.
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    zip.start_file(ABOUT, zip::write::SimpleFileOptions::default()).unwrap();
    std::io::Write::write_all(&mut zip, b"x").unwrap();
    let partial = zip.finish().unwrap().into_inner();
    let e = read("partial.zip", &partial);
    assert!(e.contains("partial.zip") && e.contains(&format!("has no {SCENE}")), "{e}");
    // A folder whose scene is not its recording's (another case's scene.ron copied in): an
    // error, not one case opened under the other's name.
    let folder = dir.join("swapped");
    bundle(30).write(&folder).unwrap();
    let other = scene("jitter.ron").to_ron();
    std::fs::write(folder.join(SCENE), other).unwrap();
    let e = Bundle::read(&folder).map(|_| ()).unwrap_err().to_string();
    assert!(e.contains("swapped") && e.contains("is not the scene"), "{e}");
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

/// `collidoscope diagnose SCENE --steps STEPS --bundle OUT` with no display (so no clip), which
/// must succeed; the bundle it wrote.
pub(crate) fn diagnose_bundle(scene: &str, steps: u32, out: &Path) -> Bundle {
    let made = bin()
        .args(["diagnose", scene, "--steps", &steps.to_string(), "--bundle"])
        .arg(out)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", String::from_utf8_lossy(&made.stderr));
    Bundle::read(out).unwrap()
}

#[test]
fn diagnose_writes_a_bundle_of_the_minimal_case_and_says_why_it_has_no_clip() {
    let dir = Scratch::new("bundle", "cli");
    let zip = dir.join("case.zip");
    let b = diagnose_bundle("scenes/bugs/crowd_tunneling.ron", 120, &zip);
    assert!(b.scene.bodies.len() <= 3, "{} bodies", b.scene.bodies.len());
    assert!(b.scene.generators.is_empty());
    assert!(b.report_text.contains("tunneling"), "{}", b.report_text);
    assert!(b.recording.steps() > 0);
    assert_eq!(b.recording.verify(), Ok(b.recording.steps()));
    let why = b.clip.unwrap_err().to_string();
    let reason = if cfg!(feature = "gui") { "no display" } else { "no window" };
    assert!(why.contains(reason) && why.contains(&format!("collidoscope clip {RECORDING}")), "{why}");
    // The case is a body through a static one: its clip is drawn see-through.
    assert!(why.contains("--see-through`"), "{why}");
    assert!(b.about.contains("crowd_tunneling.ron") && b.about.contains("collidoscope open"), "{}", b.about);
    // Opening a damaged bundle fails before any window, naming it.
    let bad = dir.join("bad.zip");
    std::fs::write(&bad, b"PK\x03\x04 broken").unwrap();
    let out = bin().arg("open").arg(&bad).env_remove("DISPLAY").env_remove("WAYLAND_DISPLAY").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("error: ") && err.contains("bad.zip") && err.contains("not a readable case bundle"),
        "{err}"
    );
}

/// The bundle is shrunk for the event the report leads with, its symptom's worst: the sphere
/// that lands 47 cm deep, not the one 12 cm deep at the first step.
#[test]
fn a_bundle_is_shrunk_for_the_event_the_report_diagnoses() {
    let dir = Scratch::new("bundle_worst", "cli");
    let b = diagnose_bundle("scenes/bugs/fast_drops_ccd_off.ron", 30, &dir.join("case/"));
    let names: Vec<&str> = b.scene.bodies.iter().filter_map(|d| d.name.as_deref()).collect();
    assert!(names.contains(&"fast") && !names.contains(&"slow"), "{names:?}");
}
