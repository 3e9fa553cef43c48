//! Issue 14: every contact manifold agrees with an exact f64 reference (tests/suite/narrowphase/exact/), for
//! every pair kind and both narrow-phase methods, on seeded random pairs placed as a scene
//! meets them. `REF_CASES` changes the number of pairs per pair kind (10,000 by default); a
//! failure prints the case.
//!
//! Bars, with `size` the smaller shape's bounding radius and `depth` the exact penetration:
//! - every overlap deeper than √ε has a manifold; no pair farther apart than the speculative
//!   distance (within the `d² <= r² + ε` rule) has one;
//! - the normal is never flipped (more than 90° from the exact minimum-translation normal);
//! - the normal is within 1° of the exact one, or it is a face preference that costs at most 2%
//!   of `size` in extra depth (the shapes' overlap along it minus `depth`);
//! - the deepest point's depth, in ≥ 99.99% of overlapping pairs within 1e-3 × size and never
//!   more than 5e-3 × size off: for two polytopes (boxes, hulls), of how far B must move along
//!   the manifold's own normal to clear A (`directional_depth`: what pushing along that normal
//!   must undo, also for a face-preferred normal); for a pair with a rounded shape, of the exact
//!   depth or of the overlap along the manifold's normal, a face-preferred normal also any depth
//!   between those two.

use super::exact;
use super::exact::cases::{Case, Rng, random_case, size};
use super::exact::{Core, directional_depth, exact_cores, overlap_along};
use collidoscope::geometry::{Shape, ShapeKind};
use collidoscope::math::{Pose, Quat, Vec3};
use collidoscope::narrowphase::{NarrowPhaseKind, Tolerance, contact};
use glam::DVec3;
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4};

const TOL: Tolerance = Tolerance { margin: 0.02, epsilon: 1e-6 };

