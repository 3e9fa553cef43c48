use crate::math::{Real, Vec3};

/// Most points a manifold keeps.
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// One contact point in world space. `repr(C)`: the solver reads point and depth as floats
/// 0..4.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub struct ContactPoint {
    /// Midway between the two surfaces.
    pub point: Vec3,
    /// Penetration depth along the manifold normal: positive when overlapping, negative for a
    /// speculative point that is still apart.
    pub depth: Real,
    /// Feature id that stays the same while the same features touch; used for warm starting.
    pub id: u32,
}

/// A contact manifold between bodies A and B. The normal is a world-space unit vector pointing
/// from A to B; swapping A and B negates it and keeps the points.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Manifold {
    /// World-space unit normal from A to B.
    pub normal: Vec3,
    points: [ContactPoint; MAX_MANIFOLD_POINTS],
    len: u8,
}

impl Manifold {
    /// An empty manifold along `normal`.
    pub fn new(normal: Vec3) -> Self {
        Self { normal, ..Default::default() }
    }

    /// A manifold of the first `len` of `slots` (at most [`MAX_MANIFOLD_POINTS`]), the
    /// slots past them written as they are: the manifold [`Manifold::new`] and `len` pushes
    /// make when those slots hold `ContactPoint::default()`.
    pub(crate) fn from_slots(normal: Vec3, slots: [ContactPoint; MAX_MANIFOLD_POINTS], len: usize) -> Self {
        debug_assert!(len <= MAX_MANIFOLD_POINTS);
        Self { normal, points: slots, len: len as u8 }
    }

    /// A manifold of one point.
    pub fn single(normal: Vec3, point: Vec3, depth: Real, id: u32) -> Self {
        let mut m = Self::new(normal);
        m.push(ContactPoint { point, depth, id });
        m
    }

    /// The points.
    pub fn points(&self) -> &[ContactPoint] {
        &self.points[..self.len as usize]
    }

    /// Every point slot, those past [`Manifold::len`] included (any value there).
    pub(crate) fn slots(&self) -> &[ContactPoint; MAX_MANIFOLD_POINTS] {
        &self.points
    }

    /// The points, to edit.
    pub fn points_mut(&mut self) -> &mut [ContactPoint] {
        &mut self.points[..self.len as usize]
    }

    /// How many points.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether it has no point.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Adds a point; ignored once the manifold is full.
    pub fn push(&mut self, p: ContactPoint) {
        if (self.len as usize) < MAX_MANIFOLD_POINTS {
            self.points[self.len as usize] = p;
            self.len += 1;
        }
    }

    /// The manifold seen from B: the normal flips, the points stay.
    pub fn flipped(mut self) -> Self {
        self.normal = -self.normal;
        self
    }

    /// The deepest point's depth (−∞ without points).
    pub fn max_depth(&self) -> Real {
        self.points().iter().map(|p| p.depth).fold(Real::NEG_INFINITY, Real::max)
    }

    /// The deepest point, if any.
    pub fn deepest(&self) -> Option<ContactPoint> {
        self.points().iter().copied().max_by(|p, q| p.depth.total_cmp(&q.depth))
    }
}
