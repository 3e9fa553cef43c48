//! Batch kernels: many pairs at once in structure-of-arrays layout, so the per-pair arithmetic
//! runs several lanes at a time. Each kernel writes one answer per pair and agrees with the
//! scalar pair function (tests below and in `tests/suite/narrowphase/batch.rs`).
//!
//! On x86-64 CPUs with AVX the kernels run 8 lanes wide (detected at run time); elsewhere the
//! portable build runs whatever width the compiler vectorises to (4 lanes with SSE2).

mod article;
mod pairs;

pub use article::{ObbSoa, spheres_vs_obbs, spheres_vs_obbs_with};
pub use pairs::{
    AabbSoa, QuatSoa, intersect_aabb_aabb, intersect_sphere_aabb, intersect_sphere_cuboid, intersect_sphere_sphere,
    ray_interval_aabb,
};

use crate::math::{Quat, Real, Vec3};
use crate::simd::{Kernels, Level};
use thiserror::Error;

/// Which instruction set a batch kernel runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// Plain Rust, vectorised by the compiler for the baseline target (SSE2 on x86-64).
    Portable,
    /// 256-bit AVX, 8 lanes; only offered when the CPU has it.
    Avx,
}

impl Kernels for Backend {
    const LADDER: &'static [(Backend, Level)] = &[(Backend::Avx, Level::Avx), (Backend::Portable, Level::Baseline)];
}

impl Backend {
    /// The fastest backend this CPU runs.
    pub fn best() -> Backend {
        <Backend as Kernels>::best()
    }

    /// Every backend this CPU runs (for tests and benchmarks).
    pub fn available() -> Vec<Backend> {
        <Backend as Kernels>::available()
    }
}

/// The inputs of a batch call do not describe the same number of pairs.
#[derive(Clone, Copy, Debug, Error, PartialEq, Eq)]
#[error("batch input `{what}` has {got} entries, the output has {want}")]
pub struct LengthMismatch {
    /// Which input.
    pub what: &'static str,
    /// Its length.
    pub got: usize,
    /// The output's length.
    pub want: usize,
}

pub(crate) fn check_len(what: &'static str, got: usize, want: usize) -> Result<(), LengthMismatch> {
    if got == want { Ok(()) } else { Err(LengthMismatch { what, got, want }) }
}

/// Points (or vectors) stored coordinate by coordinate.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Vec3Soa {
    /// The x coordinates.
    pub x: Vec<Real>,
    /// The y coordinates.
    pub y: Vec<Real>,
    /// The z coordinates.
    pub z: Vec<Real>,
}

impl Vec3Soa {
    /// Points stored (the shortest coordinate array).
    pub fn len(&self) -> usize {
        self.x.len().min(self.y.len()).min(self.z.len())
    }

    /// Whether no point is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends a point.
    pub fn push(&mut self, v: Vec3) {
        self.x.push(v.x);
        self.y.push(v.y);
        self.z.push(v.z);
    }

    /// Point `i`.
    pub fn get(&self, i: usize) -> Vec3 {
        Vec3::new(self.x[i], self.y[i], self.z[i])
    }

    /// The first `n` of each coordinate, as three slices (one bounds check each, up front, so
    /// the kernels' loops have none).
    #[inline(always)]
    pub(crate) fn head(&self, n: usize) -> (&[Real], &[Real], &[Real]) {
        (&self.x[..n], &self.y[..n], &self.z[..n])
    }
}

impl FromIterator<Vec3> for Vec3Soa {
    fn from_iter<I: IntoIterator<Item = Vec3>>(iter: I) -> Self {
        let mut s = Self::default();
        for v in iter {
            s.push(v);
        }
        s
    }
}

impl FromIterator<Quat> for QuatSoa {
    fn from_iter<I: IntoIterator<Item = Quat>>(iter: I) -> Self {
        let mut s = Self::default();
        for q in iter {
            s.x.push(q.x);
            s.y.push(q.y);
            s.z.push(q.z);
            s.w.push(q.w);
        }
        s
    }
}

pub(crate) use crate::simd::{avx_wrapper, run_on};
