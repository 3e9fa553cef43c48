//! Joints against closed forms: pendulum period and energy, motors, limits, ropes, a heavy
//! chain; the scene format's joints and their errors.

mod chain;
mod closed_form;
mod jolt;
mod rapier;
mod scene;
