//! Exact f64 contact reference for every pair kind: signed distance and minimum-translation
//! normal. Each shape is a core (point, segment or polytope) swept by a radius. Cores apart:
//! the closest pair over all feature pairs (vertex, edge, face), exact. Cores overlapping:
//! exhaustive SAT over the facet normals of the cores' Minkowski difference (face normals of
//! each polytope and every edge–edge cross product, the segment counting as an edge), whose
//! minimum overlap is the penetration depth and whose axis is the minimum-translation normal.

pub mod cases;

use collidoscope::geometry::Shape;
use collidoscope::math::Pose;
use glam::{DQuat, DVec3};

/// A shape in world space, in f64: core features plus the rounding radius.
pub struct Core {
    pub verts: Vec<DVec3>,
    pub edges: Vec<(usize, usize)>,
    /// Outward unit normal and corner indices of each face (polytopes only).
    pub faces: Vec<(DVec3, Vec<usize>)>,
    pub radius: f64,
}

/// What the reference says about a pair, oriented from A to B.
#[derive(Clone, Copy, Debug)]
pub struct Exact {
    /// Positive when apart, negative by the penetration depth when overlapping.
    pub distance: f64,
    /// Unit minimum-translation direction from A to B (pushing B along it separates them).
    pub normal: DVec3,
    /// Cores meet in a set of measure zero (coincident sphere centres, crossing segments):
    /// the normal is not unique.
    pub degenerate: bool,
}

fn d3(v: glam::Vec3) -> DVec3 {
    DVec3::new(v.x as f64, v.y as f64, v.z as f64)
}

fn dq(q: glam::Quat) -> DQuat {
    DQuat::from_xyzw(q.x as f64, q.y as f64, q.z as f64, q.w as f64).normalize()
}

fn world(p: &Pose, v: DVec3) -> DVec3 {
    dq(p.rotation) * v + d3(p.translation)
}

/// Newell's normal of a polygon, unit.
fn polygon_normal(verts: &[DVec3], ids: &[usize]) -> DVec3 {
    let mut n = DVec3::ZERO;
    for (i, &a) in ids.iter().enumerate() {
        let (p, q) = (verts[a], verts[ids[(i + 1) % ids.len()]]);
        n += DVec3::new((p.y - q.y) * (p.z + q.z), (p.z - q.z) * (p.x + q.x), (p.x - q.x) * (p.y + q.y));
    }
    n.normalize()
}

impl Core {
    pub fn new(shape: &Shape, pose: &Pose) -> Core {
        match shape {
            Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => panic!("not a convex shape"),
            Shape::Sphere(s) => {
                Core { verts: vec![d3(pose.translation)], edges: vec![], faces: vec![], radius: s.radius as f64 }
            }
            Shape::Capsule(c) => {
                let h = c.half_height as f64;
                let verts = vec![world(pose, DVec3::new(0.0, -h, 0.0)), world(pose, DVec3::new(0.0, h, 0.0))];
                Core { verts, edges: vec![(0, 1)], faces: vec![], radius: c.radius as f64 }
            }
            Shape::Cuboid(c) => {
                let h = d3(c.half_extents);
                let verts: Vec<DVec3> = (0..8)
                    .map(|i| {
                        let s = |bit: usize| if i & bit == 0 { -1.0 } else { 1.0 };
                        world(pose, DVec3::new(s(1) * h.x, s(2) * h.y, s(4) * h.z))
                    })
                    .collect();
                let mut edges = vec![];
                for i in 0..8usize {
                    for bit in [1, 2, 4] {
                        if i & bit == 0 {
                            edges.push((i, i | bit));
                        }
                    }
                }
                // Faces as rings: fixed axis bit `bit` at side `side`, the other two bits cycled.
                let mut faces = vec![];
                for (bit, others) in [(1usize, [2usize, 4]), (2, [4, 1]), (4, [1, 2])] {
                    for side in [0, bit] {
                        let (u, w) = (others[0], others[1]);
                        let ring = vec![side, side | u, side | u | w, side | w];
                        let n = polygon_normal(&verts, &ring);
                        let centre = d3(pose.translation);
                        let n = if n.dot(verts[side] - centre) < 0.0 { -n } else { n };
                        faces.push((n, ring));
                    }
                }
                Core { verts, edges, faces, radius: 0.0 }
            }
            Shape::ConvexHull(h) => {
                let verts: Vec<DVec3> = h.vertices().iter().map(|&v| world(pose, d3(v))).collect();
                let edges = h.edges().iter().map(|&(a, b)| (a as usize, b as usize)).collect();
                let centre = verts.iter().copied().sum::<DVec3>() / verts.len() as f64;
                let faces = h
                    .faces()
                    .iter()
                    .map(|f| {
                        let ring: Vec<usize> = f.vertices.iter().map(|&i| i as usize).collect();
                        let n = polygon_normal(&verts, &ring);
                        let n = if n.dot(verts[ring[0]] - centre) < 0.0 { -n } else { n };
                        (n, ring)
                    })
                    .collect();
                Core { verts, edges, faces, radius: 0.0 }
            }
        }
    }

