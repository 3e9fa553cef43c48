//! What a parameter tuner judges a run by, measured step by step on a world.

use crate::geometry::{Aabb, Ray, ray_cast};
use crate::math::{Pose, Real, Vec3};
use crate::world::World;

/// The figures of one run. Lower is better for all but `asleep`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Metrics {
    /// Mean wall time of a step, ms.
    pub ms_per_step: f64,
    /// Fastest resting body: the largest speed of an awake dynamic body in contact, over the
    /// second half of the run (jitter), m/s.
    pub jitter_max: Real,
    /// The 99th percentile of the same samples, m/s (to 1%).
    pub jitter_p99: Real,
    /// Deepest penetration of any contact over the run, m.
    pub penetration_max: Real,
    /// Largest rise of mechanical energy (kinetic plus gravitational) above its start, J: a
    /// stable run only loses energy.
    pub energy_rise: Real,
    /// Dynamic bodies whose centre passed through a static body, within one step or over a
    /// few (tunneling; see [`Crossings`]).
    pub tunneled: u32,
    /// Bodies asleep after the last step.
    pub asleep: u32,
    /// Largest distance between a body's final position and the same body's in the run with the
    /// scene's own settings, m (0 when there is no such run).
    pub divergence: Real,
}

/// The metric names, as used in CSV headers and `--require`.
pub const METRIC_NAMES: [&str; 8] =
    ["ms_per_step", "jitter_max", "jitter_p99", "penetration_max", "energy_rise", "tunneled", "asleep", "divergence"];

impl Metrics {
    /// The values in the order of [`METRIC_NAMES`].
    pub fn values(&self) -> [f64; 8] {
        [
            self.ms_per_step,
            self.jitter_max as f64,
            self.jitter_p99 as f64,
            self.penetration_max as f64,
            self.energy_rise as f64,
            self.tunneled as f64,
            self.asleep as f64,
            self.divergence as f64,
        ]
    }

    /// The value of the metric called `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        METRIC_NAMES.iter().position(|n| *n == name).map(|k| self.values()[k])
    }
}

/// Watches a world step by step and gathers [`Metrics`]. Call [`Probe::observe`] after every
/// step and [`Probe::finish`] at the end.
pub struct Probe {
    steps: u64,
    observed: u64,
    total_ms: f64,
    energy0: Real,
    speeds: SpeedHistogram,
    crossings: Crossings,
    tunneled: Vec<bool>,
    m: Metrics,
}

/// Kinetic plus gravitational potential energy of the dynamic bodies.
pub fn mechanical_energy(world: &World) -> Real {
    let g = world.settings.gravity;
    world
        .bodies()
        .iter()
        .filter(|b| b.is_dynamic())
        .map(|b| b.kinetic_energy() - b.mass() * g.dot(b.pose.translation))
        .sum()
}

impl Probe {
    /// Starts watching `world`, which will be stepped `steps` times.
    pub fn new(world: &World, steps: u64) -> Self {
        Probe {
            steps,
            observed: 0,
            total_ms: 0.0,
            energy0: mechanical_energy(world),
            speeds: SpeedHistogram::default(),
            crossings: Crossings::new(world),
            tunneled: vec![false; world.bodies().len()],
            m: Metrics::default(),
        }
    }

    /// Takes in the world's state after one step.
    pub fn observe(&mut self, world: &World) {
        self.observed += 1;
        self.total_ms += world.profile().total_ms;
        let bodies = world.bodies();
        let slop = world.settings.slop;
        let mut touching = vec![false; bodies.len()];
        for c in world.contacts() {
            let depth = c.manifold.max_depth();
            self.m.penetration_max = self.m.penetration_max.max(depth);
            if depth >= -slop {
                touching[c.a as usize] = true;
                touching[c.b as usize] = true;
            }
        }
        if self.observed * 2 > self.steps {
            for (b, _) in bodies.iter().zip(&touching).filter(|(b, t)| **t && b.is_dynamic() && !b.is_asleep()) {
                self.speeds.add(b.linvel.length());
            }
        }
        self.m.energy_rise = self.m.energy_rise.max(mechanical_energy(world) - self.energy0);
        self.count_crossings(world);
    }

