//! Wire outlines of posed shapes, for the CCD overlay: a sweep is drawn as the shape where it
//! starts, where it ends and the path of its centre between.

use crate::debug_draw::{Color, DebugDraw, DrawCategory};
use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};

/// Segments per full circle of a round outline.
const CIRCLE_SEGMENTS: usize = 16;

/// Draws `shape` at `pose` as lines: a box's or hull's edges, a sphere's three great circles,
/// a capsule's end circles, its four side lines and its caps' arcs.
pub fn shape_outline(draw: &mut DebugDraw, category: DrawCategory, shape: &Shape, pose: &Pose, color: Color) {
    if !draw.wants(category) {
        return;
    }
    let w = |p: Vec3| pose.transform_point(p);
    match shape {
        Shape::Sphere(s) => {
            for (u, v) in [(Vec3::X, Vec3::Y), (Vec3::Y, Vec3::Z), (Vec3::Z, Vec3::X)] {
                arc(draw, category, pose, Vec3::ZERO, u * s.radius, v * s.radius, 1.0, color);
            }
        }
        Shape::Cuboid(c) => {
            let h = c.half_extents;
            let corners: [Vec3; 8] = std::array::from_fn(|i| {
                w(Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                ))
            });
            draw.corners(category, &corners, color);
        }
        Shape::Capsule(c) => {
            let (r, y) = (c.radius, c.half_height);
            for end in [-y, y] {
                let o = Vec3::new(0.0, end, 0.0);
                arc(draw, category, pose, o, Vec3::X * r, Vec3::Z * r, 1.0, color);
                // Half circles over the cap, in the two vertical planes.
                let up = Vec3::Y * r * end.signum();
                arc(draw, category, pose, o, Vec3::X * r, up, 0.5, color);
                arc(draw, category, pose, o, Vec3::Z * r, up, 0.5, color);
            }
            for side in [Vec3::X, Vec3::NEG_X, Vec3::Z, Vec3::NEG_Z] {
                draw.line(category, w(side * r - Vec3::Y * y), w(side * r + Vec3::Y * y), color);
            }
        }
        Shape::ConvexHull(h) => {
            let v = h.vertices();
            for &(a, b) in h.edges() {
                draw.line(category, w(v[a as usize]), w(v[b as usize]), color);
            }
        }
        Shape::Compound(c) => {
            for k in c.children() {
                shape_outline(draw, category, &k.shape, &pose.mul(&k.pose), color);
            }
        }
        // A mesh's outline is its bounding box: its triangles can be many.
        Shape::TriangleMesh(_) | Shape::HeightField(_) => {
            let b = shape.local_aabb();
            let corners: [Vec3; 8] = std::array::from_fn(|i| w(b.corner(i)));
            draw.corners(category, &corners, color);
        }
    }
}

/// An arc about `centre` (local frame) from `u` toward `v` (radius vectors at right angles),
/// `turns` of a full circle.
#[allow(clippy::too_many_arguments)]
fn arc(
    draw: &mut DebugDraw,
    category: DrawCategory,
    pose: &Pose,
    centre: Vec3,
    u: Vec3,
    v: Vec3,
    turns: Real,
    color: Color,
) {
    let n = ((CIRCLE_SEGMENTS as Real * turns).ceil() as usize).max(2);
    let span = std::f32::consts::TAU * turns.min(1.0);
    let at = |k: usize| {
        let a = span * k as Real / n as Real;
        pose.transform_point(centre + u * a.cos() + v * a.sin())
    };
    for k in 0..n {
        draw.line(category, at(k), at(k + 1), color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ConvexHull;
    use crate::math::Quat;
    use std::sync::Arc;

    /// Every outline point lies on the shape's surface (distance to the posed shape ~ 0).
    #[test]
    fn outlines_lie_on_the_surface() {
        let hull = ConvexHull::new(&[
            Vec3::new(0.1, 0.0, 0.0),
            Vec3::new(-0.1, 0.05, 0.0),
            Vec3::new(0.0, -0.05, 0.08),
            Vec3::new(0.0, 0.0, -0.1),
        ])
        .unwrap();
        let shapes = [
            Shape::sphere(0.05),
            Shape::cuboid(Vec3::new(0.05, 0.02, 0.03)),
            Shape::capsule(0.1, 0.03),
            Shape::ConvexHull(Arc::new(hull)),
        ];
        let pose = Pose::new(Vec3::new(1.0, 2.0, -0.5), Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1));
        for s in &shapes {
            let mut d = DebugDraw::default();
            shape_outline(&mut d, DrawCategory::Ccd, s, &pose, [1.0; 4]);
            assert!(d.lines.len() >= 4, "{s:?}");
            for l in &d.lines {
                for p in [l.a, l.b] {
                    let gap = crate::narrowphase::distance(&Shape::sphere(0.0), &Pose::from_translation(p), s, &pose);
                    assert!(gap.distance.abs() < 1e-4, "{s:?}: {p} is {} off the surface", gap.distance);
                }
            }
        }
    }
}
