//! Where a resting stack's sideways motion comes from: per step, each dynamic body's
//! horizontal position and velocity and its rotation vector (rad).
//!
//! `cargo run --release --no-default-features --example drift_probe -- scenes/frictionless_pair.ron 1200 [NAME=VALUE...]`

use collidoscope::{Scene, Settings};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: drift_probe SCENE.ron [STEPS] [NAME=VALUE...]");
    let steps: usize = args.next().map_or(1200, |s| s.parse().expect("STEPS is a number"));
    let mut w = Scene::load(&path).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}"));
    let mut settings = Settings { sleeping: false, ..w.settings.clone() };
    for kv in args {
        let (k, v) = kv.split_once('=').expect("NAME=VALUE");
        settings.set_field(k, v).unwrap_or_else(|e| panic!("{e}"));
    }
    w.set_settings(settings);
    for k in 0..steps {
        w.step();
        if k < 40 || (k + 1) % 60 == 0 {
            let mut line = format!("{:5}", k + 1);
            for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
                let r = b.pose.rotation.to_scaled_axis();
                line += &format!(
                    " | x {:+.3e} z {:+.3e} y {:+.4e} vx {:+.2e} vz {:+.2e} rot ({:+.2e} {:+.2e} {:+.2e})",
                    b.pose.translation.x,
                    b.pose.translation.z,
                    b.pose.translation.y,
                    b.linvel.x,
                    b.linvel.z,
                    r.x,
                    r.y,
                    r.z
                );
            }
            println!("{line}");
        }
    }
}
