//! Jointed bodies under heavy ones: contacts that press a limb against its joint while the
//! joint forest holds it, at the default settings.

use collidoscope::Scene;
use collidoscope::math::Real;

/// Nine ragdolls lying on a floor, and 100 rocks of 20,000 kg/m³ (about 600 kg each, some 600
/// times a hand's mass) dropped on them from 10–40 m: the rocks pin limbs against their joints
/// while the joints pull them back. Nothing may blow up: no body frozen as non-finite, none
/// faster than a rock's fall (28 m/s from 40 m) leaves room for, no joint torn more than half a
/// metre open. (Were a group in outside contact given the joint forest's geometric stiffness,
/// the pull would grow with the stiffness it caused until every body went non-finite:
/// docs/joints.md, *Heavy loads on light links*.)
#[test]
fn ragdolls_crushed_by_heavy_rocks_stay_whole() {
    let mut ragdolls = Vec::new();
    for x in [-2, 0, 2] {
        for z in [-2, 0, 2] {
            ragdolls.push(format!("Ragdoll(origin: ({x}, 0.2, {z}))"));
        }
    }
    let rock = "ConvexHull(points: [(0.3, 0, 0), (-0.26, 0.04, 0.08), (0, 0.28, 0), (0.04, -0.22, 0.04), \
                (0, 0, 0.25), (0.08, 0.08, -0.3), (-0.15, 0.19, -0.15), (0.19, -0.15, 0.19)])";
    let text = format!(
        "(bodies: [(kind: Static, shape: Cuboid(half_extents: (6, 0.05, 6)), position: (0, -0.05, 0))],
          generators: [{}, Rain(count: 100, seed: 23, min: (-3, 10, -3), max: (3, 40, 3), shapes: [{rock}],
                                material: (density: 20000), separated: true)])",
        ragdolls.join(", ")
    );
    let mut w = Scene::parse(&text, "crushed.ron").expect("the scene").build().expect("the world");
    let (mut faults, mut fastest, mut widest): (u32, Real, Real) = (0, 0.0, 0.0);
    let mut worst = (0, 0);
    for _ in 0..400 {
        w.step();
        faults += w.profile().faults;
        for (i, b) in w.bodies().iter().enumerate().filter(|(_, b)| b.is_dynamic()) {
            if b.linvel.length() > fastest {
                fastest = b.linvel.length();
                worst = (w.step_count(), i);
            }
        }
        widest = (0..w.joints().len()).map(|k| w.joint_report(k).linear_error).fold(widest, Real::max);
    }
    assert_eq!(faults, 0, "bodies frozen as non-finite");
    assert!(fastest < 40.0, "body {} at {fastest} m/s at step {}", worst.1, worst.0);
    assert!(widest < 0.5, "a joint {widest} m open");
}
