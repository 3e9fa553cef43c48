//! Scene files: loading and errors, hostile input, and the lessons' claims checked headless.

mod ghost_lab;
mod hostile_import;
mod hostile_input;
mod joint_lessons;
mod lesson_claims;
mod load;
mod mesh;
mod mesh_crease;
mod mesh_import;
