use super::{Aabb, Compound, ConvexHull, HeightField, MassProperties, TriangleMesh};
use crate::math::{Pose, Quat, Real, Vec3};
use std::sync::Arc;

#[derive(Clone, Copy, Debug, PartialEq)]
/// A ball centred on the body's origin.
pub struct Sphere {
    /// Its radius, m.
    pub radius: Real,
}

/// A box given by its half extents along its local axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cuboid {
    /// Half its size along each local axis, m.
    pub half_extents: Vec3,
}

/// A segment from `-half_height` to `+half_height` along local Y, swept by a sphere of `radius`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Capsule {
    /// Half the segment's length, m.
    pub half_height: Real,
    /// The rounding radius, m.
    pub radius: Real,
}

/// The kind of a shape, used to dispatch pair tests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ShapeKind {
    /// A ball.
    Sphere,
    /// A box.
    Cuboid,
    /// A capsule.
    Capsule,
    /// A convex hull.
    ConvexHull,
    /// A triangle mesh.
    TriangleMesh,
    /// A height field.
    HeightField,
    /// A compound of convex children.
    Compound,
}

/// A collision shape in its local frame. Hulls and meshes are shared, since many bodies often
/// use one. Triangle meshes and height fields are for static and kinematic bodies only.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A ball.
    Sphere(Sphere),
    /// A box.
    Cuboid(Cuboid),
    /// A capsule.
    Capsule(Capsule),
    /// A convex hull, shared between bodies.
    ConvexHull(Arc<ConvexHull>),
    /// A triangle mesh, shared between bodies.
    TriangleMesh(Arc<TriangleMesh>),
    /// A height field, shared between bodies.
    HeightField(Arc<HeightField>),
    /// Convex children at local poses, shared between bodies.
    Compound(Arc<Compound>),
}

impl Capsule {
    /// The segment's end points in the local frame.
    pub fn segment(&self) -> (Vec3, Vec3) {
        (Vec3::new(0.0, -self.half_height, 0.0), Vec3::new(0.0, self.half_height, 0.0))
    }
}

impl Shape {
    /// A ball of this radius.
    pub fn sphere(radius: Real) -> Self {
        Shape::Sphere(Sphere { radius })
    }

    /// A box of these half extents.
    pub fn cuboid(half_extents: Vec3) -> Self {
        Shape::Cuboid(Cuboid { half_extents })
    }

    /// A capsule of this half height and radius.
    pub fn capsule(half_height: Real, radius: Real) -> Self {
        Shape::Capsule(Capsule { half_height, radius })
    }

