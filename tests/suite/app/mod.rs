//! The app through egui_kittest: panels, the pair view, the timeline, the teaching tools.

mod pair;
mod panels;
mod rapier_ab;
mod record_timeline;
mod teach;
