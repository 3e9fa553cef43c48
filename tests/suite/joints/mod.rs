//! Joints against closed forms: pendulum period and energy, motors, limits, ropes, a heavy
//! chain; ragdolls crushed by heavy bodies; the scene format's joints and their errors.

mod chain;
mod closed_form;
mod crushed;
mod jolt;
mod rapier;
mod scene;
