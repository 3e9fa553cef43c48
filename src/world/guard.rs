//! The step's guard against non-finite state: a body whose pose or velocity stops being a finite
//! number is reported and frozen where it last was, so that one bad body never turns its
//! neighbours into NaN in the steps that follow.

use crate::dynamics::{Body, BodyKind};
use crate::math::Pose;
use crate::parallel::{self, BODY_BLOCK, Bodies, Crew};
use std::sync::atomic::{AtomicBool, Ordering};

/// A body whose state became non-finite, and where.
#[derive(Clone, Debug, PartialEq)]
pub struct Fault {
    /// The body's index.
    pub body: u32,
    /// The step in which it happened (the world's step count after that step).
    pub step: u64,
    /// The phase after which the state was found non-finite: `"edit"` (changed between steps),
    /// `"solve"` (solver and integration) or `"ccd"`.
    pub phase: &'static str,
}

impl std::fmt::Display for Fault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "step {}: body {} became non-finite in the {} phase; frozen as a static body at its pose before the step",
            self.step, self.body, self.phase
        )
    }
}

/// The poses at the start of the step, and the faults found in it.
#[derive(Default)]
pub(super) struct Guard {
    start: Vec<Pose>,
    pub faults: Vec<Fault>,
}

/// Whether a body's pose and velocities are all finite: every float tested, without a branch
/// per float (this runs over every body after each phase).
#[inline]
fn state_finite(b: &Body) -> bool {
    let (t, q, v, w) = (b.pose.translation, b.pose.rotation, b.linvel, b.angvel);
    let floats = [t.x, t.y, t.z, q.x, q.y, q.z, q.w, v.x, v.y, v.z, w.x, w.y, w.z];
    floats.iter().fold(true, |all, f| all & f.is_finite())
}

/// Whether every body's state is finite, the bodies read block by block on the crew's threads.
/// With `moved_only`, static and sleeping bodies are taken as they were at the step's start
/// (checked then): no phase of the step writes their state.
fn all_finite(bodies: &[Body], crew: Option<&Crew>, moved_only: bool) -> bool {
    let failed = AtomicBool::new(false);
    let still = |b: &Body| moved_only && (b.kind == BodyKind::Static || b.asleep);
    parallel::for_blocks(crew, bodies.len(), BODY_BLOCK, |r| {
        if !bodies[r].iter().all(|b| still(b) || state_finite(b)) {
            failed.store(true, Ordering::Relaxed);
        }
    });
    !failed.into_inner()
}

