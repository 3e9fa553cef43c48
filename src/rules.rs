//! Value rules shared by scene loading (which reports where a bad value sits in the file) and
//! by live edits (which report the field). Each rule says what is wrong in words.

use crate::math::{Real, Vec3};
use serde::de::{Deserialize, Deserializer, Error};

/// What is wrong with one number or vector; the message starts with the value.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// NaN or infinite.
    #[error("{0} is not a finite number")]
    NotFinite(Real),
    /// Zero or negative where only a positive number will do.
    #[error("{0} must be greater than 0")]
    NotPositive(Real),
    /// Negative where zero or more will do.
    #[error("{0} must not be negative")]
    Negative(Real),
    /// Outside `[0, 1]`.
    #[error("{0} must lie between 0 and 1")]
    NotUnit(Real),
    /// A vector with a NaN or infinite component.
    #[error("({}, {}, {}) has a component that is not a finite number", .0.x, .0.y, .0.z)]
    VectorNotFinite(Vec3),
    /// A number outside `[lo, hi]`; `unit` follows each number.
    #[error("{value}{unit} is out of range: it must lie between {lo} and {hi}{unit}")]
    OutOfRange {
        /// The number given.
        value: Real,
        /// The least allowed.
        lo: Real,
        /// The most allowed.
        hi: Real,
        /// The unit, with its leading space (`" m"`), or empty.
        unit: &'static str,
    },
    /// A vector with a component beyond `±max`.
    #[error("({}, {}, {}): {what} beyond ±{max}{unit} is out of range", .value.x, .value.y, .value.z)]
    Beyond {
        /// The vector given.
        value: Vec3,
        /// The largest magnitude allowed.
        max: Real,
        /// What the vector is (`a coordinate`, `a speed`).
        what: &'static str,
        /// The unit, with its leading space.
        unit: &'static str,
    },
    /// A vector one of whose components breaks the rule.
    #[error("({}, {}, {}): {component}", .value.x, .value.y, .value.z)]
    Component {
        /// The vector given.
        value: Vec3,
        /// What is wrong with the first bad component.
        component: Box<ValueError>,
    },
    /// A time step outside what the solver handles.
    #[error("{0} s is out of range: the step must lie between 1e-5 s and 1 s")]
    Step(Real),
    /// A count outside `[1, max]`.
    #[error("{value} must lie between 1 and {max}")]
    Count {
        /// The count given.
        value: u32,
        /// The most allowed.
        max: u32,
    },
}

/// A value that breaks its rule, with the name of its field: `friction: -1 must not be negative`.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{field}: {error}")]
pub struct FieldError {
    /// The field's name.
    pub field: &'static str,
    /// What is wrong with its value.
    pub error: ValueError,
}

/// What a rule returns: nothing, or what is wrong.
pub(crate) type Rule = Result<(), ValueError>;

pub(crate) fn finite(v: Real) -> Rule {
    if v.is_finite() { Ok(()) } else { Err(ValueError::NotFinite(v)) }
}

pub(crate) fn positive(v: Real) -> Rule {
    finite(v)?;
    if v > 0.0 { Ok(()) } else { Err(ValueError::NotPositive(v)) }
}

pub(crate) fn non_negative(v: Real) -> Rule {
    finite(v)?;
    if v >= 0.0 { Ok(()) } else { Err(ValueError::Negative(v)) }
}

pub(crate) fn unit_interval(v: Real) -> Rule {
    finite(v)?;
    if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(ValueError::NotUnit(v)) }
}

pub(crate) fn finite_vec3(v: Vec3) -> Rule {
    if v.is_finite() { Ok(()) } else { Err(ValueError::VectorNotFinite(v)) }
}

/// The physical range of every number a scene may hold. Inside these bounds the engine's `f32`
/// arithmetic stays finite for any combination (masses, inertias and their inverses, impulses,
/// squared distances); outside them a value is refused with its place in the file.
pub(crate) mod limits {
    use crate::math::Real;
    /// Sizes: a radius, half extent or half height, and a hull's extent, m.
    pub(crate) const SIZE: (Real, Real) = (1e-4, 1e4);
    /// Largest coordinate of a position, a point of a hull, a rain box or a grid spacing, m.
    pub(crate) const COORDINATE: Real = 1e5;
    /// Fastest linear speed, m/s.
    pub(crate) const SPEED: Real = 1e4;
    /// Fastest spin, rad/s.
    pub(crate) const SPIN: Real = 1e4;
    /// Strongest gravity, m/s².
    pub(crate) const GRAVITY: Real = 1e4;
    /// Density, kg/m³.
    pub(crate) const DENSITY: (Real, Real) = (1e-3, 1e6);
    /// Largest friction coefficient.
    pub(crate) const FRICTION: Real = 100.0;
}

