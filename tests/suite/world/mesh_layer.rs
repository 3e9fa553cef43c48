//! The mesh debug layer: the mid phase's BVH nodes and height-field cells, and each mesh
//! contact's raw normal beside the one the solver uses.

use collidoscope::debug_draw::{DebugDraw, DebugLine, DrawCategory};
use collidoscope::math::Vec3;
use collidoscope::narrowphase::Tolerance;
use collidoscope::narrowphase::mesh::{InternalEdges, MERGE_COS, contact_pair_manifolds};
use collidoscope::scene::Scene;
use collidoscope::world::{BVH_LEAF_COLOR, CORRECTED_NORMAL_COLOR, RAW_NORMAL_COLOR, World};

fn lab(mode: InternalEdges) -> World {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ghost_lab.ron")).unwrap();
    let mut w = scene.build().unwrap();
    w.settings.internal_edges = mode;
    w
}

fn mesh_layer(w: &World) -> DebugDraw {
    let mut d = DebugDraw::default();
    d.set_filter(|c| c == DrawCategory::Mesh);
    w.debug_draw(&mut d);
    assert!(d.lines.iter().all(|l| l.category == DrawCategory::Mesh));
    d
}

fn colored(d: &DebugDraw, color: [f32; 4]) -> Vec<DebugLine> {
    d.lines.iter().filter(|l| l.color == color).copied().collect()
}

/// The mesh pairs' manifold points at the bodies' current poses, made as the layer makes them.
fn pair_points(w: &World) -> usize {
    let b = w.bodies();
    let tol = Tolerance { margin: w.settings.speculative_distance, epsilon: w.settings.contact_epsilon };
    w.pairs()
        .iter()
        .map(|&(i, j)| {
            let (bi, bj) = (&b[i as usize], &b[j as usize]);
            let all = contact_pair_manifolds(&bi.shape, &bi.pose, &bj.shape, &bj.pose, tol, w.settings.internal_edges);
            all.as_slice().iter().map(|m| m.points().len()).sum::<usize>()
        })
        .sum()
}

fn dir(l: &DebugLine) -> Vec3 {
    (l.b - l.a).normalize()
}

#[test]
fn without_correction_each_manifold_point_is_a_raw_triangle_contact() {
    let mut w = lab(InternalEdges::None);
    for _ in 0..60 {
        w.step();
    }
    let d = mesh_layer(&w);
    let (corrected, raw) = (colored(&d, CORRECTED_NORMAL_COLOR), colored(&d, RAW_NORMAL_COLOR));
    assert!(pair_points(&w) > 0, "the lab's bodies touch their meshes");
    assert_eq!(corrected.len(), pair_points(&w));
    assert!(raw.len() >= corrected.len(), "{} raw, {} corrected", raw.len(), corrected.len());
    for c in &corrected {
        assert!(
            // Points of other triangles join the deepest one's normal within MERGE_COS.
            raw.iter().any(|r| r.a.distance(c.a) < 1e-5 && dir(r).dot(dir(c)) > MERGE_COS - 1e-4),
            "with no correction, a manifold point not among the raw triangle contacts: {c:?}"
        );
    }
    // The mid phase's leaves under the bodies: on the triangle meshes and the height field.
    let leaves = colored(&d, BVH_LEAF_COLOR).len();
    assert!(leaves >= 3 * 12, "{leaves} leaf edges");
    // Nothing is drawn when the layer is off.
    let mut off = DebugDraw::default();
    off.set_filter(|c| c != DrawCategory::Mesh);
    w.debug_draw(&mut off);
    assert!(off.lines.iter().all(|l| l.category != DrawCategory::Mesh));
}

#[test]
fn voided_features_show_raw_edge_normals_the_manifold_does_not_use() {
    let mut w = lab(InternalEdges::VoidedFeatures);
    let mut turned = 0;
    for _ in 0..180 {
        w.step();
        let d = mesh_layer(&w);
        let (corrected, raw) = (colored(&d, CORRECTED_NORMAL_COLOR), colored(&d, RAW_NORMAL_COLOR));
        assert_eq!(corrected.len(), pair_points(&w));
        // A raw normal more than 10° from every corrected normal: a ghost contact corrected.
        turned += raw.iter().filter(|r| corrected.iter().all(|c| dir(c).dot(dir(r)) < 0.985)).count();
    }
    assert!(turned > 0, "the lab's internal edges must show a correction");
}
