//! Issue 2's physical checks: resting heights and bounce heights match physics.

use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};

fn world_with_floor(settings: Settings) -> World {
    let mut w = World::new(settings);
    let floor = Body::new(
        BodyKind::Static,
        Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)),
        Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        Material::default(),
    );
    w.add_body(floor);
    w
}

fn steps(w: &mut World, seconds: Real) {
    for _ in 0..(seconds / w.settings.dt).round() as usize {
        w.step();
    }
}

#[test]
fn sphere_comes_to_rest_at_its_radius() {
    let mut w = world_with_floor(Settings::default());
    let r = 0.37;
    w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::sphere(r),
        Pose::from_translation(Vec3::Y * 2.0),
        Material::default(),
    ));
    steps(&mut w, 4.0);
    let b = &w.bodies()[1];
    let slop = w.settings.slop;
    assert!((b.pose.translation.y - r).abs() <= slop, "rest height {} vs radius {r}", b.pose.translation.y);
    assert!(b.linvel.length() < 0.05, "still moving: {}", b.linvel);
}

#[test]
fn box_comes_to_rest_face_down_at_its_half_height() {
    let mut w = world_with_floor(Settings::default());
    let h = Vec3::new(0.6, 0.25, 0.4);
    // Dropped tilted so it has to settle onto a face.
    let pose = Pose::new(Vec3::new(0.0, 1.5, 0.0), Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.5, 0.2));
    w.add_body(Body::new(BodyKind::Dynamic, Shape::cuboid(h), pose, Material::default()));
    steps(&mut w, 5.0);
    let b = &w.bodies()[1];
    let up = b.pose.rotation.inverse() * Vec3::Y;
    // Face down: some local axis is (anti)parallel to world up; the height is that axis's half extent.
    let axis = up.abs().max_position();
    assert!(up.abs()[axis] > 0.999, "not face down: local up {up}");
    let slop = w.settings.slop;
    assert!(
        (b.pose.translation.y - h[axis]).abs() <= slop,
        "rest height {} vs half height {}",
        b.pose.translation.y,
        h[axis]
    );
}

/// Drops a ball from `h0` and returns the highest point of its centre after the first bounce.
fn rebound_height(restitution: Real, h0: Real) -> Real {
    let mut w = world_with_floor(Settings { sleeping: false, ..Settings::default() });
    let r = 0.1;
    let mat = Material { restitution, friction: 0.0, density: 1000.0 };
    w.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(r), Pose::from_translation(Vec3::Y * (h0 + r)), mat));
    let mut bounced = false;
    let mut peak: Real = 0.0;
    for _ in 0..600 {
        w.step();
        let b = &w.bodies()[1];
        if b.linvel.y > 0.0 {
            bounced = true;
        }
        if bounced {
            peak = peak.max(b.pose.translation.y - r);
            if b.linvel.y < 0.0 {
                break;
            }
        }
    }
    peak
}

#[test]
fn bounce_heights_match_restitution() {
    let h0 = 1.0;
    // Rebound height is e² h0.
    let high = rebound_height(0.8, h0);
    assert!((high - 0.64 * h0).abs() <= 0.1 * 0.64 * h0, "e = 0.8: rebound {high}, expected {}", 0.64 * h0);
    let none = rebound_height(0.0, h0);
    assert!(none <= 0.01, "e = 0: rebound {none}, expected none");
}
