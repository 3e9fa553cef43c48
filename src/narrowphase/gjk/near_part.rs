//! Large cuboids measured by their part near the other shape, so that GJK and EPA work on
//! coordinates of the small shape's size.

use crate::geometry::Shape;
use crate::math::{Pose, Real, Vec3};

/// The part of cuboid `big` near `other`, as a smaller cuboid and its pose, when `big` is many
/// times larger. In f32, GJK and EPA lose millimetres when the Minkowski difference spans tens
/// of metres around a gap or depth of a few millimetres (a 5 cm body on a 40 m floor); the part
/// near the body gives the same answer with coordinates of the body's size.
///
/// The part keeps everything of `big` within `R = |s| + 3r` of the other's centre `c` (`s` the
/// signed distance from `c` to the cuboid's surface, `r` the other's bounding radius). Separated
/// by `d <= s`, the nearest point of `big` is within `d + r < R` of `c`, so it is kept. Overlapping,
/// the depth is at most `|s| + r`, while escaping through a face the cut made would take at
/// least `R - r > |s| + r`: the cut never wins.
pub(crate) fn near_part(big: &Shape, pbig: &Pose, other: &Shape, pother: &Pose) -> Option<(Shape, Pose)> {
    near_part_within(big, pbig, other, pother, 0.0)
}

/// [`near_part`] keeping `extra` metres more all round: what the other shape can reach of `big`
/// as the two close by up to `extra` (a speculative contact's margin).
pub(crate) fn near_part_within(
    big: &Shape,
    pbig: &Pose,
    other: &Shape,
    pother: &Pose,
    extra: Real,
) -> Option<(Shape, Pose)> {
    let Shape::Cuboid(c) = big else { return None };
    let h = c.half_extents;
    let r = other.bounding_radius();
    // The reach below is at least `3r`: a cuboid not many times that is never cut (the answer
    // the full test gives, without moving the other's centre into its frame).
    if h.max_element() <= NEAR_PART_RATIO * (3.0 * r) {
        return None;
    }
    let centre = pbig.inverse_transform_point(pother.translation);
    let q = centre.abs() - h;
    let signed = q.max(Vec3::ZERO).length() + q.max_element().min(0.0);
    let reach = signed.abs() + 3.0 * r + extra.max(0.0);
    if !reach.is_finite() || h.max_element() <= NEAR_PART_RATIO * reach {
        return None;
    }
    let (lo, hi) = ((centre - reach).max(-h), (centre + reach).min(h));
    let mid = (lo + hi) * 0.5;
    Some((Shape::cuboid((hi - lo) * 0.5), Pose::new(pbig.transform_point(mid), pbig.rotation)))
}

/// A cuboid is cut to its part near the other shape when one of its half extents is more than
/// this many times the part's reach.
const NEAR_PART_RATIO: Real = 4.0;
