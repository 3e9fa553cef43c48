//! Every tunable of the simulation, and the choices of algorithm it holds.

use crate::broadphase::BroadPhaseKind;
use crate::math::{Real, Vec3};
use crate::narrowphase::NarrowPhaseKind;
use crate::narrowphase::mesh::InternalEdges;
use crate::rules::{self, de};
pub use crate::rules::{FieldError, ValueError};
use serde::{Deserialize, Serialize};

/// How fast bodies are kept from tunneling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CcdMode {
    /// Discrete collision only: fast, thin obstacles can be missed (the tunneling lessons set it
    /// to show that).
    Off,
    /// Every moving body's contacts reach as far as it can move this step (linear motion plus
    /// turn times reach); the solver stops it at the surface. The default.
    #[default]
    Speculative,
    /// Bullets and bodies faster than `ccd_speed_threshold` are swept against the world after
    /// the solver and stopped at the time of impact; the other moving bodies get speculative
    /// contacts as with [`CcdMode::Speculative`].
    Toi,
}

impl CcdMode {
    /// Every mode, in the order the app and the CLI list them.
    pub const ALL: &'static [CcdMode] = &[CcdMode::Off, CcdMode::Speculative, CcdMode::Toi];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            CcdMode::Off => "off",
            CcdMode::Speculative => "speculative",
            CcdMode::Toi => "toi",
        }
    }

    /// The mode whose [`cli_name`](Self::cli_name) is `name`.
    pub fn from_cli_name(name: &str) -> Option<CcdMode> {
        Self::ALL.iter().copied().find(|m| m.cli_name() == name)
    }
}

/// How contacts push overlapping bodies apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PositionCorrection {
    /// A velocity bias proportional to the penetration beyond the slop (`baumgarte` factor).
    /// Within the slop contacts are rigid and tilts inside it stay.
    Baumgarte,
    /// A soft constraint: a spring of `contact_hertz` and `damping_ratio` whose rest depth is
    /// half the slop, then a relax pass that removes the push-out velocity (Box2D v3's soft step).
    /// Bodies settle to the slop plus a sag proportional to the load they carry.
    #[default]
    Soft,
}

/// A setting's value as RON text.
fn ron_text<T: Serialize>(v: &T) -> String {
    ron::to_string(v).unwrap_or_default()
}

