use crate::broadphase::BroadPhaseKind;
use crate::ccd::CcdMode;
use crate::math::{Real, Vec3};
use crate::narrowphase::NarrowPhaseKind;
use crate::narrowphase::mesh::InternalEdges;
use crate::scene::rules::{self, de};
use serde::{Deserialize, Serialize};

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

/// Every tunable of the simulation. Plain data: part of the scene file, editable while running.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Settings {
    /// Acceleration of gravity, m/s².
    #[serde(deserialize_with = "de::gravity_vec3")]
    pub gravity: Vec3,
    /// The fixed time step, s.
    #[serde(deserialize_with = "de::positive")]
    pub dt: Real,
    /// Solver substeps per step.
    pub substeps: u32,
    /// Velocity iterations per substep.
    pub iterations: u32,
    /// Approach speeds below this (m/s) do not bounce.
    #[serde(deserialize_with = "de::non_negative")]
    pub restitution_threshold: Real,
    /// Penetration position correction leaves in place, m: Baumgarte pushes only beyond it,
    /// soft contacts settle to half of it.
    #[serde(deserialize_with = "de::non_negative")]
    pub slop: Real,
    /// Tolerance of the squared-distance comparisons `d² <= r² + ε`, m².
    #[serde(deserialize_with = "de::non_negative")]
    pub contact_epsilon: Real,
    /// Contacts are created this far before shapes touch (speculative margin), m.
    #[serde(deserialize_with = "de::non_negative")]
    pub speculative_distance: Real,
    pub position_correction: PositionCorrection,
    /// Fraction of the excess penetration removed per substep with Baumgarte correction.
    #[serde(deserialize_with = "de::unit_interval")]
    pub baumgarte: Real,
    /// Stiffness of soft contacts, Hz.
    #[serde(deserialize_with = "de::positive")]
    pub contact_hertz: Real,
    /// Damping ratio of soft contacts.
    #[serde(deserialize_with = "de::non_negative")]
    pub damping_ratio: Real,
    /// Fastest push-out velocity of position correction, m/s.
    #[serde(deserialize_with = "de::positive")]
    pub max_correction_velocity: Real,
    /// Reuse last step's impulses as the first guess.
    pub warm_starting: bool,
    pub broad_phase: BroadPhaseKind,
    /// Cell size of the uniform grid broad phase, m.
    #[serde(deserialize_with = "de::positive")]
    pub grid_cell_size: Real,
    pub narrow_phase: NarrowPhaseKind,
    pub ccd: CcdMode,
    /// How contacts on the edges and vertices inside triangle meshes and height fields are
    /// corrected (docs/meshes.md).
    pub internal_edges: InternalEdges,
    /// With time of impact, bodies whose fastest point moves faster than this (m/s) are swept
    /// even without the bullet flag; slower moving bodies get speculative contacts.
    #[serde(deserialize_with = "de::positive")]
    pub ccd_speed_threshold: Real,
    /// Let resting islands fall asleep.
    pub sleeping: bool,
    /// Speed below which a body counts as resting, m/s: its centre's speed, and the speed its
    /// spin gives its farthest point.
    #[serde(deserialize_with = "de::non_negative")]
    pub sleep_speed: Real,
    /// How long an island must rest before it sleeps, s.
    #[serde(deserialize_with = "de::non_negative")]
    pub sleep_time: Real,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            gravity: Vec3::new(0.0, -9.81, 0.0),
            dt: 1.0 / 60.0,
            substeps: 4,
            iterations: 1,
            restitution_threshold: 1.0,
            slop: 0.001,
            contact_epsilon: 1e-6,
            speculative_distance: 0.02,
            position_correction: PositionCorrection::Soft,
            baumgarte: 0.2,
            contact_hertz: 30.0,
            damping_ratio: 10.0,
            max_correction_velocity: 3.0,
            warm_starting: true,
            broad_phase: BroadPhaseKind::default(),
            grid_cell_size: 1.0,
            narrow_phase: NarrowPhaseKind::default(),
            ccd: CcdMode::default(),
            internal_edges: InternalEdges::default(),
            ccd_speed_threshold: 20.0,
            sleeping: true,
            sleep_speed: 0.05,
            sleep_time: 0.5,
        }
    }
}

