//! One-pair-per-lane kernels for the closed-form tests: pair `i` takes element `i` of every
//! input and writes `out[i]`. Each loop body is the scalar pair function's arithmetic, written
//! branch-free so the compiler vectorises it.

use super::{Backend, LengthMismatch, Vec3Soa, avx_wrapper, check_len, run_on};
use crate::math::Real;

/// Rotations (unit quaternions) stored component by component.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuatSoa {
    /// The x components.
    pub x: Vec<Real>,
    /// The y components.
    pub y: Vec<Real>,
    /// The z components.
    pub z: Vec<Real>,
    /// The w components.
    pub w: Vec<Real>,
}

impl QuatSoa {
    /// Rotations stored (the shortest component array).
    pub fn len(&self) -> usize {
        self.x.len().min(self.y.len()).min(self.z.len()).min(self.w.len())
    }

    /// Whether no rotation is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Axis-aligned boxes stored as two point arrays.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AabbSoa {
    /// The lower corners.
    pub min: Vec3Soa,
    /// The upper corners.
    pub max: Vec3Soa,
}

impl AabbSoa {
    /// Boxes stored.
    pub fn len(&self) -> usize {
        self.min.len().min(self.max.len())
    }

    /// Whether no box is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FromIterator<crate::geometry::Aabb> for AabbSoa {
    fn from_iter<I: IntoIterator<Item = crate::geometry::Aabb>>(iter: I) -> Self {
        let mut s = Self::default();
        for b in iter {
            s.min.push(b.min);
            s.max.push(b.max);
        }
        s
    }
}

fn check_v(what: &'static str, v: &Vec3Soa, n: usize) -> Result<(), LengthMismatch> {
    check_len(what, v.x.len(), n)?;
    check_len(what, v.y.len(), n)?;
    check_len(what, v.z.len(), n)
}

/// Both corners of a set of boxes; `min` and `max` are the names an error gives.
fn check_boxes(min: &'static str, max: &'static str, b: &AabbSoa, n: usize) -> Result<(), LengthMismatch> {
    check_v(min, &b.min, n)?;
    check_v(max, &b.max, n)
}

/// Sphere `i` of A (centre, radius) against sphere `i` of B: `out[i]` is
/// [`crate::narrowphase::intersect_sphere_sphere`] for that pair.
pub fn intersect_sphere_sphere(
    ca: &Vec3Soa,
    ra: &[Real],
    cb: &Vec3Soa,
    rb: &[Real],
    eps: Real,
    backend: Backend,
    out: &mut [bool],
) -> Result<(), LengthMismatch> {
    let n = out.len();
    check_v("ca", ca, n)?;
    check_v("cb", cb, n)?;
    check_len("ra", ra.len(), n)?;
    check_len("rb", rb.len(), n)?;
    run_on!(backend == Backend::Avx, sphere_sphere, sphere_sphere_avx, (ca, ra, cb, rb, eps, out));
    Ok(())
}

#[inline(always)]
fn sphere_sphere(ca: &Vec3Soa, ra: &[Real], cb: &Vec3Soa, rb: &[Real], eps: Real, out: &mut [bool]) {
    let n = out.len();
    let (ax, ay, az) = ca.head(n);
    let ar = &ra[..n];
    let (bx, by, bz) = cb.head(n);
    let br = &rb[..n];
    for i in 0..n {
        let r = ar[i] + br[i];
        let (dx, dy, dz) = (ax[i] - bx[i], ay[i] - by[i], az[i] - bz[i]);
        out[i] = dx * dx + dy * dy + dz * dz <= r * r + eps;
    }
}
avx_wrapper!(sphere_sphere_avx => sphere_sphere(ca: &Vec3Soa, ra: &[Real], cb: &Vec3Soa, rb: &[Real], eps: Real, out: &mut [bool]));

/// Sphere `i` (centre, radius) against box `i`: [`crate::narrowphase::intersect_sphere_aabb`].
pub fn intersect_sphere_aabb(
    c: &Vec3Soa,
    r: &[Real],
    boxes: &AabbSoa,
    eps: Real,
    backend: Backend,
    out: &mut [bool],
) -> Result<(), LengthMismatch> {
    let n = out.len();
    check_v("c", c, n)?;
    check_len("r", r.len(), n)?;
    check_boxes("boxes.min", "boxes.max", boxes, n)?;
    run_on!(backend == Backend::Avx, sphere_aabb, sphere_aabb_avx, (c, r, boxes, eps, out));
    Ok(())
}

