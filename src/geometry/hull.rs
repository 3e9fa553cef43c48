//! Convex hulls built from point clouds.

use super::{Aabb, MassProperties};
use crate::math::{Mat3, Real, Vec3};
use thiserror::Error;

/// Why a point cloud cannot make a solid hull.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum HullError {
    /// Fewer than four points (how many).
    #[error("a convex hull needs at least 4 points, got {0}")]
    TooFewPoints(usize),
    /// More than [`ConvexHull::MAX_POINTS`] points.
    #[error("a convex hull accepts at most {max} points, got {got}")]
    TooManyPoints {
        /// Points given.
        got: usize,
        /// Points accepted at most.
        max: usize,
    },
    /// A point with a non-finite coordinate (its index).
    #[error("point {0} is not finite")]
    NonFinite(usize),
    /// The points are coincident, collinear or coplanar (which of these).
    #[error("the points are {0}: a convex hull needs volume")]
    Degenerate(&'static str),
    /// The points are too close to a plane for a solid hull.
    #[error(
        "the points lie within {thickness:e} of a plane across a cloud of size {size:e}: a convex hull must be at least {} of its size thick",
        ConvexHull::MIN_THICKNESS
    )]
    TooFlat {
        /// Their largest distance from the best plane, m.
        thickness: Real,
        /// The cloud's size, m.
        size: Real,
    },
}

/// A face of a hull: its outward unit normal, plane offset (`normal . x = offset` on the face)
/// and its corner indices in counter-clockwise order seen from outside.
#[derive(Clone, Debug, PartialEq)]
pub struct HullFace {
    /// Outward unit normal.
    pub normal: Vec3,
    /// Plane offset: `normal · x = offset` on the face.
    pub offset: Real,
    /// Corner indices, counter-clockwise seen from outside.
    pub vertices: Vec<u32>,
}

/// A convex polyhedron with merged coplanar faces, re-centred on its centre of mass.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    faces: Vec<HullFace>,
    edges: Vec<(u32, u32)>,
    /// The edges four at a time for nearest-point searches, lane by lane: start `x, y, z`, start
    /// to end `x, y, z` and its squared length (unused lanes repeat the last edge); empty when
    /// an edge is too short for [`closest_point_segment`](super::segment::closest_point_segment)'s
    /// projection.
    edge_rows: Vec<[[Real; 4]; 7]>,
    /// Distinct edge directions (unit, parallel edges merged): the edge-pair axes of SAT.
    edge_dirs: Vec<Vec3>,
    /// How far the input points were moved to put the centre of mass at the origin.
    shift: Vec3,
    /// Hulls of at most 8 vertices: the vertices coordinate by coordinate (`[x, y, z]`, unused
    /// lanes repeating vertex 0), for the 8-lane support queries of GJK and EPA.
    lanes8: Option<[[Real; 8]; 3]>,
    /// Hulls of more than [`ConvexHull::CLIMB_MIN_VERTICES`] vertices: the graphs that support
    /// and face queries walk.
    climb: Option<Box<Climb>>,
    /// The farthest vertex's distance from the centre of mass (the bounding sphere's radius).
    radius: Real,
}

/// Up to 8 points as `[x, y, z]` lane arrays; unused lanes repeat the first point.
fn lanes8(pts: &[Vec3]) -> Option<[[Real; 8]; 3]> {
    if pts.is_empty() || pts.len() > 8 {
        return None;
    }
    Some(std::array::from_fn(|k| std::array::from_fn(|i| pts.get(i).unwrap_or(&pts[0])[k])))
}

impl ConvexHull {
    /// Most points a hull accepts.
    pub const MAX_POINTS: usize = 4096;
    /// Thinnest hull accepted, as a fraction of its size (the largest extent of its cloud):
    /// ten times the tolerance within which points count as on a face, so that flatter clouds
    /// are refused by this rule rather than failing inside the hull construction.
    pub const MIN_THICKNESS: Real = 1e-4;
    /// Hulls with more vertices than this answer support and face queries by hill-climbing
    /// over their vertex and face-normal graphs instead of scanning (same answers: the first
    /// maximum may differ only between equal or rounding-equal candidates).
    pub const CLIMB_MIN_VERTICES: usize = 32;
    /// The smallest `min_cos` for which [`Self::facing_face`] avoids a scan on large hulls.
    pub const FACING_COS: Real = 0.998;

    /// Builds the hull of `points` and re-centres it on its centre of mass.
    pub fn new(points: &[Vec3]) -> Result<Self, HullError> {
        if points.len() < 4 {
            return Err(HullError::TooFewPoints(points.len()));
        }
        if points.len() > Self::MAX_POINTS {
            return Err(HullError::TooManyPoints { got: points.len(), max: Self::MAX_POINTS });
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            return Err(HullError::NonFinite(i));
        }
        let bounds = Aabb::from_points(points.iter().copied());
        let scale = bounds.extents().max_element();
        if scale <= 0.0 {
            return Err(HullError::Degenerate("all coincident"));
        }
        let tol = scale * 1e-5;
        let mut vertices: Vec<Vec3> = Vec::new();
        let mut index_of: Vec<Option<u32>> = vec![None; points.len()];
        let faces = super::quickhull::hull_faces(points, tol)?
            .into_iter()
            .map(|f| {
                let idx = f
                    .ring
                    .iter()
                    .map(|&p| {
                        *index_of[p as usize].get_or_insert_with(|| {
                            vertices.push(points[p as usize]);
                            (vertices.len() - 1) as u32
                        })
                    })
                    .collect();
                HullFace { normal: f.normal, offset: f.offset, vertices: idx }
            })
            .collect();
        let mut hull = ConvexHull {
            vertices,
            faces,
            edges: Vec::new(),
            edge_rows: Vec::new(),
            edge_dirs: Vec::new(),
            shift: Vec3::ZERO,
            lanes8: None,
            climb: None,
            radius: 0.0,
        };
        let com = hull.mass_properties_uncentred(1.0).local_com;
        // An already centred cloud (a saved state) keeps its exact points, so it reloads bit-exact.
        if com.length() > scale * 1e-5 {
            hull.recentre(com);
        }
        hull.edges = collect_edges(&hull.faces);
        hull.edge_rows = edge_rows(&hull.vertices, &hull.edges);
        hull.edge_dirs = distinct_directions(&hull.vertices, &hull.edges);
        hull.lanes8 = lanes8(&hull.vertices);
        hull.radius = hull.vertices.iter().map(|v| v.length()).fold(0.0, Real::max);
        if hull.vertices.len() > Self::CLIMB_MIN_VERTICES {
            hull.climb = Some(Box::new(Climb::new(&hull.vertices, &hull.faces, &hull.edges)));
        }
        Ok(hull)
    }

