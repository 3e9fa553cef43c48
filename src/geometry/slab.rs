//! The slab method spelled out: a box is the intersection of three slabs (the space between two
//! parallel planes per axis); a ray is inside the box for the `t` inside all three slab
//! intervals at once. [`Aabb::ray_interval`] runs the same per-axis step, [`slab_axis`], so what
//! the app's Ray tool lists is what the engine's ray casts and broad-phase ray queries compute.

use super::Aabb;
use crate::math::{Real, Vec3};

/// One axis of the slab test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum SlabAxis {
    /// The ray crosses the slab's planes at `t_near <= t_far` (not yet clamped to `[0, max_t]`).
    Crosses {
        /// Where the ray enters the slab.
        t_near: Real,
        /// Where it leaves.
        t_far: Real,
    },
    /// Direction component 0 with the origin between the planes: every `t` is inside the slab.
    ParallelInside,
    /// Direction component 0 with the origin outside the planes: no `t` is; the ray misses.
    ParallelOutside,
}

/// The slab `[lo, hi]` on one axis against the ray's origin `o` and direction component `d`.
/// A zero component never divides: the parallel cases are decided by where the origin lies.
#[inline]
pub fn slab_axis(o: Real, d: Real, lo: Real, hi: Real) -> SlabAxis {
    if d == 0.0 {
        return if o < lo || o > hi { SlabAxis::ParallelOutside } else { SlabAxis::ParallelInside };
    }
    let inv = 1.0 / d;
    let (ta, tb) = ((lo - o) * inv, (hi - o) * inv);
    if ta > tb { SlabAxis::Crosses { t_near: tb, t_far: ta } } else { SlabAxis::Crosses { t_near: ta, t_far: tb } }
}

/// Every step of the slab test of one ray against one box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlabTrace {
    /// The x, y and z slabs.
    pub axes: [SlabAxis; 3],
    /// The largest entry of the three slabs and 0; the smallest exit and `max_t`. The ray is in
    /// the box for `t_enter <= t <= t_exit`; `t_enter > t_exit` is a miss.
    pub t_enter: Real,
    /// The smallest exit of the three slabs and `max_t`.
    pub t_exit: Real,
    /// The axis whose entry plane sets `t_enter` (`None`: the ray's start, `t = 0`, does).
    pub enter_axis: Option<usize>,
    /// The axis whose exit plane sets `t_exit` (`None`: the ray's end, `max_t`, does).
    pub exit_axis: Option<usize>,
    /// The origin lies in the box (so `t_enter = 0`).
    pub origin_inside: bool,
    /// The ray's largest parameter.
    pub max_t: Real,
}

impl SlabTrace {
    /// `(t_enter, t_exit)` when the ray meets the box within `[0, max_t]`; equal to
    /// [`Aabb::ray_interval`] for the same arguments.
    pub fn hit(&self) -> Option<(Real, Real)> {
        let parallel_miss = self.axes.contains(&SlabAxis::ParallelOutside);
        (!parallel_miss && self.t_enter <= self.t_exit).then_some((self.t_enter, self.t_exit))
    }

    /// The axis that rules the ray out without any `t`: parallel to it and outside its slab.
    pub fn parallel_miss_axis(&self) -> Option<usize> {
        self.axes.iter().position(|a| *a == SlabAxis::ParallelOutside)
    }
}

/// The unit direction `heading` degrees from +x towards +z, tilted `elevation` degrees up from
/// the floor. Multiples of 90° give exact zeros, so a ray drawn level or along an axis is
/// exactly parallel to the slabs it should be (cos 90° in floating point is not 0).
pub fn direction_from_degrees(heading: Real, elevation: Real) -> Vec3 {
    let cos_sin = |deg: Real| -> (Real, Real) {
        let d = deg.rem_euclid(360.0);
        match d {
            0.0 => (1.0, 0.0),
            90.0 => (0.0, 1.0),
            180.0 => (-1.0, 0.0),
            270.0 => (0.0, -1.0),
            _ => {
                let (s, c) = d.to_radians().sin_cos();
                (c, s)
            }
        }
    };
    let (ch, sh) = cos_sin(heading);
    let (ce, se) = cos_sin(elevation.clamp(-90.0, 90.0));
    Vec3::new(ce * ch, se, ce * sh)
}