#[inline(always)]
fn sphere_aabb(c: &Vec3Soa, r: &[Real], boxes: &AabbSoa, eps: Real, out: &mut [bool]) {
    let n = out.len();
    let (cx, cy, cz) = c.head(n);
    let r = &r[..n];
    let (lx, ly, lz) = boxes.min.head(n);
    let (hx, hy, hz) = boxes.max.head(n);
    for i in 0..n {
        let ex = cx[i] - cx[i].max(lx[i]).min(hx[i]);
        let ey = cy[i] - cy[i].max(ly[i]).min(hy[i]);
        let ez = cz[i] - cz[i].max(lz[i]).min(hz[i]);
        out[i] = ex * ex + ey * ey + ez * ez <= r[i] * r[i] + eps;
    }
}
avx_wrapper!(sphere_aabb_avx => sphere_aabb(c: &Vec3Soa, r: &[Real], boxes: &AabbSoa, eps: Real, out: &mut [bool]));

/// Sphere `i` (centre, radius) against the oriented box `i` (centre, rotation, half extents):
/// [`crate::narrowphase::intersect_sphere_cuboid`], the centre taken into the box's frame by
/// the inverse of its quaternion.
#[allow(clippy::too_many_arguments)]
pub fn intersect_sphere_cuboid(
    c: &Vec3Soa,
    r: &[Real],
    box_centre: &Vec3Soa,
    box_rotation: &QuatSoa,
    half_extents: &Vec3Soa,
    eps: Real,
    backend: Backend,
    out: &mut [bool],
) -> Result<(), LengthMismatch> {
    let n = out.len();
    check_v("c", c, n)?;
    check_len("r", r.len(), n)?;
    check_v("box_centre", box_centre, n)?;
    check_v("half_extents", half_extents, n)?;
    for q in [&box_rotation.x, &box_rotation.y, &box_rotation.z, &box_rotation.w] {
        check_len("box_rotation", q.len(), n)?;
    }
    run_on!(
        backend == Backend::Avx,
        sphere_obb,
        sphere_obb_avx,
        (c, r, box_centre, box_rotation, half_extents, eps, out)
    );
    Ok(())
}

#[inline(always)]
fn sphere_obb(c: &Vec3Soa, r: &[Real], bc: &Vec3Soa, q: &QuatSoa, h: &Vec3Soa, eps: Real, out: &mut [bool]) {
    let n = out.len();
    let (cx, cy, cz) = c.head(n);
    let r = &r[..n];
    let (ox, oy, oz) = bc.head(n);
    let (qx, qy, qz, qw) = (&q.x[..n], &q.y[..n], &q.z[..n], &q.w[..n]);
    let (hx, hy, hz) = h.head(n);
    for i in 0..n {
        let (vx, vy, vz) = (cx[i] - ox[i], cy[i] - oy[i], cz[i] - oz[i]);
        // The inverse rotation (conjugate b = -xyz, w), as glam rotates:
        // v (w² - b·b) + b 2(v·b) + (b × v) 2w.
        let (bx, by, bz, w) = (-qx[i], -qy[i], -qz[i], qw[i]);
        let s = w * w - (bx * bx + by * by + bz * bz);
        let t = (vx * bx + vy * by + vz * bz) * 2.0;
        let w2 = w * 2.0;
        let lx = vx * s + bx * t + (by * vz - bz * vy) * w2;
        let ly = vy * s + by * t + (bz * vx - bx * vz) * w2;
        let lz = vz * s + bz * t + (bx * vy - by * vx) * w2;
        let ex = lx - lx.max(-hx[i]).min(hx[i]);
        let ey = ly - ly.max(-hy[i]).min(hy[i]);
        let ez = lz - lz.max(-hz[i]).min(hz[i]);
        out[i] = ex * ex + ey * ey + ez * ez <= r[i] * r[i] + eps;
    }
}
avx_wrapper!(sphere_obb_avx => sphere_obb(c: &Vec3Soa, r: &[Real], bc: &Vec3Soa, q: &QuatSoa, h: &Vec3Soa, eps: Real, out: &mut [bool]));

