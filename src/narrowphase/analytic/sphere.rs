//! Closed-form tests for pairs with a sphere.

use crate::geometry::{Aabb, Cuboid, Sphere};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::{Manifold, Tolerance};

/// Whether two spheres touch.
pub fn intersect_sphere_sphere(a: &Sphere, pa: &Pose, b: &Sphere, pb: &Pose, eps: Real) -> bool {
    let r = a.radius + b.radius;
    pa.translation.distance_squared(pb.translation) <= r * r + eps
}

/// The contact of two spheres: one point midway through the overlap.
pub fn contact_sphere_sphere(a: &Sphere, pa: &Pose, b: &Sphere, pb: &Pose, tol: Tolerance) -> Option<Manifold> {
    let d = pb.translation - pa.translation;
    let dist2 = d.length_squared();
    let reach = a.radius + b.radius + tol.margin;
    if dist2 > reach * reach + tol.epsilon {
        return None;
    }
    let dist = dist2.sqrt();
    // Coincident centres: any direction separates them; pick +Y so results are deterministic.
    let n = if dist > Real::EPSILON { d / dist } else { Vec3::Y };
    let depth = a.radius + b.radius - dist;
    let point = pa.translation + n * (a.radius - depth * 0.5);
    Some(Manifold::single(n, point, depth, 0))
}

/// The point of a box (at `pose`) closest to `p`, by clamping in the box's frame.
pub fn closest_point_cuboid(c: &Cuboid, pose: &Pose, p: Vec3) -> Vec3 {
    let local = pose.inverse_transform_point(p);
    pose.transform_point(local.clamp(-c.half_extents, c.half_extents))
}

/// The axis-aligned path: a sphere (centre, radius) against a world-space box.
#[inline]
pub fn intersect_sphere_aabb(center: Vec3, radius: Real, b: &Aabb, eps: Real) -> bool {
    let q = center.clamp(b.min, b.max);
    center.distance_squared(q) <= radius * radius + eps
}

/// Whether a sphere and a box touch (the box's closest point to the centre).
pub fn intersect_sphere_cuboid(s: &Sphere, ps: &Pose, c: &Cuboid, pc: &Pose, eps: Real) -> bool {
    let local = pc.inverse_transform_point(ps.translation);
    let q = local.clamp(-c.half_extents, c.half_extents);
    local.distance_squared(q) <= s.radius * s.radius + eps
}

/// Sphere A against box B. A sphere centre inside the box is pushed out through the nearest
/// face.
pub fn contact_sphere_cuboid(s: &Sphere, ps: &Pose, c: &Cuboid, pc: &Pose, tol: Tolerance) -> Option<Manifold> {
    let h = c.half_extents;
    let local = pc.inverse_transform_point(ps.translation);
    let q = local.clamp(-h, h);
    let d = q - local;
    let dist2 = d.length_squared();
    let reach = s.radius + tol.margin;
    if dist2 > reach * reach + tol.epsilon {
        return None;
    }
    if dist2 > 0.0 {
        let dist = dist2.sqrt();
        let n_local = d / dist;
        let depth = s.radius - dist;
        let surface = local + n_local * s.radius;
        let point = pc.transform_point((surface + q) * 0.5);
        // Ids: which box features the closest point lies on (faces clamped per axis).
        let id = feature_of(local, h);
        return Some(Manifold::single(pc.transform_vector(n_local), point, depth, id));
    }
    // Centre inside (or on) the box: leave through the face with the least penetration.
    let gap = h - local.abs();
    let axis = if gap.x <= gap.y && gap.x <= gap.z {
        0
    } else if gap.y <= gap.z {
        1
    } else {
        2
    };
    let sign = if local[axis] < 0.0 { -1.0 } else { 1.0 };
    let mut face_normal = Vec3::ZERO;
    face_normal[axis] = sign;
    let depth = s.radius + gap[axis];
    let mut on_face = local;
    on_face[axis] = sign * h[axis];
    let point = pc.transform_point((on_face + local - face_normal * s.radius) * 0.5);
    // The normal points from the sphere to the box: against the face's outward normal.
    let n = pc.transform_vector(-face_normal);
    Some(Manifold::single(n, point, depth, 64 + axis as u32 * 2 + (sign > 0.0) as u32))
}

fn feature_of(local: Vec3, h: Vec3) -> u32 {
    let mut id = 0;
    for a in 0..3 {
        let code = if local[a] > h[a] {
            1
        } else if local[a] < -h[a] {
            2
        } else {
            0
        };
        id = id * 3 + code;
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn tol() -> Tolerance {
        Tolerance { margin: 0.0, epsilon: 1e-6 }
    }

    #[test]
    fn sphere_against_rotated_box_corner() {
        // The rotated-cube case: a cube turned 45° about y and z, sphere just off its top corner.
        let c = Cuboid { half_extents: Vec3::splat(1.0) };
        let pc = Pose::new(
            Vec3::ZERO,
            Quat::from_rotation_y(std::f32::consts::FRAC_PI_4) * Quat::from_rotation_z(std::f32::consts::FRAC_PI_4),
        );
        let corner_up = (0..8)
            .map(|i| {
                let v = Vec3::new(
                    if i & 1 == 0 { -1.0 } else { 1.0 },
                    if i & 2 == 0 { -1.0 } else { 1.0 },
                    if i & 4 == 0 { -1.0 } else { 1.0 },
                );
                pc.transform_point(v)
            })
            .max_by(|a, b| a.y.total_cmp(&b.y))
            .unwrap();
        let s = Sphere { radius: 0.5 };
        let apart = Pose::from_translation(corner_up + Vec3::Y * 0.51);
        assert!(contact_sphere_cuboid(&s, &apart, &c, &pc, tol()).is_none());
        let touching = Pose::from_translation(corner_up + Vec3::Y * 0.4);
        let m = contact_sphere_cuboid(&s, &touching, &c, &pc, tol()).unwrap();
        assert!((m.points()[0].depth - 0.1).abs() < 1e-4);
        assert!((m.normal - -Vec3::Y).length() < 1e-3, "{:?}", m.normal);
    }

    #[test]
    fn sphere_centre_inside_box_leaves_by_nearest_face() {
        let c = Cuboid { half_extents: Vec3::new(2.0, 1.0, 2.0) };
        let s = Sphere { radius: 0.25 };
        let ps = Pose::from_translation(Vec3::new(0.3, 0.8, -0.1));
        let m = contact_sphere_cuboid(&s, &ps, &c, &Pose::IDENTITY, tol()).unwrap();
        assert!((m.normal - -Vec3::Y).length() < 1e-6);
        assert!((m.points()[0].depth - 0.45).abs() < 1e-5);
    }

    #[test]
    fn coincident_spheres_get_a_unit_normal() {
        let s = Sphere { radius: 1.0 };
        let m = contact_sphere_sphere(&s, &Pose::IDENTITY, &s, &Pose::IDENTITY, tol()).unwrap();
        assert!((m.normal.length() - 1.0).abs() < 1e-6);
        assert!((m.points()[0].depth - 2.0).abs() < 1e-6);
    }
}
