//! Box and ray queries against every structure agree with testing every box, and the debug
//! drawings show what the structures hold.

use super::common::*;
use collidoscope::broadphase::{BroadPhaseDrawOptions, BroadPhaseKind};
use collidoscope::debug_draw::{DebugDraw, DrawCategory};
use collidoscope::geometry::{Aabb, Ray};
use collidoscope::math::{Real, Vec3};
use proptest::prelude::*;

fn sorted_unique(mut v: Vec<u32>, what: &str) -> Result<Vec<u32>, TestCaseError> {
    let n = v.len();
    v.sort_unstable();
    v.dedup();
    prop_assert_eq!(n, v.len(), "duplicates in {}", what);
    Ok(v)
}

fn ray() -> impl Strategy<Value = (Ray, Real)> {
    let axis_or_any = prop_oneof![
        2 => (-1.0..1.0f32, -1.0..1.0f32, -1.0..1.0f32).prop_map(|(x, y, z)| Vec3::new(x, y, z)),
        1 => (0usize..3, prop::bool::ANY).prop_map(|(a, neg)| {
            let mut d = Vec3::ZERO;
            d[a] = if neg { -1.0 } else { 1.0 };
            d
        }),
        1 => Just(Vec3::ZERO),
    ];
    let max_t = prop_oneof![Just(0.0), Just(1.0), Just(80.0), Just(Real::INFINITY), 0.0..200.0f32];
    ((-60.0..60.0f32, -60.0..60.0f32, -60.0..60.0f32), axis_or_any, max_t)
        .prop_map(|((x, y, z), d, t)| (Ray::new(Vec3::new(x, y, z), d), t))
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn queries_match_a_full_scan(
        aabbs in scene(120),
        cell in cell_size(),
        boxes in prop::collection::vec(any_box(), 1..6),
        rays in prop::collection::vec(ray(), 1..6),
    ) {
        for kind in BroadPhaseKind::ALL.iter().copied() {
            let mut bp = create(kind);
            bp.update(&aabbs, &params(cell), &mut Vec::new());
            for q in &boxes {
                let mut got = Vec::new();
                bp.query_aabb(&aabbs, q, &mut got);
                let got = sorted_unique(got, kind.label())?;
                let expect: Vec<u32> = (0..aabbs.len() as u32).filter(|&i| aabbs[i as usize].overlaps(q)).collect();
                prop_assert_eq!(got, expect, "{} box query {:?}", kind.label(), q);
            }
            for (r, max_t) in &rays {
                let mut got = Vec::new();
                bp.query_ray(&aabbs, r, *max_t, &mut got);
                let got = sorted_unique(got, kind.label())?;
                let expect: Vec<u32> = (0..aabbs.len() as u32)
                    .filter(|&i| aabbs[i as usize].ray_interval(r.origin, r.dir, *max_t).is_some())
                    .collect();
                prop_assert_eq!(got, expect, "{} ray {:?} up to {}", kind.label(), r, max_t);
            }
        }
    }
}

/// Before any update (a world that has not stepped) queries still answer from the boxes given.
#[test]
fn queries_before_the_first_update_scan() {
    let aabbs = [Aabb::new(Vec3::ZERO, Vec3::ONE), Aabb::new(Vec3::splat(5.0), Vec3::splat(6.0))];
    for &kind in BroadPhaseKind::ALL {
        let bp = create(kind);
        let mut hits = Vec::new();
        bp.query_ray(&aabbs, &Ray::new(Vec3::splat(-1.0), Vec3::ONE), 100.0, &mut hits);
        hits.sort_unstable();
        assert_eq!(hits, [0, 1], "{}", kind.label());
        let mut hits = Vec::new();
        bp.query_aabb(&aabbs, &Aabb::new(Vec3::splat(0.5), Vec3::splat(2.0)), &mut hits);
        assert_eq!(hits, [0], "{}", kind.label());
    }
}

fn lines(kind: BroadPhaseKind, aabbs: &[Aabb], max_depth: Option<u32>) -> usize {
    let mut bp = create(kind);
    bp.update(aabbs, &params(1.0), &mut Vec::new());
    let mut draw = DebugDraw::default();
    bp.debug_draw_with(aabbs, &BroadPhaseDrawOptions { max_depth }, &mut draw);
    assert!(draw.lines.iter().all(|l| l.category == DrawCategory::BroadPhase));
    draw.lines.len()
}

#[test]
fn drawings_show_the_structure() {
    let aabbs: Vec<Aabb> = (0..200)
        .map(|i| {
            let p = Vec3::new((i % 10) as Real, ((i / 10) % 5) as Real, (i / 50) as Real) * 1.3;
            Aabb::from_center_half_extents(p, Vec3::splat(0.4))
        })
        .collect();
    // The grid draws one box of 12 edges per occupied cell: its `nodes` counter.
    let mut grid = create(BroadPhaseKind::Grid);
    let stats = grid.update(&aabbs, &params(1.0), &mut Vec::new());
    assert_eq!(lines(BroadPhaseKind::Grid, &aabbs, None), 12 * stats.nodes as usize);
    // Trees draw only the root at depth 0, and more the deeper they may go.
    for kind in [BroadPhaseKind::Bvh, BroadPhaseKind::Octree] {
        assert_eq!(lines(kind, &aabbs, Some(0)), 12, "{}", kind.label());
        let (two, all) = (lines(kind, &aabbs, Some(2)), lines(kind, &aabbs, None));
        assert!(12 < two && two < all, "{}: {two} lines to depth 2, {all} in all", kind.label());
    }
    // Sweep and prune: each interval through its body and again on a row below the scene.
    assert_eq!(lines(BroadPhaseKind::SweepAndPrune, &aabbs, None), 2 * aabbs.len());
    assert_eq!(lines(BroadPhaseKind::BruteForce, &aabbs, None), 0);
}
