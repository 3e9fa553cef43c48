//! Continuous collision detection: keeps fast bodies from passing through thin ones.
//!
//! Two remedies, chosen by [`CcdMode`]: speculative contacts (a fast body's AABB and contact
//! margin grow by the distance it can travel this step, so the solver sees the obstacle before
//! reaching it) and time of impact (after the solver moved everything, each fast body's sweep is
//! cast against the world by conservative advancement, against meshes triangle by triangle and
//! compounds child by child; the body is stopped at the first impact,
//! its velocity resolved there, and it moves on for the rest of the step).

mod escaped;
mod mesh;
mod pair;
mod resolve;
mod toi;

mod draw;
mod speculative;

pub use draw::shape_outline;
pub use mesh::mesh_time_of_impact;
pub use pair::pair_time_of_impact;
pub use resolve::{CcdMotion, MAX_TOI_ROUNDS, ToiEvent, motion_aabb, toi_target};
pub(crate) use resolve::{ToiScratch, resolve_toi};
pub use speculative::{
    PairMotion, Pushed, pair_reach, pushed_reach, speculative_contact, speculative_manifold, spin_reach,
};
pub use toi::{
    Advance, Carried, MAX_TOI_ITERATIONS, Motion, TimeOfImpact, advance, advance_carried, angular_reach,
    core_spin_speed, time_of_impact, time_of_impact_or_core,
};

use crate::dynamics::Body;
use crate::geometry::Aabb;
use crate::math::{Quat, Real, Vec3};
use crate::parallel::BODY_BLOCK;
pub use crate::settings::CcdMode;
use crate::settings::Settings;

/// Whether the time-of-impact pass sweeps this body this step: with [`CcdMode::Toi`], an awake
/// dynamic or kinematic body that is a bullet or whose fastest point ([`speed_bound`]) moves
/// faster than `settings.ccd_speed_threshold`. A fast kinematic body is not stopped; it pushes
/// the bodies in its path.
pub fn needs_ccd(body: &Body, settings: &Settings) -> bool {
    settings.ccd == CcdMode::Toi && moves(body) && (body.bullet || speed_bound(body) > settings.ccd_speed_threshold)
}

/// Whether this body's contacts reach as far as it can move this step (speculative CCD): with
/// CCD on, an awake dynamic or kinematic body that can move more than a quarter of the
/// speculative distance in the step and that the time-of-impact pass does not stop (a kinematic
/// body it never stops: the solver pushes what lies in its path, the pass only catches what
/// the solver lets through).
pub fn needs_reach(body: &Body, settings: &Settings) -> bool {
    settings.ccd != CcdMode::Off
        && moves(body)
        && outruns_margin(speed_bound(body) * settings.dt, settings)
        && (body.kind == crate::dynamics::BodyKind::Kinematic || !needs_ccd(body, settings))
}

/// Whether closing `distance` (m) in one step is more than the contact margin covers without
/// reach: more than a quarter of `settings.speculative_distance`. Below it, contacts found at
/// the plain margin hold the motion, for a slow body and for a pair that closes slowly however
/// fast both move.
pub fn outruns_margin(distance: Real, settings: &Settings) -> bool {
    distance > 0.25 * settings.speculative_distance
}

/// The turn in one step (rad) beyond which a body's speculative rows no longer describe it.
/// The rows are built along the normal at the start of the step, and the solver moves each
/// point linearly in the turn: a body turning farther brings features to the surface that no
/// row holds (a box's back corners come round). Measured (tests/suite/ccd/random_shots.rs, random shots
/// at thin walls): at 0.5 rad a few boxes in 10,000 still pass, at 0.35 a capsule in 50,000,
/// at 0.25 none in 150,000 shots per shape.
pub const MAX_ROW_TURN: Real = 0.25;