fn cases() -> usize {
    std::env::var("REF_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000)
}

/// One method's answer on one pair, judged against the reference.
#[derive(Default)]
struct Verdict {
    /// Depth error over size, for an overlapping pair with a manifold.
    depth_err: Option<f64>,
    /// Normal angle in degrees and extra depth over size, for an overlapping pair.
    normal: Option<(f64, f64)>,
    /// A broken hard bar, said in words.
    failure: Option<String>,
}

fn judge(case: &Case, method: NarrowPhaseKind) -> Verdict {
    let (ca, cb) = (Core::new(&case.a, &case.pa), Core::new(&case.b, &case.pb));
    let ex = exact_cores(&ca, &cb);
    let s = size(&case.a, &case.b);
    let depth = -ex.distance;
    let m = contact(&case.a, &case.pa, &case.b, &case.pb, TOL, method);
    let mut v = Verdict::default();
    let reach = ((TOL.margin * TOL.margin + TOL.epsilon) as f64).sqrt();
    let Some(m) = m else {
        if depth > (TOL.epsilon as f64).sqrt() {
            v.failure = Some(format!("no manifold for an overlap of {depth:.6}"));
        }
        return v;
    };
    if ex.distance > reach + 2e-4 {
        v.failure = Some(format!("a manifold for a pair {:.6} apart", ex.distance));
        return v;
    }
    let n = DVec3::new(m.normal.x as f64, m.normal.y as f64, m.normal.z as f64).normalize();
    let reported = m.max_depth() as f64;
    if ex.degenerate {
        return v;
    }
    let cos = n.dot(ex.normal);
    if cos < 0.0 {
        v.failure =
            Some(format!("flipped normal {n:?} (exact {:?}), depth {reported:.6} (exact {depth:.6})", ex.normal));
        return v;
    }
    if depth <= 0.0 {
        return v;
    }
    let along = overlap_along(&ca, &cb, n);
    let angle = cos.min(1.0).acos().to_degrees();
    let extra = (along - depth) / s;
    v.normal = Some((angle, extra));
    // Two polytopes: how far B must move along the normal. Otherwise a face-preferred normal
    // (more than 1° off) may report any depth from the exact one to the overlap along it.
    let err = if ca.radius == 0.0 && cb.radius == 0.0 {
        (reported - directional_depth(&ca, &cb, n)).abs() / s
    } else if angle > 1.0 && reported >= depth && reported <= along {
        0.0
    } else {
        (reported - depth).abs().min((reported - along).abs()) / s
    };
    v.depth_err = Some(err);
    if angle > 1.0 && extra > 0.02 {
        v.failure = Some(format!(
            "normal {angle:.3}° from exact {:?} costs {:.4} × size extra depth (manifold {n:?})",
            ex.normal, extra
        ));
    } else if err > 5e-3 {
        v.failure = Some(format!(
            "depth {reported:.6}, exact {depth:.6}, along the normal {along:.6}: {err:.5} × size off (normal {angle:.3}°)"
        ));
    }
    v
}

#[derive(Default)]
struct Tally {
    pairs: usize,
    overlapping: usize,
    depth_errs: Vec<f64>,
    max_angle: f64,
    face_preferred: usize,
    max_extra: f64,
    failures: Vec<String>,
    /// Overlapping pairs whose depth is more than 1e-3 × size off, with the case.
    loose: Vec<String>,
}

impl Tally {
    fn add(&mut self, case: &Case, v: Verdict) {
        self.pairs += 1;
        if let Some(e) = v.depth_err {
            self.overlapping += 1;
            self.depth_errs.push(e);
            if e > 1e-3 {
                self.loose.push(format!("{e:.5} × size: {case}"));
            }
        }
        if let Some((angle, extra)) = v.normal {
            self.max_angle = self.max_angle.max(angle);
            if angle > 1.0 {
                self.face_preferred += 1;
                self.max_extra = self.max_extra.max(extra);
            }
        }
        if let Some(f) = v.failure {
            self.failures.push(format!("{f}\n    case: {case}"));
        }
    }

    fn quantile(&self, q: f64) -> f64 {
        let mut e = self.depth_errs.clone();
        e.sort_by(f64::total_cmp);
        if e.is_empty() { 0.0 } else { e[((e.len() - 1) as f64 * q).round() as usize] }
    }

    fn summary(&self, label: &str) -> String {
        format!(
            "{label}: {} pairs, {} overlapping; depth error / size max {:.2e} p99.99 {:.2e}; normal max {:.2}°, \
             {} face-preferred (extra depth ≤ {:.4} × size); {} over 1e-3, {} hard failures",
            self.pairs,
            self.overlapping,
            self.quantile(1.0),
            self.quantile(0.9999),
            self.max_angle,
            self.face_preferred,
            self.max_extra,
            self.loose.len(),
            self.failures.len()
        )
    }
}

fn check_pair_kind(ka: ShapeKind, kb: ShapeKind, seed: u64) {
    let mut rng = Rng::new(seed);
    let mut tallies = [Tally::default(), Tally::default()];
    for i in 0..cases() {
        let case = if i % 2 == 0 { random_case(&mut rng, ka, kb) } else { random_case(&mut rng, kb, ka) };
        for (t, &method) in tallies.iter_mut().zip(NarrowPhaseKind::ALL) {
            t.add(&case, judge(&case, method));
        }
    }
    let mut report = String::new();
    let mut ok = true;
    for (t, &method) in tallies.iter().zip(NarrowPhaseKind::ALL) {
        let label = format!("{ka:?}-{kb:?} {}", method.cli_name());
        report += &t.summary(&label);
        report += "\n";
        let allowed = (t.overlapping as f64 * 1e-4).ceil() as usize;
        if !t.failures.is_empty() || t.loose.len() > allowed {
            ok = false;
            for f in t.failures.iter().take(5) {
                report += &format!("  FAIL {f}\n");
            }
            for l in t.loose.iter().take(3) {
                report += &format!("  LOOSE {l}\n");
            }
        }
    }
    println!("{report}");
    assert!(ok, "{report}");
}

macro_rules! pair_kind_suite {
    ($($name:ident: $a:ident, $b:ident, $seed:expr;)*) => {$(
        #[test]
        fn $name() {
            check_pair_kind(ShapeKind::$a, ShapeKind::$b, $seed);
        }
    )*};
}

pair_kind_suite! {
    reference_sphere_sphere: Sphere, Sphere, 0x14_0001;
    reference_sphere_cuboid: Sphere, Cuboid, 0x14_0002;
    reference_sphere_capsule: Sphere, Capsule, 0x14_0003;
    reference_sphere_hull: Sphere, ConvexHull, 0x14_0004;
    reference_cuboid_cuboid: Cuboid, Cuboid, 0x14_0005;
    reference_cuboid_capsule: Cuboid, Capsule, 0x14_0006;
    reference_cuboid_hull: Cuboid, ConvexHull, 0x14_0007;
    reference_capsule_capsule: Capsule, Capsule, 0x14_0008;
    reference_capsule_hull: Capsule, ConvexHull, 0x14_0009;
    reference_hull_hull: ConvexHull, ConvexHull, 0x14_000a;
}

fn q(x: f32, y: f32, z: f32, w: f32) -> Quat {
    Quat::from_xyzw(x, y, z, w).normalize()
}

fn regression(a: Shape, pa: Pose, b: Shape, pb: Pose) {
    let case = Case { family: exact::cases::Family::General, a, pa, b, pb };
    for &method in NarrowPhaseKind::ALL {
        let v = judge(&case, method);
        assert!(v.failure.is_none(), "{}: {}\n  case: {case}", method.cli_name(), v.failure.unwrap());
        let err = v.depth_err.expect("overlapping, with a manifold");
        assert!(err <= 1e-3, "{}: depth {err:.5} × size off\n  case: {case}", method.cli_name());
    }
}

/// Issue 14, example 1: the capsule's deepest point was reported 8 cm too shallow.
#[test]
fn issue14_cuboid_capsule_depth() {
    regression(
        Shape::cuboid(Vec3::new(1.3173466, 0.9014828, 0.6980765)),
        Pose::new(Vec3::new(-2.4887621, -4.796403, -3.894664), q(0.38596776, -0.77686965, 0.15253592, -0.4735348)),
        Shape::capsule(0.96097875, 0.71748406),
        Pose::new(Vec3::new(-3.75429, -3.74622, -4.227352), q(-0.30574578, 0.32967737, -0.8926424, -0.031968117)),
    );
}

/// Issue 14, example 2: GJK's capsule–capsule depth was 0.057 for a true 0.152.
#[test]
fn issue14_capsule_capsule_depth() {
    regression(
        Shape::capsule(1.0394839, 0.5078285),
        Pose::new(Vec3::new(-4.0580106, 3.7555034, 3.0902522), q(0.7779291, 0.5234465, 0.10026446, -0.33283183)),
        Shape::capsule(0.95948493, 0.59663916),
        Pose::new(Vec3::new(-3.8307226, 4.5307665, 3.7187626), q(0.5436081, -0.7639766, -0.33009642, -0.10893277)),
    );
}

/// Issue 14, example 3: nearly face-aligned boxes, where GJK's manifold had the opposite normal
/// and a depth of 2.27 m.
#[test]
fn issue14_cuboid_cuboid_flipped() {
    regression(
        Shape::cuboid(Vec3::new(0.17073177, 0.20034178, 0.10531257)),
        Pose::new(Vec3::new(-1.9314575, -4.904583, -4.744693), q(0.059478983, -0.54600316, -0.8354638, 0.018519612)),
        Shape::cuboid(Vec3::new(0.6331431, 0.66236806, 0.960164)),
        Pose::new(Vec3::new(-3.0001535, -5.078492, -5.15732), q(0.43659797, 0.4553213, 0.7147865, 0.30190217)),
    );
}

/// Issue 14, example 4: shallow overlaps of aligned boxes (0.7, 0.9 and 2.35 mm) must give a
/// manifold of that depth.
#[test]
fn issue14_cuboid_cuboid_shallow() {
    for (overlap, tilt) in [(0.0007, 0.0), (0.0009, 0.3), (0.00235, 0.0), (0.0007, 0.01), (0.00235, 0.5)] {
        let (ha, hb) = (Vec3::new(0.5, 0.25, 0.4), Vec3::new(0.3, 0.35, 0.2));
        let base = Pose::new(Vec3::new(1.5, -2.0, 3.0), Quat::from_rotation_y(0.3));
        let gap = ha.y + hb.y - overlap;
        let pb = Pose::new(
            base.translation + base.rotation * Vec3::new(0.1, gap, -0.05),
            base.rotation * Quat::from_rotation_x(f32::to_radians(tilt) * 1e-3),
        );
        regression(Shape::cuboid(ha), base, Shape::cuboid(hb), pb);
    }
}

/// The reference itself: closed forms it must reproduce.
#[test]
fn reference_matches_closed_forms() {
    let ex = |a: &Shape, pa: &Pose, b: &Shape, pb: &Pose| exact::exact(a, pa, b, pb);
    let id = |x: f32, y: f32, z: f32| Pose::from_translation(Vec3::new(x, y, z));
    // Spheres 3 apart, radii 1 and 0.5.
    let e = ex(&Shape::sphere(1.0), &id(0.0, 0.0, 0.0), &Shape::sphere(0.5), &id(3.0, 0.0, 0.0));
    assert!((e.distance - 1.5).abs() < 1e-12 && (e.normal - DVec3::X).length() < 1e-12);
    // Unit boxes overlapping 0.1 along y, offset along x.
    let c = Shape::cuboid(Vec3::splat(0.5));
    let e = ex(&c, &id(0.0, 0.0, 0.0), &c, &id(0.3, 0.9, 0.0));
    assert!((e.distance + 0.1).abs() < 1e-6 && (e.normal - DVec3::Y).length() < 1e-9, "{e:?}");
    // A box turned 45° about z above another, corner down: edge–face distance.
    let e = ex(&c, &id(0.0, 0.0, 0.0), &c, &Pose::new(Vec3::new(0.0, 1.5, 0.0), Quat::from_rotation_z(FRAC_PI_4)));
    assert!((e.distance - (1.0 - 0.5 * 2f64.sqrt())).abs() < 1e-6, "{e:?}");
    // Crossed boxes along z and x, edge on edge: distance along y.
    let long_x = Shape::cuboid(Vec3::new(1.0, 0.1, 0.1));
    let tilted =
        Pose::new(Vec3::new(0.0, 0.3, 0.0), Quat::from_rotation_y(FRAC_PI_2) * Quat::from_rotation_x(FRAC_PI_4));
    let e = ex(&long_x, &id(0.0, 0.0, 0.0), &long_x, &tilted);
    assert!((e.distance - (0.3 - 0.1 - 0.1 * 2f64.sqrt())).abs() < 1e-6, "{e:?}");
    // Capsules crossing at right angles 1 apart, radii 0.25: 0.5 apart.
    let k = Shape::capsule(1.0, 0.25);
    let e = ex(&k, &id(0.0, 0.0, 0.0), &k, &Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::from_rotation_z(FRAC_PI_2)));
    assert!((e.distance - 0.5).abs() < 1e-6 && (e.normal - DVec3::Z).length() < 1e-6, "{e:?}");
    // A sphere sunk 0.2 into a box's top face near its middle.
    let e = ex(&c, &id(0.0, 0.0, 0.0), &Shape::sphere(0.3), &id(0.1, 0.6, 0.0));
    assert!((e.distance + 0.2).abs() < 1e-6 && (e.normal - DVec3::Y).length() < 1e-6, "{e:?}");
    // A capsule lying across a box's top, sunk 0.05.
    let e = ex(&c, &id(0.0, 0.0, 0.0), &k, &Pose::new(Vec3::new(0.0, 0.7, 0.0), Quat::from_rotation_x(FRAC_PI_2)));
    assert!((e.distance + 0.05).abs() < 1e-6 && (e.normal - DVec3::Y).length() < 1e-6, "{e:?}");
}