    /// The radius of the bounding sphere around the centre of mass.
    pub fn bounding_radius(&self) -> Real {
        self.radius
    }

    /// The hull's vertices.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// The hull's faces.
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// Unique undirected edges, each as a pair of vertex indices.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// The edges as lanes of four (see the field), or empty.
    pub(crate) fn edge_rows(&self) -> &[[[Real; 4]; 7]] {
        &self.edge_rows
    }

    /// Distinct unit edge directions, one per family of parallel edges.
    pub fn edge_directions(&self) -> &[Vec3] {
        &self.edge_dirs
    }

    /// The vertices as 8 lanes per coordinate, when there are at most 8 of them.
    pub fn vertex_lanes(&self) -> Option<&[[Real; 8]; 3]> {
        self.lanes8.as_ref()
    }

    /// The offset that was added to the input points to centre the hull.
    pub fn shift(&self) -> Vec3 {
        self.shift
    }

    /// The vertex farthest along `dir`.
    pub fn support(&self, dir: Vec3) -> Vec3 {
        self.vertices[self.support_index(dir)]
    }

    /// The index of the vertex farthest along `dir`.
    pub fn support_index(&self, dir: Vec3) -> usize {
        match &self.climb {
            Some(c) => self.support_index_from(dir, c.seed(dir) as usize),
            None => self.support_index_scan(dir),
        }
    }

    /// [`Self::support_index`] started from vertex `hint` (a previous query's answer for a
    /// nearby direction makes the walk short). Any hint gives the same maximum; hulls of at
    /// most [`Self::CLIMB_MIN_VERTICES`] vertices ignore it and scan.
    pub fn support_index_from(&self, dir: Vec3, hint: usize) -> usize {
        match &self.climb {
            Some(c) if hint < self.vertices.len() => {
                let vs = &self.vertices;
                climb(&c.vertex_graph, hint as u32, |i| vs[i as usize].dot(dir)).0 as usize
            }
            _ => self.support_index_scan(dir),
        }
    }

    /// The face whose outward normal is most aligned with the unit direction `dir` (largest
    /// `normal . dir`, the last of equal maxima) with that dot product, when it is at least
    /// `min_cos`; `None` when no face's is. Large hulls look only at the faces binned with
    /// `dir` (exact for `min_cos >= FACING_COS`); small ones scan.
    pub fn facing_face(&self, dir: Vec3, min_cos: Real) -> Option<(usize, Real)> {
        if let Some(c) = &self.climb
            && min_cos >= Self::FACING_COS
            && (dir.length_squared() - 1.0).abs() < 1e-3
        {
            let mut best: Option<(usize, Real)> = None;
            for &f in c.face_grid.cells.row(FaceGrid::lookup(dir)) {
                let d = self.faces[f as usize].normal.dot(dir);
                if best.is_none_or(|b| d >= b.1) {
                    best = Some((f as usize, d));
                }
            }
            return best.filter(|b| b.1 >= min_cos);
        }
        Some(self.most_facing_scan(dir)).filter(|b| b.1 >= min_cos)
    }

    /// The face most aligned with `dir` and its dot product, by scanning every face (the last
    /// of equal maxima).
    pub fn most_facing_scan(&self, dir: Vec3) -> (usize, Real) {
        self.faces
            .iter()
            .enumerate()
            .map(|(i, f)| (i, f.normal.dot(dir)))
            .max_by(|x, y| x.1.total_cmp(&y.1))
            .expect("a hull has faces")
    }

