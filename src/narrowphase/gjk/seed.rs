//! Boolean GJK by Voronoi regions that keeps its support points: when the cores overlap it
//! ends on a tetrahedron holding the origin, which is all EPA needs to start. It skips the
//! distance GJK's closest-point weights (signed volumes at every step), which are wasted on a
//! penetrating pair; a pair it does not prove overlapping goes to the distance GJK as before.

use crate::math::{Real, Vec3};
use crate::narrowphase::gjk::closest::{MinkowskiPair, Simplex, SupportPoint};
use crate::narrowphase::gjk::voronoi::{Found, RegionSearch, search};

/// The seed search's configuration of [`search`]: support points with their witnesses, a
/// point not past the origin ends it, a flat tetrahedron hands over, and every simplex can be
/// traced.
struct Seed<'p, 's, 't> {
    pair: &'p MinkowskiPair<'s>,
    trace: Option<&'t mut Vec<Simplex>>,
}

impl RegionSearch<SupportPoint> for Seed<'_, '_, '_> {
    /// Most support queries of the search (convex pairs need far fewer).
    const MAX_STEPS: usize = 32;
    const FLIP: bool = false;

    #[inline(always)]
    fn support(&self, d: Vec3) -> SupportPoint {
        self.pair.support_fast(d)
    }

    /// No point past the origin: apart or touching.
    #[inline(always)]
    fn behind(ad: Real) -> bool {
        ad <= 0.0
    }

    #[inline(always)]
    fn record(&mut self, p: &[SupportPoint; 4], n: usize) {
        if let Some(t) = self.trace.as_deref_mut() {
            t.push(Simplex { pts: *p, bary: [0.0; 4], len: n });
        }
    }
}

/// A tetrahedron of support points (in A's frame) that holds the origin, or `None` when the
/// search cannot prove the cores overlap: they are apart, touch within rounding, or the
/// simplex went flat. `trace` gets the simplex after each step.
#[inline(always)]
pub(crate) fn overlap_tetrahedron(pair: &MinkowskiPair, trace: Option<&mut Vec<Simplex>>) -> Option<[SupportPoint; 4]> {
    let mut start = pair.centre_difference();
    if start.length_squared() <= Real::MIN_POSITIVE {
        start = Vec3::X;
    }
    match search(&mut Seed { pair, trace }, start) {
        (Found::Inside(p), _) => Some(p),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::{ConvexHull, Shape};
    use crate::math::Pose;
    use crate::narrowphase::gjk::closest::gjk;
    use crate::rng::SplitMix64;
    use std::sync::Arc;

    /// Signed volume of the tetrahedron `abc` + `d`, times 6.
    fn volume6(a: Vec3, b: Vec3, c: Vec3, d: Vec3) -> Real {
        (b - a).cross(c - a).dot(d - a)
    }

    /// Whenever the search returns a tetrahedron, it holds the origin and its points are
    /// support points of the difference (`w = a - b`, with `a` on A and `b` on B), and the
    /// distance GJK agrees that the cores overlap; deep pairs are found.
    #[test]
    fn tetrahedra_hold_the_origin_and_agree_with_the_distance_gjk() {
        let mut rng = SplitMix64::new(0x5eed_7e7a);
        let cube = |rng: &mut SplitMix64| {
            let pts: Vec<Vec3> = (0..8)
                .map(|i| {
                    let s = |bit: usize| if i & bit == 0 { -0.5 } else { 0.5 };
                    Vec3::new(s(1), s(2), s(4)) + rng.unit_vector() * 0.1
                })
                .collect();
            Arc::new(ConvexHull::new(&pts).unwrap())
        };
        let (mut found, mut deep) = (0, 0);
        for case in 0..2000 {
            let (ha, hb) = (cube(&mut rng), cube(&mut rng));
            let (a, b) = (Shape::ConvexHull(ha.clone()), Shape::ConvexHull(hb.clone()));
            let pa = Pose::new(rng.unit_vector() * rng.range(0.0, 1.0), rng.rotation());
            let reach = if case % 20 == 0 { 0.0 } else { rng.range(0.0, 1.6) };
            let pb = Pose::new(pa.translation + rng.unit_vector() * reach, rng.rotation());
            let pair = MinkowskiPair::new(&a, &pa, &b, &pb);
            let g = gjk(&pair, None, None);
            let Some(t) = overlap_tetrahedron(&pair, None) else {
                // Only the touching band may be left undecided when the distance GJK says
                // overlapping.
                if g.overlapping {
                    assert!(reach > 0.5, "case {case}: deep pair not proven overlapping");
                }
                continue;
            };
            found += 1;
            deep += (reach < 0.5) as usize;
            assert!(g.overlapping, "case {case}: tetrahedron for cores the distance GJK finds apart");
            let w = t.map(|p| p.w);
            let total = volume6(w[0], w[1], w[2], w[3]);
            let sub = [
                volume6(Vec3::ZERO, w[1], w[2], w[3]),
                volume6(w[0], Vec3::ZERO, w[2], w[3]),
                volume6(w[0], w[1], Vec3::ZERO, w[3]),
                volume6(w[0], w[1], w[2], Vec3::ZERO),
            ];
            assert!(total != 0.0 && sub.iter().all(|&s| s * total >= 0.0), "case {case}: {w:?}");
            // Each point pairs a vertex of A with a vertex of B (A's frame).
            let rel = pa.inv_mul(&pb);
            for p in &t {
                assert_eq!(p.w, p.a - p.b, "case {case}");
                assert!(ha.vertices().contains(&p.a), "case {case}: {p:?}");
                let near_b = hb.vertices().iter().any(|&v| rel.transform_point(v).distance(p.b) < 1e-5);
                assert!(near_b, "case {case}: {p:?}");
            }
        }
        assert!(found > 500 && deep > 100, "found {found}, deep {deep}");
    }
}
