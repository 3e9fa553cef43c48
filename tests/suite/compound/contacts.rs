//! Compound contacts against an exact reference built from the children: the exact f64 signed
//! distance of each child to the partner (`narrowphase::exact`, SAT over the cores in f64);
//! the pair gets a contact exactly when the nearest child is within the margin, and then a
//! point at that child's exact depth; both orders, both methods,
//! every child and partner kind. Fixed seeds; a failure prints the case.

use super::compound;
use crate::narrowphase::exact::cases::{Rng, random_shape};
use crate::narrowphase::exact::exact;
use collidoscope::Shape;
use collidoscope::geometry::ShapeKind;
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::{NarrowPhaseKind, Tolerance, contact};

const KINDS: [ShapeKind; 4] = [ShapeKind::Sphere, ShapeKind::Cuboid, ShapeKind::Capsule, ShapeKind::ConvexHull];
const MARGIN: Real = 0.05;

/// A compound of one to four random children and a random partner near it.
fn case(rng: &mut Rng) -> (Shape, Pose, Shape, Pose) {
    let n = 1 + rng.below(4);
    let kids: Vec<(Shape, Pose)> = (0..n)
        .map(|_| {
            let kind = KINDS[rng.below(4)];
            let s = random_shape(rng, kind);
            let at =
                Vec3::new(rng.range(-1.0, 1.0) as Real, rng.range(-1.0, 1.0) as Real, rng.range(-1.0, 1.0) as Real);
            (s, Pose::new(at, rng.rotation()))
        })
        .collect();
    let comp = compound(kids);
    let pc = Pose::new(Vec3::new(0.1, -0.2, 0.3), rng.rotation());
    let kind = KINDS[rng.below(4)];
    let other = random_shape(rng, kind);
    let r = comp.bounding_radius() + other.bounding_radius();
    let dir = rng.unit();
    let po = Pose::new(pc.translation + dir * (rng.range(0.0, 1.0) as Real * r), rng.rotation());
    (comp, pc, other, po)
}

#[test]
fn contacts_match_the_nearest_child_exactly() {
    let mut rng = Rng::new(0xc0b0_0019);
    let tol = Tolerance { margin: MARGIN, epsilon: 1e-6 };
    let (mut touching, mut apart) = (0, 0);
    for i in 0..1500 {
        let (comp, pc, other, po) = case(&mut rng);
        let Shape::Compound(cc) = &comp else { unreachable!() };
        let size = (comp.bounding_radius() + other.bounding_radius()) as f64;
        let nearest = cc
            .children()
            .iter()
            .map(|k| exact(&k.shape, &pc.mul(&k.pose), &other, &po).distance)
            .fold(f64::INFINITY, f64::min);
        // Away from the margin's edge, where rounding decides.
        if (nearest - MARGIN as f64).abs() < 1e-3 * size {
            continue;
        }
        for method in [NarrowPhaseKind::Analytic, NarrowPhaseKind::Gjk] {
            for swapped in [false, true] {
                let m = if swapped {
                    contact(&other, &po, &comp, &pc, tol, method).map(|m| m.flipped())
                } else {
                    contact(&comp, &pc, &other, &po, tol, method)
                };
                let what = format!("case {i} {method:?} swapped {swapped}: {comp:?} at {pc:?}, {other:?} at {po:?}");
                let Some(m) = m else {
                    assert!(nearest > MARGIN as f64, "{what}: no contact, but the nearest child is {nearest} away");
                    apart += 1;
                    continue;
                };
                touching += 1;
                assert!(nearest <= MARGIN as f64, "{what}: a contact {m:?}, but the nearest child is {nearest} away");
                let best = m.points().iter().map(|p| (p.depth as f64 + nearest).abs()).fold(f64::INFINITY, f64::min);
                assert!(best <= 1e-3 * size, "{what}: no point at the exact depth {}: {m:?}", -nearest);
                assert!((m.normal.length() - 1.0).abs() < 1e-4, "{what}: {m:?}");
            }
        }
    }
    // Both outcomes are well represented.
    assert!(touching > 1000 && apart > 1000, "{touching} touching, {apart} apart");
}

/// Compound against compound: the reference is the nearest pair of children, exactly.
#[test]
fn compound_against_compound_matches_the_nearest_child_pair() {
    let mut rng = Rng::new(0xc0b0_0020);
    let tol = Tolerance { margin: MARGIN, epsilon: 1e-6 };
    for i in 0..400 {
        let (a, pa, _, _) = case(&mut rng);
        let (b, mut pb, _, _) = case(&mut rng);
        pb.translation =
            pa.translation + rng.unit() * (rng.range(0.0, 1.0) as Real * (a.bounding_radius() + b.bounding_radius()));
        let (Shape::Compound(ca), Shape::Compound(cb)) = (&a, &b) else { unreachable!() };
        let size = (a.bounding_radius() + b.bounding_radius()) as f64;
        let mut nearest = f64::INFINITY;
        for ka in ca.children() {
            for kb in cb.children() {
                nearest = nearest.min(exact(&ka.shape, &pa.mul(&ka.pose), &kb.shape, &pb.mul(&kb.pose)).distance);
            }
        }
        if (nearest - MARGIN as f64).abs() < 1e-3 * size {
            continue;
        }
        let m = contact(&a, &pa, &b, &pb, tol, NarrowPhaseKind::Analytic);
        assert_eq!(m.is_some(), nearest <= MARGIN as f64, "case {i}: nearest {nearest}, {m:?}");
        if let Some(m) = m {
            let best = m.points().iter().map(|p| (p.depth as f64 + nearest).abs()).fold(f64::INFINITY, f64::min);
            assert!(best < 1e-3 * size, "case {i}: no point at depth {}: {m:?}", -nearest);
        }
    }
}