/// Whether, with CCD on, this body's turn in the step is more than its speculative rows
/// describe ([`MAX_ROW_TURN`]), so that the time-of-impact pass sweeps it (a fallback, also
/// with [`CcdMode::Speculative`]): `|ω|·dt` at the start of the step (`start_rotation`,
/// `start_spin` in rad/s) or as the solver left it, whichever is larger (a contact can slow the
/// turn within the step after most of it was made, or start it). Only an awake dynamic body
/// whose turn moves its surface by more than `settings.slop` in the step at either spin
/// ([`core_spin_speed`]): not a sphere's, nor a capsule's or a dumbbell's rolling about its own
/// axis.
pub fn turns_past_rows(body: &Body, start_rotation: Quat, start_spin: Vec3, settings: &Settings) -> bool {
    let turn = || body.angvel.length().max(start_spin.length()) * settings.dt;
    let surface = |rotation: Quat, spin: Vec3| core_spin_speed(&body.shape, rotation.inverse() * spin) * settings.dt;
    settings.ccd != CcdMode::Off
        && body.is_dynamic()
        && !body.is_asleep()
        && turn() > MAX_ROW_TURN
        && (surface(body.pose.rotation, body.angvel) > settings.slop
            || surface(start_rotation, start_spin) > settings.slop)
}