    /// The vertices joined to vertex `v` by an edge, ascending.
    pub fn edge_neighbours(&self, v: usize) -> impl Iterator<Item = u32> + '_ {
        // The table's row, or a scan of the edges when the hull has no table.
        let (row, scan) = match &self.climb {
            Some(c) => (c.edge_nbrs.row(v as u32), None),
            None => (&[][..], Some(self.edge_neighbours_scan(v))),
        };
        row.iter().copied().chain(scan.into_iter().flatten())
    }

    /// [`Self::edge_neighbours`] by scanning every edge.
    pub fn edge_neighbours_scan(&self, v: usize) -> impl Iterator<Item = u32> + '_ {
        self.edges.iter().filter_map(move |&(a, b)| {
            if a as usize == v {
                Some(b)
            } else if b as usize == v {
                Some(a)
            } else {
                None
            }
        })
    }

    /// [`Self::support_index`] by looking at every vertex (the first of equal maxima).
    pub fn support_index_scan(&self, dir: Vec3) -> usize {
        // A hull of at most 8 vertices holds them as lanes: the same vertex without a branch
        // per vertex (no misprediction on which one leads).
        if let Some(l) = &self.lanes8 {
            return first_farthest(l, dir);
        }
        let mut best = 0;
        let mut best_d = Real::NEG_INFINITY;
        for (i, v) in self.vertices.iter().enumerate() {
            let d = v.dot(dir);
            if d > best_d {
                best_d = d;
                best = i;
            }
        }
        best
    }

    /// Its bounding box in its own frame.
    pub fn local_aabb(&self) -> Aabb {
        Aabb::from_points(self.vertices.iter().copied())
    }

    /// Mass, centre of mass and inertia of the solid hull at `density`.
    pub fn mass_properties(&self, density: Real) -> MassProperties {
        let mut m = self.mass_properties_uncentred(density);
        m.local_com = Vec3::ZERO;
        m
    }

    /// Volume integration over tetrahedra fanned from the first vertex.
    fn mass_properties_uncentred(&self, density: Real) -> MassProperties {
        let o = self.vertices[0];
        let mut volume = 0.0;
        let mut first_moment = Vec3::ZERO;
        let mut cov = Mat3::ZERO;
        let canonical = Mat3::from_cols(Vec3::new(2.0, 1.0, 1.0), Vec3::new(1.0, 2.0, 1.0), Vec3::new(1.0, 1.0, 2.0))
            * (1.0 / 120.0);
        for f in &self.faces {
            let p0 = self.vertices[f.vertices[0] as usize] - o;
            for w in f.vertices[1..].windows(2) {
                let p1 = self.vertices[w[0] as usize] - o;
                let p2 = self.vertices[w[1] as usize] - o;
                let a = Mat3::from_cols(p0, p1, p2);
                let det = a.determinant();
                volume += det / 6.0;
                first_moment += (p0 + p1 + p2) * (det / 24.0);
                cov += a * canonical * a.transpose() * det;
            }
        }
        let mass = volume * density;
        let com_rel = first_moment / volume;
        // Shift the covariance from `o` to the centre of mass, then turn it into inertia.
        let c = cov * density - outer(com_rel, com_rel) * mass;
        let inertia = Mat3::from_diagonal(Vec3::splat(c.x_axis.x + c.y_axis.y + c.z_axis.z)) - c;
        MassProperties { mass, local_com: com_rel + o, inertia }
    }

    fn recentre(&mut self, com: Vec3) {
        for v in &mut self.vertices {
            *v -= com;
        }
        for f in &mut self.faces {
            f.offset -= f.normal.dot(com);
        }
        self.shift = -com;
    }
}

fn outer(a: Vec3, b: Vec3) -> Mat3 {
    Mat3::from_cols(a * b.x, a * b.y, a * b.z)
}

/// Every plane through three input points that has all points on its inner side, with the set
/// of points lying on it (a bit per point): the brute-force reference the hull's faces are tested
/// against (quartic in the point count).
#[cfg(test)]
fn supporting_planes(points: &[Vec3], tol: Real) -> Result<Vec<(Vec3, Real, u128)>, HullError> {
    let n = points.len();
    let mut planes: Vec<(Vec3, Real, u128)> = Vec::new();
    let mut any_triangle = false;
    for i in 0..n {
        for j in i + 1..n {
            for k in j + 1..n {
                let nrm = (points[j] - points[i]).cross(points[k] - points[i]);
                let len = nrm.length();
                if len <= tol * tol {
                    continue;
                }
                any_triangle = true;
                let nrm = nrm / len;
                let d = nrm.dot(points[i]);
                let (mut above, mut below) = (false, false);
                let mut on: u128 = 0;
                for (m, p) in points.iter().enumerate() {
                    let s = nrm.dot(*p) - d;
                    above |= s > tol;
                    below |= s < -tol;
                    if above && below {
                        break;
                    }
                    if s.abs() <= tol * 4.0 {
                        on |= 1 << m;
                    }
                }
                let (normal, offset) = match (above, below) {
                    (false, true) => (nrm, d),
                    (true, false) => (-nrm, -d),
                    (false, false) => return Err(HullError::Degenerate("coplanar")),
                    (true, true) => continue,
                };
                if planes.iter().any(|&(_, _, o)| on & o == on) {
                    continue;
                }
                planes.retain(|&(_, _, o)| o & on != o);
                planes.push((normal, offset, on));
            }
        }
    }
    if !any_triangle {
        return Err(HullError::Degenerate("collinear"));
    }
    Ok(planes)
}

/// The corners of a planar point set, counter-clockwise around `normal` (monotone chain in 2D):
/// the faces of the brute-force reference.
#[cfg(test)]
fn face_ring(points: &[Vec3], normal: Vec3, tol: Real) -> Vec<Vec3> {
    let (u, v) = crate::math::orthonormal_basis(normal);
    let mut pts: Vec<(Real, Real, Vec3)> = points.iter().map(|p| (p.dot(u), p.dot(v), *p)).collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1)));
    let cross = |o: &(Real, Real, Vec3), a: &(Real, Real, Vec3), b: &(Real, Real, Vec3)| {
        (a.0 - o.0) * (b.1 - o.1) - (a.1 - o.1) * (b.0 - o.0)
    };
    let eps = tol * tol;
    let mut lower: Vec<(Real, Real, Vec3)> = Vec::new();
    for p in &pts {
        while lower.len() >= 2 && cross(&lower[lower.len() - 2], &lower[lower.len() - 1], p) <= eps {
            lower.pop();
        }
        lower.push(*p);
    }
    let mut upper: Vec<(Real, Real, Vec3)> = Vec::new();
    for p in pts.iter().rev() {
        while upper.len() >= 2 && cross(&upper[upper.len() - 2], &upper[upper.len() - 1], p) <= eps {
            upper.pop();
        }
        upper.push(*p);
    }
    lower.pop();
    upper.pop();
    lower.extend(upper);
    // (u, v, normal) is right-handed, so counter-clockwise in (u, v) is counter-clockwise
    // seen from outside.
    lower.into_iter().map(|p| p.2).collect()
}

