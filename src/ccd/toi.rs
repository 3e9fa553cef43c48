//! Time of impact by conservative advancement (Mirtich): step forward by the largest time in
//! which the gap provably cannot close, measured with the narrow phase's GJK distance.

use crate::geometry::Shape;
use crate::geometry::segment::closest_point_segment;
use crate::math::{Pose, Quat, Real, Vec3};
use crate::narrowphase::closest_point_hull;
use crate::narrowphase::{DistanceResult, distance};

/// A body's motion over an interval `t ∈ [0, 1]`: straight-line translation and a turn at a
/// constant rate about a fixed axis (`turn`, a rotation vector in world axes: its length is the
/// angle, which may exceed a half turn for a fast spinner).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motion {
    /// The pose at `t = 0`.
    pub start: Pose,
    /// The pose at `t = 1`.
    pub end: Pose,
    /// The turn over the interval, as a rotation vector in world axes.
    pub turn: Vec3,
}

impl Motion {
    /// From `start` to `end` by the shortest arc.
    pub fn new(start: Pose, end: Pose) -> Self {
        let mut q = end.rotation * start.rotation.conjugate();
        if q.w < 0.0 {
            q = -q;
        }
        Self { start, end, turn: q.to_scaled_axis() }
    }

    /// From `start`, moving to `to` while turning by the rotation vector `turn` (any angle).
    pub fn turning(start: Pose, to: Vec3, turn: Vec3) -> Self {
        let rotation = (Quat::from_scaled_axis(turn) * start.rotation).normalize();
        Self { start, end: Pose { translation: to, rotation }, turn }
    }

    /// A body that does not move.
    pub fn stationary(pose: Pose) -> Self {
        Self { start: pose, end: pose, turn: Vec3::ZERO }
    }

    /// The pose at fraction `t` of the interval.
    pub fn at(&self, t: Real) -> Pose {
        if t >= 1.0 {
            return self.end;
        }
        Pose {
            translation: self.start.translation.lerp(self.end.translation, t),
            rotation: (Quat::from_scaled_axis(self.turn * t) * self.start.rotation).normalize(),
        }
    }

    /// The same motion over `[u, 1]` of this interval, as a sweep over its own `[0, 1]`.
    pub fn rest_from(&self, u: Real) -> Motion {
        Motion { start: self.at(u), end: self.end, turn: self.turn * (1.0 - u) }
    }

    /// How far the body moves over the interval.
    pub fn translation(&self) -> Vec3 {
        self.end.translation - self.start.translation
    }

    /// The angle (rad) the body turns through over the interval.
    pub fn angle(&self) -> Real {
        self.turn.length()
    }
}

/// The first moment two sweeping shapes come within the target gap.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeOfImpact {
    /// Fraction of the interval, in [0, 1].
    pub t: Real,
    /// Unit normal from A to B at the impact.
    pub normal: Vec3,
    /// Midway between the closest points at the impact, world space (for a stop within an
    /// overlap, the deepest point of the pair's manifold there).
    pub point: Vec3,
    /// The gap left at the impact (about `target`; negative for a stop within an overlap).
    pub distance: Real,
    /// Distance (or contact) queries made.
    pub iterations: u32,
    /// Found for a body's core ([`time_of_impact_or_core`]): the shapes already overlap there
    /// and the point is next to that body's centre of mass.
    pub core: bool,
}

/// Most distance queries one time-of-impact search makes.
pub const MAX_TOI_ITERATIONS: u32 = 32;

/// How far any point of `shape` can move when the shape turns by `angle` (rad) about its
/// origin (the centre of mass): the arc length at the farthest point, zero for a sphere, which
/// turning leaves in place.
pub fn angular_reach(shape: &Shape, angle: Real) -> Real {
    match shape {
        Shape::Sphere(_) => 0.0,
        _ => angle * shape.bounding_radius(),
    }
}

