//! How well a scene's stacks stand: runs it with sleeping off and then on and prints the
//! largest out-of-plane distance (|z|), the largest tilt, the largest horizontal displacement
//! and when every dynamic body was asleep.
//!
//! `cargo run --release --no-default-features --example stack_metrics -- scenes/large_pyramid.ron 1200`

use collidoscope::math::Vec3;
use collidoscope::{Scene, Settings};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: stack_metrics SCENE.ron [STEPS]");
    let steps: usize = args.next().map_or(1200, |s| s.parse().expect("STEPS is a number"));
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
    for sleeping in [false, true] {
        let mut w = scene.build().unwrap_or_else(|e| panic!("{e}"));
        w.set_settings(Settings { sleeping, ..w.settings.clone() });
        let start: Vec<Vec3> = w.bodies().iter().map(|b| b.pose.translation).collect();
        let dynamic = w.bodies().iter().filter(|b| b.is_dynamic()).count() as u32;
        let (mut out, mut tilt, mut moved, mut asleep_at) = (0.0f32, 0.0f32, 0.0f32, None);
        let t0 = std::time::Instant::now();
        for k in 0..steps {
            w.step();
            for (b, p0) in w.bodies().iter().zip(&start).filter(|(b, _)| b.is_dynamic()) {
                let d = b.pose.translation - *p0;
                out = out.max(d.z.abs());
                moved = moved.max((d.x * d.x + d.z * d.z).sqrt());
                // From the up axis's horizontal part, which keeps its precision at small angles.
                let up = b.pose.rotation * Vec3::Y;
                tilt = tilt.max((up.x * up.x + up.z * up.z).sqrt().min(1.0).asin().to_degrees());
            }
            if asleep_at.is_none() && sleeping && w.profile().sleeping_bodies == dynamic {
                asleep_at = Some((k + 1) as f64 * w.settings.dt as f64);
            }
        }
        let asleep = asleep_at.map_or("never".to_string(), |t| format!("at {t:.2} s"));
        println!(
            "{path}, sleeping {sleeping}, {steps} steps: out of plane {:.1} mm, tilt {tilt:.2}°, moved {:.1} mm, all asleep {asleep} ({:.2} ms a step with this bookkeeping)",
            out * 1e3,
            moved * 1e3,
            t0.elapsed().as_secs_f64() * 1e3 / steps as f64
        );
    }
}