fn distinct_directions(vertices: &[Vec3], edges: &[(u32, u32)]) -> Vec<Vec3> {
    let mut dirs: Vec<Vec3> = Vec::new();
    for &(a, b) in edges {
        let d = (vertices[b as usize] - vertices[a as usize]).normalize_or_zero();
        if d != Vec3::ZERO && !dirs.iter().any(|e| e.dot(d).abs() > 1.0 - 1e-6) {
            dirs.push(d);
        }
    }
    dirs
}

fn collect_edges(faces: &[HullFace]) -> Vec<(u32, u32)> {
    let mut edges: Vec<(u32, u32)> = faces
        .iter()
        .flat_map(|f| {
            let n = f.vertices.len();
            (0..n).map(move |i| {
                let (a, b) = (f.vertices[i], f.vertices[(i + 1) % n]);
                (a.min(b), a.max(b))
            })
        })
        .collect();
    edges.sort_unstable();
    edges.dedup();
    edges
}

/// The edges as lanes of four: start, start to end and its squared length, each computed as
/// [`closest_point_segment`](super::segment::closest_point_segment) computes them; none when an
/// edge is too short for its projection (it answers such an edge with the start).
fn edge_rows(vertices: &[Vec3], edges: &[(u32, u32)]) -> Vec<[[Real; 4]; 7]> {
    let spans: Vec<(Vec3, Vec3)> =
        edges.iter().map(|&(i, j)| (vertices[i as usize], vertices[j as usize] - vertices[i as usize])).collect();
    if spans.iter().any(|(_, ab)| ab.length_squared() <= super::segment::DEGENERATE_LENGTH_SQUARED) {
        return Vec::new();
    }
    spans
        .chunks(4)
        .map(|four| {
            let lane = |k: usize| four[k.min(four.len() - 1)];
            let row = |f: fn((Vec3, Vec3)) -> Real| std::array::from_fn(|k| f(lane(k)));
            [
                row(|(a, _)| a.x),
                row(|(a, _)| a.y),
                row(|(a, _)| a.z),
                row(|(_, ab)| ab.x),
                row(|(_, ab)| ab.y),
                row(|(_, ab)| ab.z),
                row(|(_, ab)| ab.length_squared()),
            ]
        })
        .collect()
}