/// Box `i` of A against box `i` of B: [`crate::geometry::Aabb::overlaps`] (touching counts).
pub fn intersect_aabb_aabb(a: &AabbSoa, b: &AabbSoa, backend: Backend, out: &mut [bool]) -> Result<(), LengthMismatch> {
    let n = out.len();
    check_boxes("a.min", "a.max", a, n)?;
    check_boxes("b.min", "b.max", b, n)?;
    run_on!(backend == Backend::Avx, aabb_aabb, aabb_aabb_avx, (a, b, out));
    Ok(())
}

#[inline(always)]
fn aabb_aabb(a: &AabbSoa, b: &AabbSoa, out: &mut [bool]) {
    let n = out.len();
    let (alx, aly, alz) = a.min.head(n);
    let (ahx, ahy, ahz) = a.max.head(n);
    let (blx, bly, blz) = b.min.head(n);
    let (bhx, bhy, bhz) = b.max.head(n);
    for i in 0..n {
        // `&` rather than `&&`: no branches, so the loop vectorises.
        out[i] = (alx[i] <= bhx[i])
            & (blx[i] <= ahx[i])
            & (aly[i] <= bhy[i])
            & (bly[i] <= ahy[i])
            & (alz[i] <= bhz[i])
            & (blz[i] <= ahz[i]);
    }
}
avx_wrapper!(aabb_aabb_avx => aabb_aabb(a: &AabbSoa, b: &AabbSoa, out: &mut [bool]));

/// Ray `i` (origin, direction; points `origin + t dir` for `t` in `[0, max_t]`) against box
/// `i` by the slab method: `out[i]` is the entry parameter of
/// [`crate::geometry::Aabb::ray_interval`], or `Real::INFINITY` for a miss. Parallel rays and
/// zero directions follow the scalar rules (hit only from between the slab planes).
pub fn ray_interval_aabb(
    origin: &Vec3Soa,
    dir: &Vec3Soa,
    max_t: Real,
    boxes: &AabbSoa,
    backend: Backend,
    out: &mut [Real],
) -> Result<(), LengthMismatch> {
    let n = out.len();
    check_v("origin", origin, n)?;
    check_v("dir", dir, n)?;
    check_boxes("boxes.min", "boxes.max", boxes, n)?;
    run_on!(backend == Backend::Avx, ray_aabb, ray_aabb_avx, (origin, dir, max_t, boxes, out));
    Ok(())
}

/// One slab: narrows `[t0, t1]`, or records a miss for a parallel ray outside the slab.
#[inline(always)]
fn slab(o: Real, d: Real, lo: Real, hi: Real, t0: &mut Real, t1: &mut Real, miss: &mut bool) {
    let inv = 1.0 / d;
    let (ta, tb) = ((lo - o) * inv, (hi - o) * inv);
    let swap = ta > tb;
    let (ta, tb) = (if swap { tb } else { ta }, if swap { ta } else { tb });
    let parallel = d == 0.0;
    *miss |= parallel & ((o < lo) | (o > hi));
    *t0 = if parallel { *t0 } else { t0.max(ta) };
    *t1 = if parallel { *t1 } else { t1.min(tb) };
}

#[inline(always)]
fn ray_aabb(origin: &Vec3Soa, dir: &Vec3Soa, max_t: Real, boxes: &AabbSoa, out: &mut [Real]) {
    let n = out.len();
    let (ox, oy, oz) = origin.head(n);
    let (dx, dy, dz) = dir.head(n);
    let (lx, ly, lz) = boxes.min.head(n);
    let (hx, hy, hz) = boxes.max.head(n);
    for i in 0..n {
        let (mut t0, mut t1, mut miss) = (0.0, max_t, false);
        slab(ox[i], dx[i], lx[i], hx[i], &mut t0, &mut t1, &mut miss);
        slab(oy[i], dy[i], ly[i], hy[i], &mut t0, &mut t1, &mut miss);
        slab(oz[i], dz[i], lz[i], hz[i], &mut t0, &mut t1, &mut miss);
        out[i] = if miss | (t0 > t1) { Real::INFINITY } else { t0 };
    }
}
avx_wrapper!(ray_aabb_avx => ray_aabb(origin: &Vec3Soa, dir: &Vec3Soa, max_t: Real, boxes: &AabbSoa, out: &mut [Real]));