impl Aabb {
    /// The slab test of `origin + t * dir`, `0 <= t <= max_t`, with every intermediate value:
    /// the per-axis intervals, which planes decide entry and exit, and the parallel and inside
    /// cases. Unlike [`Aabb::ray_interval`] it does not stop at the first empty intersection.
    pub fn slab_trace(&self, origin: Vec3, dir: Vec3, max_t: Real) -> SlabTrace {
        let axes = [0, 1, 2].map(|a| slab_axis(origin[a], dir[a], self.min[a], self.max[a]));
        let (mut t_enter, mut t_exit) = (0.0, max_t);
        let (mut enter_axis, mut exit_axis) = (None, None);
        for (a, axis) in axes.iter().enumerate() {
            if let SlabAxis::Crosses { t_near, t_far } = *axis {
                if t_near > t_enter {
                    t_enter = t_near;
                    enter_axis = Some(a);
                }
                if t_far < t_exit {
                    t_exit = t_far;
                    exit_axis = Some(a);
                }
            }
        }
        SlabTrace { axes, t_enter, t_exit, enter_axis, exit_axis, origin_inside: self.contains_point(origin), max_t }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Brute force in f64: the `t` samples (step `h`) of `[lo_t, hi_t]` whose point lies in the
    /// box on the axes in `axes`; returns the first and last such sample.
    fn sampled(b: &Aabb, o: Vec3, d: Vec3, axes: &[usize], lo_t: f64, hi_t: f64, h: f64) -> Option<(f64, f64)> {
        let n = ((hi_t - lo_t) / h).ceil() as i64;
        let inside = |t: f64| {
            axes.iter().all(|&a| {
                let x = o[a] as f64 + t * d[a] as f64;
                x >= b.min[a] as f64 && x <= b.max[a] as f64
            })
        };
        let mut found: Option<(f64, f64)> = None;
        for k in 0..=n {
            let t = (lo_t + k as f64 * h).min(hi_t);
            if inside(t) {
                found = Some(found.map_or((t, t), |(f, _)| (f, t)));
            }
        }
        found
    }

    /// A direction component: exactly zero a quarter of the time (the parallel case).
    fn component() -> impl Strategy<Value = f32> {
        prop_oneof![1 => Just(0.0f32), 3 => (0.05f32..2.0, any::<bool>()).prop_map(|(m, s)| if s { m } else { -m })]
    }

    fn case() -> impl Strategy<Value = (Aabb, Vec3, Vec3, f32)> {
        let v = |r: f32| (-r..r, -r..r, -r..r).prop_map(|(x, y, z)| Vec3::new(x, y, z));
        (v(3.0), (0.1f32..2.0, 0.1f32..2.0, 0.1f32..2.0), v(6.0), (component(), component(), component()), 0.5f32..12.0)
            .prop_map(|(c, (hx, hy, hz), o, (dx, dy, dz), max_t)| {
                (Aabb::from_center_half_extents(c, Vec3::new(hx, hy, hz)), o, Vec3::new(dx, dy, dz), max_t)
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, rng_seed: proptest::test_runner::RngSeed::Fixed(0x51ab), failure_persistence: None, ..ProptestConfig::default() })]

        /// Each axis's interval, and the intersection, against points sampled along the ray.
        #[test]
        fn trace_matches_sampling_along_the_ray((b, o, d, max_t) in case()) {
            let tr = b.slab_trace(o, d, max_t);
            let h = 2e-3;
            let tol = h + 1e-4;
            for a in 0..3 {
                let s = sampled(&b, o, d, &[a], -40.0, 40.0, h);
                match tr.axes[a] {
                    SlabAxis::ParallelInside => prop_assert_eq!(s, Some((-40.0, 40.0)), "axis {}", a),
                    SlabAxis::ParallelOutside => prop_assert_eq!(s, None, "axis {}", a),
                    SlabAxis::Crosses { t_near, t_far } => {
                        // Compared within the sampled window of t.
                        let (n, f) = ((t_near as f64).max(-40.0), (t_far as f64).min(40.0));
                        match s {
                            Some((sf, sl)) => prop_assert!((sf - n).abs() <= tol && (sl - f).abs() <= tol,
                                "axis {} slab [{}, {}] sampled [{}, {}]", a, t_near, t_far, sf, sl),
                            None => prop_assert!(f - n <= h, "axis {} slab [{}, {}] unsampled", a, t_near, t_far),
                        }
                    }
                }
            }
            let s = sampled(&b, o, d, &[0, 1, 2], 0.0, max_t as f64, h);
            match (tr.hit(), s) {
                (Some((t0, t1)), Some((f, l))) => prop_assert!(
                    (f - t0 as f64).abs() <= tol && (l - t1 as f64).abs() <= tol,
                    "hit [{}, {}] sampled [{}, {}]", t0, t1, f, l),
                (None, Some(s)) => prop_assert!(false, "missed, but samples {:?} are inside", s),
                // A hit shorter than the sampling step may fall between samples.
                (Some((t0, t1)), None) => prop_assert!(t1 - t0 <= h as f32, "hit [{}, {}] unsampled", t0, t1),
                (None, None) => {}
            }
            prop_assert_eq!(tr.origin_inside, b.contains_point(o));
            if tr.origin_inside {
                prop_assert_eq!(tr.hit().map(|h| h.0), Some(0.0));
            }
        }

        /// The trace and the engine's early-out slab test give the same answer, bit for bit.
        #[test]
        fn trace_agrees_with_ray_interval((b, o, d, max_t) in case()) {
            prop_assert_eq!(b.slab_trace(o, d, max_t).hit(), b.ray_interval(o, d, max_t));
        }
    }

