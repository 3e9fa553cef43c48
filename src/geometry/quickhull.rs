//! The faces of a point cloud's convex hull. The hull is first triangulated incrementally: start
//! from a tetrahedron of four far-apart points, then add every point that lies more than `tol`
//! outside, replacing the faces it sees with a fan from their horizon. Then triangles that are
//! coplanar within the tolerance are merged into polygons, each grown as a disk so that its
//! boundary is one loop: the polygons share their edges exactly, so the hull stays closed.
//! Everything is computed in f64: in f32 the normals of the long, thin triangles a flattened
//! cloud's rim is made of come out tilted or flipped, and the hull stops being convex.

use super::hull::HullError;
use crate::math::{Real, Vec3};
use glam::DVec3;
use std::collections::HashMap;

/// A face of the hull: outward unit normal, plane offset, and its corners (indices into the
/// points) counter-clockwise seen from outside.
pub(super) struct Face {
    pub normal: Vec3,
    pub offset: Real,
    pub ring: Vec<u32>,
}

/// The faces of the hull of `points`. Corners within `4 tol` of a face's plane are merged into
/// it.
pub(super) fn hull_faces(points32: &[Vec3], tol: Real) -> Result<Vec<Face>, HullError> {
    let points: Vec<DVec3> = points32.iter().map(|p| p.as_dvec3()).collect();
    let points = points.as_slice();
    let tol = tol as f64;
    let tris = hull_triangles(points, tol)?;
    let edge_of: HashMap<(u32, u32), usize> =
        tris.iter().enumerate().flat_map(|(i, t)| t.edges().map(|e| (e, i))).collect();
    let twin = |(a, b): (u32, u32)| edge_of.get(&(b, a)).copied().ok_or(HullError::Degenerate("not closed"));
    // Seeds in order of area, so slivers join their neighbours rather than start faces.
    let area = |t: &Tri| {
        let [a, b, c] = t.v.map(|i| points[i as usize]);
        (b - a).cross(c - a).length()
    };
    let mut seeds: Vec<usize> = (0..tris.len()).collect();
    seeds.sort_by(|&x, &y| area(&tris[y]).total_cmp(&area(&tris[x])).then(x.cmp(&y)));
    let mut group = vec![usize::MAX; tris.len()];
    let mut faces = Vec::new();
    for seed in seeds {
        if group[seed] != usize::MAX {
            continue;
        }
        let g = faces.len();
        let (n, d) = (tris[seed].normal, tris[seed].offset);
        let near = |v: u32| (n.dot(points[v as usize]) - d).abs() <= 4.0 * tol;
        group[seed] = g;
        let mut members = vec![seed];
        let mut corners: Vec<u32> = tris[seed].v.to_vec();
        let mut k = 0;
        while k < members.len() {
            for e in tris[members[k]].edges() {
                let t = twin(e)?;
                if group[t] != usize::MAX || !tris[t].v.iter().all(|&v| near(v)) {
                    continue;
                }
                // Stay a disk: take a triangle whose far corner is new, or one that fills a notch
                // (it shares two edges with the face).
                let far = tris[t].v.into_iter().find(|&v| v != e.0 && v != e.1).unwrap_or(e.0);
                let shared = tris[t].edges().iter().filter(|&&te| twin(te).is_ok_and(|o| group[o] == g)).count();
                if corners.contains(&far) && shared < 2 {
                    continue;
                }
                group[t] = g;
                members.push(t);
                corners.push(far);
            }
            k += 1;
        }
        // The boundary: edges whose other side is another face, chained into one loop.
        let mut next: HashMap<u32, u32> = HashMap::new();
        let mut first = u32::MAX;
        for &m in &members {
            for e in tris[m].edges() {
                if group[twin(e)?] != g {
                    if next.insert(e.0, e.1).is_some() {
                        return Err(HullError::Degenerate("not closed"));
                    }
                    first = first.min(e.0);
                }
            }
        }
        if first == u32::MAX {
            return Err(HullError::Degenerate("not closed"));
        }
        let mut ring = vec![first];
        let mut v = next[&first];
        while v != first {
            if ring.len() > next.len() {
                return Err(HullError::Degenerate("not closed"));
            }
            ring.push(v);
            v = *next.get(&v).ok_or(HullError::Degenerate("not closed"))?;
        }
        if ring.len() != next.len() {
            return Err(HullError::Degenerate("not closed"));
        }
        // Newell's normal weighs every corner; the offset puts every corner on or below the plane.
        // (In f32, from the given points: the face planes are what the rest of the engine uses.)
        let newell = ring.iter().zip(ring.iter().cycle().skip(1)).fold(Vec3::ZERO, |acc, (&a, &b)| {
            let (p, q) = (points32[a as usize], points32[b as usize]);
            acc + Vec3::new((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y))
        });
        let normal = newell.try_normalize().unwrap_or_else(|| n.as_vec3().normalize());
        let offset = ring.iter().map(|&v| normal.dot(points32[v as usize])).fold(Real::NEG_INFINITY, Real::max);
        faces.push(Face { normal, offset, ring });
    }
    Ok(faces)
}

