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
    /// A contact between two slow bodies turned on and off repeatedly within a few steps (off:
    /// more than the slop apart): jitter.
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
    /// A body in contact stayed in place for two seconds without coming to rest: jitter that
    /// switches no contact off (a stack the solver cannot hold still).
    Restless,
}

impl EventKind {
    /// Every kind, in the order the timeline lists them.
    pub const ALL: [EventKind; 10] = [
        EventKind::Toi,
        EventKind::FellAsleep,
        EventKind::NewContact,
        EventKind::ContactFlicker,
        EventKind::Restless,
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
            EventKind::Restless => "restless body",
        }
    }
}

/// How deep two bodies must overlap for a [`EventKind::DeepPenetration`]: 20 slops, and a
/// quarter of the smaller one's bounding radius.
pub fn deep_bar(slop: Real, a: &crate::dynamics::Body, b: &crate::dynamics::Body) -> Real {
    let r = a.shape.bounding_radius().min(b.shape.bounding_radius());
    (20.0 * slop).max(0.25 * r)
}

/// How much the mechanical energy may rise over `prev` (J) in a step before it is an
/// [`EventKind::EnergySpike`]: 5% of it, and a millijoule.
pub fn energy_bar(prev: Real) -> Real {
    0.05 * prev.abs() + 1e-3
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
    /// How large it was, in the kind's own unit: a deep penetration's depth (m), a large jump's
    /// distance (m), a ghost bump's kick (m/s) or turn (°), an energy spike's rise (J); 0 for
    /// the kinds that have no size.
    #[serde(default)]
    pub size: Real,
}

/// How a contact pair has been toggling.
#[derive(Clone, Copy, Default)]
struct PairHistory {
    touching: bool,
    /// Its last changes, newest first.
    changes: [Switch; 4],
    count: u8,
}

/// A contact switching on or off: the step, and where the two bodies' centres were.
#[derive(Clone, Copy, Default)]
struct Switch {
    step: u64,
    at: [Vec3; 2],
}

/// Both bodies of a flickering contact moved slower than this through its four switches, m/s:
/// it is a resting contact that will not settle. A body landing, rattled by a rain striking it,
/// or rolling over a mesh's bumps at speed, switches its contacts too, and is not jitter.
const FLICKER_SPEED: Real = 0.5;
/// ... and both stayed within this of where they were at the first of the switches, m: a
/// jittering body trembles in place, while a body shoved about in a pile that a rain is landing
/// on (a few centimetres between switches) makes and breaks its contacts for real.
const FLICKER_DRIFT: Real = 0.01;

/// Consecutive one-second windows a body must be restless in ([`Restless`]) to be reported:
/// a body landing or knocked settles within a second, a jittering one does not.
const RESTLESS_WINDOWS: u32 = 2;
/// A restless body's centre stays within this share of its bounding radius over a window.
const RESTLESS_EXTENT: Real = 0.1;
/// ... and is faster than the sleep speed in at least this share of the window's steps.
const RESTLESS_SHARE: Real = 0.25;
/// The speed a restless body exceeds when the sleep speed is set lower than this, m/s.
const RESTLESS_MIN_SPEED: Real = 0.01;

/// The steps of one window of [`EventKind::Restless`] at time step `dt`: one second.
fn restless_window(dt: Real) -> u64 {
    ((1.0 / dt).round() as u64).max(1)
}

/// How many steps before a [`EventKind::Restless`] event a re-run must start to see it again:
/// the partial window it starts in, then the whole windows of the streak.
pub fn restless_lead(dt: Real) -> u64 {
    (RESTLESS_WINDOWS as u64 + 1) * restless_window(dt)
}

/// One body's current window of [`EventKind::Restless`]: whether it has been a dynamic body
/// awake, free of joints and in contact at every step so far, the box its centre stayed in, its
/// steps above the sleep speed and its fastest, and how many windows before this one in a row
/// it was restless in.
#[derive(Clone, Copy, Default)]
struct Restless {
    eligible: bool,
    lo: Vec3,
    hi: Vec3,
    fast: u32,
    top: Real,
    streak: u32,
}

