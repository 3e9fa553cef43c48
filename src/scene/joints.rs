//! Joints in a scene file: the `joints: [...]` list naming bodies by name or index, its checks,
//! the conversion to the engine's joints, and the chain and ragdoll generators' joints.

use super::schema::{BodyDesc, Rotation, ShapeDesc};
use crate::dynamics::Material;
use crate::dynamics::joints::{DistanceMode, Joint, JointKind, Motor, joint_label};
use crate::math::{Pose, Quat, Real, Vec3};
use serde::{Deserialize, Serialize};

/// A body a joint names: its index among the scene's bodies (generated ones included, after the
/// listed ones) or its name.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum BodyRef {
    /// The body's index.
    Index(u32),
    /// The body's name.
    Name(String),
}

/// A velocity motor: target speed (rad/s for a hinge, m/s for a slider) and the largest torque
/// (N·m) or force (N) it applies.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MotorDesc {
    /// Target speed, rad/s or m/s.
    pub speed: Real,
    /// Largest torque or force, N·m or N.
    pub max_force: Real,
}

/// What a joint holds, as a scene writes it. Angles are in degrees.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub enum JointKindDesc {
    /// The bodies move as one.
    Fixed,
    /// A ball and socket, with an optional cone (half-angle between the axes, degrees) and
    /// twist range about A's axis (degrees).
    Ball {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Largest angle between A's axis and B's, degrees.
        cone: Option<Real>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Twist about A's axis, lower and upper, degrees.
        twist: Option<(Real, Real)>,
    },
    /// B turns about A's axis.
    Hinge {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The angle's range from the rest rotation, degrees.
        limits: Option<(Real, Real)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Drives the angle's rate (rad/s, N·m).
        motor: Option<MotorDesc>,
    },
    /// B slides along A's axis.
    Prismatic {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The offset's range along the axis, m.
        limits: Option<(Real, Real)>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// Drives the offset's rate (m/s, N).
        motor: Option<MotorDesc>,
    },
    /// The anchors at a fixed distance (the distance they start at when omitted), m.
    Rod {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The length, m.
        length: Option<Real>,
    },
    /// The anchors at most this far apart (as they start when omitted), m.
    Rope {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The largest length, m.
        length: Option<Real>,
    },
    /// A spring between the anchors: rest length (as they start when omitted), stiffness
    /// (N/m), damping (N·s/m).
    Spring {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        /// The rest length, m.
        length: Option<Real>,
        /// Stiffness, N/m.
        stiffness: Real,
        #[serde(default)]
        /// Damping, N·s/m.
        damping: Real,
    },
}

/// One joint as a scene writes it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDesc {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The joint's name, if any.
    pub name: Option<String>,
    /// What it holds.
    pub kind: JointKindDesc,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The first body; omitted: the world.
    pub a: Option<BodyRef>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The second body; omitted: the world.
    pub b: Option<BodyRef>,
    #[serde(default)]
    /// The anchor in A's frame, from its centre of mass (world coordinates for the world), m.
    pub anchor_a: Vec3,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The anchor in B's frame; omitted: where A's anchor starts.
    pub anchor_b: Option<Vec3>,
    #[serde(default = "z_axis")]
    /// The axis in A's frame (hinge, slider, cone, twist); z when omitted.
    pub axis_a: Vec3,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The axis in B's frame; omitted: along A's as they start.
    pub axis_b: Option<Vec3>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// B's rotation relative to A's at angle zero; omitted: as they start.
    pub rest: Option<Rotation>,
    #[serde(default, skip_serializing_if = "is_false")]
    /// Whether the two bodies collide with each other (off by default).
    pub collide: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    /// The joint breaks above this force, N.
    pub break_force: Option<Real>,
}

