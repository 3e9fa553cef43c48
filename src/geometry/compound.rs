//! Compound shapes: convex children (sphere, cuboid, capsule, hull), each at a pose in the
//! compound's frame, built and checked once. The build re-centres the children on their joint
//! centre of mass (uniform density), so the body's origin is that centre, as for a hull.

use super::{Aabb, MassProperties, Ray, RayHit, Shape};
use crate::math::{Mat3, Pose, Real, Vec3};
use thiserror::Error;

/// One child of a compound: a convex shape at a pose in the compound's frame.
#[derive(Clone, Debug, PartialEq)]
pub struct CompoundChild {
    /// The child's shape (sphere, cuboid, capsule or hull).
    pub shape: Shape,
    /// Where it sits in the compound's frame.
    pub pose: Pose,
}

/// Why a compound cannot be built; each names the child.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum CompoundError {
    /// No child at all.
    #[error("the compound is empty: give at least one child")]
    Empty,
    /// A child that is itself a compound, a triangle mesh or a height field.
    #[error("child {index} is a {kind}: a compound's children are spheres, cuboids, capsules and hulls")]
    NotConvex {
        /// The child.
        index: usize,
        /// What it is.
        kind: &'static str,
    },
    /// A child with a non-finite or non-positive size.
    #[error("child {index} is not a valid shape: {reason}")]
    BadShape {
        /// The child.
        index: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// A child whose position or rotation is not finite (or whose rotation is zero).
    #[error("child {index} has a pose that is not finite: {pose:?}")]
    NonFinitePose {
        /// The child.
        index: usize,
        /// The pose as given.
        pose: Pose,
    },
}

/// Convex children at local poses; shared between bodies through an `Arc` in [`Shape`].
#[derive(Clone, Debug, PartialEq)]
pub struct Compound {
    children: Vec<CompoundChild>,
    aabb: Aabb,
    radius: Real,
    shift: Vec3,
    unit_mass: MassProperties,
}

impl Compound {
    /// Builds a compound from its children, moving them so that their joint centre of mass (at
    /// one density) is the origin; [`Compound::shift`] is what was added to their positions.
    pub fn new(children: Vec<CompoundChild>) -> Result<Self, CompoundError> {
        if children.is_empty() {
            return Err(CompoundError::Empty);
        }
        let mut children = children;
        for (index, c) in children.iter_mut().enumerate() {
            check_child(index, c)?;
            c.pose.rotation = c.pose.rotation.normalize();
        }
        let uncentred = joint_mass(&children);
        let com = uncentred.local_com;
        // Children already centred (a saved state) keep their exact poses, so they reload bit-exact.
        let shift = if com.length() > 1e-6 * radius_of(&children).max(1e-3) { -com } else { Vec3::ZERO };
        for c in &mut children {
            c.pose.translation += shift;
        }
        let unit_mass = MassProperties { local_com: Vec3::ZERO, ..uncentred };
        let aabb = children.iter().fold(Aabb::EMPTY, |b, c| b.merge(&c.shape.aabb(&c.pose)));
        let radius = radius_of(&children);
        Ok(Self { children, aabb, radius, shift, unit_mass })
    }

    /// The children, re-centred.
    pub fn children(&self) -> &[CompoundChild] {
        &self.children
    }

    /// The offset that was added to the children's positions to centre the compound.
    pub fn shift(&self) -> Vec3 {
        self.shift
    }

    /// The bounding box of the children in the compound's frame.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// Radius of a sphere about the centre of mass that holds every child.
    pub fn bounding_radius(&self) -> Real {
        self.radius
    }

    /// Mass, centre of mass (the origin) and inertia at `density`: the children's, each turned
    /// into the compound's frame and moved to the joint centre by the parallel-axis theorem.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        MassProperties {
            mass: self.unit_mass.mass * density,
            local_com: Vec3::ZERO,
            inertia: self.unit_mass.inertia * density,
        }
    }

    /// The radius of the largest ball about the origin that one child holds (zero when none
    /// holds the origin): a child's own inner ball ([`Shape::inner_radius`]) less its centre's
    /// distance from the origin.
    pub fn inner_radius(&self) -> Real {
        self.children.iter().map(|c| c.shape.inner_radius() - c.pose.translation.length()).fold(0.0, Real::max)
    }

    /// The farthest point of the children along `dir` (the support of their convex hull).
    pub fn support(&self, dir: Vec3) -> Vec3 {
        let mut best = (Vec3::ZERO, Real::NEG_INFINITY);
        for c in &self.children {
            let p = c.pose.transform_point(c.shape.support(c.pose.inverse_transform_vector(dir)));
            let d = p.dot(dir);
            if d > best.1 {
                best = (p, d);
            }
        }
        best.0
    }

    /// The nearest hit of a ray (in the compound's frame) on any child, by a loop over the
    /// children whose boxes the ray meets: compounds have few children, so no tree.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<RayHit> {
        let mut best: Option<RayHit> = None;
        for c in &self.children {
            let limit = best.map_or(max_t, |h| h.t);
            if super::ray_aabb(&c.shape.aabb(&c.pose), ray, limit).is_none() {
                continue;
            }
            if let Some(h) = super::ray_cast(&c.shape, &c.pose, ray, limit)
                && best.is_none_or(|b| h.t < b.t)
            {
                best = Some(h);
            }
        }
        best
    }
}