#[derive(Clone, Copy)]
struct Tri {
    v: [u32; 3],
    normal: DVec3,
    offset: f64,
    alive: bool,
}

impl Tri {
    /// The triangle `a b c`, counter-clockwise seen from outside (its normal points out).
    fn new(points: &[DVec3], v: [u32; 3]) -> Tri {
        let [a, b, c] = v.map(|i| points[i as usize]);
        let normal = (b - a).cross(c - a).normalize_or_zero();
        Tri { v, normal, offset: normal.dot(a), alive: true }
    }

    fn height(&self, p: DVec3) -> f64 {
        self.normal.dot(p) - self.offset
    }

    fn edges(&self) -> [(u32, u32); 3] {
        let [a, b, c] = self.v;
        [(a, b), (b, c), (c, a)]
    }
}

/// The outward-wound triangles of the hull of `points`: no point is more than `tol` above any of
/// them. Points within `tol` of the surface are not made corners.
fn hull_triangles(points: &[DVec3], tol: f64) -> Result<Vec<Tri>, HullError> {
    let [i0, i1, i2, i3] = initial_simplex(points, tol)?;
    let inside = (points[i0 as usize] + points[i1 as usize] + points[i2 as usize] + points[i3 as usize]) * 0.25;
    let mut hull =
        Mesh { tris: Vec::new(), edge_of: HashMap::new(), uses: vec![0; points.len()], inside, flat: tol * VISIBLE };
    for v in [[i0, i1, i2], [i0, i3, i1], [i1, i3, i2], [i2, i3, i0]] {
        let mut t = Tri::new(points, v);
        if t.height(inside) > 0.0 {
            t = Tri::new(points, [v[0], v[2], v[1]]);
        }
        hull.add(t);
    }

    // Far points first: the hull is nearly whole early, so most later points are found inside.
    let mut order: Vec<u32> = (0..points.len() as u32).filter(|i| ![i0, i1, i2, i3].contains(i)).collect();
    order.sort_by(|&a, &b| {
        let (da, db) = (points[a as usize].distance_squared(inside), points[b as usize].distance_squared(inside));
        db.total_cmp(&da).then(a.cmp(&b))
    });
    // A point found within `tol` of a face may end up further above a face made later, so
    // passes repeat until every point is within `tol` of the hull (each pass only grows it).
    for _ in 0..MAX_PASSES {
        let mut added = false;
        for &p in &order {
            if hull.uses[p as usize] == 0 && hull.insert(points, p, tol)? {
                added = true;
            }
        }
        if !added {
            return Ok(hull.tris.into_iter().filter(|t| t.alive).collect());
        }
    }
    Err(HullError::Degenerate("too nearly coplanar to settle"))
}

/// Strictly seen: the point is above the face's plane by more than this fraction of the
/// tolerance (nearly exact in f64).
const VISIBLE: f64 = 1e-6;

/// Passes over the points before giving up; one or two are the rule.
const MAX_PASSES: usize = 16;

/// A closed triangle mesh: triangles (dead ones stay, marked), directed edge -> live triangle,
/// and how many live triangles use each point.
struct Mesh {
    tris: Vec<Tri>,
    edge_of: HashMap<(u32, u32), usize>,
    uses: Vec<u32>,
    /// A point strictly inside (the first tetrahedron's centre): every face has it behind.
    inside: DVec3,
    /// How far above a neighbouring fan triangle a corner may be and still count as flat.
    flat: f64,
}

impl Mesh {
    fn add(&mut self, t: Tri) {
        for e in t.edges() {
            self.edge_of.insert(e, self.tris.len());
        }
        t.v.iter().for_each(|&v| self.uses[v as usize] += 1);
        self.tris.push(t);
    }

    fn remove(&mut self, f: usize) {
        self.tris[f].alive = false;
        for e in self.tris[f].edges() {
            self.edge_of.remove(&e);
        }
        self.tris[f].v.iter().for_each(|&v| self.uses[v as usize] -= 1);
    }

    fn twin(&self, (a, b): (u32, u32)) -> Result<usize, HullError> {
        self.edge_of.get(&(b, a)).copied().ok_or(HullError::Degenerate("not closed"))
    }

    /// Adds point `p` if it is more than `tol` above a face: the faces it sees (grown from the
    /// one it sees best through shared edges) are replaced by a fan from their boundary to `p`.
    fn insert(&mut self, points: &[DVec3], p: u32, tol: f64) -> Result<bool, HullError> {
        let pt = points[p as usize];
        let best = self
            .tris
            .iter()
            .enumerate()
            .filter(|(_, t)| t.alive)
            .map(|(i, t)| (i, t.height(pt)))
            .max_by(|a, b| a.1.total_cmp(&b.1));
        let Some((start, _)) = best.filter(|b| b.1 > tol) else { return Ok(false) };
        // Faces the point is up to `tol` below count as seen, so nearly coplanar faces merge
        // rather than leave slivers. That band can make the seen region pinch at a corner
        // (its boundary touching itself); then only the faces it is strictly above are taken,
        // which from a point outside a convex hull form a disk. (Closing a pinch by taking in
        // more faces would remove faces the point cannot see and fold the hull.)
        let (region, horizon) = match self.seen_from(points, p, start, -tol)? {
            Some(r) => r,
            None => self.seen_from(points, p, start, tol * VISIBLE)?.ok_or(HullError::Degenerate("not closed"))?,
        };
        for &f in &region {
            self.remove(f);
        }
        for (a, b) in horizon {
            if self.edge_of.contains_key(&(b, p)) || self.edge_of.contains_key(&(p, a)) {
                return Err(HullError::Degenerate("not closed"));
            }
            self.add(Tri::new(points, [a, b, p]));
        }
        Ok(true)
    }

