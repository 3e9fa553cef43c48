//! "Pause at the next event": the clock stops on the step where something worth showing
//! happens (two bodies touch for the first time, continuous collision stops a body, a body
//! passes through another in one step), so a lesson's moment can be shown at any speed.

use crate::geometry::Ray;
use crate::math::Vec3;
use crate::record::{EventDetector, EventKind};
use crate::world::World;

/// What the clock waits for. (A body leaving the view is the app's to see: it has the camera.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PauseAt {
    /// Never pause by itself.
    #[default]
    Never,
    /// Two bodies start touching.
    FirstContact,
    /// Continuous collision stops a body at its time of impact.
    Toi,
    /// A body passes through another within one step (its path crosses a body it is not in
    /// contact with at the end of the step).
    Tunneling,
    /// A moving body leaves the view (watched by the app).
    LeavingView,
}

impl PauseAt {
    /// Every choice, in the order the app lists them.
    pub const ALL: [PauseAt; 5] =
        [PauseAt::Never, PauseAt::FirstContact, PauseAt::Toi, PauseAt::Tunneling, PauseAt::LeavingView];

    /// The choice as the app names it.
    pub fn label(self) -> &'static str {
        match self {
            PauseAt::Never => "never",
            PauseAt::FirstContact => "first contact",
            PauseAt::Toi => "TOI event",
            PauseAt::Tunneling => "tunneling",
            PauseAt::LeavingView => "leaving the view",
        }
    }
}

/// A stop the clock waits for besides [`PauseAt`]'s events: a lesson step's run (see
/// `Simulation::until`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Until {
    /// The world has taken this many steps in all.
    Step(u64),
    /// Every moving body is asleep.
    AllAsleep,
}

impl Until {
    /// What was reached, if `world` has reached it.
    pub fn reached(self, world: &World) -> Option<String> {
        match self {
            Until::Step(n) => (world.step_count() >= n).then(|| format!("reached step {n}")),
            Until::AllAsleep => all_asleep(world).then(|| "every body is asleep".to_string()),
        }
    }
}

/// Whether the world has moving bodies and all of them sleep.
pub fn all_asleep(world: &World) -> bool {
    let mut dynamic = world.bodies().iter().filter(|b| b.is_dynamic()).peekable();
    dynamic.peek().is_some() && dynamic.all(|b| b.is_asleep())
}

/// Watches each step for the event [`PauseAt`] names.
#[derive(Default)]
pub struct PauseWatch {
    /// What to wait for.
    pub at: PauseAt,
    events: Option<EventDetector>,
    /// Each body's position before the last step, for the tunneling test.
    before: Vec<Vec3>,
}

impl PauseWatch {
    /// Call before a step: remembers where the bodies were.
    pub fn before_step(&mut self, world: &World) {
        if self.at == PauseAt::Tunneling {
            self.before.clear();
            self.before.extend(world.bodies().iter().map(|b| b.pose.translation));
        }
    }

    /// Call after a step: what happened, if it is the event waited for.
    pub fn after_step(&mut self, world: &World) -> Option<String> {
        match self.at {
            PauseAt::Never | PauseAt::LeavingView => {
                self.events = None;
                None
            }
            PauseAt::FirstContact | PauseAt::Toi => {
                let events = self.events.get_or_insert_with(EventDetector::new).observe(world, false);
                // An impact the sweep found is a first contact too: it stops a bullet just short
                // of the wall (`ccd` target gap), where its contact starts out apart.
                let wanted = |k: EventKind| match self.at {
                    PauseAt::Toi => k == EventKind::Toi,
                    _ => k == EventKind::NewContact || k == EventKind::Toi,
                };
                events.into_iter().find(|e| wanted(e.kind)).map(|e| e.detail)
            }
            PauseAt::Tunneling => tunneled(world, &self.before),
        }
    }

    /// Forgets what the detector saw (the world was replaced).
    pub fn clear(&mut self) {
        self.events = None;
        self.before.clear();
    }
}

/// A dynamic body whose straight path over the last step (from `before`) crossed another body
/// it did not stop against: the first such, described.
pub fn tunneled(world: &World, before: &[Vec3]) -> Option<String> {
    let bodies = world.bodies();
    for (i, b) in bodies.iter().enumerate() {
        let Some(&from) = before.get(i) else { continue };
        let d = b.pose.translation - from;
        let len = d.length();
        if !b.is_dynamic() || len <= 1e-6 || !len.is_finite() {
            continue;
        }
        let Some((j, hit)) = world.ray_cast(&Ray::new(from, d / len), len) else { continue };
        // The body's own shape where it ended blocks the path last; anything else hit on the
        // way that it is not now touching, it passed through.
        let touching = world.contacts().iter().any(|c| {
            let (a, bb) = (c.a as usize, c.b as usize);
            (a, bb) == (i, j) || (a, bb) == (j, i)
        });
        if j != i && !touching && hit.t < len - b.shape.bounding_radius() {
            let name = |k: usize| bodies[k].name.clone().unwrap_or_else(|| format!("body {k}"));
            return Some(format!("{} passed through {} in one step", name(i), name(j)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccd::CcdMode;
    use crate::scene::Scene;
    use crate::session::Simulation;

    fn tunneling(ccd: CcdMode, at: PauseAt) -> Simulation {
        let mut scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/tunneling.ron")).unwrap();
        scene.settings.ccd = ccd;
        let mut sim = Simulation::new(scene, None).unwrap();
        sim.pause.at = at;
        sim.playing = true;
        sim
    }

    /// Plays frame by frame (several steps a frame) until the clock stops or `frames` ran.
    fn play(sim: &mut Simulation, frames: usize) {
        for _ in 0..frames {
            sim.advance(0.1);
            if !sim.playing {
                break;
            }
        }
    }

    #[test]
    fn play_stops_on_the_step_the_bullet_passes_the_wall() {
        let mut sim = tunneling(CcdMode::Off, PauseAt::Tunneling);
        play(&mut sim, 20);
        assert!(!sim.playing, "paused by itself");
        // The bullet starts 6 m before the wall and moves 3.33 m a step: beyond it after step 2.
        assert_eq!(sim.world.step_count(), 2);
        assert_eq!(sim.paused_by.as_deref(), Some("step 2: bullet passed through wall in one step"));
        assert!(sim.world.bodies()[2].pose.translation.x > 0.0);
        // With time of impact nothing tunnels: the clock runs on.
        let mut sim = tunneling(CcdMode::Toi, PauseAt::Tunneling);
        play(&mut sim, 20);
        assert!(sim.playing && sim.paused_by.is_none() && sim.world.step_count() > 20);
    }

    #[test]
    fn play_stops_at_the_time_of_impact_and_at_the_first_contact() {
        let mut sim = tunneling(CcdMode::Toi, PauseAt::Toi);
        play(&mut sim, 20);
        assert!(!sim.playing);
        assert_eq!(sim.world.step_count(), 2, "{:?}", sim.paused_by);
        assert!(sim.world.profile().toi_events > 0);
        let mut sim = tunneling(CcdMode::Toi, PauseAt::FirstContact);
        play(&mut sim, 20);
        assert!(!sim.playing);
        let first = sim.world.step_count();
        assert!((2..=3).contains(&first), "the bullet meets the wall: paused at step {first}");
        // The sweep's impact or a touching contact stopped it.
        assert!(!sim.world.contacts().is_empty() || sim.world.profile().toi_events > 0);
        // Never: it plays on.
        let mut sim = tunneling(CcdMode::Toi, PauseAt::Never);
        play(&mut sim, 5);
        assert!(sim.playing && sim.paused_by.is_none());
    }
}
