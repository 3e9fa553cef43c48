//! Every broad phase finds exactly the pairs brute force finds, on random, clustered and
//! mixed-size scenes, static and moving.

use super::common::*;
use collidoscope::geometry::Aabb;
use collidoscope::math::{Real, Vec3};
use proptest::prelude::*;

proptest! {
    #![proptest_config(config(96))]

    #[test]
    fn static_scenes_match_brute_force(aabbs in scene(160), cell in cell_size()) {
        for kind in variants() {
            check_update(create(kind).as_mut(), &aabbs, cell, "static scene")?;
        }
    }

    /// Bodies drift (coherent motion, the incremental paths), some jump far (re-insertion,
    /// octree growth), and bodies are added between steps.
    #[test]
    fn moving_scenes_match_brute_force(
        start in scene(120),
        moves in prop::collection::vec((any::<u64>(), 0.0..0.5f32, prop::bool::weighted(0.05)), 6),
        extra in prop::collection::vec(any_box(), 0..10),
        cell in cell_size(),
    ) {
        for kind in variants() {
            let mut bp = create(kind);
            let mut aabbs = start.clone();
            for (step, &(seed, speed, jump)) in moves.iter().enumerate() {
                let mut rng = collidoscope::scene::SplitMix64::new(seed);
                for b in aabbs.iter_mut() {
                    let d = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0));
                    let far = if jump && rng.next_real() < 0.2 { 300.0 } else { 1.0 };
                    *b = Aabb::new(b.min + d * speed * far, b.max + d * speed * far);
                }
                if step == 3 {
                    aabbs.extend(&extra);
                }
                check_update(bp.as_mut(), &aabbs, cell, &format!("step {step}"))?;
            }
        }
    }
}

proptest! {
    #![proptest_config(config(32))]

    /// A few boxes move between updates, and the caller names them (with some that did not
    /// move): asked for the pairs with a named box alone, every structure gives brute force's
    /// pairs with a named box, in canonical order, and counts the whole update's overlaps.
    #[test]
    fn pairs_with_named_boxes_match_brute_force(
        start in scene(300),
        moves in prop::collection::vec((any::<u64>(), 1usize..6), 5),
        cell in cell_size(),
    ) {
        for kind in variants() {
            let mut bp = create(kind);
            let mut aabbs = start.clone();
            check_update(bp.as_mut(), &aabbs, cell, "first update")?;
            for (step, &(seed, count)) in moves.iter().enumerate() {
                let mut rng = collidoscope::scene::SplitMix64::new(seed);
                let mut named: Vec<u32> = (0..count).map(|_| (rng.next_u64() % aabbs.len() as u64) as u32).collect();
                named.sort_unstable();
                named.dedup();
                // The first named box does not move.
                for &i in &named[1..] {
                    let b = &mut aabbs[i as usize];
                    let d = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0)) * 0.4;
                    *b = Aabb::new(b.min + d, b.max + d);
                }
                let mut pairs = vec![(7, 7)];
                let stats = bp.update_touching(&aabbs, &params(cell), &named, &mut pairs);
                let all = reference(&aabbs);
                let expect: Vec<_> = all.iter().copied().filter(|(i, j)| named.contains(i) || named.contains(j)).collect();
                prop_assert_eq!(&pairs, &expect, "{}, step {}, named {:?}", bp.kind().label(), step, named);
                prop_assert_eq!(stats.true_overlaps as usize, all.len(), "{}, step {}", bp.kind().label(), step);
            }
        }
    }
}

/// A body that spans many cells still yields each pair once, and a huge one is tested against
/// everything through the oversized list.
#[test]
fn spanning_and_oversized_bodies_give_each_pair_once() {
    let mut aabbs: Vec<Aabb> = (0..20)
        .map(|i| Aabb::from_center_half_extents(Vec3::new(i as Real * 0.9, 0.0, 0.0), Vec3::splat(0.5)))
        .collect();
    aabbs.push(Aabb::new(Vec3::new(-1.0, -0.2, -0.2), Vec3::new(20.0, 0.2, 0.2))); // a rod over 22 cells
    aabbs.push(Aabb::new(Vec3::splat(-1000.0), Vec3::splat(1000.0))); // a floor-sized box
    aabbs.push(Aabb::new(Vec3::splat(-2000.0), Vec3::splat(2000.0)));
    for kind in variants() {
        check_update(create(kind).as_mut(), &aabbs, 1.0, "rod and huge boxes").unwrap();
    }
}

/// Non-finite boxes never overlap anything under brute force's test, and must not break the
/// structures either.
#[test]
fn non_finite_boxes_are_survived() {
    let mut aabbs: Vec<Aabb> =
        (0..10).map(|i| Aabb::from_center_half_extents(Vec3::splat(i as Real), Vec3::splat(0.7))).collect();
    aabbs.push(Aabb::new(Vec3::splat(Real::NAN), Vec3::splat(1.0)));
    aabbs.push(Aabb::new(Vec3::splat(Real::NEG_INFINITY), Vec3::splat(Real::INFINITY)));
    for kind in variants() {
        let mut bp = create(kind);
        check_update(bp.as_mut(), &aabbs, 1.0, "nan and infinite boxes").unwrap();
        aabbs[10] = Aabb::from_center_half_extents(Vec3::splat(3.0), Vec3::splat(0.5));
        check_update(bp.as_mut(), &aabbs, 1.0, "nan box became finite").unwrap();
        aabbs[10] = Aabb::new(Vec3::splat(Real::NAN), Vec3::splat(1.0));
    }
}

/// Fewer bodies than last time (a new scene in the same world) is a rebuild, not a crash.
#[test]
fn shrinking_and_emptying_the_scene() {
    let many: Vec<Aabb> = (0..50)
        .map(|i| Aabb::from_center_half_extents(Vec3::new(i as Real * 0.5, 0.0, 0.0), Vec3::splat(0.4)))
        .collect();
    for kind in variants() {
        let mut bp = create(kind);
        for n in [50, 10, 0, 1, 30] {
            check_update(bp.as_mut(), &many[..n], 1.0, &format!("{n} bodies")).unwrap();
        }
    }
}
