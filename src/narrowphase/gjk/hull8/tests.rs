//! The hull8 boolean GJK against its portable kernel (bit for bit) and the general GJK.

use super::*;
use crate::geometry::{ConvexHull, Shape};
use crate::narrowphase::distance;
use crate::narrowphase::gjk::closest::{MinkowskiPair, gjk};
use crate::rng::SplitMix64 as Rng;
use std::sync::Arc;

const EPS: Real = 1e-6;

/// A hull of at most 8 vertices: a perturbed box, or a few random points.
fn small_hull(rng: &mut Rng) -> Arc<ConvexHull> {
    let pts: Vec<Vec3> = if rng.next_real() < 0.5 {
        let h = rng.vec3(0.2, 0.7);
        (0..8)
            .map(|i| {
                let s = |bit: usize, e: Real| if i & bit == 0 { -e } else { e };
                Vec3::new(s(1, h.x), s(2, h.y), s(4, h.z)) + rng.unit_vector() * 0.05
            })
            .collect()
    } else {
        let n = 4 + (rng.next_real() * 5.0) as usize;
        (0..n).map(|_| rng.vec3(-0.6, 0.6)).collect()
    };
    Arc::new(ConvexHull::new(&pts).expect("hull"))
}

/// Random pairs of small hulls around the touching distance; warm starts on some.
/// Hull A and its pose, hull B and its pose, the warm-start direction.
type Case = (Arc<ConvexHull>, Pose, Arc<ConvexHull>, Pose, Option<Vec3>);

fn cases(seed: u64, count: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..count)
        .map(|i| {
            let (a, b) = (small_hull(&mut rng), small_hull(&mut rng));
            let pa = Pose::new(rng.vec3(-0.3, 0.3), rng.rotation());
            let pb = Pose::new(rng.vec3(-1.4, 1.4), rng.rotation());
            let start = (i % 3 == 0).then(|| rng.unit_vector());
            (a, pa, b, pb, start)
        })
        .filter(|(a, _, b, _, _)| a.vertex_lanes().is_some() && b.vertex_lanes().is_some())
        .collect()
}

fn lanes(h: &ConvexHull) -> &[[Real; 8]; 3] {
    h.vertex_lanes().expect("at most 8 vertices")
}

/// The general GJK (witness points, full sub-algorithm) as a boolean: the reference.
fn reference(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> bool {
    let g = gjk(&MinkowskiPair::new(a, pa, b, pb), None, None);
    g.overlapping || g.v.length_squared() <= EPS
}

#[test]
fn avx2_and_portable_give_the_same_bits() {
    if Hull8Kernel::best() != Hull8Kernel::Avx2 {
        eprintln!("no AVX2 on this CPU: only the portable kernel runs (checked by the reference test)");
        return;
    }
    for (i, (a, pa, b, pb, start)) in cases(11, 4000).into_iter().enumerate() {
        let fast = intersect_hull8_with(Hull8Kernel::Avx2, lanes(&a), lanes(&b), &pa, &pb, start, EPS);
        let slow = intersect_hull8_with(Hull8Kernel::Portable, lanes(&a), lanes(&b), &pa, &pb, start, EPS);
        let bits = |(hit, v): (bool, Vec3)| (hit, v.to_array().map(Real::to_bits));
        assert_eq!(
            bits(fast),
            bits(slow),
            "case {i}: {:?} {pa:?} {:?} {pb:?} start {start:?}",
            a.vertices(),
            b.vertices()
        );
    }
}

#[test]
fn both_kernels_match_the_general_gjk() {
    let mut both = [0usize; 2];
    for (i, (a, pa, b, pb, start)) in cases(12, 4000).into_iter().enumerate() {
        let (sa, sb) = (Shape::ConvexHull(a.clone()), Shape::ConvexHull(b.clone()));
        let want = reference(&sa, &pa, &sb, &pb);
        for kernel in [Hull8Kernel::Portable, Hull8Kernel::best()] {
            let got = intersect_hull8_with(kernel, lanes(&a), lanes(&b), &pa, &pb, start, EPS).0;
            let d = distance(&sa, &pa, &sb, &pb).distance;
            assert!(
                got == want || d.abs() <= 2e-3,
                "case {i} {kernel:?}: {:?} {pa:?} {:?} {pb:?} start {start:?}: got {got}, reference {want}, distance {d}",
                a.vertices(),
                b.vertices()
            );
        }
        both[want as usize] += 1;
    }
    assert!(both[0] > 500 && both[1] > 500, "{both:?}");
}

#[test]
fn touching_and_coincident_boxes() {
    let cube = ConvexHull::new(
        &(0..8).map(|i| Vec3::new((i & 1) as Real, (i >> 1 & 1) as Real, (i >> 2) as Real)).collect::<Vec<_>>(),
    )
    .unwrap();
    let l = lanes(&cube);
    // (offset along x of B's minimum face from A's maximum face, expected answer): the reach
    // is sqrt(EPS) = 1e-3.
    for (gap, want) in [(-0.5, true), (0.0, true), (5e-4, true), (2e-3, false), (0.5, false)] {
        let pb = Pose::from_translation(Vec3::new(1.0 + gap, 0.3, -0.2));
        for kernel in [Hull8Kernel::Portable, Hull8Kernel::best()] {
            for start in [None, Some(Vec3::Y), Some(Vec3::ZERO)] {
                let got = intersect_hull8_with(kernel, l, l, &Pose::IDENTITY, &pb, start, EPS).0;
                assert_eq!(got, want, "gap {gap} {kernel:?} start {start:?}");
            }
        }
    }
    for kernel in [Hull8Kernel::Portable, Hull8Kernel::best()] {
        assert!(intersect_hull8_with(kernel, l, l, &Pose::IDENTITY, &Pose::IDENTITY, None, EPS).0);
    }
}
