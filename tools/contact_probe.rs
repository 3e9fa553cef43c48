//! One contact of a run, told apart from a fresh narrow-phase test: runs SCENE with CCD MODE to
//! STEP, then prints the world's manifold for bodies A and B, the fresh manifold at the poses
//! the step started from, and those poses to the bit (to make a test of the pair).
//!
//! `cargo run --release --no-default-features --example contact_probe -- scenes/rain_1000.ron speculative 86 616 830`

use collidoscope::math::Pose;
use collidoscope::narrowphase::{self, Tolerance};
use collidoscope::{Scene, ccd::CcdMode};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path, mode, step, a, b] = &args[..] else { panic!("usage: contact_probe SCENE MODE STEP A B") };
    let (step, a, b): (usize, usize, usize) = (step.parse().unwrap(), a.parse().unwrap(), b.parse().unwrap());
    let mut w = Scene::load(path).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}"));
    let mut s = w.settings.clone();
    s.ccd = CcdMode::ALL.iter().copied().find(|m| format!("{m:?}").eq_ignore_ascii_case(mode)).expect("a CCD mode");
    w.set_settings(s);
    let mut poses: Vec<Pose> = Vec::new();
    for _ in 0..step {
        poses = w.bodies().iter().map(|b| b.pose).collect();
        w.step();
    }
    let c = w.contacts().iter().find(|c| (c.a as usize, c.b as usize) == (a, b)).expect("no such contact");
    println!("world: {:?}", c.manifold);
    let tol = Tolerance { margin: w.settings.speculative_distance, epsilon: w.settings.contact_epsilon };
    let (ba, bb) = (&w.bodies()[a], &w.bodies()[b]);
    let fresh = narrowphase::contact(&ba.shape, &poses[a], &bb.shape, &poses[b], tol, w.settings.narrow_phase);
    println!("fresh: {fresh:?}");
    for (i, p) in [(a, poses[a]), (b, poses[b])] {
        let t = p.translation.to_array().map(f32::to_bits);
        let q = p.rotation.to_array().map(f32::to_bits);
        println!("body {i}: {:?} translation bits {t:x?} rotation bits {q:x?}", w.bodies()[i].shape);
    }
    println!("tol {tol:?} method {:?}", w.settings.narrow_phase);
}
