//! Expanding polytope algorithm: grows a polytope inside the Minkowski difference from GJK's
//! final simplex until the face nearest the origin lies on the difference's boundary. That
//! face gives the penetration normal and depth.

pub(super) mod polytope;

use crate::math::{Real, Vec3};
use crate::narrowphase::epa::polytope::{EpaPolytope, Expanded, MAX_VERTS};
use crate::narrowphase::gjk::closest::{MinkowskiPair, Simplex, SupportPoint};

/// Most EPA iterations; each adds one vertex (the polytope holds at most 64).
pub(super) const MAX_EPA_ITERATIONS: usize = MAX_VERTS - 4;
/// EPA stops when the support along the nearest face's normal lies within this fraction of the
/// polytope's size beyond the face.
pub(super) const EPA_REL_TOL: Real = 1e-5;

/// The polytope at one iteration, for the teaching view (A's frame).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EpaSnapshot {
    pub vertices: Vec<Vec3>,
    pub faces: Vec<[u16; 3]>,
    /// Index in `faces` of the face nearest the origin.
    pub nearest: usize,
}

/// Penetration found by EPA, in A's frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct EpaOutput {
    /// Unit normal from A to B: moving B by `normal * depth` separates the shapes.
    pub normal: Vec3,
    pub depth: Real,
    pub point_a: Vec3,
    pub point_b: Vec3,
    pub iterations: u32,
}

/// Runs EPA on the difference of the cores, starting from `simplex` (GJK's last simplex,
/// whose hull touches or holds the origin). Returns `None` when the difference is too flat to
/// hold a tetrahedron, e.g. two points or two segments.
pub(super) fn epa(pair: &MinkowskiPair, simplex: &Simplex, trace: Option<&mut Vec<EpaSnapshot>>) -> Option<EpaOutput> {
    // The polytope (about 6 KB) is kept per thread: EPA runs for every penetrating polytope
    // pair, and clearing or allocating it costs as much as a few iterations.
    SCRATCH.with(|cell| {
        let mut kept = cell.try_borrow_mut();
        let mut fresh = None;
        // Re-entered from a trace callback (never in practice): fresh buffers, made only then.
        // One call site, so EPA is inlined once per compiled copy.
        let Scratch { seed, poly } = match kept.as_deref_mut() {
            Ok(s) => s,
            Err(_) => fresh.insert(Scratch::default()),
        };
        epa_dispatch(pair, simplex, trace, seed, poly)
    })
}

crate::simd::compiled_twice! {
    /// [`epa_in`] in its x86-64-v3 copy when the CPU runs it ([`crate::simd::Compiled`]), else
    /// in the baseline copy: the same bits either way.
    #[inline(always)]
    fn epa_dispatch(
        pair: &MinkowskiPair,
        simplex: &Simplex,
        trace: Option<&mut Vec<EpaSnapshot>>,
        seed: &mut Vec<SupportPoint>,
        poly: &mut EpaPolytope,
    ) -> Option<EpaOutput> = epa_in, epa_in_v3;
}