/// `v` within `[lo, hi]`, as a finite number; `unit` follows the number in the message.
pub(crate) fn within(v: Real, lo: Real, hi: Real, unit: &'static str) -> Rule {
    finite(v)?;
    if (lo..=hi).contains(&v) { Ok(()) } else { Err(ValueError::OutOfRange { value: v, lo, hi, unit }) }
}

/// A length of the vector at most `max`.
fn vec3_at_most(v: Vec3, max: Real, what: &'static str, unit: &'static str) -> Rule {
    finite_vec3(v)?;
    if v.abs().max_element() <= max { Ok(()) } else { Err(ValueError::Beyond { value: v, max, what, unit }) }
}

pub(crate) fn size(v: Real) -> Rule {
    within(v, limits::SIZE.0, limits::SIZE.1, " m")
}

pub(crate) fn size_vec3(v: Vec3) -> Rule {
    finite_vec3(v)?;
    v.to_array().into_iter().try_for_each(size).map_err(|e| ValueError::Component { value: v, component: Box::new(e) })
}

/// One coordinate (a height field's height), m.
pub(crate) fn coordinate(v: Real) -> Rule {
    within(v, -limits::COORDINATE, limits::COORDINATE, " m")
}

pub(crate) fn coordinate_vec3(v: Vec3) -> Rule {
    vec3_at_most(v, limits::COORDINATE, "a coordinate", " m")
}

pub(crate) fn velocity_vec3(v: Vec3) -> Rule {
    vec3_at_most(v, limits::SPEED, "a speed", " m/s")
}

pub(crate) fn spin_vec3(v: Vec3) -> Rule {
    vec3_at_most(v, limits::SPIN, "a spin", " rad/s")
}

pub(crate) fn gravity_vec3(v: Vec3) -> Rule {
    vec3_at_most(v, limits::GRAVITY, "gravity", " m/s²")
}

pub(crate) fn density(v: Real) -> Rule {
    within(v, limits::DENSITY.0, limits::DENSITY.1, " kg/m³")
}

pub(crate) fn friction(v: Real) -> Rule {
    within(v, 0.0, limits::FRICTION, "")
}

/// Checks `v` against `rule`, naming `field` in the message.
pub(crate) fn field<T>(field: &'static str, v: T, rule: fn(T) -> Rule) -> Result<(), FieldError> {
    rule(v).map_err(|error| FieldError { field, error })
}

fn checked<'de, D: Deserializer<'de>, T: Deserialize<'de> + Copy>(d: D, rule: fn(T) -> Rule) -> Result<T, D::Error> {
    let v = T::deserialize(d)?;
    rule(v).map_err(D::Error::custom)?;
    Ok(v)
}

/// `deserialize_with` adaptors: the parser attaches the value's position to the error.
pub(crate) mod de {
    use super::*;

    pub(crate) fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::positive)
    }
    pub(crate) fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::non_negative)
    }
    pub(crate) fn unit_interval<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::unit_interval)
    }
    pub(crate) fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::size)
    }
    pub(crate) fn size_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::size_vec3)
    }
    pub(crate) fn coordinate_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::coordinate_vec3)
    }
    pub(crate) fn velocity_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::velocity_vec3)
    }
    pub(crate) fn spin_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::spin_vec3)
    }
    pub(crate) fn gravity_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::gravity_vec3)
    }
    pub(crate) fn density<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::density)
    }
    pub(crate) fn friction<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::friction)
    }
    pub(crate) fn opt_unit_interval<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Real>, D::Error> {
        optional(d, super::unit_interval)
    }
    pub(crate) fn opt_friction<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Real>, D::Error> {
        optional(d, super::friction)
    }
    fn optional<'de, D: Deserializer<'de>>(d: D, rule: fn(Real) -> Rule) -> Result<Option<Real>, D::Error> {
        let v = Option::<Real>::deserialize(d)?;
        if let Some(v) = v {
            rule(v).map_err(D::Error::custom)?;
        }
        Ok(v)
    }
}
