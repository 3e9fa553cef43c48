//! Joints: constraints between two bodies, or a body and the world, solved with the contacts in
//! the soft-step solver (after Box2D v3's soft joints). Anchors and axes are in each body's
//! frame (the world's frame for the world side); angles are measured from a rest rotation, B's
//! orientation relative to A's at angle zero.

mod report;
mod solve;

use crate::math::{Quat, Real, Vec3};
pub use report::{JointReport, LimitState};
pub(crate) use solve::{JointSolver, Soft};

/// A velocity motor: drives the joint's coordinate at `speed` (rad/s for a hinge, m/s for a
/// slider) with at most `max_force` (N·m for a hinge, N for a slider).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Motor {
    /// Target speed, rad/s or m/s.
    pub speed: Real,
    /// Largest torque (N·m) or force (N) the motor applies.
    pub max_force: Real,
}

/// How a distance joint holds its anchors apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum DistanceMode {
    /// At exactly the length, in both directions (a rod).
    Rod,
    /// At most the length (a rope or string: it pulls, never pushes).
    Rope,
    /// A spring of this stiffness (N/m) and damping (N·s/m) towards the length.
    Spring {
        /// Stiffness, N/m.
        stiffness: Real,
        /// Damping, N·s/m.
        damping: Real,
    },
}

/// What a joint holds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointKind {
    /// The anchors together and the rotations at rest: the bodies move as one.
    Fixed,
    /// The anchors together; the rotation is free, within an optional cone (half-angle, rad,
    /// between A's axis and B's) and twist range about A's axis (rad).
    Ball {
        /// Largest angle between the two axes, rad.
        cone: Option<Real>,
        /// Twist about A's axis from the rest rotation, lower and upper, rad.
        twist: Option<(Real, Real)>,
    },
    /// The anchors together and the axes aligned: B turns about A's axis.
    Hinge {
        /// Angle from the rest rotation, lower and upper, rad.
        limits: Option<(Real, Real)>,
        /// Drives the angle's rate.
        motor: Option<Motor>,
    },
    /// B slides along A's axis, its rotation held at rest.
    Prismatic {
        /// B's anchor's offset along the axis from A's, lower and upper, m.
        limits: Option<(Real, Real)>,
        /// Drives the offset's rate.
        motor: Option<Motor>,
    },
    /// The anchors' distance.
    Distance {
        /// The length, m.
        length: Real,
        /// Rod, rope or spring.
        mode: DistanceMode,
    },
}

impl JointKind {
    /// The kind's name as the scene format writes it.
    pub fn label(&self) -> &'static str {
        match self {
            JointKind::Fixed => "Fixed",
            JointKind::Ball { .. } => "Ball",
            JointKind::Hinge { .. } => "Hinge",
            JointKind::Prismatic { .. } => "Prismatic",
            JointKind::Distance { mode: DistanceMode::Rod, .. } => "Rod",
            JointKind::Distance { mode: DistanceMode::Rope, .. } => "Rope",
            JointKind::Distance { mode: DistanceMode::Spring { .. }, .. } => "Spring",
        }
    }
}

/// A joint between body `a` and body `b` (`None`: the world).
#[derive(Clone, Debug, PartialEq)]
pub struct Joint {
    /// The joint's name in the scene, if any.
    pub name: Option<String>,
    /// The first body (`None`: the world).
    pub a: Option<u32>,
    /// The second body (`None`: the world).
    pub b: Option<u32>,
    /// The anchor in A's frame, relative to its centre of mass (world coordinates for the world).
    pub anchor_a: Vec3,
    /// The anchor in B's frame.
    pub anchor_b: Vec3,
    /// The axis in A's frame, unit length (hinge, slider, cone and twist).
    pub axis_a: Vec3,
    /// The axis in B's frame, unit length.
    pub axis_b: Vec3,
    /// B's rotation relative to A's (`A⁻¹ B`) at angle zero.
    pub rest: Quat,
    /// What the joint holds.
    pub kind: JointKind,
    /// Whether the two bodies' shapes collide with each other.
    pub collide: bool,
    /// The joint breaks (stops acting) when its constraint force exceeds this, N.
    pub break_force: Option<Real>,
}

