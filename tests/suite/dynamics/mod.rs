//! Dynamics against closed forms: bounce, friction, resting contact, stacks and walls.

mod bounce;
mod friction;
mod pyramid_wall;
mod resting;
mod stacks;
