//! Ray casts against every shape. Results are in world space; `t` is in units of `ray.dir`.

use super::{Aabb, Capsule, ConvexHull, Cuboid, Ray, RayHit, Shape, Sphere};
use crate::math::{Pose, Real, Vec3};

/// The first hit of `ray` on `shape` at `pose` with `0 <= t <= max_t`. A ray starting inside
/// the shape hits at `t = 0`, its normal opposing the ray.
pub fn ray_cast(shape: &Shape, pose: &Pose, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let local = Ray::new(pose.inverse_transform_point(ray.origin), pose.inverse_transform_vector(ray.dir));
    let hit = match shape {
        Shape::Sphere(s) => ray_sphere(s, &local, max_t),
        Shape::Cuboid(c) => ray_cuboid(c, &local, max_t),
        Shape::Capsule(c) => ray_capsule(c, &local, max_t),
        Shape::ConvexHull(h) => ray_hull(h, &local, max_t),
        Shape::TriangleMesh(m) => m.ray_cast(&local, max_t),
        Shape::HeightField(h) => h.ray_cast(&local, max_t),
        Shape::Compound(c) => c.ray_cast(&local, max_t),
    }?;
    Some(RayHit { t: hit.t, point: pose.transform_point(hit.point), normal: pose.transform_vector(hit.normal) })
}

fn inside_hit(ray: &Ray) -> RayHit {
    RayHit { t: 0.0, point: ray.origin, normal: -ray.dir.normalize_or(Vec3::Y) }
}

/// The ray's unit direction and its length (`None` for a direction of no length). The
/// quadratics below are solved along the unit direction: squared, a direction as short as
/// 10⁻²² (a centre's motion within `f32`'s noise) underflows, and the roots they gave were
/// garbage hits far from the shape.
fn unit(ray: &Ray) -> Option<(Vec3, Real)> {
    let len = ray.dir.length();
    (len > 0.0 && len.is_finite()).then(|| (ray.dir / len, len))
}

/// A sphere about a centre, in the ray's frame.
fn ray_sphere_at(center: Vec3, r: Real, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let m = ray.origin - center;
    let c = m.length_squared() - r * r;
    if c <= 0.0 {
        return Some(inside_hit(ray));
    }
    let (u, len) = unit(ray)?;
    let b = m.dot(u);
    if b > 0.0 {
        return None;
    }
    let disc = b * b - c;
    if disc < 0.0 {
        return None;
    }
    let t = (-b - disc.sqrt()) / len;
    if t > max_t {
        return None;
    }
    let point = ray.at(t);
    Some(RayHit { t, point, normal: (point - center).normalize_or(Vec3::Y) })
}

/// A ray against a sphere at the origin of its frame.
pub fn ray_sphere(s: &Sphere, ray: &Ray, max_t: Real) -> Option<RayHit> {
    ray_sphere_at(Vec3::ZERO, s.radius, ray, max_t)
}

/// Slab method on the box's local AABB; the entry slab gives the normal.
pub fn ray_cuboid(c: &Cuboid, ray: &Ray, max_t: Real) -> Option<RayHit> {
    ray_aabb(&Aabb::from_center_half_extents(Vec3::ZERO, c.half_extents), ray, max_t)
}

/// Slab method on a box; the entry slab gives the normal.
pub fn ray_aabb(b: &Aabb, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let (t0, _) = b.ray_interval(ray.origin, ray.dir, max_t)?;
    if b.contains_point(ray.origin) {
        return Some(inside_hit(ray));
    }
    let point = ray.at(t0);
    // The entry face is the slab whose entry parameter equals t0.
    let mut normal = Vec3::ZERO;
    let mut best = Real::NEG_INFINITY;
    for a in 0..3 {
        let d = ray.dir[a];
        if d == 0.0 {
            continue;
        }
        let (plane, sign) = if d > 0.0 { (b.min[a], -1.0) } else { (b.max[a], 1.0) };
        let t = (plane - ray.origin[a]) / d;
        if t > best {
            best = t;
            normal = Vec3::ZERO;
            normal[a] = sign;
        }
    }
    Some(RayHit { t: t0, point, normal })
}

/// A ray against a capsule in its own frame.
pub fn ray_capsule(c: &Capsule, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let (p, q) = c.segment();
    let r = c.radius;
    // Inside: distance from the origin to the segment is at most r.
    let (_, closest) = crate::geometry::segment::closest_point_segment(p, q, ray.origin);
    if closest.distance_squared(ray.origin) <= r * r {
        return Some(inside_hit(ray));
    }
    // The infinite cylinder around y, clipped to the segment's extent, then the end caps.
    let mut best: Option<RayHit> = None;
    let (o, (d, len)) = (ray.origin, unit(ray)?);
    let a = d.x * d.x + d.z * d.z;
    if a > 0.0 {
        let b = o.x * d.x + o.z * d.z;
        let cc = o.x * o.x + o.z * o.z - r * r;
        let disc = b * b - a * cc;
        if disc >= 0.0 {
            let t = (-b - disc.sqrt()) / a / len;
            if (0.0..=max_t).contains(&t) {
                let pt = ray.at(t);
                if pt.y.abs() <= c.half_height {
                    best = Some(RayHit { t, point: pt, normal: Vec3::new(pt.x, 0.0, pt.z) / r });
                }
            }
        }
    }
    for end in [p, q] {
        if let Some(h) = ray_sphere_at(end, r, ray, max_t)
            && best.is_none_or(|b| h.t < b.t)
        {
            best = Some(h);
        }
    }
    best
}

