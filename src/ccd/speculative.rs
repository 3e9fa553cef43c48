//! Speculative manifolds that hold for every shape. The narrow phase's manifold for two shapes
//! still apart has the closest features' points: enough for a sphere, but a box, capsule or
//! hull that the contact sets turning (or that already turns) brings other corners to the
//! surface, and those pass through. Here the leading points along the normal (a box's corners,
//! a capsule's segment ends, a hull's vertices) each get a contact against the other body's
//! supporting plane, so the solver stops every one of them at that plane. The same holds for a
//! pair already touching whose bodies close in or turn by more than the slop in the step (a
//! body pushed by a fast paddle, tumbling against it).

use crate::dynamics::Body;
use crate::geometry::Shape;
use crate::geometry::segment::closest_point_segment;
use crate::math::{Pose, Real, Vec3};
use crate::narrowphase::{ContactPoint, MAX_MANIFOLD_POINTS, Manifold, closest_point_hull};
use crate::parallel::Bodies;
use crate::union_find;

/// Feature ids of the points built here (stable while the same corners lead, for warm starts).
const ID_BASE: u32 = 0xCCD0_0000;

/// The id of leading point `k` of body B, or of A (`of_a`): the points of convex shapes (below
/// 0x8000) at `ID_BASE` and `ID_BASE + 0x8000`; a compound's past its eighth child (`k` is
/// `child << 12 | point`, up to 2^20) in a range of their own per side, so no two points of a
/// pair share an id.
fn leading_id(k: usize, of_a: bool) -> u32 {
    let k = k as u32;
    match (k < 0x8000, of_a) {
        (true, false) => ID_BASE + k,
        (true, true) => ID_BASE + 0x8000 + k,
        (false, false) => ID_BASE + 0x10_0000 + k,
        (false, true) => ID_BASE + 0x20_0000 + k,
    }
}

/// How far the body's turn in `dt` moves its farthest point (m): its reach's share of a
/// pair's ([`PairMotion::spin`]).
pub fn spin_reach(body: &Body, dt: Real) -> Real {
    // A body that does not turn (every body asleep) reaches nothing: the same 0 as the product,
    // without the shape's radius.
    if body.angvel == Vec3::ZERO {
        return 0.0;
    }
    super::angular_reach(&body.shape, body.angvel.length() * dt)
}

/// How a pair with reach can move in a step.
#[derive(Clone, Copy, Debug)]
pub struct PairMotion {
    /// The step, s.
    pub dt: Real,
    /// Both bodies' [`spin_reach`], summed, m.
    pub spin: Real,
    /// How far a third body can set either moving, m (from [`pushed_reach`]).
    pub pushed: Real,
}

impl PairMotion {
    /// The pair's motion in `dt` with nothing pushing it.
    pub fn of(a: &Body, b: &Body, dt: Real) -> Self {
        PairMotion { dt, spin: spin_reach(a, dt) + spin_reach(b, dt), pushed: 0.0 }
    }
}

/// How far the pair can close in the step: the relative linear motion, plus each body's turn
/// times its reach, plus how far a third body can push either (m). A pair with reach gets this
/// much more contact margin.
pub fn pair_reach(a: &Body, b: &Body, motion: PairMotion) -> Real {
    (a.linvel - b.linvel).length() * motion.dt + motion.spin + motion.pushed
}

/// How far a body's velocity can change within a step, as a distance over the step (m), for
/// the pairs it is in: [`Pushed::by_moving`] for its pairs with static bodies,
/// [`Pushed::by_any`] for the others.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Pushed {
    /// Struck by a body with reach: that body's velocity relative to it times `dt`, plus its
    /// turn times its reach. A body at rest that a fast paddle strikes is set moving (and
    /// turning) within the step, so its own contacts (the floor it rests on, its neighbours)
    /// need reach too.
    pub by_moving: Real,
    /// Also stopped by a static body (a fast body meeting a wall is set moving backwards
    /// relative to the bodies behind it), and carried on through a group: bodies with reach
    /// that are candidates of one another and move together (closing on each other no farther
    /// in the step than a slow body moves, [`super::outruns_margin`]) share the largest push
    /// of any member, since a stop at one end of the group (the first of a row meets a wall) reaches
    /// the last within the step. Not for the body's pairs with static bodies: their own
    /// closing is the pair's relative motion, and a body sliding along a floor would count
    /// its whole speed.
    pub by_any: Real,
}

