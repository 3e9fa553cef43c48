use crate::math::{Real, Vec3};

/// A ray `origin + t * dir`. `dir` need not be unit length; `t` is in units of `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    pub origin: Vec3,
    pub dir: Vec3,
}

impl Ray {
    pub fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, dir }
    }

    pub fn at(&self, t: Real) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// Where a ray first meets a shape: parameter, world point and outward surface normal.
/// A ray that starts inside a solid shape hits at `t = 0` with the normal opposing `dir`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    pub t: Real,
    pub point: Vec3,
    pub normal: Vec3,
}
