//! The app through egui_kittest: panels, the pair view, the timeline, the teaching tools.

mod ab_reset;
mod contact_forces;
mod diagnose;
mod framing;
mod joints;
mod layout;
mod lessons;
mod materials;
mod pacing;
mod pair;
mod panels;
mod plots;
mod rapier_ab;
mod record_timeline;
mod scene_file;
mod sweep_table;
mod teach;
