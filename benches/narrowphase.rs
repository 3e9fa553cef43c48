//! Narrow-phase cost per pair (issue 5): 1,000 seeded pairs per test, half of them touching,
//! one thread; plus the reference article's 500 spheres × 500 rotated cubes scene.
//! Throughput is reported per pair ("elements"), so criterion prints ns per pair directly.
//! The closed-form tests run as batch kernels over the 1,000 pairs stored as arrays (one
//! answer written per pair, checked against the scalar functions in the tests); the
//! `*_scalar` rows time the scalar pair functions on the same pairs for comparison.

use collidoscope::geometry::{Aabb, Cuboid, Ray, Shape, Sphere};
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::batch::{self, AabbSoa, Backend, ObbSoa, QuatSoa, Vec3Soa, spheres_vs_obbs};
use collidoscope::narrowphase::{
    Manifold, Tolerance, contact_cuboid_cuboid, distance, intersect_gjk, intersect_sphere_aabb,
    intersect_sphere_cuboid, intersect_sphere_sphere,
};
use collidoscope::scene::SplitMix64 as Rng;
use common::{cube_hull, deep_hull_pairs};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

#[path = "../tests/suite/narrowphase/exact/cases.rs"]
#[allow(dead_code)]
mod cases;
mod common;

const PAIRS: usize = 1000;
const EPS: Real = 1e-6;

/// B's offset from A: inside the touching range for even pairs, outside for odd ones.
fn offset(rng: &mut Rng, i: usize, reach: Real) -> Vec3 {
    let d = if i.is_multiple_of(2) { rng.range(0.0, 0.9) } else { rng.range(1.1, 2.0) };
    rng.unit_vector() * d * reach
}