/// Rows of indices (compressed sparse rows): row `i` is `items[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, PartialEq, Default)]
struct Rows {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Rows {
    /// `n` rows from `(row, item)` pairs; each row sorted ascending without repeats.
    fn from_pairs(n: usize, pairs: impl IntoIterator<Item = (u32, u32)>) -> Self {
        let mut pairs: Vec<(u32, u32)> = pairs.into_iter().collect();
        pairs.sort_unstable();
        pairs.dedup();
        let mut start = vec![0u32; n + 1];
        for &(r, _) in &pairs {
            start[r as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        Rows { start, items: pairs.into_iter().map(|p| p.1).collect() }
    }

    #[inline]
    fn row(&self, i: u32) -> &[u32] {
        &self.items[self.start[i as usize] as usize..self.start[i as usize + 1] as usize]
    }
}

/// Steepest ascent of `score` over a graph from `start`: moves to the best neighbour while it
/// scores strictly higher. On the vertex graph of a convex polytope and a linear score, the
/// vertex it stops at is a global maximum.
#[inline]
fn climb(graph: &Rows, start: u32, score: impl Fn(u32) -> Real) -> (u32, Real) {
    let (mut at, mut best) = (start, score(start));
    loop {
        let mut next = at;
        for &n in graph.row(at) {
            let s = score(n);
            if s > best {
                best = s;
                next = n;
            }
        }
        if next == at {
            return (at, best);
        }
        at = next;
    }
}

/// Fixed directions whose support vertices start the climbs: the axes and the diagonals.
const SEED_DIRS: [[Real; 3]; 14] = [
    [1.0, 0.0, 0.0],
    [-1.0, 0.0, 0.0],
    [0.0, 1.0, 0.0],
    [0.0, -1.0, 0.0],
    [0.0, 0.0, 1.0],
    [0.0, 0.0, -1.0],
    [1.0, 1.0, 1.0],
    [1.0, 1.0, -1.0],
    [1.0, -1.0, 1.0],
    [1.0, -1.0, -1.0],
    [-1.0, 1.0, 1.0],
    [-1.0, 1.0, -1.0],
    [-1.0, -1.0, 1.0],
    [-1.0, -1.0, -1.0],
];

/// Face normals binned on a cube map of the directions: cell `c` lists (ascending) every face
/// whose normal is within `acos(FACING_COS)` of some direction in `c`, so the faces facing a
/// direction that closely are all in that direction's cell.
#[derive(Clone, Debug, PartialEq)]
struct FaceGrid {
    cells: Rows,
}

impl FaceGrid {
    /// Cells per cube-face side.
    const K: usize = 16;

    /// The cube face (major axis `m`, sign) and the two other axes of a direction.
    fn axes(m: usize) -> (usize, usize) {
        ((m + 1) % 3, (m + 2) % 3)
    }

    fn cell_of(cube: usize, u: Real, v: Real) -> u32 {
        let k = Self::K as Real;
        let i = (((u + 1.0) * 0.5 * k) as usize).min(Self::K - 1);
        let j = (((v + 1.0) * 0.5 * k) as usize).min(Self::K - 1);
        (cube * Self::K * Self::K + j * Self::K + i) as u32
    }

    /// The cell of direction `d` (any length but zero).
    fn lookup(d: Vec3) -> u32 {
        let a = d.abs();
        let m = if a.x >= a.y && a.x >= a.z {
            0
        } else if a.y >= a.z {
            1
        } else {
            2
        };
        let (ia, ib) = Self::axes(m);
        let cube = 2 * m + (d[m] < 0.0) as usize;
        Self::cell_of(cube, d[ia] / a[m], d[ib] / a[m])
    }

    fn new(faces: &[HullFace]) -> Self {
        let k = Self::K;
        // Every unit direction within the angle of a normal n lies in the box n ± r, r the
        // chord of the angle (padded for rounding).
        let r = (2.0 * (1.0 - ConvexHull::FACING_COS)).sqrt() + 1e-4;
        let mut pairs = Vec::new();
        for (f, face) in faces.iter().enumerate() {
            let (lo, hi) = (face.normal - Vec3::splat(r), face.normal + Vec3::splat(r));
            for m in 0..3 {
                let (ia, ib) = Self::axes(m);
                for neg in [false, true] {
                    // Along the face's axis a unit direction has |component| >= 1/sqrt(3).
                    let (yl, yh) = if neg { (-hi[m], -lo[m]) } else { (lo[m], hi[m]) };
                    let yl = yl.max(0.57);
                    if yh < yl {
                        continue;
                    }
                    let range = |x: usize| {
                        let q = [lo[x] / yl, lo[x] / yh, hi[x] / yl, hi[x] / yh];
                        let (a, b) = (
                            q.iter().copied().fold(Real::INFINITY, Real::min),
                            q.iter().copied().fold(Real::NEG_INFINITY, Real::max),
                        );
                        (a.max(-1.0), b.min(1.0))
                    };
                    let ((ul, uh), (vl, vh)) = (range(ia), range(ib));
                    if ul > uh || vl > vh {
                        continue;
                    }
                    let cube = 2 * m + neg as usize;
                    let (c0, c1) = (Self::cell_of(cube, ul, vl) as usize, Self::cell_of(cube, uh, vh) as usize);
                    let base = cube * k * k;
                    let (i0, j0, i1, j1) = ((c0 - base) % k, (c0 - base) / k, (c1 - base) % k, (c1 - base) / k);
                    for j in j0..=j1 {
                        for i in i0..=i1 {
                            pairs.push(((base + j * k + i) as u32, f as u32));
                        }
                    }
                }
            }
        }
        FaceGrid { cells: Rows::from_pairs(6 * k * k, pairs) }
    }
}

/// The search graphs of a large hull, so that support queries and the face most facing a
/// direction are found by walking a few dozen neighbours instead of scanning everything.
#[derive(Clone, Debug, PartialEq)]
struct Climb {
    /// Each vertex's neighbours: every other corner of every face through it (so a face whose
    /// corners are coplanar only within the merge tolerance is still crossed in one step).
    vertex_graph: Rows,
    /// Each vertex's edge neighbours, ascending.
    edge_nbrs: Rows,
    /// The faces through each vertex.
    vertex_faces: Rows,
    /// The faces whose normal lies within [`ConvexHull::FACING_COS`] of each cell's directions.
    face_grid: FaceGrid,
    /// Support vertices along [`SEED_DIRS`] (unit), where climbs start.
    seeds: [(Vec3, u32); 14],
}

impl Climb {
    fn new(vertices: &[Vec3], faces: &[HullFace], edges: &[(u32, u32)]) -> Self {
        let n = vertices.len();
        let clique = |ring: &[u32]| {
            ring.iter()
                .flat_map(move |&a| ring.iter().filter(move |&&b| b != a).map(move |&b| (a, b)))
                .collect::<Vec<_>>()
        };
        let vertex_graph = Rows::from_pairs(n, faces.iter().flat_map(|f| clique(&f.vertices)));
        let edge_nbrs = Rows::from_pairs(n, edges.iter().flat_map(|&(a, b)| [(a, b), (b, a)]));
        let vertex_faces = Rows::from_pairs(
            n,
            faces.iter().enumerate().flat_map(|(i, f)| f.vertices.iter().map(move |&v| (v, i as u32))),
        );
        let face_grid = FaceGrid::new(faces);
        let brute = |d: Vec3| {
            (0..n).fold((0u32, Real::NEG_INFINITY), |b, i| {
                let s = vertices[i].dot(d);
                if s > b.1 { (i as u32, s) } else { b }
            })
        };
        let seeds = SEED_DIRS.map(|d| {
            let d = Vec3::from_array(d).normalize();
            (d, brute(d).0)
        });
        Climb { vertex_graph, edge_nbrs, vertex_faces, face_grid, seeds }
    }

    /// The seed vertex whose direction is nearest `dir`.
    #[inline]
    fn seed(&self, dir: Vec3) -> u32 {
        let mut best = self.seeds[0];
        let mut best_d = best.0.dot(dir);
        for s in &self.seeds[1..] {
            let d = s.0.dot(dir);
            if d > best_d {
                best_d = d;
                best = *s;
            }
        }
        best.1
    }
}

/// The first lane of `l` farthest along `d`, the lane a scan with `>` picks (lane 0 for a NaN
/// direction): on two 4-lane SSE2 registers per coordinate on x86-64 (its baseline), else in
/// plain Rust. No branch per point, so no misprediction on which vertex leads.
#[inline(always)]
pub(crate) fn first_farthest(l: &[[Real; 8]; 3], d: Vec3) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        let [x, y, z] = l;
        // SAFETY: SSE2 is part of every x86-64 CPU; each row holds 8 values, so the unaligned
        // loads at offsets 0 and 4 are in bounds.
        let mask = unsafe {
            let (dx, dy, dz) = (_mm_set1_ps(d.x), _mm_set1_ps(d.y), _mm_set1_ps(d.z));
            let dot = |o: usize| {
                let xy = _mm_add_ps(
                    _mm_mul_ps(_mm_loadu_ps(x.as_ptr().add(o)), dx),
                    _mm_mul_ps(_mm_loadu_ps(y.as_ptr().add(o)), dy),
                );
                _mm_add_ps(xy, _mm_mul_ps(_mm_loadu_ps(z.as_ptr().add(o)), dz))
            };
            let (lo, hi) = (dot(0), dot(4));
            let m = _mm_max_ps(lo, hi);
            let m = _mm_max_ps(m, _mm_shuffle_ps::<0b01_00_11_10>(m, m));
            let m = _mm_max_ps(m, _mm_shuffle_ps::<0b10_11_00_01>(m, m));
            _mm_movemask_ps(_mm_cmpeq_ps(lo, m)) | (_mm_movemask_ps(_mm_cmpeq_ps(hi, m)) << 4)
        };
        // A NaN direction matches nothing: take the first point.
        (mask.trailing_zeros() & 7) as usize
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let [x, y, z] = l;
        let dots: [Real; 8] = std::array::from_fn(|i| x[i] * d.x + y[i] * d.y + z[i] * d.z);
        (1..8).fold(0, |best, i| if dots[i] > dots[best] { i } else { best })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_hulls_support_on_lanes_is_the_first_vertex_a_scan_finds() {
        let mut rng = crate::rng::SplitMix64::new(7);
        let mut rnd = || rng.range(-1.0, 1.0);
        for case in 0..300 {
            let n = 4 + case % 5;
            let mut pts: Vec<Vec3> = (0..n).map(|_| Vec3::new(rnd(), rnd(), rnd())).collect();
            // Equal coordinates make ties along the axes.
            pts[1].x = pts[0].x;
            let Ok(h) = ConvexHull::new(&pts) else { continue };
            assert!(h.vertex_lanes().is_some());
            let dirs = (0..20).map(|_| Vec3::new(rnd(), rnd(), rnd())).chain([Vec3::X, -Vec3::X, Vec3::ZERO]);
            for d in dirs {
                let mut scan = 0;
                for (i, v) in h.vertices().iter().enumerate() {
                    if v.dot(d) > h.vertices()[scan].dot(d) {
                        scan = i;
                    }
                }
                assert_eq!(h.support_index_scan(d), scan, "case {case}, direction {d}, vertices {:?}", h.vertices());
            }
        }
    }

    #[test]
    fn vertex_lanes_hold_the_vertices_of_small_hulls_only() {
        let tet = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        let h = ConvexHull::new(&tet).unwrap();
        let l = h.vertex_lanes().expect("4 vertices fit");
        for (i, ((&x, &y), &z)) in l[0].iter().zip(&l[1]).zip(&l[2]).enumerate() {
            let v = h.vertices()[if i < 4 { i } else { 0 }];
            assert_eq!(Vec3::new(x, y, z), v, "lane {i}");
        }
        let ring: Vec<Vec3> = (0..12)
            .map(|i| {
                let a = i as Real * std::f32::consts::TAU / 6.0;
                Vec3::new(a.cos(), if i < 6 { -1.0 } else { 1.0 }, a.sin())
            })
            .collect();
        let prism = ConvexHull::new(&ring).unwrap();
        assert!(prism.vertices().len() > 8 && prism.vertex_lanes().is_none());
    }

    fn cube_points(h: Real) -> Vec<Vec3> {
        (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h } else { h },
                    if i & 2 == 0 { -h } else { h },
                    if i & 4 == 0 { -h } else { h },
                )
            })
            .collect()
    }

    #[test]
    fn cube_hull_has_six_quads_and_matches_box_mass() {
        let mut pts = cube_points(0.5);
        pts.push(Vec3::ZERO); // an interior point is dropped
        pts.push(Vec3::new(0.5, 0.0, 0.0)); // a point inside a face is dropped
        let h = ConvexHull::new(&pts).unwrap();
        assert_eq!(h.faces().len(), 6);
        assert_eq!(h.vertices().len(), 8);
        assert_eq!(h.edges().len(), 12);
        assert_eq!(h.edge_directions().len(), 3);
        assert!(h.faces().iter().all(|f| f.vertices.len() == 4));
        let m = h.mass_properties(1.0);
        let b = MassProperties::cuboid(Vec3::splat(0.5), 1.0);
        assert!((m.mass - b.mass).abs() < 1e-5);
        assert!((m.inertia - b.inertia).abs_diff_eq(Mat3::ZERO, 1e-5));
    }

    #[test]
    fn faces_wind_outward() {
        let pts = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z, Vec3::splat(0.1)];
        let h = ConvexHull::new(&pts).unwrap();
        assert_eq!(h.faces().len(), 4);
        for f in h.faces() {
            let v: Vec<Vec3> = f.vertices.iter().map(|&i| h.vertices()[i as usize]).collect();
            assert!((v[1] - v[0]).cross(v[2] - v[0]).dot(f.normal) > 0.0);
            for p in h.vertices() {
                assert!(f.normal.dot(*p) - f.offset <= 1e-5);
            }
        }
    }

    #[test]
    fn offset_cloud_is_recentred() {
        let pts: Vec<Vec3> = cube_points(1.0).into_iter().map(|p| p + Vec3::new(5.0, 0.0, -2.0)).collect();
        let h = ConvexHull::new(&pts).unwrap();
        assert!((h.shift() - Vec3::new(-5.0, 0.0, 2.0)).length() < 1e-4);
        assert!(h.local_aabb().center().length() < 1e-4);
    }

    #[test]
    fn jittered_boxes_stay_closed() {
        // Near-coplanar faces must not merge into holes: V - E + F = 2 and every edge has two
        // faces, for jitters from tiny (almost coplanar) to large.
        let mut seed = 0x2545_f491_u32;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as Real / u32::MAX as Real - 0.5
        };
        for case in 0..300 {
            let amp = [1e-5, 1e-3, 0.02, 0.3][case % 4];
            let pts: Vec<Vec3> =
                cube_points(1.0).into_iter().map(|p| p + Vec3::new(rnd(), rnd(), rnd()) * amp).collect();
            let h = ConvexHull::new(&pts).unwrap();
            let (v, e, f) = (h.vertices().len() as i32, h.edges().len() as i32, h.faces().len() as i32);
            assert_eq!(v - e + f, 2, "case {case}: {pts:?}");
            for &(a, b) in h.edges() {
                let uses = h
                    .faces()
                    .iter()
                    .filter(|f| {
                        let k = f.vertices.len();
                        (0..k).any(|i| {
                            let (x, y) = (f.vertices[i], f.vertices[(i + 1) % k]);
                            (x, y) == (a, b) || (x, y) == (b, a)
                        })
                    })
                    .count();
                assert_eq!(uses, 2, "case {case}: edge {a}-{b} {pts:?}");
            }
        }
    }

    #[test]
    fn degenerate_clouds_are_rejected() {
        assert_eq!(ConvexHull::new(&[Vec3::ZERO; 3]), Err(HullError::TooFewPoints(3)));
        assert_eq!(ConvexHull::new(&[Vec3::ONE; 5]), Err(HullError::Degenerate("all coincident")));
        let line: Vec<Vec3> = (0..5).map(|i| Vec3::X * i as Real).collect();
        assert_eq!(ConvexHull::new(&line), Err(HullError::Degenerate("collinear")));
        let flat = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0)];
        assert_eq!(ConvexHull::new(&flat), Err(HullError::Degenerate("coplanar")));
        let nan = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(0.0, 0.0, Real::NAN)];
        assert_eq!(ConvexHull::new(&nan), Err(HullError::NonFinite(3)));
    }

    /// Each face as its corners' coordinates (bit patterns, so comparisons are exact), sorted.
    fn face_sets(faces: impl IntoIterator<Item = Vec<Vec3>>) -> Vec<Vec<[u32; 3]>> {
        let mut sets: Vec<Vec<[u32; 3]>> = faces
            .into_iter()
            .map(|f| {
                let mut c: Vec<[u32; 3]> = f.iter().map(|p| p.to_array().map(Real::to_bits)).collect();
                c.sort();
                c
            })
            .collect();
        sets.sort();
        sets
    }

    /// Clouds of several kinds: random in a box, on a sphere, box corners with points on the
    /// faces and edges (many coplanar), prisms (coplanar caps), repeated points.
    fn cloud(kind: usize, rng: &mut crate::rng::SplitMix64) -> Vec<Vec3> {
        let n = 4 + (rng.range(0.0, 1.0) * 40.0) as usize;
        match kind {
            0 => (0..n).map(|_| rng.vec3(-1.0, 1.0)).collect(),
            1 => (0..n).map(|_| rng.unit_vector() * 2.0).collect(),
            2 => {
                let mut pts = cube_points(1.0);
                for _ in 0..n {
                    let mut p = rng.vec3(-1.0, 1.0);
                    let axis = (rng.range(0.0, 3.0) as usize).min(2);
                    p[axis] = if rng.range(0.0, 1.0) < 0.5 { -1.0 } else { 1.0 };
                    pts.push(p);
                }
                pts
            }
            3 => {
                let k = 3 + n % 9;
                (0..2 * k)
                    .map(|i| {
                        let a = (i % k) as Real * std::f32::consts::TAU / k as Real;
                        Vec3::new(a.cos(), if i < k { -0.5 } else { 0.5 }, a.sin())
                    })
                    .collect()
            }
            _ => {
                let mut pts: Vec<Vec3> = (0..n).map(|_| rng.vec3(-1.0, 1.0)).collect();
                pts.extend_from_within(..n / 2);
                pts
            }
        }
    }

    #[test]
    fn faces_match_the_brute_force_reference() {
        let mut rng = crate::rng::SplitMix64::new(0x9e37_79b9);
        for case in 0..500 {
            let kind = case % 5;
            let pts = cloud(kind, &mut rng);
            let scale = Aabb::from_points(pts.iter().copied()).extents().max_element();
            let tol = scale * 1e-5;
            let got = face_sets(
                super::super::quickhull::hull_faces(&pts, tol)
                    .unwrap()
                    .into_iter()
                    .map(|f| f.ring.iter().map(|&i| pts[i as usize]).collect()),
            );
            let want = face_sets(supporting_planes(&pts, tol).unwrap().into_iter().map(|(normal, _, mask)| {
                let on: Vec<Vec3> = (0..pts.len()).filter(|m| mask & (1 << m) != 0).map(|m| pts[m]).collect();
                face_ring(&on, normal, tol)
            }));
            assert_eq!(got, want, "case {case} (kind {kind}): {pts:?}");
        }
    }

    #[test]
    fn large_clouds_build_closed_hulls_that_hold_every_point() {
        let mut rng = crate::rng::SplitMix64::new(7);
        // A sphere sampled at 3,000 points, with 1,000 more inside.
        let mut sphere: Vec<Vec3> = (0..3000).map(|_| rng.unit_vector()).collect();
        sphere.extend((0..1000).map(|_| rng.unit_vector() * rng.range(0.0, 0.99)));
        let h = ConvexHull::new(&sphere).unwrap();
        let (v, e, f) = (h.vertices().len() as i64, h.edges().len() as i64, h.faces().len() as i64);
        assert_eq!(v - e + f, 2);
        assert!(v > 2900, "most surface points are corners: {v}");
        let sphere_volume = 4.0 / 3.0 * std::f32::consts::PI;
        let volume = h.mass_properties(1.0).mass;
        assert!(volume < sphere_volume && volume > 0.99 * sphere_volume, "{volume}");
        for (i, p) in sphere.iter().enumerate() {
            let p = *p + h.shift();
            for face in h.faces() {
                assert!(face.normal.dot(p) - face.offset <= 1e-4, "point {i} outside a face");
            }
        }
        // A box filled with a grid of 2,197 points: still six quads.
        let grid: Vec<Vec3> = (0..13 * 13 * 13)
            .map(|i| Vec3::new((i % 13) as Real, (i / 13 % 13) as Real, (i / 169) as Real) / 12.0)
            .collect();
        let b = ConvexHull::new(&grid).unwrap();
        assert_eq!((b.vertices().len(), b.faces().len(), b.edges().len()), (8, 6, 12));
        let many = vec![Vec3::ONE; ConvexHull::MAX_POINTS + 1];
        assert_eq!(
            ConvexHull::new(&many),
            Err(HullError::TooManyPoints { got: ConvexHull::MAX_POINTS + 1, max: ConvexHull::MAX_POINTS })
        );
    }

    #[test]
    fn climbing_queries_match_the_scans_on_large_hulls() {
        // Random clouds of several kinds and sizes above the climbing threshold: for random
        // directions (and directions near face normals, where the facing face matters), the
        // climbed support vertex reaches the scan's maximum (ties allowed), from the seeds and
        // from any hint, and the facing face is the scan's.
        let mut rng = crate::rng::SplitMix64::new(0x14_c11b);
        for case in 0..24 {
            let n = 40 + (rng.range(0.0, 1.0) * 2000.0) as usize;
            let squash = Vec3::new(rng.range(0.5, 1.5), rng.range(0.5, 1.5), rng.range(0.5, 1.5));
            let pts: Vec<Vec3> = match case % 4 {
                0 => (0..n).map(|_| rng.unit_vector() * squash).collect(),
                1 => (0..n).map(|_| rng.vec3(-1.0, 1.0) * squash).collect(),
                2 => (0..n).map(|_| rng.unit_vector() * rng.range(0.5, 1.0)).collect(),
                // A many-sided prism: coplanar caps (ties), long thin side faces.
                _ => {
                    let k = n.min(400) / 2;
                    (0..2 * k)
                        .map(|i| {
                            let a = (i % k) as Real * std::f32::consts::TAU / k as Real;
                            Vec3::new(a.cos(), if i < k { -0.3 } else { 0.3 }, a.sin()) * squash
                        })
                        .collect()
                }
            };
            let h = ConvexHull::new(&pts).unwrap();
            let (vs, fs) = (h.vertices(), h.faces());
            assert!(vs.len() > ConvexHull::CLIMB_MIN_VERTICES, "case {case}");
            let outside = fs
                .iter()
                .flat_map(|f| vs.iter().map(move |v| f.normal.dot(*v) - f.offset))
                .fold(Real::NEG_INFINITY, Real::max);
            assert!(outside < 1e-4, "case {case}: the hull is not convex ({outside}): {pts:?}");
            for q in 0..400 {
                let d = match q % 4 {
                    0 => [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Y][q / 4 % 4],
                    1 => {
                        let f = &fs[(rng.range(0.0, 1.0) * fs.len() as Real) as usize % fs.len()];
                        (f.normal + rng.vec3(-0.05, 0.05)).normalize()
                    }
                    _ => rng.unit_vector(),
                };
                let (fi, fd) = h.most_facing_scan(d);
                let want = (fd >= 0.9986).then_some((fi, fd));
                assert_eq!(h.facing_face(d, 0.9986), want, "case {case} q {q}: along {d:?} for {pts:?}");
                let d = d * rng.range(0.1, 3.0);
                let want = vs[h.support_index_scan(d)].dot(d);
                let tol = 1e-5 * d.length() * (1.0 + want.abs());
                let got = vs[h.support_index(d)].dot(d);
                assert!(got >= want - tol, "case {case} q {q}: support {got} < {want} along {d:?} for {pts:?}");
                let hint = (rng.range(0.0, 1.0) * vs.len() as Real) as usize % vs.len();
                let got = vs[h.support_index_from(d, hint)].dot(d);
                assert!(got >= want - tol, "case {case} q {q} hint {hint}: {got} < {want} along {d:?} for {pts:?}");
                let s = h.support_index(d);
                let scan: Vec<u32> = h.edge_neighbours_scan(s).collect();
                assert_eq!(h.edge_neighbours(s).collect::<Vec<_>>(), scan, "case {case} q {q}");
            }
        }
    }
}

