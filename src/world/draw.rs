//! What the world shows of itself: boxes, velocities, contacts and their impulses, candidate
//! pairs, the broad phase's structure, mesh edges, joints (`joint_draw.rs`); how the narrow
//! phase answers one pair.

use super::World;
use crate::debug_draw::{
    CONTACT_NORMAL_COLOR, CONTACT_POINT_COLORS, CONTACT_POINT_SIZE, DebugDraw, DrawCategory, IMPULSE_COLORS,
    contact_point_kind,
};
use crate::math::{Real, Vec3};
use crate::narrowphase::{self, NarrowPhaseKind};

impl World {
    /// Describes the world's state for drawing: AABBs, contacts, velocities, broad phase.
    pub fn debug_draw(&self, draw: &mut DebugDraw) {
        // Categories the viewer switched off are skipped before any work is done for them.
        let (aabbs, velocities) = (draw.wants(DrawCategory::Aabb), draw.wants(DrawCategory::Velocity));
        if aabbs || velocities {
            for (b, aabb) in self.bodies.iter().zip(&self.aabbs) {
                if aabbs {
                    let color = if b.asleep { [0.4, 0.4, 0.6, 1.0] } else { [0.2, 0.9, 0.4, 1.0] };
                    draw.aabb(DrawCategory::Aabb, aabb, color);
                }
                if velocities && b.is_dynamic() && !b.asleep {
                    let p = b.pose.translation;
                    draw.line(DrawCategory::Velocity, p, p + b.linvel * 0.1, [1.0, 0.8, 0.1, 1.0]);
                }
            }
        }
        if draw.wants(DrawCategory::ContactPoint) || draw.wants(DrawCategory::ContactNormal) {
            // The islands asleep stand on the contacts they fell asleep with.
            for c in self.contacts.contacts().iter().chain(self.contacts.resting()) {
                for cp in c.manifold.points() {
                    let color = CONTACT_POINT_COLORS[contact_point_kind(cp.depth)];
                    draw.point(DrawCategory::ContactPoint, cp.point, CONTACT_POINT_SIZE, color);
                    // Length shows depth: a fixed stem plus ten times the penetration.
                    let len = 0.1 + 10.0 * cp.depth.max(0.0);
                    let tip = cp.point + c.manifold.normal * len;
                    draw.line(DrawCategory::ContactNormal, cp.point, tip, CONTACT_NORMAL_COLOR);
                }
            }
        }
        if draw.wants(DrawCategory::ContactForce) {
            self.debug_draw_forces(draw);
        }
        if draw.wants(DrawCategory::CandidatePair) {
            for &(a, b) in &self.pairs {
                let (pa, pb) = (self.bodies[a as usize].pose.translation, self.bodies[b as usize].pose.translation);
                draw.line(DrawCategory::CandidatePair, pa, pb, [0.9, 0.9, 0.9, 0.5]);
            }
        }
        if draw.wants(DrawCategory::BroadPhase) {
            self.broad_phase.debug_draw(&self.aabbs, draw);
        }
        if draw.wants(DrawCategory::Ccd) {
            self.debug_draw_ccd(draw);
        }
        if draw.wants(DrawCategory::NarrowPhase) {
            self.debug_draw_mesh_edges(DrawCategory::NarrowPhase, draw);
        }
        if draw.wants(DrawCategory::Mesh) {
            self.debug_draw_mesh_edges(DrawCategory::Mesh, draw);
            self.debug_draw_mesh_queries(draw);
            self.debug_draw_mesh_normals(draw);
        }
        if draw.wants(DrawCategory::Joint) {
            self.debug_draw_joints(draw);
        }
    }

    /// The mesh edges within half a metre of each awake dynamic body, active or inactive for
    /// the internal-edge modes.
    fn debug_draw_mesh_edges(&self, category: DrawCategory, draw: &mut DebugDraw) {
        for m in &self.bodies {
            let Some(mesh) = narrowphase::mesh::MeshRef::of(&m.shape) else { continue };
            for b in self.bodies.iter().filter(|b| b.is_dynamic() && !b.asleep) {
                let region = b.shape.aabb(&m.pose.inv_mul(&b.pose)).expanded(0.5);
                if region.overlaps(&m.shape.local_aabb()) {
                    narrowphase::mesh::draw_edges(mesh, &m.pose, &region, category, draw);
                }
            }
        }
    }

    /// Each contact point's last normal impulse (along the normal, from A to B) and friction
    /// impulse, the longest arrow half a metre.
    fn debug_draw_forces(&self, draw: &mut DebugDraw) {
        let contacts = self.contacts.contacts();
        let arrows: Vec<(Vec3, Vec3, Vec3)> = (0..contacts.len())
            .filter_map(|k| Some((&contacts[k], self.contact_impulses(k)?)))
            .flat_map(|(c, imp)| {
                c.manifold
                    .points()
                    .iter()
                    .zip(imp.iter())
                    .map(|(p, i)| (p.point, c.manifold.normal * i.normal, i.tangent))
            })
            .collect();
        let largest = arrows.iter().map(|(_, n, t)| n.length().max(t.length())).fold(0.0, Real::max);
        if largest <= 0.0 || !largest.is_finite() {
            return;
        }
        let scale = 0.5 / largest;
        for (p, n, t) in arrows {
            if n.length() > 0.0 {
                draw.line(DrawCategory::ContactForce, p, p + n * scale, IMPULSE_COLORS[0]);
            }
            if t.length() > 0.0 {
                draw.line(DrawCategory::ContactForce, p, p + t * scale, IMPULSE_COLORS[1]);
            }
        }
    }

    /// How the narrow phase answers bodies `a` and `b` (indices) where they are now, stage by
    /// stage, with `method` and the world's tolerances and internal-edge mode (the Pair panel's
    /// trace). `None` for an index out of range.
    pub fn explain_pair(&self, a: usize, b: usize, method: NarrowPhaseKind) -> Option<narrowphase::PairTrace> {
        let (ba, bb) = (self.bodies.get(a)?, self.bodies.get(b)?);
        let s = &self.settings;
        let tol = narrowphase::Tolerance { margin: s.speculative_distance, epsilon: s.contact_epsilon };
        Some(narrowphase::explain_with_edges(&ba.shape, &ba.pose, &bb.shape, &bb.pose, tol, method, s.internal_edges))
    }
}
