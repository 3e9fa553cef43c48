//! World A of an A/B comparison, stepped in lockstep with the app's world (B): per-body
//! divergence, the first step whose state hashes differ, and both step profiles.

use crate::math::Real;
use crate::record::Recording;
use crate::world::{StepProfile, World};
use std::collections::VecDeque;
use std::sync::Arc;

/// Profiles kept for the comparison plot.
const PROFILE_HISTORY: usize = 600;

/// The other side of an A/B comparison.
pub struct Partner {
    /// World A.
    pub world: World,
    /// A replays this recording's actions (a fork's original); without one A just steps.
    script: Option<Arc<Recording>>,
    /// The step both worlds started from.
    pub start: u64,
    /// The first step after which A and B hashed differently.
    pub first_divergent: Option<u64>,
    /// For each body of B: how far it is from the same body in A, m (`None`: not in A).
    pub divergence: Vec<Option<Real>>,
    /// Step profiles of A and B, oldest first.
    pub profiles: VecDeque<(u64, StepProfile, StepProfile)>,
    /// Set when A and B stopped being at the same step (B was reset or replaced).
    pub out_of_step: bool,
}

impl Partner {
    /// A copy of `b` to compare against it; B's later setting changes make the difference.
    pub fn copy_of(b: &World) -> Partner {
        Partner::new(b.clone(), None, b)
    }

    /// A continues `original` from `a` (its world at `a.step_count()`), replaying its actions.
    pub fn replaying(a: World, original: Arc<Recording>, b: &World) -> Partner {
        Partner::new(a, Some(original), b)
    }

    fn new(world: World, script: Option<Arc<Recording>>, b: &World) -> Partner {
        let mut p = Partner {
            start: world.step_count(),
            world,
            script,
            first_divergent: None,
            divergence: Vec::new(),
            profiles: VecDeque::new(),
            out_of_step: false,
        };
        p.measure(b);
        p
    }

    /// Steps A once, after B has stepped, and compares them.
    pub fn step_after(&mut self, b: &World) {
        let s = self.world.step_count();
        if self.out_of_step || b.step_count() != s + 1 {
            self.out_of_step = true;
            return;
        }
        if let Some(rec) = &self.script {
            let acts = &rec.actions;
            let from = acts.partition_point(|a| a.step < s);
            for a in acts[from..].iter().take_while(|a| a.step == s) {
                // An action that fails here failed when recorded too; the recording checked it.
                let _ = self.world.apply(&a.action);
            }
        }
        self.world.step();
        if self.first_divergent.is_none() && self.world.hash() != b.hash() {
            self.first_divergent = Some(self.world.step_count());
        }
        if self.profiles.len() == PROFILE_HISTORY {
            self.profiles.pop_front();
        }
        self.profiles.push_back((b.step_count(), *self.world.profile(), *b.profile()));
        self.measure(b);
    }

    /// Recomputes the per-body distances between A and B.
    pub fn measure(&mut self, b: &World) {
        let a = self.world.bodies();
        self.divergence.clear();
        self.divergence.extend(
            b.bodies()
                .iter()
                .enumerate()
                .map(|(i, bb)| a.get(i).map(|ab| ab.pose.translation.distance(bb.pose.translation))),
        );
    }

    /// Steps run since the comparison began.
    pub fn steps(&self) -> u64 {
        self.world.step_count() - self.start
    }

    /// The body that moved apart the most, and by how much.
    pub fn max_divergence(&self) -> Option<(usize, Real)> {
        self.divergence.iter().enumerate().filter_map(|(i, d)| d.map(|d| (i, d))).max_by(|x, y| x.1.total_cmp(&y.1))
    }

    /// Mean distance over the bodies both worlds have.
    pub fn mean_divergence(&self) -> Real {
        let (sum, n) = self.divergence.iter().flatten().fold((0.0, 0), |(s, n), d| (s + d, n + 1));
        if n == 0 { 0.0 } else { sum / n as Real }
    }
}