fn z_axis() -> Vec3 {
    Vec3::Z
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl JointDesc {
    /// A joint of `kind` between `a` and `b` (`None`: the world) at A's anchor, axis z.
    pub fn new(kind: JointKindDesc, a: Option<u32>, b: Option<u32>, anchor_a: Vec3) -> JointDesc {
        JointDesc {
            name: None,
            kind,
            a: a.map(BodyRef::Index),
            b: b.map(BodyRef::Index),
            anchor_a,
            anchor_b: None,
            axis_a: Vec3::Z,
            axis_b: None,
            rest: None,
            collide: false,
            break_force: None,
        }
    }

    /// The description of a joint of the engine, with every default written out.
    pub fn from_joint(j: &Joint) -> JointDesc {
        let deg = |(lo, hi): (Real, Real)| (lo.to_degrees(), hi.to_degrees());
        let motor = |m: Option<Motor>| m.map(|m| MotorDesc { speed: m.speed, max_force: m.max_force });
        let kind = match j.kind {
            JointKind::Fixed => JointKindDesc::Fixed,
            JointKind::Ball { cone, twist } => {
                JointKindDesc::Ball { cone: cone.map(Real::to_degrees), twist: twist.map(deg) }
            }
            JointKind::Hinge { limits, motor: m } => JointKindDesc::Hinge { limits: limits.map(deg), motor: motor(m) },
            JointKind::Prismatic { limits, motor: m } => JointKindDesc::Prismatic { limits, motor: motor(m) },
            JointKind::Distance { length, mode } => match mode {
                DistanceMode::Rod => JointKindDesc::Rod { length: Some(length) },
                DistanceMode::Rope => JointKindDesc::Rope { length: Some(length) },
                DistanceMode::Spring { stiffness, damping } => {
                    JointKindDesc::Spring { length: Some(length), stiffness, damping }
                }
            },
        };
        let q = j.rest;
        JointDesc {
            name: j.name.clone(),
            kind,
            a: j.a.map(BodyRef::Index),
            b: j.b.map(BodyRef::Index),
            anchor_a: j.anchor_a,
            anchor_b: Some(j.anchor_b),
            axis_a: j.axis_a,
            axis_b: Some(j.axis_b),
            rest: Some(Rotation::Quat(q.x, q.y, q.z, q.w)),
            collide: j.collide,
            break_force: j.break_force,
        }
    }

    /// The engine's joint, with its bodies found among `names` and the omitted anchor, axis,
    /// rest rotation and length taken from the bodies' starting `poses`. `index` names it in
    /// errors, which give the field and what is wrong.
    pub fn to_joint(&self, index: usize, names: &[Option<&str>], poses: &[Pose]) -> Result<Joint, (String, String)> {
        let label = joint_label(index, self.name.as_deref());
        let find = |field: &str, r: &Option<BodyRef>| -> Result<Option<u32>, (String, String)> {
            let Some(r) = r else { return Ok(None) };
            match r {
                BodyRef::Index(i) if (*i as usize) < names.len() => Ok(Some(*i)),
                BodyRef::Index(i) => Err((
                    field.into(),
                    format!("joint {label} names body {i}, but the scene has {} bodies", names.len()),
                )),
                BodyRef::Name(n) => {
                    let mut found = names.iter().enumerate().filter(|(_, m)| **m == Some(n.as_str()));
                    match (found.next(), found.next()) {
                        (Some((i, _)), None) => Ok(Some(i as u32)),
                        (None, _) => {
                            Err((field.into(), format!("joint {label} names body \"{n}\", which no body is called")))
                        }
                        (Some(_), Some(_)) => Err((
                            field.into(),
                            format!("joint {label} names body \"{n}\", which more than one body is called"),
                        )),
                    }
                }
            }
        };
        let (a, b) = (find("a", &self.a)?, find("b", &self.b)?);
        let pose = |i: Option<u32>| i.map_or(Pose::IDENTITY, |i| poses[i as usize]);
        let (pa, pb) = (pose(a), pose(b));
        if !self.anchor_a.is_finite() {
            return Err(("anchor_a".into(), format!("joint {label}: {} is not finite", self.anchor_a)));
        }
        let world_anchor = pa.transform_point(self.anchor_a);
        let anchor_b = self.anchor_b.unwrap_or_else(|| pb.inverse_transform_point(world_anchor));
        let axis_a = self.axis_a;
        let axis_b =
            self.axis_b.unwrap_or_else(|| pb.rotation.conjugate() * (pa.rotation * axis_a.normalize_or_zero()));
        let rest = match &self.rest {
            Some(r) => {
                r.validate().map_err(|e| ("rest".to_string(), format!("joint {label}: {e}")))?;
                r.to_quat()
            }
            None => pa.rotation.conjugate() * pb.rotation,
        };
        let rad = |(lo, hi): (Real, Real)| (lo.to_radians(), hi.to_radians());
        let motor = |m: &Option<MotorDesc>| m.map(|m| Motor { speed: m.speed, max_force: m.max_force });
        let start_length = (pb.transform_point(anchor_b) - world_anchor).length();
        let kind = match &self.kind {
            JointKindDesc::Fixed => JointKind::Fixed,
            JointKindDesc::Ball { cone, twist } => {
                JointKind::Ball { cone: cone.map(Real::to_radians), twist: twist.map(rad) }
            }
            JointKindDesc::Hinge { limits, motor: m } => JointKind::Hinge { limits: limits.map(rad), motor: motor(m) },
            JointKindDesc::Prismatic { limits, motor: m } => JointKind::Prismatic { limits: *limits, motor: motor(m) },
            JointKindDesc::Rod { length } => {
                JointKind::Distance { length: length.unwrap_or(start_length), mode: DistanceMode::Rod }
            }
            JointKindDesc::Rope { length } => {
                JointKind::Distance { length: length.unwrap_or(start_length), mode: DistanceMode::Rope }
            }
            JointKindDesc::Spring { length, stiffness, damping } => JointKind::Distance {
                length: length.unwrap_or(start_length),
                mode: DistanceMode::Spring { stiffness: *stiffness, damping: *damping },
            },
        };
        let joint = Joint {
            name: self.name.clone(),
            a,
            b,
            anchor_a: self.anchor_a,
            anchor_b,
            axis_a,
            axis_b,
            rest,
            kind,
            collide: self.collide,
            break_force: self.break_force,
        };
        joint.check(index, names.len()).map_err(|e| (error_field(&e), e.to_string()))?;
        Ok(joint)
    }
}

/// The field a joint error names.
fn error_field(e: &crate::dynamics::joints::JointError) -> String {
    use crate::dynamics::joints::JointError as E;
    match e {
        E::UnknownBody { field, .. } => (*field).into(),
        E::SameBody { .. } => "b".into(),
        E::Invalid { field, .. } => match *field {
            "motor.speed" | "motor.max_force" | "limits" | "cone" | "twist" | "length" | "stiffness" | "damping" => {
                format!("kind.{field}")
            }
            f => f.into(),
        },
    }
}

/// A chain of `links` capsules hanging from a fixed point, ball-jointed end to end.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct ChainParams {
    pub links: u32,
    pub origin: Vec3,
    pub direction: Vec3,
    pub link_length: Real,
    pub radius: Real,
    pub end_radius: Real,
    pub end_mass_ratio: Real,
    pub material: Material,
}

