//! The bodies whose motion this step left the box the broad phase indexed for them, so that its
//! queries cannot be trusted to find them, and a query for those whose rest of the motion may
//! meet a sweep's box.
//!
//! In a crowd that lands, most bodies leave their box (a body that turns at all reaches its
//! bounding ball, past its box's margin), while only a few are swept: the listed bodies' boxes
//! are sorted into cells of a uniform grid by their low corner, so that a query reads the cells
//! near it rather than every listed body.

use super::resolve::{Remaining, motion_aabb};
use crate::broadphase::{cell_key, cell_of};
use crate::geometry::{Aabb, Shape};
use crate::math::{Real, Vec3};

/// Queries test every listed body until they have tested this many times as many bodies as
/// are listed (a sort costs about that much): a few sweeps in a small list never sort it.
const SCANS_BEFORE_SORT: usize = 8;

/// Boxes wider than this many times the median listed box stay out of the cells (they would
/// widen every query) and are tested by every query.
const WIDE_FACTOR: Real = 8.0;

/// Bodies whose motion left the box the broad phase indexed for them.
#[derive(Debug, Default)]
pub(super) struct Escaped {
    flags: Vec<bool>,
    list: Vec<u32>,
    /// For each listed body, a box that holds every box the sweep tests for the rest of its
    /// motion ([`reach_box`]).
    boxes: Vec<Aabb>,
    /// The listed bodies' boxes by cell, as of the last sort.
    cells: Cells,
    /// Bodies the queries tested one by one before the list was sorted.
    scanned: usize,
}

/// The listed bodies sorted by the cell of their box's low corner.
#[derive(Debug, Default)]
struct Cells {
    /// The list's bodies are sorted in (false until the first query of a list too long to scan).
    built: bool,
    inv_cell: Real,
    /// The widest box sorted in, padded against rounding: a box meets a query only if its low
    /// corner lies within this much below the query's.
    reach: Real,
    /// `(cell key, body)`, ascending.
    sorted: Vec<(u64, u32)>,
    /// Bodies listed or moved since the sort (their sorted entry, if any, may be stale).
    late: Vec<u32>,
    is_late: Vec<bool>,
    /// Bodies whose box is not finite or too wide for the cells.
    wide: Vec<u32>,
    /// Scratch for the median box size.
    sizes: Vec<Real>,
}

impl Escaped {
    /// No body listed yet, for `n` bodies.
    #[cfg(test)]
    pub(super) fn new(n: usize) -> Self {
        let mut e = Escaped::default();
        e.reset(n);
        e
    }

    /// No body listed, for `n` bodies, keeping the room of earlier steps' lists.
    pub(super) fn reset(&mut self, n: usize) {
        // Every field named, so that one added later is not carried from the last step.
        let Escaped { flags, list, boxes, cells, scanned } = self;
        let Cells { built, inv_cell, reach, sorted, late, is_late, wide, sizes } = cells;
        flags.clear();
        flags.resize(n, false);
        list.clear();
        boxes.clear();
        boxes.resize(n, Aabb::EMPTY);
        (*built, *inv_cell, *reach) = (false, 0.0, 0.0);
        sorted.clear();
        late.clear();
        is_late.clear();
        is_late.resize(n, false);
        wide.clear();
        sizes.clear();
        *scanned = 0;
    }

    /// Lists body `k` if its motion `m` left its indexed box (`aabbs[k]`), or keeps its box up
    /// to date if it is listed.
    pub(super) fn note(&mut self, k: usize, shape: &Shape, m: &Remaining, aabbs: &[Aabb]) {
        if self.flags[k] {
            self.moved(k, shape, m);
            return;
        }
        if Self::leaves(k, shape, m, aabbs) {
            self.list_left(k, shape, m);
        }
    }

    /// Lists body `k`, not listed yet, whose motion `m` is known to leave its indexed box
    /// ([`Escaped::leaves`]).
    pub(super) fn list_left(&mut self, k: usize, shape: &Shape, m: &Remaining) {
        debug_assert!(!self.flags[k], "body {k} is listed already");
        self.flags[k] = true;
        self.list.push(k as u32);
        self.boxes[k] = reach_box(shape, m);
        self.cells.changed(k);
    }

    /// Whether body `k`'s motion `m` leaves its indexed box (`aabbs[k]`, none: it does).
    pub(super) fn leaves(k: usize, shape: &Shape, m: &Remaining, aabbs: &[Aabb]) -> bool {
        !aabbs.get(k).is_some_and(|b| b.contains(&motion_aabb(shape, &m.motion)))
    }

    /// Body `k`'s remaining motion changed to `m`.
    pub(super) fn moved(&mut self, k: usize, shape: &Shape, m: &Remaining) {
        if self.flags[k] {
            self.boxes[k] = reach_box(shape, m);
            self.cells.changed(k);
        }
    }

