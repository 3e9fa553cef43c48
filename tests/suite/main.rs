//! The behaviour tests, one binary: a module per family, named like the engine's modules, so
//! `cargo test broadphase` runs the broad phase's tests here and its unit tests under `src/`.

#[cfg(feature = "gui")]
mod app;
mod broadphase;
mod bundle;
mod ccd;
mod cli;
#[cfg(feature = "gui")]
mod clip;
mod compound;
mod diagnose;
mod dynamics;
mod geometry;
mod joints;
mod layering;
mod lessons;
mod narrowphase;
mod record;
mod scenes;
mod scratch;
mod seeded;
mod sweep;
mod world;
