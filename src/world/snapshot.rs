//! The whole state of a world as plain data: restoring it and stepping gives bit-identical
//! results to a run that never stopped.

use super::{CachedPoint, PairEntry, Settings, World};
use crate::dynamics::solver::{CacheEntry, CachedImpulse, Kept, WarmCache};
use crate::dynamics::{Body, BodyKind, Material};
use crate::math::{Pose, Quat, Real, Vec3};
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::scene::{ShapeDesc, make_shape, shape_desc};
use serde::{Deserialize, Serialize};

/// One body's full state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BodySnapshot {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The body's name in the scene, if any.
    pub name: Option<String>,
    /// Dynamic, static or kinematic.
    pub kind: BodyKind,
    /// The shape, as the scene file writes it.
    pub shape: ShapeDesc,
    /// Position.
    pub translation: Vec3,
    /// Orientation.
    pub rotation: Quat,
    /// Linear velocity, m/s.
    pub linvel: Vec3,
    /// Angular velocity, rad/s.
    pub angvel: Vec3,
    /// Friction, restitution, density.
    pub material: Material,
    /// Swept by time of impact whatever its speed.
    pub bullet: bool,
    /// How long the body has rested, s.
    pub sleep_time: Real,
    /// Whether it sleeps.
    pub asleep: bool,
    /// The island a sleeping body fell asleep with (its lowest body index).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub island: Option<u32>,
}

/// Warm-start impulses of one pair, by feature id.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WarmEntry {
    /// The pair's first body.
    pub a: u32,
    /// The pair's second body.
    pub b: u32,
    /// `(feature id, normal impulse, friction impulse as a world vector, twist impulse)`.
    pub points: Vec<(u32, Real, Vec3, Real)>,
    /// Where each point was (world space), for matching a point whose id changed. Snapshots
    /// without it match by id alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub at: Vec<Vec3>,
    /// The pair's kept contact, per point `[anchor on A (A's frame), anchor on B (B's frame),
    /// A's lever arm (world), B's lever arm (world), normal (world)]` (see
    /// `dynamics::solver::Kept`). Snapshots without it make the pair's contact again from the
    /// narrow phase at the next step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub kept: Vec<[Vec3; 5]>,
    /// The kept contact's normal in A's frame as it was made, which tells how far A turned
    /// since. Snapshots without it make the pair's contact again at the next step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kept_normal_a: Option<Vec3>,
}

/// Everything that carries over from one step to the next.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Snapshot {
    /// The step the world had taken.
    pub step: u64,
    /// The settings.
    pub settings: Settings,
    /// Every body's state.
    pub bodies: Vec<BodySnapshot>,
    /// The warm-start impulses of the contacts.
    pub warm_cache: Vec<WarmEntry>,
    /// The body-pair cache: the pairs whose last narrow-phase result may be reused. Snapshots
    /// without it test every pair afresh at the next step.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pair_cache: Vec<PairSnapshot>,
    /// Each joint's warm-start impulses and whether it broke, in the world's joint order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<crate::dynamics::joints::JointState>,
}

/// One pair's last narrow-phase result (see `PairEntry`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairSnapshot {
    /// The pair's first body.
    pub a: u32,
    /// The pair's second body.
    pub b: u32,
    /// B's origin in A's frame when the result was made.
    pub offset: Vec3,
    /// B's rotation relative to A's then.
    pub turn: Quat,
    /// The normal, in A's frame.
    pub normal: Vec3,
    /// Per point: on A's surface (A's frame), on B's surface (B's frame), feature id.
    pub points: Vec<(Vec3, Vec3, u32)>,
}

impl BodySnapshot {
    /// Body `i` as the snapshot has it, keeping `current`'s shape (shared hulls stay shared and
    /// bit-exact) when it is the same, else building it.
    fn body(
        &self,
        i: usize,
        current: Option<&Body>,
        hulls: &mut crate::scene::HullCache,
    ) -> Result<Body, SnapshotError> {
        let s = self;
        if !(s.translation.is_finite() && s.rotation.is_finite() && s.linvel.is_finite() && s.angvel.is_finite()) {
            return Err(SnapshotError::NotFinite(i));
        }
        let shape = match current {
            Some(b) if shape_desc(&b.shape) == s.shape => b.shape.clone(),
            _ => make_shape(&s.shape, hulls).map_err(|e| SnapshotError::Shape { body: i, error: Box::new(e) })?,
        };
        let mut body = Body::new(s.kind, shape, Pose::new(s.translation, s.rotation), s.material)
            .with_velocity(s.linvel, s.angvel);
        body.name = s.name.clone();
        body.bullet = s.bullet;
        body.sleep_time = s.sleep_time;
        body.asleep = s.asleep;
        body.sleep_island = if s.asleep { s.island } else { None };
        Ok(body)
    }
}

