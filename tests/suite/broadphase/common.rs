//! Scene generators and the brute-force reference shared by the broad-phase tests.
#![allow(dead_code)]

use collidoscope::broadphase::{self, BroadPhase, BroadPhaseKind, BroadPhaseParams, BruteForce};
use collidoscope::geometry::Aabb;
use collidoscope::math::{Real, Vec3};
use proptest::prelude::*;
use proptest::test_runner::Config;

/// A fixed seed, so CI runs the same cases every time; failures print the case.
pub fn config(cases: u32) -> Config {
    crate::seeded::fixed(cases, 0x0b5e_55ed)
}

/// Every structure except the reference.
pub fn variants() -> impl Iterator<Item = BroadPhaseKind> {
    BroadPhaseKind::ALL.iter().copied().filter(|&k| k != BroadPhaseKind::BruteForce)
}

pub fn params(cell: Real) -> BroadPhaseParams {
    BroadPhaseParams { grid_cell_size: cell }
}

/// The pairs that overlap by definition: every pair tested with `Aabb::overlaps`, in canonical
/// (ascending) order.
pub fn definition(aabbs: &[Aabb]) -> Vec<(u32, u32)> {
    let n = aabbs.len() as u32;
    (0..n)
        .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
        .filter(|&(i, j)| aabbs[i as usize].overlaps(&aabbs[j as usize]))
        .collect()
}

/// The pairs brute force finds, checked against the definition.
pub fn reference(aabbs: &[Aabb]) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    BruteForce::default().update(aabbs, &params(1.0), &mut pairs);
    assert_eq!(pairs, definition(aabbs), "brute force disagrees with the definition");
    pairs
}

/// Runs one update and checks the result against brute force: the same pairs in the same
/// canonical order (strictly ascending, so no duplicates, and `i < j`), and counters that add up.
pub fn check_update(bp: &mut dyn BroadPhase, aabbs: &[Aabb], cell: Real, what: &str) -> Result<(), TestCaseError> {
    let mut pairs = vec![(7, 7)]; // update must clear what was there
    let stats = bp.update(aabbs, &params(cell), &mut pairs);
    let returned = pairs.len();
    let name = bp.kind().label();
    prop_assert!(pairs.windows(2).all(|w| w[0] < w[1]), "{}: pairs not in canonical order ({})", name, what);
    prop_assert!(pairs.iter().all(|&(i, j)| i < j), "{}: a pair is not ordered ({})", name, what);
    let expect = reference(aabbs);
    if pairs != expect {
        let missing: Vec<_> = expect.iter().filter(|p| pairs.binary_search(p).is_err()).take(5).collect();
        let extra: Vec<_> = pairs.iter().filter(|p| expect.binary_search(p).is_err()).take(5).collect();
        for &&(i, j) in missing.iter().chain(&extra) {
            eprintln!("  {i}: {:?}\n  {j}: {:?}", aabbs[i as usize], aabbs[j as usize]);
        }
        prop_assert!(
            false,
            "{}: {} pairs, brute force {}; missing {:?}, extra {:?} ({})",
            name,
            pairs.len(),
            expect.len(),
            missing,
            extra,
            what
        );
    }
    prop_assert_eq!(stats.true_overlaps as usize, returned, "{}: true_overlaps counts the pairs", name);
    prop_assert!(stats.candidate_pairs >= stats.true_overlaps, "{}: fewer candidates than overlaps", name);
    prop_assert!((0.0..=1.0).contains(&stats.false_positive_ratio()));
    Ok(())
}

/// One box of a kind chosen to stress the structures.
pub fn any_box() -> impl Strategy<Value = Aabb> {
    let v = |r: Real| -r..r;
    prop_oneof![
        // Ordinary boxes, anywhere including negative coordinates.
        4 => (v(40.0), v(40.0), v(40.0), 0.0..3.0f32, 0.0..3.0f32, 0.0..3.0f32)
            .prop_map(|(x, y, z, a, b, c)| Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::new(a, b, c))),
        // Tiny.
        2 => (v(40.0), v(40.0), v(40.0)).prop_map(|(x, y, z)| Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::splat(0.01))),
        // Huge, beside the tiny ones.
        1 => (v(40.0), v(40.0), v(40.0), 20.0..200.0f32)
            .prop_map(|(x, y, z, h)| Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::new(h, h * 0.5, h))),
        // Corners exactly on cell boundaries (integers and halves, for cell sizes 0.5, 1 and 2).
        3 => (-20i32..20, -20i32..20, -20i32..20, 0i32..4, 0i32..4, 0i32..4).prop_map(|(x, y, z, a, b, c)| {
            let min = Vec3::new(x as Real, y as Real, z as Real) * 0.5;
            Aabb::new(min, min + Vec3::new(a as Real, b as Real, c as Real) * 0.5)
        }),
        // Zero thickness on one axis (a floor tile) or all (a point).
        2 => (v(20.0), v(20.0), v(20.0), 0.0..4.0f32, any::<bool>()).prop_map(|(x, y, z, h, point)| {
            let half = if point { Vec3::ZERO } else { Vec3::new(h, 0.0, h) };
            Aabb::from_center_half_extents(Vec3::new(x.round(), y.round(), z.round()), half)
        }),
        // Far outside any initial bounds.
        1 => (v(1.0e4), v(1.0e4), v(1.0e4), 0.1..5.0f32)
            .prop_map(|(x, y, z, h)| Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::splat(h))),
    ]
}

/// A scene of up to `n` boxes: independent ones, or clusters of many overlapping boxes.
pub fn scene(n: usize) -> impl Strategy<Value = Vec<Aabb>> {
    let loose = prop::collection::vec(any_box(), 0..n);
    let clustered = (prop::collection::vec((-30.0..30.0f32, -30.0..30.0f32, -30.0..30.0f32), 1..4), any::<u64>())
        .prop_map(move |(centres, seed)| {
            let mut rng = collidoscope::scene::SplitMix64::new(seed);
            (0..n)
                .map(|k| {
                    let c = centres[k % centres.len()];
                    let p = Vec3::new(c.0, c.1, c.2)
                        + Vec3::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
                    Aabb::from_center_half_extents(p, Vec3::splat(rng.range(0.05, 0.8)))
                })
                .collect::<Vec<_>>()
        });
    prop_oneof![3 => loose, 1 => clustered]
}

/// Cell sizes: ones the lattice boxes align with, and an awkward one.
pub fn cell_size() -> impl Strategy<Value = Real> {
    prop_oneof![Just(0.5), Just(1.0), Just(2.0), Just(3.7), Just(40.0)]
}

pub fn create(kind: BroadPhaseKind) -> Box<dyn BroadPhase> {
    broadphase::create(kind)
}