    /// Adds to `out` the listed bodies whose rest of the motion may meet `aabb`: those whose
    /// kept box overlaps it, in no particular order and possibly more than once. The sweep
    /// skips a candidate whose box does not overlap `aabb`, and the box it tests lies within
    /// the one kept here, so the bodies left out are those it would skip.
    pub(super) fn meeting(&mut self, aabb: &Aabb, out: &mut Vec<u32>) {
        let overlapping = |k: &u32| self.boxes[*k as usize].overlaps(aabb);
        if !self.cells.built && self.scanned < SCANS_BEFORE_SORT * self.list.len() {
            self.scanned += self.list.len();
            out.extend(self.list.iter().copied().filter(overlapping));
            return;
        }
        let cells = &mut self.cells;
        if !cells.built || cells.late.len() > 64 + cells.sorted.len() / 8 {
            cells.sort(&self.list, &self.boxes);
        }
        let cells = &self.cells;
        out.extend(cells.wide.iter().chain(&cells.late).copied().filter(overlapping));
        cells.query(&self.boxes, aabb, out);
    }
}

impl Cells {
    /// Body `k`'s box changed or it was listed: once sorted, it is tested by every query until
    /// the next sort.
    fn changed(&mut self, k: usize) {
        if self.built && !self.is_late[k] {
            self.is_late[k] = true;
            self.late.push(k as u32);
        }
    }

    /// Sorts the listed bodies into cells twice the median box's size.
    fn sort(&mut self, list: &[u32], boxes: &[Aabb]) {
        for &k in &self.late {
            self.is_late[k as usize] = false;
        }
        self.late.clear();
        self.wide.clear();
        self.sorted.clear();
        self.built = true;
        let size = |b: &Aabb| b.extents().max_element();
        self.sizes.clear();
        self.sizes.extend(list.iter().map(|&k| &boxes[k as usize]).filter(|b| b.is_valid()).map(size));
        self.sizes.retain(|s| s.is_finite());
        if self.sizes.is_empty() {
            self.wide.extend_from_slice(list);
            return;
        }
        let mid = self.sizes.len() / 2;
        let median = *self.sizes.select_nth_unstable_by(mid, Real::total_cmp).1;
        let limit = WIDE_FACTOR * median.max(1e-3);
        let cell = 2.0 * median.max(1e-3);
        self.inv_cell = 1.0 / cell;
        let mut widest: Real = 0.0;
        for &k in list {
            let b = &boxes[k as usize];
            let s = size(b);
            if b.is_valid() && s <= limit {
                widest = widest.max(s);
                self.sorted.push((cell_key(cell_of(b.min, self.inv_cell)), k));
            } else {
                self.wide.push(k);
            }
        }
        // The extents are rounded, and so is the query's low corner less this: pad both.
        self.reach = widest * (1.0 + 1e-3) + 1e-4;
        self.sorted.sort_unstable();
    }

    /// Adds to `out` the sorted bodies whose box overlaps `aabb` (and some that have moved
    /// since, which the late list holds anyway).
    fn query(&self, boxes: &[Aabb], aabb: &Aabb, out: &mut Vec<u32>) {
        if self.sorted.is_empty() {
            return;
        }
        let overlapping = |&(_, k): &(u64, u32)| boxes[k as usize].overlaps(aabb).then_some(k);
        // A box meets `aabb` only if its low corner lies in [aabb.min - reach, aabb.max] on
        // every axis (its extent is at most `reach`).
        let pad = self.reach + 1e-6 * aabb.min.abs().max(aabb.max.abs()).max_element();
        let (lo, hi) = (cell_of(aabb.min - Vec3::splat(pad), self.inv_cell), cell_of(aabb.max, self.inv_cell));
        let rows = (hi[1] as i64 - lo[1] as i64 + 1) * (hi[2] as i64 - lo[2] as i64 + 1);
        if !aabb.is_valid() || rows > (self.sorted.len() / 32) as i64 {
            out.extend(self.sorted.iter().filter_map(overlapping));
            return;
        }
        // Keys hold x in their low bits: a row's cells from `lo.x` to `hi.x` are one run.
        for z in lo[2]..=hi[2] {
            for y in lo[1]..=hi[1] {
                let (first, last) = (cell_key([lo[0], y, z]), cell_key([hi[0], y, z]));
                let start = self.sorted.partition_point(|e| e.0 < first);
                let run = &self.sorted[start..];
                let end = run.partition_point(|e| e.0 <= last);
                out.extend(run[..end].iter().filter_map(overlapping));
            }
        }
    }
}