impl WarmEntry {
    /// The warm-start cache's entry and kept points, checked against a world of `bodies`
    /// bodies.
    fn entry(&self, bodies: usize) -> Result<(CacheEntry, [Kept; MAX_MANIFOLD_POINTS]), SnapshotError> {
        let e = self;
        if e.a >= e.b
            || e.b as usize >= bodies
            || e.points.len() > MAX_MANIFOLD_POINTS
            || !(e.at.is_empty() || e.at.len() == e.points.len())
            || !e.at.iter().all(|p| p.is_finite())
            || !(e.kept.is_empty() || e.kept.len() == e.points.len())
            || !e.kept.iter().flatten().all(|v| v.is_finite())
            || !e.kept_normal_a.is_none_or(|v| v.is_finite())
        {
            return Err(SnapshotError::WarmEntry(e.a, e.b));
        }
        let mut imp = [CachedImpulse { id: u32::MAX, ..Default::default() }; MAX_MANIFOLD_POINTS];
        let mut kept_points = [Kept::default(); MAX_MANIFOLD_POINTS];
        for (k, &(id, normal, tangent, twist)) in e.points.iter().enumerate() {
            if !(normal.is_finite() && tangent.is_finite() && twist.is_finite()) {
                return Err(SnapshotError::WarmImpulse(e.a, e.b));
            }
            let point = e.at.get(k).copied().unwrap_or(Vec3::splat(Real::INFINITY));
            let kept = e.kept.get(k).map_or(Kept::default(), |&[anchor_a, anchor_b, arm_a, arm_b, normal]| Kept {
                anchor_a,
                anchor_b,
                arm_a,
                arm_b,
                normal,
            });
            imp[k] = CachedImpulse { id, normal, tangent, twist, point };
            kept_points[k] = kept;
        }
        // Point 1's normal is the kept normal in A's frame (`Kept::normal`).
        if !e.kept.is_empty() {
            kept_points[1].normal = e.kept_normal_a.unwrap_or(Vec3::ZERO);
        }
        Ok((((e.a, e.b), imp), kept_points))
    }
}

impl PairSnapshot {
    /// The body-pair cache's entry, checked against a world of `bodies` bodies.
    fn entry(&self, bodies: usize) -> Result<PairEntry, SnapshotError> {
        let e = self;
        let finite = e.offset.is_finite()
            && e.turn.is_finite()
            && e.normal.is_finite()
            && e.points.iter().all(|(a, b, _)| a.is_finite() && b.is_finite());
        if e.a >= e.b || e.b as usize >= bodies || e.points.len() > MAX_MANIFOLD_POINTS || !finite {
            return Err(SnapshotError::PairEntry(e.a, e.b));
        }
        let mut entry = PairEntry {
            offset: e.offset,
            turn: e.turn,
            normal: e.normal,
            len: e.points.len() as u8,
            valid: true,
            ..PairEntry::invalid((e.a, e.b))
        };
        for (c, &(on_a, on_b, id)) in entry.points.iter_mut().zip(&e.points) {
            *c = CachedPoint { on_a, on_b, id };
        }
        Ok(entry)
    }
}

