//! The game-logic tests a teacher shows before any physics: a point in a view cone or a sector,
//! two rectangles on the floor by the separating-axis test, and the grid cell a point falls in.
//! The floor is the x-z plane; a floor point `(x, z)` is a [`Vec2`].

use crate::math::{Real, Vec3};
pub use glam::Vec2;

/// A point against a view cone: the apex, the direction it faces, a half angle and a range.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ConeTest {
    /// Distance from the apex to the point.
    pub distance: Real,
    /// Cosine of the angle between the facing direction and the point (1 at the apex itself).
    pub cos_angle: Real,
    /// Cosine of the half angle, the threshold `cos_angle` is compared with.
    pub cos_half: Real,
    /// Whether the point is within range.
    pub in_range: bool,
    /// Whether the point is within the half angle.
    pub in_angle: bool,
}

impl ConeTest {
    /// Whether the point is in the cone: in range and in angle.
    pub fn inside(&self) -> bool {
        self.in_range && self.in_angle
    }

    /// The angle between the facing direction and the point, radians.
    pub fn angle(&self) -> Real {
        self.cos_angle.clamp(-1.0, 1.0).acos()
    }
}

/// Is `p` within `range` of `apex` and within `half_angle` (radians, up to π) of `forward`?
/// No square root or arc cosine decides it: squared distance against squared range, and
/// `forward · d >= cos(half) |d|` for the angle. `forward` need not be unit length.
pub fn point_in_cone(apex: Vec3, forward: Vec3, half_angle: Real, range: Real, p: Vec3) -> ConeTest {
    let d = p - apex;
    let f = forward.normalize_or_zero();
    let cos_half = half_angle.cos();
    let along = f.dot(d);
    let len_sq = d.length_squared();
    let distance = len_sq.sqrt();
    // At the apex every direction counts as inside the angle.
    let in_angle =
        len_sq == 0.0 || (along >= 0.0 || cos_half < 0.0) && along * along.abs() >= cos_half * cos_half.abs() * len_sq;
    ConeTest {
        distance,
        cos_angle: if distance > 0.0 { along / distance } else { 1.0 },
        cos_half,
        in_range: len_sq <= range * range,
        in_angle,
    }
}

/// A sector on the floor: [`point_in_cone`] with every height dropped, so a point above or below
/// the floor counts where its shadow falls. `facing` is the angle from +x towards +z, radians.
pub fn point_in_sector(apex: Vec2, facing: Real, half_angle: Real, radius: Real, p: Vec2) -> ConeTest {
    let flat = |v: Vec2| Vec3::new(v.x, 0.0, v.y);
    point_in_cone(flat(apex), Vec3::new(facing.cos(), 0.0, facing.sin()), half_angle, radius, flat(p))
}

/// A rectangle on the floor: centre, half sizes along its own axes, turned by `angle` (radians,
/// from +x towards +z).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect2 {
    /// Centre on the floor.
    pub center: Vec2,
    /// Half sizes along its own axes.
    pub half: Vec2,
    /// Turn, radians, from +x towards +z.
    pub angle: Real,
}

impl Rect2 {
    /// Its two edge directions (unit), which are also its edge normals.
    pub fn axes(&self) -> [Vec2; 2] {
        let (s, c) = self.angle.sin_cos();
        [Vec2::new(c, s), Vec2::new(-s, c)]
    }

    /// Corners in order round the rectangle.
    pub fn corners(&self) -> [Vec2; 4] {
        let [u, v] = self.axes();
        let (u, v) = (u * self.half.x, v * self.half.y);
        [self.center - u - v, self.center + u - v, self.center + u + v, self.center - u + v]
    }

    /// The interval `[min, max]` of its corners projected on `axis`.
    pub fn project(&self, axis: Vec2) -> (Real, Real) {
        self.corners().iter().fold((Real::INFINITY, Real::NEG_INFINITY), |(lo, hi), c| {
            let t = c.dot(axis);
            (lo.min(t), hi.max(t))
        })
    }
}