/// How fast the surface of `shape` moves when it spins at `spin` (rad/s, in the shape's own
/// axes) about its origin, m/s: the largest `|spin × c|` over the points `c` of its core (a
/// sphere's centre, a capsule's segment, a box's or hull's vertices; each child's at its pose
/// in a compound). The rounding about a core is a ball at each core point, which a turn maps
/// onto itself, so no point of the surface moves faster than the core's fastest point
/// (a capsule turning about its own segment moves no surface; nor does a compound turning about
/// the line its spheres' centres and capsules' segments all lie on). Triangle meshes and height
/// fields (static or kinematic only) answer the spin times their bounding radius.
pub fn core_spin_speed(shape: &Shape, spin: Vec3) -> Real {
    match shape {
        Shape::Compound(c) => {
            c.children().iter().map(|k| core_spin_speed_at(&k.shape, spin, &k.pose)).fold(0.0, Real::max)
        }
        _ => core_spin_speed_at(shape, spin, &Pose::IDENTITY),
    }
}

/// [`core_spin_speed`] of a convex shape placed at `local` in the spinning frame.
fn core_spin_speed_at(shape: &Shape, spin: Vec3, local: &Pose) -> Real {
    let speed = |c: Vec3| spin.cross(local.transform_point(c)).length();
    match shape {
        Shape::Sphere(_) => speed(Vec3::ZERO),
        Shape::Capsule(c) => {
            let (p, q) = c.segment();
            speed(p).max(speed(q))
        }
        Shape::Cuboid(c) => {
            let b = crate::geometry::Aabb::new(-c.half_extents, c.half_extents);
            (0..8).map(|i| speed(b.corner(i))).fold(0.0, Real::max)
        }
        Shape::ConvexHull(h) => h.vertices().iter().map(|&v| speed(v)).fold(0.0, Real::max),
        Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => {
            spin.length() * (local.translation.length() + shape.bounding_radius())
        }
    }
}

/// What one conservative-advancement search found.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Advance {
    /// The pair first comes within the target at this time.
    Hit(TimeOfImpact),
    /// The pair stays farther apart than the target over the whole interval.
    Miss,
    /// The pair is already within the target at the start of the interval.
    Touching,
}

/// A shape carried along by a body's sweep: the body's own shape, or a compound's child at its
/// pose in the body (`local`). Every point of it moves with the body, so over the interval no
/// point moves farther than the body's translation plus the arc of its turn at the point's
/// distance from the body's centre of mass ([`Carried::reach`]).
#[derive(Clone, Copy, Debug)]
pub struct Carried<'a> {
    /// The shape.
    pub shape: &'a Shape,
    /// The body's motion.
    pub motion: &'a Motion,
    /// The shape's pose in the body; `None` for the body's own shape.
    pub local: Option<&'a Pose>,
    /// The body's whole shape, whose core ([`Carried::cores`]) keeps its centre from crossing
    /// what the part already touches.
    pub body: &'a Shape,
}

impl<'a> Carried<'a> {
    /// The body's own shape along its sweep.
    pub fn body(shape: &'a Shape, motion: &'a Motion) -> Self {
        Self { shape, motion, local: None, body: shape }
    }

    /// A part of the body `body` at `local` in its frame.
    pub fn part(shape: &'a Shape, motion: &'a Motion, local: &'a Pose, body: &'a Shape) -> Self {
        Self { shape, motion, local: Some(local), body }
    }

    /// The cores searched in place of a shape that already touches, each a ball of a quarter of
    /// an [`Shape::inner_radius`] with its pose in the body: the body's about its centre of mass (a
    /// point for a compound whose centre no child holds a ball about) and, for a compound's
    /// child, the child's about its origin. Neither centre may cross what the shape touches.
    pub fn cores(&self) -> impl Iterator<Item = (Shape, Option<&'a Pose>)> + use<'a, '_> {
        let body = (Shape::sphere(0.25 * self.body.inner_radius()), None);
        let own = self.local.map(|l| (Shape::sphere(0.25 * self.shape.inner_radius()), Some(l)));
        std::iter::once(body).chain(own)
    }

    /// The shape's world pose at fraction `t` of the interval.
    pub fn at(&self, t: Real) -> Pose {
        self.placed(self.motion.at(t))
    }

    /// The shape's world pose at the start of the interval (the sweep's start pose exactly).
    pub fn start(&self) -> Pose {
        self.placed(self.motion.start)
    }

    fn placed(&self, p: Pose) -> Pose {
        match self.local {
            Some(l) => p.mul(l),
            None => p,
        }
    }

    /// How far any point of the shape can move over the interval because the body turns: the
    /// arc at the farthest point from the body's centre of mass ([`angular_reach`] about the
    /// shape's own origin, plus the turn times the origin's distance from the centre).
    pub fn reach(&self) -> Real {
        let angle = self.motion.angle();
        let own = angular_reach(self.shape, angle);
        match self.local {
            Some(l) => own + angle * l.translation.length(),
            None => own,
        }
    }
}

