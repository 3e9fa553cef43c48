//! One peer engine stepping a scene beside Collidoscope: rapier3d, or (feature `jolt`) Jolt
//! Physics, behind one interface for `run --engine`, `compare` and the app's A/B.

use super::{Engine, RapierWorld};
use crate::math::Real;
use crate::world::{Settings, StepProfile, World};

/// Why a peer engine could not take a scene.
#[derive(Debug, thiserror::Error)]
pub enum PeerError {
    /// Collidoscope asked for as a peer of itself.
    #[error("Collidoscope is not a peer engine: choose rapier or jolt")]
    NotAPeer,
    /// A peer engine this build was made without.
    #[error("this build has no {0} engine (built without the `{0}` feature)")]
    NotBuilt(Engine),
    /// Jolt refused the scene (a shape, a body or a joint, named).
    #[cfg(feature = "jolt")]
    #[error(transparent)]
    Jolt(#[from] super::JoltError),
}

/// A peer engine's copy of a world, read back into a mirror [`World`] after each step.
pub enum PeerWorld {
    /// rapier3d.
    Rapier(Box<RapierWorld>),
    /// Jolt Physics.
    #[cfg(feature = "jolt")]
    Jolt(Box<super::JoltWorld>),
}

/// Calls the same method on whichever engine it is.
macro_rules! each {
    ($self:expr, $w:ident => $e:expr) => {
        match $self {
            PeerWorld::Rapier($w) => $e,
            #[cfg(feature = "jolt")]
            PeerWorld::Jolt($w) => $e,
        }
    };
}

impl PeerWorld {
    /// `engine`'s copy of `world`, with its settings.
    pub fn new(engine: Engine, world: &World) -> Result<PeerWorld, PeerError> {
        match engine {
            Engine::Collidoscope => Err(PeerError::NotAPeer),
            Engine::Rapier => Ok(PeerWorld::Rapier(Box::new(RapierWorld::from_world(world)))),
            #[cfg(feature = "jolt")]
            Engine::Jolt => Ok(PeerWorld::Jolt(Box::new(super::JoltWorld::from_world(world)?))),
            #[cfg(not(feature = "jolt"))]
            Engine::Jolt => Err(PeerError::NotBuilt(Engine::Jolt)),
        }
    }

    /// The engine stepping this world.
    pub fn engine(&self) -> Engine {
        match self {
            PeerWorld::Rapier(_) => Engine::Rapier,
            #[cfg(feature = "jolt")]
            PeerWorld::Jolt(_) => Engine::Jolt,
        }
    }

    /// Advances the engine by one step and reads its state back.
    pub fn step(&mut self) {
        each!(self, w => w.step())
    }

    /// Applies the settings that have a counterpart in the engine; the mirror keeps all of them.
    pub fn set_settings(&mut self, s: Settings) {
        each!(self, w => w.set_settings(s))
    }

    /// The bodies as the engine has them after the last step, in scene order.
    pub fn world(&self) -> &World {
        each!(self, w => w.world())
    }

    /// The engine's timings and counters of the last step.
    pub fn profile(&self) -> &StepProfile {
        each!(self, w => w.profile())
    }

    /// The deepest penetration among the engine's current contacts, m.
    pub fn max_penetration(&self) -> Real {
        each!(self, w => w.max_penetration())
    }
}
