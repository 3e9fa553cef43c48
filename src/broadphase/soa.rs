//! Boxes as structure-of-arrays, scanned eight at a time with a branch-free mask the compiler
//! vectorises: the kernel of brute force, and of testing oversized bodies against all.

use crate::geometry::Aabb;
use crate::math::Real;

#[derive(Default)]
pub(super) struct SoaBoxes {
    min_x: Vec<Real>,
    min_y: Vec<Real>,
    min_z: Vec<Real>,
    max_x: Vec<Real>,
    max_y: Vec<Real>,
    max_z: Vec<Real>,
}

impl SoaBoxes {
    pub fn load<'a>(&mut self, aabbs: impl Iterator<Item = &'a Aabb> + Clone) {
        let fill = |v: &mut Vec<Real>, f: &dyn Fn(&Aabb) -> Real| {
            v.clear();
            v.extend(aabbs.clone().map(f));
        };
        fill(&mut self.min_x, &|a| a.min.x);
        fill(&mut self.min_y, &|a| a.min.y);
        fill(&mut self.min_z, &|a| a.min.z);
        fill(&mut self.max_x, &|a| a.max.x);
        fill(&mut self.max_y, &|a| a.max.y);
        fill(&mut self.max_z, &|a| a.max.z);
    }

    pub fn len(&self) -> usize {
        self.min_x.len()
    }

    /// Calls `hit(j)` for every `j >= from` whose box overlaps `a`, in ascending order.
    #[inline]
    pub fn overlapping(&self, a: &Aabb, from: usize, mut hit: impl FnMut(usize)) {
        let (ax0, ay0, az0, ax1, ay1, az1) = (a.min.x, a.min.y, a.min.z, a.max.x, a.max.y, a.max.z);
        let r = from.min(self.len())..self.len();
        let (bx0, by0, bz0) = (&self.min_x[r.clone()], &self.min_y[r.clone()], &self.min_z[r.clone()]);
        let (bx1, by1, bz1) = (&self.max_x[r.clone()], &self.max_y[r.clone()], &self.max_z[r]);
        let m = bx0.len();
        let mut j = 0;
        while j + 8 <= m {
            let mut mask = 0u32;
            for k in 0..8 {
                let o = (ax0 <= bx1[j + k])
                    & (bx0[j + k] <= ax1)
                    & (ay0 <= by1[j + k])
                    & (by0[j + k] <= ay1)
                    & (az0 <= bz1[j + k])
                    & (bz0[j + k] <= az1);
                mask |= (o as u32) << k;
            }
            while mask != 0 {
                hit(from + j + mask.trailing_zeros() as usize);
                mask &= mask - 1;
            }
            j += 8;
        }
        while j < m {
            if ax0 <= bx1[j] && bx0[j] <= ax1 && ay0 <= by1[j] && by0[j] <= ay1 && az0 <= bz1[j] && bz0[j] <= az1 {
                hit(from + j);
            }
            j += 1;
        }
    }
}