/// Conservative advancement (Mirtich) of shape `a` along `sa` against `b` along `sb`: from the
/// GJK normal `n` at time `t` and the gap along it (`axis_gap`, never more than the distance,
/// so an inaccurate GJK distance cannot make the search step past a touch), no point of A gains
/// on B along `n` faster than `(Δa - Δb)·n + θa·ra + θb·rb` per interval (linear motion
/// projected on the normal plus the arc of the farthest point for each body's turn,
/// [`angular_reach`]), so the gap cannot close to `target` before `t + (gap - target) /
/// closing`. The search stops once the gap is within `target + tolerance`, `tolerance =
/// max(target, 1e-4) / 4`: the reported time is never after the first moment the distance
/// reaches `target`, and the gap there is at most `target + tolerance`.
pub fn advance(a: &Shape, sa: &Motion, b: &Shape, sb: &Motion, target: Real) -> Advance {
    advance_carried(&Carried::body(a, sa), &Carried::body(b, sb), target)
}

/// [`advance`] for shapes carried by bodies (compound children: [`Carried::reach`] bounds the
/// arcs of their turns about the bodies' centres).
pub fn advance_carried(a: &Carried, b: &Carried, target: Real) -> Advance {
    let rel = a.motion.translation() - b.motion.translation();
    let spin = a.reach() + b.reach();
    let probe = |t: Real| {
        let (pa, pb) = (a.at(t), b.at(t));
        let d = distance(a.shape, &pa, b.shape, &pb);
        // The gap along the normal is a lower bound of the distance whatever GJK's accuracy,
        // and the bound on closing holds for it: advancing on it can never step past a touch.
        let gap = d.distance.min(axis_gap(a.shape, &pa, b.shape, &pb, d.normal));
        Some(Probe { gap, normal: d.normal, point: (d.point_a + d.point_b) * 0.5, distance: d.distance })
    };
    advance_on(probe, rel, spin, target, 1.0)
}

/// What a conservative-advancement search reads at one time.
pub(super) struct Probe {
    /// A lower bound of the distance, which the search steps on.
    pub gap: Real,
    /// The unit direction from A to B the gap is measured along.
    pub normal: Vec3,
    /// The point an impact here reports.
    pub point: Vec3,
    /// The distance an impact reports when the search has run out of iterations (within them
    /// it reports the gap).
    pub distance: Real,
}

/// The conservative-advancement loop of [`advance`] on any gap: `probe(t)` reads the gap at
/// time `t` (`None`: no gap there, a miss), `rel` is A's translation less B's over the sweep
/// and `spin` bounds the arcs of both turns ([`Carried::reach`]). Gives up (a miss) past
/// `limit`. After [`MAX_TOI_ITERATIONS`] steps while still closing in, it reports the last
/// safe time.
pub(super) fn advance_on(
    probe: impl Fn(Real) -> Option<Probe>,
    rel: Vec3,
    spin: Real,
    target: Real,
    limit: Real,
) -> Advance {
    let tolerance = 0.25 * target.max(1e-4);
    let mut t: Real = 0.0;
    for iteration in 1..=MAX_TOI_ITERATIONS + 1 {
        let Some(p) = probe(t) else { return Advance::Miss };
        let out_of_iterations = iteration > MAX_TOI_ITERATIONS;
        if p.gap <= target + tolerance || out_of_iterations {
            if t == 0.0 {
                return Advance::Touching;
            }
            let distance = if out_of_iterations { p.distance } else { p.gap };
            let (normal, point) = (p.normal, p.point);
            return Advance::Hit(TimeOfImpact { t, normal, point, distance, iterations: iteration, core: false });
        }
        let closing = rel.dot(p.normal) + spin;
        if closing <= 0.0 {
            return Advance::Miss;
        }
        t += (p.gap - target) / closing;
        if t > limit {
            return Advance::Miss;
        }
    }
    Advance::Miss
}