fn per_pair(c: &mut Criterion) {
    let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
    let mut g = c.benchmark_group("narrowphase");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.sample_size(30);

    let spheres: Vec<(Sphere, Pose, Sphere, Pose)> = (0..PAIRS)
        .map(|i| {
            let (a, b) = (Sphere { radius: rng.range(0.2, 1.0) }, Sphere { radius: rng.range(0.2, 1.0) });
            let pb = Pose::from_translation(offset(&mut rng, i, a.radius + b.radius));
            (a, Pose::IDENTITY, b, pb)
        })
        .collect();
    let backend = Backend::best();
    let mut hits = vec![false; PAIRS];
    let count = |v: &[bool]| v.iter().filter(|&&h| h).count();
    {
        let ca: Vec3Soa = spheres.iter().map(|p| p.1.translation).collect();
        let cb: Vec3Soa = spheres.iter().map(|p| p.3.translation).collect();
        let ra: Vec<Real> = spheres.iter().map(|p| p.0.radius).collect();
        let rb: Vec<Real> = spheres.iter().map(|p| p.2.radius).collect();
        g.bench_function("sphere_sphere", |bch| {
            bch.iter(|| {
                batch::intersect_sphere_sphere(black_box(&ca), &ra, &cb, &rb, EPS, backend, &mut hits).unwrap();
                count(&hits)
            })
        });
    }
    g.bench_function("sphere_sphere_scalar", |bch| {
        bch.iter(|| spheres.iter().filter(|(a, pa, b, pb)| intersect_sphere_sphere(a, pa, b, pb, EPS)).count())
    });

    let sphere_aabb: Vec<(Vec3, Real, Aabb)> = (0..PAIRS)
        .map(|i| {
            let h = Vec3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0));
            let r = rng.range(0.2, 1.0);
            (offset(&mut rng, i, r + h.min_element()), r, Aabb::from_center_half_extents(Vec3::ZERO, h))
        })
        .collect();
    {
        let c: Vec3Soa = sphere_aabb.iter().map(|p| p.0).collect();
        let r: Vec<Real> = sphere_aabb.iter().map(|p| p.1).collect();
        let b: AabbSoa = sphere_aabb.iter().map(|p| p.2).collect();
        g.bench_function("sphere_aabb", |bch| {
            bch.iter(|| {
                batch::intersect_sphere_aabb(black_box(&c), &r, &b, EPS, backend, &mut hits).unwrap();
                count(&hits)
            })
        });
    }
    g.bench_function("sphere_aabb_scalar", |bch| {
        bch.iter(|| sphere_aabb.iter().filter(|(c, r, b)| intersect_sphere_aabb(*c, *r, b, EPS)).count())
    });

    let sphere_obb: Vec<(Sphere, Pose, Cuboid, Pose)> = (0..PAIRS)
        .map(|i| {
            let h = Vec3::new(rng.range(0.2, 1.0), rng.range(0.2, 1.0), rng.range(0.2, 1.0));
            let s = Sphere { radius: rng.range(0.2, 1.0) };
            let ps = Pose::from_translation(offset(&mut rng, i, s.radius + h.min_element()));
            (s, ps, Cuboid { half_extents: h }, Pose::new(Vec3::ZERO, rng.rotation()))
        })
        .collect();
    {
        let c: Vec3Soa = sphere_obb.iter().map(|p| p.1.translation).collect();
        let r: Vec<Real> = sphere_obb.iter().map(|p| p.0.radius).collect();
        let bc: Vec3Soa = sphere_obb.iter().map(|p| p.3.translation).collect();
        let q: QuatSoa = sphere_obb.iter().map(|p| p.3.rotation).collect();
        let h: Vec3Soa = sphere_obb.iter().map(|p| p.2.half_extents).collect();
        g.bench_function("sphere_obb", |bch| {
            bch.iter(|| {
                batch::intersect_sphere_cuboid(black_box(&c), &r, &bc, &q, &h, EPS, backend, &mut hits).unwrap();
                count(&hits)
            })
        });
    }
    g.bench_function("sphere_obb_scalar", |bch| {
        bch.iter(|| sphere_obb.iter().filter(|(s, ps, c, pc)| intersect_sphere_cuboid(s, ps, c, pc, EPS)).count())
    });

    let aabbs: Vec<(Aabb, Aabb)> = (0..PAIRS)
        .map(|i| {
            let (ha, hb) = (Vec3::splat(rng.range(0.2, 1.0)), Vec3::splat(rng.range(0.2, 1.0)));
            let o = offset(&mut rng, i, (ha + hb).x);
            (Aabb::from_center_half_extents(Vec3::ZERO, ha), Aabb::from_center_half_extents(o, hb))
        })
        .collect();
    {
        let a: AabbSoa = aabbs.iter().map(|p| p.0).collect();
        let b: AabbSoa = aabbs.iter().map(|p| p.1).collect();
        g.bench_function("aabb_aabb", |bch| {
            bch.iter(|| {
                batch::intersect_aabb_aabb(black_box(&a), &b, backend, &mut hits).unwrap();
                count(&hits)
            })
        });
    }
    g.bench_function("aabb_aabb_scalar", |bch| bch.iter(|| aabbs.iter().filter(|(a, b)| a.overlaps(b)).count()));

    let rays: Vec<(Ray, Aabb)> = (0..PAIRS)
        .map(|i| {
            let b = Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(1.0));
            let origin = rng.unit_vector() * 5.0;
            let target = if i % 2 == 0 {
                rng.unit_vector() * 0.5
            } else {
                rng.unit_vector() * 0.5 + origin.any_orthonormal_vector() * 3.0
            };
            (Ray::new(origin, target - origin), b)
        })
        .collect();
    {
        let o: Vec3Soa = rays.iter().map(|p| p.0.origin).collect();
        let d: Vec3Soa = rays.iter().map(|p| p.0.dir).collect();
        let b: AabbSoa = rays.iter().map(|p| p.1).collect();
        let mut t = vec![0.0; PAIRS];
        g.bench_function("ray_aabb", |bch| {
            bch.iter(|| {
                batch::ray_interval_aabb(black_box(&o), &d, 1.0, &b, backend, &mut t).unwrap();
                t.iter().filter(|t| t.is_finite()).count()
            })
        });
    }
    g.bench_function("ray_aabb_scalar", |bch| {
        bch.iter(|| rays.iter().filter(|(r, b)| b.ray_interval(r.origin, r.dir, 1.0).is_some()).count())
    });

    let tol = Tolerance { margin: 0.0, epsilon: EPS };
    let boxes: Vec<(Cuboid, Pose, Cuboid, Pose)> = (0..PAIRS)
        .map(|i| {
            let (a, b) = (Cuboid { half_extents: Vec3::splat(0.5) }, Cuboid { half_extents: Vec3::splat(0.5) });
            let pb = Pose::new(offset(&mut rng, i, 1.0), rng.rotation());
            (a, Pose::new(Vec3::ZERO, rng.rotation()), b, pb)
        })
        .collect();
    g.bench_function("cuboid_cuboid_sat_manifold", |bch| {
        bch.iter(|| boxes.iter().filter_map(|(a, pa, b, pb)| contact_cuboid_cuboid(a, pa, b, pb, tol)).count())
    });

    let hulls: Vec<(Shape, Pose, Shape, Pose)> = (0..PAIRS)
        .map(|i| {
            let (a, b) = (Shape::ConvexHull(cube_hull(&mut rng)), Shape::ConvexHull(cube_hull(&mut rng)));
            let pb = Pose::new(offset(&mut rng, i, 1.0), rng.rotation());
            (a, Pose::new(Vec3::ZERO, rng.rotation()), b, pb)
        })
        .collect();
    g.bench_function("gjk_bool_hull8_hull8", |bch| {
        bch.iter(|| hulls.iter().filter(|(a, pa, b, pb)| intersect_gjk(a, pa, b, pb, EPS)).count())
    });

    // GJK+EPA: every pair penetrating.
    let deep = deep_hull_pairs(&mut rng, PAIRS);
    g.bench_function("gjk_epa_hull8_hull8", |bch| {
        bch.iter(|| deep.iter().map(|(a, pa, b, pb)| distance(a, pa, b, pb).distance).sum::<Real>())
    });
    g.finish();
}