/// A joint's impulses kept between steps for warm starting (those of the last substep, N·s or
/// N·m·s), and whether it broke. Part of a world's snapshot.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointState {
    /// Linear impulse at the anchors, world space.
    pub linear: Vec3,
    /// Angular impulse, world space.
    pub angular: Vec3,
    /// The motor's impulse along the axis.
    pub motor: Real,
    /// The lower limit's impulse (pushes up the coordinate).
    pub lower: Real,
    /// The upper limit's impulse (pushes it down).
    pub upper: Real,
    /// The cone limit's impulse.
    pub cone: Real,
    /// Broke above its break force: no longer acts.
    pub broken: bool,
}

impl JointState {
    /// Whether every impulse is finite.
    pub fn is_finite(&self) -> bool {
        self.linear.is_finite()
            && self.angular.is_finite()
            && [self.motor, self.lower, self.upper, self.cone].iter().all(|x| x.is_finite())
    }
}

/// A joint the world refuses.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum JointError {
    /// It names a body the world does not have.
    #[error("joint {joint}: {field} names body {body}, but the world has {count} bodies")]
    UnknownBody {
        /// The joint's index and name.
        joint: String,
        /// `a` or `b`.
        field: &'static str,
        /// The body index.
        body: u32,
        /// Bodies in the world.
        count: usize,
    },
    /// Both sides are the same body, or both the world.
    #[error("joint {joint}: {what}")]
    SameBody {
        /// The joint's index and name.
        joint: String,
        /// Which.
        what: String,
    },
    /// A field is out of range.
    #[error("joint {joint}: {field}: {message}")]
    Invalid {
        /// The joint's index and name.
        joint: String,
        /// The field.
        field: &'static str,
        /// What is wrong.
        message: String,
    },
}

/// A joint's label in messages: its index, and its name if it has one.
pub fn joint_label(index: usize, name: Option<&str>) -> String {
    match name {
        Some(n) => format!("{index} (\"{n}\")"),
        None => index.to_string(),
    }
}