macro_rules! settings_fields {
    ($($name:ident),* $(,)?) => {
        impl Settings {
            /// The names of every field, as written in scene files.
            pub const FIELD_NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// The fields that differ from `to`, each as `name old -> new` (RON values).
            pub fn changes(&self, to: &Settings) -> Vec<String> {
                let mut out = Vec::new();
                $(
                    if self.$name != to.$name {
                        let text = |v: &_| ron::to_string(v).unwrap_or_default();
                        out.push(format!("{} {} -> {}", stringify!($name), text(&self.$name), text(&to.$name)));
                    }
                )*
                out
            }

            /// Sets one field from its RON text, e.g. `("slop", "0.01")` or
            /// `("broad_phase", "BruteForce")`, and validates the result. On error nothing
            /// changes.
            pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), String> {
                let mut next = self.clone();
                match name {
                    $(stringify!($name) => {
                        next.$name = ron::from_str(value)
                            .map_err(|e| format!("{name}: cannot read {value:?}: {}", e.code))?;
                    })*
                    _ => {
                        return Err(format!(
                            "unknown setting {name:?}; known settings: {}",
                            Self::FIELD_NAMES.join(", ")
                        ))
                    }
                }
                next.validate()?;
                *self = next;
                Ok(())
            }
        }
    };
}

settings_fields!(
    gravity,
    dt,
    substeps,
    iterations,
    restitution_threshold,
    slop,
    contact_epsilon,
    speculative_distance,
    position_correction,
    baumgarte,
    contact_hertz,
    damping_ratio,
    max_correction_velocity,
    warm_starting,
    broad_phase,
    grid_cell_size,
    narrow_phase,
    ccd,
    internal_edges,
    ccd_speed_threshold,
    sleeping,
    sleep_speed,
    sleep_time,
);

impl Settings {
    /// Whether the setting `name` holds a number, and if so whether only whole numbers.
    pub fn numeric(name: &str) -> Option<bool> {
        let probe = |v: &str| Settings::default().set_field(name, v).is_ok();
        probe("1").then(|| !probe("0.5"))
    }

    pub const MAX_SUBSTEPS: u32 = 64;
    pub const MAX_ITERATIONS: u32 = 256;

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), String> {
        use rules::field;
        field("gravity", self.gravity, rules::gravity_vec3)?;
        field("dt", self.dt, rules::positive)?;
        if !(1e-5..=1.0).contains(&self.dt) {
            return Err(format!("dt: {} s is out of range: the step must lie between 1e-5 s and 1 s", self.dt));
        }
        if !(1..=Self::MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(format!("substeps: {} must lie between 1 and {}", self.substeps, Self::MAX_SUBSTEPS));
        }
        if !(1..=Self::MAX_ITERATIONS).contains(&self.iterations) {
            return Err(format!("iterations: {} must lie between 1 and {}", self.iterations, Self::MAX_ITERATIONS));
        }
        // Upper bounds far beyond any useful value, so that no product of them overflows.
        let ranges: [(&str, Real, Real, Real, &str); 12] = [
            ("restitution_threshold", self.restitution_threshold, 0.0, 1e4, " m/s"),
            ("slop", self.slop, 0.0, 1.0, " m"),
            ("contact_epsilon", self.contact_epsilon, 0.0, 1.0, " m²"),
            ("speculative_distance", self.speculative_distance, 0.0, 100.0, " m"),
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
            rules::within(v, lo, hi, unit).map_err(|e| format!("{name}: {e}"))?;
        }
        Ok(())
    }
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
        assert!(s.set_field("dt", "-1").unwrap_err().contains("dt"));
        assert!(s.set_field("substeps", "0").unwrap_err().contains("substeps"));
        assert!(s.set_field("nope", "1").unwrap_err().contains("unknown setting"));
        assert!(s.set_field("broad_phase", "Quadtree").unwrap_err().contains("broad_phase"));
        assert_eq!(s.dt, 1.0 / 60.0, "a failed set changes nothing");
        let mut t = s.clone();
        t.set_field("substeps", "8").unwrap();
        assert_eq!(s.changes(&t), ["substeps 4 -> 8"]);
        assert!(s.changes(&s).is_empty());
    }
}