    /// The faces seen from point `p` (those it is more than `above` above, grown from `start`
    /// through shared edges) and their boundary; `None` if the boundary is not one simple loop
    /// or a triangle from it to `p` would face inward (the hull would fold).
    #[allow(clippy::type_complexity)]
    fn seen_from(
        &self,
        points: &[DVec3],
        p: u32,
        start: usize,
        above: f64,
    ) -> Result<Option<(Vec<usize>, Vec<(u32, u32)>)>, HullError> {
        let pt = points[p as usize];
        let mut seen = vec![false; self.tris.len()];
        let mut region = vec![start];
        seen[start] = true;
        let mut k = 0;
        while k < region.len() {
            for e in self.tris[region[k]].edges() {
                let n = self.twin(e)?;
                if !seen[n] && self.tris[n].height(pt) > above {
                    seen[n] = true;
                    region.push(n);
                }
            }
            k += 1;
        }
        let mut horizon = Vec::new();
        for &f in &region {
            for e in self.tris[f].edges() {
                if !seen[self.twin(e)?] {
                    horizon.push(e);
                }
            }
        }
        if !pinched_corners(&horizon).is_empty() {
            return Ok(None);
        }
        // The fan must be convex: each new triangle has the hull's inside behind it and the
        // next corner of the boundary on or below it.
        let next: HashMap<u32, u32> = horizon.iter().copied().collect();
        let folds = horizon.iter().any(|&(a, b)| {
            let t = Tri::new(points, [a, b, p]);
            t.height(self.inside) >= 0.0 || t.height(points[next[&b] as usize]) > self.flat
        });
        Ok((!folds).then_some((region, horizon)))
    }
}

/// The corners where a region's boundary is not one simple loop: those that start more than
/// one boundary edge, and those on loops other than the first.
fn pinched_corners(horizon: &[(u32, u32)]) -> Vec<u32> {
    let mut next: HashMap<u32, u32> = HashMap::with_capacity(horizon.len());
    let mut bad: Vec<u32> = Vec::new();
    for &(a, b) in horizon {
        if next.insert(a, b).is_some() {
            bad.push(a);
        }
    }
    if !bad.is_empty() {
        return bad;
    }
    let Some(&(first, _)) = horizon.first() else { return bad };
    let (mut v, mut steps) = (first, 0);
    loop {
        v = next[&v];
        steps += 1;
        if v == first || steps > horizon.len() {
            break;
        }
    }
    if steps != horizon.len() {
        let mut on_first = std::collections::HashSet::new();
        let mut v = first;
        for _ in 0..steps {
            on_first.insert(v);
            v = next[&v];
        }
        bad.extend(horizon.iter().map(|e| e.0).filter(|v| !on_first.contains(v)));
    }
    bad
}

/// Four points spanning the cloud: the extremes of its widest axis, the point farthest from
/// their line and the point farthest from the plane of those three.
fn initial_simplex(points: &[DVec3], tol: f64) -> Result<[u32; 4], HullError> {
    let argmax = |f: &dyn Fn(DVec3) -> f64| {
        let mut best = (0usize, f64::NEG_INFINITY);
        for (i, p) in points.iter().enumerate() {
            let v = f(*p);
            if v > best.1 {
                best = (i, v);
            }
        }
        best
    };
    let (lo, hi) = points.iter().fold((DVec3::INFINITY, DVec3::NEG_INFINITY), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
    let axis = (hi - lo).max_position();
    let a = argmax(&|p| -p[axis]).0;
    let b = argmax(&|p| p[axis]).0;
    let (pa, pb) = (points[a], points[b]);
    if pa.distance(pb) <= tol {
        return Err(HullError::Degenerate("all coincident"));
    }
    let dir = (pb - pa).normalize();
    let (c, d_line) = argmax(&|p| (p - pa).cross(dir).length());
    if d_line <= tol {
        return Err(HullError::Degenerate("collinear"));
    }
    let n = dir.cross(points[c] - pa).normalize();
    let (d, d_plane) = argmax(&|p| (p - pa).dot(n).abs());
    if d_plane <= tol {
        return Err(HullError::Degenerate("coplanar"));
    }
    let size = (hi - lo).max_element();
    if d_plane < super::ConvexHull::MIN_THICKNESS as f64 * size {
        return Err(HullError::TooFlat { thickness: d_plane as Real, size: size as Real });
    }
    Ok([a as u32, b as u32, c as u32, d as u32])
}
