//! The time of impact of any two bodies: convex pairs by [`super::time_of_impact_or_core`],
//! meshes triangle by triangle ([`super::mesh_time_of_impact`]), and compounds child by child:
//! each child is a part carried along its body's sweep ([`Carried`]), every pair of parts whose
//! swept boxes meet is searched, and the earliest hit wins.

use super::mesh::{carried_mesh_time_of_impact, mesh_time_of_impact};
use super::resolve::carried_aabb;
use super::toi::{Carried, Motion, TimeOfImpact, carried_time_of_impact_or_core, time_of_impact_or_core};
use crate::geometry::{Aabb, Shape};
use crate::math::Real;

/// When body shape `a` moving along `sa` first comes within `target` of body shape `b` moving
/// along `sb` (a mesh or height field is static or kinematic, and only `b` may be one). A pair
/// already within `target` at the start is searched by its cores, as
/// [`time_of_impact_or_core`] does (`b_core`: B is a moving body whose core counts too); for a
/// compound, a child that touches is searched by the body's core (about its centre of mass:
/// a point when no child holds a ball about it), so that the body's centre never crosses
/// what it touches.
pub fn pair_time_of_impact(
    a: &Shape,
    sa: &Motion,
    b: &Shape,
    sb: &Motion,
    target: Real,
    b_core: bool,
) -> Option<TimeOfImpact> {
    if !a.is_compound() && !b.is_compound() {
        return if b.is_mesh() {
            mesh_time_of_impact(a, sa, b, sb, target)
        } else {
            time_of_impact_or_core(a, sa, b, sb, target, b_core)
        };
    }
    // A lone shape on B's side (a wall, a floor) needs no list of parts.
    if !b.is_compound() {
        let pb = Carried::body(b, sb);
        return first_part_impact(parts(a, sa), &[pb], &[carried_aabb(&pb)], &mut [None], target, b_core);
    }
    let parts_b: Vec<_> = parts(b, sb).collect();
    let boxes_b: Vec<_> = parts_b.iter().map(carried_aabb).collect();
    first_part_impact(parts(a, sa), &parts_b, &boxes_b, &mut vec![None; parts_b.len()], target, b_core)
}

/// The earliest impact of any of A's parts with any of B's (`boxes_b`: their swept boxes)
/// whose swept boxes meet. `body_cores` keeps A's body core against each part of B, searched
/// once for all of A's children.
fn first_part_impact<'a>(
    parts_a: impl Iterator<Item = Carried<'a>>,
    parts_b: &[Carried],
    boxes_b: &[Aabb],
    body_cores: &mut [Option<Option<TimeOfImpact>>],
    target: Real,
    b_core: bool,
) -> Option<TimeOfImpact> {
    let mut first: Option<TimeOfImpact> = None;
    for pa in parts_a {
        let box_a = carried_aabb(&pa).expanded(2.0 * target + 1e-4);
        for ((pb, box_b), body_core) in parts_b.iter().zip(boxes_b).zip(body_cores.iter_mut()) {
            if !box_a.overlaps(box_b) {
                continue;
            }
            let hit = if pb.shape.is_mesh() {
                carried_mesh_time_of_impact(&pa, pb.shape, pb.motion, target, first.map_or(1.0, |f| f.t))
            } else {
                carried_time_of_impact_or_core(&pa, pb, target, b_core, body_core)
            };
            if let Some(h) = hit
                && first.is_none_or(|f| h.t < f.t)
            {
                first = Some(h);
            }
        }
    }
    first
}

/// The convex parts of a body's shape along its sweep: a compound's children at their poses in
/// it, or the shape itself.
fn parts<'a>(shape: &'a Shape, motion: &'a Motion) -> impl Iterator<Item = Carried<'a>> {
    let children = match shape {
        Shape::Compound(c) => c.children(),
        _ => &[],
    };
    let whole = (!shape.is_compound()).then(|| Carried::body(shape, motion));
    children.iter().map(move |k| Carried::part(&k.shape, motion, &k.pose, shape)).chain(whole)
}