/// A box holding [`motion_aabb`] of the shape over `m.motion_from(t)` for every `t`: the rest
/// of the motion from any time keeps its centre on the segment between the motion's ends
/// (linear) and, for a sphere, capsule, box or hull, the shape's box within its bounding ball
/// about the centre at any turn, so the balls at both ends hold it; padded well past rounding.
/// Any other shape's box (a mesh's turned local box) may leave that ball: it gets every place.
fn reach_box(shape: &Shape, m: &Remaining) -> Aabb {
    if !matches!(shape, Shape::Sphere(_) | Shape::Capsule(_) | Shape::Cuboid(_) | Shape::ConvexHull(_)) {
        return Aabb { min: Vec3::splat(Real::NEG_INFINITY), max: Vec3::splat(Real::INFINITY) };
    }
    let r = shape.bounding_radius();
    let mut b = motion_aabb(shape, &m.motion);
    for c in [m.motion.start.translation, m.motion.end.translation] {
        b = b.merge(&Aabb::from_center_half_extents(c, Vec3::splat(r)));
    }
    let size = b.min.abs().max(b.max.abs()).max_element();
    b.expanded(1e-3 + 1e-5 * size + 1e-3 * r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ccd::Motion;
    use crate::math::{Pose, Quat};
    use crate::rng::SplitMix64;

    fn sorted(mut v: Vec<u32>) -> Vec<u32> {
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The cells find exactly the listed bodies whose kept box overlaps the query, as testing
    /// every one does: bodies of several sizes (a few far wider than the rest, a mesh with the
    /// whole space), far from the origin and near it, listed and moved between queries.
    #[test]
    fn meeting_finds_what_a_scan_finds() {
        let mut rng = SplitMix64::new(37);
        let n = 3000;
        let shapes = [
            Shape::sphere(0.25),
            Shape::cuboid(Vec3::splat(0.25)),
            Shape::capsule(0.2, 0.15),
            Shape::cuboid(Vec3::new(9.0, 0.3, 0.3)),
        ];
        let triangle = crate::geometry::TriangleMesh::new(vec![Vec3::ZERO, Vec3::X, Vec3::Z], vec![[0, 1, 2]]);
        let mesh = Shape::TriangleMesh(std::sync::Arc::new(triangle.expect("one triangle")));
        let shape_of = |k: usize| if k == 7 { &mesh } else { &shapes[k % 7 % 4] };
        let motion = |rng: &mut SplitMix64, k: usize| {
            let far = if k.is_multiple_of(5) { 3.0e4 } else { 0.0 };
            let start = Pose { translation: rng.vec3(-30.0, 30.0) + Vec3::X * far, rotation: Quat::IDENTITY };
            let to = start.translation + rng.vec3(-2.0, 2.0);
            let turn = if k.is_multiple_of(3) { Vec3::ZERO } else { rng.vec3(-0.5, 0.5) };
            Remaining { motion: Motion::turning(start, to, turn), t_from: rng.range(0.0, 0.5) }
        };
        // No indexed box holds any motion: every body noted is listed.
        let aabbs = vec![Aabb::EMPTY; n];
        let mut escaped = Escaped::new(n);
        let scan = |e: &Escaped, q: &Aabb| {
            sorted(e.list.iter().copied().filter(|&k| e.boxes[k as usize].overlaps(q)).collect())
        };
        let mut found = 0;
        for round in 0..4 {
            for _ in 0..[n / 2, 20, 400, 3][round] {
                let k = (rng.next_u64() % n as u64) as usize;
                let m = motion(&mut rng, k);
                escaped.note(k, shape_of(k), &m, &aabbs);
            }
            for q in 0..300usize {
                let c =
                    if q.is_multiple_of(2) { rng.vec3(-30.0, 30.0) } else { rng.vec3(-30.0, 30.0) + Vec3::X * 3.0e4 };
                let query = Aabb::from_center_half_extents(c, Vec3::splat(rng.range(0.01, 4.0)));
                let mut out = Vec::new();
                escaped.meeting(&query, &mut out);
                let want = scan(&escaped, &query);
                assert_eq!(sorted(out), want, "round {round}, query {q}");
                found += want.len();
            }
        }
        assert!(escaped.cells.built && !escaped.cells.wide.is_empty(), "the cells and the wide list were used");
        assert!(found > 1000, "queries found bodies: {found}");
    }

    /// A list reset after a step whose queries sorted it answers the next step as a new one.
    #[test]
    fn a_reset_list_answers_as_a_new_one() {
        let mut rng = SplitMix64::new(41);
        let shape = Shape::cuboid(Vec3::splat(0.25));
        let step = |e: &mut Escaped, n: usize, rng: &mut SplitMix64| {
            let aabbs = vec![Aabb::EMPTY; n];
            for k in 0..n {
                let start = Pose::from_translation(rng.vec3(-20.0, 20.0));
                let m = Motion::turning(start, start.translation + rng.vec3(-1.0, 1.0), Vec3::ZERO);
                e.note(k, &shape, &Remaining { motion: m, t_from: 0.0 }, &aabbs);
            }
            (0..200)
                .map(|_| {
                    let query = Aabb::from_center_half_extents(rng.vec3(-20.0, 20.0), Vec3::splat(2.0));
                    let mut out = Vec::new();
                    e.meeting(&query, &mut out);
                    sorted(out)
                })
                .collect::<Vec<_>>()
        };
        let mut used = Escaped::new(500);
        step(&mut used, 500, &mut rng);
        assert!(used.cells.built, "the first step sorted its list");
        used.reset(300);
        let (mut a, mut b) = (SplitMix64::new(43), SplitMix64::new(43));
        assert_eq!(step(&mut used, 300, &mut a), step(&mut Escaped::new(300), 300, &mut b));
    }
}