impl Pushed {
    /// How far a third body can push the pair of bodies pushed `a` and `b` together in the
    /// step: the larger push, [`Pushed::by_moving`] for a pair with a static body.
    pub fn of_pair(a: &Pushed, b: &Pushed, with_static: bool) -> Real {
        match with_static {
            true => a.by_moving.max(b.by_moving),
            false => a.by_any.max(b.by_any),
        }
    }
}

/// Per body, how far it can be pushed this step ([`Pushed`]), from what its box meets. Bodies
/// that move together and meet nothing moving otherwise (the cubes of a sagging pyramid,
/// bodies falling side by side) push one another no farther than the others are already going.
/// Zero for static bodies and where no body has reach. `spin` is each body's [`spin_reach`]
/// this step; `pairs` are the broad phase's candidates; `group` is a working list (what it
/// holds on entry does not matter). Only the entries of the bodies `which` names are written
/// (with a list, it must name every body of `pairs`).
pub fn pushed_reach(
    bodies: &[Body],
    which: Bodies<'_>,
    reach: &[bool],
    spin: &[Real],
    pairs: &[(u32, u32)],
    settings: &crate::settings::Settings,
    (out, group): (&mut Vec<Pushed>, &mut Vec<u32>),
) {
    // Only the entries of `which` are written and read (with a list, every pair's bodies).
    let n = bodies.len();
    out.resize(n, Pushed::default());
    group.resize(n, 0);
    let mut any = false;
    which.each(|k| {
        out[k] = Pushed::default();
        group[k] = k as u32;
        any |= reach[k];
    });
    if !any {
        return;
    }
    let dt = settings.dt;
    // The groups of bodies with reach that are candidates of one another and move together
    // (union-find, each entry its parent; roots are their own).
    for &(a, b) in pairs {
        let (ia, ib) = (a as usize, b as usize);
        if !(reach[ia] || reach[ib]) {
            continue;
        }
        let apart = (bodies[ib].linvel - bodies[ia].linvel).length() * dt;
        for (hit, by) in [(ia, ib), (ib, ia)] {
            if bodies[hit].is_dynamic() {
                let closing = apart + spin[by];
                let o = &mut out[hit];
                if reach[by] {
                    o.by_moving = o.by_moving.max(closing);
                }
                o.by_any = o.by_any.max(closing);
            }
        }
        // Moving together: no faster relative to each other than a slow body moves.
        let together = !super::outruns_margin(apart + spin[ia] + spin[ib], settings);
        if together && reach[ia] && reach[ib] && bodies[ia].is_dynamic() && bodies[ib].is_dynamic() {
            union_find::join(group, a, b);
        }
    }
    // Each group's largest push, kept at its root, then given to every member.
    which.each(|k| {
        if reach[k] {
            let r = union_find::root(group, k as u32) as usize;
            out[r].by_any = out[r].by_any.max(out[k].by_any);
        }
    });
    which.each(|k| {
        if reach[k] {
            let r = union_find::root(group, k as u32) as usize;
            out[k].by_any = out[r].by_any;
        }
    });
}

/// The contact the solver gets for a pair with reach: [`speculative_manifold`] when the pair is
/// still apart, or when it touches and the bodies can close along the normal, turn, or be
/// pushed by more than `slop` in the step (`motion`): features the narrow phase did not report
/// can then reach the other body within the step. Else the narrow phase's manifold `m`
/// (resting and sliding contacts keep their clipped patch). `m` is in `a`'s frame; `margin`
/// the pair's contact margin.
pub fn speculative_contact(m: &Manifold, a: &Body, b: &Body, motion: PairMotion, margin: Real, slop: Real) -> Manifold {
    // A mesh or compound pair's manifold already holds the triangles or child pairs within the
    // widened margin, each at its own distance; a supporting plane of the whole mesh or
    // compound would be its hull's, and would put points where no child is (a dumbbell resting
    // across an L shape's arm was held 12 cm deep at the arm's far corners).
    if m.is_empty() || a.shape.is_mesh() || b.shape.is_mesh() || a.shape.is_compound() || b.shape.is_compound() {
        return *m;
    }
    if m.max_depth() >= 0.0 {
        let closing = (a.linvel - b.linvel).dot(m.normal).max(0.0) * motion.dt;
        if closing + motion.spin + motion.pushed <= slop {
            return *m;
        }
    }
    speculative_manifold(m, &a.shape, &a.pose, &b.shape, &b.pose, margin)
}