/// Two rectangles projected on one candidate axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisProjection {
    /// The candidate axis, a unit vector.
    pub axis: Vec2,
    /// A's projection on it, `(min, max)`.
    pub a: (Real, Real),
    /// B's projection on it, `(min, max)`.
    pub b: (Real, Real),
    /// How far the intervals overlap; negative: the gap between them (a separating axis).
    pub overlap: Real,
}

/// The separating-axis test of two rectangles: each one's two edge normals as candidate axes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SatTest {
    /// A's axes, then B's.
    pub axes: [AxisProjection; 4],
    /// The first axis whose projections do not overlap; `None`: the rectangles overlap.
    pub separating: Option<usize>,
    /// The axis of least overlap: the way to push them apart when they overlap.
    pub least: usize,
}

impl SatTest {
    /// Whether the rectangles overlap (no axis separates them).
    pub fn overlaps(&self) -> bool {
        self.separating.is_none()
    }
}

/// The separating-axis test of two rectangles.
pub fn sat_rects(a: &Rect2, b: &Rect2) -> SatTest {
    let [a0, a1] = a.axes();
    let [b0, b1] = b.axes();
    let axes = [a0, a1, b0, b1].map(|axis| {
        let (pa, pb) = (a.project(axis), b.project(axis));
        AxisProjection { axis, a: pa, b: pb, overlap: pa.1.min(pb.1) - pa.0.max(pb.0) }
    });
    let separating = axes.iter().position(|p| p.overlap < 0.0);
    let least = (0..4).min_by(|&i, &j| axes[i].overlap.total_cmp(&axes[j].overlap)).unwrap_or(0);
    SatTest { axes, separating, least }
}

/// The cell `(i, j)` of a floor grid of square cells of side `cell` with a corner at the origin:
/// `i * cell <= p.x < (i + 1) * cell`, likewise for `j` and `p.y`. Exact, including negative
/// coordinates (rounded down, not towards zero) and points on a cell boundary (which belong to
/// the cell above): the quotient is corrected against the boundaries computed in f64.
pub fn grid_cell(p: Vec2, cell: Real) -> (i32, i32) {
    let axis = |x: Real| {
        let (x, c) = (x as f64, cell as f64);
        let mut k = (x / c).floor();
        if k * c > x {
            k -= 1.0;
        } else if (k + 1.0) * c <= x {
            k += 1.0;
        }
        k as i32
    };
    (axis(p.x), axis(p.y))
}