/// Reusable buffers of [`epa`].
#[derive(Default)]
struct Scratch {
    seed: Vec<SupportPoint>,
    poly: Box<EpaPolytope>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

fn snapshot(poly: &EpaPolytope, best: usize) -> EpaSnapshot {
    let (faces, nearest) = poly.faces(best);
    EpaSnapshot {
        vertices: poly.verts[..poly.nv].iter().map(|p| p.w).collect(),
        faces: faces.into_iter().map(|f| f.map(u16::from)).collect(),
        nearest,
    }
}

/// EPA proper; inlined into both of [`epa_dispatch`]'s copies.
#[inline(always)]
fn epa_in(
    pair: &MinkowskiPair,
    simplex: &Simplex,
    mut trace: Option<&mut Vec<EpaSnapshot>>,
    seed: &mut Vec<SupportPoint>,
    poly: &mut EpaPolytope,
) -> Option<EpaOutput> {
    let support = |d: Vec3| pair.support_fast(d);
    let (scale, mut best) = match tetrahedron_as_is(simplex) {
        // The seed GJK's tetrahedron, nearly always: no point to drop or add.
        Some(scale) => (scale, poly.start(&simplex.pts)?),
        None => {
            seed.clear();
            // Seed with GJK's points, then blow them up to a tetrahedron.
            for p in simplex.points() {
                if !seed.iter().any(|q| q.w.distance_squared(p.w) <= Real::MIN_POSITIVE) {
                    seed.push(*p);
                }
            }
            let scale = seed.iter().map(|p| p.w.length()).fold(0.0, Real::max).max(1e-6);
            let tiny = scale * 1e-5;
            if !grow_to_tetrahedron(seed, &support, tiny) {
                return None;
            }
            (scale, poly.start(seed)?)
        }
    };
    let mut f = poly.get(best);
    let mut iterations = 0;
    loop {
        if let Some(t) = trace.as_deref_mut() {
            t.push(snapshot(poly, best));
        }
        if iterations >= MAX_EPA_ITERATIONS as u32 {
            break;
        }
        let w = support(f.normal);
        let gap = f.normal.dot(w.w) - f.dist;
        if gap <= EPA_REL_TOL * scale {
            break;
        }
        match poly.expand(w) {
            Expanded::Nearest(near) => best = near,
            Expanded::Slivers => return None,
            Expanded::Full => break,
        }
        iterations += 1;
        f = poly.get(best);
    }
    let tri = [poly.verts[f.v[0] as usize], poly.verts[f.v[1] as usize], poly.verts[f.v[2] as usize]];
    let mut s = Simplex { pts: [tri[0], tri[1], tri[2], tri[2]], bary: [0.0; 4], len: 3 };
    // Weights of the origin's projection on the face.
    let proj = f.normal * f.dist;
    let (pa, pb) = match face_weights(tri[0].w - proj, tri[1].w - proj, tri[2].w - proj, f.normal) {
        // The usual case: the projection falls inside the face, weights by sub-triangle areas.
        Some(l) => {
            (tri[0].a * l[0] + tri[1].a * l[1] + tri[2].a * l[2], tri[0].b * l[0] + tri[1].b * l[1] + tri[2].b * l[2])
        }
        // On or past an edge (rounding, slivers): the signed-area sub-algorithm picks the feature.
        None => {
            for p in &mut s.pts[..3] {
                p.w -= proj;
            }
            s.reduce();
            s.witnesses()
        }
    };
    Some(EpaOutput { normal: f.normal, depth: f.dist, point_a: pa, point_b: pb, iterations })
}

/// The scale of a 4-point `simplex` that the duplicate removal and [`grow_to_tetrahedron`]
/// would keep as it is, so that EPA can start from it directly; `None` when they might change
/// it. A volume above `tiny³` (`tiny = 1e-5 scale`) with a scale of at least `1e-3` rules out
/// any two points within `sqrt(MIN_POSITIVE)` of each other (their volume would be below
/// `4.4e-19 scale²`), and the scale is then the same over the four points as over those kept.
#[inline(always)]
fn tetrahedron_as_is(simplex: &Simplex) -> Option<Real> {
    if simplex.len != 4 {
        return None;
    }
    let [a, b, c, d] = simplex.pts.map(|p| p.w);
    let scale = [a, b, c, d].iter().map(|p| p.length()).fold(0.0, Real::max).max(1e-6);
    let tiny = scale * 1e-5;
    let volume = (b - a).cross(c - a).dot(d - a).abs();
    (scale >= 1e-3 && volume > tiny * tiny * tiny).then_some(scale)
}

/// Barycentric weights of the origin in the triangle `a b c` (which holds it, up to rounding),
/// from the signed areas of the sub-triangles along the face normal `n`; `None` unless all
/// three are positive.
#[inline]
fn face_weights(a: Vec3, b: Vec3, c: Vec3, n: Vec3) -> Option<[Real; 3]> {
    let (wa, wb, wc) = (b.cross(c).dot(n), c.cross(a).dot(n), a.cross(b).dot(n));
    let sum = wa + wb + wc;
    if wa > 0.0 && wb > 0.0 && wc > 0.0 && sum.is_finite() {
        let inv = 1.0 / sum;
        Some([wa * inv, wb * inv, wc * inv])
    } else {
        None
    }
}

/// Adds support points until `verts` spans a tetrahedron of non-trivial volume.
fn grow_to_tetrahedron(verts: &mut Vec<SupportPoint>, support: &impl Fn(Vec3) -> SupportPoint, tiny: Real) -> bool {
    const AXES: [Vec3; 6] = [Vec3::X, Vec3::NEG_X, Vec3::Y, Vec3::NEG_Y, Vec3::Z, Vec3::NEG_Z];
    verts.truncate(4);
    if verts.is_empty() {
        verts.push(support(Vec3::X));
    }
    if verts.len() == 4 {
        let (a, b, c, d) = (verts[0].w, verts[1].w, verts[2].w, verts[3].w);
        if (b - a).cross(c - a).dot(d - a).abs() > tiny * tiny * tiny {
            return true;
        }
        verts.truncate(3);
    }
    if verts.len() == 3 {
        let (a, b, c) = (verts[0].w, verts[1].w, verts[2].w);
        if (b - a).cross(c - a).length() <= tiny * tiny {
            verts.truncate(2);
        }
    }
    if verts.len() == 2 && verts[0].w.distance(verts[1].w) <= tiny {
        verts.truncate(1);
    }
    if verts.len() == 1 {
        let a = verts[0].w;
        let far = AXES.iter().map(|&d| support(d)).max_by(|p, q| p.w.distance(a).total_cmp(&q.w.distance(a)));
        match far {
            Some(p) if p.w.distance(a) > tiny => verts.push(p),
            _ => return false,
        }
    }
    if verts.len() == 2 {
        let (a, b) = (verts[0].w, verts[1].w);
        let d = (b - a).normalize();
        let (u, v) = crate::math::orthonormal_basis(d);
        let dist_line = |p: Vec3| (p - a).cross(d).length();
        let far = [u, -u, v, -v, u + v, -u - v, u - v, v - u]
            .iter()
            .map(|&dir| support(dir))
            .max_by(|p, q| dist_line(p.w).total_cmp(&dist_line(q.w)));
        match far {
            Some(p) if dist_line(p.w) > tiny => verts.push(p),
            _ => return false,
        }
    }
    let (a, b, c) = (verts[0].w, verts[1].w, verts[2].w);
    let n = (b - a).cross(c - a).normalize_or_zero();
    if n == Vec3::ZERO {
        return false;
    }
    let (p, q) = (support(n), support(-n));
    let (dp, dq) = (n.dot(p.w - a), -n.dot(q.w - a));
    let (best, h) = if dp >= dq { (p, dp) } else { (q, dq) };
    if h <= tiny {
        return false;
    }
    verts.push(best);
    true
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::geometry::{ConvexHull, Shape};
    use crate::math::Pose;
    use crate::narrowphase::gjk::closest::gjk;
    use crate::rng::SplitMix64;
    use std::sync::Arc;

    /// A box of random half-extents 0.2-1 with each corner moved by up to 0.15.
    pub(in crate::narrowphase) fn jittered_box(rng: &mut SplitMix64) -> Vec<Vec3> {
        let h = Vec3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0));
        (0..8)
            .map(|i| {
                let s = |bit: usize, k: usize| if i & bit == 0 { -h[k] } else { h[k] };
                Vec3::new(s(1, 0), s(2, 1), s(4, 2)) + rng.unit_vector() * rng.range(0.0, 0.15)
            })
            .collect()
    }

    /// The bits of an answer (`-0.0` and `0.0` differ), to compare two copies of a routine.
    pub(in crate::narrowphase) fn bits(v: &[Real]) -> Vec<u32> {
        v.iter().map(|x| x.to_bits()).collect()
    }

    /// The baseline copy of EPA and the x86-64-v3 copy give the same bits, on deep, shallow
    /// and coincident hull pairs, from the distance GJK's simplex (any length) and from the
    /// seed's tetrahedron. Where the CPU lacks the features there is only one copy to run.
    #[test]
    fn both_compiled_copies_give_the_same_bits() {
        if !crate::simd::x86_64_v3() {
            eprintln!("this CPU lacks x86-64-v3: EPA has only its baseline copy here");
        }
        #[cfg(target_arch = "x86_64")]
        if crate::simd::x86_64_v3() {
            let mut rng = SplitMix64::new(0x0e9a_c0b1);
            let (mut seed, mut poly) = (Vec::new(), Box::<EpaPolytope>::default());
            let mut compared = 0;
            for case in 0..600 {
                let (va, vb) = (jittered_box(&mut rng), jittered_box(&mut rng));
                let sa = Shape::ConvexHull(Arc::new(ConvexHull::new(&va).unwrap()));
                let sb = Shape::ConvexHull(Arc::new(ConvexHull::new(&vb).unwrap()));
                let pa = Pose::new(rng.unit_vector() * rng.range(0.0, 2.0), rng.rotation());
                let reach = if case % 10 == 0 { 0.0 } else { rng.range(0.0, 1.2) };
                let pb = Pose::new(pa.translation + rng.unit_vector() * reach, rng.rotation());
                let pair = MinkowskiPair::new(&sa, &pa, &sb, &pb);
                let g = gjk(&pair, None, None);
                let seeded = crate::narrowphase::gjk::seed::overlap_tetrahedron(&pair, None);
                let starts = [Some(g.simplex), seeded.map(|pts| Simplex { pts, bary: [0.25; 4], len: 4 })];
                for simplex in starts.iter().flatten() {
                    let answer = |e: Option<EpaOutput>| {
                        e.map(|e| {
                            let [n, a, b] = [e.normal, e.point_a, e.point_b];
                            (bits(&[n.x, n.y, n.z, e.depth, a.x, a.y, a.z, b.x, b.y, b.z]), e.iterations)
                        })
                    };
                    let base = answer(epa_in(&pair, simplex, None, &mut seed, &mut poly));
                    // The dispatch runs the x86-64-v3 copy on this CPU (checked above).
                    let v3 = answer(epa_dispatch(&pair, simplex, None, &mut seed, &mut poly));
                    assert_eq!(base, v3, "case {case}: {pa:?} {pb:?} from {simplex:?}");
                    compared += base.is_some() as usize;
                }
            }
            assert!(compared > 500, "only {compared} EPA answers compared");
        }
    }

    /// Every directed edge of the snapshot's faces has its reverse in exactly one other face.
    fn closed(s: &EpaSnapshot) -> bool {
        let mut edges: Vec<(u16, u16)> =
            s.faces.iter().flat_map(|f| [(f[0], f[1]), (f[1], f[2]), (f[2], f[0])]).collect();
        edges.sort_unstable();
        let unique = edges.windows(2).all(|w| w[0] != w[1]);
        unique && edges.iter().all(|&(a, b)| edges.binary_search(&(b, a)).is_ok())
    }

    /// EPA against brute force on hull pairs: the penetration depth of two polytopes is the
    /// smallest support value of their difference over the facet normals of its hull (every
    /// vertex pair `a - b`). EPA's depth must match it, its normal must realise its depth, and
    /// every traced polytope must be a closed mesh.
    #[test]
    fn depth_and_normal_match_the_hull_of_the_difference() {
        let mut rng = SplitMix64::new(0x0e9a_5eed);
        let mut checked = 0;
        for case in 0..800 {
            let (va, vb) = (jittered_box(&mut rng), jittered_box(&mut rng));
            let (a, b) = (ConvexHull::new(&va).unwrap(), ConvexHull::new(&vb).unwrap());
            let pa = Pose::new(rng.unit_vector() * rng.range(0.0, 2.0), rng.rotation());
            // Some pairs share their centre exactly (the deepest case).
            let reach = if case % 10 == 0 { 0.0 } else { rng.range(0.0, 0.9) };
            let pb = Pose::new(pa.translation + rng.unit_vector() * reach, rng.rotation());
            let (sa, sb) = (Shape::ConvexHull(Arc::new(a.clone())), Shape::ConvexHull(Arc::new(b.clone())));
            let pair = MinkowskiPair::new(&sa, &pa, &sb, &pb);
            let g = gjk(&pair, None, None);
            if !g.overlapping {
                continue;
            }
            let rel = pa.inv_mul(&pb);
            let diff: Vec<Vec3> = a
                .vertices()
                .iter()
                .flat_map(|&p| b.vertices().iter().map(move |&q| p - rel.transform_point(q)))
                .collect();
            let support = |n: Vec3| diff.iter().map(|p| p.dot(n)).fold(Real::NEG_INFINITY, Real::max);
            let cso = ConvexHull::new(&diff).unwrap();
            let want = cso.faces().iter().map(|f| support(f.normal)).fold(Real::INFINITY, Real::min);
            let mut trace = Vec::new();
            let e = epa(&pair, &g.simplex, Some(&mut trace)).unwrap_or_else(|| panic!("case {case}: no EPA answer"));
            let tol = 2e-4;
            let msg = format!("case {case}: {pa:?} {pb:?} EPA {e:?}, brute-force depth {want}");
            assert!(e.normal.is_finite() && (e.normal.length() - 1.0).abs() < 1e-4, "{msg}");
            assert!((e.depth - want).abs() <= tol, "{msg}");
            assert!((support(e.normal) - e.depth).abs() <= tol, "{msg}: support along the normal differs");
            assert!(e.iterations as usize <= MAX_EPA_ITERATIONS && trace.len() == e.iterations as usize + 1, "{msg}");
            for (i, s) in trace.iter().enumerate() {
                assert!(closed(s) && s.nearest < s.faces.len(), "{msg}: polytope {i} is not a closed mesh");
            }
            checked += 1;
        }
        assert!(checked > 500, "only {checked} overlapping cases");
    }
}
