//! The engines a scene can run in: Collidoscope's own, or a peer engine (rapier3d with feature
//! `rapier`, Jolt Physics with `jolt`) with the world mapped onto it body for body. `run
//! --engine`, `compare`, the A/B view's peer side and the peers bench all name engines with
//! [`Engine`]; a build without a peer's feature still knows its name, and says which feature it
//! lacks ([`crate::stepper::Stepper`] steps one).

use std::str::FromStr;

/// The engines a scene can run in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Engine {
    #[default]
    /// Collidoscope's own world.
    Collidoscope,
    /// rapier3d, body for body (feature `rapier`).
    Rapier,
    /// Jolt Physics, body for body (feature `jolt`).
    Jolt,
}

impl Engine {
    /// Every engine this build has, in the order the CLI lists them.
    pub const ALL: &'static [Engine] = &[
        Engine::Collidoscope,
        #[cfg(feature = "rapier")]
        Engine::Rapier,
        #[cfg(feature = "jolt")]
        Engine::Jolt,
    ];

    /// Every engine there is, built or not.
    pub const NAMED: [Engine; 3] = [Engine::Collidoscope, Engine::Rapier, Engine::Jolt];

    /// The name used on the command line (and the cargo feature that builds a peer engine).
    pub fn cli_name(self) -> &'static str {
        match self {
            Engine::Collidoscope => "collidoscope",
            Engine::Rapier => "rapier",
            Engine::Jolt => "jolt",
        }
    }

    /// The engine whose [`cli_name`](Self::cli_name) is `name`, whether this build has it or not.
    pub fn from_cli_name(name: &str) -> Option<Engine> {
        Self::NAMED.into_iter().find(|e| e.cli_name() == name)
    }

    /// The name shown to people, with the engine's version.
    pub fn label(self) -> &'static str {
        match self {
            Engine::Collidoscope => "Collidoscope",
            Engine::Rapier => "rapier3d 0.36",
            Engine::Jolt => "Jolt Physics 5.0",
        }
    }

    /// Whether this build has the engine.
    pub fn built(self) -> bool {
        Self::ALL.contains(&self)
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.cli_name())
    }
}

/// A name that is no engine.
#[derive(Debug, thiserror::Error)]
#[error("unknown engine {0:?}; choose collidoscope, rapier or jolt")]
pub struct UnknownEngine(pub String);

impl FromStr for Engine {
    type Err = UnknownEngine;

    fn from_str(name: &str) -> Result<Engine, UnknownEngine> {
        Engine::from_cli_name(name).ok_or_else(|| UnknownEngine(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_engine_is_named_and_this_build_has_the_ones_its_features_bring() {
        for e in Engine::NAMED {
            assert_eq!(e.cli_name().parse::<Engine>().unwrap(), e);
        }
        let unknown = "bullet".parse::<Engine>().unwrap_err().to_string();
        assert!(unknown.contains("\"bullet\"") && unknown.contains("collidoscope, rapier or jolt"), "{unknown}");
        assert!(Engine::Collidoscope.built());
        assert_eq!(Engine::Rapier.built(), cfg!(feature = "rapier"));
        assert_eq!(Engine::Jolt.built(), cfg!(feature = "jolt"));
    }
}