impl Guard {
    /// Keeps the poses the bodies start the step with. A body made non-finite since the last
    /// step (through [`World::body_mut`](super::World::body_mut)) is frozen first, as an
    /// `"edit"` fault, so the solver never sees it.
    ///
    /// Without an edit since the last step (`edited` false) every state is as that step's checks
    /// left it, so none is checked again, and a body known to rest since (`resting`, per body or
    /// empty) keeps the start pose it has: it has not moved. `which` lists the bodies not
    /// known to rest, when few, or is all of them.
    pub(super) fn begin(
        &mut self,
        bodies: &mut [Body],
        step: u64,
        crew: Option<&Crew>,
        (edited, resting, which): (bool, &[bool], Bodies<'_>),
    ) {
        self.faults.clear();
        if edited {
            self.freeze_non_finite(bodies, step, "edit", crew, false);
        }
        let bodies = &*bodies;
        let n = bodies.len();
        let keep = !edited && resting.len() == n && self.start.len() == n;
        self.start.resize(n, Pose::IDENTITY);
        if keep && matches!(which, Bodies::Listed(_)) {
            // The others rest: they keep theirs.
            which.fill(crew, &mut self.start, |i| bodies[i].pose);
            return;
        }
        parallel::fill(crew, &mut self.start[..], BODY_BLOCK, |r, out| {
            for (k, i) in r.enumerate() {
                if !(keep && resting[i]) {
                    out[k] = bodies[i].pose;
                }
            }
        });
    }

    /// Every body's pose at the start of the step (after any `"edit"` freeze), as [`Guard::begin`]
    /// kept them: what a frozen body goes back to, and where the time-of-impact pass sweeps from.
    pub(super) fn start_poses(&self) -> &[Pose] {
        &self.start
    }

    /// Freezes every body whose state is not finite after `phase`: back at its pose at the start
    /// of the step, at rest, static.
    /// The bodies are read on the crew's threads; the rare body that fails is frozen on this one.
    /// Static and sleeping bodies are not read: no phase writes their state, and the step's
    /// first check ([`Guard::begin`]) or an earlier step's saw it; nor, when `which` lists the
    /// bodies that may have moved in the step, any other.
    pub(super) fn check(
        &mut self,
        bodies: &mut [Body],
        step: u64,
        phase: &'static str,
        crew: Option<&Crew>,
        which: Bodies<'_>,
    ) {
        if let Bodies::Listed(list) = which
            && list.iter().all(|&i| state_finite(&bodies[i as usize]))
        {
            return;
        }
        self.freeze_non_finite(bodies, step, phase, crew, true);
    }

    /// [`Guard::check`], with static and sleeping bodies read too unless `moved_only`.
    fn freeze_non_finite(
        &mut self,
        bodies: &mut [Body],
        step: u64,
        phase: &'static str,
        crew: Option<&Crew>,
        moved_only: bool,
    ) {
        if all_finite(bodies, crew, moved_only) {
            return;
        }
        for (i, b) in bodies.iter_mut().enumerate() {
            if state_finite(b) {
                continue;
            }
            // Without a finite pose from the start of the step (an edit), it is frozen where it
            // is if that is finite, else at the origin.
            let now = Some(b.pose).filter(|p| p.translation.is_finite() && p.rotation.is_finite());
            let start = self.start.get(i).copied().filter(|p| p.translation.is_finite());
            let pose = start.or(now).unwrap_or_default();
            let mut frozen = Body::new(BodyKind::Static, b.shape.clone(), pose, b.material);
            frozen.name = b.name.take();
            *b = frozen;
            self.faults.push(Fault { body: i as u32, step, phase });
        }
    }

    /// The bodies frozen in this step (whose pairs' impulses came from a non-finite state).
    pub(super) fn frozen(&self) -> Vec<u32> {
        self.faults.iter().map(|f| f.body).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::dynamics::{Body, BodyKind, Material};
    use crate::geometry::Shape;
    use crate::math::{Pose, Quat, Vec3};
    use crate::world::{Settings, World};

    #[test]
    fn a_non_finite_body_is_frozen_and_reported_and_its_neighbour_stays_finite() {
        let mut w = World::new(Settings::default());
        for x in [0.0, 0.9] {
            let pose = Pose::new(Vec3::new(x, 0.5, 0.0), Quat::IDENTITY);
            w.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(0.5), pose, Material::default()));
        }
        w.step();
        assert!(w.faults().is_empty());
        w.body_mut(0).linvel = Vec3::new(f32::NAN, 0.0, 0.0);
        w.step();
        assert_eq!(w.faults().len(), 1, "{:?}", w.faults());
        let f = &w.faults()[0];
        assert_eq!((f.body, f.step, f.phase), (0, 2, "edit"));
        assert!(f.to_string().contains("body 0 became non-finite"), "{f}");
        assert_eq!(w.profile().faults, 1);
        assert_eq!(w.bodies()[0].kind, BodyKind::Static);
        for _ in 0..30 {
            w.step();
        }
        assert!(w.faults().is_empty());
        let b = &w.bodies()[1];
        assert!(b.pose.translation.is_finite() && b.linvel.is_finite(), "{:?}", b.pose);
    }

    /// The impulses of a frozen body's pairs are forgotten, so the next step's warm start cannot
    /// carry its non-finite state into a neighbour; other pairs keep theirs.
    #[test]
    fn a_frozen_body_takes_its_warm_start_impulses_with_it() {
        use crate::dynamics::solver::CachedImpulse;
        let mut bodies =
            vec![Body::new(BodyKind::Dynamic, Shape::sphere(0.5), Pose::default(), Material::default()); 3];
        let mut g = super::Guard::default();
        g.begin(&mut bodies, 1, None, (true, &[], crate::parallel::Bodies::All(3)));
        bodies[1].linvel.x = f32::NAN;
        g.check(&mut bodies, 1, "solve", None, crate::parallel::Bodies::All(3));
        let imp =
            [CachedImpulse { id: 0, normal: f32::NAN, ..Default::default() }; crate::narrowphase::MAX_MANIFOLD_POINTS];
        let cache = crate::dynamics::solver::WarmCache::new(
            vec![((0, 1), imp), ((0, 2), imp), ((1, 2), imp)],
            vec![Default::default(); 3],
        );
        let mut store = crate::contacts::ContactStore::default();
        store.restore(cache, Vec::new());
        store.forget_impulses_of(&g.frozen());
        assert_eq!(store.warm_cache().iter().map(|e| e.0).collect::<Vec<_>>(), [(0, 2)]);
        assert_eq!((g.faults.len(), bodies[1].kind), (1, BodyKind::Static));
    }
}