/// The bodies and joints of a chain (`Generator::Chain`); `first` is its first body's index.
pub(super) fn chain(c: &ChainParams, first: u32, bodies: &mut Vec<BodyDesc>, joints: &mut Vec<JointDesc>) {
    let dir = c.direction.normalize_or(Vec3::NEG_Y);
    let turn = Quat::from_rotation_arc(Vec3::Y, dir);
    let half = 0.5 * c.link_length;
    let shape = ShapeDesc::Capsule { half_height: (half - c.radius).max(0.1 * half), radius: c.radius };
    let rotation = Rotation::Quat(turn.x, turn.y, turn.z, turn.w);
    // Anchors at the links' ends, along the capsule's axis (body y, turned along `dir`).
    let (top, bottom) = (Vec3::new(0.0, -half, 0.0), Vec3::new(0.0, half, 0.0));
    for k in 0..c.links {
        let mut b = BodyDesc::new(shape.clone(), c.origin + dir * (half + k as Real * c.link_length));
        b.rotation = rotation;
        b.material = c.material;
        bodies.push(b);
        let i = first + k;
        let mut j = if k == 0 {
            JointDesc::new(JointKindDesc::Ball { cone: None, twist: None }, None, Some(i), c.origin)
        } else {
            JointDesc::new(JointKindDesc::Ball { cone: None, twist: None }, Some(i - 1), Some(i), bottom)
        };
        j.anchor_b = Some(top);
        joints.push(j);
    }
    if c.end_radius > 0.0 && c.links > 0 {
        let link_volume = {
            let ShapeDesc::Capsule { half_height, radius } = shape else { unreachable!() };
            std::f32::consts::PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius)
        };
        let ball_volume = 4.0 / 3.0 * std::f32::consts::PI * c.end_radius.powi(3);
        let mut b = BodyDesc::new(
            ShapeDesc::Sphere { radius: c.end_radius },
            c.origin + dir * (c.links as Real * c.link_length + c.end_radius),
        );
        b.material =
            Material { density: c.material.density * c.end_mass_ratio * link_volume / ball_volume, ..c.material };
        bodies.push(b);
        let last = first + c.links - 1;
        let mut j = JointDesc::new(JointKindDesc::Ball { cone: None, twist: None }, Some(last), Some(last + 1), bottom);
        // The ball is not turned: its anchor is on its surface, towards the chain.
        j.anchor_b = Some(-dir * c.end_radius);
        joints.push(j);
    }
}

/// How many bodies a chain makes.
pub(super) fn chain_count(links: u32, end_radius: Real) -> u128 {
    links as u128 + u128::from(end_radius > 0.0 && links > 0)
}