fn radius_of(children: &[CompoundChild]) -> Real {
    children.iter().map(|c| c.pose.translation.length() + c.shape.bounding_radius()).fold(0.0, Real::max)
}

fn check_child(index: usize, c: &CompoundChild) -> Result<(), CompoundError> {
    let bad = |reason: String| Err(CompoundError::BadShape { index, reason });
    let size_ok = |x: Real| x.is_finite() && x > 0.0;
    match &c.shape {
        Shape::Compound(_) => return Err(CompoundError::NotConvex { index, kind: "compound" }),
        Shape::TriangleMesh(_) => return Err(CompoundError::NotConvex { index, kind: "triangle mesh" }),
        Shape::HeightField(_) => return Err(CompoundError::NotConvex { index, kind: "height field" }),
        Shape::Sphere(s) if !size_ok(s.radius) => return bad(format!("sphere radius {}", s.radius)),
        Shape::Cuboid(k) if !k.half_extents.to_array().into_iter().all(size_ok) => {
            return bad(format!("cuboid half extents {:?}", k.half_extents));
        }
        Shape::Capsule(k) if !(size_ok(k.radius) && k.half_height.is_finite() && k.half_height >= 0.0) => {
            return bad(format!("capsule half height {} radius {}", k.half_height, k.radius));
        }
        _ => {}
    }
    let q = c.pose.rotation;
    if !c.pose.is_finite() || q.length_squared() < 1e-12 {
        return Err(CompoundError::NonFinitePose { index, pose: c.pose });
    }
    Ok(())
}

/// The children's joint mass properties at density 1, about their joint centre of mass, which
/// `local_com` gives in the compound's frame as the children are placed.
fn joint_mass(children: &[CompoundChild]) -> MassProperties {
    let parts: Vec<(Real, Vec3, Mat3)> = children
        .iter()
        .map(|c| {
            let m = c.shape.mass_properties(1.0);
            let r = Mat3::from_quat(c.pose.rotation);
            (m.mass, c.pose.transform_point(m.local_com), r * m.inertia * r.transpose())
        })
        .collect();
    let mass: Real = parts.iter().map(|p| p.0).sum();
    let com = parts.iter().map(|p| p.1 * p.0).fold(Vec3::ZERO, |a, b| a + b) / mass;
    let inertia = parts.iter().fold(Mat3::ZERO, |acc, &(m, c, i)| acc + i + parallel_axis(m, c - com));
    MassProperties { mass, local_com: com, inertia }
}

