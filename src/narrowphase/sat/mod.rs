//! Separating-axis tests: cuboid against cuboid, and any pair with a convex hull.

pub(super) mod cuboid;
pub(super) mod hull;

use crate::math::{Real, Vec3};

/// The least-penetrating of `axes` between a segment `p`–`q` and a convex shape it enters:
/// `separation(l)` gives the separation along the unit axis `l` and the normal (from the shape
/// to the segment) it implies. Axes shorter than 1e-6 are skipped; the first of equal
/// separations wins. Returns the normal, the (negative) separation and the segment's deepest
/// point.
pub(crate) fn segment_sat(
    p: Vec3,
    q: Vec3,
    axes: impl IntoIterator<Item = Vec3>,
    mut separation: impl FnMut(Vec3) -> (Real, Vec3),
) -> (Vec3, Real, Vec3) {
    let mut best = (Vec3::Y, Real::NEG_INFINITY);
    for axis in axes {
        let len = axis.length();
        if len < 1e-6 {
            continue;
        }
        let (s, n) = separation(axis / len);
        if s > best.1 {
            best = (n, s);
        }
    }
    let (n, s) = best;
    let deepest = if p.dot(n) < q.dot(n) { p } else { q };
    (n, s, deepest)
}
