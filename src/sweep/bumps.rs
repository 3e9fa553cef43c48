//! The ghost-collision probe: how often bodies moving over triangle meshes and height fields
//! are kicked off the surface (vertical speed spikes) or see their contact normal jump (normal
//! flips), per metre they travel on it.

use crate::math::{Real, Vec3};
use crate::world::World;

/// A step in which a body's vertical speed rises by more than this (m/s) is a spike: gravity
/// only lowers it, and a smooth surface raises it by about speed² x curvature x dt (0.01 m/s
/// at 3 m/s over a 50 m radius at 60 Hz).
pub const SPIKE_DV: Real = 0.1;

/// A step in which the normal of a body's deepest mesh contact turns by more than this angle
/// (cosine of 10°) from the last step's is a flip.
pub const FLIP_COS: Real = 0.984_807_7;

/// Contacts count as touching down to this depth (m): resting contacts and near misses, not
/// the speculative reach of a falling body.
const TOUCH_DEPTH: Real = -1e-3;

/// One dynamic body's counts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BumpRow {
    /// The body's index.
    pub body: u32,
    /// The body's name, or `#index` when it has none.
    pub name: String,
    /// Horizontal distance its centre travelled while touching a mesh, m.
    pub metres: Real,
    /// Vertical speed spikes while touching a mesh.
    pub spikes: u32,
    /// Flips of its deepest mesh contact's normal.
    pub flips: u32,
}

impl BumpRow {
    /// Spikes and flips per metre travelled (0 when it did not move).
    pub fn per_metre(&self) -> Real {
        if self.metres > 1e-3 { (self.spikes + self.flips) as Real / self.metres } else { 0.0 }
    }
}

/// What kind of bump a step gave a body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BumpKind {
    /// Its vertical speed rose by more than [`SPIKE_DV`] while it touched a mesh.
    Spike,
    /// Its deepest mesh contact's normal turned by more than the angle of [`FLIP_COS`].
    Flip,
}

/// One bump found in one step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bump {
    /// The body bumped.
    pub body: u32,
    /// Spike or flip.
    pub kind: BumpKind,
    /// The rise of vertical speed (m/s) for a spike, the normal's turn (degrees) for a flip.
    pub amount: Real,
}

#[derive(Clone, Debug, Default)]
struct Track {
    last_pos: Vec3,
    last_vy: Real,
    last_normal: Option<Vec3>,
    spiking: bool,
}

/// Watches a world step by step; call [`BumpProbe::observe`] after every step. Dynamic bodies
/// added to the world later are tracked from the first step they are seen.
#[derive(Clone, Debug, Default)]
pub struct BumpProbe {
    rows: Vec<BumpRow>,
    tracks: Vec<Track>,
    /// Bodies looked at so far (the world's body count at the last observation).
    seen: usize,
}

impl BumpProbe {
    /// Tracks every dynamic body of `world` from its current state.
    pub fn new(world: &World) -> Self {
        let mut probe = Self { rows: Vec::new(), tracks: Vec::new(), seen: 0 };
        probe.track_new_bodies(world);
        probe
    }

    /// Starts tracking the dynamic bodies added since the last call.
    fn track_new_bodies(&mut self, world: &World) {
        let bodies = world.bodies();
        for (i, b) in bodies.iter().enumerate().skip(self.seen).filter(|(_, b)| b.is_dynamic()) {
            self.rows.push(BumpRow {
                body: i as u32,
                name: b.name.clone().unwrap_or_else(|| format!("#{i}")),
                ..Default::default()
            });
            self.tracks.push(Track { last_pos: b.pose.translation, last_vy: b.linvel.y, ..Default::default() });
        }
        self.seen = self.seen.max(bodies.len());
    }

    /// Takes in the world's state after one step; returns the bumps of this step, in body order.
    pub fn observe(&mut self, world: &World) -> Vec<Bump> {
        let mut found = Vec::new();
        let bodies = world.bodies();
        // The normal (from the mesh to the body) of each body's deepest touching mesh contact.
        let mut normals: Vec<Option<(Real, Vec3)>> = vec![None; bodies.len()];
        for c in world.contacts() {
            let (a, b) = (&bodies[c.a as usize], &bodies[c.b as usize]);
            let depth = c.manifold.max_depth();
            if depth < TOUCH_DEPTH {
                continue;
            }
            let mut note = |body: u32, n: Vec3| {
                let slot = &mut normals[body as usize];
                if slot.is_none_or(|(d, _)| depth > d) {
                    *slot = Some((depth, n));
                }
            };
            if a.shape.is_mesh() && !b.shape.is_mesh() {
                note(c.b, c.manifold.normal);
            } else if b.shape.is_mesh() && !a.shape.is_mesh() {
                note(c.a, -c.manifold.normal);
            }
        }
        for (row, t) in self.rows.iter_mut().zip(&mut self.tracks) {
            let Some(b) = bodies.get(row.body as usize) else { continue };
            let normal = normals[row.body as usize].map(|(_, n)| n);
            let (pos, vy) = (b.pose.translation, b.linvel.y);
            let touching = normal.is_some() || t.last_normal.is_some();
            if touching {
                row.metres += Vec3::new(pos.x - t.last_pos.x, 0.0, pos.z - t.last_pos.z).length();
                let spike = vy - t.last_vy > SPIKE_DV;
                if spike && !t.spiking {
                    row.spikes += 1;
                    found.push(Bump { body: row.body, kind: BumpKind::Spike, amount: vy - t.last_vy });
                }
                t.spiking = spike;
                if let (Some(n), Some(m)) = (normal, t.last_normal)
                    && n.dot(m) < FLIP_COS
                {
                    row.flips += 1;
                    let turn = n.dot(m).clamp(-1.0, 1.0).acos().to_degrees();
                    found.push(Bump { body: row.body, kind: BumpKind::Flip, amount: turn });
                }
            } else {
                t.spiking = false;
            }
            t.last_pos = pos;
            t.last_vy = vy;
            t.last_normal = normal;
        }
        self.track_new_bodies(world);
        found
    }

    /// The counts so far, one row per dynamic body in body order.
    pub fn rows(&self) -> &[BumpRow] {
        &self.rows
    }
}
