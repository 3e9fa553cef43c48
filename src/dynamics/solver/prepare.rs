//! Building the step's rows from the contacts: anchors, Jacobians, effective masses, friction
//! basis, and warm-start impulses matched by pair and feature id.

use super::rows::{BodyState, Fall, ManifoldRows, NormalRow, PointInfo};
use super::{CachedImpulse, Contact};
use crate::math::{Real, Vec3, orthonormal_basis};
use crate::narrowphase::{ContactPoint, MAX_MANIFOLD_POINTS};
use glam::{Mat3A, Vec3A};

/// Per-body constants of the step, copied from the bodies in one sequential pass so that
/// building rows in colour order jumps through small records only: world inverse inertia (held
/// for the step, as the rotation changes little within one; zero for a body that does not
/// respond), centre of mass, inverse mass and material. One cache line per body.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(super) struct BodyMass {
    /// The world inverse inertia, column by column.
    pub inv_i: [Real; 9],
    pub pos: Vec3,
    pub inv_mass: Real,
    pub friction: Real,
    pub restitution: Real,
}

/// `1 / k`, or 0 when neither body responds along the row.
#[inline]
fn inverse(k: Real) -> Real {
    if k > 0.0 { 1.0 / k } else { 0.0 }
}

/// One side of a contact: the body's step constants and its starting velocities.
pub(super) type Side<'a> = (&'a BodyMass, &'a BodyState);

/// The rows of one contact, warm-started from `cached` when given.
pub(super) fn manifold_rows(
    c: &Contact,
    (ma, sa): Side,
    (mb, sb): Side,
    cached: Option<&[CachedImpulse; MAX_MANIFOLD_POINTS]>,
    arm_b: &[Vec3; MAX_MANIFOLD_POINTS],
    fall: Fall,
    info: &mut [PointInfo; MAX_MANIFOLD_POINTS],
) -> ManifoldRows {
    let n = Vec3A::from(c.manifold.normal);
    let pts = c.manifold.points();
    let count = pts.len().max(1) as Real;
    let centre = pts.iter().fold(Vec3A::ZERO, |s, p| s + Vec3A::from(p.point)) / count;
    // Rows are built with glam's SSE types, whose operations round exactly like the scalar
    // ones (same products and sums in the same order, no fused multiply-add).
    let (pa, pb) = (Vec3A::from(ma.pos), Vec3A::from(mb.pos));
    let (ia_m, ib_m) = (Mat3A::from_cols_array(&ma.inv_i), Mat3A::from_cols_array(&mb.inv_i));
    let (ca, cb) = (centre - pa, centre - pb);
    let (va, wa, vb, wb) = (Vec3A::from(sa.v), Vec3A::from(sa.w), Vec3A::from(sb.v), Vec3A::from(sb.w));
    let slip = (vb + wb.cross(cb)) - (va + wa.cross(ca));
    let (t1, t2) = friction_basis(n.into(), slip.into(), !pts.is_empty());
    let accel = fall.along(n.into(), ma.inv_mass) - fall.along(n.into(), mb.inv_mass);
    let friction = (ma.friction * mb.friction).sqrt();
    let twist_radius = pts.iter().map(|p| (Vec3A::from(p.point) - centre).length()).sum::<Real>() / count;
    let (ia_n, ib_n) = (ia_m * n, ib_m * n);
    let twist_k = n.dot(ia_n) + n.dot(ib_n);
    let mut rows = ManifoldRows {
        a: c.a,
        b: c.b,
        len: pts.len() as u32,
        one_sided: (ma.inv_mass == 0.0 || mb.inv_mass == 0.0) as u32,
        normal: n.into(),
        ma: ma.inv_mass,
        mb: mb.inv_mass,
        friction,
        restitution: ma.restitution.max(mb.restitution),
        points: [NormalRow::default(); MAX_MANIFOLD_POINTS],
        tangents: [t1, t2],
        ca: ca.into(),
        cb: cb.into(),
        ia_n: ia_n.into(),
        ib_n: ib_n.into(),
        twist_mass: inverse(twist_k),
        twist_limit: if twist_radius > 0.0 { friction * twist_radius } else { 0.0 },
        ..Default::default()
    };
    for (k, t) in [t1, t2].into_iter().enumerate() {
        let t = Vec3A::from(t);
        let (cat, cbt) = (ca.cross(t), cb.cross(t));
        let (ia, ib) = (ia_m * cat, ib_m * cbt);
        rows.cat[k] = cat.into();
        rows.cbt[k] = cbt.into();
        rows.ia_cat[k] = ia.into();
        rows.ib_cbt[k] = ib.into();
        rows.tangent_mass[k] = inverse(ma.inv_mass + mb.inv_mass + cat.dot(ia) + cbt.dot(ib));
    }
    // The matched points' friction (a world vector) and twist impulses, summed.
    let (mut tangent, mut twist) = (Vec3A::ZERO, 0.0);
    for (k, mp) in pts.iter().enumerate() {
        let p = Vec3A::from(mp.point);
        let (ra, rb) = (p - pa, Vec3A::from(arm_b[k]) - pb);
        let (ran, rbn) = (ra.cross(n), rb.cross(n));
        let (ia_ran, ib_rbn) = (ia_m * ran, ib_m * rbn);
        let rel_v = n.dot((vb + wb.cross(rb)) - (va + wa.cross(ra)));
        let warm = cached.and_then(|cached| find_point(cached, k, pts, mp));
        if let Some(w) = warm {
            tangent += Vec3A::from(w.tangent);
            twist += w.twist;
        }
        rows.points[k] = NormalRow {
            ran: ran.into(),
            rbn: rbn.into(),
            ia_ran: ia_ran.into(),
            ib_rbn: ib_rbn.into(),
            separation: -mp.depth,
            mass: inverse(ma.inv_mass + mb.inv_mass + ran.dot(ia_ran) + rbn.dot(ib_rbn)),
            impulse: warm.map_or(0.0, |w| w.normal),
            max_impulse: 0.0,
        };
        info[k] = PointInfo { relative_velocity: fall.impact_velocity(rel_v, mp.depth, accel), id: mp.id };
    }
    // Projected on this step's tangents: a normal that turned a little leaves the part along it.
    rows.tangent_impulse = [tangent.dot(t1.into()), tangent.dot(t2.into())];
    rows.twist_impulse = if rows.twist_limit > 0.0 { twist } else { 0.0 };
    rows
}

