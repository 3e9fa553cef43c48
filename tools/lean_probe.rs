//! How fast stacks lean with sleeping off: prints, every half second, the largest out-of-plane
//! distance (|z|) and tilt of any body, for a scene or a column of 0.4 × 0.2 × 0.4 m boxes.
//!
//! `cargo run --release --no-default-features --example lean_probe -- column:20 1200`
//! `cargo run --release --no-default-features --example lean_probe -- scenes/large_pyramid.ron 1200`

use collidoscope::math::{Pose, Vec3};
use collidoscope::{Body, BodyKind, Material, Scene, Settings, Shape, World};

/// A column of `n` boxes, each offset sideways by up to `jitter` (m) with a fixed-seed LCG.
fn column(n: usize, jitter: f32, mu: f32) -> World {
    let mut seed = 12345u32;
    let mut rnd = || {
        seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
        (seed >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    };
    let mut w = World::new(Settings::default());
    w.add_body(Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)),
        Pose::from_translation(Vec3::Y * -0.5),
        Material::default(),
    ));
    for i in 0..n {
        w.add_body(Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::new(0.2, 0.1, 0.2)),
            Pose::from_translation(Vec3::new(jitter * rnd(), 0.1 + 0.2 * i as f32, jitter * rnd())),
            Material { friction: mu, ..Material::default() },
        ));
    }
    w
}

fn main() {
    let mut args = std::env::args().skip(1);
    let what = args.next().expect("usage: lean_probe SCENE.ron|column:N[:JITTER[:FRICTION]] [STEPS] [NAME=VALUE...]");
    let steps: usize = args.next().map_or(1200, |s| s.parse().expect("STEPS is a number"));
    let mut w = match what.strip_prefix("column:") {
        Some(spec) => {
            let mut parts = spec.split(':');
            let n = parts.next().map(|n| n.parse().expect("a count")).unwrap_or(1);
            let j = parts.next().map_or(0.0, |j| j.parse().expect("a jitter in m"));
            let mu = parts.next().map_or(0.5, |m| m.parse().expect("a friction"));
            column(n, j, mu)
        }
        None => Scene::load(&what).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}")),
    };
    let mut settings = Settings { sleeping: false, ..w.settings.clone() };
    for kv in args {
        let (k, v) = kv.split_once('=').expect("NAME=VALUE");
        settings.set_field(k, v).unwrap_or_else(|e| panic!("{e}"));
    }
    w.set_settings(settings);
    let start: Vec<Vec3> = w.bodies().iter().map(|b| b.pose.translation).collect();
    let t0 = std::time::Instant::now();
    let (mut out_all, mut tilt_all) = (0.0f32, 0.0f32);
    for k in 0..steps {
        w.step();
        if (k + 1) % 30 == 0 {
            let (mut out, mut tilt, mut x) = (0.0f32, 0.0f32, 0.0f32);
            for (b, p0) in w.bodies().iter().zip(&start).filter(|(b, _)| b.is_dynamic()) {
                let d = b.pose.translation - *p0;
                out = out.max(d.z.abs());
                x = x.max(d.x.abs());
                let up = b.pose.rotation * Vec3::Y;
                tilt = tilt.max((up.x * up.x + up.z * up.z).sqrt().min(1.0).asin().to_degrees());
            }
            out_all = out_all.max(out);
            tilt_all = tilt_all.max(tilt);
            println!(
                "t {:5.2} s  out of plane {:9.3} mm  |dx| {:9.3} mm  tilt {:7.3}°  KE {:.2e}",
                (k + 1) as f32 * w.settings.dt,
                out * 1e3,
                x * 1e3,
                tilt,
                w.kinetic_energy()
            );
        }
    }
    println!(
        "{what}: max out of plane {:.1} mm, max tilt {tilt_all:.2}°, {:.2} ms a step",
        out_all * 1e3,
        t0.elapsed().as_secs_f64() * 1e3 / steps as f64
    );
}
