//! Random pairs placed the way a scene meets them: sizes 0.1–2 m, random rotations, overlaps up
//! to 30% of the smaller size and gaps up to 50% of it, plus nearly-aligned, nearly-parallel and
//! exactly-touching families. Deterministic from a seed.

use collidoscope::geometry::{ConvexHull, Shape, ShapeKind};
use collidoscope::math::{Pose, Quat, Real, Vec3};
use collidoscope::scene::SplitMix64;
use std::fmt;
use std::sync::Arc;

/// The scenes' seeded generator (SplitMix64), with draws in f64 for the reference.
pub struct Rng(SplitMix64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(SplitMix64::new(seed))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    pub fn unit(&mut self) -> Vec3 {
        loop {
            let v =
                Vec3::new(self.range(-1.0, 1.0) as Real, self.range(-1.0, 1.0) as Real, self.range(-1.0, 1.0) as Real);
            let l = v.length_squared();
            if l > 1e-4 && l <= 1.0 {
                return v / l.sqrt();
            }
        }
    }

    pub fn rotation(&mut self) -> Quat {
        let q = glam::Vec4::new(
            self.range(-1.0, 1.0) as Real,
            self.range(-1.0, 1.0) as Real,
            self.range(-1.0, 1.0) as Real,
            self.range(-1.0, 1.0) as Real,
        );
        if q.length_squared() < 1e-3 {
            return Quat::IDENTITY;
        }
        Quat::from_vec4(q.normalize())
    }

    /// A rotation by at most `max_deg` degrees about a random axis.
    pub fn small_rotation(&mut self, max_deg: f64) -> Quat {
        let axis = self.unit();
        Quat::from_axis_angle(axis, self.range(0.0, max_deg).to_radians() as Real)
    }

    /// One of the 24 rotations that map the axes onto themselves.
    pub fn axis_rotation(&mut self) -> Quat {
        let quarter = std::f32::consts::FRAC_PI_2;
        let face = [
            Quat::IDENTITY,
            Quat::from_rotation_x(quarter),
            Quat::from_rotation_x(-quarter),
            Quat::from_rotation_x(2.0 * quarter),
            Quat::from_rotation_z(quarter),
            Quat::from_rotation_z(-quarter),
        ][self.below(6)];
        face * Quat::from_rotation_y(quarter * self.below(4) as Real)
    }
}

/// Extents in [0.05, 1] m: sizes 0.1–2 m.
fn half(rng: &mut Rng) -> Real {
    rng.range(0.05, 1.0) as Real
}

pub fn random_shape(rng: &mut Rng, kind: ShapeKind) -> Shape {
    match kind {
        ShapeKind::TriangleMesh | ShapeKind::HeightField | ShapeKind::Compound => {
            panic!("{kind:?} is not a convex shape")
        }
        ShapeKind::Sphere => Shape::sphere(half(rng)),
        ShapeKind::Cuboid => Shape::cuboid(Vec3::new(half(rng), half(rng), half(rng))),
        ShapeKind::Capsule => {
            let r = rng.range(0.05, 0.6) as Real;
            Shape::capsule(half(rng), r)
        }
        ShapeKind::ConvexHull => loop {
            let e = Vec3::new(half(rng), half(rng), half(rng));
            let pts: Vec<Vec3> = if rng.below(3) == 0 {
                // A box with jittered corners: many nearly-parallel faces and edges.
                (0..8)
                    .map(|i| {
                        let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
                        let j = Vec3::new(
                            rng.range(-0.1, 0.1) as Real,
                            rng.range(-0.1, 0.1) as Real,
                            rng.range(-0.1, 0.1) as Real,
                        );
                        Vec3::new(s(1), s(2), s(4)) * e * (Vec3::ONE + j)
                    })
                    .collect()
            } else {
                // Points on an ellipsoid: a general polytope of triangles.
                let n = 6 + rng.below(14);
                (0..n).map(|_| rng.unit() * e).collect()
            };
            if let Ok(h) = ConvexHull::new(&pts) {
                return Shape::ConvexHull(Arc::new(h));
            }
        },
    }
}

