//! One joint's history, step by step: the force and torque it applies, its linear and angular
//! error, its coordinate and its motor's effort, as the Inspector plots them.

use super::trace::Samples;
use crate::world::World;

/// The series a joint trace keeps, with their units.
pub const JOINT_SERIES: [&str; 6] =
    ["force (N)", "torque (N·m)", "linear error (m)", "angular error (°)", "coordinate (° or m)", "motor (N·m or N)"];

/// The followed joint's values after each step, newest last, at most `capacity` of them.
#[derive(Clone, Debug)]
pub struct JointTrace {
    joint: Option<usize>,
    samples: Samples<6>,
}

impl JointTrace {
    /// An empty trace keeping at most `capacity` steps.
    pub fn new(capacity: usize) -> Self {
        JointTrace { joint: None, samples: Samples::new(capacity) }
    }

    /// Follows joint `k` from now on; following another joint starts a new trace.
    pub fn follow(&mut self, joint: Option<usize>) {
        if joint != self.joint {
            self.joint = joint;
            self.clear();
        }
    }

    /// The joint followed, if any.
    pub fn joint(&self) -> Option<usize> {
        self.joint
    }

    /// Forgets what was recorded; the joint stays followed.
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Records the followed joint's state after the step just taken.
    pub fn observe(&mut self, world: &World) {
        let Some(k) = self.joint.filter(|&k| k < world.joints().len()) else { return };
        if self.samples.breaks_at(world.step_count()) {
            self.clear();
        }
        let r = world.joint_report(k);
        let coordinate = match world.joints()[k].kind {
            crate::dynamics::joints::JointKind::Hinge { .. } | crate::dynamics::joints::JointKind::Ball { .. } => {
                r.coordinate.to_degrees()
            }
            _ => r.coordinate,
        };
        let values = [r.force, r.torque, r.linear_error, r.angular_error.to_degrees(), coordinate, r.motor];
        self.samples.push(world.step_count(), values);
    }

    /// `(step, value)` of series `k` of [`JOINT_SERIES`], oldest first.
    pub fn series(&self, k: usize) -> impl Iterator<Item = [f64; 2]> + '_ {
        self.samples.series(k)
    }

    /// Samples kept.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no sample is kept.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    #[test]
    fn a_swinging_pendulums_trace_shows_its_rope_pulling_and_its_angle() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/pendulum.ron")).unwrap();
        let mut w = scene.build().unwrap();
        let mut t = JointTrace::new(50);
        t.follow(Some(0));
        for _ in 0..80 {
            w.step();
            t.observe(&w);
        }
        assert_eq!(t.len(), 50, "capped at its capacity");
        assert_eq!(t.series(0).next().unwrap()[0], 31.0, "oldest kept step");
        let bob = &w.bodies()[1];
        let least = t.series(0).map(|p| p[1]).fold(f64::INFINITY, f64::min);
        assert!(
            least > 0.5 * (bob.mass() * 9.81) as f64,
            "the string carries at least half the bob's weight: {least} N"
        );
        assert!(t.series(2).all(|p| p[1] < 0.01), "the string stretches under a centimetre");
        t.follow(Some(2));
        t.observe(&w);
        assert!(t.is_empty(), "no joint 2: nothing recorded");
    }
}