    /// Support of the core along `n` (`max v.n`).
    pub fn core_support(&self, n: DVec3) -> f64 {
        self.verts.iter().map(|v| v.dot(n)).fold(f64::NEG_INFINITY, f64::max)
    }

    /// Support of the whole shape along unit `n`.
    pub fn support(&self, n: DVec3) -> f64 {
        self.core_support(n) + self.radius
    }

    fn edge_dirs(&self) -> Vec<DVec3> {
        self.edges.iter().map(|&(a, b)| (self.verts[b] - self.verts[a]).normalize()).collect()
    }
}

/// How far the shapes overlap along unit `n` (from A to B): positive when their projections
/// overlap. The penetration depth is its minimum over all directions.
pub fn overlap_along(a: &Core, b: &Core, n: DVec3) -> f64 {
    a.support(n) + b.support(-n)
}

/// How far B must move along unit `n` to stop overlapping A, for two polytopes (cores without
/// radius): a translation along `n` moves B's projection on each SAT axis `m` by its cosine
/// `m·n`, and the pair is apart once one axis separates, so the depth is the least overlap over
/// cosine of the axes that `n` moves apart. Never more than [`overlap_along`] `n`, equal to it
/// when B's deepest point along `n` lies over A's face; less when that point hangs past it.
pub fn directional_depth(a: &Core, b: &Core, n: DVec3) -> f64 {
    assert!(a.radius == 0.0 && b.radius == 0.0, "directional depth is for polytopes");
    let mut best = f64::INFINITY;
    for m in sat_axes(a, b) {
        for m in [m, -m] {
            let c = m.dot(n);
            if c > 1e-12 {
                best = best.min(overlap_along(a, b, m) / c);
            }
        }
    }
    best
}

