//! Where a resting stack's sideways motion comes from: per step, each dynamic body's
//! horizontal position and velocity, its rotation vector (rad) and its tilt (the angle of its up
//! axis from the vertical), and per contact between two dynamic bodies the narrow phase's normal
//! and the normal impulses of the last substep. Built with the `rapier` feature it steps
//! rapier3d on the same scene alongside and prints its bodies on the line below (`rapier`).
//! The last line gives each engine's largest horizontal drift and tilt.
//!
//! `cargo run --release --no-default-features --features rapier --example drift_probe -- scenes/frictionless_pair.ron 1200 [NAME=VALUE...]`

use collidoscope::math::Vec3;
use collidoscope::{Body, Scene, Settings, World};

/// The angle of a body's up axis from the vertical, degrees (from its horizontal part, which
/// keeps its precision for small angles).
fn tilt_deg(b: &Body) -> f32 {
    let up = b.pose.rotation * Vec3::Y;
    (up.x * up.x + up.z * up.z).sqrt().min(1.0).asin().to_degrees()
}

/// One engine's dynamic bodies, as one line.
fn bodies_line(w: &World) -> String {
    let mut line = String::new();
    for b in w.bodies().iter().filter(|b| b.is_dynamic()) {
        let r = b.pose.rotation.to_scaled_axis();
        line += &format!(
            " | x {:+.3e} z {:+.3e} y {:+.4e} vx {:+.2e} vz {:+.2e} rot ({:+.2e} {:+.2e} {:+.2e}) tilt {:.5}°",
            b.pose.translation.x,
            b.pose.translation.z,
            b.pose.translation.y,
            b.linvel.x,
            b.linvel.z,
            r.x,
            r.y,
            r.z,
            tilt_deg(b)
        );
    }
    line
}

/// The contacts between two dynamic bodies: pair, normal (narrow phase) and normal impulses.
fn contacts_line(w: &World) -> String {
    let mut line = String::new();
    for (k, c) in w.contacts().iter().enumerate() {
        let (a, b) = (&w.bodies()[c.a as usize], &w.bodies()[c.b as usize]);
        if !(a.is_dynamic() && b.is_dynamic()) {
            continue;
        }
        let n = c.manifold.normal;
        let impulses = w.contact_impulses(k).map_or(String::new(), |imp| {
            imp[..c.manifold.len()].iter().map(|p| format!(" {:.4e}", p.normal)).collect()
        });
        line += &format!(" | {}-{} n ({:+.2e} {:+.8} {:+.2e}) impulses{impulses}", c.a, c.b, n.x, n.y, n.z);
    }
    line
}

/// The largest horizontal distance of a dynamic body from where it started, m, and the
/// largest tilt, degrees.
fn track(w: &World, start: &[Vec3], drift: &mut f32, tilt: &mut f32) {
    for (b, s) in w.bodies().iter().zip(start).filter(|(b, _)| b.is_dynamic()) {
        let d = b.pose.translation - *s;
        *drift = drift.max((d.x * d.x + d.z * d.z).sqrt());
        *tilt = tilt.max(tilt_deg(b));
    }
}

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
    let start: Vec<Vec3> = w.bodies().iter().map(|b| b.pose.translation).collect();
    #[cfg(feature = "rapier")]
    let mut peer = collidoscope::peer::RapierWorld::from_world(&w);
    let (mut drift, mut tilt) = (0.0f32, 0.0f32);
    #[cfg(feature = "rapier")]
    let (mut peer_drift, mut peer_tilt) = (0.0f32, 0.0f32);
    for k in 0..steps {
        w.step();
        track(&w, &start, &mut drift, &mut tilt);
        #[cfg(feature = "rapier")]
        {
            peer.step();
            track(peer.world(), &start, &mut peer_drift, &mut peer_tilt);
        }
        if k < 40 || (k + 1) % 60 == 0 {
            println!("{:5}{}{}", k + 1, bodies_line(&w), contacts_line(&w));
            #[cfg(feature = "rapier")]
            println!("rapier{}", bodies_line(peer.world()));
        }
    }
    print!("largest drift {:.4} mm, tilt {:.5}°", drift * 1e3, tilt);
    #[cfg(feature = "rapier")]
    print!("; rapier3d {:.4} mm, {:.4}°", peer_drift * 1e3, peer_tilt);
    println!();
}