/// The inertia a point mass `m` at offset `d` adds about the origin: `m (|d|² I − d dᵀ)`.
pub fn parallel_axis(m: Real, d: Vec3) -> Mat3 {
    let outer = Mat3::from_cols(d * d.x, d * d.y, d * d.z);
    (Mat3::from_diagonal(Vec3::splat(d.length_squared())) - outer) * m
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn child(shape: Shape, at: Vec3) -> CompoundChild {
        CompoundChild { shape, pose: Pose::from_translation(at) }
    }

    fn close(a: Mat3, b: Mat3, tol: Real) -> bool {
        (a - b).to_cols_array().iter().all(|x| x.abs() <= tol)
    }

    #[test]
    fn eight_boxes_make_one_box() {
        // A 2 x 1 x 0.6 box cut in eight, the pieces turned by quarter turns about their own
        // axes where that keeps their shape, and the whole moved off the origin.
        let h = Vec3::new(0.5, 0.25, 0.15);
        let o = Vec3::new(3.0, -1.0, 2.0);
        let mut kids = Vec::new();
        for i in 0..8 {
            let s = Vec3::new(
                if i & 1 == 0 { -1.0 } else { 1.0 },
                if i & 2 == 0 { -1.0 } else { 1.0 },
                if i & 4 == 0 { -1.0 } else { 1.0 },
            );
            let turn = if i % 2 == 0 { Quat::from_rotation_x(std::f32::consts::PI) } else { Quat::IDENTITY };
            kids.push(CompoundChild { shape: Shape::cuboid(h), pose: Pose::new(o + s * h, turn) });
        }
        let c = Compound::new(kids).unwrap();
        let whole = MassProperties::cuboid(h * 2.0, 2.5);
        let m = c.mass_properties(2.5);
        assert!((m.mass - whole.mass).abs() < 1e-4 * whole.mass, "{m:?} vs {whole:?}");
        assert!(close(m.inertia, whole.inertia, 1e-4 * whole.inertia.x_axis.x), "{m:?} vs {whole:?}");
        assert!((c.shift() + o).length() < 1e-5, "{:?}", c.shift());
        let b = c.local_aabb();
        assert!((b.min + h * 2.0).abs().max_element() < 1e-5 && (b.max - h * 2.0).abs().max_element() < 1e-5);
    }

    #[test]
    fn two_spheres_by_the_parallel_axis_theorem() {
        // Radii 0.5 and 0.25 centres 2 m apart along x: the centre of mass divides the gap 1 : 8.
        let c = Compound::new(vec![child(Shape::sphere(0.5), Vec3::ZERO), child(Shape::sphere(0.25), Vec3::X * 2.0)])
            .unwrap();
        let (a, b) = (MassProperties::sphere(0.5, 1.0), MassProperties::sphere(0.25, 1.0));
        let m = c.mass_properties(1.0);
        let com_x = b.mass * 2.0 / (a.mass + b.mass);
        assert!((c.shift().x + com_x).abs() < 1e-6);
        let da = com_x;
        let db = 2.0 - com_x;
        let iyy = a.inertia.y_axis.y + b.inertia.y_axis.y + a.mass * da * da + b.mass * db * db;
        assert!((m.mass - a.mass - b.mass).abs() < 1e-6);
        assert!((m.inertia.x_axis.x - a.inertia.x_axis.x - b.inertia.x_axis.x).abs() < 1e-6, "{m:?}");
        assert!((m.inertia.y_axis.y - iyy).abs() < 1e-5 && (m.inertia.z_axis.z - iyy).abs() < 1e-5, "{m:?}");
        assert!(m.inertia.x_axis.y.abs() < 1e-7);
        assert!((c.bounding_radius() - (db + 0.25)).abs() < 1e-6);
    }

    #[test]
    fn a_turned_child_turns_its_inertia() {
        // A capsule along x (turned from y) has the inertia of one along y with x and y swapped.
        let q = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let c = Compound::new(vec![CompoundChild { shape: Shape::capsule(1.0, 0.3), pose: Pose::new(Vec3::ONE, q) }])
            .unwrap();
        let own = MassProperties::capsule(1.0, 0.3, 1.0);
        let m = c.mass_properties(1.0);
        assert!((m.inertia.x_axis.x - own.inertia.y_axis.y).abs() < 1e-5);
        assert!((m.inertia.y_axis.y - own.inertia.x_axis.x).abs() < 1e-5);
        assert!(c.children()[0].pose.translation.length() < 1e-6);
    }

    #[test]
    fn errors_name_the_child() {
        assert_eq!(Compound::new(vec![]), Err(CompoundError::Empty));
        let ok = child(Shape::sphere(1.0), Vec3::ZERO);
        let nested = Shape::Compound(std::sync::Arc::new(Compound::new(vec![ok.clone()]).unwrap()));
        let e = Compound::new(vec![ok.clone(), child(nested, Vec3::X)]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "child 1 is a compound: a compound's children are spheres, cuboids, capsules and hulls"
        );
        let e = Compound::new(vec![ok.clone(), ok.clone(), child(Shape::sphere(-1.0), Vec3::X)]).unwrap_err();
        assert_eq!(e.to_string(), "child 2 is not a valid shape: sphere radius -1");
        let e = Compound::new(vec![child(Shape::sphere(1.0), Vec3::new(Real::NAN, 0.0, 0.0))]).unwrap_err();
        assert!(matches!(e, CompoundError::NonFinitePose { index: 0, .. }), "{e}");
    }

    #[test]
    fn ray_hits_the_nearest_child() {
        let c = Compound::new(vec![
            child(Shape::sphere(0.5), Vec3::ZERO),
            child(Shape::cuboid(Vec3::splat(0.5)), Vec3::X * 3.0),
        ])
        .unwrap();
        let s = c.shift();
        // From the far side along -x: the box first, its face at x = 3.5.
        let hit = c.ray_cast(&Ray::new(Vec3::X * 10.0 + s, Vec3::NEG_X), 100.0).unwrap();
        assert!((hit.t - 6.5).abs() < 1e-5 && (hit.normal - Vec3::X).length() < 1e-5, "{hit:?}");
        let hit = c.ray_cast(&Ray::new(Vec3::X * -10.0 + s, Vec3::X), 100.0).unwrap();
        assert!((hit.t - 9.5).abs() < 1e-5, "{hit:?}");
        assert!(c.ray_cast(&Ray::new(Vec3::new(1.5, 5.0, 0.0) + s, Vec3::NEG_Y), 100.0).is_none());
    }
}
