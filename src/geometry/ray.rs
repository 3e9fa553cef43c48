use crate::math::{Real, Vec3};

/// A ray `origin + t * dir`. `dir` need not be unit length; `t` is in units of `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Its direction (not necessarily unit length).
    pub dir: Vec3,
}

impl Ray {
    /// A ray from `origin` along `dir`.
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    /// The point at parameter `t`.
    pub fn at(&self, t: Real) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// Where a ray first meets a shape: parameter, world point and outward surface normal.
/// A ray that starts inside a solid shape hits at `t = 0` with the normal opposing `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// The ray parameter of the hit.
    pub t: Real,
    /// The hit point.
    pub point: Vec3,
    /// The outward surface normal there.
    pub normal: Vec3,
}
