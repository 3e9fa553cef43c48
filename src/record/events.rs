//! Per-step events worth a marker on a timeline: what a bug hunter scrubs to.

use crate::math::{Real, Vec3};
use crate::sweep::{BumpKind, BumpProbe};
use crate::world::World;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
/// What kind of thing happened in a step.
pub enum EventKind {
    /// Continuous collision stopped a fast body at its time of impact.
    Toi,
    /// A body fell asleep.
    FellAsleep,
    /// Two bodies started touching.
    NewContact,
    /// A contact turned on and off repeatedly within a few steps: jitter.
    ContactFlicker,
    /// Penetration far beyond the slop: a tunneling or solver suspect.
    DeepPenetration,
    /// A body moved farther in one step than its own size: a tunneling suspect.
    LargeJump,
    /// Total mechanical energy rose with no user action: an instability.
    EnergySpike,
    /// A body's state became non-finite (NaN or infinite) and the step froze it.
    NonFinite,
    /// A body touching a triangle mesh or height field was kicked up, or its contact normal
    /// jumped: a ghost collision on an internal edge ([`crate::sweep::BumpProbe`]).
    GhostBump,
}

impl EventKind {
    /// Every kind, in the order the timeline lists them.
    pub const ALL: [EventKind; 9] = [
        EventKind::Toi,
        EventKind::FellAsleep,
        EventKind::NewContact,
        EventKind::ContactFlicker,
        EventKind::DeepPenetration,
        EventKind::LargeJump,
        EventKind::EnergySpike,
        EventKind::NonFinite,
        EventKind::GhostBump,
    ];

    /// The kind's name on the timeline.
    pub fn label(self) -> &'static str {
        match self {
            EventKind::Toi => "time of impact",
            EventKind::FellAsleep => "fell asleep",
            EventKind::NewContact => "new contact",
            EventKind::ContactFlicker => "flickering contact",
            EventKind::DeepPenetration => "deep penetration",
            EventKind::LargeJump => "large jump",
            EventKind::EnergySpike => "energy spike",
            EventKind::NonFinite => "non-finite state",
            EventKind::GhostBump => "ghost bump",
        }
    }
}

/// Something that happened in the step that ended at `step`, and the bodies involved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Event {
    /// The step that ended with it.
    pub step: u64,
    /// What happened.
    pub kind: EventKind,
    /// The bodies involved.
    pub bodies: Vec<u32>,
    /// A line for the timeline's tooltip.
    pub detail: String,
}

/// How a contact pair has been toggling.
#[derive(Clone, Copy, Default)]
struct PairHistory {
    touching: bool,
    /// Steps at which it last changed, newest first.
    changes: [u64; 4],
    count: u8,
}

/// Watches a world step by step and reports [`Event`]s. Feed it every step, in order.
#[derive(Default)]
pub struct EventDetector {
    pairs: BTreeMap<(u32, u32), PairHistory>,
    positions: Vec<Vec3>,
    asleep: Vec<bool>,
    energy: Option<Real>,
    /// The bump probe, from the first step that sees a mesh or height field.
    bumps: Option<BumpProbe>,
    /// Steps within which three on/off changes count as flicker.
    pub flicker_window: u64,
}

impl EventDetector {
    /// A detector with no history.
    pub fn new() -> Self {
        EventDetector { flicker_window: 12, ..Default::default() }
    }

    /// Total kinetic plus gravitational potential energy.
    pub fn mechanical_energy(world: &World) -> Real {
        let g = world.settings.gravity;
        world.bodies().iter().map(|b| b.kinetic_energy() - b.mass() * g.dot(b.pose.translation)).sum()
    }