    /// Which kind of shape it is.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere(_) => ShapeKind::Sphere,
            Shape::Cuboid(_) => ShapeKind::Cuboid,
            Shape::Capsule(_) => ShapeKind::Capsule,
            Shape::ConvexHull(_) => ShapeKind::ConvexHull,
            Shape::TriangleMesh(_) => ShapeKind::TriangleMesh,
            Shape::HeightField(_) => ShapeKind::HeightField,
            Shape::Compound(_) => ShapeKind::Compound,
        }
    }

    /// The farthest point of the shape along `dir` (local frame; `dir` need not be unit).
    pub fn support(&self, dir: Vec3) -> Vec3 {
        match self {
            Shape::Sphere(s) => dir.normalize_or_zero() * s.radius,
            Shape::Cuboid(c) => Vec3::select(dir.cmplt(Vec3::ZERO), -c.half_extents, c.half_extents),
            Shape::Capsule(c) => {
                let y = if dir.y < 0.0 { -c.half_height } else { c.half_height };
                Vec3::new(0.0, y, 0.0) + dir.normalize_or_zero() * c.radius
            }
            Shape::ConvexHull(h) => h.support(dir),
            // Meshes are not convex: this is the support of their convex hull, by a scan.
            Shape::TriangleMesh(m) => max_along(m.vertices().iter().copied(), dir),
            Shape::HeightField(h) => {
                max_along((0..h.rows()).flat_map(|r| (0..h.cols()).map(move |c| h.point(r, c))), dir)
            }
            // The support of the children's convex hull.
            Shape::Compound(c) => c.support(dir),
        }
    }

    /// The shape's support point without its rounding radius (sphere centre, capsule segment),
    /// together with that radius. GJK works on the core and adds the radius afterwards.
    pub fn core_support(&self, dir: Vec3) -> (Vec3, Real) {
        match self {
            Shape::Sphere(s) => (Vec3::ZERO, s.radius),
            Shape::Capsule(c) => {
                (Vec3::new(0.0, if dir.y < 0.0 { -c.half_height } else { c.half_height }, 0.0), c.radius)
            }
            _ => (self.support(dir), 0.0),
        }
    }

    /// Its bounding box in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Shape::Sphere(s) => Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(s.radius)),
            Shape::Cuboid(c) => Aabb::from_center_half_extents(Vec3::ZERO, c.half_extents),
            Shape::Capsule(c) => {
                Aabb::from_center_half_extents(Vec3::ZERO, Vec3::new(c.radius, c.half_height + c.radius, c.radius))
            }
            Shape::ConvexHull(h) => h.local_aabb(),
            Shape::TriangleMesh(m) => m.local_aabb(),
            Shape::HeightField(h) => h.local_aabb(),
            Shape::Compound(c) => c.local_aabb(),
        }
    }

    /// The tight world AABB of the shape at `pose`.
    pub fn aabb(&self, pose: &Pose) -> Aabb {
        let [b] = self.boxes_at(pose.rotation, [pose.translation]);
        b
    }

    /// `aabb(a).merge(&aabb(b))`, the same bits; when the two poses turn the shape alike (a
    /// body moving without turning, or staying put), what depends on the rotation alone (a
    /// box's turned extents, a hull's turned vertices, a compound's children) is made once.
    pub fn aabb_of_both(&self, a: &Pose, b: &Pose) -> Aabb {
        if a.rotation.to_array().map(Real::to_bits) != b.rotation.to_array().map(Real::to_bits) {
            return self.aabb(a).merge(&self.aabb(b));
        }
        let [x, y] = self.boxes_at(a.rotation, [a.translation, b.translation]);
        x.merge(&y)
    }

    /// The tight world AABB of the shape turned by `rotation` and moved to each of `at`.
    fn boxes_at<const N: usize>(&self, rotation: Quat, at: [Vec3; N]) -> [Aabb; N] {
        let centred = |h: Vec3| at.map(|t| Aabb::from_center_half_extents(t, h));
        match self {
            Shape::Sphere(s) => centred(Vec3::splat(s.radius)),
            Shape::Capsule(c) => {
                let axis = rotation * Vec3::new(0.0, c.half_height, 0.0);
                centred(axis.abs() + Vec3::splat(c.radius))
            }
            Shape::Cuboid(c) => {
                let m = glam::Mat3::from_quat(rotation);
                centred(
                    m.x_axis.abs() * c.half_extents.x
                        + m.y_axis.abs() * c.half_extents.y
                        + m.z_axis.abs() * c.half_extents.z,
                )
            }
            // The box of the placed vertices.
            Shape::ConvexHull(hull) => {
                let mut out = [Aabb::EMPTY; N];
                for &v in hull.vertices() {
                    let r = rotation * v;
                    for (b, t) in out.iter_mut().zip(at) {
                        let p = r + t;
                        *b = Aabb { min: b.min.min(p), max: b.max.max(p) };
                    }
                }
                out
            }
            // The union of the children's tight boxes, each child at `pose.mul(&child.pose)`.
            Shape::Compound(c) => {
                let mut out = [Aabb::EMPTY; N];
                for k in c.children() {
                    let turn = (rotation * k.pose.rotation).normalize();
                    let offset = rotation * k.pose.translation;
                    let boxes = k.shape.boxes_at(turn, at.map(|t| offset + t));
                    for (b, kb) in out.iter_mut().zip(&boxes) {
                        *b = b.merge(kb);
                    }
                }
                out
            }
            // The local box turned with the pose: holds the mesh, tight when unrotated.
            Shape::TriangleMesh(_) | Shape::HeightField(_) => {
                let b = self.local_aabb();
                let m = glam::Mat3::from_quat(rotation);
                let h = b.half_extents();
                let h = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
                let centre = rotation * b.center();
                at.map(|t| Aabb::from_center_half_extents(centre + t, h))
            }
        }
    }

    /// Radius of a sphere about the local origin that holds the whole shape.
    pub fn bounding_radius(&self) -> Real {
        match self {
            Shape::Sphere(s) => s.radius,
            Shape::Cuboid(c) => c.half_extents.length(),
            Shape::Capsule(c) => c.half_height + c.radius,
            Shape::ConvexHull(h) => h.bounding_radius(),
            Shape::TriangleMesh(m) => m.bounding_radius(),
            Shape::HeightField(h) => h.bounding_radius(),
            Shape::Compound(c) => c.bounding_radius(),
        }
    }

    /// The radius of the largest ball about the shape's origin that the shape holds: the
    /// sphere's radius, a box's smallest half extent, a capsule's radius, a hull's nearest face
    /// plane, the largest some child of a compound holds; zero for a surface (mesh, height
    /// field), which holds no ball.
    pub fn inner_radius(&self) -> Real {
        match self {
            Shape::Sphere(s) => s.radius,
            Shape::Cuboid(c) => c.half_extents.min_element(),
            Shape::Capsule(c) => c.radius,
            Shape::ConvexHull(h) => h.faces().iter().map(|f| f.offset).fold(Real::INFINITY, Real::min).max(0.0),
            Shape::TriangleMesh(_) | Shape::HeightField(_) => 0.0,
            Shape::Compound(c) => c.inner_radius(),
        }
    }

    /// Mass, centre of mass and inertia of the solid shape at `density`.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        match self {
            Shape::Sphere(s) => MassProperties::sphere(s.radius, density),
            Shape::Cuboid(c) => MassProperties::cuboid(c.half_extents, density),
            Shape::Capsule(c) => MassProperties::capsule(c.half_height, c.radius, density),
            Shape::ConvexHull(h) => h.mass_properties(density),
            Shape::Compound(c) => c.mass_properties(density),
            // Static and kinematic only: no mass (scenes reject dynamic meshes).
            Shape::TriangleMesh(_) | Shape::HeightField(_) => MassProperties::diagonal(0.0, Vec3::ZERO),
        }
    }

    /// Whether the shape is a triangle mesh or a height field (static or kinematic bodies only).
    pub fn is_mesh(&self) -> bool {
        matches!(self, Shape::TriangleMesh(_) | Shape::HeightField(_))
    }

    /// Whether the shape is a compound.
    pub fn is_compound(&self) -> bool {
        matches!(self, Shape::Compound(_))
    }

    /// A short human-readable description, e.g. for an inspector.
    pub fn describe(&self) -> String {
        match self {
            Shape::Sphere(s) => format!("sphere r={}", s.radius),
            Shape::Cuboid(c) => {
                let h = c.half_extents;
                format!("cuboid half extents ({}, {}, {})", h.x, h.y, h.z)
            }
            Shape::Capsule(c) => format!("capsule half height {} r={}", c.half_height, c.radius),
            Shape::ConvexHull(h) => {
                format!("convex hull, {} vertices, {} faces", h.vertices().len(), h.faces().len())
            }
            Shape::TriangleMesh(m) => {
                format!("triangle mesh, {} vertices, {} triangles", m.vertices().len(), m.len())
            }
            Shape::HeightField(h) => {
                format!("height field, {} x {} samples, cell {}", h.rows(), h.cols(), h.cell())
            }
            Shape::Compound(c) => format!("compound of {} children", c.children().len()),
        }
    }
}