/// Watches a world step by step and reports [`Event`]s. Feed it every step, in order.
#[derive(Default)]
pub struct EventDetector {
    pairs: BTreeMap<(u32, u32), PairHistory>,
    positions: Vec<Vec3>,
    asleep: Vec<bool>,
    /// Per body: the last step it moved at [`FLICKER_SPEED`] or faster.
    fast_at: Vec<u64>,
    energy: Option<Real>,
    /// The bump probe, from the first step that sees a mesh or height field.
    bumps: Option<BumpProbe>,
    /// Steps within which three on/off changes count as flicker.
    pub flicker_window: u64,
    /// Each body's window of [`EventKind::Restless`], and the steps the windows have seen
    /// (a window is one second; a first window begun partway is not judged).
    restless: Vec<Restless>,
    window_steps: u64,
    /// The slop the events are measured against; the world's own when `None`.
    slop: Option<Real>,
}

impl EventDetector {
    /// A detector with no history.
    pub fn new() -> Self {
        EventDetector { flicker_window: 12, ..Default::default() }
    }

    /// A detector that measures against `slop` whatever the world's is: a run with the slop
    /// changed is judged by the bar of the run it is compared with (a deep penetration's bar is
    /// 20 slops, so a larger slop would otherwise remove it by moving the bar).
    pub fn with_slop(slop: Real) -> Self {
        EventDetector { slop: Some(slop), ..Self::new() }
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
        let mut ev = |kind, bodies: Vec<u32>, detail: String, size: Real| {
            events.push(Event { step, kind, bodies, detail, size })
        };
        let p = world.profile();
        if p.toi_events > 0 {
            ev(EventKind::Toi, Vec::new(), format!("{} time-of-impact events", p.toi_events), 0.0);
        }
        for f in world.faults() {
            ev(EventKind::NonFinite, vec![f.body], f.to_string(), 0.0);
        }
        let bodies = world.bodies();
        for (i, b) in bodies.iter().enumerate() {
            let was = self.asleep.get(i).copied().unwrap_or(false);
            if b.is_asleep() && !was {
                ev(EventKind::FellAsleep, vec![i as u32], format!("body {i} fell asleep"), 0.0);
            }
            if let Some(prev) = self.positions.get(i) {
                let moved = prev.distance(b.pose.translation);
                let size = b.shape.bounding_radius();
                if b.is_dynamic() && moved > size.max(1e-3) {
                    ev(
                        EventKind::LargeJump,
                        vec![i as u32],
                        format!("body {i} moved {moved:.3} m in one step (size {size:.3} m)"),
                        moved,
                    );
                }
            }
        }
        self.fast_at.resize(bodies.len(), 0);
        for (at, b) in self.fast_at.iter_mut().zip(bodies) {
            if b.linvel.length() >= FLICKER_SPEED {
                *at = step;
            }
        }
        let slop = self.slop.unwrap_or(world.settings.slop);
        let mut touching_now: Vec<(u32, u32)> = Vec::new();
        // Pairs touching or within the slop, for the restless bodies' windows.
        let mut near: Vec<(u32, u32)> = Vec::new();
        for c in world.contacts() {
            let depth = c.manifold.max_depth();
            if depth >= -slop {
                near.push((c.a, c.b));
            }
            // A pair touches from depth 0, and stops only when it is more than the slop apart:
            // resting boxes whose depth wavers by a fraction of a millimetre about 0 as a pyramid
            // settles do not flicker.
            let was = self.pairs.get(&(c.a, c.b)).is_some_and(|h| h.touching);
            if depth >= 0.0 || (was && depth >= -slop) {
                touching_now.push((c.a, c.b));
            }
            if depth > deep_bar(slop, &bodies[c.a as usize], &bodies[c.b as usize]) {
                ev(
                    EventKind::DeepPenetration,
                    vec![c.a, c.b],
                    format!("bodies {} and {} overlap by {depth:.4} m", c.a, c.b),
                    depth,
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
            let here = [bodies[pair.0 as usize].pose.translation, bodies[pair.1 as usize].pose.translation];
            h.changes.rotate_right(1);
            h.changes[0] = Switch { step, at: here };
            let first = h.changes[3];
            h.count = h.count.saturating_add(1);
            if first_time {
                ev(EventKind::NewContact, vec![pair.0, pair.1], format!("bodies {} and {} touch", pair.0, pair.1), 0.0);
            } else if h.count >= 4
                && step - first.step <= self.flicker_window
                && [pair.0, pair.1].iter().all(|&k| self.fast_at[k as usize] < first.step)
                && (0..2).all(|k| here[k].distance(first.at[k]) < FLICKER_DRIFT)
            {
                ev(
                    EventKind::ContactFlicker,
                    vec![pair.0, pair.1],
                    format!("contact {}–{} switched 4 times in {} steps", pair.0, pair.1, step - first.step),
                    0.0,
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
            ev(EventKind::GhostBump, vec![bump.body], detail, bump.amount);
        }
        // Forget pairs long apart, so the map does not grow without bound.
        self.pairs.retain(|_, h| h.touching || step - h.changes[0].step < 4 * self.flicker_window);

        let energy = Self::mechanical_energy(world);
        if let Some(prev) = self.energy
            && !user_acted
            && energy > prev + energy_bar(prev)
        {
            ev(
                EventKind::EnergySpike,
                Vec::new(),
                format!("energy rose from {prev:.3} J to {energy:.3} J"),
                energy - prev,
            );
        }
        self.energy = Some(energy);
        self.watch_restless(world, &near, &mut events);
        self.positions = bodies.iter().map(|b| b.pose.translation).collect();
        self.asleep = bodies.iter().map(|b| b.is_asleep()).collect();
        events
    }

    /// Adds this step to each body's window of [`EventKind::Restless`] (`near`: the pairs
    /// touching or within the slop) and, at the end of each one-second window, reports the
    /// bodies restless in [`RESTLESS_WINDOWS`] windows in a row (once a streak).
    fn watch_restless(&mut self, world: &World, near: &[(u32, u32)], events: &mut Vec<Event>) {
        let bodies = world.bodies();
        let window = restless_window(world.settings.dt);
        let step = world.step_count();
        if self.restless.len() > bodies.len() {
            // Fewer bodies: another world. Start over, judging from the next full window.
            self.restless = vec![Restless::default(); bodies.len()];
            self.window_steps = 0;
        } else {
            // Bodies added (a shot, a spawn) join the next window; the others keep theirs.
            self.restless.resize(bodies.len(), Restless::default());
        }
        // Bodies joints hold swing with them, and so do the bodies resting on them (a crate on
        // a swaying bridge): neither is what this looks for.
        let mut jointed = vec![false; bodies.len()];
        for j in world.joints() {
            for side in [j.a, j.b].into_iter().flatten() {
                if let Some(held) = jointed.get_mut(side as usize) {
                    *held = true;
                }
            }
        }
        // In contact: touching, or within the slop (a body jittering on its support leaves it
        // by a fraction of a millimetre now and then), and with no jointed body.
        let mut in_contact = vec![false; bodies.len()];
        let mut riding = jointed.clone();
        for &(a, b) in near {
            let (a, b) = (a as usize, b as usize);
            in_contact[a] = true;
            in_contact[b] = true;
            riding[a] |= jointed[b];
            riding[b] |= jointed[a];
        }
        let threshold = world.settings.sleep_speed.max(RESTLESS_MIN_SPEED);
        let first = self.window_steps == 0;
        for (i, (b, r)) in bodies.iter().zip(&mut self.restless).enumerate() {
            let p = b.pose.translation;
            let speed = b.linvel.length();
            let ok = b.is_dynamic() && !b.is_asleep() && in_contact[i] && !riding[i];
            if first {
                *r = Restless { eligible: true, lo: p, hi: p, fast: 0, top: 0.0, streak: r.streak };
            }
            r.eligible &= ok;
            r.lo = r.lo.min(p);
            r.hi = r.hi.max(p);
            r.fast += (speed > threshold) as u32;
            r.top = r.top.max(speed);
        }
        self.window_steps += 1;
        if !step.is_multiple_of(window) {
            return;
        }
        let full = self.window_steps == window;
        self.window_steps = 0;
        for (i, (b, r)) in bodies.iter().zip(&mut self.restless).enumerate() {
            let extent = (r.hi - r.lo).max_element();
            let restless = full
                && r.eligible
                && extent <= RESTLESS_EXTENT * b.shape.bounding_radius()
                && r.fast as Real >= RESTLESS_SHARE * window as Real;
            r.streak = if restless { r.streak + 1 } else { 0 };
            if r.streak == RESTLESS_WINDOWS {
                let seconds = (RESTLESS_WINDOWS as u64 * window) as Real * world.settings.dt;
                events.push(Event {
                    step,
                    kind: EventKind::Restless,
                    bodies: vec![i as u32],
                    detail: format!(
                        "body {i} stayed in contact and in place (within {:.1} cm) for {seconds:.1} s without coming \
                         to rest: faster than {threshold:.2} m/s in {:.0}% of the last second's steps, up \
                         to {:.2} m/s",
                        extent * 100.0,
                        100.0 * r.fast as Real / window as Real,
                        r.top
                    ),
                    size: 0.0,
                });
            }
        }
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

    /// A pyramid settling at the defaults: its boxes' depths waver by a fraction of a
    /// millimetre about 0 (contact 136–137 between -0.4 and +0.3 mm over its first 12 steps),
    /// which is not a contact switching off and on.
    #[test]
    fn a_settling_pyramid_does_not_flicker() {
        let flicker = events_of("scenes/pyramid.ron", &[], 120, EventKind::ContactFlicker);
        assert!(flicker.is_empty(), "{flicker:?}");
    }

    /// The pile `rain_1000.ron` lands on: its bodies make and break contacts as others strike
    /// them, shoved a few centimetres or landing at speed, and that is not jitter. Its first
    /// 150 steps read as 472 flickers when a switch was judged by the bodies'
    /// speeds at the fourth switch alone. A block of cubes settling on one solver pass still
    /// flickers (`broadphase_cluster.ron`, contact 58–68 from step 18).
    #[test]
    fn a_pile_a_rain_lands_on_does_not_flicker_but_a_settling_block_does() {
        let flicker = events_of("scenes/rain_1000.ron", &[], 150, EventKind::ContactFlicker);
        println!("{} flickers: {:?}", flicker.len(), flicker.iter().map(|e| (e.step, &e.bodies)).collect::<Vec<_>>());
        assert!(flicker.len() < 10, "{} flickers in a landing pile", flicker.len());
        let block = events_of("scenes/broadphase_cluster.ron", &[], 30, EventKind::ContactFlicker);
        assert!(block.iter().any(|e| e.bodies == vec![58, 68]), "{block:?}");
    }

    /// The `kind` events of the first `steps` steps of the scene at `path` with the settings
    /// `set` changed.
    fn events_of(path: &str, set: &[(&str, &str)], steps: u64, kind: EventKind) -> Vec<Event> {
        let mut scene = Scene::load(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
        for (field, value) in set {
            scene.settings.set_field(field, value).unwrap();
        }
        let mut w = scene.build().unwrap();
        let mut d = EventDetector::new();
        let mut out = Vec::new();
        for _ in 0..steps {
            w.step();
            out.extend(d.observe(&w, false).into_iter().filter(|e| e.kind == kind));
        }
        out
    }

    fn restless(path: &str, set: &[(&str, &str)], steps: u64) -> Vec<Event> {
        events_of(path, set, steps, EventKind::Restless)
    }

    /// A stack the solver cannot hold still is restless; the same stack warm started, a pyramid
    /// settling and the crate riding the swaying rope bridge are not.
    #[test]
    fn a_stack_without_warm_starting_is_restless_and_resting_bodies_are_not() {
        let off = [("warm_starting", "false"), ("sleeping", "false")];
        let ev = restless("scenes/jitter.ron", &off, 300);
        assert!(!ev.is_empty() && ev[0].step == 120, "{ev:?}");
        assert!(ev.iter().all(|e| e.bodies.len() == 1 && (1..=4).contains(&e.bodies[0])), "{ev:?}");
        // Once a streak: the 300 steps hold one streak per body at most.
        let mut bodies: Vec<u32> = ev.iter().map(|e| e.bodies[0]).collect();
        bodies.sort_unstable();
        bodies.dedup();
        assert_eq!(bodies.len(), ev.len(), "{ev:?}");
        for (scene, set) in [
            ("scenes/jitter.ron", &[("sleeping", "false")][..]),
            ("scenes/pyramid.ron", &[("sleeping", "false")][..]),
            ("scenes/rope_bridge.ron", &[][..]),
        ] {
            let ev = restless(scene, set, 600);
            assert!(ev.is_empty(), "{scene}: {ev:?}");
        }
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
