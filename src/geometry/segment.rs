use crate::math::{Real, Vec3};

/// Closest points between segments `p1-q1` and `p2-q2` (Ericson, Real-Time Collision
/// Detection 5.1.9). Returns the parameters and points `(s, t, c1, c2)`; degenerate segments
/// (points) are handled.
pub fn closest_points_segments(p1: Vec3, q1: Vec3, p2: Vec3, q2: Vec3) -> (Real, Real, Vec3, Vec3) {
    let d1 = q1 - p1;
    let d2 = q2 - p2;
    let r = p1 - p2;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    const TINY: Real = 1e-12;
    let (s, t);
    if a <= TINY && e <= TINY {
        return (0.0, 0.0, p1, p2);
    }
    if a <= TINY {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= TINY {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > TINY { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    (s, t, p1 + d1 * s, p2 + d2 * t)
}

/// The squared length at or under which [`closest_point_segment`] takes a segment for its start.
pub(crate) const DEGENERATE_LENGTH_SQUARED: Real = 1e-12;

/// The point of segment `a-b` closest to `p`, and its parameter.
pub fn closest_point_segment(a: Vec3, b: Vec3, p: Vec3) -> (Real, Vec3) {
    let ab = b - a;
    let len2 = ab.length_squared();
    if len2 <= DEGENERATE_LENGTH_SQUARED {
        return (0.0, a);
    }
    let t = ((p - a).dot(ab) / len2).clamp(0.0, 1.0);
    (t, a + ab * t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crossing_and_parallel_segments() {
        let (_, _, c1, c2) = closest_points_segments(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, -1.0),
            Vec3::new(0.0, 1.0, 1.0),
        );
        assert!((c1 - Vec3::ZERO).length() < 1e-6 && (c2 - Vec3::Y).length() < 1e-6);
        let (_, _, c1, c2) = closest_points_segments(Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0));
        assert!((c1.distance(c2) - 1.0).abs() < 1e-6);
        let (_, _, c1, c2) = closest_points_segments(Vec3::ZERO, Vec3::ZERO, Vec3::Y, Vec3::Y);
        assert_eq!((c1, c2), (Vec3::ZERO, Vec3::Y));
    }
}
