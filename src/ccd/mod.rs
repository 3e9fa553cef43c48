//! Continuous collision detection: keeps fast bodies from passing through thin ones.
//!
//! Two remedies, chosen by [`CcdMode`]: speculative contacts (a fast body's AABB and contact
//! margin grow by the distance it can travel this step, so the solver sees the obstacle before
//! reaching it) and time of impact (after the solver moved everything, each fast body's sweep is
//! cast against the world by conservative advancement; the body is stopped at the first impact,
//! its velocity resolved there, and it moves on for the rest of the step).

mod resolve;
mod toi;

pub(crate) use resolve::resolve_toi;
pub use resolve::{CcdSweep, MAX_TOI_ROUNDS, ToiEvent};
pub use toi::{MAX_TOI_ITERATIONS, Sweep, TimeOfImpact, time_of_impact};

use crate::dynamics::Body;
use crate::geometry::Aabb;
use crate::math::Real;
use crate::world::Settings;
use serde::{Deserialize, Serialize};

/// How fast bodies are kept from tunneling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CcdMode {
    /// Discrete collision only: fast, thin obstacles can be missed.
    #[default]
    Off,
    /// Contacts reach as far as a fast body travels this step; the solver stops it at the surface.
    Speculative,
    /// Each fast body's sweep is cast against the world and the step is cut at the time of impact.
    Toi,
}

impl CcdMode {
    pub const ALL: &'static [CcdMode] = &[CcdMode::Off, CcdMode::Speculative, CcdMode::Toi];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            CcdMode::Off => "off",
            CcdMode::Speculative => "speculative",
            CcdMode::Toi => "toi",
        }
    }

    /// The mode whose [`cli_name`](Self::cli_name) is `name`.
    pub fn from_cli_name(name: &str) -> Option<CcdMode> {
        Self::ALL.iter().copied().find(|m| m.cli_name() == name)
    }
}

/// Whether CCD sweeps this body this step: an awake dynamic body that is a bullet or moves
/// faster than `settings.ccd_speed_threshold`.
pub fn needs_ccd(body: &Body, settings: &Settings) -> bool {
    settings.ccd != CcdMode::Off
        && body.is_dynamic()
        && !body.is_asleep()
        && (body.bullet || body.linvel.length_squared() > settings.ccd_speed_threshold * settings.ccd_speed_threshold)
}

/// The box that holds the body at its pose now and after moving at its velocity for `dt`
/// (rotation is covered by the bounding sphere when the body spins).
pub fn swept_aabb(body: &Body, dt: Real) -> Aabb {
    let start = body.aabb();
    let d = body.linvel * dt;
    let end = Aabb::new(start.min + d, start.max + d);
    let swept = start.merge(&end);
    // Spinning: the shape may reach anywhere within its bounding sphere along the way.
    if body.angvel.length_squared() * dt * dt > 1e-6 {
        let r = body.shape.bounding_radius();
        let c0 = body.pose.translation;
        let ball = |c| Aabb::from_center_half_extents(c, crate::math::Vec3::splat(r));
        swept.merge(&ball(c0)).merge(&ball(c0 + d))
    } else {
        swept
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::{BodyKind, Material};
    use crate::geometry::Shape;
    use crate::math::{Pose, Vec3};

    #[test]
    fn cli_names_round_trip() {
        for &m in CcdMode::ALL {
            assert_eq!(CcdMode::from_cli_name(m.cli_name()), Some(m));
        }
        assert_eq!(CcdMode::from_cli_name("sometimes"), None);
    }

    #[test]
    fn bullets_and_fast_bodies_need_ccd() {
        let mut s = Settings { ccd: CcdMode::Toi, ccd_speed_threshold: 10.0, ..Default::default() };
        let slow = Body::new(BodyKind::Dynamic, Shape::sphere(0.1), Pose::IDENTITY, Material::default())
            .with_velocity(Vec3::X * 5.0, Vec3::ZERO);
        let fast = slow.clone().with_velocity(Vec3::X * 15.0, Vec3::ZERO);
        let mut bullet = slow.clone();
        bullet.bullet = true;
        assert!(!needs_ccd(&slow, &s));
        assert!(needs_ccd(&fast, &s));
        assert!(needs_ccd(&bullet, &s));
        s.ccd = CcdMode::Off;
        assert!(!needs_ccd(&fast, &s) && !needs_ccd(&bullet, &s));
    }

    #[test]
    fn swept_aabb_holds_start_and_end() {
        let b = Body::new(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.5)), Pose::IDENTITY, Material::default())
            .with_velocity(Vec3::new(60.0, -6.0, 0.0), Vec3::ZERO);
        let s = swept_aabb(&b, 0.1);
        let end = b.shape.aabb(&Pose::from_translation(Vec3::new(6.0, -0.6, 0.0)));
        assert!(s.contains(&b.aabb()) && s.contains(&end));
        assert!(s.max.x < 6.5 + 1e-5 && s.min.y > -1.1 - 1e-5, "no bigger than needed: {s:?}");
    }
}