/// Shapes of 1–5 cm against a cuboid floor tens or hundreds of metres wide, from 5 mm deep to
/// 5 cm apart, anywhere over it: `distance()` (CCD's time of impact and speculative contacts)
/// stays within f32's resolution at that distance from the origin of the exact answer, and so
/// does the manifold's depth on the 40 m floor. (On the 400 m floor the hull manifold's GJK can
/// miss a 0.2 mm overlap: the manifold path does not cut the floor down as `distance()` does.)
#[test]
fn small_shapes_against_large_floors_match_the_reference() {
    use collidoscope::narrowphase::distance;
    let mut rng = Rng::new(0xd15);
    for (half_width, cases) in [(20.0f32, 3000), (200.0, 600)] {
        let floor = Shape::cuboid(Vec3::new(half_width, 0.5, half_width / 5.0));
        let fp = Pose::new(Vec3::new(0.0, -0.5, 0.0), Quat::IDENTITY);
        for case in 0..cases {
            let s = rng.range(0.01, 0.05) as f32;
            let shape = match case % 3 {
                0 => Shape::capsule(s, s * 0.5),
                1 => loop {
                    let pts: Vec<Vec3> = (0..12).map(|_| rng.unit() * s).collect();
                    if let Ok(h) = collidoscope::geometry::ConvexHull::new(&pts) {
                        break Shape::ConvexHull(std::sync::Arc::new(h));
                    }
                },
                _ => Shape::cuboid(Vec3::new(s, s * 0.5, s * 0.7)),
            };
            let rot = rng.rotation();
            let x = rng.range(-0.7, 0.7) as f32 * half_width;
            let z = rng.range(-0.7, 0.7) as f32 * half_width / 5.0;
            let gap = rng.range(-0.005, 0.05) as f32;
            let low = -(rot * shape.support(rot.inverse() * -Vec3::Y)).y;
            let p = Pose::new(Vec3::new(x, low + gap, z), rot);
            let exact = exact_cores(&Core::new(&shape, &p), &Core::new(&floor, &fp));
            // f32's spacing at the body's distance from the origin, and a little more.
            let bar = 5e-6 + 4.0 * f32::EPSILON as f64 * x.abs().max(z.abs()) as f64;
            let d = distance(&shape, &p, &floor, &fp);
            let err = (d.distance as f64 - exact.distance).abs();
            let what = format!("case {case} on a floor {half_width} m wide: {shape:?} at {p:?}");
            assert!(err <= bar, "distance {} against exact {:.7}: {what}", d.distance, exact.distance);
            if exact.distance < -1e-4 && half_width <= 20.0 {
                let m = contact(&shape, &p, &floor, &fp, TOL, NarrowPhaseKind::Analytic)
                    .unwrap_or_else(|| panic!("no manifold for an overlap of {:.7}: {what}", -exact.distance));
                let depth_err = (m.max_depth() as f64 + exact.distance).abs();
                assert!(depth_err <= bar, "depth {} against exact {:.7}: {what}", m.max_depth(), -exact.distance);
            }
        }
    }
}