#[cfg(test)]
mod flat_clouds {
    use super::*;

    /// Flattened and stretched clouds of 1,000–4,000 points (on an ellipsoid, in a box, in a
    /// shell), the kind whose rim is made of long thin triangles: every point and every corner
    /// stays behind every face (within 1e-4 of the size), so the hull is convex.
    #[test]
    fn flattened_clouds_build_convex_hulls_that_hold_every_point() {
        let mut rng = crate::rng::SplitMix64::new(0xf1a7);
        for case in 0..36 {
            let n = 1000 + (rng.range(0.0, 1.0) * 3000.0) as usize;
            let flat = [0.01, 0.05, 0.2][case % 3];
            let squash = if case % 2 == 0 { Vec3::new(1.0, flat, 1.0) } else { Vec3::new(1.0, flat, flat * 2.0) };
            let pts: Vec<Vec3> = (0..n)
                .map(|_| match case / 6 % 3 {
                    0 => rng.unit_vector() * squash,
                    1 => rng.vec3(-1.0, 1.0) * squash,
                    _ => rng.unit_vector() * squash * rng.range(0.5, 1.0),
                })
                .collect();
            let h = ConvexHull::new(&pts).unwrap_or_else(|e| panic!("case {case} (n {n}, flat {flat}): {e:?}"));
            let (v, e, f) = (h.vertices().len() as i64, h.edges().len() as i64, h.faces().len() as i64);
            assert_eq!(v - e + f, 2, "case {case}: not a closed polyhedron");
            let outside = |p: Vec3| h.faces().iter().map(|f| f.normal.dot(p) - f.offset).fold(Real::MIN, Real::max);
            let worst_point = pts.iter().map(|p| outside(*p + h.shift())).fold(Real::MIN, Real::max);
            let worst_corner = h.vertices().iter().map(|p| outside(*p)).fold(Real::MIN, Real::max);
            assert!(
                worst_point <= 1e-4 && worst_corner <= 1e-4,
                "case {case} (n {n}, flat {flat}): a point {worst_point} and a corner {worst_corner} outside a face"
            );
        }
    }
}