    #[test]
    fn directions_on_the_axes_have_exact_zeros() {
        assert_eq!(direction_from_degrees(0.0, 0.0), Vec3::X);
        assert_eq!(direction_from_degrees(90.0, 0.0), Vec3::Z);
        assert_eq!(direction_from_degrees(-90.0, 0.0), -Vec3::Z);
        assert_eq!(direction_from_degrees(180.0, 0.0), -Vec3::X);
        assert_eq!(direction_from_degrees(33.0, 90.0).y, 1.0);
        assert_eq!(direction_from_degrees(33.0, 90.0).x, 0.0);
        let d = direction_from_degrees(30.0, 45.0);
        assert!((d.length() - 1.0).abs() < 1e-6);
        assert!((d.y - 0.5f32.sqrt()).abs() < 1e-6 && (d.z / d.x - 30f32.to_radians().tan()).abs() < 1e-5);
    }

    #[test]
    fn parallel_and_inside_cases_are_named() {
        let b = Aabb::new(Vec3::splat(-1.0), Vec3::splat(1.0));
        // Along x at y = 0.5: parallel to the y and z slabs, inside both.
        let tr = b.slab_trace(Vec3::new(-5.0, 0.5, 0.0), Vec3::X, 100.0);
        assert_eq!(tr.axes[0], SlabAxis::Crosses { t_near: 4.0, t_far: 6.0 });
        assert_eq!(tr.axes[1], SlabAxis::ParallelInside);
        assert_eq!(tr.axes[2], SlabAxis::ParallelInside);
        assert_eq!((tr.hit(), tr.enter_axis, tr.exit_axis), (Some((4.0, 6.0)), Some(0), Some(0)));
        // The same line at y = 2: the y slab rules it out with no t at all.
        let tr = b.slab_trace(Vec3::new(-5.0, 2.0, 0.0), Vec3::X, 100.0);
        assert_eq!((tr.axes[1], tr.hit(), tr.parallel_miss_axis()), (SlabAxis::ParallelOutside, None, Some(1)));
        // From the centre: the entry is the ray's start (t = 0), not a plane.
        let tr = b.slab_trace(Vec3::ZERO, Vec3::new(1.0, 0.5, 0.0), 100.0);
        assert!(tr.origin_inside);
        assert_eq!(tr.axes[0], SlabAxis::Crosses { t_near: -1.0, t_far: 1.0 });
        assert_eq!((tr.hit(), tr.enter_axis, tr.exit_axis), (Some((0.0, 1.0)), None, Some(0)));
        // Too short to reach the box: the end of the ray (max_t) is the exit.
        let tr = b.slab_trace(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 3.0);
        assert_eq!((tr.t_enter, tr.t_exit, tr.exit_axis, tr.hit()), (4.0, 3.0, None, None));
        // Passing beside the box: x and z intervals do not overlap.
        let tr = b.slab_trace(Vec3::new(-5.0, 0.0, -5.0), Vec3::new(1.0, 0.0, 0.25), 100.0);
        assert_eq!(tr.axes[0], SlabAxis::Crosses { t_near: 4.0, t_far: 6.0 });
        assert_eq!(tr.axes[2], SlabAxis::Crosses { t_near: 16.0, t_far: 24.0 });
        assert_eq!((tr.t_enter, tr.t_exit, tr.hit()), (16.0, 6.0, None));
    }
}
