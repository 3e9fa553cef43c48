//! scenes/tunneling.ron through the real command line: with CCD off the 200 m/s sphere passes
//! through the 1 cm wall, and every CCD mode stops it on the near side.

use collidoscope::ccd::CcdMode;
use std::path::PathBuf;
use std::process::Command;

const SCENE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/tunneling.ron");

/// Runs the scene for `steps` with `--ccd mode` and returns the bullet's final x and speed.
fn run(mode: &str, steps: u32) -> (f32, f32) {
    let out: PathBuf = std::env::temp_dir().join(format!("collidoscope-tunnel-{mode}-{}.csv", std::process::id()));
    let status = Command::new(env!("CARGO_BIN_EXE_collidoscope"))
        .args(["run", SCENE, "--steps", &steps.to_string(), "--ccd", mode, "--final-state"])
        .arg(&out)
        .output()
        .expect("the binary runs");
    assert!(status.status.success(), "run failed: {}", String::from_utf8_lossy(&status.stderr));
    let csv = std::fs::read_to_string(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no column {name}"));
    let row: Vec<&str> = lines
        .find(|l| l.split(',').nth(col("name")) == Some("bullet"))
        .expect("the bullet is in the final state")
        .split(',')
        .collect();
    let f = |name: &str| row[col(name)].parse::<f32>().unwrap();
    let speed = (f("vx").powi(2) + f("vy").powi(2) + f("vz").powi(2)).sqrt();
    (f("px"), speed)
}

#[test]
fn without_ccd_the_sphere_tunnels() {
    let (x, _) = run("off", 30);
    // The wall's far face is at x = 0.005; the sphere is long past it.
    assert!(x > 1.0, "expected the sphere far beyond the wall, got x = {x}");
}

#[test]
fn every_ccd_mode_stops_the_sphere_on_the_near_side() {
    for &mode in CcdMode::ALL.iter().filter(|m| **m != CcdMode::Off) {
        let (x, speed) = run(mode.cli_name(), 90);
        // Near face at x = -0.005, radius 0.05: the centre must stay at or before -0.055.
        assert!(x < -0.054 && x > -0.5, "{mode:?}: the sphere should rest against the near face, x = {x}");
        assert!(speed < 1.0, "{mode:?}: the sphere should have stopped, speed {speed}");
    }
}