/// The gap between the posed shapes along the unit direction `n` (from A to B): B's lowest
/// point along `n` less A's highest. Never more than their distance.
pub(super) fn axis_gap(a: &Shape, pa: &Pose, b: &Shape, pb: &Pose, n: Vec3) -> Real {
    let top_a = n.dot(pa.transform_point(a.support(pa.inverse_transform_vector(n))));
    let bottom_b = n.dot(pb.transform_point(b.support(pb.inverse_transform_vector(-n))));
    bottom_b - top_a
}

/// When shape `a` moving along `sa` first comes within `target` of shape `b` moving along `sb`.
/// `None` when they stay farther apart over the whole interval, and also when they are already
/// within `target` at its start: touching pairs are the discrete contacts' business (see
/// [`time_of_impact_or_core`] for the sweep that still keeps them from passing through).
pub fn time_of_impact(a: &Shape, sa: &Motion, b: &Shape, sb: &Motion, target: Real) -> Option<TimeOfImpact> {
    match advance(a, sa, b, sb, target) {
        Advance::Hit(h) => Some(h),
        Advance::Miss | Advance::Touching => None,
    }
}

/// [`time_of_impact`], and for a pair already touching at the start, the time of impact of A's
/// core (a ball of a quarter of its [`Shape::inner_radius`] about its centre of mass) against B, and
/// with `b_core` (B a moving body, as thin as A may be) of B's core against A: a body that
/// starts against a wall may slide along it or leave, but its centre never crosses it. `None`
/// when no core comes within `target` either.
pub fn time_of_impact_or_core(
    a: &Shape,
    sa: &Motion,
    b: &Shape,
    sb: &Motion,
    target: Real,
    b_core: bool,
) -> Option<TimeOfImpact> {
    carried_time_of_impact_or_core(&Carried::body(a, sa), &Carried::body(b, sb), target, b_core, &mut None)
}

/// [`time_of_impact_or_core`] for shapes carried by bodies. A compound's child that touches is
/// searched by its body's core and its own ([`Carried::cores`]). The impact of A's body core
/// with `b` is kept in `a_body_core` once searched: it is the same for every child of A swept
/// against `b` (the body's core, its motion and `b` are), so a compound whose children touch
/// `b` searches it once (pass `&mut None` to search it afresh). Same answer as searching it for
/// each.
pub(crate) fn carried_time_of_impact_or_core(
    a: &Carried,
    b: &Carried,
    target: Real,
    b_core: bool,
    a_body_core: &mut Option<Option<TimeOfImpact>>,
) -> Option<TimeOfImpact> {
    match advance_carried(a, b, target) {
        Advance::Hit(h) => Some(h),
        Advance::Miss => None,
        Advance::Touching => {
            // The point is the core's centre: the impulse there stops the centre itself.
            let from_a = first_core_impact(a, b, target, a_body_core);
            let from_b = b_core
                .then(|| first_core_impact(b, a, target, &mut None).map(|h| TimeOfImpact { normal: -h.normal, ..h }))
                .flatten();
            earliest(from_a, from_b)
        }
    }
}

/// The earlier of two impacts (the first on a tie).
pub(crate) fn earliest(x: Option<TimeOfImpact>, y: Option<TimeOfImpact>) -> Option<TimeOfImpact> {
    match (x, y) {
        (Some(x), Some(y)) => Some(if y.t < x.t { y } else { x }),
        (x, y) => x.or(y),
    }
}

/// The first impact of any of `a`'s cores with `b`; the body core's (the one with no `local`
/// pose) taken from `body_core` when already searched, else searched and kept there.
fn first_core_impact(
    a: &Carried,
    b: &Carried,
    target: Real,
    body_core: &mut Option<Option<TimeOfImpact>>,
) -> Option<TimeOfImpact> {
    a.cores().fold(None, |first, (core, local)| {
        let c = Carried { shape: &core, motion: a.motion, local, body: &core };
        let hit = match local {
            None => *body_core.get_or_insert_with(|| core_impact(&c, b, target)),
            Some(_) => core_impact(&c, b, target),
        };
        earliest(first, hit)
    })
}

/// A compound child's core swings about the body's centre: it can cross what it touches and be
/// farther from it at the end of the sweep, which fools the test that the end is nearer. A
/// child core that touches may close in to half its gap, searched by conservative advancement
/// (which never steps past a touch); within this gap (m) it is stopped at once if its centre
/// moves toward the other shape at the start ([`centre_closing`]).
const CHILD_CORE_GAP: Real = 1e-4;

