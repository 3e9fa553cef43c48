//! The command line through the real binary, with rapier3d as the second engine.

mod hostile;
mod peer;
mod run;