    fn count_crossings(&mut self, world: &World) {
        self.tunneled.resize(world.bodies().len(), false);
        for (body, _) in self.crossings.observe(world) {
            self.tunneled[body] = true;
        }
    }

    /// The metrics of the run; `reference` holds the final positions of the run with the scene's
    /// own settings, for [`Metrics::divergence`].
    pub fn finish(mut self, world: &World, reference: Option<&[Vec3]>) -> Metrics {
        self.m.ms_per_step = if self.observed == 0 { 0.0 } else { self.total_ms / self.observed as f64 };
        self.m.jitter_max = self.speeds.max;
        self.m.jitter_p99 = self.speeds.quantile(0.99);
        self.m.tunneled = self.tunneled.iter().filter(|t| **t).count() as u32;
        self.m.asleep = world.bodies().iter().filter(|b| b.is_asleep()).count() as u32;
        if let Some(r) = reference {
            self.m.divergence =
                world.bodies().iter().zip(r).map(|(b, p)| b.pose.translation.distance(*p)).fold(0.0, Real::max);
        }
        self.m
    }
}

/// Finds dynamic bodies whose centre passes through a static body: the straight path from
/// where the body was last outside every static body to where it is enters a static shape and
/// leaves it again. A crossing within one step is found at that step; one spread over several
/// (the centre ends a step inside a wall and leaves it the next) at the step it leaves. For a
/// mesh or height field, a surface, crossing it within one step is passing through.
pub struct Crossings {
    /// Per body: where its path starts (its centre when last outside every static body) and
    /// the steps since.
    anchors: Vec<(Vec3, u32)>,
}

/// Steps a centre may stay inside a static body and still count as passing through it when it
/// leaves on the far side (a body stuck longer was pushed through, not tunneling).
const MAX_STEPS_INSIDE: u32 = 8;

impl Crossings {
    /// Starts watching `world`'s bodies where they are.
    pub fn new(world: &World) -> Self {
        Crossings { anchors: world.bodies().iter().map(|b| (b.pose.translation, 0)).collect() }
    }

    /// The `(body, static body)` crossings completed in the step just taken.
    pub fn observe(&mut self, world: &World) -> Vec<(usize, usize)> {
        let bodies = world.bodies();
        self.anchors.extend(bodies[self.anchors.len().min(bodies.len())..].iter().map(|b| (b.pose.translation, 0)));
        let statics: Vec<usize> = (0..bodies.len()).filter(|&i| bodies[i].kind == crate::BodyKind::Static).collect();
        let mut found = Vec::new();
        for (i, b) in bodies.iter().enumerate() {
            let (from, age) = self.anchors[i];
            let to = b.pose.translation;
            if !b.is_dynamic() || from == to {
                self.anchors[i] = (to, 0);
                continue;
            }
            let mut inside = false;
            let crossed = statics.iter().copied().find(|&s| {
                let (shape, pose) = (&bodies[s].shape, &bodies[s].pose);
                match passage(shape, pose, from, to) {
                    // A mesh is a surface: crossing it once is passing through.
                    Passage::Through => age == 0 || !shape.is_mesh(),
                    Passage::EndsInside => {
                        inside = true;
                        false
                    }
                    Passage::Misses => false,
                }
            });
            if let Some(s) = crossed {
                found.push((i, s));
            }
            self.anchors[i] =
                if inside && crossed.is_none() && age < MAX_STEPS_INSIDE { (from, age + 1) } else { (to, 0) };
        }
        found
    }
}