/// The manifold of a pair rebuilt from the leading points of the smaller body (of both when
/// neither is more than twice the other's bounding radius) against the other's supporting plane
/// along the manifold's normal: each point's separation is its signed distance to that plane
/// (negative inside), which never exceeds its distance to the other shape, so holding it at
/// zero or above keeps that point out; for a touching pair the deepest equals the narrow
/// phase's depth along its normal. The smaller body's points are where the two can meet (a
/// paddle's far corners are not where it hits a pebble). Points farther than `margin` are left
/// out; at most [`MAX_MANIFOLD_POINTS`], the nearest (deepest) first. Each sits halfway across
/// its gap, beside the other body's nearest point where its line along the normal misses that
/// body. An empty manifold, or one with no point within reach, comes back as is.
pub fn speculative_manifold(m: &Manifold, a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, margin: Real) -> Manifold {
    if m.is_empty() {
        return *m;
    }
    let n = m.normal;
    // A supporting plane is exact only along the true normal; along a normal a little off it
    // (GJK's for a hull resting on a floor, 1.4° off) a large body's plane passes a far corner,
    // which would put the other body's points far too deep (0.34 m under a 24 m floor). So a
    // cuboid many times larger than what the other shape can reach of it in the step (its
    // size and the margin) offers the plane of that part.
    let near_a = crate::narrowphase::near_part_within(a, pa, b, pb, margin);
    let near_b = crate::narrowphase::near_part_within(b, pb, a, pa, margin);
    let (a, pa) = near_a.as_ref().map_or((a, pa), |(s, p)| (s, p));
    let (b, pb) = near_b.as_ref().map_or((b, pb), |(s, p)| (s, p));
    // And no point is deeper than the pair: along a face-preferred normal a corner hanging past
    // the other box's face lies below its plane but not in it. Rebuilt from such corners, a
    // settling pyramid's contacts would push at points no box supports (with `Speculative`,
    // 538 of `large_pyramid`'s 5,050 cubes are thrown out without this).
    let nearest = -m.max_depth();
    let mut best = Nearest::default();
    let (ra, rb) = (a.bounding_radius(), b.bounding_radius());
    if rb <= 2.0 * ra {
        let plane = n.dot(world_support(a, pa, n));
        each_leading_point(b, pb, -n, |k, q| {
            let sep = (n.dot(q) - plane).max(nearest);
            if sep <= margin {
                best.offer(sep, q, leading_id(k, false), false);
            }
        });
    }
    if ra <= 2.0 * rb {
        let plane = n.dot(world_support(b, pb, -n));
        each_leading_point(a, pa, n, |k, p| {
            let sep = (plane - n.dot(p)).max(nearest);
            if sep <= margin {
                best.offer(sep, p, leading_id(k, true), true);
            }
        });
    }
    if best.len == 0 {
        return *m;
    }
    let mut out = Manifold::new(n);
    for r in &best.rows[..best.len] {
        // Halfway across the gap (or overlap), from the body the point is on.
        let mut point = if r.of_a { r.point + n * (0.5 * r.sep) } else { r.point - n * (0.5 * r.sep) };
        // The solver turns both bodies about this point, so it must lie on both, seen along the
        // normal. A leading point outside the other body whose line along the normal misses it
        // (the far corners of a rod above a short one, a rock's corners beside a thin bar) moves
        // across, keeping its height, to beside the other body's nearest point: else that body
        // would turn about a lever longer than itself (a 3 cm bar about one of 76 cm, which spun
        // it up by hundreds of radians a second a step).
        let (other, at) = if r.of_a { (b, pb) } else { (a, pa) };
        if let Some(c) = nearest_outside(other, at, r.point) {
            let across = c - r.point;
            point += across - n * n.dot(across);
        }
        out.push(ContactPoint { point, depth: -r.sep, id: r.id });
    }
    out
}