/// The rule for a core `c` already within reach of the other shape (moving along `other`) at
/// the start of the sweep, `start` from it and `end` at the end, `normal` toward it: it closes
/// in (`Touching`: an impact at once) when it is nearer at the end. A compound child's core is
/// first searched to half its gap by `search` (a `Hit` or `Miss` there decides), and within
/// [`CHILD_CORE_GAP`] also closes in when its centre moves toward the other shape.
pub(super) fn touching_core(
    c: &Carried,
    other: &Motion,
    start: Real,
    end: Real,
    normal: Vec3,
    search: impl FnOnce(Real) -> Advance,
) -> Advance {
    let child = c.local.is_some();
    if child && start > CHILD_CORE_GAP {
        match search(0.5 * start) {
            Advance::Touching => {}
            found => return found,
        }
    }
    if end < start - 1e-6 || (child && centre_closing(c, other, normal)) { Advance::Touching } else { Advance::Miss }
}

/// Whether the centre of the core `c` moves along `normal` (from it toward the other body,
/// moving along `other`) at the start of the sweeps, relative to the other body's point there.
fn centre_closing(c: &Carried, other: &Motion, normal: Vec3) -> bool {
    let rate = |s: &Motion, p: Vec3| s.translation() + s.turn.cross(p - s.start.translation);
    let centre = c.start().translation;
    (rate(c.motion, centre) - rate(other, centre)).dot(normal) > 0.0
}

/// When a core ball carried along `c` first comes within `target` of `b`; at once (`t = 0`)
/// when it already is and closing in. The point is the ball's centre, the normal the exact one
/// from it to `b` ([`ball_distance`]).
fn core_impact(c: &Carried, b: &Carried, target: Real) -> Option<TimeOfImpact> {
    let core = c.shape;
    let at_centre = |h: TimeOfImpact| {
        let (pc, pb) = (c.at(h.t), b.at(h.t));
        let normal = ball_distance(core, &pc, b.shape, &pb).map_or(h.normal, |d| d.normal);
        TimeOfImpact { point: pc.translation, normal, core: true, ..h }
    };
    let ball =
        |pc: &Pose, pb: &Pose| ball_distance(core, pc, b.shape, pb).unwrap_or_else(|| distance(core, pc, b.shape, pb));
    match advance_carried(c, b, target) {
        Advance::Hit(h) => Some(at_centre(h)),
        Advance::Miss => None,
        Advance::Touching => {
            // Closing in: nearer at the end of the sweep (a test on the whole motion, which a
            // normal a hair off does not fool the way a projected velocity would be). The
            // impulse then stops the centre along the exact normal, so that once it has, the
            // next round sees no closing left: along GJK's normal (off by the rounding of `b`'s
            // far vertices over the gap, 1e-4 to 1e-3 rad for a ball a millimetre from a 30 m
            // floor) a body sliding at 50 m/s keeps sinking by the tilt times its speed, is
            // stopped again at once every round, and stays where it is for the step.
            let d = ball(&c.start(), &b.start());
            let end = ball(&c.at(1.0), &b.at(1.0)).distance;
            // A centre whose path crosses `b` closes in whatever the end's distance says: a box
            // at a thin wall, struck through it by a paddle, ends farther from it than it began.
            // (Asked only when the end is not already nearer: a ray cast, a mesh's included.)
            let nearer = end < d.distance - 1e-6;
            let end = if !nearer && centre_crosses(c, b) { Real::NEG_INFINITY } else { end };
            match touching_core(c, b.motion, d.distance, end, d.normal, |half| advance_carried(c, b, half)) {
                Advance::Hit(h) => Some(at_centre(h)),
                Advance::Miss => None,
                Advance::Touching => Some(at_centre(core_at_once(d.distance, d.normal, (d.point_a + d.point_b) * 0.5))),
            }
        }
    }
}

/// Whether the centre of the core `c` (outside `b` at the start) passes through `b` over the
/// sweep, along the straight path from its start to its end in `b`'s frame.
fn centre_crosses(c: &Carried, b: &Carried) -> bool {
    let (b0, b1) = (b.start(), b.at(1.0));
    let p0 = b0.inverse_transform_point(c.start().translation);
    let p1 = b1.inverse_transform_point(c.at(1.0).translation);
    let path = crate::geometry::Ray::new(p0, p1 - p0);
    crate::geometry::ray_cast(b.shape, &Pose::IDENTITY, &path, 1.0).is_some_and(|h| h.t > 0.0)
}

