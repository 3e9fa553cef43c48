//! Joints in rapier3d: every kind maps onto rapier's impulse joints, and rapier's pendulum
//! swings at the closed-form period too.
#![cfg(feature = "rapier")]

use super::closed_form::{G, pendulum, swing_period, to_world};
use collidoscope::dynamics::joints::{DistanceMode, JointKind, Motor};
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::peer::{Engine, PeerWorld, RapierWorld};
use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};

#[test]
fn rapier_small_angle_pendulum_period_is_two_pi_root_l_over_g() {
    for length in [0.5, 1.0, 2.0] {
        let w = pendulum(Settings { sleeping: false, ..Settings::default() }, length, 3.0);
        let x0 = w.bodies()[0].pose.translation.x as f64;
        let mut rw = RapierWorld::from_world(&w);
        let measured = swing_period(w.settings.dt as f64, x0, 10, || {
            rw.step();
            rw.bodies()[0].pose.translation.x as f64
        });
        let exact = 2.0 * std::f64::consts::PI * (length as f64 / G as f64).sqrt();
        let err = (measured / exact - 1.0).abs();
        println!("rapier, L = {length} m: period {measured:.5} s, 2π√(L/g) = {exact:.5} s, error {:.3}%", err * 100.0);
        assert!(err < 0.005, "L = {length} m: rapier's period {measured} s against {exact} s");
        // The rod held its length.
        let r = (rw.bodies()[0].pose.translation - Vec3::new(0.0, 3.0, 0.0)).length();
        assert!((r - length).abs() < 0.01 * length, "rapier's rod is {r} m long");
    }
}

/// A body for each joint kind, 3 m apart along x so that none touches another, each hung from
/// or held by the world; the last two pulled by a joint that breaks and one that holds.
pub(super) fn every_kind() -> (World, Vec<&'static str>) {
    let mut w = World::new(Settings { sleeping: false, ..Settings::default() });
    let motor = Some(Motor { speed: 2.0, max_force: 50.0 });
    let kinds: Vec<(&str, JointKind)> = vec![
        ("fixed", JointKind::Fixed),
        ("ball", JointKind::Ball { cone: Some(0.5), twist: Some((-0.3, 0.3)) }),
        ("hinge", JointKind::Hinge { limits: Some((-1.0, 1.0)), motor }),
        ("slider", JointKind::Prismatic { limits: Some((-0.2, 0.2)), motor }),
        ("rod", JointKind::Distance { length: 1.0, mode: DistanceMode::Rod }),
        ("rope", JointKind::Distance { length: 1.0, mode: DistanceMode::Rope }),
        ("spring", JointKind::Distance { length: 1.0, mode: DistanceMode::Spring { stiffness: 200.0, damping: 40.0 } }),
        ("breaks", JointKind::Ball { cone: None, twist: None }),
        ("holds", JointKind::Ball { cone: None, twist: None }),
    ];
    let mut names = Vec::new();
    for (k, (name, kind)) in kinds.into_iter().enumerate() {
        let pivot = Vec3::new(3.0 * k as Real, 3.0, 0.0);
        let at = pivot - Vec3::new(0.0, 1.0, 0.0);
        let b = w.add_body(Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::splat(0.1)),
            Pose::from_translation(at),
            Material::default(),
        ));
        let mut j = to_world(kind, pivot, b, Vec3::new(0.0, 1.0, 0.0));
        if matches!(kind, JointKind::Distance { .. }) {
            j.anchor_b = Vec3::ZERO;
        }
        // The slider's axis across gravity, the others' (hinge, ball's cone) along it.
        j.axis_a = if name == "slider" { Vec3::X } else { Vec3::NEG_Y };
        j.axis_b = j.axis_a;
        j.collide = name == "rope";
        j.break_force = match name {
            "breaks" => Some(1.0),
            "holds" => Some(1.0e4),
            _ => None,
        };
        j.name = Some(name.into());
        w.add_joint(j).unwrap();
        names.push(name);
    }
    (w, names)
}

#[test]
fn every_joint_kind_maps_onto_rapier_and_holds_there() {
    let (w, names) = every_kind();
    let Ok(PeerWorld::Rapier(mut rw)) = PeerWorld::new(Engine::Rapier, &w) else {
        panic!("rapier refused a jointed scene")
    };
    let spring_at = w.bodies()[6].pose.translation;
    for _ in 0..120 {
        rw.step();
    }
    let mirror = rw.world();
    for (k, name) in names.iter().enumerate() {
        let r = mirror.joint_report(k);
        println!(
            "rapier {name}: gap {:.5} m, coordinate {:.4}, acts {}",
            r.linear_error,
            r.coordinate,
            rw.joint_acts(k)
        );
        if *name == "breaks" {
            assert!(!rw.joint_acts(k), "a 1 N break force held a 8 kg body");
            assert!(mirror.bodies()[k].pose.translation.y < 0.0, "the broken joint still holds it");
            continue;
        }
        assert!(rw.joint_acts(k), "{name} broke");
        // (A spring's error is its stretch, checked below.)
        if *name != "spring" {
            assert!(r.linear_error < 0.01, "{name}: anchors {} m apart", r.linear_error);
        }
    }
    let b = mirror.bodies();
    // Fixed: still where it was. Hinge: the motor drives it about the vertical axis until the
    // limit stops it. Slider: the motor drives it to the upper limit.
    assert!((b[0].pose.translation - w.bodies()[0].pose.translation).length() < 0.01, "fixed moved");
    let hinge = mirror.joint_report(2).coordinate;
    assert!((hinge - 1.0).abs() < 0.02, "the hinge motor left it at {hinge} rad, short of its 1 rad limit");
    let slide = mirror.joint_report(3).coordinate;
    assert!((slide - 0.2).abs() < 0.01, "the slider motor left it at {slide} m, not at its 0.2 m limit");
    // Rod at its length; the rope hangs at its; the spring stretched by m g / k.
    for k in [4, 5] {
        let len = mirror.joint_report(k).coordinate;
        assert!((len - 1.0).abs() < 0.01, "{}: {len} m", names[k]);
    }
    let sag = spring_at.y - b[6].pose.translation.y;
    let expected = b[6].mass() * G / 200.0;
    println!("rapier spring: sagged {sag:.4} m, m g / k = {expected:.4} m");
    assert!(sag > 0.5 * expected && sag < 1.5 * expected, "the spring sagged {sag} m");
}