/// How a straight path meets a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Passage {
    /// It does not enter the shape between its ends.
    Misses,
    /// It enters the shape and ends inside it.
    EndsInside,
    /// It enters the shape and leaves it again before its end; for a mesh or height field (a
    /// surface), it crosses it.
    Through,
}

/// How the path `from → to` meets `shape` at `pose`.
fn passage(shape: &crate::geometry::Shape, pose: &Pose, from: Vec3, to: Vec3) -> Passage {
    let enter = ray_cast(shape, pose, &Ray::new(from, to - from), 1.0).map(|h| h.t);
    let Some(e) = enter.filter(|&e| e > 0.0 && e < 1.0) else {
        return Passage::Misses;
    };
    if shape.is_mesh() {
        return Passage::Through;
    }
    let leave = ray_cast(shape, pose, &Ray::new(to, from - to), 1.0).map(|h| h.t);
    if leave.is_some_and(|l| l > 0.0 && e < 1.0 - l) { Passage::Through } else { Passage::EndsInside }
}

/// Finds dynamic bodies whose centre passes through another dynamic body: the relative
/// analogue of [`Crossings`]. The path is taken in the frame of the body passed through (its
/// motion over the step undone), so two bodies flying at each other are caught as well as a
/// fast one through a slow one. A crossing within one step is found at that step; one over two
/// steps (the centre ends a step inside the other body and leaves it on the far side the next)
/// at the step it leaves. A centre that stays inside longer was pushed through, not carried.
pub struct Passings {
    /// Per body, its pose after the last step.
    last: Vec<Pose>,
    /// `(body, other, start)`: a centre that entered `other` in the last step and ended it
    /// inside, with where its path started, in `other`'s frame.
    inside: Vec<(usize, usize, Vec3)>,
}

impl Passings {
    /// Starts watching `world`'s bodies where they are.
    pub fn new(world: &World) -> Self {
        Passings { last: world.bodies().iter().map(|b| b.pose).collect(), inside: Vec::new() }
    }

    /// The `(body, other)` passings completed in the step just taken: `body`'s centre went
    /// through `other`, both dynamic and free to collide (not kept apart by a joint's `collide:
    /// false`).
    pub fn observe(&mut self, world: &World) -> Vec<(usize, usize)> {
        let bodies = world.bodies();
        self.last.extend(bodies[self.last.len().min(bodies.len())..].iter().map(|b| b.pose));
        // Candidates: the box of a body's centre path, widened by its bounding radius, holds
        // wherever the body was in the step (taken as moving straight), so a centre can only
        // pass through a body whose box its own box meets.
        let mut boxes: Vec<(usize, Aabb)> = bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.is_dynamic())
            .map(|(i, b)| {
                let path = Aabb::from_points([self.last[i].translation, b.pose.translation]);
                (i, path.expanded(b.shape.bounding_radius()))
            })
            .collect();
        boxes.sort_by(|a, b| a.1.min.x.total_cmp(&b.1.min.x));
        let was_inside = std::mem::take(&mut self.inside);
        let mut found = Vec::new();
        for (k, &(i, bi)) in boxes.iter().enumerate() {
            for &(j, bj) in &boxes[k + 1..] {
                if bj.min.x > bi.max.x {
                    break;
                }
                if !bi.overlaps(&bj) {
                    continue;
                }
                let moved = |n: usize| self.last[n] != bodies[n].pose;
                // A jointed pair that does not collide may overlap by design.
                if (!moved(i) && !moved(j)) || world.joint_filters(i, j) {
                    continue;
                }
                // The faster body first: it is the one that passed through the other.
                let faster_i = bodies[i].linvel.length_squared() >= bodies[j].linvel.length_squared();
                for (a, b) in if faster_i { [(i, j), (j, i)] } else { [(j, i), (i, j)] } {
                    let earlier = was_inside.iter().find(|e| e.0 == a && e.1 == b).map(|e| e.2);
                    let start =
                        earlier.unwrap_or_else(|| self.last[b].inverse_transform_point(self.last[a].translation));
                    let pose = &bodies[b].pose;
                    match passage(&bodies[b].shape, pose, pose.transform_point(start), bodies[a].pose.translation) {
                        Passage::Through => {
                            found.push((a, b));
                            break;
                        }
                        Passage::EndsInside if earlier.is_none() => self.inside.push((a, b, start)),
                        _ => {}
                    }
                }
            }
        }
        for (l, b) in self.last.iter_mut().zip(bodies) {
            *l = b.pose;
        }
        found
    }
}