/// Issue 30: over 10,000 overlapping box pairs as users place them (sides 0.1–2 m, turned at
/// random or face-aligned, overlapping up to 30% of their reach along a random direction),
/// every manifold's deepest point is how far B must move along the manifold's own normal to
/// clear A (`directional_depth`), within 1e-3 × size, for both methods. That is the overlap of
/// the chosen face where B's deepest vertex lies over it; where that vertex hangs past the face
/// it is less than the projections' overlap along the normal, and pushing by the projections'
/// overlap would throw B clear of A.
#[test]
fn box_pairs_report_the_depth_along_their_own_normal() {
    let mut rng = Rng::new(0x30_b0b0);
    let mut worst = (0.0, String::new());
    let (mut overlapping, mut i) = (0, 0);
    while overlapping < 10_000 {
        i += 1;
        let mut side = || Vec3::new(0.0, 0.0, 0.0).map(|_| rng.range(0.05, 1.0) as f32);
        let (ha, hb) = (side(), side());
        let turn = |rng: &mut Rng| if i % 4 == 0 { rng.axis_rotation() } else { rng.rotation() };
        let pa = Pose::new(rng.unit() * rng.range(0.0, 5.0) as f32, turn(&mut rng));
        let rb = turn(&mut rng);
        let (a, b) = (Shape::cuboid(ha), Shape::cuboid(hb));
        let u = rng.unit();
        let reach = |h: Vec3, r: Quat, dir: Vec3| (r.inverse() * dir).abs().dot(h);
        let gap = (reach(ha, pa.rotation, u) + reach(hb, rb, u)) * (1.0 - rng.range(0.0, 0.3) as f32);
        let pb = Pose::new(pa.translation + u * gap, rb);
        let (ca, cb) = (Core::new(&a, &pa), Core::new(&b, &pb));
        if exact_cores(&ca, &cb).distance >= 0.0 {
            continue;
        }
        overlapping += 1;
        let s = size(&a, &b);
        for &method in NarrowPhaseKind::ALL {
            let m = contact(&a, &pa, &b, &pb, TOL, method).expect("overlapping boxes have a manifold");
            let n = DVec3::new(m.normal.x as f64, m.normal.y as f64, m.normal.z as f64).normalize();
            let err = (m.max_depth() as f64 - directional_depth(&ca, &cb, n)).abs() / s;
            if err > worst.0 {
                let case = Case { family: exact::cases::Family::General, a: a.clone(), pa, b: b.clone(), pb };
                worst = (err, format!("{}: {err:.2e} × size off\n  case: {case}", method.cli_name()));
            }
        }
    }
    assert!(worst.0 <= 1e-3, "{}", worst.1);
}