/// The cached point of point `k` of the manifold `pts`: the one with its feature id (manifolds
/// mostly keep their order, so slot `k` is tried first); else, when the id is new, the nearest
/// cached point whose id no point of `pts` has, if it lies within a quarter of the distance to
/// `k`'s nearest neighbour in `pts` (and within [`MATCH_DISTANCE`]).
///
/// Ids change where a clipped point sits exactly on an edge of the other face (stacked boxes of
/// the same footprint), and a point that lost its warm start takes its load from zero again:
/// in a column of thin boxes half the points did, every step, and the column rocked itself over.
#[inline]
pub(super) fn find_point<'a>(
    cached: &'a [CachedImpulse; MAX_MANIFOLD_POINTS],
    k: usize,
    pts: &[ContactPoint],
    mp: &ContactPoint,
) -> Option<&'a CachedImpulse> {
    let id = mp.id;
    if id != u32::MAX {
        if cached[k].id == id {
            return Some(&cached[k]);
        }
        if let Some(c) = cached.iter().find(|p| p.id == id) {
            return Some(c);
        }
    }
    nearest_unclaimed(cached, k, pts, mp.point)
}

/// `find_point`'s fallback for a new id: rare once contacts have settled, so kept out of line.
#[cold]
#[inline(never)]
fn nearest_unclaimed<'a>(
    cached: &'a [CachedImpulse; MAX_MANIFOLD_POINTS],
    k: usize,
    pts: &[ContactPoint],
    p: Vec3,
) -> Option<&'a CachedImpulse> {
    let mut limit = MATCH_DISTANCE * MATCH_DISTANCE;
    for (j, q) in pts.iter().enumerate() {
        if j != k {
            limit = limit.min(0.0625 * (q.point - p).length_squared());
        }
    }
    let mut best = None;
    for c in cached.iter().filter(|c| c.id != u32::MAX && pts.iter().all(|q| q.id != c.id)) {
        let d = (c.point - p).length_squared();
        if d < limit {
            limit = d;
            best = Some(c);
        }
    }
    best
}