/// The article's scene: 500 spheres and 500 randomly rotated cubes in a 100³ box.
fn article_scene(c: &mut Criterion) {
    let mut rng = Rng::new(0x0bad_5eed_1234_5678);
    let spheres: Vec<(Vec3, Real)> = (0..500)
        .map(|_| (Vec3::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0), rng.range(0.0, 100.0)), rng.range(1.0, 5.0)))
        .collect();
    let cubes: Vec<(Cuboid, Pose)> = (0..500)
        .map(|_| {
            let h = rng.range(1.0, 5.0);
            let p = Vec3::new(rng.range(0.0, 100.0), rng.range(0.0, 100.0), rng.range(0.0, 100.0));
            (Cuboid { half_extents: Vec3::splat(h) }, Pose::new(p, rng.rotation()))
        })
        .collect();
    let soa = ObbSoa::new(&cubes);
    let mut g = c.benchmark_group("article_500x500");
    g.throughput(Throughput::Elements(250_000));
    g.sample_size(30);
    let mut out = Vec::new();
    for pretest in [false, true] {
        let name = if pretest { "bounding_sphere_pretest" } else { "every_pair" };
        g.bench_function(name, |bch| {
            bch.iter(|| {
                out.clear();
                spheres_vs_obbs(black_box(&spheres), &soa, EPS, pretest, &mut out);
                out.len()
            })
        });
    }
    g.finish();
}

