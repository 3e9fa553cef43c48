//! Picking through the broad phase finds every body, including ones that moved or were added
//! since the structure was last updated, whichever structure runs.

use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::geometry::Ray;
use collidoscope::math::{Pose, Vec3};
use collidoscope::{Body, BodyKind, Material, Settings, Shape, World};

#[test]
fn picking_sees_moved_and_added_bodies_with_every_broad_phase() {
    for &kind in BroadPhaseKind::ALL {
        let mut w = World::new(Settings { broad_phase: kind, gravity: Vec3::ZERO, ..Settings::default() });
        for i in 0..50 {
            let p = Vec3::new((i % 10) as f32 * 3.0, 0.0, (i / 10) as f32 * 3.0);
            w.add_body(Body::new(
                BodyKind::Dynamic,
                Shape::sphere(0.5),
                Pose::from_translation(p),
                Material::default(),
            ));
        }
        let down = |x: f32, z: f32| Ray::new(Vec3::new(x, 10.0, z), -Vec3::Y);
        // Before any step the structure is empty: picking still works.
        assert_eq!(w.ray_cast(&down(3.0, 0.0), 100.0).map(|h| h.0), Some(1), "{kind:?} before stepping");
        w.step();
        assert_eq!(w.ray_cast(&down(6.0, 3.0), 100.0).map(|h| h.0), Some(12), "{kind:?}");
        // Move a body far away after the step, and add one where nothing was.
        w.body_mut(7).pose.translation = Vec3::new(100.0, 0.0, 100.0);
        let added = w.add_body(Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::splat(0.5)),
            Pose::from_translation(Vec3::new(-50.0, 0.0, -50.0)),
            Material::default(),
        ));
        assert_eq!(w.ray_cast(&down(100.0, 100.0), 100.0).map(|h| h.0), Some(7), "{kind:?} moved body");
        assert_eq!(w.ray_cast(&down(21.0, 0.0), 100.0).map(|h| h.0), None, "{kind:?} old place is empty");
        assert_eq!(w.ray_cast(&down(-50.0, -50.0), 100.0).map(|h| h.0), Some(added), "{kind:?} added body");
        let hit = w.ray_cast(&down(-50.0, -50.0), 100.0).unwrap().1;
        assert!((hit.t - 9.5).abs() < 1e-4 && (hit.normal - Vec3::Y).length() < 1e-5, "{kind:?} {hit:?}");
    }
}
