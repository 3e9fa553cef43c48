//! GJK ray cast (van den Bergen, "Ray casting against general convex objects", 2004): moves
//! the ray's point forward by conservative advancement while GJK shrinks the simplex between
//! it and the shape. Works for any shape with a support function.

use crate::geometry::{Ray, RayHit, Shape};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::gjk::closest::{MAX_GJK_ITERATIONS, Simplex, SupportPoint};

/// The first hit of `ray` on `shape` at `pose` with `0 <= t <= max_t`, like
/// [`crate::geometry::ray_cast`]: a ray starting inside hits at `t = 0` with the normal opposing
/// the ray. Accurate to about 1e-5 of the shape's size (curved shapes converge, not land).
pub fn ray_cast_gjk(shape: &Shape, pose: &Pose, ray: &Ray, max_t: Real) -> Option<RayHit> {
    let o = pose.inverse_transform_point(ray.origin);
    let r = pose.inverse_transform_vector(ray.dir);
    let scale = shape.bounding_radius().max(1e-6);
    let tol2 = (1e-5 * scale) * (1e-5 * scale);
    let mut lambda: Real = 0.0;
    let mut x = o;
    let mut normal = Vec3::ZERO;
    // Any point of the shape starts v: its origin (every shape here contains it).
    let mut v = x;
    let mut simplex = Simplex::<SupportPoint>::default();
    for _ in 0..MAX_GJK_ITERATIONS * 2 {
        if v.length_squared() <= tol2 {
            break;
        }
        let p = shape.support(v);
        let w = x - p;
        let vw = v.dot(w);
        if vw > 0.0 {
            let vr = v.dot(r);
            if vr >= 0.0 {
                return None;
            }
            lambda -= vw / vr;
            if lambda > max_t {
                return None;
            }
            x = o + r * lambda;
            normal = v;
        }
        if !simplex.points().iter().any(|q| q.a == p) {
            if simplex.len == 4 {
                break;
            }
            simplex.pts[simplex.len] = SupportPoint { w: x - p, a: p, b: Vec3::ZERO };
            simplex.len += 1;
        }
        for q in &mut simplex.pts[..simplex.len] {
            q.w = x - q.a;
        }
        v = simplex.reduce();
        if simplex.len == 4 {
            break;
        }
    }
    if lambda == 0.0 || normal == Vec3::ZERO {
        return Some(RayHit { t: 0.0, point: ray.origin, normal: -ray.dir.normalize_or(Vec3::Y) });
    }
    Some(RayHit { t: lambda, point: pose.transform_point(x), normal: pose.transform_vector(normal.normalize()) })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ray_cast;
    use crate::math::Quat;

    #[test]
    fn matches_the_closed_form_casts() {
        let shapes = [Shape::sphere(1.0), Shape::cuboid(Vec3::new(1.0, 0.5, 2.0)), Shape::capsule(0.7, 0.4)];
        let pose = Pose::new(Vec3::new(0.3, -0.2, 5.0), Quat::from_rotation_x(0.7) * Quat::from_rotation_y(0.3));
        for s in &shapes {
            for dir in [Vec3::Z, Vec3::new(0.05, -0.03, 1.0), Vec3::new(0.1, 0.1, 1.0)] {
                let ray = Ray::new(Vec3::ZERO, dir);
                let a = ray_cast(s, &pose, &ray, 100.0);
                let g = ray_cast_gjk(s, &pose, &ray, 100.0);
                match (a, g) {
                    (Some(a), Some(g)) => {
                        assert!((a.t - g.t).abs() < 1e-3, "{s:?} {a:?} {g:?}");
                        assert!((a.normal - g.normal).length() < 2e-2, "{s:?} {a:?} {g:?}");
                    }
                    (None, None) => {}
                    _ => panic!("{s:?} {dir} {a:?} {g:?}"),
                }
            }
        }
    }
}
