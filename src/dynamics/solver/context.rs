//! What the solver reads of the settings, worked out once a step (after Box2D v3's
//! `b2StepContext`): the substep, the softness of the rows, where position correction stops.

use super::rows::{Fall, PassParams, Softness};
use crate::dynamics::joints::Soft;
use crate::math::{Real, Vec3};
use crate::settings::{PositionCorrection, Settings};

/// Largest rotation (rad) a body may turn through in one substep.
const MAX_ROTATION_PER_SUBSTEP: Real = 0.25 * std::f32::consts::PI;

/// One step's constants of the solver, built from the settings at the start of the step.
#[derive(Clone, Copy, Debug)]
pub struct StepContext {
    /// The step, s.
    pub(super) dt: Real,
    /// Substeps of the step (at least one) and the substep, s.
    pub(super) substeps: usize,
    pub(super) h: Real,
    /// Fastest turn per substep, rad/s: capped so that fast spin cannot wrap the quaternion
    /// update.
    pub(super) max_w: Real,
    pub(super) gravity: Vec3,
    /// Solve passes per substep.
    pub(super) iterations: usize,
    pub(super) warm_starting: bool,
    pub(super) restitution_threshold: Real,
    /// Friction and restitution that stand in for every body's own material, when set.
    pub(super) friction: Option<Real>,
    pub(super) restitution: Option<Real>,
    /// The solve passes' constants (with position correction) and the relax passes'.
    pub(super) solve: PassParams,
    pub(super) relax: PassParams,
    /// The joints' softness in the solve passes.
    joint_soft: Soft,
    /// Whether joints that form chains and trees are solved together exactly.
    joint_trees: bool,
}

impl StepContext {
    /// The constants of a step with these settings.
    pub fn new(settings: &Settings) -> Self {
        let substeps = settings.substeps.max(1);
        let h = settings.dt / substeps as Real;
        let inv_h = 1.0 / h;
        // Where position correction stops pushing. Soft contacts aim at half the slop so that
        // their sag under load still settles within it; Baumgarte pushes only beyond it.
        let rest_depth = match settings.position_correction {
            PositionCorrection::Soft => 0.5 * settings.slop,
            PositionCorrection::Baumgarte => settings.slop,
        };
        let solve = PassParams {
            soft: softness(settings, h),
            inv_h,
            rest_depth,
            max_push: settings.max_correction_velocity,
            use_bias: true,
            first_point: 0,
            track_impulses: false,
        };
        StepContext {
            dt: settings.dt,
            substeps: substeps as usize,
            h,
            max_w: MAX_ROTATION_PER_SUBSTEP * inv_h,
            gravity: settings.gravity,
            iterations: settings.iterations as usize,
            warm_starting: settings.warm_starting,
            restitution_threshold: settings.restitution_threshold,
            friction: settings.friction,
            restitution: settings.restitution,
            solve,
            relax: PassParams { use_bias: false, ..solve },
            joint_soft: Soft::new(settings.joint_hertz, settings.joint_damping_ratio, h),
            joint_trees: settings.exact_joint_trees,
        }
    }

    /// Whether contacts start from last step's impulses.
    pub fn warm_starting(&self) -> bool {
        self.warm_starting
    }

    /// The approach speed along a contact's normal (m/s) beyond which a contact is an impact
    /// whose stop travels through chains of contacts within the step: the restitution threshold
    /// (slower approaches are resting contact and do not bounce). The colouring then keeps
    /// chains in order (`colour::Colouring::build`). Without warm starting every contact counts
    /// (−∞): each substep rebuilds a resting stack's support from zero, and it travels up the
    /// chain within the step as a stop does.
    pub(super) fn impact_speed(&self) -> Real {
        match self.warm_starting {
            true => self.restitution_threshold,
            false => Real::NEG_INFINITY,
        }
    }

    /// The joints' softness in the solve passes, the substep, and whether chains and trees
    /// of joints are solved exactly.
    pub(super) fn joint_softness(&self) -> (Soft, Real, bool) {
        (self.joint_soft, self.h, self.joint_trees)
    }

    /// What row building reads of gravity and the step.
    pub(super) fn fall(&self) -> Fall {
        Fall { gravity: self.gravity, dt: self.dt }
    }
}

/// The softness of contacts whose bodies both move, and of contacts against a body that does
/// not (static, kinematic or asleep): those are twice as stiff, as only one side gives.
fn softness(settings: &Settings, h: Real) -> [Softness; 2] {
    [soft_at(settings, settings.contact_hertz, h), soft_at(settings, 2.0 * settings.contact_hertz, h)]
}

fn soft_at(settings: &Settings, hertz: Real, h: Real) -> Softness {
    match settings.position_correction {
        PositionCorrection::Soft => {
            // Stiffer than a quarter of the substep rate would be unstable.
            let hz = hertz.min(0.25 / h);
            let omega = 2.0 * std::f32::consts::PI * hz;
            let zeta = settings.damping_ratio;
            let a1 = 2.0 * zeta + h * omega;
            let a2 = h * omega * a1;
            let a3 = 1.0 / (1.0 + a2);
            Softness { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
        }
        PositionCorrection::Baumgarte => {
            Softness { bias_rate: settings.baumgarte / h, mass_scale: 1.0, impulse_scale: 0.0 }
        }
    }
}
