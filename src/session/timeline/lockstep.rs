//! The partner world of an A/B comparison, stepped in lockstep with the app's world: per-body
//! divergence, the first step whose state hashes differ, and both step profiles. The partner
//! is Collidoscope's world A, or (feature `rapier`) a peer engine on the B side: rapier3d, or
//! (feature `jolt`) Jolt Physics.

use crate::math::Real;
use crate::record::Recording;
use crate::world::{Settings, StepProfile, World};
use std::collections::VecDeque;
use std::sync::Arc;

/// Profiles kept for the comparison plot.
const PROFILE_HISTORY: usize = 600;
/// Most steps Back can undo in an A/B.
const BACK_STEPS: usize = 600;
/// Bodies (summed over the kept steps of both worlds) Back may hold copies of: a large scene
/// keeps fewer steps.
const BACK_BODY_BUDGET: usize = 400_000;

/// The other side of an A/B comparison.
pub struct Partner {
    /// World A (with a peer engine, its state before the comparison; read [`Partner::other`]).
    pub world: World,
    /// A peer engine stepping the scene instead of `world`.
    #[cfg(feature = "rapier")]
    peer: Option<Box<crate::peer::PeerWorld>>,
    /// The step the partner is at.
    at: u64,
    /// A replays this recording's actions (a fork's original); without one A just steps.
    script: Option<Arc<Recording>>,
    /// The step both worlds started from.
    pub start: u64,
    /// The first step after which A and B hashed differently.
    pub first_divergent: Option<u64>,
    /// For each body of B: how far it is from the same body in A, m (`None`: not in A, or static:
    /// a floor never moves, and would only dilute the mean).
    pub divergence: Vec<Option<Real>>,
    /// Step profiles of A and B, oldest first.
    pub profiles: VecDeque<(u64, StepProfile, StepProfile)>,
    /// Set when A and B stopped being at the same step (B was reset or replaced).
    pub out_of_step: bool,
    /// Both worlds as the comparison began (A, B): Reset puts them back.
    start_worlds: Box<(World, World)>,
    /// Both worlds before each of the last lockstep steps (A, B), newest last: Back takes one.
    back: VecDeque<(World, World)>,
}

impl Partner {
    /// A copy of `b` to compare against it; B's later setting changes make the difference.
    pub fn copy_of(b: &World) -> Partner {
        Partner::new(b.clone(), None, b)
    }

    /// A is `a`, stepped beside `b` (B); B's later setting changes make any further difference.
    pub fn beside(a: World, b: &World) -> Partner {
        Partner::new(a, None, b)
    }

    /// A continues `original` from `a` (its world at `a.step_count()`), replaying its actions.
    pub fn replaying(a: World, original: Arc<Recording>, b: &World) -> Partner {
        Partner::new(a, Some(original), b)
    }

    fn new(world: World, script: Option<Arc<Recording>>, b: &World) -> Partner {
        let start_worlds = Box::new((world.clone(), b.clone()));
        let mut p = Partner {
            start: world.step_count(),
            at: world.step_count(),
            world,
            #[cfg(feature = "rapier")]
            peer: None,
            script,
            first_divergent: None,
            divergence: Vec::new(),
            profiles: VecDeque::new(),
            out_of_step: false,
            start_worlds,
            back: VecDeque::new(),
        };
        p.measure(b);
        p
    }

    /// World B as the comparison began.
    pub fn start_b(&self) -> &World {
        &self.start_worlds.1
    }

    /// The same comparison started over: both worlds back at its start, A with the settings it
    /// has now (and a peer engine rebuilt from B's start). Returns the partner and B's start.
    pub fn restarted(&self) -> (Partner, World) {
        let (a, b) = (&self.start_worlds.0, &self.start_worlds.1);
        let settings = self.other().settings.clone();
        #[cfg(feature = "rapier")]
        if let Some(peer) = &self.peer {
            // The engine took this scene when the comparison began, so it takes it again.
            if let Ok(mut p) = Partner::peer_of(peer.engine(), b) {
                p.set_settings(settings);
                return (p, b.clone());
            }
        }
        let mut a = a.clone();
        a.set_settings(settings);
        let mut p = Partner::new(a, self.script.clone(), b);
        p.start_worlds = self.start_worlds.clone();
        (p, b.clone())
    }

    /// Takes both worlds one lockstep step back: A is put back here, B's world is returned.
    /// `None` when no earlier step is kept (or A is a peer engine, which cannot be copied).
    pub fn step_back(&mut self) -> Option<World> {
        let (a, b) = self.back.pop_back()?;
        self.world = a;
        self.at -= 1;
        self.profiles.pop_back();
        if self.first_divergent.is_some_and(|s| s > self.at) {
            self.first_divergent = None;
        }
        self.measure(&b);
        Some(b)
    }

    /// Steps Back can still undo.
    pub fn back_steps(&self) -> usize {
        self.back.len()
    }

