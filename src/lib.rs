//! Collidoscope's engine: a headless, deterministic rigid-body pipeline whose every phase can
//! be switched, timed and inspected. The desktop app (feature `gui`) only reads it.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

#[cfg(feature = "gui")]
pub mod app;
pub mod broadphase;
pub mod bundle;
pub mod ccd;
pub mod clip;
pub mod contacts;
pub mod debug_draw;
pub mod diagnose;
pub mod dynamics;
pub mod engine;
pub mod fp;
pub mod geometry;
pub mod lesson;
pub mod math;
pub mod narrowphase;
pub mod parallel;
#[cfg(feature = "rapier")]
pub mod peer;
pub mod record;
pub mod rng;
pub(crate) mod rules;
pub mod scene;
pub mod session;
pub mod settings;
pub(crate) mod simd;
pub mod stepper;
pub mod sweep;
pub mod timer;
pub mod union_find;
pub mod world;

pub use dynamics::{Body, BodyKind, Material};
pub use geometry::Shape;
pub use scene::{Scene, SceneError};
pub use settings::Settings;
pub use world::{StepProfile, World};
