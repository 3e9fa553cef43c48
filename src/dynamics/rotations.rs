//! Per-body rotation matrices for one step, built once for the bodies something reads them
//! for (the narrow phase's box–box pairs, the solver's world inertia) and for no other.

use super::Body;
use crate::parallel::{Bodies, Crew};
use glam::Mat3A;

#[derive(Clone, Debug, Default)]
/// Per-body rotation matrices built once a step for the pair tests and the solver to share.
pub struct Rotations {
    /// Per body: `Mat3A::from_quat(pose.rotation)` if built this step, else a stale value.
    mats: Vec<Mat3A>,
}

impl Rotations {
    /// Builds this step's matrix of every body `read` selects. The others are stale: reading
    /// one is a bug, caught in debug builds.
    /// Blocks of bodies are shared among `crew`'s threads.
    pub fn build(&mut self, bodies: &[Body], read: impl Fn(&Body) -> bool + Sync, crew: Option<&Crew>) {
        self.build_among(bodies, Bodies::All(bodies.len()), read, crew);
    }

    /// [`Rotations::build`] among the bodies `which` names: those of them `read` selects.
    pub fn build_among(
        &mut self,
        bodies: &[Body],
        which: Bodies<'_>,
        read: impl Fn(&Body) -> bool + Sync,
        crew: Option<&Crew>,
    ) {
        self.mats.resize(bodies.len(), Mat3A::IDENTITY);
        if let Bodies::Listed(list) = which {
            for &i in list.iter().filter(|&&i| read(&bodies[i as usize])) {
                self.mats[i as usize] = Mat3A::from_quat(bodies[i as usize].pose.rotation);
            }
            return;
        }
        crate::parallel::fill(crew, &mut self.mats[..], crate::parallel::BODY_BLOCK, |r, out| {
            for (m, b) in out.iter_mut().zip(&bodies[r]).filter(|(_, b)| read(b)) {
                *m = Mat3A::from_quat(b.pose.rotation);
            }
        });
    }

    /// Body `i`'s matrix, built this step (it has not moved since).
    #[inline]
    pub fn get(&self, i: usize, body: &Body) -> &Mat3A {
        debug_assert!(self.mats[i] == Mat3A::from_quat(body.pose.rotation), "body {i}'s matrix was not built");
        &self.mats[i]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyKind, Material};
    use crate::geometry::Shape;
    use crate::math::{Pose, Quat, Vec3};

    #[test]
    fn builds_what_is_selected_and_leaves_the_rest() {
        let body = |angle: f32| {
            let pose = Pose::new(Vec3::ZERO, Quat::from_rotation_y(angle));
            Body::new(BodyKind::Dynamic, Shape::sphere(1.0), pose, Material::default())
        };
        let bodies = [body(0.3), body(1.1), body(2.0)];
        let mut r = Rotations::default();
        r.build(&bodies, |b| b.pose.rotation != bodies[1].pose.rotation, None);
        assert_eq!(r.mats[0], Mat3A::from_quat(bodies[0].pose.rotation));
        assert_eq!(r.mats[1], Mat3A::IDENTITY, "not selected: not built");
        assert_eq!(*r.get(2, &bodies[2]), Mat3A::from_quat(bodies[2].pose.rotation));
    }
}
