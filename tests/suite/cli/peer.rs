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

#[test]
fn compare_prints_both_engines_side_by_side() {
    let text = stdout(&["compare", "scenes/box_stack.ron", "--steps", "40"]);
    // Each figure row: a label, then one value per engine (and the ratio for times).
    let mut rows: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines().filter(|l| l.len() > 30 && !l.starts_with("scene:") && !l.starts_with("divergence")) {
        let (label, values) = line.split_at(30);
        rows.insert(label.trim().to_string(), values.split_whitespace().map(str::to_string).collect());
    }
    let num = |label: &str, k: usize| -> f64 {
        let v = rows.get(label).unwrap_or_else(|| panic!("no row {label:?} in:\n{text}"));
        v[k].parse().unwrap_or_else(|_| panic!("{label:?}[{k}] = {:?} in:\n{text}", v[k]))
    };
    assert_eq!(rows[""], ["collidoscope", "rapier", "rapier/collid."], "{text}");
    for label in ["ms per step, median", "ms per step, p90"] {
        let (a, b, ratio) = (num(label, 0), num(label, 1), num(label, 2));
        assert!(a > 0.0 && b > 0.0, "{label}: {a} {b}");
        assert!((ratio - b / a).abs() <= 0.01 * ratio + 0.006, "{label}: ratio {ratio} vs {}", b / a);
    }
    assert!(num("ms per step, p90", 0) >= num("ms per step, median", 0));
    // Forty steps of a standing stack (its slab starts 5 cm up): both engines keep it within
    // centimetres of that, upright.
    for k in 0..2 {
        assert!(num("max displacement m", k) < 0.1, "{text}");
        assert!(num("max horizontal drift m", k) < 0.02, "{text}");
        assert!(num("max tilt deg", k) < 2.0, "{text}");
        assert!(num("max penetration m", k) < 0.02, "{text}");
        assert!(num("max horizontal drift m", k) <= num("max displacement m", k) + 1e-6);
    }
    assert_eq!(rows["all asleep at s"], ["never", "never"], "40 steps is too soon to sleep:\n{text}");
    let div = text.lines().find(|l| l.starts_with("divergence after 40 steps: max ")).expect(&text);
    let figures: Vec<f64> = div.split([' ', ',']).filter_map(|w| w.parse().ok()).collect();
    assert_eq!(figures.len(), 3, "{div}");
    assert!(figures[1] >= figures[2] && figures[1] < 0.05, "{div}");
}

#[test]
fn run_with_rapier_writes_the_same_formats_and_repeats() {
    let dir = std::env::temp_dir().join(format!("collidoscope-peer-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (csv, fin) = (dir.join("steps.csv"), dir.join("final.csv"));
    let run = || {
        let out = bin()
            .args(["run", "scenes/box_stack.ron", "--steps", "30", "--engine", "rapier", "--csv"])
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
    assert_eq!(hash(&a), hash(&b), "rapier runs repeat");
    assert!(a.contains("engine: rapier3d"), "{a}");
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
    assert!(last[1].parse::<f64>().unwrap() > 0.0, "rapier's step time: {}", rows[29]);
    assert!(last[9].parse::<u32>().unwrap() >= 4 * 9, "contacts of nine stacked boxes: {}", rows[29]);
    let fin = std::fs::read_to_string(&fin).unwrap();
    assert!(fin.starts_with("index,name,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz,asleep\n"));
    assert_eq!(fin.lines().count(), 11);
    std::fs::remove_dir_all(&dir).ok();
}