/// `contact()` per pair kind and method on the pairs of the exact-reference suite
/// (`tests/suite/narrowphase/reference.rs`: scene-like sizes, overlaps and gaps, seeded), whose
/// accuracy that suite checks: `reference/<pair>/<method>`, 1,000 pairs an iteration.
fn reference_pairs(c: &mut Criterion) {
    use collidoscope::geometry::ShapeKind as K;
    use collidoscope::narrowphase::{NarrowPhaseKind, contact};
    let mut g = c.benchmark_group("reference");
    g.throughput(Throughput::Elements(PAIRS as u64));
    g.sample_size(20);
    let tol = Tolerance { margin: 0.02, epsilon: EPS };
    let kinds = [
        ("sphere_sphere", K::Sphere, K::Sphere),
        ("sphere_cuboid", K::Sphere, K::Cuboid),
        ("sphere_capsule", K::Sphere, K::Capsule),
        ("sphere_hull", K::Sphere, K::ConvexHull),
        ("cuboid_cuboid", K::Cuboid, K::Cuboid),
        ("cuboid_capsule", K::Cuboid, K::Capsule),
        ("cuboid_hull", K::Cuboid, K::ConvexHull),
        ("capsule_capsule", K::Capsule, K::Capsule),
        ("capsule_hull", K::Capsule, K::ConvexHull),
        ("hull_hull", K::ConvexHull, K::ConvexHull),
    ];
    for (k, (name, ka, kb)) in kinds.into_iter().enumerate() {
        let mut rng = cases::Rng::new(0x14_b000 + k as u64);
        let pairs: Vec<cases::Case> = (0..PAIRS).map(|_| cases::random_case(&mut rng, ka, kb)).collect();
        for &method in NarrowPhaseKind::ALL {
            g.bench_function(format!("{name}/{}", method.cli_name()), |bch| {
                bch.iter(|| {
                    pairs.iter().filter(|p| contact(black_box(&p.a), &p.pa, &p.b, &p.pb, tol, method).is_some()).count()
                })
            });
        }
        // The teaching view's routines for the pairs the analytic method sends through GJK:
        // SAT with clipping for box–hull and hull–hull, the segment's distance to every face
        // and edge (SAT inside) for capsule–hull.
        let teaching = |p: &cases::Case| -> Option<Manifold> {
            use collidoscope::narrowphase::{contact_capsule_hull, contact_cuboid_hull, contact_hull_hull};
            match (&p.a, &p.b) {
                (Shape::Cuboid(a), Shape::ConvexHull(b)) => contact_cuboid_hull(a, &p.pa, b, &p.pb, tol, None),
                (Shape::Capsule(a), Shape::ConvexHull(b)) => contact_capsule_hull(a, &p.pa, b, &p.pb, tol),
                (Shape::ConvexHull(a), Shape::ConvexHull(b)) => contact_hull_hull(a, &p.pa, b, &p.pb, tol, None),
                _ => unreachable!("only the pairs below"),
            }
        };
        if matches!(name, "cuboid_hull" | "capsule_hull" | "hull_hull") {
            g.bench_function(format!("{name}/teaching_view"), |bch| {
                bch.iter(|| pairs.iter().filter(|p| teaching(black_box(p)).is_some()).count())
            });
        }
    }
    // The large hull: 4,096 points on an ellipsoid against boxes placed like the
    // suite's pairs (the hull taken as the suite's hull shape).
    let mut rng = cases::Rng::new(0x14_b0ff);
    let points: Vec<Vec3> = (0..4096).map(|_| rng.unit() * Vec3::new(0.9, 0.6, 0.75)).collect();
    let big = Shape::ConvexHull(std::sync::Arc::new(collidoscope::geometry::ConvexHull::new(&points).unwrap()));
    let pairs: Vec<cases::Case> = (0..PAIRS / 10)
        .map(|_| {
            let mut c = cases::random_case(&mut rng, K::ConvexHull, K::Cuboid);
            // Same placement rule, with the big hull in place of the random one: re-place B.
            c.a = big.clone();
            let dir = (c.pb.translation - c.pa.translation).normalize_or(Vec3::Y);
            let reach = |s: &Shape, p: &Pose, n: Vec3| (p.rotation * s.support(p.rotation.inverse() * n)).dot(n);
            let t = reach(&c.a, &c.pa, dir) + reach(&c.b, &c.pb, -dir) + rng.range(-0.1, 0.05) as Real;
            c.pb.translation = c.pa.translation + dir * t;
            c
        })
        .collect();
    g.throughput(Throughput::Elements((PAIRS / 10) as u64));
    for &method in NarrowPhaseKind::ALL {
        g.bench_function(format!("hull4096_cuboid/{}", method.cli_name()), |bch| {
            bch.iter(|| {
                pairs.iter().filter(|p| contact(black_box(&p.a), &p.pa, &p.b, &p.pb, tol, method).is_some()).count()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, per_pair, article_scene, reference_pairs);
criterion_main!(benches);
