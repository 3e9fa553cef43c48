//! Height fields: a grid of heights over the local XZ plane, centred on the origin, with its
//! triangles made on demand (two per cell) instead of stored.

use super::trimesh::{MeshError, ray_triangle};
use super::{Aabb, Ray, RayHit};
use crate::math::{Real, Vec3};

/// `rows x cols` samples `cell` apart: sample (r, c) sits at
/// `x = c * cell - (cols - 1) * cell / 2`, `z = r * cell - (rows - 1) * cell / 2`, `y = height`.
/// Cell (r, c) is split along its diagonal from (r, c) to (r + 1, c + 1); triangle
/// `2 * (r * (cols - 1) + c) + k` is its half `k`, both facing +Y.
#[derive(Clone, Debug, PartialEq)]
pub struct HeightField {
    rows: usize,
    cols: usize,
    cell: Real,
    heights: Vec<Real>,
    aabb: Aabb,
    bounding_radius: Real,
}

impl HeightField {
    /// `heights` row by row (`rows * cols` values).
    pub fn new(rows: usize, cols: usize, cell: Real, heights: Vec<Real>) -> Result<Self, MeshError> {
        if rows < 2 || cols < 2 {
            return Err(MeshError::TooFewSamples { rows, cols });
        }
        if heights.len() != rows * cols {
            return Err(MeshError::HeightCount { rows, cols, got: heights.len() });
        }
        if !(cell.is_finite() && cell > 0.0) {
            return Err(MeshError::BadCellSize(cell));
        }
        if let Some(i) = heights.iter().position(|h| !h.is_finite()) {
            return Err(MeshError::NonFiniteHeight { row: i / cols, col: i % cols, value: heights[i] });
        }
        let (lo, hi) = heights.iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(l, h), &y| (l.min(y), h.max(y)));
        let half = Vec3::new((cols - 1) as Real * cell * 0.5, 0.0, (rows - 1) as Real * cell * 0.5);
        let aabb = Aabb::new(Vec3::new(-half.x, lo, -half.z), Vec3::new(half.x, hi, half.z));
        let bounding_radius = aabb.min.abs().max(aabb.max.abs()).length();
        Ok(Self { rows, cols, cell, heights, aabb, bounding_radius })
    }

    /// Rows of heights (along z).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Columns of heights (along x).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The grid spacing, m.
    pub fn cell(&self) -> Real {
        self.cell
    }

    /// The heights, row by row.
    pub fn heights(&self) -> &[Real] {
        &self.heights
    }

    /// Its bounding box in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        self.aabb
    }

    /// The distance from its origin to its farthest point.
    pub fn bounding_radius(&self) -> Real {
        self.bounding_radius
    }

    /// Number of triangles, two per cell.
    pub fn len(&self) -> usize {
        2 * (self.rows - 1) * (self.cols - 1)
    }

    /// Whether it has no triangle.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Sample (r, c) as a point.
    #[inline]
    pub fn point(&self, r: usize, c: usize) -> Vec3 {
        Vec3::new(
            c as Real * self.cell + self.aabb.min.x,
            self.heights[r * self.cols + c],
            r as Real * self.cell + self.aabb.min.z,
        )
    }

    /// The corners of triangle `t`, counter-clockwise seen from above.
    #[inline]
    pub fn triangle(&self, t: u32) -> [Vec3; 3] {
        let (cell, k) = (t as usize / 2, t % 2);
        let (r, c) = (cell / (self.cols - 1), cell % (self.cols - 1));
        let (p00, p11) = (self.point(r, c), self.point(r + 1, c + 1));
        if k == 0 { [p00, self.point(r + 1, c), p11] } else { [p00, p11, self.point(r, c + 1)] }
    }

    /// The unit normal of triangle `t` (always upward-facing).
    #[inline]
    pub fn normal(&self, t: u32) -> Vec3 {
        let [a, b, c] = self.triangle(t);
        (b - a).cross(c - a).normalize()
    }

    /// The cell range `[r0, r1) x [c0, c1)` whose footprint overlaps `aabb`'s, or `None`.
    fn cells_in(&self, aabb: &Aabb) -> Option<(usize, usize, usize, usize)> {
        if aabb.max.y < self.aabb.min.y || aabb.min.y > self.aabb.max.y {
            return None;
        }
        // Bounds are inclusive, as for box overlap: a box touching a cell's side gets the cell.
        let slack = 1e-3;
        let span = |lo: Real, hi: Real, min: Real, n: usize| {
            let last = (n - 1) as Real;
            let (a, b) = ((lo - min) / self.cell, (hi - min) / self.cell);
            if b < -slack || a > last + slack {
                return None;
            }
            // Widened by a thousandth of a cell against rounding; the triangle filter is exact.
            let a = (a - 1e-3).floor().clamp(0.0, last - 1.0);
            let b = ((b + 1e-3).floor() + 1.0).clamp(1.0, last);
            Some((a as usize, b as usize))
        };
        let (c0, c1) = span(aabb.min.x, aabb.max.x, self.aabb.min.x, self.cols)?;
        let (r0, r1) = span(aabb.min.z, aabb.max.z, self.aabb.min.z, self.rows)?;
        Some((r0, r1, c0, c1))
    }

    /// Calls `f` with every triangle whose box overlaps `aabb` (local frame).
    pub fn for_each_in_aabb(&self, aabb: &Aabb, mut f: impl FnMut(u32, [Vec3; 3], Vec3)) {
        let Some((r0, r1, c0, c1)) = self.cells_in(aabb) else { return };
        for r in r0..r1 {
            for c in c0..c1 {
                for k in 0..2 {
                    let t = (2 * (r * (self.cols - 1) + c) + k) as u32;
                    let tri = self.triangle(t);
                    if Aabb::from_points(tri).overlaps(aabb) {
                        let [a, b, c] = tri;
                        f(t, tri, (b - a).cross(c - a).normalize());
                    }
                }
            }
        }
    }

    /// The first hit of a local-frame ray on either side of the surface, normal facing the ray.
    /// Visits the cells under the ray's box, nearest hit wins.
    pub fn ray_cast(&self, ray: &Ray, max_t: Real) -> Option<RayHit> {
        let (t0, t1) = self.aabb.ray_interval(ray.origin, ray.dir, max_t)?;
        let span = Aabb::from_points([ray.at(t0), ray.at(t1)]);
        let mut best: Option<(Real, u32)> = None;
        self.for_each_in_aabb(&span, |t, tri, _| {
            let limit = best.map_or(max_t, |b| b.0);
            if let Some(s) = ray_triangle(ray, &tri, limit)
                && best.is_none_or(|b| s < b.0)
            {
                best = Some((s, t));
            }
        });
        let (t, tri) = best?;
        let n = self.normal(tri);
        Some(RayHit { t, point: ray.at(t), normal: if n.dot(ray.dir) > 0.0 { -n } else { n } })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn triangles_tile_the_grid_facing_up() {
        let h = HeightField::new(3, 4, 0.5, (0..12).map(|i| (i as Real * 0.7).sin() * 0.1).collect()).unwrap();
        assert_eq!(h.len(), 12);
        let mut area = 0.0;
        for t in 0..h.len() as u32 {
            let [a, b, c] = h.triangle(t);
            let n = (b - a).cross(c - a);
            assert!(n.y > 0.0, "triangle {t} faces down");
            area += n.y * 0.5;
        }
        assert!((area - 1.5 * 1.0).abs() < 1e-5, "footprint {area}");
        assert_eq!(h.local_aabb().min.x, -0.75);
        assert_eq!(h.local_aabb().max.z, 0.5);
    }

    #[test]
    fn errors_name_their_place() {
        assert_eq!(
            HeightField::new(1, 4, 1.0, vec![0.0; 4]).unwrap_err(),
            MeshError::TooFewSamples { rows: 1, cols: 4 }
        );
        assert!(matches!(HeightField::new(2, 2, 1.0, vec![0.0; 3]), Err(MeshError::HeightCount { got: 3, .. })));
        assert!(matches!(HeightField::new(2, 2, 0.0, vec![0.0; 4]), Err(MeshError::BadCellSize(_))));
        let mut h = vec![0.0; 6];
        h[4] = Real::INFINITY;
        assert!(matches!(HeightField::new(2, 3, 1.0, h), Err(MeshError::NonFiniteHeight { row: 1, col: 1, .. })));
    }

    #[test]
    fn box_query_and_ray_agree_with_every_triangle() {
        let h = HeightField::new(9, 7, 0.3, (0..63).map(|i| ((i * 37 % 11) as Real) * 0.05).collect()).unwrap();
        for k in 0..200 {
            // Boxes of every size, some touching the grid's sides or cell lines exactly.
            let f = |i: u32| ((k * 7919 + i * 104729) % 97) as Real / 96.0;
            let lo = Vec3::new(f(1) * 2.4 - 1.2, f(2) * 0.6 - 0.1, f(3) * 3.0 - 1.5);
            let lo = if k % 5 == 0 { (lo / 0.3).round() * 0.3 } else { lo };
            let q = Aabb::new(lo, lo + Vec3::new(f(4), f(5) * 0.3, f(6)) * (k % 4) as Real * 0.5);
            let mut got = vec![];
            h.for_each_in_aabb(&q, |t, _, _| got.push(t));
            let want: Vec<u32> =
                (0..h.len() as u32).filter(|&t| Aabb::from_points(h.triangle(t)).overlaps(&q)).collect();
            assert_eq!(got, want, "box {k}: {q:?}");
        }
        for k in 0..50 {
            let a = k as Real * 0.37;
            let ray = Ray::new(Vec3::new(a.cos() * 2.0, 1.5, a.sin() * 1.7), Vec3::new(-a.cos(), -0.8, -a.sin() * 0.6));
            let brute = (0..h.len() as u32).filter_map(|t| ray_triangle(&ray, &h.triangle(t), 10.0)).reduce(Real::min);
            assert_eq!(h.ray_cast(&ray, 10.0).map(|r| r.t), brute, "ray {k}: {ray:?}");
        }
    }
}
