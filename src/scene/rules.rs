//! Value rules shared by scene loading (which reports where a bad value sits in the file) and
//! by live edits (which report the field). Each rule says what is wrong in words.

use crate::math::{Real, Vec3};
use serde::de::{Deserialize, Deserializer, Error};

pub fn finite(v: Real) -> Result<(), String> {
    if v.is_finite() { Ok(()) } else { Err(format!("{v} is not a finite number")) }
}

pub fn positive(v: Real) -> Result<(), String> {
    finite(v)?;
    if v > 0.0 { Ok(()) } else { Err(format!("{v} must be greater than 0")) }
}

pub fn non_negative(v: Real) -> Result<(), String> {
    finite(v)?;
    if v >= 0.0 { Ok(()) } else { Err(format!("{v} must not be negative")) }
}

pub fn unit_interval(v: Real) -> Result<(), String> {
    finite(v)?;
    if (0.0..=1.0).contains(&v) { Ok(()) } else { Err(format!("{v} must lie between 0 and 1")) }
}

pub fn finite_vec3(v: Vec3) -> Result<(), String> {
    if v.is_finite() {
        Ok(())
    } else {
        Err(format!("({}, {}, {}) has a component that is not a finite number", v.x, v.y, v.z))
    }
}

pub fn positive_vec3(v: Vec3) -> Result<(), String> {
    finite_vec3(v)?;
    if v.cmpgt(Vec3::ZERO).all() {
        Ok(())
    } else {
        Err(format!("({}, {}, {}): every component must be greater than 0", v.x, v.y, v.z))
    }
}

/// Checks `v` against `rule`, naming `field` in the message.
pub fn field<T>(field: &str, v: T, rule: fn(T) -> Result<(), String>) -> Result<(), String> {
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
pub mod de {
    use super::*;

    pub fn finite<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::finite)
    }
    pub fn positive<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::positive)
    }
    pub fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::non_negative)
    }
    pub fn unit_interval<'de, D: Deserializer<'de>>(d: D) -> Result<Real, D::Error> {
        checked(d, super::unit_interval)
    }
    pub fn finite_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::finite_vec3)
    }
    pub fn positive_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
        checked(d, super::positive_vec3)
    }
}