/// Closest points of segments `p1 q1` and `p2 q2` (Ericson 5.1.9), degenerate segments allowed.
pub fn closest_segments(p1: DVec3, q1: DVec3, p2: DVec3, q2: DVec3) -> (DVec3, DVec3) {
    let (d1, d2, r) = (q1 - p1, q2 - p2, p1 - p2);
    let (a, e, f) = (d1.length_squared(), d2.length_squared(), d2.dot(r));
    let tiny = 1e-300;
    let (s, t);
    if a <= tiny && e <= tiny {
        return (p1, p2);
    }
    if a <= tiny {
        s = 0.0;
        t = (f / e).clamp(0.0, 1.0);
    } else {
        let c = d1.dot(r);
        if e <= tiny {
            t = 0.0;
            s = (-c / a).clamp(0.0, 1.0);
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            let mut s0 = if denom > 1e-18 * a * e { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let mut t0 = (b * s0 + f) / e;
            if t0 < 0.0 {
                t0 = 0.0;
                s0 = (-c / a).clamp(0.0, 1.0);
            } else if t0 > 1.0 {
                t0 = 1.0;
                s0 = ((b - c) / a).clamp(0.0, 1.0);
            }
            s = s0;
            t = t0;
        }
    }
    (p1 + d1 * s, p2 + d2 * t)
}

/// The closest point of face `(n, ring)` to `p` when `p` projects inside it.
fn point_face(core: &Core, n: DVec3, ring: &[usize], p: DVec3) -> Option<DVec3> {
    let v0 = core.verts[ring[0]];
    let q = p - n * n.dot(p - v0);
    // Inside a convex polygon: on the same side of every edge, whichever way the ring winds.
    let (mut pos, mut neg) = (false, false);
    for (i, &a) in ring.iter().enumerate() {
        let (u, w) = (core.verts[a], core.verts[ring[(i + 1) % ring.len()]]);
        let side = (w - u).cross(q - u).dot(n);
        pos |= side > 1e-14;
        neg |= side < -1e-14;
    }
    (!(pos && neg)).then_some(q)
}

/// Closest points of the two cores when they are apart, over all feature pairs.
fn closest_cores(a: &Core, b: &Core) -> (DVec3, DVec3) {
    let mut best = (f64::INFINITY, DVec3::ZERO, DVec3::ZERO);
    let mut consider = |p: DVec3, q: DVec3| {
        let d = p.distance_squared(q);
        if d < best.0 {
            best = (d, p, q);
        }
    };
    let segs = |c: &Core| -> Vec<(DVec3, DVec3)> {
        if c.edges.is_empty() {
            vec![(c.verts[0], c.verts[0])]
        } else {
            c.edges.iter().map(|&(i, j)| (c.verts[i], c.verts[j])).collect()
        }
    };
    let (sa, sb) = (segs(a), segs(b));
    for &(p1, q1) in &sa {
        for &(p2, q2) in &sb {
            let (x, y) = closest_segments(p1, q1, p2, q2);
            consider(x, y);
        }
    }
    for (n, ring) in &b.faces {
        for &v in &a.verts {
            if let Some(q) = point_face(b, *n, ring, v) {
                consider(v, q);
            }
        }
    }
    for (n, ring) in &a.faces {
        for &v in &b.verts {
            if let Some(q) = point_face(a, *n, ring, v) {
                consider(q, v);
            }
        }
    }
    (best.1, best.2)
}

/// The SAT axes of the cores' Minkowski difference: face normals and edge–edge cross products.
fn sat_axes(a: &Core, b: &Core) -> Vec<DVec3> {
    let mut axes: Vec<DVec3> = a.faces.iter().chain(&b.faces).map(|f| f.0).collect();
    let (ea, eb) = (a.edge_dirs(), b.edge_dirs());
    for x in &ea {
        for y in &eb {
            let c = x.cross(*y);
            if c.length_squared() > 1e-18 {
                axes.push(c.normalize());
            }
        }
    }
    axes
}

/// Exact signed distance and minimum-translation normal from A to B.
pub fn exact(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose) -> Exact {
    let (ca, cb) = (Core::new(a, pa), Core::new(b, pb));
    exact_cores(&ca, &cb)
}

pub fn exact_cores(ca: &Core, cb: &Core) -> Exact {
    let radii = ca.radius + cb.radius;
    let axes = sat_axes(ca, cb);
    // Cores overlap iff no axis separates them (complete for polytopes, and for a segment or a
    // point against a polytope); two lower-dimensional cores overlap only when they meet.
    let lower_dim = ca.faces.is_empty() && cb.faces.is_empty();
    let mut best = (f64::INFINITY, DVec3::X);
    for &n in &axes {
        for n in [n, -n] {
            let o = ca.core_support(n) + cb.core_support(-n);
            if o < best.0 {
                best = (o, n);
            }
        }
    }
    let (p, q) = closest_cores(ca, cb);
    let gap = p.distance(q);
    let separated = if lower_dim { gap > 1e-12 } else { best.0 < 0.0 };
    if separated {
        return Exact { distance: gap - radii, normal: (q - p) / gap, degenerate: false };
    }
    if lower_dim {
        // Meeting points or segments: depth is the radii, the normal is not unique.
        let n = if axes.is_empty() { DVec3::X } else { axes[0] };
        let n = if n.dot(cb.verts[0] - ca.verts[0]) < 0.0 { -n } else { n };
        return Exact { distance: -radii, normal: n, degenerate: true };
    }
    Exact { distance: -best.0 - radii, normal: best.1, degenerate: false }
}
