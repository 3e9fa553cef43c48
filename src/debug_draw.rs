//! What the engine can show: lines and points, each with a category the viewer can toggle.
//! The engine fills a [`DebugDraw`]; the app decides how to render it.

use crate::geometry::Aabb;
use crate::math::Vec3;

/// Categories of debug geometry; each is one toggle in the viewer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DrawCategory {
    /// Bodies' bounding boxes.
    Aabb,
    /// Contact points.
    ContactPoint,
    /// Contact normals, their length showing depth.
    ContactNormal,
    /// Each contact point's normal impulse and friction impulse of the last step, as arrows
    /// whose length is the impulse over the largest one drawn.
    ContactForce,
    /// Linear velocities.
    Velocity,
    /// The broad phase's structure: cells, nodes, intervals.
    BroadPhase,
    /// Candidate pairs from the broad phase.
    CandidatePair,
    /// CCD sweeps and impacts.
    Ccd,
    /// Narrow-phase internals: simplices, polytopes, clip stages.
    NarrowPhase,
    /// Ray casts.
    Ray,
    /// Triangle meshes and height fields near moving bodies: their triangles with active and
    /// inactive edges, the BVH nodes (or height-field cells) the mid phase visits, and each mesh
    /// contact's raw normal beside the corrected one.
    Mesh,
    /// Joints: anchors on both bodies, axes, limits as arcs and ranges, and the current error.
    Joint,
}

impl DrawCategory {
    /// Every category, in the order the viewer lists them.
    pub const ALL: [DrawCategory; 12] = [
        DrawCategory::Aabb,
        DrawCategory::ContactPoint,
        DrawCategory::ContactNormal,
        DrawCategory::ContactForce,
        DrawCategory::Velocity,
        DrawCategory::BroadPhase,
        DrawCategory::CandidatePair,
        DrawCategory::Ccd,
        DrawCategory::NarrowPhase,
        DrawCategory::Ray,
        DrawCategory::Mesh,
        DrawCategory::Joint,
    ];

    fn bit(self) -> u32 {
        1 << self as u32
    }
}

/// RGBA colour, components in [0, 1].
pub type Color = [f32; 4];

/// How a contact point is marked ([`DrawCategory::ContactPoint`]): its size in pixels.
pub const CONTACT_POINT_SIZE: f32 = 6.0;

/// Contact point colours, by [`contact_point_kind`]: red where the bodies overlap, blue for a
/// speculative point (a gap the solver may close).
pub const CONTACT_POINT_COLORS: [Color; 2] = [[1.0, 0.2, 0.2, 1.0], [0.3, 0.6, 1.0, 1.0]];

/// Contact point colours in an A/B view, whose bodies are coloured blue (same) to red (apart):
/// white where the bodies overlap, grey for a speculative point, so that no point reads as a
/// body's divergence.
pub const CONTACT_POINT_COLORS_AB: [Color; 2] = [[1.0, 1.0, 1.0, 1.0], [0.55, 0.55, 0.58, 1.0]];

/// The contact point colours of a view: [`CONTACT_POINT_COLORS_AB`] where its bodies are
/// coloured by divergence (`ab`), else [`CONTACT_POINT_COLORS`].
pub fn contact_point_colors(ab: bool) -> [Color; 2] {
    if ab { CONTACT_POINT_COLORS_AB } else { CONTACT_POINT_COLORS }
}

/// A contact normal's colour ([`DrawCategory::ContactNormal`]).
pub const CONTACT_NORMAL_COLOR: Color = [1.0, 0.3, 0.9, 1.0];

/// A contact point's normal impulse and friction impulse ([`DrawCategory::ContactForce`]).
pub const IMPULSE_COLORS: [Color; 2] = [[1.0, 1.0, 1.0, 1.0], [0.3, 0.95, 0.95, 1.0]];

/// 0 for a point of penetration `depth` ≥ 0, 1 for a gap: its index in [`CONTACT_POINT_COLORS`].
pub fn contact_point_kind(depth: f32) -> usize {
    usize::from(depth < 0.0)
}

