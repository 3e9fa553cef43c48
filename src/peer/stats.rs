//! Stability figures of one run, the same for either engine: how far bodies moved from where
//! they started, how much they tilted, when everything slept, how fast the fastest body still
//! moves at the end, and the deepest penetration seen.

use crate::dynamics::Body;
use crate::math::{Real, Vec3};

/// What one run did to its dynamic bodies, measured against their poses at the first
/// observation.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Stability {
    /// Largest distance of any dynamic body from its start, m.
    pub max_displacement: Real,
    /// Largest drift across gravity (in the plane perpendicular to it), m.
    pub max_horizontal_drift: Real,
    /// Largest drift along z, out of the x-y plane the generators build pyramids and walls in, m.
    pub max_out_of_plane: Real,
    /// Largest rotation of any dynamic body from its start, degrees.
    pub max_tilt_deg: Real,
    /// Simulated time of the first step after which every dynamic body slept, s.
    pub all_asleep_at: Option<f64>,
    /// Speed of the fastest dynamic body after the last step, m/s.
    pub resting_speed: Real,
    /// Deepest penetration over the run, m.
    pub max_penetration: Real,
}

/// Accumulates [`Stability`] one step at a time.
pub struct StabilityTracker {
    start: Vec<(Vec3, crate::math::Quat)>,
    up: Vec3,
    out: Stability,
}

impl StabilityTracker {
    /// Starts from `bodies` as they are; `gravity` fixes what "horizontal" means.
    pub fn new(bodies: &[Body], gravity: Vec3) -> StabilityTracker {
        let up = if gravity.length_squared() > 0.0 { -gravity.normalize() } else { Vec3::Y };
        StabilityTracker {
            start: bodies.iter().map(|b| (b.pose.translation, b.pose.rotation)).collect(),
            up,
            out: Stability::default(),
        }
    }

    /// Takes in the state after a step at simulated time `time` and that step's deepest
    /// penetration.
    pub fn observe(&mut self, bodies: &[Body], time: f64, penetration: Real) {
        let o = &mut self.out;
        let mut all_asleep = true;
        let mut fastest: Real = 0.0;
        for (b, (p0, q0)) in bodies.iter().zip(&self.start).filter(|(b, _)| b.is_dynamic()) {
            let d = b.pose.translation - *p0;
            o.max_displacement = o.max_displacement.max(d.length());
            o.max_horizontal_drift = o.max_horizontal_drift.max((d - self.up * d.dot(self.up)).length());
            o.max_out_of_plane = o.max_out_of_plane.max(d.z.abs());
            let tilt = (q0.inverse() * b.pose.rotation).normalize().w.abs().min(1.0).acos() * 2.0;
            o.max_tilt_deg = o.max_tilt_deg.max(tilt.to_degrees());
            all_asleep &= b.is_asleep();
            fastest = fastest.max(b.linvel.length());
        }
        if all_asleep && o.all_asleep_at.is_none() {
            o.all_asleep_at = Some(time);
        }
        if !all_asleep {
            o.all_asleep_at = None;
        }
        o.resting_speed = fastest;
        o.max_penetration = o.max_penetration.max(penetration);
    }

    /// The figures gathered so far.
    pub fn finish(&self) -> Stability {
        self.out
    }
}

/// The deepest penetration among a Collidoscope world's current contacts, m (0 if none).
pub fn collidoscope_penetration(world: &crate::world::World) -> Real {
    world.contacts().iter().flat_map(|c| c.manifold.points()).map(|p| p.depth).fold(0.0, Real::max)
}

/// Per-body distance between two runs of the same scene (same body order), over the bodies
/// dynamic in `a`: (max, mean), m.
pub fn divergence(a: &[Body], b: &[Body]) -> (Real, Real) {
    let d: Vec<Real> = a
        .iter()
        .zip(b)
        .filter(|(x, _)| x.is_dynamic())
        .map(|(x, y)| x.pose.translation.distance(y.pose.translation))
        .collect();
    let max = d.iter().copied().fold(0.0, Real::max);
    let mean = if d.is_empty() { 0.0 } else { d.iter().sum::<Real>() / d.len() as Real };
    (max, mean)
}