impl Snapshot {
    /// The first difference between this (recorded) snapshot and `other` (replayed), in words,
    /// or `None` if they are equal.
    pub fn difference(&self, other: &Snapshot) -> Option<String> {
        if self == other {
            return None;
        }
        if self.step != other.step {
            return Some(format!("step {} recorded, {} replayed", self.step, other.step));
        }
        if self.settings != other.settings {
            return Some(format!("settings {}", self.settings.changes(&other.settings).join(", ")));
        }
        if self.bodies.len() != other.bodies.len() {
            return Some(format!("{} bodies recorded, {} replayed", self.bodies.len(), other.bodies.len()));
        }
        for (i, (a, b)) in self.bodies.iter().zip(&other.bodies).enumerate() {
            if a == b {
                continue;
            }
            let name = a.name.as_deref().map(|n| format!(" ({n})")).unwrap_or_default();
            let what = if a.translation != b.translation {
                format!("position {} recorded, {} replayed", a.translation, b.translation)
            } else if a.rotation != b.rotation {
                format!("rotation {} recorded, {} replayed", a.rotation, b.rotation)
            } else if a.linvel != b.linvel || a.angvel != b.angvel {
                format!("velocity {} / {} recorded, {} / {} replayed", a.linvel, a.angvel, b.linvel, b.angvel)
            } else if a.asleep != b.asleep || a.sleep_time != b.sleep_time || a.island != b.island {
                format!(
                    "sleep state (asleep {}, {} s) recorded, (asleep {}, {} s) replayed",
                    a.asleep, a.sleep_time, b.asleep, b.sleep_time
                )
            } else {
                "its shape, kind, material or name".into()
            };
            return Some(format!("body {i}{name}: {what}"));
        }
        if self.warm_cache != other.warm_cache {
            return Some("the warm-start impulses differ".into());
        }
        Some("the body-pair cache differs".into())
    }
}

impl World {
    /// The world's full state, from which [`World::restore`] continues with the same bits.
    pub fn snapshot(&self) -> Snapshot {
        let bodies = self
            .bodies
            .iter()
            .map(|b| BodySnapshot {
                name: b.name.clone(),
                kind: b.kind,
                shape: shape_desc(&b.shape),
                translation: b.pose.translation,
                rotation: b.pose.rotation,
                linvel: b.linvel,
                angvel: b.angvel,
                material: b.material,
                bullet: b.bullet,
                sleep_time: b.sleep_time,
                asleep: b.asleep,
                island: b.sleep_island,
            })
            .collect();
        let warm = self.contacts.warm_cache();
        let warm_cache = warm
            .iter()
            .zip(warm.kept())
            .map(|(((a, b), pts), kept)| WarmEntry {
                a: *a,
                b: *b,
                points: pts.iter().filter(|p| p.id != u32::MAX).map(|p| (p.id, p.normal, p.tangent, p.twist)).collect(),
                at: pts.iter().filter(|p| p.id != u32::MAX).map(|p| p.point).collect(),
                kept: if kept[0].normal == Vec3::ZERO {
                    Vec::new()
                } else {
                    pts.iter()
                        .zip(kept)
                        .filter(|(p, _)| p.id != u32::MAX)
                        .map(|(_, k)| [k.anchor_a, k.anchor_b, k.arm_a, k.arm_b, kept[0].normal])
                        .collect()
                },
                kept_normal_a: (kept[0].normal != Vec3::ZERO).then_some(kept[1].normal),
            })
            .collect();
        let pair_cache = self
            .contacts
            .pair_cache()
            .iter()
            .filter(|e| e.valid)
            .map(|e| PairSnapshot {
                a: e.pair.0,
                b: e.pair.1,
                offset: e.offset,
                turn: e.turn,
                normal: e.normal,
                points: e.points[..e.len as usize].iter().map(|p| (p.on_a, p.on_b, p.id)).collect(),
            })
            .collect();
        let joints = self.joints.states().to_vec();
        Snapshot { step: self.step_count, settings: self.settings.clone(), bodies, warm_cache, pair_cache, joints }
    }

