//! Scalar and vector types shared by the whole engine, and the rigid pose.

use serde::{Deserialize, Serialize};

/// The engine's scalar. Switching to f64 means switching the glam types below as well.
pub type Real = f32;
pub use glam::{Mat3, Mat4, Quat, Vec3};

/// A length in a unit that suits it: metres with two decimals from 1 m, else millimetres (to
/// the micrometre) or micrometres, without trailing zeros.
pub fn length_text(m: Real) -> String {
    let trimmed = |v: f32, decimals: usize, unit: &str| {
        let t = format!("{v:.decimals$}");
        format!("{} {unit}", t.trim_end_matches('0').trim_end_matches('.'))
    };
    if m >= 1.0 {
        format!("{m:.2} m")
    } else if m >= 1e-3 {
        trimmed(m * 1e3, 3, "mm")
    } else {
        trimmed(m * 1e6, 2, "µm")
    }
}

/// `v` with `decimals` places, a value that rounds to zero written `0.00`, not `-0.00`.
pub fn fixed_text(v: Real, decimals: usize) -> String {
    let scale = 10f64.powi(decimals as i32);
    let rounded = (f64::from(v) * scale).round() / scale + 0.0;
    format!("{rounded:.decimals$}")
}

/// A rigid transform: rotate, then translate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pose {
    /// Orientation.
    pub rotation: Quat,
    /// Position of the body's origin (its centre of mass).
    pub translation: Vec3,
}

impl Default for Pose {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Pose {
    /// No rotation, at the origin.
    pub const IDENTITY: Pose = Pose { rotation: Quat::IDENTITY, translation: Vec3::ZERO };

    /// A pose from its position and orientation.
    pub fn new(translation: Vec3, rotation: Quat) -> Self {
        Self { rotation, translation }
    }

    /// A pose at `translation`, not rotated.
    pub fn from_translation(translation: Vec3) -> Self {
        Self { rotation: Quat::IDENTITY, translation }
    }

    #[inline]
    /// A point from local to world coordinates.
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.translation
    }

    #[inline]
    /// A direction from local to world coordinates.
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    #[inline]
    /// A point from world to local coordinates.
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.translation)
    }

    #[inline]
    /// A direction from world to local coordinates.
    pub fn inverse_transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation.inverse() * v
    }

    /// The pose that undoes this one.
    pub fn inverse(&self) -> Pose {
        let r = self.rotation.inverse();
        Pose { rotation: r, translation: -(r * self.translation) }
    }

    /// `self * other`: apply `other` first, then `self`.
    pub fn mul(&self, other: &Pose) -> Pose {
        Pose {
            rotation: (self.rotation * other.rotation).normalize(),
            translation: self.transform_point(other.translation),
        }
    }

    /// The pose of `other` expressed in this pose's local frame.
    pub fn inv_mul(&self, other: &Pose) -> Pose {
        self.inverse().mul(other)
    }

    /// The pose as a 4×4 matrix (for drawing).
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_rotation_translation(self.rotation, self.translation)
    }

    /// Whether every component is finite.
    pub fn is_finite(&self) -> bool {
        self.rotation.is_finite() && self.translation.is_finite()
    }
}

/// Two unit vectors orthogonal to `n` and to each other (a right-handed basis with `n`).
pub fn orthonormal_basis(n: Vec3) -> (Vec3, Vec3) {
    // Duff et al., "Building an Orthonormal Basis, Revisited".
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vec3::new(b, sign + n.y * n.y * a, -n.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pose_inverse_round_trips() {
        let p = Pose::new(Vec3::new(1.0, -2.0, 3.0), Quat::from_euler(glam::EulerRot::XYZ, 0.3, 1.1, -0.7));
        let x = Vec3::new(0.5, 0.25, -4.0);
        assert!((p.inverse_transform_point(p.transform_point(x)) - x).length() < 1e-5);
        assert!((p.inverse().transform_point(p.transform_point(x)) - x).length() < 1e-5);
        let q = Pose::new(Vec3::X, Quat::from_rotation_y(0.4));
        assert!((p.inv_mul(&p.mul(&q)).translation - q.translation).length() < 1e-5);
    }

    #[test]
    fn basis_is_orthonormal() {
        for n in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::new(1.0, 2.0, -3.0).normalize()] {
            let (t1, t2) = orthonormal_basis(n);
            assert!(t1.dot(n).abs() < 1e-6 && t2.dot(n).abs() < 1e-6 && t1.dot(t2).abs() < 1e-6);
            assert!((t1.length() - 1.0).abs() < 1e-5 && (t2.length() - 1.0).abs() < 1e-5);
            assert!((t1.cross(t2) - n).length() < 1e-5);
        }
    }
}
