//! Seams between separate meshes: two static meshes laid edge to edge are two surfaces to the
//! narrow phase, and each one's edge at the seam is a boundary (active: its contacts keep their
//! tilted normals). Welding gives each such edge the normal of the triangle across the seam, so
//! the internal-edge modes treat it like an edge inside one mesh.

use crate::geometry::TriangleMesh;
use crate::math::{Pose, Real, Vec3};
use std::collections::BTreeMap;

/// Edge ends closer than this (m, per coordinate, after rounding to a grid of this size) are
/// the same point.
pub const WELD_DISTANCE: Real = 1e-4;

/// A point on the weld grid.
type Key = [i64; 3];

fn key(p: Vec3) -> Key {
    (p / WELD_DISTANCE).round().to_array().map(|c| c as i64)
}

/// The welds of two meshes' seams (for `a`, for `b`): the boundary edges of `a` (posed at `pa`)
/// and `b` (at `pb`) that coincide, running in opposite directions (consistently wound, as
/// inside one mesh), each matched by exactly one edge of the other; each gets the other
/// triangle's normal in its own mesh's frame, as [`TriangleMesh::weld`] takes them.
pub type Welds = Vec<(u32, usize, Vec3)>;

/// Finds the welds of `a` and `b` ([`Welds`]).
pub fn find_seams(a: &TriangleMesh, pa: &Pose, b: &TriangleMesh, pb: &Pose) -> (Welds, Welds) {
    let ends = |m: &TriangleMesh, p: &Pose, t: u32, k: usize| {
        let tri = m.triangle(t);
        (key(p.transform_point(tri[k])), key(p.transform_point(tri[(k + 1) % 3])))
    };
    // A's boundary edges by their ends in the world; an end pair seen twice is not welded.
    let mut by_ends: BTreeMap<(Key, Key), Option<(u32, usize)>> = BTreeMap::new();
    for (t, k) in a.boundary_edges() {
        by_ends.entry(ends(a, pa, t, k)).and_modify(|e| *e = None).or_insert(Some((t, k)));
    }
    let mut matches: BTreeMap<(u32, usize), Option<(u32, usize)>> = BTreeMap::new();
    for (t, k) in b.boundary_edges() {
        let (s, e) = ends(b, pb, t, k);
        if let Some(&Some(ea)) = by_ends.get(&(e, s)) {
            matches.entry(ea).and_modify(|m| *m = None).or_insert(Some((t, k)));
        }
    }
    let normal_in = |from: &TriangleMesh, pf: &Pose, t: u32, to: &Pose| {
        to.inverse_transform_vector(pf.transform_vector(from.normals()[t as usize]))
    };
    matches
        .into_iter()
        .filter_map(|(ea, eb)| eb.map(|eb| (ea, eb)))
        .map(|((ta, ka), (tb, kb))| ((ta, ka, normal_in(b, pb, tb, pa)), (tb, kb, normal_in(a, pa, ta, pb))))
        .unzip()
}

/// Welds the seams of `a` and `b` ([`find_seams`]); returns how many pairs of edges were welded.
pub fn weld_seams(a: &mut TriangleMesh, pa: &Pose, b: &mut TriangleMesh, pb: &Pose) -> usize {
    let (for_a, for_b) = find_seams(a, pa, b, pb);
    let n = for_a.len();
    a.weld(for_a);
    b.weld(for_b);
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 x 2 m quad (two triangles) facing +y, from x = `x0` to `x0 + 1`.
    fn quad(x0: Real) -> TriangleMesh {
        let v = vec![
            Vec3::new(x0, 0.0, -1.0),
            Vec3::new(x0 + 1.0, 0.0, -1.0),
            Vec3::new(x0, 0.0, 1.0),
            Vec3::new(x0 + 1.0, 0.0, 1.0),
        ];
        TriangleMesh::new(v, vec![[0, 2, 3], [0, 3, 1]]).unwrap()
    }

    #[test]
    fn coincident_edges_weld_both_ways_and_others_do_not() {
        let (mut a, mut b) = (quad(-1.0), quad(0.0));
        assert_eq!(weld_seams(&mut a, &Pose::IDENTITY, &mut b, &Pose::IDENTITY), 1);
        assert_eq!((a.welded_edges(), b.welded_edges()), (1, 1));
        let welded =
            |m: &TriangleMesh| m.boundary_edges().filter(|&(t, k)| m.across(t, k).is_some()).collect::<Vec<_>>();
        let (wa, wb) = (welded(&a), welded(&b));
        assert_eq!((wa.len(), wb.len()), (1, 1));
        assert_eq!(a.across(wa[0].0, wa[0].1), Some(Vec3::Y));
        // The welded edges are the ones at x = 0.
        for (m, (t, k)) in [(&a, wa[0]), (&b, wb[0])] {
            let tri = m.triangle(t);
            assert!(tri[k].x.abs() < 1e-6 && tri[(k + 1) % 3].x.abs() < 1e-6, "{tri:?} edge {k}");
        }
        // Apart by a millimetre, or posed apart: nothing welds.
        let (mut c, mut d) = (quad(-1.0), quad(0.001));
        assert_eq!(weld_seams(&mut c, &Pose::IDENTITY, &mut d, &Pose::IDENTITY), 0);
        let (mut c, mut d) = (quad(-1.0), quad(0.0));
        assert_eq!(weld_seams(&mut c, &Pose::IDENTITY, &mut d, &Pose::from_translation(Vec3::Y * 0.01)), 0);
        // Posed so that they meet: the weld is found in the world.
        let (mut c, mut d) = (quad(-1.0), quad(5.0));
        assert_eq!(weld_seams(&mut c, &Pose::IDENTITY, &mut d, &Pose::from_translation(Vec3::X * -5.0)), 1);
    }
}
