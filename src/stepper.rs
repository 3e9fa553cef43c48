//! One engine stepping a world ([`Stepper`]): Collidoscope's own, or a peer engine with the world
//! mapped onto it. What `run --engine` and `compare` step, and the peers bench times.

use crate::engine::Engine;
use crate::world::{StepProfile, World};

/// Why an engine could not step a world.
#[derive(Debug, thiserror::Error)]
pub enum StepperError {
    /// An engine this build was made without.
    #[error("this build has no {0} engine (built without the `{0}` feature)")]
    NotBuilt(Engine),
    /// The peer engine refused the world (a shape, a body or a joint, named).
    #[cfg(feature = "rapier")]
    #[error(transparent)]
    Refused(#[from] crate::peer::PeerError),
}

/// One engine stepping a world.
pub enum Stepper {
    /// Collidoscope's own world.
    Collidoscope(Box<World>),
    /// rapier3d or Jolt Physics with the world mapped onto it.
    #[cfg(feature = "rapier")]
    Peer(Box<crate::peer::PeerWorld>),
}

impl Stepper {
    /// `engine` stepping `world` (built with its settings).
    pub fn new(engine: Engine, world: World) -> Result<Stepper, StepperError> {
        if !engine.built() {
            return Err(StepperError::NotBuilt(engine));
        }
        match engine {
            Engine::Collidoscope => Ok(Stepper::Collidoscope(Box::new(world))),
            #[cfg(feature = "rapier")]
            _ => Ok(Stepper::Peer(Box::new(crate::peer::PeerWorld::new(engine, &world)?))),
            #[cfg(not(feature = "rapier"))]
            _ => unreachable!("a peer engine is built only with the `rapier` feature"),
        }
    }

    /// The engine stepping.
    pub fn engine(&self) -> Engine {
        match self {
            Stepper::Collidoscope(_) => Engine::Collidoscope,
            #[cfg(feature = "rapier")]
            Stepper::Peer(p) => p.engine(),
        }
    }

    /// Advances the world by one step (a peer engine reads its state back into its world).
    pub fn step(&mut self) {
        match self {
            Stepper::Collidoscope(w) => w.step(),
            #[cfg(feature = "rapier")]
            Stepper::Peer(p) => p.step(),
        }
    }

    /// The last step's times and counts.
    pub fn profile(&self) -> &StepProfile {
        match self {
            Stepper::Collidoscope(w) => w.profile(),
            #[cfg(feature = "rapier")]
            Stepper::Peer(p) => p.profile(),
        }
    }

    /// The bodies after the last step (for a peer engine, its state read back into a world).
    pub fn world(&self) -> &World {
        match self {
            Stepper::Collidoscope(w) => w,
            #[cfg(feature = "rapier")]
            Stepper::Peer(p) => p.world(),
        }
    }

    /// The engine's name, and for a peer that the scene was mapped onto it.
    pub fn label(&self) -> String {
        match self {
            Stepper::Collidoscope(_) => Engine::Collidoscope.label().into(),
            #[cfg(feature = "rapier")]
            Stepper::Peer(p) => format!("{} (scene mapped onto it)", p.engine().label()),
        }
    }

    /// The deepest penetration among the current contacts, m.
    #[cfg(feature = "rapier")]
    pub fn penetration(&self) -> f32 {
        match self {
            Stepper::Collidoscope(w) => crate::peer::collidoscope_penetration(w),
            Stepper::Peer(p) => p.max_penetration(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_engine_built_steps_and_one_not_built_says_which_feature() {
        let world = World::new(crate::world::Settings::default());
        let stepper = Stepper::new(Engine::Collidoscope, world.clone()).unwrap();
        assert_eq!((stepper.engine(), stepper.label().as_str()), (Engine::Collidoscope, "Collidoscope"));
        for e in Engine::NAMED.into_iter().filter(|e| !e.built()) {
            let why = Stepper::new(e, world.clone()).err().unwrap().to_string();
            assert!(why.contains(&format!("`{}` feature", e.cli_name())), "{why}");
        }
        #[cfg(feature = "rapier")]
        {
            let mut peer = Stepper::new(Engine::Rapier, world).unwrap();
            peer.step();
            assert_eq!((peer.engine(), peer.world().bodies().len()), (Engine::Rapier, 0));
            assert!(peer.label().starts_with("rapier3d"));
        }
    }
}