impl Joint {
    /// Checks the joint's numbers: finite, axes of non-zero length, limits in order, motors and
    /// springs non-negative; and its bodies against a world of `bodies` bodies. `index` names it.
    pub fn check(&self, index: usize, bodies: usize) -> Result<(), JointError> {
        let joint = joint_label(index, self.name.as_deref());
        let invalid =
            |field: &'static str, message: String| JointError::Invalid { joint: joint.clone(), field, message };
        for (field, side) in [("a", self.a), ("b", self.b)] {
            if let Some(body) = side.filter(|&i| i as usize >= bodies) {
                return Err(JointError::UnknownBody { joint: joint.clone(), field, body, count: bodies });
            }
        }
        match (self.a, self.b) {
            (None, None) => {
                return Err(JointError::SameBody {
                    joint,
                    what: "both sides are the world: name at least one body".into(),
                });
            }
            (Some(a), Some(b)) if a == b => {
                return Err(JointError::SameBody { joint, what: format!("body {a} is jointed to itself") });
            }
            _ => {}
        }
        for (field, v) in [("anchor_a", self.anchor_a), ("anchor_b", self.anchor_b)] {
            if !v.is_finite() {
                return Err(invalid(field, format!("{v} is not finite")));
            }
        }
        for (field, v) in [("axis_a", self.axis_a), ("axis_b", self.axis_b)] {
            if !v.is_finite() || v.length() < 1e-6 {
                return Err(invalid(field, format!("the axis {v} has no direction (zero length or not finite)")));
            }
        }
        if !self.rest.is_finite() || self.rest.length() < 1e-6 {
            return Err(invalid("rest", format!("{:?} is not a rotation", self.rest)));
        }
        if let Some(f) = self.break_force.filter(|f| !(f.is_finite() && *f > 0.0)) {
            return Err(invalid("break_force", format!("{f} must be a positive force, N")));
        }
        let range = |field: &'static str, (lo, hi): (Real, Real)| {
            if !(lo.is_finite() && hi.is_finite()) {
                Err(invalid(field, format!("({lo}, {hi}) is not finite")))
            } else if lo > hi {
                Err(invalid(field, format!("lower {lo} is above upper {hi} (limits reversed)")))
            } else {
                Ok(())
            }
        };
        let motor = |m: &Option<Motor>| match m {
            Some(m) if !m.speed.is_finite() => Err(invalid("motor.speed", format!("{} is not finite", m.speed))),
            Some(m) if !(m.max_force.is_finite() && m.max_force >= 0.0) => {
                Err(invalid("motor.max_force", format!("{} must be finite and not negative", m.max_force)))
            }
            _ => Ok(()),
        };
        match &self.kind {
            JointKind::Fixed => {}
            JointKind::Ball { cone, twist } => {
                if let Some(c) = cone.filter(|c| !(c.is_finite() && *c >= 0.0 && *c <= std::f32::consts::PI)) {
                    return Err(invalid("cone", format!("{c} rad must be between 0 and π")));
                }
                twist.map(|t| range("twist", t)).transpose()?;
            }
            JointKind::Hinge { limits, motor: m } | JointKind::Prismatic { limits, motor: m } => {
                limits.map(|l| range("limits", l)).transpose()?;
                motor(m)?;
            }
            JointKind::Distance { length, mode } => {
                if !(length.is_finite() && *length >= 0.0) {
                    return Err(invalid("length", format!("{length} m: a length must be finite and not negative")));
                }
                if let DistanceMode::Spring { stiffness, damping } = mode {
                    for (field, x) in [("stiffness", stiffness), ("damping", damping)] {
                        if !(x.is_finite() && *x >= 0.0) {
                            return Err(invalid(field, format!("{x} must be finite and not negative")));
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The pair of bodies it joins, lower index first, when both are bodies.
    pub fn pair(&self) -> Option<(u32, u32)> {
        match (self.a, self.b) {
            (Some(a), Some(b)) => Some((a.min(b), a.max(b))),
            _ => None,
        }
    }
}

/// The world's joints, their warm-start state, and the pairs they keep from colliding.
#[derive(Clone, Debug, Default)]
pub struct Joints {
    list: Vec<Joint>,
    state: Vec<JointState>,
    /// Pairs of jointed bodies that do not collide, sorted.
    no_collide: Vec<(u32, u32)>,
}

impl Joints {
    /// The joints, in the order they were added.
    pub fn list(&self) -> &[Joint] {
        &self.list
    }

    /// Each joint's state.
    pub fn states(&self) -> &[JointState] {
        &self.state
    }

    /// Replaces the states (a snapshot's): one per joint.
    pub fn set_states(&mut self, states: &[JointState]) {
        self.state.clear();
        self.state.extend_from_slice(states);
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Adds a checked joint.
    pub fn push(&mut self, joint: Joint) {
        if let Some(p) = joint.pair().filter(|_| !joint.collide)
            && let Err(at) = self.no_collide.binary_search(&p)
        {
            self.no_collide.insert(at, p);
        }
        self.list.push(joint);
        self.state.push(JointState::default());
    }

    /// Whether a joint keeps this pair (lower index first) from colliding.
    pub fn filters(&self, pair: (u32, u32)) -> bool {
        !self.no_collide.is_empty() && self.no_collide.binary_search(&pair).is_ok()
    }

    /// Each unbroken joint's pair of bodies, for islands.
    pub fn links(&self) -> impl Iterator<Item = (u32, u32)> + '_ {
        self.list.iter().zip(&self.state).filter(|(_, s)| !s.broken).filter_map(|(j, _)| j.pair())
    }

    /// Forgets the warm-start impulses of joints on these bodies.
    pub fn forget_impulses_of(&mut self, frozen: &[u32]) {
        for (j, s) in self.list.iter().zip(&mut self.state) {
            if [j.a, j.b].iter().flatten().any(|b| frozen.contains(b)) {
                *s = JointState { broken: s.broken, ..JointState::default() };
            }
        }
    }

    pub(crate) fn parts_mut(&mut self) -> (&[Joint], &mut [JointState]) {
        (&self.list, &mut self.state)
    }
}
