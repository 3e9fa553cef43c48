use crate::math::{Mat3, Real, Vec3};
use std::f32::consts::PI;

/// Mass, centre of mass (local frame) and inertia tensor about the centre of mass.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass, kg.
    pub mass: Real,
    /// Centre of mass in the shape's frame.
    pub local_com: Vec3,
    /// Inertia tensor about the centre of mass, kg·m².
    pub inertia: Mat3,
}

impl MassProperties {
    /// A solid ball of radius `r`.
    pub fn sphere(r: Real, density: Real) -> Self {
        let mass = density * 4.0 / 3.0 * PI * r * r * r;
        Self::diagonal(mass, Vec3::splat(0.4 * mass * r * r))
    }

    /// A solid box of half extents `h`.
    pub fn cuboid(h: Vec3, density: Real) -> Self {
        let mass = density * 8.0 * h.x * h.y * h.z;
        let (x2, y2, z2) = (h.x * h.x, h.y * h.y, h.z * h.z);
        Self::diagonal(mass, Vec3::new(y2 + z2, x2 + z2, x2 + y2) * (mass / 3.0))
    }

    /// A Y-axis capsule: a cylinder of height `2 * half_height` plus two hemispheres.
    pub fn capsule(half_height: Real, r: Real, density: Real) -> Self {
        let h = 2.0 * half_height;
        let mc = density * PI * r * r * h;
        let ms = density * 4.0 / 3.0 * PI * r * r * r;
        let iy = mc * r * r * 0.5 + ms * 0.4 * r * r;
        // Hemispheres: own inertia about their centroid plus the parallel-axis shift.
        let hemi_own = 0.4 * ms * r * r - ms * (3.0 * r / 8.0).powi(2);
        let shift = half_height + 3.0 * r / 8.0;
        let ix = mc * (r * r / 4.0 + h * h / 12.0) + hemi_own + ms * shift * shift;
        Self::diagonal(mc + ms, Vec3::new(ix, iy, ix))
    }

    /// Mass at the origin with a diagonal inertia tensor.
    pub fn diagonal(mass: Real, principal: Vec3) -> Self {
        Self { mass, local_com: Vec3::ZERO, inertia: Mat3::from_diagonal(principal) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capsule_of_zero_height_is_a_sphere() {
        let c = MassProperties::capsule(0.0, 0.7, 2.0);
        let s = MassProperties::sphere(0.7, 2.0);
        assert!((c.mass - s.mass).abs() < 1e-5);
        assert!((c.inertia.x_axis.x - s.inertia.x_axis.x).abs() < 1e-5);
        assert!((c.inertia.y_axis.y - s.inertia.y_axis.y).abs() < 1e-5);
    }

    #[test]
    fn unit_cube() {
        let c = MassProperties::cuboid(Vec3::splat(0.5), 1.0);
        assert!((c.mass - 1.0).abs() < 1e-6);
        assert!((c.inertia.x_axis.x - 1.0 / 6.0).abs() < 1e-6);
    }
}
