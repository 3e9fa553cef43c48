//! Compound shapes: contacts against a reference built from the children, resting and rolling
//! against closed forms, fast compounds against thin walls, and the scene syntax.

mod ccd;
mod contacts;
mod dynamics;
mod import;
mod scene;

use collidoscope::Shape;
use collidoscope::geometry::{Compound, CompoundChild};
use collidoscope::math::{Pose, Quat, Vec3};
use std::sync::Arc;

/// A compound of these children at these poses.
pub fn compound(children: Vec<(Shape, Pose)>) -> Shape {
    let kids = children.into_iter().map(|(shape, pose)| CompoundChild { shape, pose }).collect();
    Shape::Compound(Arc::new(Compound::new(kids).unwrap()))
}

/// Two spheres of radius `r` joined by a capsule of radius `r / 3` along z, `half` from the
/// centre to each sphere's centre.
pub fn dumbbell(r: f32, half: f32) -> Shape {
    let bar = Pose::new(Vec3::ZERO, Quat::from_rotation_x(std::f32::consts::FRAC_PI_2));
    compound(vec![
        (Shape::sphere(r), Pose::from_translation(Vec3::Z * half)),
        (Shape::sphere(r), Pose::from_translation(-Vec3::Z * half)),
        (Shape::capsule(half, r / 3.0), bar),
    ])
}

/// An L: a long box along x and a short one standing on its end.
pub fn l_shape(s: f32) -> Shape {
    compound(vec![
        (Shape::cuboid(Vec3::new(s, 0.25 * s, 0.25 * s)), Pose::IDENTITY),
        (
            Shape::cuboid(Vec3::new(0.25 * s, 0.5 * s, 0.25 * s)),
            Pose::from_translation(Vec3::new(0.75 * s, 0.75 * s, 0.0)),
        ),
    ])
}

/// A chair `s` metres to a unit: a seat of a thin board 0.5 above its origin, a back, and four
/// thin legs standing on the origin's plane.
pub fn chair(s: f32) -> Shape {
    let leg = |x: f32, z: f32| {
        (Shape::cuboid(Vec3::new(0.03, 0.23, 0.03) * s), Pose::from_translation(Vec3::new(x, 0.23, z) * s))
    };
    compound(vec![
        (Shape::cuboid(Vec3::new(0.3, 0.04, 0.3) * s), Pose::from_translation(Vec3::new(0.0, 0.5, 0.0) * s)),
        (Shape::cuboid(Vec3::new(0.3, 0.35, 0.03) * s), Pose::from_translation(Vec3::new(0.0, 0.89, -0.27) * s)),
        leg(0.25, 0.25),
        leg(-0.25, 0.25),
        leg(0.25, -0.25),
        leg(-0.25, -0.25),
    ])
}
