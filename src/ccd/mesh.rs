//! Time of impact against triangle meshes and height fields: conservative advancement of the
//! moving shape against each triangle the mesh's BVH (or the height field's grid) finds in the
//! box of the sweep, with the triangle's separating gap ([`gap_shape_triangle`]) as the lower
//! bound the search advances on. The first triangle hit wins.

use super::resolve::sweep_aabb;
use super::toi::{Advance, Probe, Sweep, TimeOfImpact, advance_on, angular_reach, closing_core};
use crate::geometry::{Aabb, Shape};
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::mesh::{MeshRef, gap_shape_triangle};

/// When shape `a` moving along `sa` first comes within `target` of the mesh or height field
/// `mesh` moving along `sm` (a static mesh: [`Sweep::stationary`]). Like
/// [`super::time_of_impact_or_core`]: a shape already within `target` of a triangle at the start
/// is searched by its core (a ball of a quarter of its [`Shape::inner_radius`]) against every triangle,
/// which it must not reach (an impact at once when it is within `target` and closing in). The normal
/// points from `a` to the mesh. `None` when `mesh` is not a mesh or nothing is hit.
///
/// The triangles searched are those whose boxes overlap the sweep's box, taken in the mesh's
/// frame at its start and end poses: a mesh that turns is covered at its two ends only.
pub fn mesh_time_of_impact(a: &Shape, sa: &Sweep, mesh: &Shape, sm: &Sweep, target: Real) -> Option<TimeOfImpact> {
    let m = MeshRef::of(mesh)?;
    let world_box = sweep_aabb(a, sa).expanded(2.0 * target + 1e-4);
    let region = local_box(&world_box, &sm.start).merge(&local_box(&world_box, &sm.end));
    let mut tris: Vec<([Vec3; 3], Vec3)> = Vec::new();
    m.for_each_in_aabb(&region, |_, tri, n| tris.push((tri, n)));
    // A shape already within the target of any triangle is swept by its core against them all
    // (as a convex pair is): its surface may be past some triangles' planes, where their
    // separating directions point the wrong way.
    let tolerance = 0.25 * target.max(1e-4);
    let touching = tris
        .iter()
        .any(|(tri, n)| gap_at(a, sa, sm, tri, *n, 0.0).is_some_and(|(gap, _, _)| gap <= target + tolerance));
    let core = Shape::sphere(0.25 * a.inner_radius());
    let (swept, is_core) = if touching { (&core, true) } else { (a, false) };
    let mut first: Option<TimeOfImpact> = None;
    for (tri, n) in &tris {
        let limit = first.map_or(1.0, |f| f.t);
        let hit = match advance_triangle(swept, sa, mesh, sm, tri, *n, target, limit) {
            Advance::Hit(h) if is_core => Some(TimeOfImpact { point: sa.at(h.t).translation, core: true, ..h }),
            Advance::Hit(h) => Some(h),
            Advance::Miss => None,
            Advance::Touching => core_closing(&core, sa, sm, tri, *n),
        };
        if let Some(h) = hit
            && first.is_none_or(|f| h.t < f.t)
        {
            first = Some(h);
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

/// The triangle's gap to `a` at fraction `t`: `(gap, unit direction from the triangle to the
/// shape in world space, the shape's nearest point in world space)`.
fn gap_at(a: &Shape, sa: &Sweep, sm: &Sweep, tri: &[Vec3; 3], n: Vec3, t: Real) -> Option<(Real, Vec3, Vec3)> {
    let (pa, pm) = (sa.at(t), sm.at(t));
    let (gap, dir, point) = gap_shape_triangle(a, &pm.inv_mul(&pa), tri, n)?;
    Some((gap, pm.transform_vector(dir), pm.transform_point(point)))
}

/// Conservative advancement of `a` against one triangle of `mesh` ([`advance_on`], as
/// [`super::advance`]), on the triangle's separating gap. Gives up (a miss) beyond `limit`,
/// where an earlier triangle's hit already stops the shape.
#[allow(clippy::too_many_arguments)]
fn advance_triangle(
    a: &Shape,
    sa: &Sweep,
    mesh: &Shape,
    sm: &Sweep,
    tri: &[Vec3; 3],
    n: Vec3,
    target: Real,
    limit: Real,
) -> Advance {
    let rel = sa.translation() - sm.translation();
    let spin = angular_reach(a, sa.angle()) + angular_reach(mesh, sm.angle());
    let probe = |t: Real| {
        let (gap, dir, point) = gap_at(a, sa, sm, tri, n, t)?;
        Some(Probe { gap, normal: -dir, point: point - dir * (0.5 * gap), distance: gap })
    };
    advance_on(probe, rel, spin, target, limit)
}

/// A core already within reach of the triangle at the start: an impact at once when it is
/// nearer at the end of the sweep (closing in), else none.
fn core_closing(core: &Shape, sa: &Sweep, sm: &Sweep, tri: &[Vec3; 3], n: Vec3) -> Option<TimeOfImpact> {
    let (d0, dir, _) = gap_at(core, sa, sm, tri, n, 0.0)?;
    let (d1, _, _) = gap_at(core, sa, sm, tri, n, 1.0)?;
    closing_core(d0, d1, -dir, sa.start.translation)
}