/// Clips the ray against every face plane of the hull.
pub fn ray_hull(h: &ConvexHull, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let (mut t0, mut t1) = (0.0, max_t);
    let mut normal = None;
    for f in h.faces() {
        let dist = f.offset - f.normal.dot(ray.origin);
        let denom = f.normal.dot(ray.dir);
        if denom == 0.0 {
            if dist < 0.0 {
                return None;
            }
            continue;
        }
        let t = dist / denom;
        if denom < 0.0 {
            if t > t0 {
                t0 = t;
                normal = Some(f.normal);
            }
        } else if t < t1 {
            t1 = t;
        }
        if t0 > t1 {
            return None;
        }
    }
    match normal {
        Some(n) => Some(RayHit { t: t0, point: ray.at(t0), normal: n }),
        None => Some(inside_hit(ray)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn every_shape_answers_a_ray_from_outside() {
        let shapes = [
            Shape::sphere(1.0),
            Shape::cuboid(Vec3::splat(1.0)),
            Shape::capsule(0.5, 1.0),
            Shape::ConvexHull(std::sync::Arc::new(
                ConvexHull::new(&[
                    Vec3::new(-1.0, -1.0, -1.0),
                    Vec3::new(1.0, -1.0, -1.0),
                    Vec3::new(-1.0, 1.0, -1.0),
                    Vec3::new(1.0, 1.0, -1.0),
                    Vec3::new(-1.0, -1.0, 1.0),
                    Vec3::new(1.0, -1.0, 1.0),
                    Vec3::new(-1.0, 1.0, 1.0),
                    Vec3::new(1.0, 1.0, 1.0),
                ])
                .unwrap(),
            )),
        ];
        let pose = Pose::new(Vec3::new(0.0, 0.0, 5.0), Quat::IDENTITY);
        let ray = Ray::new(Vec3::ZERO, Vec3::Z);
        for s in &shapes {
            let h = ray_cast(s, &pose, &ray, 100.0).unwrap_or_else(|| panic!("{s:?}"));
            assert!((h.t - 4.0).abs() < 1e-5, "{s:?} {h:?}");
            assert!((h.normal + Vec3::Z).length() < 1e-5, "{s:?} {h:?}");
            assert!(ray_cast(s, &pose, &ray, 3.9).is_none());
            assert!(ray_cast(s, &pose, &Ray::new(Vec3::ZERO, -Vec3::Z), 100.0).is_none());
            let inside = ray_cast(s, &pose, &Ray::new(pose.translation, Vec3::X), 1.0).unwrap();
            assert_eq!(inside.t, 0.0);
        }
    }

    #[test]
    fn a_ray_shorter_than_f32_noise_beside_a_shape_misses_it() {
        // A centre 20 cm beside another body that moved with it by 10⁻²² m (the Passings
        // detector's ray): the squared direction underflowed, and the capsule and sphere casts
        // hit at 0.7 of the ray, 20 cm from the shape.
        let shapes = [Shape::sphere(0.05), Shape::capsule(0.1, 0.05), Shape::cuboid(Vec3::splat(0.05))];
        let pose = Pose::new(Vec3::new(-2.8, 1.15, 5e-23), Quat::IDENTITY);
        let from = Vec3::new(-2.6, 1.15, 1.4e-22);
        for s in &shapes {
            for len in [1e-22, 1e-30, 1e-38, 1e-6] {
                for dir in [Vec3::Z, -Vec3::Z, -Vec3::X, Vec3::new(-1.0, 0.0, 1.0), Vec3::Y] {
                    let ray = Ray::new(from, dir * len);
                    let hit = ray_cast(s, &pose, &ray, 1.0);
                    assert!(hit.is_none(), "{s:?}, ray {ray:?}: {hit:?}");
                }
            }
            // Its own length still finds the shape.
            let hit = ray_cast(s, &pose, &Ray::new(from, Vec3::new(-0.2, 0.0, 0.0)), 1.0).unwrap();
            assert!((hit.t - 0.75).abs() < 1e-4, "{s:?}: {hit:?}");
        }
    }

    #[test]
    fn rotated_box_normal_is_in_world_space() {
        let s = Shape::cuboid(Vec3::new(1.0, 2.0, 3.0));
        let pose = Pose::new(Vec3::new(10.0, 0.0, 0.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
        let h = ray_cast(&s, &pose, &Ray::new(Vec3::ZERO, Vec3::X), 100.0).unwrap();
        // Rotated 90° about y, the box's z half extent (3) now faces the ray.
        assert!((h.t - 7.0).abs() < 1e-4, "{h:?}");
        assert!((h.normal + Vec3::X).length() < 1e-4);
    }
}
