//! Continuous collision: bullets, every shape, random shots, the sub-stepped reference, tunneling.

mod bullet;
pub mod common;
mod crowds;
mod every_shape;
mod mesh_shots;
mod random_shots;
mod reference;
mod tunneling;