/// A ragdoll of 11 boxes and capsules standing at `origin` (its feet's height), `scale` times
/// a 1.8 m person: hips, belly, chest, head, upper and lower arms and legs; ball joints with
/// cones at the neck, shoulders and hips, hinges with limits at the elbows and knees, the spine
/// in two ball joints with small cones.
pub(super) fn ragdoll(
    origin: Vec3,
    scale: Real,
    material: Material,
    first: u32,
    bodies: &mut Vec<BodyDesc>,
    joints: &mut Vec<JointDesc>,
) {
    let s = scale;
    let capsule = |h: Real, r: Real| ShapeDesc::Capsule { half_height: h * s, radius: r * s };
    let cuboid = |x: Real, y: Real, z: Real| ShapeDesc::Cuboid { half_extents: Vec3::new(x, y, z) * s };
    // (shape, centre above the feet), in the order of the indices below.
    let parts = [
        (cuboid(0.15, 0.1, 0.1), Vec3::new(0.0, 0.95, 0.0)),  // 0 hips
        (cuboid(0.14, 0.1, 0.09), Vec3::new(0.0, 1.15, 0.0)), // 1 belly
        (cuboid(0.18, 0.13, 0.1), Vec3::new(0.0, 1.39, 0.0)), // 2 chest
        (ShapeDesc::Sphere { radius: 0.11 * s }, Vec3::new(0.0, 1.67, 0.0)), // 3 head
        (capsule(0.1, 0.06), Vec3::new(-0.1, 0.7, 0.0)),      // 4 left thigh
        (capsule(0.1, 0.05), Vec3::new(-0.1, 0.3, 0.0)),      // 5 left shin
        (capsule(0.1, 0.06), Vec3::new(0.1, 0.7, 0.0)),       // 6 right thigh
        (capsule(0.1, 0.05), Vec3::new(0.1, 0.3, 0.0)),       // 7 right shin
        (capsule(0.08, 0.045), Vec3::new(-0.26, 1.35, 0.0)),  // 8 left upper arm
        (capsule(0.08, 0.04), Vec3::new(-0.26, 1.05, 0.0)),   // 9 left forearm
        (capsule(0.08, 0.045), Vec3::new(0.26, 1.35, 0.0)),   // 10 right upper arm
        (capsule(0.08, 0.04), Vec3::new(0.26, 1.05, 0.0)),    // 11 right forearm
    ];
    for (shape, at) in &parts {
        let mut b = BodyDesc::new(shape.clone(), origin + *at * s);
        b.material = material;
        bodies.push(b);
    }
    let centre = |k: usize| parts[k].1 * s;
    // (a, b, joint point above the feet, kind); axes: z for hinges (bending forward) and the
    // cones' axis along the limb (down, y for the spine and neck).
    let ball = |cone: Real| JointKindDesc::Ball { cone: Some(cone), twist: None };
    let knee = JointKindDesc::Hinge { limits: Some((0.0, 140.0)), motor: None };
    let elbow = JointKindDesc::Hinge { limits: Some((-140.0, 0.0)), motor: None };
    let links: [(usize, usize, Vec3, JointKindDesc, Vec3); 11] = [
        (0, 1, Vec3::new(0.0, 1.05, 0.0), ball(20.0), Vec3::Y),
        (1, 2, Vec3::new(0.0, 1.25, 0.0), ball(20.0), Vec3::Y),
        (2, 3, Vec3::new(0.0, 1.54, 0.0), ball(40.0), Vec3::Y),
        (0, 4, Vec3::new(-0.1, 0.85, 0.0), ball(70.0), Vec3::NEG_Y),
        (4, 5, Vec3::new(-0.1, 0.5, 0.0), knee.clone(), Vec3::X),
        (0, 6, Vec3::new(0.1, 0.85, 0.0), ball(70.0), Vec3::NEG_Y),
        (6, 7, Vec3::new(0.1, 0.5, 0.0), knee, Vec3::X),
        (2, 8, Vec3::new(-0.26, 1.49, 0.0), ball(80.0), Vec3::NEG_Y),
        (8, 9, Vec3::new(-0.26, 1.2, 0.0), elbow.clone(), Vec3::X),
        (2, 10, Vec3::new(0.26, 1.49, 0.0), ball(80.0), Vec3::NEG_Y),
        (10, 11, Vec3::new(0.26, 1.2, 0.0), elbow, Vec3::X),
    ];
    for (a, b, at, kind, axis) in links {
        let mut j = JointDesc::new(kind, Some(first + a as u32), Some(first + b as u32), at * s - centre(a));
        j.anchor_b = Some(at * s - centre(b));
        j.axis_a = axis;
        joints.push(j);
    }
}

/// Bodies a ragdoll makes.
pub(super) const RAGDOLL_BODIES: u128 = 12;