/// Joint colours ([`DrawCategory::Joint`]).
pub mod joint_colors {
    use super::Color;
    /// A's anchor, and the arm from a body's centre to its anchor.
    pub const ANCHOR_A: Color = [1.0, 0.85, 0.2, 1.0];
    /// B's anchor.
    pub const ANCHOR_B: Color = [0.3, 0.9, 1.0, 1.0];
    /// The arm from each body's centre to its anchor, and a distance joint's link.
    pub const LINK: Color = [0.75, 0.75, 0.8, 1.0];
    /// A's axis (hinge, slider, cone, twist).
    pub const AXIS: Color = [0.95, 0.45, 0.95, 1.0];
    /// Limits: hinge and twist arcs, the cone's rim, the slider's range.
    pub const LIMIT: Color = [0.35, 0.95, 0.45, 1.0];
    /// A limit the joint sits on.
    pub const LIMIT_HIT: Color = [1.0, 0.55, 0.1, 1.0];
    /// Where the coordinate is: B's reference direction on a hinge or twist arc, B's axis in a cone.
    pub const CURRENT: Color = [1.0, 1.0, 1.0, 1.0];
    /// The joint's error: the gap between the anchors (or past a distance joint's length).
    pub const ERROR: Color = [1.0, 0.15, 0.15, 1.0];
}

#[derive(Clone, Copy, Debug, PartialEq)]
/// A line segment.
pub struct DebugLine {
    /// One end.
    pub a: Vec3,
    /// The other end.
    pub b: Vec3,
    /// Its colour.
    pub color: Color,
    /// The toggle it belongs to.
    pub category: DrawCategory,
}

#[derive(Clone, Copy, Debug, PartialEq)]
/// A point drawn as a dot.
pub struct DebugPoint {
    /// Where it is.
    pub p: Vec3,
    /// Size in pixels.
    pub size: f32,
    /// Its colour.
    pub color: Color,
    /// The toggle it belongs to.
    pub category: DrawCategory,
}

/// A list of primitives to draw this frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DebugDraw {
    /// The lines recorded.
    pub lines: Vec<DebugLine>,
    /// The points recorded.
    pub points: Vec<DebugPoint>,
    /// Categories not recorded, one bit each; zero records everything.
    skipped: u32,
}

impl DebugDraw {
    /// Records only the categories `keep` accepts, so a viewer with most layers off does not
    /// pay for building what it will not show. Producers can test [`DebugDraw::wants`] to skip
    /// whole loops.
    pub fn set_filter(&mut self, keep: impl Fn(DrawCategory) -> bool) {
        self.skipped = DrawCategory::ALL.iter().filter(|&&c| !keep(c)).fold(0, |m, c| m | c.bit());
    }

    /// Whether primitives of `category` are recorded.
    pub fn wants(&self, category: DrawCategory) -> bool {
        self.skipped & category.bit() == 0
    }

    /// Forgets every primitive (the category filter stays).
    pub fn clear(&mut self) {
        self.lines.clear();
        self.points.clear();
    }

    /// Records a line, unless its category is filtered out.
    pub fn line(&mut self, category: DrawCategory, a: Vec3, b: Vec3, color: Color) {
        if !self.wants(category) {
            return;
        }
        self.lines.push(DebugLine { a, b, color, category });
    }

    /// Records a point, unless its category is filtered out.
    pub fn point(&mut self, category: DrawCategory, p: Vec3, size: f32, color: Color) {
        if !self.wants(category) {
            return;
        }
        self.points.push(DebugPoint { p, size, color, category });
    }

    /// The twelve edges of an axis-aligned box.
    pub fn aabb(&mut self, category: DrawCategory, b: &Aabb, color: Color) {
        if !self.wants(category) {
            return;
        }
        for (i, j) in BOX_EDGES {
            self.line(category, b.corner(i), b.corner(j), color);
        }
    }

    /// The edges of an oriented box given its eight corners in the `i & 1, i & 2, i & 4` order.
    pub fn corners(&mut self, category: DrawCategory, corners: &[Vec3; 8], color: Color) {
        if !self.wants(category) {
            return;
        }
        for (i, j) in BOX_EDGES {
            self.line(category, corners[i], corners[j], color);
        }
    }
}

const BOX_EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_filter_drops_only_the_skipped_categories() {
        let mut d = DebugDraw::default();
        assert!(DrawCategory::ALL.iter().all(|&c| d.wants(c)), "records everything by default");
        d.set_filter(|c| c != DrawCategory::Aabb);
        d.aabb(DrawCategory::Aabb, &Aabb::new(Vec3::ZERO, Vec3::ONE), [1.0; 4]);
        d.point(DrawCategory::Aabb, Vec3::ZERO, 1.0, [1.0; 4]);
        assert!(d.lines.is_empty() && d.points.is_empty());
        d.line(DrawCategory::Velocity, Vec3::ZERO, Vec3::X, [1.0; 4]);
        d.point(DrawCategory::ContactPoint, Vec3::ZERO, 1.0, [1.0; 4]);
        assert_eq!((d.lines.len(), d.points.len()), (1, 1));
        d.set_filter(|_| true);
        assert!(d.wants(DrawCategory::Aabb));
    }
}
