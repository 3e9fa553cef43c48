//! Issue 30: every contact the world makes, over whole runs of the shipped scenes in every CCD
//! mode, reports a depth that the exact f64 reference agrees with: not only isolated pairs from
//! the narrow phase, but the manifolds the world actually solves (reused from the body-pair
//! cache, kept by the solver's contact recycling, rebuilt as speculative contacts).
//!
//! Each step, the poses the contacts were made from (the step's start) are kept; every
//! overlapping contact between two convex shapes is then judged against the exact reference at
//! those poses, by the depth along the manifold's own normal (`directional_depth` for two
//! polytopes, the overlap along the normal or the exact depth for a rounded shape).

use super::exact::{Core, directional_depth, exact_cores, overlap_along};
use collidoscope::ccd::CcdMode;
use collidoscope::geometry::Shape;
use collidoscope::math::Pose;
use glam::DVec3;

/// How far the reported depth may be from the reference: the narrow phase's own bar
/// (1e-3 × size) plus what the world may add by reusing a manifold while the bodies move a
/// little (the body-pair cache's and recycling's distances, a few tenths of a millimetre).
fn allowed(size: f64) -> f64 {
    2e-3 * size + 1e-3
}

/// Contacts judged per step, at most.
const JUDGED: usize = 256;
/// Scenes with more bodies than this run `BIG_SCENE_STEPS` steps (the pyramids of thousands of
/// boxes settle within them; a step costs them tens of milliseconds).
const BIG_SCENE: usize = 2_000;
const BIG_SCENE_STEPS: usize = 60;

fn convex(s: &Shape) -> bool {
    !s.is_mesh() && !s.is_compound()
}

/// The worst contact of a run: how far it is beyond what is allowed, and what it is.
fn run(scene: &str, mode: CcdMode, steps: usize) -> (f64, String) {
    let path = format!("{}/scenes/{scene}", env!("CARGO_MANIFEST_DIR"));
    let mut w = collidoscope::Scene::load(&path).unwrap().build().unwrap();
    let mut s = w.settings.clone();
    s.ccd = mode;
    w.set_settings(s);
    let steps = if w.bodies().len() > BIG_SCENE { steps.min(BIG_SCENE_STEPS) } else { steps };
    let mut worst = (0.0, String::new());
    for step in 1..=steps {
        let poses: Vec<Pose> = w.bodies().iter().map(|b| b.pose).collect();
        w.step();
        // At most `JUDGED` contacts a step, spread evenly over them (the pyramids have 15,000).
        let stride = w.contacts().len().div_ceil(JUDGED).max(1);
        for c in w.contacts().iter().step_by(stride) {
            let (ba, bb) = (&w.bodies()[c.a as usize], &w.bodies()[c.b as usize]);
            let reported = c.manifold.max_depth() as f64;
            if reported <= 0.0 || !convex(&ba.shape) || !convex(&bb.shape) {
                continue;
            }
            let (pa, pb) = (poses[c.a as usize], poses[c.b as usize]);
            let (ca, cb) = (Core::new(&ba.shape, &pa), Core::new(&bb.shape, &pb));
            let n = c.manifold.normal;
            let n = DVec3::new(n.x as f64, n.y as f64, n.z as f64).normalize();
            let exact = -exact_cores(&ca, &cb).distance;
            let err = if ca.radius == 0.0 && cb.radius == 0.0 {
                (reported - directional_depth(&ca, &cb, n)).abs()
            } else {
                let along = overlap_along(&ca, &cb, n);
                if reported >= exact && reported <= along {
                    0.0
                } else {
                    (reported - exact).abs().min((reported - along).abs())
                }
            };
            let size = ba.shape.bounding_radius().min(bb.shape.bounding_radius()) as f64;
            let over = err - allowed(size);
            if over > worst.0 {
                worst = (
                    over,
                    format!(
                        "{scene} {mode:?} step {step}: bodies {} {:?} and {} {:?}, depth {reported:.5} m, \
                         exact {exact:.5} m, {err:.5} m off (allowed {:.5})",
                        c.a,
                        ba.shape.kind(),
                        c.b,
                        bb.shape.kind(),
                        allowed(size)
                    ),
                );
            }
        }
    }
    worst
}

#[test]
fn every_contact_of_the_shipped_scenes_has_a_true_depth() {
    let steps: usize = std::env::var("WHOLE_RUN_STEPS").ok().and_then(|v| v.parse().ok()).unwrap_or(240);
    let mut scenes: Vec<String> = std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".ron"))
        .collect();
    scenes.sort();
    let mut failures = Vec::new();
    for scene in &scenes {
        for &mode in CcdMode::ALL {
            let (over, what) = run(scene, mode, steps);
            if over > 0.0 {
                failures.push(what);
            }
        }
    }
    assert!(failures.is_empty(), "{} runs with a contact off the reference:\n{}", failures.len(), failures.join("\n"));
}