/// The cells an axis-aligned floor box `[min, max]` touches: the inclusive corner cells.
pub fn grid_cells_of_box(min: Vec2, max: Vec2, cell: Real) -> ((i32, i32), (i32, i32)) {
    (grid_cell(min, cell), grid_cell(max, cell))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::f64::consts::PI;

    type P = (f64, f64);

    fn cross(o: P, a: P, b: P) -> f64 {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    }

    /// Closed segments `p q` and `r s` meet (f64 orientation tests).
    fn segments_meet(p: P, q: P, r: P, s: P) -> bool {
        let (d1, d2, d3, d4) = (cross(r, s, p), cross(r, s, q), cross(p, q, r), cross(p, q, s));
        if ((d1 > 0.0 && d2 < 0.0) || (d1 < 0.0 && d2 > 0.0)) && ((d3 > 0.0 && d4 < 0.0) || (d3 < 0.0 && d4 > 0.0)) {
            return true;
        }
        let on = |a: P, b: P, c: P| {
            cross(a, b, c) == 0.0
                && c.0 >= a.0.min(b.0)
                && c.0 <= a.0.max(b.0)
                && c.1 >= a.1.min(b.1)
                && c.1 <= a.1.max(b.1)
        };
        on(r, s, p) || on(r, s, q) || on(p, q, r) || on(p, q, s)
    }

    fn inside_convex(poly: &[P], p: P) -> bool {
        let signs: Vec<f64> = (0..poly.len()).map(|i| cross(poly[i], poly[(i + 1) % poly.len()], p)).collect();
        signs.iter().all(|&s| s >= 0.0) || signs.iter().all(|&s| s <= 0.0)
    }

    /// Brute force: two convex polygons meet iff an edge of one meets an edge of the other or one
    /// holds a vertex of the other.
    fn polygons_meet(a: &[P], b: &[P]) -> bool {
        let n = |v: &[P], i: usize| (v[i], v[(i + 1) % v.len()]);
        (0..a.len()).any(|i| (0..b.len()).any(|j| segments_meet(n(a, i).0, n(a, i).1, n(b, j).0, n(b, j).1)))
            || inside_convex(a, b[0])
            || inside_convex(b, a[0])
    }

    fn corners64(r: &Rect2) -> Vec<P> {
        r.corners().iter().map(|c| (c.x as f64, c.y as f64)).collect()
    }

    fn rect() -> impl Strategy<Value = Rect2> {
        (-3.0f32..3.0, -3.0f32..3.0, 0.1f32..2.0, 0.1f32..2.0, -4.0f32..4.0).prop_map(|(x, z, hx, hz, angle)| Rect2 {
            center: Vec2::new(x, z),
            half: Vec2::new(hx, hz),
            angle,
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 2000, rng_seed: proptest::test_runner::RngSeed::Fixed(0x91a4), failure_persistence: None, ..ProptestConfig::default() })]

        /// The SAT answer equals exact polygon intersection of the same corners, except within a
        /// hair of touching.
        #[test]
        fn sat_matches_polygon_intersection(a in rect(), b in rect()) {
            let sat = sat_rects(&a, &b);
            let margin = sat.axes.iter().map(|p| p.overlap).fold(Real::INFINITY, Real::min);
            prop_assume!(margin.abs() > 1e-4);
            prop_assert_eq!(sat.overlaps(), polygons_meet(&corners64(&a), &corners64(&b)), "{:?}", sat);
        }

        /// The cone test equals the angle and distance computed in f64 with atan2, away from the
        /// boundary.
        #[test]
        fn cone_matches_angles(
            apex in (-2.0f32..2.0, -2.0f32..2.0, -2.0f32..2.0),
            fwd in (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
            half in 0.05f32..3.1, range in 0.2f32..5.0,
            p in (-5.0f32..5.0, -5.0f32..5.0, -5.0f32..5.0),
        ) {
            let (apex, f, p) = (Vec3::from(apex), Vec3::from(fwd), Vec3::from(p));
            prop_assume!(f.length() > 0.1);
            let t = point_in_cone(apex, f, half, range, p);
            let d = [(p.x - apex.x) as f64, (p.y - apex.y) as f64, (p.z - apex.z) as f64];
            let fu = f.normalize();
            let fu = [fu.x as f64, fu.y as f64, fu.z as f64];
            let dot = d[0] * fu[0] + d[1] * fu[1] + d[2] * fu[2];
            let cr = [d[1] * fu[2] - d[2] * fu[1], d[2] * fu[0] - d[0] * fu[2], d[0] * fu[1] - d[1] * fu[0]];
            let angle = (cr[0] * cr[0] + cr[1] * cr[1] + cr[2] * cr[2]).sqrt().atan2(dot);
            let dist = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
            prop_assume!((angle - half as f64).abs() > 1e-3 && (dist - range as f64).abs() > 1e-3);
            prop_assert_eq!(t.in_angle, angle <= half as f64, "angle {} half {}", angle, half);
            prop_assert_eq!(t.in_range, dist <= range as f64);
            prop_assert!((t.angle() as f64 - angle).abs() < 2e-3 || dist < 1e-3);
        }

        /// The cell is the one whose boundaries, by brute-force scan in f64, hold the point.
        #[test]
        fn grid_cell_matches_scan(x in -50.0f32..50.0, z in -50.0f32..50.0, cell in 0.1f32..7.0, snap in any::<bool>()) {
            // Half the cases sit exactly on a boundary, where division alone rounds wrong.
            let (x, z) = if snap { ((x / cell).round() * cell, (z / cell).round() * cell) } else { (x, z) };
            let scan = |v: f32| (-600..600).find(|&k| {
                let (lo, hi) = (k as f64 * cell as f64, (k + 1) as f64 * cell as f64);
                lo <= v as f64 && (v as f64) < hi
            }).unwrap();
            prop_assert_eq!(grid_cell(Vec2::new(x, z), cell), (scan(x), scan(z)));
        }
    }

    #[test]
    fn sector_ignores_height_and_cone_does_not() {
        // Facing +x with a 30° half angle and range 5.
        let apex = Vec2::ZERO;
        let half = 30f32.to_radians();
        assert!(point_in_sector(apex, 0.0, half, 5.0, Vec2::new(3.0, 1.0)).inside());
        assert!(!point_in_sector(apex, 0.0, half, 5.0, Vec2::new(3.0, 2.0)).in_angle);
        assert!(!point_in_sector(apex, 0.0, half, 5.0, Vec2::new(5.1, 0.0)).in_range);
        // 4 m up over the same floor point: outside the cone, though its shadow is in the sector.
        let c = point_in_cone(Vec3::ZERO, Vec3::X, half, 5.0, Vec3::new(3.0, 4.0, 1.0));
        assert!(!c.in_angle && !c.in_range);
        // Behind the apex with a half angle past 90°.
        assert!(
            point_in_cone(Vec3::ZERO, Vec3::X, (120f64 * PI / 180.0) as f32, 5.0, Vec3::new(-1.0, 0.0, 2.0)).inside()
        );
        assert!(
            !point_in_cone(Vec3::ZERO, Vec3::X, (120f64 * PI / 180.0) as f32, 5.0, Vec3::new(-1.0, 0.0, 0.1)).inside()
        );
    }

    /// Points on cell boundaries (`k × cell` in f32), where division alone rounds either way.
    #[test]
    fn grid_cells_on_boundaries_match_the_scan() {
        for cell in [6.2751126f32, 0.1, 0.3, 0.7, 1.1] {
            for k in -40..40 {
                let x = k as f32 * cell;
                let want = (-100..100)
                    .find(|&i| (i as f64 * cell as f64) <= x as f64 && (x as f64) < (i + 1) as f64 * cell as f64)
                    .unwrap();
                assert_eq!(grid_cell(Vec2::new(x, 0.0), cell).0, want, "x = {x}, cell = {cell}");
            }
        }
    }

    #[test]
    fn grid_rounds_down_and_boundaries_belong_above() {
        assert_eq!(grid_cell(Vec2::new(-0.5, 0.5), 1.0), (-1, 0));
        assert_eq!(grid_cell(Vec2::new(-1.0, 1.0), 1.0), (-1, 1));
        // 0.7 / 0.1 rounds to 7.0 in f32, but 0.7f32 lies below 7 × 0.1f32: cell 6.
        assert_eq!((0.7f32 / 0.1f32).floor(), 7.0);
        assert_eq!(grid_cell(Vec2::new(0.7, 0.0), 0.1), (6, 0));
        assert_eq!(grid_cells_of_box(Vec2::new(-0.5, 0.2), Vec2::new(1.5, 0.4), 1.0), ((-1, 0), (1, 0)));
    }

    #[test]
    fn separated_rectangles_name_the_axis() {
        let a = Rect2 { center: Vec2::ZERO, half: Vec2::new(1.0, 1.0), angle: 0.0 };
        let b = Rect2 { center: Vec2::new(3.0, 0.0), half: Vec2::new(1.0, 1.0), angle: 0.0 };
        let t = sat_rects(&a, &b);
        assert_eq!(t.separating, Some(0));
        assert!((t.axes[0].overlap + 1.0).abs() < 1e-6);
        // Turned 45°, B's corner reaches to 3 - √2 ≈ 1.59: still apart on A's x axis.
        let b45 = Rect2 { angle: std::f32::consts::FRAC_PI_4, ..b };
        assert!(!sat_rects(&a, &b45).overlaps());
        let near = Rect2 { center: Vec2::new(2.2, 0.0), ..b45 };
        assert!(sat_rects(&a, &near).overlaps());
    }
}