/// Speeds counted in buckets 1% wide from 1e-9 m/s up (slower ones in the first), so the memory
/// stays fixed however long the run; the maximum is kept exactly.
struct SpeedHistogram {
    counts: Vec<u64>,
    total: u64,
    max: Real,
}

const SLOWEST: f64 = 1e-9;
const RATIO: f64 = 1.01;
/// Buckets up to 1e5 m/s, ten times the fastest speed a scene may give.
const BUCKETS: usize = 3240;

impl Default for SpeedHistogram {
    fn default() -> Self {
        SpeedHistogram { counts: vec![0; BUCKETS + 1], total: 0, max: 0.0 }
    }
}

impl SpeedHistogram {
    fn add(&mut self, v: Real) {
        let k = if (v as f64) <= SLOWEST { 0 } else { 1 + ((v as f64 / SLOWEST).ln() / RATIO.ln()) as usize };
        self.counts[k.min(BUCKETS)] += 1;
        self.total += 1;
        self.max = self.max.max(v);
    }

    /// The upper edge of the bucket holding the `q` quantile (never above the maximum); 0
    /// without samples.
    fn quantile(&self, q: f64) -> Real {
        let rank = ((self.total as f64 * q).ceil() as u64).max(1);
        let mut seen = 0;
        for (k, c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let edge = if k == 0 { SLOWEST } else { SLOWEST * RATIO.powi(k as i32) };
                return (edge as Real).min(self.max);
            }
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two 2 cm plates flying at each other, 1 m apart per step, weightless and with ccd Off,
    /// offset by `dy`: the first pair's centres cross in one step.
    fn plates(dy: Real) -> World {
        let text = format!(
            "(version: 1, name: \"plates\", settings: (ccd: Off, gravity: (0, 0, 0)), bodies: [
                (shape: Cuboid(half_extents: (0.01, 0.3, 0.3)), position: (-0.6, 0, 0), linear_velocity: (40, 0, 0)),
                (shape: Cuboid(half_extents: (0.01, 0.3, 0.3)), position: (0.61, {dy}, 0), linear_velocity: (-20, 0, 0)),
            ])"
        );
        crate::scene::Scene::parse(&text, "plates.ron").unwrap().build().unwrap()
    }

    #[test]
    fn two_bodies_flying_through_each_other_are_one_passing_and_a_miss_is_none() {
        for (dy, expected) in [(0.1, vec![(2, (0, 1))]), (0.7, vec![])] {
            let mut w = plates(dy);
            let mut p = Passings::new(&w);
            let mut found = Vec::new();
            for _ in 0..10 {
                w.step();
                found.extend(p.observe(&w).into_iter().map(|pair| (w.step_count(), pair)));
            }
            // The faster plate is the one named as passing.
            assert_eq!(found, expected, "offset {dy}");
        }
    }

    #[test]
    fn the_histogram_finds_quantiles_to_one_percent() {
        let mut h = SpeedHistogram::default();
        assert_eq!(h.quantile(0.99), 0.0);
        for k in 1..=1000 {
            h.add(k as Real * 1e-3);
        }
        let p99 = h.quantile(0.99);
        assert!((p99 - 0.99).abs() <= 0.0101, "{p99}");
        assert_eq!(h.max, 1.0);
        assert_eq!(h.quantile(1.0), 1.0);
        h.add(0.0);
        h.add(1e9);
        assert_eq!(h.max, 1e9);
    }
}