/// Marks (in `out`, per body) each awake dynamic body that the solver moved where its rows
/// no longer describe it, so that the time-of-impact pass sweeps it against static bodies
/// from its start pose (`starts`), as it does bodies turning past their rows:
/// - one it drove through its rows with a static body toward crossing it: a contact whose
///   deepest point ends the step more than `slop` deeper than it started, and deeper than
///   half the body's inner radius (plus `slop`). Its rows held it when solved, but rows solved
///   after them (another fast body striking it, a pile pressing on it) drove it on. A
///   shallower push is the next step's contact's to undo: sweeping it would replay the step's
///   motion without its rows;
/// - one that ends the step outside the box the broad phase found its pairs in (`aabbs`),
///   having moved more than half its inner radius: a fast body struck it and threw it farther
///   than anything it could meet was looked for, so a wall in its new path has no row at all.
///
/// A body driven far enough either way crosses a thin wall or floor within the step.
/// `by_kinematic` and `marks` are working lists (what they hold on entry does not matter);
/// `resting` (per body, or empty) marks bodies known to be static or asleep, which are not read;
/// `which` lists the bodies that can have moved in the step, or is all of them.
/// The bodies and the contacts are tested block by block on `crew`'s threads.
#[allow(clippy::too_many_arguments)]
pub fn left_their_rows(
    bodies: &[Body],
    starts: &[crate::math::Pose],
    contacts: &[crate::dynamics::solver::Contact],
    aabbs: &[Aabb],
    slop: Real,
    out: &mut [bool],
    by_kinematic: &mut Vec<bool>,
    marks: &mut Vec<u32>,
    (resting, which): (&[bool], crate::parallel::Bodies<'_>),
    crew: Option<&crate::parallel::Crew>,
) {
    use crate::dynamics::BodyKind;
    // A body a kinematic body touches is its push's to carry (pushed reach and pinned rows):
    // an impact with the floor on the way would leave it behind the paddle.
    let kinematic = |i: u32| bodies[i as usize].kind == BodyKind::Kinematic && !holds_still(&bodies[i as usize]);
    by_kinematic.clear();
    by_kinematic.resize(bodies.len(), false);
    for c in contacts.iter().filter(|c| kinematic(c.a) || kinematic(c.b)) {
        by_kinematic[c.a as usize] = true;
        by_kinematic[c.b as usize] = true;
    }
    let motions = |i: usize, b: &Body| b.is_dynamic() && !b.is_asleep() && !by_kinematic[i];
    // Only the bodies `which` lists can have left their boxes.
    let left = |i: usize| left_its_box(bodies, starts, aabbs, resting, i);
    match which {
        crate::parallel::Bodies::Listed(list) => list.iter().for_each(|&i| out[i as usize] |= left(i as usize)),
        crate::parallel::Bodies::All(_) => {
            crate::parallel::fill(crew, &mut out[..bodies.len()], BODY_BLOCK, |r, out| {
                for (i, o) in r.zip(out) {
                    *o |= left(i);
                }
            })
        }
    }
    // A body is marked if any of its contacts with a body that holds still (a static one, a
    // kinematic one at rest) marks it: each contact is tested on its own (skipped if its body is
    // marked already) into `marks`, the body it marks plus one (0: none), and the marks are
    // applied after, in contact order.
    let marked = &*out;
    let drove_through = |c: &crate::dynamics::solver::Contact| -> Option<usize> {
        let (a, b) = (c.a as usize, c.b as usize);
        // The moving body and the sign of its motion along the normal (A to B) that opens the gap.
        let (i, opens) = match (holds_still(&bodies[a]), holds_still(&bodies[b])) {
            (true, false) => (b, 1.0),
            (false, true) => (a, -1.0),
            _ => return None,
        };
        let body = &bodies[i];
        if marked[i] || !motions(i, body) {
            return None;
        }
        let n = c.manifold.normal * opens;
        // No point of the body moved as far as half the slop along the normal (its centre's
        // move plus the chord its turn sweeps at its reach, 2 sin(θ/2) per metre): its surface
        // cannot have gone a slop deeper, and the two supports below need not be found. Most
        // bodies resting on a floor stop here.
        let dot = starts[i].rotation.dot(body.pose.rotation);
        let chord = 2.0 * (1.0 - dot * dot).max(0.0).sqrt();
        let moved = (body.pose.translation - starts[i].translation).dot(n).abs() + angular_reach(&body.shape, chord);
        if moved < 0.5 * slop {
            return None;
        }
        // How far the body's surface moved along the normal: its farthest point toward the
        // static body at the end against the start (a spinning sphere's surface stays put).
        let lowest = |pose: &crate::math::Pose| {
            n.dot(pose.transform_point(body.shape.support(pose.inverse_transform_vector(-n))))
        };
        let start = c.manifold.max_depth();
        let depth = start + lowest(&starts[i]) - lowest(&body.pose);
        (depth > slop + 0.5 * body.shape.inner_radius() && depth > start + slop).then_some(i)
    };
    marks.resize(contacts.len(), 0);
    crate::parallel::fill(crew, &mut marks[..], BODY_BLOCK, |r, out| {
        for (c, o) in contacts[r].iter().zip(out) {
            *o = drove_through(c).map_or(0, |i| i as u32 + 1);
        }
    });
    for &m in marks.iter().filter(|&&m| m != 0) {
        out[m as usize - 1] = true;
    }
}

/// Whether a body stands still this step as a static body does: a static body, or a kinematic
/// one whose set velocity is zero (a platform not yet moving). The turn and drive sweeps treat
/// it as static: no push of its can carry a body it touches, so a body driven or turning into
/// it is stopped there (a bar landing end-first on a resting kinematic slab swung its other
/// end through it).
pub fn holds_still(body: &Body) -> bool {
    match body.kind {
        crate::dynamics::BodyKind::Static => true,
        crate::dynamics::BodyKind::Kinematic => body.linvel == Vec3::ZERO && body.angvel == Vec3::ZERO,
        crate::dynamics::BodyKind::Dynamic => false,
    }
}

fn moves(body: &Body) -> bool {
    body.kind != crate::dynamics::BodyKind::Static && !body.is_asleep()
}

/// The fastest any point of the body moves: its linear speed plus its spin times its reach
/// ([`angular_reach`]), m/s.
pub fn speed_bound(body: &Body) -> Real {
    body.linvel.length() + angular_reach(&body.shape, body.angvel.length())
}

/// The box that holds the body at its pose now and after moving at its velocity for `dt`
/// (rotation is covered by the bounding sphere when the body spins).
pub fn swept_aabb(body: &Body, dt: Real) -> Aabb {
    motion_aabb(&body.shape, &Motion::new(body.pose, predicted_pose(body, dt)))
}

/// Where the body's velocity carries it in `dt`.
pub fn predicted_pose(body: &Body, dt: Real) -> crate::math::Pose {
    crate::math::Pose {
        translation: body.pose.translation + body.linvel * dt,
        rotation: Body::integrate_rotation(body.pose.rotation, body.angvel, dt),
    }
}

/// Whether body `i`, not known to rest (`resting`), is awake and ended the step out of the box
/// its pairs were found in (`aabbs`), more than half its inner radius from its start pose
/// (`starts`): [`left_their_rows`].
#[inline(always)]
fn left_its_box(bodies: &[Body], starts: &[crate::math::Pose], aabbs: &[Aabb], resting: &[bool], i: usize) -> bool {
    if resting.get(i).copied().unwrap_or(false) {
        return false;
    }
    let b = &bodies[i];
    if !b.is_dynamic() || b.is_asleep() {
        return false;
    }
    // The distance first: it costs less than the box (a compound's is its children's). A body a
    // kinematic body threw out of its box is swept too: a wall in its new path was never looked
    // for (a box a 50 m/s paddle strikes 25 cm from a wall went through it).
    let far = b.pose.translation.distance(starts[i].translation) > 0.5 * b.shape.inner_radius();
    if !far {
        return false;
    }
    aabbs.get(i).is_some_and(|indexed| !indexed.contains(&b.aabb()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyKind, Material};
    use crate::geometry::Shape;
    use crate::math::Pose;

    #[test]
    fn cli_names_round_trip() {
        for &m in CcdMode::ALL {
            assert_eq!(CcdMode::from_cli_name(m.cli_name()), Some(m));
        }
        assert_eq!(CcdMode::from_cli_name("sometimes"), None);
    }

    #[test]
    fn bullets_and_fast_bodies_need_ccd() {
        let mut s = Settings { ccd: CcdMode::Toi, ccd_speed_threshold: 10.0, ..Default::default() };
        let slow = Body::new(BodyKind::Dynamic, Shape::sphere(0.1), Pose::IDENTITY, Material::default())
            .with_velocity(Vec3::X * 5.0, Vec3::ZERO);
        let fast = slow.clone().with_velocity(Vec3::X * 15.0, Vec3::ZERO);
        let mut bullet = slow.clone();
        bullet.bullet = true;
        let resting = slow.clone().with_velocity(Vec3::X * 0.01, Vec3::ZERO);
        // A slow centre but fast tips: 1 m long, turning at 30 rad/s.
        let mut spinner = Body::new(
            BodyKind::Kinematic,
            Shape::cuboid(Vec3::new(0.5, 0.01, 0.01)),
            Pose::IDENTITY,
            Material::default(),
        );
        spinner.angvel = Vec3::Y * 30.0;
        assert!(!needs_ccd(&slow, &s) && needs_reach(&slow, &s), "slow: speculative contacts");
        assert!(needs_ccd(&fast, &s) && !needs_reach(&fast, &s), "fast: time of impact");
        assert!(needs_ccd(&bullet, &s) && !needs_reach(&bullet, &s));
        assert!(needs_ccd(&spinner, &s), "tips at {} m/s", speed_bound(&spinner));
        assert!(needs_reach(&spinner, &s), "a kinematic body pushes through speculative contacts too");
        assert!(!needs_ccd(&resting, &s) && !needs_reach(&resting, &s), "resting: discrete contacts only");
        s.ccd = CcdMode::Speculative;
        for b in [&slow, &fast, &bullet, &spinner] {
            assert!(!needs_ccd(b, &s) && needs_reach(b, &s));
        }
        s.ccd = CcdMode::Off;
        assert!(!needs_ccd(&fast, &s) && !needs_ccd(&bullet, &s) && !needs_reach(&fast, &s));
    }

    /// A box turning 0.3 rad in the step (at its start spin or after the solver) is swept; one
    /// turning 0.2 rad, a sphere at any spin, a static or sleeping body, or CCD off, not.
    #[test]
    fn bodies_turning_past_their_rows_are_swept() {
        let s = Settings { ccd: CcdMode::Speculative, ..Default::default() };
        let rate = |turn: Real| turn / s.dt;
        let mut b = Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.02)), Pose::IDENTITY, Material::default());
        b.angvel = Vec3::Z * rate(0.3);
        assert!(turns_past_rows(&b, Quat::IDENTITY, Vec3::ZERO, &s), "spinning after the solver");
        assert!(!turns_past_rows(&b, Quat::IDENTITY, Vec3::ZERO, &Settings { ccd: CcdMode::Off, ..s.clone() }));
        assert!(turns_past_rows(&b, Quat::IDENTITY, Vec3::ZERO, &Settings { ccd: CcdMode::Toi, ..s.clone() }));
        b.angvel = Vec3::Z * rate(0.2);
        assert!(!turns_past_rows(&b, Quat::IDENTITY, Vec3::Z * rate(0.2), &s), "below the limit");
        assert!(turns_past_rows(&b, Quat::IDENTITY, Vec3::Z * rate(0.3), &s), "spinning at the start of the step");
        let mut ball = Body::new(BodyKind::Dynamic, Shape::sphere(0.02), Pose::IDENTITY, Material::default());
        ball.angvel = Vec3::Z * rate(3.0);
        assert!(!turns_past_rows(&ball, Quat::IDENTITY, Vec3::Z * rate(3.0), &s), "a sphere's turn moves no surface");
        let mut wall = b.clone();
        wall.kind = BodyKind::Static;
        assert!(!turns_past_rows(&wall, Quat::IDENTITY, Vec3::Z * rate(3.0), &s));
        b.asleep = true;
        assert!(!turns_past_rows(&b, Quat::IDENTITY, Vec3::Z * rate(3.0), &s));
    }

    /// A body whose turn leaves its surface in place is not swept however fast it turns: a
    /// capsule about its own segment, a dumbbell (two spheres on a bar) about its bar, at any
    /// orientation. Turned about another axis, or about its own tilted past the slop, it is.
    #[test]
    fn a_turn_that_moves_no_surface_is_not_swept() {
        use crate::geometry::{Compound, CompoundChild};
        let s = Settings { ccd: CcdMode::Toi, ..Default::default() };
        let fast = 3.0 / s.dt;
        let child = |shape: Shape, pose: Pose| CompoundChild { shape, pose };
        let bar = Quat::from_rotation_arc(Vec3::Y, Vec3::Z);
        let dumbbell = Shape::Compound(std::sync::Arc::new(
            Compound::new(vec![
                child(Shape::sphere(0.04), Pose::from_translation(Vec3::Z * 0.08)),
                child(Shape::sphere(0.04), Pose::from_translation(Vec3::Z * -0.08)),
                child(Shape::capsule(0.08, 0.015), Pose::new(Vec3::ZERO, bar)),
            ])
            .unwrap(),
        ));
        // Each shape with its own axis in its frame.
        for (shape, axis) in [(Shape::capsule(0.1, 0.02), Vec3::Y), (dumbbell, Vec3::Z)] {
            let rotation = Quat::from_euler(glam::EulerRot::YXZ, 0.7, -0.4, 1.1);
            let mut b = Body::new(BodyKind::Dynamic, shape, Pose::new(Vec3::ZERO, rotation), Material::default());
            let own = rotation * axis;
            b.angvel = own * fast;
            assert!(!turns_past_rows(&b, rotation, own * fast, &s), "{:?} about its own axis", b.shape.kind());
            let across = own.any_orthonormal_vector();
            assert!(
                turns_past_rows(&b, rotation, across * fast, &s),
                "{:?} turned across at the start",
                b.shape.kind()
            );
            b.angvel = across * fast;
            assert!(
                turns_past_rows(&b, rotation, own * fast, &s),
                "{:?} turned across after the solver",
                b.shape.kind()
            );
            // Tilted 0.05 rad off its axis: its ends (8-10 cm out) move about 1.5 cm, past the slop.
            let tilted = Quat::from_axis_angle(across, 0.05) * own;
            b.angvel = tilted * fast;
            assert!(turns_past_rows(&b, rotation, tilted * fast, &s), "{:?} tilted off its axis", b.shape.kind());
            assert!(core_spin_speed(&b.shape, axis * fast) < 1e-3, "{:?}", b.shape.kind());
        }
        // A box has no such axis: its corners move about any.
        let cube = Shape::cuboid(Vec3::splat(0.02));
        for axis in [Vec3::X, Vec3::Y, Vec3::Z, Vec3::ONE.normalize()] {
            assert!(core_spin_speed(&cube, axis) > 0.02, "{axis}");
        }
    }

    #[test]
    fn swept_aabb_holds_start_and_end() {
        let b = Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.5)), Pose::IDENTITY, Material::default())
            .with_velocity(Vec3::new(60.0, -6.0, 0.0), Vec3::ZERO);
        let s = swept_aabb(&b, 0.1);
        let end = b.shape.aabb(&Pose::from_translation(Vec3::new(6.0, -0.6, 0.0)));
        assert!(s.contains(&b.aabb()) && s.contains(&end));
        assert!(s.max.x < 6.5 + 1e-5 && s.min.y > -1.1 - 1e-5, "no bigger than needed: {s:?}");
    }
}
