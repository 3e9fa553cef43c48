//! Value rules shared by scene loading (which reports where a bad value sits in the file) and
//! by live edits (which report the field). Each rule says what is wrong in words.

use crate::math::{Real, Vec3};
use serde::de::{Deserialize, Deserializer, Error};

pub(crate) fn finite(v: Real) -> Result<(), String> {
    if v.is_finite() { Ok(()) } else { Err(format!("{v} is not a finite number")) }
}

pub(crate) fn positive(v: Real) -> Result<(), String> {
    finite(v)?;
    if v > 0.0 { Ok(()) } else { Err(format!("{v} must be greater than 0")) }
}

pub(crate) fn non_negative(v: Real) -> Result<(), String> {
    finite(v)?;
    if v >= 0.0 { Ok(()) } else { Err(format!("{v} must not be negative")) }
}

pub(crate) fn unit_interval(v: Real) -> Result<(), String> {
    finite(v)?;
    if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(format!("{v} must lie between 0 and 1")) }
}

pub(crate) fn finite_vec3(v: Vec3) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("({}, {}, {}) has a component that is not a finite number", v.x, v.y, v.z))
    }
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
pub(crate) fn within(v: Real, lo: Real, hi: Real, unit: &str) -> Result<(), String> {
    finite(v)?;
    if (lo..=hi).contains(&v) {
        Ok(())
    } else {
        Err(format!("{v}{unit} is out of range: it must lie between {lo} and {hi}{unit}"))
    }
}

/// A length of the vector at most `max`.
fn vec3_at_most(v: Vec3, max: Real, what: &str, unit: &str) -> Result<(), String> {
    finite_vec3(v)?;
    if v.abs().max_element() <= max {
        Ok(())
    } else {
        Err(format!("({}, {}, {}): {what} beyond ±{max}{unit} is out of range", v.x, v.y, v.z))
    }
}

pub(crate) fn size(v: Real) -> Result<(), String> {
    within(v, limits::SIZE.0, limits::SIZE.1, " m")
}

pub(crate) fn size_vec3(v: Vec3) -> Result<(), String> {
    finite_vec3(v)?;
    v.to_array().into_iter().try_for_each(size).map_err(|e| format!("({}, {}, {}): {e}", v.x, v.y, v.z))
}

pub(crate) fn coordinate_vec3(v: Vec3) -> Result<(), String> {
    vec3_at_most(v, limits::COORDINATE, "a coordinate", " m")
}

pub(crate) fn velocity_vec3(v: Vec3) -> Result<(), String> {
    vec3_at_most(v, limits::SPEED, "a speed", " m/s")
}

pub(crate) fn spin_vec3(v: Vec3) -> Result<(), String> {
    vec3_at_most(v, limits::SPIN, "a spin", " rad/s")
}

pub(crate) fn gravity_vec3(v: Vec3) -> Result<(), String> {
    vec3_at_most(v, limits::GRAVITY, "gravity", " m/s²")
}

pub(crate) fn density(v: Real) -> Result<(), String> {
    within(v, limits::DENSITY.0, limits::DENSITY.1, " kg/m³")
}

pub(crate) fn friction(v: Real) -> Result<(), String> {
    within(v, 0.0, limits::FRICTION, "")
}

/// Checks `v` against `rule`, naming `field` in the message.
pub(crate) fn field<T>(field: &str, v: T, rule: fn(T) -> Result<(), String>) -> Result<(), String> {
    rule(v).map_err(|e| format!("{field}: {e}"))
}

fn checked<'de, D: Deserializer<'de>, T: Deserialize<'de> + Copy>(
    d: D,
    rule: fn(T) -> Result<(), String>,
) -> Result<T, D::Error> {
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
    fn optional<'de, D: Deserializer<'de>>(
        d: D,
        rule: fn(Real) -> Result<(), String>,
    ) -> Result<Option<Real>, D::Error> {
        let v = Option::<Real>::deserialize(d)?;
        if let Some(v) = v {
            rule(v).map_err(D::Error::custom)?;
        }
        Ok(v)
    }
}
