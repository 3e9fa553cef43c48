//! Settings that do not suit a world's bodies, as sentences the app and the command line show
//! beside the setting: the values are valid, but bodies would end where they cannot be.

use crate::dynamics::Body;
use crate::geometry::Shape;
use crate::math::{Real, length_text};

/// The largest slop, as a fraction of the thinnest fixed solid's thickness, that
/// [`slop_warning`] lets pass. Soft contacts settle half the slop deep and a crowd's weight
/// presses deeper; a body pressed past a slab's middle is pushed out of its far side. In the
/// crowds of `scripts/gen-crowds` at their defaults but the slop, bodies went through a 2 cm
/// floor from a slop of 2 cm (1 of 1,200; 11 at 5 cm) and through a 10 cm floor from 5 cm (1
/// of 500), none at half those slops.
pub const SLOP_PER_THICKNESS: Real = 0.25;

/// The thickness of a solid shape: the smallest extent of its own box (a compound's, its
/// thinnest child's). `None` for a triangle mesh or a height field, surfaces without thickness.
fn thickness(shape: &Shape) -> Option<Real> {
    match shape {
        Shape::TriangleMesh(_) | Shape::HeightField(_) => None,
        Shape::Compound(c) => c.children().iter().filter_map(|k| thickness(&k.shape)).reduce(Real::min),
        _ => {
            let b = shape.local_aabb();
            Some((b.max - b.min).min_element())
        }
    }
}

/// The thinnest solid body that contacts do not move (static or kinematic): its index and
/// thickness ([`thickness`]). Meshes and height fields are left out.
pub fn thinnest_fixed_solid(bodies: &[Body]) -> Option<(usize, Real)> {
    bodies
        .iter()
        .enumerate()
        .filter(|(_, b)| !b.is_dynamic())
        .filter_map(|(i, b)| thickness(&b.shape).map(|t| (i, t)))
        .filter(|(_, t)| t.is_finite() && *t > 0.0)
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

/// A warning when `slop` (the penetration resting contacts keep) is more than
/// [`SLOP_PER_THICKNESS`] of the thinnest fixed solid's thickness: bodies resting on it or
/// pressed into it by others can come out of its far side. `thinnest` is
/// [`thinnest_fixed_solid`] of `bodies` (a viewer keeps it while the bodies stay the same).
pub fn slop_warning(slop: Real, bodies: &[Body], thinnest: Option<(usize, Real)>) -> Option<String> {
    let (i, t) = thinnest?;
    if slop <= SLOP_PER_THICKNESS * t {
        return None;
    }
    let name = bodies[i].name.as_deref().map_or_else(|| format!("body {i}"), |n| format!("'{n}'"));
    Some(format!(
        "slop {} lets resting bodies sink {} into what they rest on, and {name} is only {} thick: a body pressed past its middle comes out of the far side (keep slop at most {})",
        length_text(slop),
        length_text(0.5 * slop),
        length_text(t),
        length_text(SLOP_PER_THICKNESS * t),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyKind, Material};
    use crate::geometry::TriangleMesh;
    use crate::geometry::{Compound, CompoundChild};
    use crate::math::{Pose, Vec3};

    fn body(kind: BodyKind, shape: Shape, name: &str) -> Body {
        let mut b = Body::new(kind, shape, Pose::IDENTITY, Material::default());
        b.name = Some(name.into());
        b
    }

    #[test]
    fn the_thinnest_fixed_solid_is_found_and_meshes_and_dynamic_bodies_are_not() {
        let thin_ball = body(BodyKind::Dynamic, Shape::cuboid(Vec3::new(1.0, 0.001, 1.0)), "thin but dynamic");
        let floor = body(BodyKind::Static, Shape::cuboid(Vec3::new(6.0, 0.05, 6.0)), "floor");
        let paddle = body(BodyKind::Kinematic, Shape::cuboid(Vec3::new(0.5, 0.5, 0.02)), "paddle");
        let mesh = TriangleMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 1, 2]]).unwrap();
        let sheet = body(BodyKind::Static, Shape::TriangleMesh(mesh.into()), "sheet");
        let bodies = vec![thin_ball, floor.clone(), paddle, sheet];
        let (i, t) = thinnest_fixed_solid(&bodies).unwrap();
        assert_eq!((i, t), (2, 0.04));
        assert_eq!(thinnest_fixed_solid(&bodies[..2]), Some((1, 0.1)));
        assert_eq!(thinnest_fixed_solid(&bodies[3..]), None);
        // A compound is as thin as its thinnest child.
        let stool = Compound::new(vec![
            CompoundChild { shape: Shape::cuboid(Vec3::splat(0.5)), pose: Pose::IDENTITY },
            CompoundChild { shape: Shape::cuboid(Vec3::new(0.5, 0.01, 0.5)), pose: Pose::IDENTITY },
        ])
        .unwrap();
        let stool = body(BodyKind::Static, Shape::Compound(stool.into()), "stool");
        assert_eq!(thinnest_fixed_solid(&[floor, stool]).map(|(i, t)| (i, (t * 1e3).round())), Some((1, 20.0)));
    }

    #[test]
    fn a_slop_over_a_quarter_of_the_thinnest_floor_is_flagged_with_its_name() {
        let bodies = vec![body(BodyKind::Static, Shape::cuboid(Vec3::new(6.0, 0.05, 6.0)), "floor")];
        let warning = |slop| slop_warning(slop, &bodies, thinnest_fixed_solid(&bodies));
        assert_eq!(warning(0.001), None, "the default slop");
        assert_eq!(warning(0.025), None, "a quarter of 10 cm");
        let w = warning(0.05).expect("half of 10 cm");
        assert!(w.contains("slop 50 mm") && w.contains("sink 25 mm"), "{w}");
        assert!(w.contains("'floor' is only 100 mm thick") && w.contains("at most 25 mm"), "{w}");
        assert_eq!(slop_warning(0.5, &[], thinnest_fixed_solid(&[])), None, "nothing to go through");
    }
}
