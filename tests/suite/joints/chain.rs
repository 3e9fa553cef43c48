//! The heavy chain: 20 links of 10 cm under a ball 100 times a link's mass, at the defaults.
//! Light links under a heavy load are where one-joint-at-a-time solvers stretch and jitter.

use collidoscope::math::{Real, Vec3};
use collidoscope::{Scene, World};

const LINKS: usize = 20;
const LINK: Real = 0.1;

/// The chain hung from (0, 4, 0) along `direction`, with `settings` (RON), floor as body 0.
fn chain(direction: &str, settings: &str) -> World {
    let text = format!(
        r#"(
    settings: ({settings}),
    bodies: [(name: "floor", kind: Static, shape: Cuboid(half_extents: (4, 0.5, 2)), position: (0, -0.5, 0))],
    generators: [Chain(links: {LINKS}, origin: (0, 4, 0), direction: {direction}, link_length: {LINK}, radius: 0.02,
                       end_radius: 0.1, end_mass_ratio: 100)],
)"#
    );
    let w = Scene::parse(&text, "chain.ron").unwrap().build().unwrap();
    let ratio = w.bodies()[LINKS + 1].mass() / w.bodies()[1].mass();
    assert!((ratio - 100.0).abs() < 0.1, "mass ratio {ratio}");
    w
}

/// How far the chain is stretched: its joints' gaps added up, over its length.
fn stretch(w: &World) -> Real {
    (0..=LINKS).map(|k| w.joint_report(k).linear_error).sum::<Real>() / (LINKS as Real * LINK)
}

/// The fastest point of any link or the ball, m/s (centre speed plus spin times the reach).
fn fastest(w: &World) -> Real {
    w.bodies()[1..].iter().map(|b| b.linvel.length() + b.angvel.length() * 0.1).fold(0.0, Real::max)
}

/// Steps `seconds`, returning the largest stretch, and the largest speed after `settle` s.
fn run(w: &mut World, seconds: Real, settle: Real) -> (Real, Real) {
    let dt = w.settings.dt;
    let (mut most, mut speed): (Real, Real) = (0.0, 0.0);
    for step in 0..(seconds / dt) as usize {
        w.step();
        most = most.max(stretch(w));
        if step as Real * dt >= settle {
            speed = speed.max(fastest(w));
        }
    }
    (most, speed)
}

#[test]
fn hanging_hundred_to_one_chain_stretches_under_a_percent_and_is_still() {
    // At the defaults (exact joint trees on), sleeping off so that it is watched throughout.
    let mut w = chain("(0, -1, 0)", "sleeping: false");
    assert!(w.settings.exact_joint_trees, "exact joint trees are on by default");
    let (most, speed) = run(&mut w, 10.0, 2.0);
    let end = (w.joint_report(LINKS).anchor_b - Vec3::new(0.0, 4.0, 0.0)).length() / (LINKS as Real * LINK) - 1.0;
    println!(
        "hanging 100:1 chain, 10 s at the defaults: largest stretch {:.4}%, end {:.4}% from its length, fastest point after 2 s {:.3} mm/s",
        most * 100.0,
        end * 100.0,
        speed * 1e3
    );
    assert!(most < 0.01, "stretched {:.3}%", most * 100.0);
    assert!(end.abs() < 0.01, "its end is {:.3}% off", end * 100.0);
    assert!(speed < 0.01, "a link moves at {speed} m/s");
}

#[test]
fn falling_hundred_to_one_chain_holds_together_at_four_eight_and_twelve_substeps() {
    // Released level: it falls and whips through the bottom of its swing, where the light links
    // turn under the ball's full pull like stiff springs (docs/joints.md, *Heavy loads on light
    // links*). Without the pulled links' geometric stiffness it comes apart at four substeps.
    for substeps in [4, 8, 12] {
        let mut w = chain("(1, 0, 0)", &format!("substeps: {substeps}"));
        let (most, _) = run(&mut w, 10.0, 10.0);
        println!("falling 100:1 chain, 10 s at {substeps} substeps: largest stretch {:.4}%", most * 100.0);
        assert!(most < 0.015, "{substeps} substeps: stretched {:.3}%", most * 100.0);
    }
}

/// `benches/chain_1000.ron`: 1,000 links hanging from a fixed point, its top links pulled by
/// some 1,600 N. Their turning under that pull is faster than four substeps resolve; unless it
/// is held back, rounding error grows into a whip that tears the chain open within a second.
#[test]
fn thousand_link_chain_hangs_closed_and_still() {
    let s = Scene::load(format!("{}/benches/chain_1000.ron", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut w = s.build().unwrap();
    let (mut gaps, mut contacts, mut speed): (Real, usize, Real) = (0.0, 0, 0.0);
    for _ in 0..120 {
        w.step();
        gaps = gaps.max((0..w.joints().len()).map(|k| w.joint_report(k).linear_error).sum());
        contacts = contacts.max(w.contacts().len());
        speed = speed.max(w.bodies().iter().map(|b| b.linvel.length() + b.angvel.length() * 0.05).fold(0.0, Real::max));
    }
    println!(
        "1,000-link chain, 2 s at the defaults: gaps summed at most {:.2} mm, contacts at most {contacts}, fastest point {:.3} mm/s",
        gaps * 1e3,
        speed * 1e3
    );
    assert!(gaps < 0.01, "the chain opened: {gaps} m of gaps");
    assert_eq!(contacts, 0, "links fell onto each other");
    assert!(speed < 0.001, "a link moves at {speed} m/s");
}

/// `scenes/chain.ron` is this chain, hanging at rest at the defaults.
#[test]
fn the_chain_lesson_is_the_hanging_hundred_to_one_chain() {
    let s = Scene::load(format!("{}/scenes/chain.ron", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let mut w = s.build().unwrap();
    let ratio = w.bodies()[LINKS + 1].mass() / w.bodies()[1].mass();
    assert!((ratio - 100.0).abs() < 0.1, "mass ratio {ratio}");
    let (most, speed) = run(&mut w, 5.0, 1.0);
    println!("chain.ron, 5 s: largest stretch {:.4}%, fastest point after 1 s {:.3} mm/s", most * 100.0, speed * 1e3);
    assert!(most < 0.01 && speed < 0.01, "stretch {most}, speed {speed} m/s");
}

#[test]
fn one_joint_at_a_time_the_hanging_chain_does_not_hold() {
    // The setting that fixes it: off, each soft joint is solved on its own and the light links
    // stretch under the ball.
    let mut w = chain("(0, -1, 0)", "sleeping: false, exact_joint_trees: false");
    let (most, _) = run(&mut w, 3.0, 3.0);
    println!("hanging 100:1 chain, joints one at a time: largest stretch {:.2}%", most * 100.0);
    assert!(most > 0.05, "stretched only {:.3}%", most * 100.0);
}

/// A world copied mid-run (a fork, the A/B's B side, a snapshot) steps on as the original does:
/// the copy keeps the step's joint forest but not the working memory its factorisation fills,
/// and must make that again rather than read it.
#[test]
fn a_copy_of_a_swinging_chain_steps_on_as_the_original_does() {
    let mut w = chain("(1, 0, 0)", "");
    for _ in 0..30 {
        w.step();
    }
    let mut copy = w.clone();
    for step in 0..30 {
        w.step();
        copy.step();
        assert_eq!(copy.hash(), w.hash(), "step {step} after the copy");
    }
}
