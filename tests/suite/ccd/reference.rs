//! Time of impact against a finely sub-stepped run. The reference world has CCD off, no
//! speculative margin and a step of dt/1000: its bodies move at most a few millimetres per
//! step, so the first step that ends with them overlapping brackets the true first impact,
//! and the distance before and after it pins the time by interpolation. The time-of-impact pass
//! must report an impact no later than that and no earlier than its target gap allows, at a
//! point on both surfaces, for every pair of shapes, in both body orders, against static,
//! kinematic and dynamic bodies.

use super::common::{KINDS, bullet, rotation, settings, shape, world};
use collidoscope::ccd::{CcdMode, Motion, time_of_impact, toi_target};
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::distance;
use collidoscope::{Body, BodyKind, Material, Shape, World};

/// Reference steps per step of the world under test.
const FINE: usize = 1000;

/// The obstacle's kind and motion.
#[derive(Clone, Copy, Debug)]
enum Other {
    Static,
    /// Moving toward the bullet at 30 m/s (fast too: above the speed threshold).
    Kinematic,
    /// A second fast body crossing the bullet's path at right angles.
    Crossing,
}

/// One case: the bullet (moving along +x) and the obstacle; `swap` adds them in the other order.
struct Case {
    a: Shape,
    b: Shape,
    other: Other,
    swap: bool,
    spin: Vec3,
}

impl Case {
    /// The two bodies at the start: the bullet at 60 m/s from x = -0.6, to meet the obstacle at
    /// about a third of the step.
    fn bodies(&self) -> (Body, Body) {
        let a = bullet(
            self.a.clone(),
            Pose::new(Vec3::new(-0.6, 0.003, -0.002), rotation([0.3, 0.7, 0.2])),
            Vec3::new(60.0, 0.0, 0.0),
            self.spin,
        );
        let rot = rotation([0.8, 0.1, 0.55]);
        let m = Material::default();
        let b = match self.other {
            Other::Static => Body::new(BodyKind::Static, self.b.clone(), Pose::new(Vec3::ZERO, rot), m),
            Other::Kinematic => Body::new(BodyKind::Kinematic, self.b.clone(), Pose::new(Vec3::ZERO, rot), m)
                .with_velocity(Vec3::new(-30.0, 0.0, 0.0), Vec3::ZERO),
            Other::Crossing => {
                // Starts 0.6 m off the line: both reach the origin at 0.6 of the step.
                bullet(self.b.clone(), Pose::new(Vec3::new(0.0, -0.6, 0.0), rot), Vec3::new(0.0, 60.0, 0.0), Vec3::ZERO)
            }
        };
        (a, b)
    }

    fn world(&self, ccd: CcdMode, dt_scale: Real) -> (World, usize, usize) {
        let mut s = settings(ccd, false);
        s.dt /= dt_scale;
        if ccd == CcdMode::Off {
            // No contact reaction before the shapes touch.
            s.speculative_distance = 0.0;
        }
        let (a, b) = self.bodies();
        if self.swap { (world(s, [b, a]), 1, 0) } else { (world(s, [a, b]), 0, 1) }
    }

    fn describe(&self) -> String {
        format!("{:?} vs {:?} ({:?}, swapped {}, spin {})", self.a, self.b, self.other, self.swap, self.spin)
    }
}

/// The sub-stepped run up to its first impact: the gap after every reference step (index 0 at
/// the start), the time (s) at which the gap closes, and both bodies' poses at the first
/// reference step that ends touching.
struct Reference {
    gaps: Vec<Real>,
    fine_dt: Real,
    t_touch: Real,
    pa: Pose,
    pb: Pose,
}

impl Reference {
    /// The gap at time `t` (s), interpolated between reference steps.
    fn gap_at(&self, t: Real) -> Real {
        let x = (t / self.fine_dt).clamp(0.0, (self.gaps.len() - 1) as Real);
        let k = (x.floor() as usize).min(self.gaps.len() - 2);
        let f = x - k as Real;
        self.gaps[k] * (1.0 - f) + self.gaps[k + 1] * f
    }
}

