//! A seeded random generator for scene generators and tests: the same seed gives the same
//! numbers everywhere.

use crate::math::{Quat, Real, Vec3};

/// A small deterministic generator (SplitMix64): the same seed gives the same scene everywhere.
pub struct SplitMix64(u64);

impl SplitMix64 {
    /// A generator from its seed.
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn next_real(&mut self) -> Real {
        (self.next_u64() >> 40) as Real / (1u64 << 24) as Real
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: Real, hi: Real) -> Real {
        lo + (hi - lo) * self.next_real()
    }

    /// Each coordinate uniform in [lo, hi).
    pub fn vec3(&mut self, lo: Real, hi: Real) -> Vec3 {
        Vec3::new(self.range(lo, hi), self.range(lo, hi), self.range(lo, hi))
    }

    /// A unit vector (normalised from the cube [-1, 1)³; +Y if that is degenerate).
    pub fn unit_vector(&mut self) -> Vec3 {
        self.vec3(-1.0, 1.0).normalize_or(Vec3::Y)
    }

    /// A uniformly random rotation (Shoemake).
    pub fn rotation(&mut self) -> Quat {
        let (u1, u2, u3) = (self.next_real(), self.next_real(), self.next_real());
        let tau = std::f32::consts::TAU;
        let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
        Quat::from_xyzw(a * (tau * u2).sin(), a * (tau * u2).cos(), b * (tau * u3).sin(), b * (tau * u3).cos())
            .normalize()
    }
}
