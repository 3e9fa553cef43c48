//! Convex decomposition of an imported mesh (parry3d's V-HACD) into the hulls of a compound.

use super::ImportedMesh;
use crate::math::Vec3;
use parry3d::math::Vector;
use parry3d::transformation::vhacd::{VHACD, VHACDParameters};

/// The point sets of the convex parts V-HACD finds in `mesh` at `resolution` voxels along the
/// longest side, at most `max_hulls` of them; each part's hull is computed from the mesh's own
/// triangles inside it (exact, not voxel corners).
pub fn decompose(mesh: &ImportedMesh, resolution: u32, max_hulls: u32) -> Vec<Vec<Vec3>> {
    let points: Vec<Vector> = mesh.vertices.iter().map(|v| Vector::new(v.x, v.y, v.z)).collect();
    let params = VHACDParameters { resolution, max_convex_hulls: max_hulls, ..VHACDParameters::default() };
    let vhacd = VHACD::decompose(&params, &points, &mesh.triangles, true);
    vhacd
        .compute_exact_convex_hulls(&points, &mesh.triangles)
        .into_iter()
        .map(|(vs, _)| vs.into_iter().map(|v| Vec3::new(v.x, v.y, v.z)).collect())
        .collect()
}