fn max_along(points: impl Iterator<Item = Vec3>, dir: Vec3) -> Vec3 {
    points
        .fold((Vec3::ZERO, Real::NEG_INFINITY), |(b, bd), p| if p.dot(dir) > bd { (p, p.dot(dir)) } else { (b, bd) })
        .0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn rotated_cuboid_aabb_holds_every_corner() {
        let s = Shape::cuboid(Vec3::new(1.0, 2.0, 0.5));
        let pose = Pose::new(Vec3::new(3.0, -1.0, 2.0), Quat::from_euler(glam::EulerRot::XYZ, 0.4, 0.9, -1.3));
        let b = s.aabb(&pose);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -2.0 } else { 2.0 },
                if i & 4 == 0 { -0.5 } else { 0.5 },
            );
            assert!(b.expanded(1e-5).contains_point(pose.transform_point(c)));
        }
    }

    /// One shape of each kind a body can move with, a compound of every convex kind among them.
    fn moving_shapes() -> Vec<Shape> {
        let hull = ConvexHull::new(&[
            Vec3::new(0.3, 0.0, 0.0),
            Vec3::new(-0.26, 0.04, 0.08),
            Vec3::new(0.0, 0.28, 0.0),
            Vec3::new(0.04, -0.22, 0.04),
            Vec3::new(0.0, 0.0, 0.25),
            Vec3::new(0.08, 0.08, -0.3),
        ])
        .unwrap();
        let convex = [
            Shape::sphere(0.4),
            Shape::cuboid(Vec3::new(0.6, 0.15, 0.2)),
            Shape::capsule(0.35, 0.06),
            Shape::ConvexHull(Arc::new(hull)),
        ];
        let mut rng = crate::rng::SplitMix64::new(7);
        let children = (convex.iter())
            .map(|shape| super::super::compound::CompoundChild {
                shape: shape.clone(),
                pose: Pose::new(rng.vec3(-0.8, 0.8), rng.rotation()),
            })
            .collect();
        let compound = Shape::Compound(Arc::new(Compound::new(children).unwrap()));
        convex.into_iter().chain([compound]).collect()
    }

    fn bits(b: &Aabb) -> [u32; 6] {
        [b.min.x, b.min.y, b.min.z, b.max.x, b.max.y, b.max.z].map(Real::to_bits)
    }

    /// The box of a shape at two poses made at once (as a sweep's is) is bit for bit the union
    /// of its boxes at each, whether the poses turn the shape alike or not; a hull's box is bit
    /// for bit the box of its placed vertices, and a compound's the union of its children's at
    /// their world poses.
    #[test]
    fn boxes_at_two_poses_are_the_union_of_each_to_the_bit() {
        let mut rng = crate::rng::SplitMix64::new(11);
        for case in 0..200 {
            for shape in moving_shapes() {
                let a = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
                let moved = Pose::new(a.translation + rng.vec3(-3.0, 3.0), a.rotation);
                let turned = Pose::new(rng.vec3(-50.0, 50.0), rng.rotation());
                for b in [a, moved, turned] {
                    let each = shape.aabb(&a).merge(&shape.aabb(&b));
                    assert_eq!(bits(&shape.aabb_of_both(&a, &b)), bits(&each), "case {case}: {shape:?} {a:?} {b:?}");
                }
                match &shape {
                    Shape::Compound(c) => {
                        let union =
                            (c.children().iter()).fold(Aabb::EMPTY, |u, k| u.merge(&k.shape.aabb(&a.mul(&k.pose))));
                        assert_eq!(bits(&shape.aabb(&a)), bits(&union), "case {case}: {a:?}");
                    }
                    Shape::ConvexHull(h) => {
                        let placed = Aabb::from_points(h.vertices().iter().map(|&v| a.transform_point(v)));
                        assert_eq!(bits(&shape.aabb(&a)), bits(&placed), "case {case}: {a:?}");
                    }
                    _ => {}
                }
            }
        }
    }

    /// Each moving shape's box holds the shape and touches it on every side: the box of its
    /// support points along the six axes.
    #[test]
    fn boxes_are_tight() {
        let mut rng = crate::rng::SplitMix64::new(5);
        for case in 0..200 {
            for shape in moving_shapes() {
                let pose = Pose::new(rng.vec3(-20.0, 20.0), rng.rotation());
                let b = shape.aabb(&pose);
                for axis in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::X, -Vec3::Y, -Vec3::Z] {
                    let far = pose.transform_point(shape.support(pose.inverse_transform_vector(axis))).dot(axis);
                    let side = if axis.max_element() > 0.0 { b.max.dot(axis) } else { b.min.dot(axis) };
                    assert!((far - side).abs() < 1e-4, "case {case}: {shape:?} along {axis}: {far} against {side}");
                }
            }
        }
    }

    #[test]
    fn support_points_are_extreme() {
        let shapes = [Shape::sphere(0.5), Shape::cuboid(Vec3::new(1.0, 0.2, 0.3)), Shape::capsule(1.0, 0.25)];
        let d = Vec3::new(0.3, -0.8, 0.5);
        for s in shapes {
            let p = s.support(d);
            let b = s.local_aabb();
            assert!(b.expanded(1e-5).contains_point(p), "{s:?}");
            assert!(p.dot(d) >= s.support(-d).dot(d));
        }
    }
}