fn reference(case: &Case, dt: Real) -> Option<Reference> {
    let (mut w, ia, ib) = case.world(CcdMode::Off, FINE as Real);
    let gap = |w: &World| {
        let (a, b) = (&w.bodies()[ia], &w.bodies()[ib]);
        distance(&a.shape, &a.pose, &b.shape, &b.pose).distance
    };
    let fine_dt = dt / FINE as Real;
    let mut gaps = vec![gap(&w)];
    for k in 1..=FINE {
        w.step();
        let now = gap(&w);
        let before = *gaps.last().unwrap();
        gaps.push(now);
        if now <= 0.0 {
            let t_touch = (k as Real - 1.0 + before / (before - now)) * fine_dt;
            let (pa, pb) = (w.bodies()[ia].pose, w.bodies()[ib].pose);
            return Some(Reference { gaps, fine_dt, t_touch, pa, pb });
        }
    }
    None
}

fn check(case: &Case) {
    let what = case.describe();
    let (mut w, ia, ib) = case.world(CcdMode::Toi, 1.0);
    let dt = w.settings.dt;
    let target = toi_target(&w.settings);
    let r = reference(case, dt).unwrap_or_else(|| panic!("{what}: the reference never touches"));
    let (t, point) = if matches!(case.other, Other::Kinematic) {
        // A kinematic body's contacts reach along its path (the solver pushes with them), so
        // the world resolves this pair before the pass: time the sweeps directly.
        let (a, b) = (&w.bodies()[ia], &w.bodies()[ib]);
        let sweep = |b: &Body| Motion::turning(b.pose, b.pose.translation + b.linvel * dt, b.angvel * dt);
        let h = time_of_impact(&a.shape, &sweep(a), &b.shape, &sweep(b), target)
            .unwrap_or_else(|| panic!("{what}: no impact; reference touches at {}", r.t_touch));
        (h.t * dt, h.point)
    } else {
        w.step();
        let e = *w
            .toi_events()
            .iter()
            .find(|e| {
                (e.body as usize, e.other as usize) == (ia, ib) || (e.body as usize, e.other as usize) == (ib, ia)
            })
            .unwrap_or_else(|| panic!("{what}: no impact; reference touches at {}", r.t_touch));
        (e.t * dt, e.point)
    };
    assert!(t <= r.t_touch, "{what}: impact at {t}, after the true first touch at {}", r.t_touch);
    // The search stops once the gap is within target..1.25 target: the reference's gap at the
    // reported time says whether it did (interpolation between reference steps of at most a
    // few millimetres adds a little where the gap's rate changes).
    let g = r.gap_at(t);
    assert!(
        g >= 0.9 * target && g <= 1.25 * target + 2e-4,
        "{what}: at the impact time {t} the reference's gap is {g}, target {target} (touch at {})",
        r.t_touch
    );
    // The point lies on both surfaces where they first touch (within the motion in one
    // reference step and the gap).
    let (a, b) = (&w.bodies()[ia].shape, &w.bodies()[ib].shape);
    let on = |s: &Shape, p: &Pose| distance(&Shape::sphere(0.0), &Pose::from_translation(point), s, p).distance;
    let reach = 0.25 * 90.0 * r.fine_dt + 4.0 * target + 1e-3;
    let (da, db) = (on(a, &r.pa), on(b, &r.pb));
    assert!(da.abs() < reach && db.abs() < reach, "{what}: point {point} is {da} from A and {db} from B");
}

fn sizes(kind: &str) -> Shape {
    shape(kind, 0.08, 0.5)
}

#[test]
fn toi_matches_the_substepped_run_against_static_bodies() {
    for ka in KINDS {
        for kb in KINDS {
            for swap in [false, true] {
                check(&Case { a: sizes(ka), b: sizes(kb), other: Other::Static, swap, spin: Vec3::ZERO });
            }
        }
    }
}

#[test]
fn toi_matches_the_substepped_run_while_spinning() {
    for ka in KINDS {
        for kb in KINDS {
            let spin = Vec3::new(3.0, -20.0, 8.0);
            check(&Case { a: sizes(ka), b: sizes(kb), other: Other::Static, swap: false, spin });
        }
    }
}

#[test]
fn toi_matches_the_substepped_run_against_moving_bodies() {
    for ka in KINDS {
        for kb in KINDS {
            for other in [Other::Kinematic, Other::Crossing] {
                for swap in [false, true] {
                    check(&Case { a: sizes(ka), b: sizes(kb), other, swap, spin: Vec3::ZERO });
                }
            }
        }
    }
}
