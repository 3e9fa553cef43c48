//! One body's history, step by step: what a jitter hunter plots (height, speed, kinetic energy,
//! contact points, penetration) and how often its contacts switched on and off.

use crate::world::World;
use std::collections::VecDeque;

/// The series a trace keeps, with their units.
pub const TRACE_SERIES: [&str; 5] =
    ["height (m)", "speed (m/s)", "kinetic energy (J)", "contact points", "penetration (m)"];

/// Values after consecutive steps, newest last, at most `capacity` of them: what a trace keeps.
#[derive(Clone, Debug)]
pub(super) struct Samples<const N: usize> {
    capacity: usize,
    samples: VecDeque<(u64, [f32; N])>,
}

impl<const N: usize> Samples<N> {
    pub(super) fn new(capacity: usize) -> Self {
        Samples { capacity: capacity.max(1), samples: VecDeque::new() }
    }

    pub(super) fn clear(&mut self) {
        self.samples.clear();
    }

    /// Whether a sample of `step` would not follow the newest one: a seek, fork or loaded
    /// recording put the world at another step, and the trace should start over.
    pub(super) fn breaks_at(&self, step: u64) -> bool {
        self.samples.back().is_some_and(|(s, _)| *s + 1 != step)
    }

    /// Keeps `values` of `step`, dropping the oldest sample when full.
    pub(super) fn push(&mut self, step: u64, values: [f32; N]) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back((step, values));
    }

    /// `(step, value)` of series `k`, oldest first.
    pub(super) fn series(&self, k: usize) -> impl Iterator<Item = [f64; 2]> + '_ {
        self.samples.iter().map(move |(s, v)| [*s as f64, v[k] as f64])
    }

    pub(super) fn len(&self) -> usize {
        self.samples.len()
    }

    pub(super) fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

/// The followed body's values after each step, newest last, at most `capacity` of them.
#[derive(Clone, Debug)]
pub struct BodyTrace {
    body: Option<usize>,
    samples: Samples<5>,
    /// The bodies it touched after the last step, sorted.
    partners: Vec<u32>,
    /// Contacts that started or ended since the trace began.
    changes: u32,
}

impl BodyTrace {
    /// An empty trace keeping at most `capacity` steps.
    pub fn new(capacity: usize) -> Self {
        BodyTrace { body: None, samples: Samples::new(capacity), partners: Vec::new(), changes: 0 }
    }

    /// Follows `body` from now on; following another body starts a new trace.
    pub fn follow(&mut self, body: Option<usize>) {
        if body != self.body {
            self.body = body;
            self.clear();
        }
    }

    /// The body followed, if any.
    pub fn body(&self) -> Option<usize> {
        self.body
    }

    /// Forgets what was recorded; the body stays followed.
    pub fn clear(&mut self) {
        self.samples.clear();
        self.partners.clear();
        self.changes = 0;
    }

    /// Records the followed body's state after the step just taken.
    pub fn observe(&mut self, world: &World) {
        let Some(i) = self.body.filter(|&i| i < world.bodies().len()) else { return };
        if self.samples.breaks_at(world.step_count()) {
            self.clear();
        }
        let b = &world.bodies()[i];
        let (mut points, mut depth, mut partners) = (0u32, 0f32, Vec::new());
        for c in world.contacts().iter().filter(|c| c.a as usize == i || c.b as usize == i) {
            let touching = c.manifold.points().iter().filter(|p| p.depth >= 0.0).count() as u32;
            points += touching;
            depth = depth.max(c.manifold.max_depth());
            if touching > 0 {
                partners.push(if c.a as usize == i { c.b } else { c.a });
            }
        }
        partners.sort_unstable();
        if !self.samples.is_empty() {
            let (old, new) = (&self.partners, &partners);
            self.changes += old.iter().filter(|p| new.binary_search(p).is_err()).count() as u32
                + new.iter().filter(|p| old.binary_search(p).is_err()).count() as u32;
        }
        self.partners = partners;
        let values = [b.pose.translation.y, b.linvel.length(), b.kinetic_energy(), points as f32, depth.max(0.0)];
        self.samples.push(world.step_count(), values);
    }

    /// `(step, value)` of series `k` of [`TRACE_SERIES`], oldest first.
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

    /// Contacts of the body that started or ended since the trace began (a resting body that
    /// flickers counts up fast), over all its steps, not only those kept.
    pub fn contact_changes(&self) -> u32 {
        self.changes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    #[test]
    fn a_dropped_box_lands_and_its_trace_shows_it() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut w = scene.build().unwrap();
        // Awake, so its contacts are found every step.
        w.set_settings(crate::world::Settings { sleeping: false, ..w.settings.clone() });
        let mut t = BodyTrace::new(100);
        t.follow(Some(2));
        for _ in 0..150 {
            w.step();
            t.observe(&w);
        }
        assert_eq!(t.len(), 100, "capped at its capacity");
        let first = t.series(0).next().unwrap();
        assert_eq!(first[0], 51.0, "oldest kept step");
        let most = t.series(3).map(|p| p[1]).fold(0.0, f64::max);
        assert!(most >= 4.0, "resting on a face: at least four points, got {most}");
        assert!(t.contact_changes() <= 4, "{} changes for a resting box", t.contact_changes());
        t.follow(Some(3));
        assert!(t.is_empty());
    }
}