/// The point of the posed shape's surface nearest to `q`, when `q` is outside it; `None` when
/// it is inside, or for a shape without the query (meshes, height fields and compounds never
/// reach [`speculative_manifold`]).
fn nearest_outside(shape: &Shape, pose: &Pose, q: Vec3) -> Option<Vec3> {
    let beyond = |centre: Vec3, radius: Real| {
        let d = q - centre;
        let len = d.length();
        (len > radius).then(|| centre + d * (radius / len))
    };
    match shape {
        Shape::Sphere(s) => beyond(pose.translation, s.radius),
        Shape::Capsule(c) => {
            let (p, r) = c.segment();
            let (_, on) = closest_point_segment(pose.transform_point(p), pose.transform_point(r), q);
            beyond(on, c.radius)
        }
        Shape::Cuboid(c) => {
            let local = pose.inverse_transform_point(q);
            let clamped = local.clamp(-c.half_extents, c.half_extents);
            (clamped != local).then(|| pose.transform_point(clamped))
        }
        Shape::ConvexHull(h) => {
            let (p, inside, _) = closest_point_hull(h, pose.inverse_transform_point(q));
            (!inside).then(|| pose.transform_point(p))
        }
        _ => None,
    }
}

/// A leading point offered to [`Nearest`]: its separation, where it is, its id and which body
/// it is on.
#[derive(Clone, Copy, Default)]
struct Row {
    /// Orders rows as the separations' `total_cmp`, then the ids (see [`Row::key`]).
    key: u64,
    sep: Real,
    point: Vec3,
    id: u32,
    of_a: bool,
}

impl Row {
    /// `sep`'s bits mapped so that unsigned order is `total_cmp`'s (negatives' magnitude bits
    /// flipped, then the sign bit), above the id: one integer compare orders two rows.
    #[inline(always)]
    fn key(sep: Real, id: u32) -> u64 {
        let bits = sep.to_bits();
        let ordered = if bits >> 31 == 1 { !bits } else { bits | 0x8000_0000 };
        (u64::from(ordered) << 32) | u64::from(id)
    }
}

/// The [`MAX_MANIFOLD_POINTS`] nearest rows offered, nearest first; ties by id, so the choice
/// does not depend on the order they come in.
#[derive(Default)]
struct Nearest {
    rows: [Row; MAX_MANIFOLD_POINTS],
    len: usize,
}

impl Nearest {
    #[inline(always)]
    fn offer(&mut self, sep: Real, point: Vec3, id: u32, of_a: bool) {
        let key = Row::key(sep, id);
        if self.len == MAX_MANIFOLD_POINTS && key >= self.rows[self.len - 1].key {
            return;
        }
        let mut k = self.len.min(MAX_MANIFOLD_POINTS - 1);
        while k > 0 && key < self.rows[k - 1].key {
            self.rows[k] = self.rows[k - 1];
            k -= 1;
        }
        self.rows[k] = Row { key, sep, point, id, of_a };
        self.len = (self.len + 1).min(MAX_MANIFOLD_POINTS);
    }
}

/// The farthest point of the posed shape along the world direction `d`.
fn world_support(shape: &Shape, pose: &Pose, d: Vec3) -> Vec3 {
    pose.transform_point(shape.support(pose.inverse_transform_vector(d)))
}

/// Calls `f` with each point of the posed shape that can lead it along the world direction `d`
/// (numbered from 0): a sphere's point along `d`, a box's corners, a capsule's segment ends
/// pushed out by its radius along `d`, a hull's vertices, a compound's children's points.
/// Generic over `f`, so each point's work is inlined (no call through a pointer per point).
#[inline]
fn each_leading_point(shape: &Shape, pose: &Pose, d: Vec3, mut f: impl FnMut(usize, Vec3)) {
    match shape {
        // A compound leads with its children's leading points (its supporting plane, the
        // children's hull's, holds them all: conservative). Children are never compounds.
        Shape::Compound(c) => {
            for (i, k) in c.children().iter().enumerate() {
                part_leading_points(&k.shape, &pose.mul(&k.pose), d, &mut |j, p| f((i << 12) + j, p));
            }
        }
        _ => part_leading_points(shape, pose, d, &mut f),
    }
}