/// A core's impact at once (`t = 0`), `distance` from the other shape along `normal`, at
/// `point`.
pub(super) fn core_at_once(distance: Real, normal: Vec3, point: Vec3) -> TimeOfImpact {
    TimeOfImpact { t: 0.0, normal, point, distance, iterations: 1, core: true }
}

/// The distance from the ball `core` to `b` with its points and normal computed in closed form
/// from `b`'s closest point to the ball's centre (in `b`'s frame for a box or a hull): exact to
/// rounding at the centre's scale, where GJK's normal carries the rounding of `b`'s vertices
/// divided by the gap. `None` when `core` is not a ball, or its centre is inside `b` (the
/// caller falls back to [`distance`]).
fn ball_distance(core: &Shape, pc: &Pose, b: &Shape, pb: &Pose) -> Option<DistanceResult> {
    let Shape::Sphere(ball) = core else { return None };
    let c = pc.translation;
    let (on_b, radius) = match b {
        Shape::Sphere(s) => (pb.translation, s.radius),
        Shape::Cuboid(k) => {
            let l = pb.inverse_transform_point(c);
            let q = l.clamp(-k.half_extents, k.half_extents);
            if q == l {
                return None;
            }
            (pb.transform_point(q), 0.0)
        }
        Shape::Capsule(k) => {
            let (p, q) = k.segment();
            (closest_point_segment(pb.transform_point(p), pb.transform_point(q), c).1, k.radius)
        }
        Shape::TriangleMesh(_) | Shape::HeightField(_) | Shape::Compound(_) => return None,
        Shape::ConvexHull(h) => {
            let (y, inside, _) = closest_point_hull(h, pb.inverse_transform_point(c));
            if inside {
                return None;
            }
            (pb.transform_point(y), 0.0)
        }
    };
    let gap = on_b - c;
    let length = gap.length();
    if length <= radius + 1e-7 {
        return None;
    }
    let normal = gap / length;
    Some(DistanceResult {
        distance: length - radius - ball.radius,
        point_a: c + normal * ball.radius,
        point_b: on_b - normal * radius,
        normal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn sphere_hits_thin_wall_at_analytic_time() {
        // A 5 cm sphere moving 4 m along x toward a 1 cm wall whose near face is at x = -0.005.
        let ball = Shape::sphere(0.05);
        let wall = Shape::cuboid(Vec3::new(0.005, 1.0, 1.0));
        let motion =
            Motion::new(Pose::from_translation(Vec3::new(-2.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * 2.0));
        let target = 0.001;
        let hit = time_of_impact(&ball, &motion, &wall, &Motion::stationary(Pose::IDENTITY), target).unwrap();
        // Centre at -0.005 - 0.05 - target when it stops.
        let expected = (2.0 - 0.055 - target) / 4.0;
        assert!((hit.t - expected).abs() < 1e-4, "t = {} expected {expected}", hit.t);
        assert!((hit.normal - Vec3::X).length() < 1e-3, "{:?}", hit.normal);
        assert!(hit.distance >= target * 0.99 && hit.distance <= target * 1.3, "{}", hit.distance);
    }

    #[test]
    fn moving_past_or_away_misses() {
        let ball = Shape::sphere(0.05);
        let wall = Shape::cuboid(Vec3::new(0.005, 1.0, 1.0));
        let still = Motion::stationary(Pose::IDENTITY);
        let above = Motion::new(
            Pose::from_translation(Vec3::new(-2.0, 1.2, 0.0)),
            Pose::from_translation(Vec3::new(2.0, 1.2, 0.0)),
        );
        assert!(time_of_impact(&ball, &above, &wall, &still, 0.001).is_none());
        let away =
            Motion::new(Pose::from_translation(Vec3::new(-1.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * -3.0));
        assert!(time_of_impact(&ball, &away, &wall, &still, 0.001).is_none());
        let short =
            Motion::new(Pose::from_translation(Vec3::new(-2.0, 0.0, 0.0)), Pose::from_translation(Vec3::X * -1.0));
        assert!(time_of_impact(&ball, &short, &wall, &still, 0.001).is_none());
    }

    #[test]
    fn spinning_box_is_caught_before_it_overlaps() {
        // A long thin box turning a quarter turn while sliding toward a wall: check against fine
        // sampling that the reported time is no later than the first overlap.
        let bar = Shape::cuboid(Vec3::new(1.0, 0.05, 0.05));
        let wall = Shape::cuboid(Vec3::new(0.05, 2.0, 2.0));
        let start = Pose::new(Vec3::new(-1.6, 0.0, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let end = Pose::new(Vec3::new(-0.9, 0.0, 0.0), Quat::IDENTITY);
        let motion = Motion::new(start, end);
        let still = Motion::stationary(Pose::IDENTITY);
        let hit = time_of_impact(&bar, &motion, &wall, &still, 0.002).unwrap();
        let first_overlap = (0..=2000)
            .map(|k| k as Real / 2000.0)
            .find(|&t| distance(&bar, &motion.at(t), &wall, &Pose::IDENTITY).distance <= 0.0)
            .unwrap();
        assert!(hit.t <= first_overlap, "toi {} after the first overlap {first_overlap}", hit.t);
        assert!(first_overlap - hit.t < 0.05, "toi {} far before {first_overlap}", hit.t);
    }

    #[test]
    fn a_core_over_a_large_floor_gets_the_floor_normal_exactly() {
        // The paddle test's pose: a capsule's core 0.7 mm above a 30 m floor, where GJK's normal
        // tilts by the rounding of the floor's far corners over the gap.
        let core = Shape::sphere(0.25 * 0.0114);
        let floor = Shape::cuboid(Vec3::new(30.0, 0.5, 3.0));
        let pf = Pose::from_translation(Vec3::new(0.0, -0.5, 0.0));
        let c = Vec3::new(1.5257838, 0.003541041, -0.08643329);
        let d = ball_distance(&core, &Pose::from_translation(c), &floor, &pf).unwrap();
        assert_eq!(d.normal, Vec3::NEG_Y);
        assert!((d.distance - (c.y - 0.25 * 0.0114)).abs() < 1e-7, "{}", d.distance);
        assert!((d.point_b - Vec3::new(c.x, 0.0, c.z)).length() < 1e-6, "{:?}", d.point_b);
    }

    #[test]
    fn ball_distance_agrees_with_gjk_for_every_shape() {
        // Fixed-seed balls round a box, a capsule, a hull and a ball at random poses: the closed
        // form and GJK give the same distance (GJK's normal is the looser of the two).
        let hull = crate::geometry::ConvexHull::new(&[
            Vec3::new(0.3, 0.02, 0.0),
            Vec3::new(-0.2, 0.0, 0.03),
            Vec3::new(0.0, 0.1, 0.0),
            Vec3::new(0.03, -0.08, 0.0),
            Vec3::new(0.0, 0.0, 0.18),
            Vec3::new(0.015, 0.01, -0.15),
        ])
        .unwrap();
        let shapes = [
            Shape::cuboid(Vec3::new(0.3, 0.1, 0.2)),
            Shape::capsule(0.2, 0.05),
            Shape::ConvexHull(std::sync::Arc::new(hull)),
            Shape::sphere(0.1),
        ];
        let mut seed = 0x2545_f491_u32;
        let mut next = || {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (seed >> 8) as Real / (1u32 << 24) as Real
        };
        let mut checked = 0;
        for shape in &shapes {
            for _ in 0..200 {
                let pb = Pose::new(
                    Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5),
                    Quat::from_axis_angle(Vec3::new(next() - 0.5, next() - 0.5, 0.3).normalize(), 6.0 * next()),
                );
                let pc = Pose::from_translation(pb.translation + Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5));
                let ball = Shape::sphere(0.01 + 0.05 * next());
                let Some(d) = ball_distance(&ball, &pc, shape, &pb) else { continue };
                let g = distance(&ball, &pc, shape, &pb);
                assert!((d.distance - g.distance).abs() < 1e-4, "{shape:?} at {pb:?}, ball at {pc:?}: {d:?} vs {g:?}");
                assert!((d.normal.length() - 1.0).abs() < 1e-5);
                if g.distance > 0.01 {
                    assert!(d.normal.dot(g.normal) > 0.999, "{shape:?} at {pb:?}, ball at {pc:?}: {d:?} vs {g:?}");
                }
                checked += 1;
            }
        }
        assert!(checked > 400, "only {checked} balls outside");
    }
}