    /// Events of the step just taken. `user_acted` suppresses the energy check for this step.
    pub fn observe(&mut self, world: &World, user_acted: bool) -> Vec<Event> {
        let step = world.step_count();
        let mut events = Vec::new();
        let mut ev = |kind, bodies: Vec<u32>, detail: String| events.push(Event { step, kind, bodies, detail });
        let p = world.profile();
        if p.toi_events > 0 {
            ev(EventKind::Toi, Vec::new(), format!("{} time-of-impact events", p.toi_events));
        }
        for f in world.faults() {
            ev(EventKind::NonFinite, vec![f.body], f.to_string());
        }
        let bodies = world.bodies();
        for (i, b) in bodies.iter().enumerate() {
            let was = self.asleep.get(i).copied().unwrap_or(false);
            if b.is_asleep() && !was {
                ev(EventKind::FellAsleep, vec![i as u32], format!("body {i} fell asleep"));
            }
            if let Some(prev) = self.positions.get(i) {
                let moved = prev.distance(b.pose.translation);
                let size = b.shape.bounding_radius();
                if b.is_dynamic() && moved > size.max(1e-3) {
                    ev(
                        EventKind::LargeJump,
                        vec![i as u32],
                        format!("body {i} moved {moved:.3} m in one step (size {size:.3} m)"),
                    );
                }
            }
        }
        let slop = world.settings.slop;
        let mut touching_now: Vec<(u32, u32)> = Vec::new();
        for c in world.contacts() {
            let depth = c.manifold.max_depth();
            if depth >= 0.0 {
                touching_now.push((c.a, c.b));
            }
            let r = bodies[c.a as usize].shape.bounding_radius().min(bodies[c.b as usize].shape.bounding_radius());
            if depth > (20.0 * slop).max(0.25 * r) {
                ev(
                    EventKind::DeepPenetration,
                    vec![c.a, c.b],
                    format!("bodies {} and {} overlap by {depth:.4} m", c.a, c.b),
                );
            }
        }
        // Contacts arrive sorted, so a merge against the sorted history finds every change.
        let mut changed: Vec<((u32, u32), bool)> = Vec::new();
        for pair in &touching_now {
            if !self.pairs.get(pair).is_some_and(|h| h.touching) {
                changed.push((*pair, true));
            }
        }
        for (pair, h) in &self.pairs {
            if h.touching && touching_now.binary_search(pair).is_err() {
                changed.push((*pair, false));
            }
        }
        for (pair, on) in changed {
            let h = self.pairs.entry(pair).or_default();
            let first_time = h.count == 0 && on;
            h.touching = on;
            h.changes.rotate_right(1);
            h.changes[0] = step;
            h.count = h.count.saturating_add(1);
            if first_time {
                ev(EventKind::NewContact, vec![pair.0, pair.1], format!("bodies {} and {} touch", pair.0, pair.1));
            } else if h.count >= 4 && step - h.changes[3] <= self.flicker_window {
                ev(
                    EventKind::ContactFlicker,
                    vec![pair.0, pair.1],
                    format!("contact {}–{} switched 4 times in {} steps", pair.0, pair.1, step - h.changes[3]),
                );
            }
        }
        if self.bumps.is_none() && bodies.iter().any(|b| b.shape.is_mesh()) {
            self.bumps = Some(BumpProbe::new(world));
        }
        for bump in self.bumps.as_mut().map(|p| p.observe(world)).unwrap_or_default() {
            let detail = match bump.kind {
                BumpKind::Spike => {
                    format!("body {} kicked up {:.2} m/s on a mesh in one step", bump.body, bump.amount)
                }
                BumpKind::Flip => {
                    format!("the normal of body {}'s mesh contact turned {:.0}°", bump.body, bump.amount)
                }
            };
            ev(EventKind::GhostBump, vec![bump.body], detail);
        }
        // Forget pairs long apart, so the map does not grow without bound.
        self.pairs.retain(|_, h| h.touching || step - h.changes[0] < 4 * self.flicker_window);

        let energy = Self::mechanical_energy(world);
        if let Some(prev) = self.energy
            && !user_acted
            && energy > prev + 0.05 * prev.abs() + 1e-3
        {
            ev(EventKind::EnergySpike, Vec::new(), format!("energy rose from {prev:.3} J to {energy:.3} J"));
        }
        self.energy = Some(energy);
        self.positions = bodies.iter().map(|b| b.pose.translation).collect();
        self.asleep = bodies.iter().map(|b| b.is_asleep()).collect();
        events
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::Scene;

    #[test]
    fn a_falling_stack_reports_contacts_and_sleep_in_order() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut w = scene.build().unwrap();
        let mut d = EventDetector::new();
        let mut all = Vec::new();
        for _ in 0..240 {
            w.step();
            all.extend(d.observe(&w, false));
        }
        assert!(all.iter().any(|e| e.kind == EventKind::NewContact && e.bodies == vec![0, 2]), "floor–bottom box");
        assert!(all.iter().any(|e| e.kind == EventKind::FellAsleep));
        assert!(!all.iter().any(|e| e.kind == EventKind::EnergySpike), "{all:?}");
        assert!(all.windows(2).all(|w| w[0].step <= w[1].step));
    }

    #[test]
    fn a_teleport_is_a_large_jump_and_an_energy_spike() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
        let mut w = scene.build().unwrap();
        let mut d = EventDetector::new();
        w.step();
        d.observe(&w, false);
        w.body_mut(1).pose.translation.y += 50.0;
        w.step();
        let ev = d.observe(&w, false);
        assert!(ev.iter().any(|e| e.kind == EventKind::LargeJump && e.bodies == vec![1]), "{ev:?}");
        assert!(ev.iter().any(|e| e.kind == EventKind::EnergySpike), "{ev:?}");
    }
}
