//! Continuous collision detection: keeps fast bodies from passing through thin ones.

use serde::{Deserialize, Serialize};

/// How fast bodies are kept from tunneling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CcdMode {
    /// Discrete collision only: fast, thin obstacles can be missed.
    #[default]
    Off,
}

impl CcdMode {
    pub const ALL: &'static [CcdMode] = &[CcdMode::Off];

    pub fn cli_name(self) -> &'static str {
        match self {
            CcdMode::Off => "off",
        }
    }
}
