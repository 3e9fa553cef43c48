//! Issue 19, internal edges: each mode on hand-made triangle pairs (a flat seam, a convex
//! ridge, a concave crease, a boundary edge), and the setting's validation.

use collidoscope::geometry::{Shape, TriangleMesh};
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::Tolerance;
use collidoscope::narrowphase::mesh::{InternalEdges, MeshRef, Touch, classify, contact_mesh_shape_with};
use collidoscope::world::Settings;

const TOL: Tolerance = Tolerance { margin: 0.02, epsilon: 1e-6 };

/// Two triangles sharing the edge from (0, 0, -1) to (0, 0, 1) (edge 0 of the first, running
/// from corner 0 to corner 1); the second is tilted by `bend` radians about that edge (positive: bends down, a
/// convex ridge; negative: a concave crease).
fn pair(bend: Real) -> TriangleMesh {
    let (s, c) = bend.sin_cos();
    let v = vec![
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(-2.0, 0.0, 0.0),
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(2.0 * c, -2.0 * s, 0.0),
    ];
    TriangleMesh::new(v, vec![[0, 2, 1], [0, 3, 2]]).unwrap()
}

/// The up normal tilted by `angle` radians towards `+x` (across the shared edge).
fn tilt(angle: Real) -> Vec3 {
    Vec3::new(angle.sin(), angle.cos(), 0.0)
}

fn classify_first(m: &TriangleMesh, nc: Vec3) -> (Touch, bool) {
    let mesh = MeshRef::Triangles(m);
    classify(&m.triangle(0), m.normals()[0], &mesh.edges_of(0), nc)
}

#[test]
fn flat_seam_edge_is_inactive() {
    let m = pair(0.0);
    assert!((m.normals()[0] - Vec3::Y).length() < 1e-6 && (m.normals()[1] - Vec3::Y).length() < 1e-6);
    // Leaning over the shared edge (towards +x): not allowed, the edge is flat.
    let (touch, ok) = classify_first(&m, tilt(0.3));
    assert!(matches!(touch, Touch::Edge(_)), "{touch:?}");
    assert!(!ok);
    // The face normal itself is always allowed.
    assert_eq!(classify_first(&m, Vec3::Y), (Touch::Face, true));
}

#[test]
fn convex_ridge_allows_normals_between_its_faces_only() {
    let m = pair(0.5);
    let (touch, ok) = classify_first(&m, tilt(0.25));
    assert!(matches!(touch, Touch::Edge(_)) && ok, "between the faces: {touch:?} {ok}");
    let (_, ok) = classify_first(&m, tilt(0.8));
    assert!(!ok, "beyond the neighbour's normal");
    // A ridge flatter than the active angle is treated as flat.
    let (_, ok) = classify_first(&pair(0.05), tilt(0.02));
    assert!(!ok, "a 3° ridge is inactive");
}

#[test]
fn concave_crease_edge_is_inactive() {
    let (_, ok) = classify_first(&pair(-0.5), tilt(0.2));
    assert!(!ok);
}

#[test]
fn boundary_edge_is_active() {
    // Leaning over the first triangle's outer edge (towards -x): a boundary, any normal goes.
    let (touch, ok) = classify_first(&pair(0.0), tilt(-0.5));
    assert!(!matches!(touch, Touch::Face) && ok, "{touch:?} {ok}");
}

/// A sphere over the second triangle, 5 cm beyond the flat seam, sunk 5 mm: the first
/// triangle's contact is on the seam with a tilted normal.
fn sphere_over_seam(mode: InternalEdges) -> collidoscope::narrowphase::Manifold {
    let m = pair(0.0);
    let s = Shape::sphere(0.5);
    let pose = Pose::from_translation(Vec3::new(0.05, 0.495, 0.0));
    contact_mesh_shape_with(MeshRef::Triangles(&m), &Pose::IDENTITY, &s, &pose, TOL, mode).unwrap()
}

#[test]
fn flat_seam_sphere_per_mode() {
    let raw = sphere_over_seam(InternalEdges::None);
    let adj = sphere_over_seam(InternalEdges::AdjacencyNormals);
    let void = sphere_over_seam(InternalEdges::VoidedFeatures);
    for m in [&raw, &adj, &void] {
        assert!((m.normal - Vec3::Y).length() < 1e-5, "{m:?}");
    }
    // Raw: the face point and the seam point (its depth r - |(0.05, 0.495)| over its cosine).
    assert_eq!(raw.len(), 2, "{raw:?}");
    // Voided: the seam point is covered by the second triangle's face contact and dropped.
    assert_eq!(void.len(), 1, "{void:?}");
    assert!((void.points()[0].depth - 0.005).abs() < 1e-5, "{void:?}");
    // Adjacency normals: the seam point takes the face normal; its depth is the overlap of the
    // same witness points along it, shallower than the raw one.
    assert_eq!(adj.len(), 2, "{adj:?}");
    let shallow = |m: &collidoscope::narrowphase::Manifold| m.points().iter().map(|p| p.depth).fold(1.0, Real::min);
    assert!(shallow(&adj) < shallow(&raw), "{adj:?} vs {raw:?}");
}

#[test]
fn setting_is_validated_and_named() {
    let mut s = Settings::default();
    assert_eq!(s.internal_edges, InternalEdges::VoidedFeatures);
    s.set_field("internal_edges", "AdjacencyNormals").unwrap();
    assert_eq!(s.internal_edges, InternalEdges::AdjacencyNormals);
    let e = s.set_field("internal_edges", "Smooth").unwrap_err().to_string();
    assert!(e.contains("internal_edges") && e.contains("Smooth"), "{e}");
    assert_eq!(s.internal_edges, InternalEdges::AdjacencyNormals, "a bad value changes nothing");
}
