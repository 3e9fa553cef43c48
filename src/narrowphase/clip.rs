//! Manifold construction by Sutherland–Hodgman clipping, and reduction to four points.

use super::manifold::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold};
use crate::math::{Real, Vec3};

/// A clipped vertex and the feature id it came from.
pub type Tagged = (Vec3, u32);

/// The clipping stages, kept so the app can show them.
#[derive(Clone, Debug, Default)]
pub struct ClipTrace {
    pub reference: Vec<Vec3>,
    pub incident: Vec<Vec3>,
    /// The incident polygon after each side plane.
    pub stages: Vec<Vec<Vec3>>,
}

/// Clips `poly` to the half space `n . x <= d`. A vertex created on the plane takes the id
/// `edge_tag ^ (id of the edge's first vertex).rotate_left(8)`, which is stable while the same
/// features touch.
pub fn clip_to_plane(poly: &[Tagged], n: Vec3, d: Real, edge_tag: u32, out: &mut Vec<Tagged>) {
    out.clear();
    let len = poly.len();
    // Two points are a segment, not a closed polygon: walk its one edge once.
    let edges = if len == 2 { 1 } else { len };
    for i in 0..edges {
        let (a, ia) = poly[i];
        let (b, _) = poly[(i + 1) % len];
        let (da, db) = (n.dot(a) - d, n.dot(b) - d);
        if da <= 0.0 {
            out.push((a, ia));
        }
        if (da <= 0.0) != (db <= 0.0) {
            let t = da / (da - db);
            out.push((a + (b - a) * t, edge_tag ^ ia.rotate_left(8)));
        }
    }
    if len == 2 && n.dot(poly[1].0) - d <= 0.0 {
        out.push(poly[1]);
    }
}

/// Builds a manifold by clipping the incident polygon against the side planes of the
/// reference polygon. `ref_normal` is the reference face's outward normal, which points at the
/// incident body; the manifold normal is `ref_normal` (flip it afterwards if the reference body
/// is B). Points farther than `margin` in front of the reference face are dropped. Returns
/// `None` when nothing survives.
pub fn clip_faces(
    reference: &[Vec3],
    ref_normal: Vec3,
    incident: &[Tagged],
    margin: Real,
    ref_tag: u32,
    mut trace: Option<&mut ClipTrace>,
) -> Option<Manifold> {
    let mut poly: Vec<Tagged> = incident.to_vec();
    let mut next = Vec::with_capacity(poly.len() * 2);
    let n = reference.len();
    if let Some(t) = trace.as_deref_mut() {
        t.reference = reference.to_vec();
        t.incident = incident.iter().map(|p| p.0).collect();
    }
    for i in 0..n {
        let a = reference[i];
        let b = reference[(i + 1) % n];
        let side = (b - a).cross(ref_normal).normalize_or_zero();
        if side == Vec3::ZERO {
            continue;
        }
        clip_to_plane(&poly, side, side.dot(a), ref_tag.wrapping_add(i as u32 + 1) << 20, &mut next);
        std::mem::swap(&mut poly, &mut next);
        if let Some(t) = trace.as_deref_mut() {
            t.stages.push(poly.iter().map(|p| p.0).collect());
        }
        if poly.is_empty() {
            return None;
        }
    }
    let face_d = ref_normal.dot(reference[0]);
    let mut candidates: Vec<ContactPoint> = Vec::with_capacity(poly.len());
    for (p, id) in poly {
        let sep = ref_normal.dot(p) - face_d;
        if sep <= margin {
            // Midway between the incident point and its projection on the reference face.
            candidates.push(ContactPoint { point: p - ref_normal * (sep * 0.5), depth: -sep, id });
        }
    }
    if candidates.is_empty() {
        return None;
    }
    Some(reduce(ref_normal, &candidates))
}

/// Keeps at most four points: the deepest, the one farthest from it, then the two that add the
/// most area on either side of that diagonal.
pub fn reduce(normal: Vec3, pts: &[ContactPoint]) -> Manifold {
    let mut m = Manifold::new(normal);
    if pts.len() <= MAX_MANIFOLD_POINTS {
        for p in pts {
            m.push(*p);
        }
        return m;
    }
    let deepest = (0..pts.len()).max_by(|&i, &j| pts[i].depth.total_cmp(&pts[j].depth)).unwrap_or(0);
    let a = pts[deepest].point;
    let far = (0..pts.len())
        .max_by(|&i, &j| a.distance_squared(pts[i].point).total_cmp(&a.distance_squared(pts[j].point)))
        .unwrap_or(0);
    let b = pts[far].point;
    let signed_area = |p: Vec3| (b - a).cross(p - a).dot(normal);
    let third = (0..pts.len()).max_by(|&i, &j| signed_area(pts[i].point).total_cmp(&signed_area(pts[j].point)));
    let fourth = (0..pts.len()).min_by(|&i, &j| signed_area(pts[i].point).total_cmp(&signed_area(pts[j].point)));
    let mut chosen = vec![deepest];
    for k in [Some(far), third, fourth].into_iter().flatten() {
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    for k in chosen {
        m.push(pts[k]);
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_on_square_keeps_the_overlap() {
        let r = [
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(-1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, -1.0),
        ];
        // Incident square shifted by 1.5 in x and sunk 0.1 below the face (normal +y).
        let inc: Vec<Tagged> = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .iter()
            .enumerate()
            .map(|(i, &(x, z))| (Vec3::new(x + 1.5, -0.1, z), i as u32))
            .collect();
        let m = clip_faces(&r, Vec3::Y, &inc, 0.0, 0, None).unwrap();
        assert_eq!(m.len(), 4);
        for p in m.points() {
            assert!((p.depth - 0.1).abs() < 1e-6);
            assert!(p.point.x >= 0.5 - 1e-6 && p.point.x <= 1.0 + 1e-6);
        }
    }

    #[test]
    fn reduction_keeps_deepest_and_four() {
        let pts: Vec<ContactPoint> = (0..8)
            .map(|i| {
                let a = i as Real * std::f32::consts::TAU / 8.0;
                ContactPoint { point: Vec3::new(a.cos(), 0.0, a.sin()), depth: if i == 5 { 0.3 } else { 0.1 }, id: i }
            })
            .collect();
        let m = reduce(Vec3::Y, &pts);
        assert_eq!(m.len(), 4);
        assert!(m.points().iter().any(|p| p.id == 5));
    }
}
