//! The counters each structure reports mean what they say.

use super::common::*;
use collidoscope::broadphase::{BroadPhase, BroadPhaseKind, Bvh, Sap};
use collidoscope::geometry::Aabb;
use collidoscope::math::{Real, Vec3};

fn cube(x: Real, y: Real, z: Real, h: Real) -> Aabb {
    Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::splat(h))
}

#[test]
fn brute_force_counts_every_pair_as_a_candidate() {
    let aabbs =
        [cube(0.0, 0.0, 0.0, 1.0), cube(1.5, 0.0, 0.0, 1.0), cube(9.0, 0.0, 0.0, 1.0), cube(20.0, 0.0, 0.0, 1.0)];
    let s = create(BroadPhaseKind::BruteForce).update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!((s.candidate_pairs, s.true_overlaps, s.aabb_tests), (6, 1, 6));
    assert!((s.false_positive_ratio() - 5.0 / 6.0).abs() < 1e-12);
}

#[test]
fn grid_counts_cells_and_the_fullest_one() {
    // Three small boxes inside cell (0,0,0), one alone in cell (5,5,5); cell size 1.
    let aabbs =
        [cube(0.3, 0.3, 0.3, 0.1), cube(0.5, 0.5, 0.5, 0.1), cube(0.7, 0.7, 0.7, 0.1), cube(5.5, 5.5, 5.5, 0.1)];
    let s = create(BroadPhaseKind::Grid).update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!((s.nodes, s.depth), (2, 3));
    assert_eq!((s.candidate_pairs, s.true_overlaps), (3, 2));
}

#[test]
fn sweep_and_prune_sorts_on_the_widest_axis_and_counts_swaps() {
    // Spread along z: z is the sweep axis.
    let mut aabbs: Vec<Aabb> = (0..10).map(|i| cube(0.0, 0.0, i as Real * 3.0, 0.5)).collect();
    let mut sap = Sap::default();
    let s = sap.update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!(s.depth, 2);
    assert_eq!(sap.axis(), 2);
    // Moving the first box past three others costs three swaps, and nothing else moves.
    aabbs[0] = cube(0.0, 0.0, 10.0, 0.5);
    let s = sap.update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!(s.swaps, 3);
    let s = sap.update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!(s.swaps, 0);
}

#[test]
fn tree_reports_nodes_height_and_moves_only_what_left_its_fat_box() {
    let mut aabbs: Vec<Aabb> = (0..64).map(|i| cube((i % 8) as Real * 2.0, (i / 8) as Real * 2.0, 0.0, 0.5)).collect();
    let mut bvh = Bvh::new(0.2);
    let s = bvh.update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!(s.nodes, 2 * 64 - 1);
    assert!(s.depth >= 6 && s.depth <= 16, "height {} for 64 leaves", s.depth);
    assert_eq!(s.reinserted, 0, "new leaves are insertions, not moves");
    // Within the margin: nothing moves. Beyond it: exactly the bodies that moved.
    aabbs[5] = Aabb::new(aabbs[5].min + Vec3::X * 0.1, aabbs[5].max + Vec3::X * 0.1);
    assert_eq!(bvh.update(&aabbs, &params(1.0), &mut Vec::new()).reinserted, 0);
    aabbs[7] = Aabb::new(aabbs[7].min + Vec3::Y * 0.5, aabbs[7].max + Vec3::Y * 0.5);
    aabbs[9] = Aabb::new(aabbs[9].min - Vec3::Z * 3.0, aabbs[9].max - Vec3::Z * 3.0);
    assert_eq!(bvh.update(&aabbs, &params(1.0), &mut Vec::new()).reinserted, 2);
}

#[test]
fn rotations_keep_a_sorted_insertion_shallow() {
    // Inserting bodies in sorted order degenerates a tree without rotations into a list.
    let aabbs: Vec<Aabb> = (0..1024).map(|i| cube(i as Real, 0.0, 0.0, 0.4)).collect();
    let s = create(BroadPhaseKind::Bvh).update(&aabbs, &params(1.0), &mut Vec::new());
    assert!(s.swaps > 0, "no rotations happened");
    assert!(s.depth <= 30, "height {} for 1024 leaves in a row", s.depth);
}

#[test]
fn octree_grows_to_fit_and_reports_depth() {
    let mut aabbs: Vec<Aabb> = (0..100).map(|i| cube((i % 10) as Real, (i / 10) as Real, 0.0, 0.3)).collect();
    let mut oct = create(BroadPhaseKind::Octree);
    let s = oct.update(&aabbs, &params(1.0), &mut Vec::new());
    assert!(s.depth >= 1 && s.nodes > 1);
    // One body flies far outside the root: the tree grows and still finds its pairs.
    aabbs[0] = cube(5000.0, 0.0, 0.0, 0.3);
    aabbs[1] = cube(5000.2, 0.0, 0.0, 0.3);
    check_update(oct.as_mut(), &aabbs, 1.0, "after growing").unwrap();
}
