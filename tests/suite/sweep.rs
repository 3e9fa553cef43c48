//! Parameter sweeps (issue #20): the metrics on scenes with known answers, the CLI table and
//! CSV, and the batch route (emitted jobs run by `sh`, merged back into the same table).

use collidoscope::Scene;
use collidoscope::sweep::{self, parse_csv};
use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;

fn scene(name: &str) -> Scene {
    Scene::load(Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes").join(name)).unwrap()
}

#[test]
fn the_tunneling_bullet_counts_one_crossing_without_ccd_and_none_with_toi() {
    let s = scene("tunneling.ron");
    let mut off = s.settings.clone();
    off.set_field("ccd", "Off").unwrap();
    let mut toi = s.settings.clone();
    toi.set_field("ccd", "Toi").unwrap();
    assert_eq!(sweep::run_point(&s, &off, 60, None).unwrap().metrics.tunneled, 1);
    assert_eq!(sweep::run_point(&s, &toi, 60, None).unwrap().metrics.tunneled, 0);
}

#[test]
fn a_crossing_spread_over_two_steps_counts_as_tunneling() {
    // The plate's centre ends one step inside the 3 cm wall and leaves it the next.
    let s = scene("bugs/thin_plate_ccd_off.ron");
    assert_eq!(sweep::run_point(&s, &s.settings, 60, None).unwrap().metrics.tunneled, 1);
    let mut toi = s.settings.clone();
    toi.set_field("ccd", "Toi").unwrap();
    assert_eq!(sweep::run_point(&s, &toi, 60, None).unwrap().metrics.tunneled, 0);
    // A body pushed into a floor and back out on its own side never passed through it.
    let stack = scene("bugs/heavy_on_light.ron");
    assert_eq!(sweep::run_point(&stack, &stack.settings, 240, None).unwrap().metrics.tunneled, 0);
}

#[test]
fn a_resting_stack_has_no_energy_rise_and_sleeps_and_its_own_settings_do_not_diverge() {
    let s = scene("box_stack.ron");
    let own = sweep::run_point(&s, &s.settings, 240, None).unwrap();
    let m = sweep::run_point(&s, &s.settings, 240, Some(&own.positions)).unwrap().metrics;
    assert_eq!(m.divergence, 0.0, "the same settings give the same run");
    assert!(m.energy_rise <= 1e-3, "{m:?}");
    assert!(m.asleep > 0 && m.tunneled == 0, "{m:?}");
    assert!(m.penetration_max > 0.0 && m.penetration_max < 0.05, "{m:?}");
}

#[test]
fn results_do_not_depend_on_the_thread_count() {
    let s = scene("box_stack.ron");
    let v = [sweep::parse_vary("slop=0..0.01:3", &s.settings).unwrap()];
    let points = sweep::points(&s.settings, &v).unwrap();
    let hashes = |threads| {
        sweep::run(&s, &s.settings, &points, 60, Some(threads), &|| (), &AtomicBool::new(false))
            .unwrap()
            .iter()
            .map(|o| o.hash)
            .collect::<Vec<_>>()
    };
    assert_eq!(hashes(1), hashes(2));
}

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn ok(c: &mut Command) -> String {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn sweep_prints_a_table_writes_csv_and_emitted_jobs_merge_to_the_same_table() {
    let dir = std::env::temp_dir().join(format!("collidoscope-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("sweep.csv");
    let args =
        ["sweep", "scenes/box_stack.ron", "--vary", "slop=0..0.01:2", "--vary", "substeps=1..2:2", "--steps", "30"];
    let text = ok(bin().args(args).args(["--require", "penetration<1", "--threads", "2", "-o"]).arg(&csv));
    assert!(
        text.lines().next().unwrap().split_whitespace().eq(["slop", "substeps"].into_iter().chain(sweep::METRIC_NAMES)),
        "{text}"
    );
    assert!(text.contains("cheapest point meeting the bounds: slop="), "{text}");
    let (fields, rows) = parse_csv(&std::fs::read_to_string(&csv).unwrap()).unwrap();
    assert_eq!(fields, ["slop", "substeps"]);
    assert_eq!(rows.len(), 4);
    assert_eq!(rows[1].0, ["0", "2"]);

    let jobs = dir.join("jobs.txt");
    ok(bin().args(args).arg("--emit-jobs").arg(&jobs));
    let script = std::fs::read_to_string(&jobs).unwrap();
    assert_eq!(script.lines().count(), 4);
    let status = Command::new("sh").arg(&jobs).stdout(std::process::Stdio::null()).status().unwrap();
    assert!(status.success());
    let merged_csv = dir.join("merged.csv");
    let merged = ok(bin().args(["sweep", "--merge"]).arg(&dir).arg("-o").arg(&merged_csv));
    assert!(merged.contains("cheapest point"), "{merged}");
    // A leftover of an earlier, larger sweep in the folder is not merged (the manifest lists the
    // outputs); a listed output that is missing is an error.
    std::fs::write(dir.join("point-00099.csv"), std::fs::read(dir.join("point-00001.csv")).unwrap()).unwrap();
    let (mfields, mrows) = parse_csv(&std::fs::read_to_string(&merged_csv).unwrap()).unwrap();
    assert_eq!(mfields, fields);
    assert_eq!(mrows.len(), rows.len());
    // The same points give the same states and the same physics figures (times differ).
    for (a, b) in rows.iter().zip(&mrows) {
        assert_eq!((&a.0, a.2, a.1.penetration_max, a.1.divergence), (&b.0, b.2, b.1.penetration_max, b.1.divergence));
    }
    let merged_again = ok(bin().args(["sweep", "--merge"]).arg(&dir).arg("-o").arg(&merged_csv));
    assert_eq!(merged_again.lines().count(), merged.lines().count(), "{merged_again}");
    std::fs::remove_file(dir.join("point-00002.csv")).unwrap();
    let out = bin().args(["sweep", "--merge"]).arg(&dir).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("point-00002.csv: not written yet"));
    for bad in [vec!["sweep", "scenes/box_stack.ron"], vec!["sweep", "scenes/box_stack.ron", "--vary", "slop=a..b"]] {
        let out = bin().args(&bad).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn restitution_sweeps_like_any_setting() {
    // Issue 31: `sweep --vary restitution=0..1:5` on the bouncing balls' scene.
    let dir = std::env::temp_dir().join(format!("collidoscope-sweep-restitution-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let csv = dir.join("sweep.csv");
    let args = ["sweep", "scenes/restitution.ron", "--vary", "restitution=0..1:5", "--steps", "60", "-o"];
    ok(bin().args(args).arg(&csv));
    let (fields, rows) = parse_csv(&std::fs::read_to_string(&csv).unwrap()).unwrap();
    assert_eq!(fields, ["restitution"]);
    let values: Vec<&str> = rows.iter().map(|r| r.0[0].as_str()).collect();
    assert_eq!(values, ["0", "0.25", "0.5", "0.75", "1"]);
    // Each value reached the solver: the end states differ.
    let mut hashes: Vec<u64> = rows.iter().map(|r| r.2).collect();
    hashes.dedup();
    assert_eq!(hashes.len(), 5, "five different runs");
}