    /// Puts the world in the snapshot's state. Shapes that match the current bodies' are kept
    /// (shared hulls stay shared and bit-exact); others are built from the snapshot. On error
    /// the world is unchanged.
    pub fn restore(&mut self, snap: &Snapshot) -> Result<(), SnapshotError> {
        snap.settings.validate().map_err(SnapshotError::Settings)?;
        let mut hulls = crate::scene::HullCache::new();
        let bodies = (snap.bodies.iter().enumerate())
            .map(|(i, s)| s.body(i, self.bodies.get(i), &mut hulls))
            .collect::<Result<Vec<_>, _>>()?;
        let (cache, kept_cache): (Vec<_>, Vec<_>) =
            snap.warm_cache.iter().map(|e| e.entry(bodies.len())).collect::<Result<Vec<_>, _>>()?.into_iter().unzip();
        if !cache.is_sorted_by_key(|c| c.0) {
            return Err(SnapshotError::Unsorted("warm_cache"));
        }
        let pair_cache = snap.pair_cache.iter().map(|e| e.entry(bodies.len())).collect::<Result<Vec<_>, _>>()?;
        if !pair_cache.is_sorted_by_key(|e| e.pair) {
            return Err(SnapshotError::Unsorted("pair_cache"));
        }
        let joint_count = self.joints.list().len();
        if snap.joints.len() != joint_count {
            return Err(SnapshotError::Joints { snapshot: snap.joints.len(), world: joint_count });
        }
        if let Some(k) = snap.joints.iter().position(|j| !j.is_finite()) {
            return Err(SnapshotError::JointImpulse(k));
        }
        let missing =
            |j: &crate::dynamics::joints::Joint| [j.a, j.b].iter().flatten().any(|&b| b as usize >= bodies.len());
        if let Some(k) = self.joints.list().iter().position(missing) {
            return Err(SnapshotError::JointBody(k));
        }
        self.joints.set_states(&snap.joints);
        self.touch_bodies();
        self.set_settings(snap.settings.clone());
        self.bodies = bodies;
        self.aabbs = self.bodies.iter().map(Body::aabb).collect();
        self.contacts.restore(WarmCache::new(cache, kept_cache), pair_cache);
        self.pairs.clear();
        // The structure describes the old bodies: rebuild it at the next step.
        self.broad_phase = crate::broadphase::create(self.settings.broad_phase);
        self.indexed = 0;
        self.idle.forget();
        self.step_count = snap.step;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scene::Scene;

    #[test]
    fn restore_mid_run_is_bit_identical() {
        let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/default.ron")).unwrap();
        let mut a = scene.build().unwrap();
        for _ in 0..100 {
            a.step();
        }
        let snap = a.snapshot();
        let text = ron::to_string(&snap).unwrap();
        for _ in 0..100 {
            a.step();
        }
        let mut b = scene.build().unwrap();
        b.restore(&ron::from_str(&text).unwrap()).unwrap();
        assert_eq!(b.step_count(), 100);
        for _ in 0..100 {
            b.step();
        }
        assert_eq!(a.hash(), b.hash());
    }
}

/// Why a snapshot cannot be restored: the field of the snapshot and what is wrong with it.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// A setting out of range.
    #[error("settings: {0}")]
    Settings(crate::settings::FieldError),
    /// A body whose pose or velocity is not finite.
    #[error("bodies[{0}]: a pose or velocity is not finite")]
    NotFinite(usize),
    /// A body whose shape builds nothing.
    #[error("bodies[{body}].shape: {error}")]
    Shape {
        /// The body.
        body: usize,
        /// What is wrong with its shape.
        error: Box<crate::scene::ShapeError>,
    },
    /// A warm-start entry naming bodies out of order or range, or with bad points.
    #[error("warm_cache: bad entry for pair ({0}, {1})")]
    WarmEntry(u32, u32),
    /// A warm-start impulse that is not finite.
    #[error("warm_cache: an impulse of pair ({0}, {1}) is not finite")]
    WarmImpulse(u32, u32),
    /// A pair-cache entry naming bodies out of order or range.
    #[error("pair_cache: bad entry for pair ({0}, {1})")]
    PairEntry(u32, u32),
    /// The snapshot's joint count is not the world's (a snapshot is restored into a world built
    /// from the same scene).
    #[error("joints: the snapshot has {snapshot} joint states, the world {world} joints")]
    Joints {
        /// Joint states in the snapshot.
        snapshot: usize,
        /// Joints in the world.
        world: usize,
    },
    /// A joint of the world names a body the snapshot does not have.
    #[error("joints[{0}]: names a body the snapshot does not have")]
    JointBody(usize),
    /// A joint impulse that is not finite.
    #[error("joints[{0}]: an impulse is not finite")]
    JointImpulse(usize),
    /// A cache (`warm_cache`, `pair_cache`) not sorted by pair.
    #[error("{0}: entries must be sorted by pair")]
    Unsorted(&'static str),
}