    /// `engine` (rapier3d or Jolt) from the state of `b`, stepped beside it; it is shown on the
    /// B side. On error (the engine refused a shape, named) there is no partner.
    #[cfg(feature = "rapier")]
    pub fn peer_of(engine: crate::engine::Engine, b: &World) -> Result<Partner, crate::peer::PeerError> {
        let peer = crate::peer::PeerWorld::new(engine, b)?;
        let mut p = Partner::new(b.clone(), None, b);
        p.peer = Some(Box::new(peer));
        p.measure(b);
        Ok(p)
    }

    /// Whether the partner is a peer engine, rapier3d or Jolt (shown on the B side, the app's
    /// world on A).
    pub fn is_peer(&self) -> bool {
        #[cfg(feature = "rapier")]
        return self.peer.is_some();
        #[cfg(not(feature = "rapier"))]
        false
    }

    /// The engine that steps the partner, as shown to people.
    pub fn engine_label(&self) -> &'static str {
        #[cfg(feature = "rapier")]
        if let Some(peer) = &self.peer {
            return peer.engine().label();
        }
        "Collidoscope"
    }

    /// The partner's bodies and settings as they are now, whichever engine steps it.
    pub fn other(&self) -> &World {
        #[cfg(feature = "rapier")]
        if let Some(peer) = &self.peer {
            return peer.world();
        }
        &self.world
    }

    /// Replaces the partner's settings (a peer engine takes those with a counterpart).
    pub fn set_settings(&mut self, s: Settings) {
        #[cfg(feature = "rapier")]
        if let Some(peer) = &mut self.peer {
            peer.set_settings(s);
            return;
        }
        self.world.set_settings(s);
    }

    /// Keeps both worlds as they are before a lockstep step, for Back; call just before B steps.
    pub fn keep_for_back(&mut self, b: &World) {
        if self.out_of_step || self.is_peer() || b.step_count() != self.at {
            return;
        }
        // A step that did not happen (playback stopped at a recording's end) keeps no second copy.
        if self.back.back().is_some_and(|(_, kept)| kept.step_count() == b.step_count()) {
            self.back.pop_back();
        }
        let bodies = (self.world.bodies().len() + b.bodies().len()).max(1);
        let keep = (BACK_BODY_BUDGET / bodies).clamp(1, BACK_STEPS);
        while self.back.len() >= keep {
            self.back.pop_front();
        }
        self.back.push_back((self.world.clone(), b.clone()));
    }

    /// Steps A once, after B has stepped, and compares them.
    pub fn step_after(&mut self, b: &World) {
        let s = self.at;
        if self.out_of_step || b.step_count() != s + 1 {
            self.out_of_step = true;
            self.back.clear();
            return;
        }
        #[cfg(feature = "rapier")]
        if let Some(peer) = &mut self.peer {
            peer.step();
            self.compared(b);
            return;
        }
        if let Some(rec) = &self.script {
            let acts = &rec.actions;
            let from = acts.partition_point(|a| a.step < s);
            for a in acts[from..].iter().take_while(|a| a.step == s) {
                // An action that fails here failed when recorded too; the recording checked it.
                let _ = a.action.apply(&mut self.world);
            }
        }
        self.world.step();
        self.compared(b);
    }

    /// After a lockstep step: the hash check, the profiles and the distances.
    fn compared(&mut self, b: &World) {
        self.at += 1;
        let (hash, profile) = (self.other().hash(), *self.profile());
        if self.first_divergent.is_none() && hash != b.hash() {
            self.first_divergent = Some(self.at);
        }
        if self.profiles.len() == PROFILE_HISTORY {
            self.profiles.pop_front();
        }
        self.profiles.push_back((b.step_count(), profile, *b.profile()));
        self.measure(b);
    }

    /// The partner's last step profile.
    fn profile(&self) -> &StepProfile {
        #[cfg(feature = "rapier")]
        if let Some(peer) = &self.peer {
            return peer.profile();
        }
        self.world.profile()
    }

    /// Recomputes the per-body distances between A and B.
    pub fn measure(&mut self, b: &World) {
        #[cfg(feature = "rapier")]
        let a = self.peer.as_ref().map_or(self.world.bodies(), |p| p.world().bodies());
        #[cfg(not(feature = "rapier"))]
        let a = self.world.bodies();
        self.divergence.clear();
        self.divergence.extend(b.bodies().iter().enumerate().map(|(i, bb)| {
            let moves = bb.kind != crate::dynamics::BodyKind::Static;
            a.get(i).filter(|_| moves).map(|ab| ab.pose.translation.distance(bb.pose.translation))
        }));
    }

    /// Steps run since the comparison began.
    pub fn steps(&self) -> u64 {
        self.at - self.start
    }

    /// The body that moved apart the most, and by how much.
    pub fn max_divergence(&self) -> Option<(usize, Real)> {
        self.divergence.iter().enumerate().filter_map(|(i, d)| d.map(|d| (i, d))).max_by(|x, y| x.1.total_cmp(&y.1))
    }

    /// Mean distance over the bodies both worlds have that are not static.
    pub fn mean_divergence(&self) -> Real {
        let (sum, n) = self.divergence.iter().flatten().fold((0.0, 0), |(s, n), d| (s + d, n + 1));
        if n == 0 { 0.0 } else { sum / n as Real }
    }
}