/// Farthest a point may have moved since last step and still take a cached point's impulse
/// by position, m.
pub(super) const MATCH_DISTANCE: Real = 0.02;

/// The impulses a manifold's rows ended the step with, for next step's warm start.
pub(super) fn cached_impulses(
    rows: &ManifoldRows,
    info: &[PointInfo; MAX_MANIFOLD_POINTS],
    points: &[ContactPoint],
) -> [CachedImpulse; MAX_MANIFOLD_POINTS] {
    let ended = Ended {
        len: rows.len as usize,
        normal: std::array::from_fn(|k| rows.points[k].impulse),
        tangents: rows.tangents,
        tangent_impulse: rows.tangent_impulse,
        twist_impulse: rows.twist_impulse,
    };
    ended.cached(&info.map(|p| p.id), points)
}

/// What a manifold's rows ended the step with: the normal impulse of each of its `len` points,
/// the friction basis and impulses, and the twist impulse.
pub(super) struct Ended {
    pub len: usize,
    pub normal: [Real; MAX_MANIFOLD_POINTS],
    pub tangents: [Vec3; 2],
    pub tangent_impulse: [Real; 2],
    pub twist_impulse: Real,
}

impl Ended {
    /// The cache entry of points with feature ids `ids` at `points`. The manifold's friction
    /// impulse is shared out evenly over its points.
    #[inline]
    pub(super) fn cached(
        &self,
        ids: &[u32; MAX_MANIFOLD_POINTS],
        points: &[ContactPoint],
    ) -> [CachedImpulse; MAX_MANIFOLD_POINTS] {
        let mut imp = [CachedImpulse::default(); MAX_MANIFOLD_POINTS];
        self.write_cached(ids, points, &mut imp);
        imp
    }

    /// [`Ended::cached`] written into `imp` in place (no copy of the entry).
    #[inline(always)]
    pub(super) fn write_cached(
        &self,
        ids: &[u32; MAX_MANIFOLD_POINTS],
        points: &[ContactPoint],
        imp: &mut [CachedImpulse; MAX_MANIFOLD_POINTS],
    ) {
        *imp = [CachedImpulse { id: u32::MAX, ..Default::default() }; MAX_MANIFOLD_POINTS];
        let len = self.len;
        if len == 0 {
            return;
        }
        let share = 1.0 / len as Real;
        let tangent = (self.tangents[0] * self.tangent_impulse[0] + self.tangents[1] * self.tangent_impulse[1]) * share;
        let twist = self.twist_impulse * share;
        for k in 0..len {
            let point = points.get(k).map_or(Vec3::ZERO, |p| p.point);
            imp[k] = CachedImpulse { id: ids[k], normal: self.normal[k], tangent, twist, point };
        }
    }
}

/// Tangent directions for friction. When the surfaces slip, the first follows the slip, so the
/// clamp to the friction cone acts straight against it (per-direction solves in a basis at an
/// angle to the slip would turn the friction sideways and weaken it). Otherwise any basis.
/// `v` is the relative velocity at the points' centroid.
fn friction_basis(n: Vec3, v: Vec3, has_points: bool) -> (Vec3, Vec3) {
    if !has_points {
        return orthonormal_basis(n);
    }
    let slip = v - n * n.dot(v);
    let len = slip.length();
    if len > SLIP_SPEED {
        let t1 = slip / len;
        (t1, n.cross(t1))
    } else {
        orthonormal_basis(n)
    }
}

/// Slip speed (m/s) above which friction follows the slip direction.
pub(super) const SLIP_SPEED: Real = 1e-3;

/// Asks the CPU to start loading the first two cache lines of `r`: the rows are built in colour
/// order, which jumps through the contacts and the cache.
#[inline(always)]
pub(super) fn prefetch<T>(r: &T) {
    prefetch_at(r as *const T);
}

/// [`prefetch`] by address (a prefetch reads nothing, whatever the address).
#[inline(always)]
pub(super) fn prefetch_at<T>(r: *const T) {
    let p = r.cast::<u8>();
    crate::simd::prefetch(p);
    crate::simd::prefetch(p.wrapping_add(64));
}