/// [`each_leading_point`] for a shape that is not a compound (a compound's child).
#[inline(always)]
fn part_leading_points(shape: &Shape, pose: &Pose, d: Vec3, f: &mut impl FnMut(usize, Vec3)) {
    let w = |p: Vec3| pose.transform_point(p);
    match shape {
        Shape::Sphere(s) => f(0, pose.translation + d * s.radius),
        Shape::Cuboid(c) => {
            for (i, p) in crate::simd::corners::posed_box_corners(pose, c.half_extents).into_iter().enumerate() {
                f(i, p);
            }
        }
        Shape::Capsule(c) => {
            let (p, q) = c.segment();
            f(0, w(p) + d * c.radius);
            f(1, w(q) + d * c.radius);
        }
        Shape::ConvexHull(h) => match h.vertex_lanes() {
            Some(lanes) => {
                let posed = crate::simd::corners::posed_lanes(pose, lanes);
                posed.iter().take(h.vertices().len()).enumerate().for_each(|(k, &p)| f(k, p));
            }
            None => h.vertices().iter().enumerate().for_each(|(k, &v)| f(k, w(v))),
        },
        // A moving (kinematic) mesh leads with the corners of its box (as would a compound
        // child that were a compound, which `Compound::new` refuses).
        Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => {
            let b = shape.local_aabb();
            for i in 0..8 {
                f(i, w(b.corner(i)));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_keys_order_as_total_cmp_then_id() {
        let seps = [-f32::MAX, -3.0, -1e-30, -0.0, 0.0, 1e-30, 0.02, 3.0, f32::MAX, f32::INFINITY, f32::NEG_INFINITY];
        for &(s, i) in &[(0.5f32, 7u32), (-0.5, 0)] {
            for &t in &seps {
                for j in [0u32, 7, u32::MAX] {
                    for (x, y) in [((s, i), (t, j)), ((t, j), (s, i))] {
                        let want = x.0.total_cmp(&y.0).then(x.1.cmp(&y.1));
                        let got = Row::key(x.0, x.1).cmp(&Row::key(y.0, y.1));
                        assert_eq!(got, want, "{x:?} against {y:?}");
                    }
                }
            }
        }
        for (k, &x) in seps.iter().enumerate() {
            for &y in &seps[k..] {
                let want = x.total_cmp(&y).then(3u32.cmp(&5));
                assert_eq!(Row::key(x, 3).cmp(&Row::key(y, 5)), want, "{x} against {y}");
            }
        }
    }

    #[test]
    fn leading_ids_of_both_sides_never_meet_even_for_large_compounds() {
        let ks = (0..256usize).flat_map(|child| (0..64).map(move |point| (child << 12) + point));
        let mut ids: Vec<u32> = ks.flat_map(|k| [leading_id(k, false), leading_id(k, true)]).collect();
        let n = ids.len();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), n, "two leading points share an id");
        assert!(ids.iter().all(|&id| id >= ID_BASE));
    }
    use crate::math::Quat;
    use crate::narrowphase::{NarrowPhaseKind, Tolerance, contact, distance};

    /// A capsule tilted toward a wall: the narrow phase gives its nearest end only; the
    /// rebuilt manifold has both ends, each with its exact distance to the wall's face.
    #[test]
    fn a_tilted_capsule_gets_both_ends() {
        let wall = Shape::cuboid(Vec3::new(0.005, 2.0, 2.0));
        let cap = Shape::capsule(0.05, 0.02);
        let pc = Pose::new(Vec3::new(-0.2, 0.0, 0.0), Quat::from_rotation_z(0.6));
        let tol = Tolerance { margin: 0.5, epsilon: 1e-6 };
        let m = contact(&wall, &Pose::IDENTITY, &cap, &pc, tol, NarrowPhaseKind::Analytic).unwrap();
        let s = speculative_manifold(&m, &wall, &Pose::IDENTITY, &cap, &pc, 0.5);
        assert_eq!(s.len(), 2, "{s:?}");
        let Shape::Capsule(c) = &cap else { unreachable!() };
        let (p, q) = c.segment();
        // Face at x = -0.005; an end's sphere reaches x = end.x + r. Nearest first.
        let mut gaps = [p, q].map(|e| -0.005 - (pc.transform_point(e).x + 0.02));
        gaps.sort_by(Real::total_cmp);
        for (p, gap) in s.points().iter().zip(gaps) {
            assert!((-p.depth - gap).abs() < 1e-5, "{p:?} vs gap {gap}");
        }
        assert!((s.points()[0].depth - m.max_depth()).abs() < 1e-4, "the nearest is the narrow phase's");
    }

    /// A short bar crossing 44 cm above a long thin one: its lower corners' lines along the
    /// normal pass beside the long bar (27 cm off its side), so each point sits beside the long
    /// bar's nearest point instead, at the corner's separation. On the plane alone the long bar
    /// would turn about its own axis on a lever of 30 cm, ten times its half-width.
    #[test]
    fn leading_points_sit_where_the_other_body_is() {
        let long = Shape::cuboid(Vec3::new(1.0, 0.03, 0.03));
        let short = Shape::cuboid(Vec3::new(0.3, 0.03, 0.03));
        let ps = Pose::new(Vec3::new(0.2, 0.5, 0.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
        let tol = Tolerance { margin: 1.0, epsilon: 1e-6 };
        let m = contact(&long, &Pose::IDENTITY, &short, &ps, tol, NarrowPhaseKind::Analytic).unwrap();
        let s = speculative_manifold(&m, &long, &Pose::IDENTITY, &short, &ps, 1.0);
        assert!((s.normal - Vec3::Y).length() < 1e-5 && s.len() == 4, "{s:?}");
        for p in s.points() {
            assert!(p.point.x.abs() <= 1.0 + 1e-5 && p.point.z.abs() <= 0.03 + 1e-5, "{p:?} is beside the long bar");
            assert!((p.depth + 0.44).abs() < 1e-5, "{p:?}: the corner's separation");
            assert!((p.point.y - 0.25).abs() < 1e-5, "{p:?}: halfway across the gap");
        }
    }

    /// No point is nearer than the pair's distance, and the nearest is at that distance: the
    /// rebuilt manifold asks no more of the solver than the shapes' real gap allows.
    #[test]
    fn separations_never_exceed_the_distance() {
        let mut rng = crate::rng::SplitMix64::new(22);
        let shapes = [Shape::cuboid(Vec3::new(0.3, 0.1, 0.2)), Shape::capsule(0.2, 0.05), Shape::sphere(0.1)];
        for case in 0..300 {
            let (a, b) = (&shapes[case % 3], &shapes[case / 3 % 3]);
            let pa = Pose::new(Vec3::ZERO, rng.rotation());
            let pb = Pose::new(rng.unit_vector() * rng.range(0.6, 2.0), rng.rotation());
            let tol = Tolerance { margin: 3.0, epsilon: 1e-6 };
            let Some(m) = contact(a, &pa, b, &pb, tol, NarrowPhaseKind::Gjk) else { continue };
            let s = speculative_manifold(&m, a, &pa, b, &pb, 3.0);
            let d = distance(a, &pa, b, &pb).distance;
            for p in s.points() {
                assert!(-p.depth >= d - 1e-4, "case {case}: separation {} below the distance {d}", -p.depth);
            }
            let nearest = -s.max_depth();
            assert!(nearest <= d + 1e-3, "case {case}: nearest separation {nearest}, distance {d}");
        }
    }

    /// A cube resting tilted on a floor, one corner in: at rest the narrow phase's manifold
    /// stays; pushed (or spinning) it is rebuilt from its lowest corners, the deepest at the
    /// narrow phase's depth and each with its signed distance to the floor's top face.
    /// Along a normal a little off the true one (1.4°, as GJK gave for a rock resting on the
    /// default scene's 24 m floor), the whole floor's supporting plane passes its far corner
    /// 0.3 m up; the plane of the part the rock can reach keeps the rebuilt depth to a few
    /// centimetres at most.
    #[test]
    fn a_large_floor_offers_the_plane_of_its_near_part() {
        let floor = Shape::cuboid(Vec3::new(12.0, 0.5, 12.0));
        let pf = Pose::from_translation(Vec3::new(0.0, -0.5, 0.0));
        let rock = Shape::cuboid(Vec3::new(0.3, 0.2, 0.25));
        let pr = Pose::new(Vec3::new(-1.75, 0.2002, -1.18), Quat::IDENTITY);
        let n = Vec3::new(0.0012, 1.0, 0.0242).normalize();
        let m = Manifold::single(n, Vec3::new(-1.9, 0.0, -1.33), -2e-4, 0);
        let whole = n.dot(world_support(&floor, &pf, n)) - n.dot(world_support(&rock, &pr, -n));
        assert!(whole > 0.25, "the whole floor's plane is {whole} m above the rock's lowest point");
        let s = speculative_manifold(&m, &floor, &pf, &rock, &pr, 0.05);
        assert!(!s.is_empty());
        assert!(s.max_depth() < 0.04, "rebuilt {} m deep: {s:?}", s.max_depth());
    }

    #[test]
    fn a_touching_pair_is_rebuilt_when_it_can_move() {
        use crate::dynamics::{BodyKind, Material};
        let floor = Body::new(
            BodyKind::Static,
            Shape::cuboid(Vec3::new(5.0, 0.5, 5.0)),
            Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
            Material::default(),
        );
        let rot = Quat::from_rotation_z(0.3) * Quat::from_rotation_x(0.2);
        let h = 0.05;
        let mut cube = Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::splat(h)),
            Pose::new(Vec3::ZERO, rot),
            Material::default(),
        );
        // Lowest corner 2 mm into the floor.
        let lowest = cube.shape.aabb(&cube.pose).min.y;
        cube.pose.translation.y = -lowest - 0.002;
        let tol = Tolerance { margin: 0.02, epsilon: 1e-6 };
        let m = contact(&cube.shape, &cube.pose, &floor.shape, &floor.pose, tol, NarrowPhaseKind::Analytic).unwrap();
        assert!((m.max_depth() - 0.002).abs() < 1e-4, "{m:?}");
        let (dt, slop) = (1.0 / 60.0, 0.001);
        let resting = speculative_contact(&m, &cube, &floor, PairMotion::of(&cube, &floor, dt), 0.02, slop);
        assert_eq!(resting.points(), m.points(), "at rest: the narrow phase's points");
        for (pushed, spin) in [(0.5, 0.0), (0.0, 20.0)] {
            cube.angvel = Vec3::Z * spin;
            let motion = PairMotion { pushed, ..PairMotion::of(&cube, &floor, dt) };
            let s = speculative_contact(&m, &cube, &floor, motion, 0.02 + pushed, slop);
            assert!(s.len() > 1 && s.points()[0].id >= ID_BASE, "pushed {pushed}, spin {spin}: {s:?}");
            assert!((s.max_depth() - m.max_depth()).abs() < 1e-4, "deepest {} vs {}", s.max_depth(), m.max_depth());
            for p in s.points() {
                // The corner is the point moved half its depth along the normal (A to B: down).
                let corner_y = p.point.y - 0.5 * p.depth;
                assert!((corner_y + p.depth).abs() < 1e-5, "{p:?}: the depth is the corner's below y = 0");
            }
        }
    }

    /// Every body's push ([`pushed_reach`] over all of them, with fresh working lists).
    fn pushes(bodies: &[Body], reach: &[bool], pairs: &[(u32, u32)], s: &crate::settings::Settings) -> Vec<Pushed> {
        let spin: Vec<Real> = bodies.iter().map(|b| spin_reach(b, s.dt)).collect();
        let mut out = Vec::new();
        pushed_reach(bodies, Bodies::All(bodies.len()), reach, &spin, pairs, s, (&mut out, &mut Vec::new()));
        out
    }

    /// What a fast body's box meets is pushed as far as that body closes on it in the step; a
    /// static body, and everything when nothing has reach, is not.
    #[test]
    fn bodies_a_fast_one_meets_are_pushed() {
        use crate::dynamics::{BodyKind, Material};
        let s = crate::settings::Settings { dt: 0.01, ..Default::default() };
        let spins = |bodies: &[Body]| bodies.iter().map(|b| spin_reach(b, s.dt)).collect::<Vec<_>>();
        let ball = |kind, x: Real| {
            Body::new(kind, Shape::sphere(0.1), Pose::from_translation(Vec3::X * x), Material::default())
        };
        let paddle = ball(BodyKind::Kinematic, 0.0).with_velocity(Vec3::X * 50.0, Vec3::ZERO);
        let bodies = [paddle, ball(BodyKind::Dynamic, 0.3), ball(BodyKind::Static, 0.6), ball(BodyKind::Dynamic, 5.0)];
        let pairs = [(0, 1), (0, 2), (1, 2)];
        let by_moving = |out: &[Pushed]| out.iter().map(|p| p.by_moving).collect::<Vec<_>>();
        let by_any = |out: &[Pushed]| out.iter().map(|p| p.by_any).collect::<Vec<_>>();
        let reach = [true, false, false, false];
        let mut out = pushes(&bodies, &reach, &pairs, &s);
        assert_eq!(by_moving(&out), vec![0.0, 0.5, 0.0, 0.0]);
        assert_eq!(by_any(&out), vec![0.0, 0.5, 0.0, 0.0]);
        pushed_reach(&bodies, Bodies::All(4), &[false; 4], &spins(&bodies), &pairs, &s, (&mut out, &mut vec![7; 9]));
        assert_eq!(out, vec![Pushed::default(); 4]);
        // A body going the same way as the fast one is pushed only by what it closes on it,
        // here nothing; one coming the other way by both speeds.
        let mut with = bodies.clone();
        with[1].linvel = Vec3::X * 50.0;
        out = pushes(&with, &reach, &pairs, &s);
        assert_eq!(by_moving(&out), vec![0.0; 4]);
        with[1].linvel = Vec3::X * -10.0;
        out = pushes(&with, &reach, &pairs, &s);
        assert!((out[1].by_moving - 0.6).abs() < 1e-6, "{out:?}");
    }

    /// A row of bodies flying together at a wall: the first is stopped by the wall (pushed by
    /// its whole speed, for its pairs with the others, not with the wall), and the push is
    /// carried to the whole row; a body flying alone elsewhere is not pushed.
    #[test]
    fn a_row_stopped_by_a_wall_pushes_every_body_in_it() {
        use crate::dynamics::{BodyKind, Material};
        let s = crate::settings::Settings { dt: 0.01, ..Default::default() };
        let spins = |bodies: &[Body]| bodies.iter().map(|b| spin_reach(b, s.dt)).collect::<Vec<_>>();
        let cube = |kind, x: Real, v: Real| {
            Body::new(kind, Shape::cuboid(Vec3::splat(0.5)), Pose::from_translation(Vec3::X * x), Material::default())
                .with_velocity(Vec3::X * v, Vec3::ZERO)
        };
        // The wall, then the row (nearest first), then a lone body.
        let bodies = [
            cube(BodyKind::Static, 1.2, 0.0),
            cube(BodyKind::Dynamic, 0.0, 15.0),
            cube(BodyKind::Dynamic, -1.05, 15.0),
            cube(BodyKind::Dynamic, -2.1, 15.0),
            cube(BodyKind::Dynamic, 20.0, 15.0),
        ];
        let reach = [false, true, true, true, true];
        let pairs = [(0, 1), (1, 2), (2, 3)];
        let out = pushes(&bodies, &reach, &pairs, &s);
        for (k, p) in out.iter().enumerate().take(4).skip(1) {
            assert!((p.by_any - 0.15).abs() < 1e-6 && p.by_moving == 0.0, "#{k}: {p:?}");
        }
        assert_eq!(out[0], Pushed::default());
        assert_eq!(out[4], Pushed::default());
        // For the bodies of the pairs alone, over what an earlier step left in the lists: the
        // same pushes for them.
        let stale = Pushed { by_moving: 9.0, by_any: 9.0 };
        let (mut listed, mut group) = (vec![stale; 5], vec![3; 5]);
        let which = Bodies::Listed(&[0, 1, 2, 3]);
        pushed_reach(&bodies, which, &reach, &spins(&bodies), &pairs, &s, (&mut listed, &mut group));
        assert_eq!(listed[..4], out[..4]);
    }
}