/// Two boxes side by side on a floor: each child pair gives its four corners with the same
/// feature ids; mixed with the child indices they are eight distinct ids.
#[test]
fn ids_are_distinct_across_children() {
    use collidoscope::narrowphase::compound::child_contacts;
    use collidoscope::narrowphase::mesh::InternalEdges;
    let h = Vec3::new(0.25, 0.25, 0.5);
    let pair = compound(vec![
        (Shape::cuboid(h), Pose::from_translation(Vec3::new(-0.25, 0.0, 0.0))),
        (Shape::cuboid(h), Pose::from_translation(Vec3::new(0.25, 0.0, 0.0))),
    ]);
    let floor = Shape::cuboid(Vec3::new(5.0, 0.5, 5.0));
    let tol = Tolerance { margin: MARGIN, epsilon: 1e-6 };
    let at = Pose::from_translation(Vec3::new(0.0, 0.5 + 0.25 - 0.001, 0.0));
    let found =
        child_contacts(&floor, &Pose::IDENTITY, &pair, &at, tol, NarrowPhaseKind::Analytic, InternalEdges::None);
    assert_eq!(found.len(), 8, "{found:?}");
    let ids: Vec<u32> = found.iter().map(|(_, p)| p.id).collect();
    assert!(ids.iter().enumerate().all(|(i, x)| !ids[..i].contains(x)), "repeated ids {ids:?}");
}

/// A compound of one box is the box against a mesh too: across a shallow crease (two faces
/// 16° apart, so both faces' points join one manifold), the pair's manifold is the plain box's,
/// with the triangle contacts merged once, in either order.
#[test]
fn a_one_box_compound_on_a_crease_has_the_boxs_manifold() {
    use collidoscope::geometry::TriangleMesh;
    use collidoscope::math::Quat;
    use std::sync::Arc;
    // A V along z: two 2 x 2 m faces rising 8° to either side of x = 0.
    let rise = (8.0 as Real).to_radians().tan() * 2.0;
    let v = vec![
        Vec3::new(-2.0, rise, -1.0),
        Vec3::new(0.0, 0.0, -1.0),
        Vec3::new(2.0, rise, -1.0),
        Vec3::new(-2.0, rise, 1.0),
        Vec3::new(0.0, 0.0, 1.0),
        Vec3::new(2.0, rise, 1.0),
    ];
    let t = vec![[0, 3, 4], [0, 4, 1], [1, 4, 5], [1, 5, 2]];
    let mesh = Shape::TriangleMesh(Arc::new(TriangleMesh::new(v, t).unwrap()));
    let boxed = Shape::cuboid(Vec3::new(0.4, 0.1, 0.3));
    let one = compound(vec![(boxed.clone(), Pose::IDENTITY)]);
    let tol = Tolerance { margin: MARGIN, epsilon: 1e-6 };
    let mut checked = 0;
    for k in 0..40 {
        let x = -0.3 + 0.015 * k as Real;
        let pose = Pose::new(Vec3::new(x, 0.12, 0.1), Quat::from_rotation_y(0.03 * k as Real));
        for method in [NarrowPhaseKind::Analytic, NarrowPhaseKind::Gjk] {
            for flip in [false, true] {
                let pair = |s: &Shape| {
                    if flip {
                        contact(s, &pose, &mesh, &Pose::IDENTITY, tol, method)
                    } else {
                        contact(&mesh, &Pose::IDENTITY, s, &pose, tol, method)
                    }
                };
                let (want, got) = (pair(&boxed), pair(&one));
                let case = format!("x {x}, flip {flip}, {method:?}: box {want:?}, compound {got:?}");
                let (Some(w), Some(g)) = (want, got) else {
                    assert!(want.is_none() && got.is_none(), "{case}");
                    continue;
                };
                assert!(w.normal.dot(g.normal) > 1.0 - 1e-6, "{case}");
                assert!((w.max_depth() - g.max_depth()).abs() < 1e-5, "{case}");
                assert_eq!(w.points().len(), g.points().len(), "{case}");
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "{checked} pairs in contact");
    // The box cut in two at x = 0.1 (one half spanning the crease): every corner the two
    // manifolds share has one depth, each triangle contact merged once into the pair's normal.
    let halves = compound(vec![
        (Shape::cuboid(Vec3::new(0.25, 0.1, 0.3)), Pose::from_translation(Vec3::new(-0.15, 0.0, 0.0))),
        (Shape::cuboid(Vec3::new(0.15, 0.1, 0.3)), Pose::from_translation(Vec3::new(0.25, 0.0, 0.0))),
    ]);
    let mut shared = 0;
    for k in 0..40 {
        let x = -0.3 + 0.015 * k as Real;
        let pose = Pose::new(Vec3::new(x, 0.12, 0.1), Quat::from_rotation_y(0.03 * k as Real));
        let want = contact(&mesh, &Pose::IDENTITY, &boxed, &pose, tol, NarrowPhaseKind::Analytic);
        let got = contact(&mesh, &Pose::IDENTITY, &halves, &pose, tol, NarrowPhaseKind::Analytic);
        let (Some(w), Some(g)) = (want, got) else { continue };
        for p in g.points() {
            if let Some(q) = w.points().iter().find(|q| q.point.distance(p.point) < 1e-5) {
                assert!((p.depth - q.depth).abs() < 1e-5, "x {x}: halves {g:?}, box {w:?}");
                shared += 1;
            }
        }
    }
    assert!(shared > 20, "{shared} shared corners");
}
