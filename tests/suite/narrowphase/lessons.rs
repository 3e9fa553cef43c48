//! The narrow-phase lesson scenes (scenes/narrowphase_*.ron): each holds a static body and a
//! kinematic one to drag, starts in contact, and both methods explain it step by step.

use collidoscope::math::Vec3;
use collidoscope::narrowphase::{NarrowPhaseKind, Tolerance, explain};
use collidoscope::{BodyKind, Scene};

#[test]
fn every_lesson_starts_in_contact_and_explains_itself() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes");
    let mut lessons: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("narrowphase_"))
        .collect();
    lessons.sort();
    assert!(lessons.len() >= 6, "{lessons:?}");
    for path in lessons {
        let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!scene.description.is_empty(), "{path:?}");
        let world = scene.build().unwrap();
        let b = world.bodies();
        assert_eq!(b.len(), 2, "{path:?}");
        assert_eq!((b[0].kind, b[1].kind), (BodyKind::Static, BodyKind::Kinematic), "{path:?}");
        let tol = Tolerance { margin: 0.0, epsilon: scene.settings.contact_epsilon };
        for method in NarrowPhaseKind::ALL.iter().copied() {
            let t = explain(&b[0].shape, &b[0].pose, &b[1].shape, &b[1].pose, tol, method);
            let m = t.manifold.unwrap_or_else(|| panic!("{path:?} {method:?}: no contact at the start"));
            assert!(m.max_depth() > 0.0 && m.max_depth() < 0.2, "{path:?} {method:?} {m:?}");
            assert!(!t.gjk_simplices.is_empty() && !t.minkowski.is_empty(), "{path:?}");
            // Polytopes overlap, so EPA ran; rounded shapes overlap only by their radii here.
            let polytopes = [&b[0].shape, &b[1].shape].iter().all(|s| s.core_support(Vec3::X).1 == 0.0);
            assert_eq!(!t.epa.is_empty(), polytopes, "{path:?}");
        }
    }
}
