//! Time of impact against triangle meshes and height fields: conservative advancement of the
//! moving shape against each triangle the mesh's BVH (or the height field's grid) finds in the
//! box of the sweep, with the triangle's separating gap ([`gap_shape_triangle`]) as the lower
//! bound the search advances on. The first triangle hit wins.

use super::resolve::carried_aabb;
use super::toi::{
    Advance, Carried, Motion, Probe, TimeOfImpact, advance_on, angular_reach, core_at_once, touching_core,
};
use crate::geometry::{Aabb, Shape};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::mesh::{MeshRef, gap_shape_triangle};

/// When shape `a` moving along `sa` first comes within `target` of the mesh or height field
/// `mesh` moving along `sm` (a static mesh: [`Motion::stationary`]). Like
/// [`super::time_of_impact_or_core`]: a shape already within `target` of a triangle at the start
/// is searched by its core (a ball of a quarter of its [`Shape::inner_radius`]) against every triangle,
/// which it must not reach (an impact at once when it is within `target` and closing in). The normal
/// points from `a` to the mesh. `None` when `mesh` is not a mesh or nothing is hit.
///
/// The triangles searched are those whose boxes overlap the sweep's box, taken in the mesh's
/// frame at its start and end poses: a mesh that turns is covered at its two ends only.
pub fn mesh_time_of_impact(a: &Shape, sa: &Motion, mesh: &Shape, sm: &Motion, target: Real) -> Option<TimeOfImpact> {
    carried_mesh_time_of_impact(&Carried::body(a, sa), mesh, sm, target, 1.0)
}

/// [`mesh_time_of_impact`] for a shape carried by a body (a compound's child): the core is
/// its body's ([`Carried::core`]). Only hits at fractions up to `limit` are looked for (an
/// earlier part's hit already stops the body there); one exactly at `limit` is still reported.
pub(crate) fn carried_mesh_time_of_impact(
    a: &Carried,
    mesh: &Shape,
    sm: &Motion,
    target: Real,
    limit: Real,
) -> Option<TimeOfImpact> {
    let m = MeshRef::of(mesh)?;
    let world_box = carried_aabb(a).expanded(2.0 * target + 1e-4);
    let region = local_box(&world_box, &sm.start).merge(&local_box(&world_box, &sm.end));
    let mut tris: Vec<([Vec3; 3], Vec3)> = Vec::new();
    m.for_each_in_aabb(&region, |_, tri, n| tris.push((tri, n)));
    // Each triangle's gap at the start: whether the shape already touches, and, when it does
    // not, the first probe of its advancement.
    let gaps: Vec<_> = tris.iter().map(|(tri, n)| gap_at(a, sm, tri, *n, 0.0)).collect();
    // A shape already within the target of any triangle is swept by its core against them all
    // (as a convex pair is): its surface may be past some triangles' planes, where their
    // separating directions point the wrong way.
    let tolerance = 0.25 * target.max(1e-4);
    let touching = gaps.iter().flatten().any(|&(gap, _, _)| gap <= target + tolerance);
    let cores: Vec<_> = if touching { a.cores().collect() } else { Vec::new() };
    let searched: Vec<Carried> = if touching {
        cores.iter().map(|(core, local)| Carried { shape: core, motion: a.motion, local: *local, body: core }).collect()
    } else {
        vec![*a]
    };
    let mut first: Option<TimeOfImpact> = None;
    for swept in &searched {
        for ((tri, n), gap) in tris.iter().zip(&gaps) {
            let limit = first.map_or(limit, |f| f.t);
            // The shape itself starts where its gaps were taken; a core, where it lies.
            let start = if touching { gap_at(swept, sm, tri, *n, 0.0) } else { *gap };
            let hit = match advance_triangle(swept, mesh, sm, (tri, *n), start, target, limit) {
                Advance::Hit(h) if touching => Some(TimeOfImpact { point: swept.at(h.t).translation, core: true, ..h }),
                Advance::Hit(h) => Some(h),
                Advance::Miss => None,
                Advance::Touching => core_closing(swept, mesh, sm, tri, *n),
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

/// The box, in the frame of `pose`, that holds the world box `b`.
fn local_box(b: &Aabb, pose: &Pose) -> Aabb {
    let corners = (0..8).map(|k| {
        let pick = |bit: usize, lo: Real, hi: Real| if k & bit == 0 { lo } else { hi };
        pose.inverse_transform_point(Vec3::new(
            pick(1, b.min.x, b.max.x),
            pick(2, b.min.y, b.max.y),
            pick(4, b.min.z, b.max.z),
        ))
    });
    Aabb::from_points(corners)
}

/// A triangle's gap to a shape: `(gap, unit direction from the triangle to the shape in world
/// space, the shape's nearest point in world space)`.
type Gap = (Real, Vec3, Vec3);

/// The triangle's gap to `a` at fraction `t`.
fn gap_at(a: &Carried, sm: &Motion, tri: &[Vec3; 3], n: Vec3, t: Real) -> Option<Gap> {
    let (pa, pm) = (a.at(t), sm.at(t));
    let (gap, dir, point) = gap_shape_triangle(a.shape, &pm.inv_mul(&pa), tri, n)?;
    Some((gap, pm.transform_vector(dir), pm.transform_point(point)))
}

/// Conservative advancement of `a` against one triangle of `mesh`, as [`super::advance`]: the
/// gap along the separating direction cannot close faster than the relative motion along it
/// plus the arcs of both turns, so the search never steps past a touch. Gives up (a miss)
/// beyond `limit`, where an earlier triangle's hit already stops the shape. `start` is the gap
/// at the start ([`gap_at`] at 0), which the caller has taken (`None`: no gap, a miss).
fn advance_triangle(
    a: &Carried,
    mesh: &Shape,
    sm: &Motion,
    (tri, n): (&[Vec3; 3], Vec3),
    start: Option<Gap>,
    target: Real,
    limit: Real,
) -> Advance {
    let rel = a.motion.translation() - sm.translation();
    let spin = a.reach() + angular_reach(mesh, sm.angle());
    let probe = |t: Real| {
        let (gap, dir, point) = if t == 0.0 { start? } else { gap_at(a, sm, tri, n, t)? };
        Some(Probe { gap, normal: -dir, point: point - dir * (0.5 * gap), distance: gap })
    };
    advance_on(probe, rel, spin, target, limit)
}

/// A core already within reach of the triangle at the start: an impact at once when it closes
/// in ([`touching_core`]).
fn core_closing(core: &Carried, mesh: &Shape, sm: &Motion, tri: &[Vec3; 3], n: Vec3) -> Option<TimeOfImpact> {
    let start = gap_at(core, sm, tri, n, 0.0)?;
    let (d0, dir, _) = start;
    let (d1, _, _) = gap_at(core, sm, tri, n, 1.0)?;
    let search = |half| advance_triangle(core, mesh, sm, (tri, n), Some(start), half, 1.0);
    match touching_core(core, sm, d0, d1, -dir, search) {
        Advance::Hit(h) => Some(TimeOfImpact { point: core.at(h.t).translation, core: true, ..h }),
        Advance::Miss => None,
        Advance::Touching => Some(core_at_once(d0, -dir, core.start().translation)),
    }
}