/// Defines [`Settings`] from one list of its fields (docs, serde attributes, type, default),
/// and from the same list its field names, its differences and its by-name setter.
macro_rules! settings {
    ($($(#[$attr:meta])* $name:ident: $ty:ty = $default:expr,)*) => {
        /// Every tunable of the simulation. Plain data: part of the scene file, editable while running.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Settings {
            $($(#[$attr])* pub $name: $ty,)*
        }

        impl Default for Settings {
            fn default() -> Self {
                Self { $($name: $default,)* }
            }
        }

        impl Settings {
            /// The names of every field, as written in scene files.
            pub const FIELD_NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The fields that differ from `to`, each as `name old -> new` (RON values).
            pub fn changes(&self, to: &Settings) -> Vec<String> {
                self.changed_values(to)
                    .into_iter()
                    .map(|(name, old, new)| format!("{name} {old} -> {new}"))
                    .collect()
            }

            /// The fields that differ from `to`, in declaration order, each as its name, its
            /// value here and its value in `to` (RON text, as [`Settings::set_field`] reads it).
            pub fn changed_values(&self, to: &Settings) -> Vec<(&'static str, String, String)> {
                let mut out = Vec::new();
                $(
                    if self.$name != to.$name {
                        out.push((stringify!($name), ron_text(&self.$name), ron_text(&to.$name)));
                    }
                )*
                out
            }

            /// Sets one field from its RON text, e.g. `("slop", "0.01")` or
            /// `("broad_phase", "BruteForce")`, and validates the result. On error nothing
            /// changes.
            pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), SettingsError> {
                let mut next = self.clone();
                match name {
                    $(stringify!($name) => {
                        // `0.3` as well as `Some(0.3)` for the optional settings.
                        let ron = ron::Options::default()
                            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
                        next.$name = ron.from_str(value)
                            .map_err(|e| SettingsError::Unreadable {
                                name: name.to_string(),
                                value: value.to_string(),
                                error: e.code,
                            })?;
                    })*
                    _ => {
                        return Err(SettingsError::Unknown { name: name.to_string() })
                    }
                }
                next.validate()?;
                *self = next;
                Ok(())
            }
        }
    };
}

settings! {
    /// Acceleration of gravity, m/s².
    #[serde(deserialize_with = "de::gravity_vec3")]
    gravity: Vec3 = Vec3::new(0.0, -9.81, 0.0),
    /// The fixed time step, s.
    #[serde(deserialize_with = "de::positive")]
    dt: Real = 1.0 / 60.0,
    /// Solver substeps per step.
    substeps: u32 = 4,
    /// Velocity iterations per substep.
    iterations: u32 = 1,
    /// Approach speeds below this (m/s) do not bounce.
    #[serde(deserialize_with = "de::non_negative")]
    restitution_threshold: Real = 1.0,
    /// Penetration position correction leaves in place, m: Baumgarte pushes only beyond it,
    /// soft contacts settle to half of it.
    #[serde(deserialize_with = "de::non_negative")]
    slop: Real = 0.001,
    /// Tolerance of the squared-distance comparisons `d² <= r² + ε`, m².
    #[serde(deserialize_with = "de::non_negative")]
    contact_epsilon: Real = 1e-6,
    /// Contacts are created this far before shapes touch (speculative margin), m.
    #[serde(deserialize_with = "de::non_negative")]
    speculative_distance: Real = 0.02,
    /// How contacts push overlapping bodies apart.
    position_correction: PositionCorrection = PositionCorrection::Soft,
    /// Fraction of the excess penetration removed per substep with Baumgarte correction.
    #[serde(deserialize_with = "de::unit_interval")]
    baumgarte: Real = 0.2,
    /// Stiffness of soft contacts, Hz.
    #[serde(deserialize_with = "de::positive")]
    contact_hertz: Real = 30.0,
    /// Damping ratio of soft contacts.
    #[serde(deserialize_with = "de::non_negative")]
    damping_ratio: Real = 10.0,
    /// Stiffness of joints' position correction, Hz (at most a quarter of the substep rate).
    #[serde(deserialize_with = "de::positive")]
    joint_hertz: Real = 60.0,
    /// Damping ratio of joints' position correction.
    #[serde(deserialize_with = "de::non_negative")]
    joint_damping_ratio: Real = 2.0,
    /// Fastest push-out velocity of position correction, m/s.
    #[serde(deserialize_with = "de::positive")]
    max_correction_velocity: Real = 3.0,
    /// Reuse last step's impulses as the first guess.
    warm_starting: bool = true,
    /// The broad phase that finds candidate pairs.
    broad_phase: BroadPhaseKind = BroadPhaseKind::default(),
    /// Cell size of the uniform grid broad phase, m.
    #[serde(deserialize_with = "de::positive")]
    grid_cell_size: Real = 1.0,
    /// The family of algorithms that answers pair tests.
    narrow_phase: NarrowPhaseKind = NarrowPhaseKind::default(),
    /// A pair's last narrow-phase result is reused while no point of one body has moved more
    /// than this (m) relative to the other since it was made (the body-pair cache); 0: the narrow
    /// phase tests every pair every step.
    #[serde(deserialize_with = "de::non_negative")]
    pair_cache_distance: Real = 0.001,
    /// How fast bodies are kept from tunneling.
    ccd: CcdMode = CcdMode::default(),
    /// How contacts on the edges and vertices inside triangle meshes and height fields are
    /// corrected (docs/meshes.md).
    internal_edges: InternalEdges = InternalEdges::default(),
    /// With time of impact, bodies whose fastest point moves faster than this (m/s) are swept
    /// even without the bullet flag; slower moving bodies get speculative contacts.
    #[serde(deserialize_with = "de::positive")]
    ccd_speed_threshold: Real = 20.0,
    /// Let resting islands fall asleep.
    sleeping: bool = true,
    /// Speed below which a body counts as resting, m/s: its centre's speed, and the speed its
    /// spin gives its farthest point.
    #[serde(deserialize_with = "de::non_negative")]
    sleep_speed: Real = 0.05,
    /// How long an island must rest before it sleeps, s.
    #[serde(deserialize_with = "de::non_negative")]
    sleep_time: Real = 0.5,
    /// Restitution of every body, 0–1, over each body's own material; unset (`None`), each
    /// body keeps its own.
    #[serde(deserialize_with = "de::opt_unit_interval", skip_serializing_if = "Option::is_none")]
    restitution: Option<Real> = None,
    /// Friction coefficient of every body, 0–100, over each body's own material; unset
    /// (`None`), each body keeps its own.
    #[serde(deserialize_with = "de::opt_friction", skip_serializing_if = "Option::is_none")]
    friction: Option<Real> = None,
}

impl Settings {
    /// Whether the setting `name` holds a number, and if so whether only whole numbers.
    pub fn numeric(name: &str) -> Option<bool> {
        let probe = |v: &str| Settings::default().set_field(name, v).is_ok();
        probe("1").then(|| !probe("0.5"))
    }

    /// Most substeps a scene may ask for.
    pub const MAX_SUBSTEPS: u32 = 64;
    /// Most iterations a scene may ask for.
    pub const MAX_ITERATIONS: u32 = 256;

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), FieldError> {
        use rules::{ValueError, field};
        field("gravity", self.gravity, rules::gravity_vec3)?;
        field("dt", self.dt, rules::positive)?;
        if !(1e-5..=1.0).contains(&self.dt) {
            return Err(FieldError { field: "dt", error: ValueError::Step(self.dt) });
        }
        if !(1..=Self::MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(FieldError {
                field: "substeps",
                error: ValueError::Count { value: self.substeps, max: Self::MAX_SUBSTEPS },
            });
        }
        if !(1..=Self::MAX_ITERATIONS).contains(&self.iterations) {
            return Err(FieldError {
                field: "iterations",
                error: ValueError::Count { value: self.iterations, max: Self::MAX_ITERATIONS },
            });
        }
        // Upper bounds far beyond any useful value, so that no product of them overflows.
        let ranges: [(&str, Real, Real, Real, &str); 13] = [
            ("restitution_threshold", self.restitution_threshold, 0.0, 1e4, " m/s"),
            ("slop", self.slop, 0.0, 1.0, " m"),
            ("contact_epsilon", self.contact_epsilon, 0.0, 1.0, " m²"),
            ("speculative_distance", self.speculative_distance, 0.0, 100.0, " m"),
            ("pair_cache_distance", self.pair_cache_distance, 0.0, 1.0, " m"),
            ("contact_hertz", self.contact_hertz, 1e-3, 1e4, " Hz"),
            ("damping_ratio", self.damping_ratio, 0.0, 1e4, ""),
            ("max_correction_velocity", self.max_correction_velocity, 1e-6, 1e4, " m/s"),
            ("grid_cell_size", self.grid_cell_size, 1e-3, 1e5, " m"),
            ("ccd_speed_threshold", self.ccd_speed_threshold, 1e-3, 1e6, " m/s"),
            ("sleep_speed", self.sleep_speed, 0.0, 1e4, " m/s"),
            ("sleep_time", self.sleep_time, 0.0, 1e4, " s"),
            ("baumgarte", self.baumgarte, 0.0, 1.0, ""),
        ];
        for (name, v, lo, hi, unit) in ranges {
            rules::within(v, lo, hi, unit).map_err(|error| FieldError { field: name, error })?;
        }
        if let Some(e) = self.restitution {
            field("restitution", e, rules::unit_interval)?;
        }
        if let Some(f) = self.friction {
            field("friction", f, rules::friction)?;
        }
        Ok(())
    }
}

/// Why a setting could not be set from its name and RON text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// No setting has this name.
    #[error("unknown setting {name:?}; known settings: {}", Settings::FIELD_NAMES.join(", "))]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The text is not a value of the setting's type.
    #[error("{name}: cannot read {value:?}: {error}")]
    Unreadable {
        /// The setting.
        name: String,
        /// The text given.
        value: String,
        /// What the RON parser said.
        error: ron::Error,
    },
    /// The value breaks the setting's rule.
    #[error(transparent)]
    Invalid(#[from] FieldError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_field_parses_ron_and_validates() {
        let mut s = Settings::default();
        s.set_field("slop", "0.01").unwrap();
        assert_eq!(s.slop, 0.01);
        s.set_field("gravity", "(0, -1.62, 0)").unwrap();
        assert_eq!(s.gravity, Vec3::new(0.0, -1.62, 0.0));
        assert!(s.set_field("dt", "-1").unwrap_err().to_string().contains("dt"));
        assert!(s.set_field("substeps", "0").unwrap_err().to_string().contains("substeps"));
        assert!(s.set_field("nope", "1").unwrap_err().to_string().contains("unknown setting"));
        assert!(s.set_field("broad_phase", "Quadtree").unwrap_err().to_string().contains("broad_phase"));
        assert_eq!(s.dt, 1.0 / 60.0, "a failed set changes nothing");
        let mut t = s.clone();
        t.set_field("substeps", "8").unwrap();
        assert_eq!(s.changes(&t), ["substeps 4 -> 8"]);
        assert!(s.changes(&s).is_empty());
    }

    #[test]
    fn changed_values_name_each_difference_as_ron_that_sets_it_back() {
        let base = Settings::default();
        let mut now = base.clone();
        now.set_field("gravity", "(0, -1.62, 0)").unwrap();
        now.set_field("substeps", "8").unwrap();
        now.set_field("broad_phase", "BruteForce").unwrap();
        now.set_field("friction", "0.25").unwrap();
        let changed = base.changed_values(&now);
        let names: Vec<&str> = changed.iter().map(|c| c.0).collect();
        assert_eq!(names, ["gravity", "substeps", "broad_phase", "friction"], "{changed:?}");
        assert_eq!(changed[1], ("substeps", "4".to_string(), "8".to_string()));
        assert_eq!(changed[3].2, "Some(0.25)");
        let mut back = base.clone();
        for (name, _, value) in &changed {
            back.set_field(name, value).unwrap();
        }
        assert_eq!(back, now, "{changed:?}");
        assert!(now.changed_values(&now).is_empty());
    }

    #[test]
    fn material_overrides_read_bare_or_optional_values_and_are_checked() {
        let mut s = Settings::default();
        assert_eq!((s.restitution, s.friction), (None, None), "unset by default");
        s.set_field("restitution", "0.3").unwrap();
        s.set_field("friction", "Some(0)").unwrap();
        assert_eq!((s.restitution, s.friction), (Some(0.3), Some(0.0)));
        assert!(s.set_field("restitution", "1.5").unwrap_err().to_string().contains("restitution"));
        assert!(s.set_field("friction", "-1").unwrap_err().to_string().contains("friction"));
        assert_eq!(Settings::numeric("restitution"), Some(false), "a sweep can vary it");
        s.set_field("restitution", "None").unwrap();
        assert_eq!(s.restitution, None);
        let text = ron::to_string(&Settings::default()).unwrap();
        assert!(!text.contains("restitution:") && !text.contains("friction"), "unset is not written: {text}");
    }
}