/// How a pair was placed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    General,
    NearlyAligned,
    NearlyParallel,
    Touching,
}

pub struct Case {
    pub family: Family,
    pub a: Shape,
    pub pa: Pose,
    pub b: Shape,
    pub pb: Pose,
}

/// Support of a posed shape along world `n`, measured from its centre.
fn reach(s: &Shape, p: &Pose, n: Vec3) -> f64 {
    let local = p.rotation.inverse() * n;
    (p.rotation * s.support(local)).dot(n) as f64
}

/// The size the tolerances scale with: the smaller shape's bounding radius.
pub fn size(a: &Shape, b: &Shape) -> f64 {
    a.bounding_radius().min(b.bounding_radius()) as f64
}

pub fn random_case(rng: &mut Rng, ka: ShapeKind, kb: ShapeKind) -> Case {
    let (a, b) = (random_shape(rng, ka), random_shape(rng, kb));
    let s = size(&a, &b);
    let family = [Family::General, Family::General, Family::NearlyAligned, Family::NearlyParallel, Family::Touching]
        [rng.below(5)];
    let ra = rng.rotation();
    let (rb, dir) = match family {
        Family::General => (rng.rotation(), rng.unit()),
        Family::NearlyAligned | Family::Touching => {
            let tilt = if family == Family::Touching && rng.below(2) == 0 { 0.0 } else { 2.0 };
            let rb = (ra * rng.axis_rotation() * rng.small_rotation(tilt)).normalize();
            let axis = [Vec3::X, Vec3::Y, Vec3::Z][rng.below(3)] * if rng.below(2) == 0 { 1.0 } else { -1.0 };
            (rb, (ra * rng.small_rotation(tilt) * axis).normalize())
        }
        Family::NearlyParallel => {
            let tilt = if rng.below(2) == 0 { 0.0 } else { 0.05 };
            let rb = (ra * rng.small_rotation(tilt)).normalize();
            (rb, rng.unit())
        }
    };
    let pa = Pose::new(
        Vec3::new(rng.range(-5.0, 5.0) as Real, rng.range(-5.0, 5.0) as Real, rng.range(-5.0, 5.0) as Real),
        ra,
    );
    // Overlap along `dir` is -gap; the true penetration is at most that.
    let gap = match family {
        Family::Touching => 0.0,
        _ if rng.below(4) < 3 => rng.range(-0.3, 0.0) * s,
        _ => rng.range(0.0, 0.5) * s,
    };
    let t = reach(&a, &Pose::new(Vec3::ZERO, ra), dir) + reach(&b, &Pose::new(Vec3::ZERO, rb), -dir) + gap;
    let side = rng.unit();
    let lateral = (side - dir * side.dot(dir)) * (rng.range(0.0, 0.25) * s) as Real;
    let pb = Pose::new(pa.translation + dir * t as Real + lateral, rb);
    Case { family, a, pa, b, pb }
}

fn fmt_shape(s: &Shape, f: &mut fmt::Formatter) -> fmt::Result {
    match s {
        Shape::Sphere(x) => write!(f, "sphere radius {:?}", x.radius),
        Shape::Cuboid(x) => write!(f, "cuboid he {:?}", x.half_extents),
        Shape::Capsule(x) => write!(f, "capsule half_height {:?} radius {:?}", x.half_height, x.radius),
        Shape::ConvexHull(h) => write!(f, "hull vertices {:?}", h.vertices()),
        other => write!(f, "{}", other.describe()),
    }
}

impl fmt::Display for Case {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "[{:?}] ", self.family)?;
        fmt_shape(&self.a, f)?;
        write!(f, " at {:?} rot {:?} vs ", self.pa.translation, self.pa.rotation)?;
        fmt_shape(&self.b, f)?;
        write!(f, " at {:?} rot {:?}", self.pb.translation, self.pb.rotation)
    }
}
