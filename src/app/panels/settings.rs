//! The settings panel: every [`Settings`] field, editable while the world runs.

use super::PanelCx;
use super::widgets::{combo, slider};
use super::{Command, colors, help};
use crate::broadphase::{BroadPhaseKind, suggest_cell_size};
use crate::ccd::CcdMode;
use crate::narrowphase::NarrowPhaseKind;
use crate::narrowphase::mesh::InternalEdges;
use crate::world::{PositionCorrection, Settings, World};
use eframe::egui::{self, Response, Ui};

/// The range of each numeric setting's slider: (field, low, high, logarithmic, smallest positive
/// value on a logarithmic scale). The Sweep panel starts a varied setting from the same range.
pub(super) const RANGES: &[(&str, f64, f64, bool, f64)] = &[
    ("dt", 0.001, 0.1, true, 0.0),
    ("substeps", 1.0, Settings::MAX_SUBSTEPS as f64, true, 0.0),
    ("iterations", 1.0, Settings::MAX_ITERATIONS as f64, true, 0.0),
    ("contact_epsilon", 0.0, 1e-2, true, 1e-12),
    ("slop", 0.0, 0.1, true, 1e-5),
    ("speculative_distance", 0.0, 0.5, true, 1e-4),
    ("restitution_threshold", 0.0, 10.0, false, 0.0),
    ("baumgarte", 0.0, 1.0, false, 0.0),
    ("contact_hertz", 1.0, 240.0, true, 0.0),
    ("damping_ratio", 0.0, 20.0, false, 0.0),
    ("max_correction_velocity", 0.01, 100.0, true, 0.0),
    ("restitution", 0.0, 1.0, false, 0.0),
    ("friction", 0.0, 2.0, false, 0.0),
    ("grid_cell_size", 0.05, 50.0, true, 0.0),
    ("pair_cache_distance", 0.0, 0.05, true, 1e-5),
    ("ccd_speed_threshold", 0.1, 500.0, true, 0.0),
    ("sleep_speed", 0.0, 1.0, false, 0.0),
    ("sleep_time", 0.0, 5.0, false, 0.0),
];

/// The slider range of `field` from [`RANGES`].
fn range(field: &str) -> std::ops::RangeInclusive<f32> {
    let &(_, lo, hi, ..) = RANGES.iter().find(|r| r.0 == field).expect("every slider's field has a range");
    lo as f32..=hi as f32
}

/// Edits a copy of the world's settings and hands back a [`Command::SetSettings`] on change.
#[derive(Default)]
pub(crate) struct SettingsPanel {
    /// The last rejected edit, shown until the next valid one.
    error: Option<String>,
    /// (body count, typical body radius) for the epsilon readout, recomputed when bodies change.
    typical_radius: Option<(usize, f32)>,
}

/// A warning when the contact tolerances do not make sense together or for the scene's bodies:
/// sharp shapes count as touching up to √ε apart, which must stay well inside the speculative
/// distance and small beside the bodies.
pub(super) fn contact_warning(s: &Settings, typical_radius: Option<f32>) -> Option<String> {
    let gap = s.contact_epsilon.sqrt();
    if gap > 0.5 * s.speculative_distance {
        return Some(format!(
            "⚠ ε lets boxes count as touching up to √ε = {} apart, beyond half the speculative distance ({})",
            super::length_text(gap),
            super::length_text(s.speculative_distance)
        ));
    }
    match typical_radius {
        Some(r) if gap > 0.05 * r => Some(format!(
            "⚠ ε lets boxes count as touching up to √ε = {} apart, over 5% of a typical body ({})",
            super::length_text(gap),
            super::length_text(r)
        )),
        _ => None,
    }
}

impl SettingsPanel {
    pub(crate) fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (world, scene_settings) = (&cx.sim.world, &cx.sim.scene.settings);
        let mut s = world.settings.clone();
        let radius = self.typical_radius(world);

        ui.horizontal(|ui| {
            let differs = s != *scene_settings;
            if ui
                .add_enabled(differs, egui::Button::new("⟲ Back to the scene's values"))
                .on_hover_text("Restore every setting to the values in the scene file. The world keeps its state.")
                .clicked()
            {
                s = scene_settings.clone();
            }
            if differs {
                ui.colored_label(colors::WARN, "edited");
            }
        });

        section(ui, "Time stepping");
        egui::Grid::new("settings_time").num_columns(2).striped(true).show(ui, |ui| {
            row(ui, "dt", help::DT, |ui| {
                let r = ui.add(slider(&mut s.dt, range("dt")).logarithmic(true).fixed_decimals(4).suffix(" s"));
                ui.label(format!("{:.0} steps/s", 1.0 / s.dt));
                r
            });
            row(ui, "Substeps", help::SUBSTEPS, |ui| {
                ui.add(slider(&mut s.substeps, 1..=Settings::MAX_SUBSTEPS).logarithmic(true))
            });
            row(ui, "Iterations", help::ITERATIONS, |ui| {
                ui.add(slider(&mut s.iterations, 1..=Settings::MAX_ITERATIONS).logarithmic(true))
            });
            row(ui, "Gravity", help::GRAVITY, |ui| {
                ui.horizontal(|ui| {
                    let mut r = ui.add(axis(&mut s.gravity.x, "x "));
                    r |= ui.add(axis(&mut s.gravity.y, "y "));
                    r |= ui.add(axis(&mut s.gravity.z, "z "));
                    r
                })
                .inner
            });
        });

        section(ui, "Contacts");
        egui::Grid::new("settings_contacts").num_columns(2).striped(true).show(ui, |ui| {
            row(ui, "Contact epsilon", help::CONTACT_EPSILON, |ui| {
                let r = ui.add(
                    slider(&mut s.contact_epsilon, range("contact_epsilon"))
                        .logarithmic(true)
                        .smallest_positive(1e-12)
                        .custom_formatter(|v, _| format!("{v:.2e}"))
                        .custom_parser(|t| t.trim().parse().ok())
                        .suffix(" m²"),
                );
                if let Some(r0) = radius {
                    let delta = s.contact_epsilon / (2.0 * r0);
                    ui.label(format!("≈ δ = {} at r = {r0:.2} m", super::length_text(delta))).on_hover_text(
                        "The distance error ε tolerates at the scene's typical body radius: δ ≈ ε / (2r).",
                    );
                }
                r
            });
            row(ui, "Slop", help::SLOP, |ui| {
                ui.add(slider(&mut s.slop, range("slop")).logarithmic(true).smallest_positive(1e-5).suffix(" m"))
            });
            row(ui, "Speculative distance", help::SPECULATIVE_DISTANCE, |ui| {
                ui.add(
                    slider(&mut s.speculative_distance, range("speculative_distance"))
                        .logarithmic(true)
                        .smallest_positive(1e-4)
                        .suffix(" m"),
                )
            });
            if let Some(w) = contact_warning(&s, radius) {
                ui.label("");
                ui.colored_label(colors::WARN, w);
                ui.end_row();
            }
            row(ui, "Restitution threshold", help::RESTITUTION_THRESHOLD, |ui| {
                ui.add(slider(&mut s.restitution_threshold, range("restitution_threshold")).suffix(" m/s"))
            });
            row(ui, "Position correction", help::POSITION_CORRECTION, |ui| {
                combo(
                    ui,
                    "position_correction",
                    &mut s.position_correction,
                    &[PositionCorrection::Soft, PositionCorrection::Baumgarte],
                )
            });
            let soft = s.position_correction == PositionCorrection::Soft;
            row(ui, "Baumgarte factor", help::BAUMGARTE, |ui| {
                ui.add_enabled(!soft, slider(&mut s.baumgarte, range("baumgarte")))
                    .on_disabled_hover_text("Only Baumgarte position correction uses it.")
            });
            row(ui, "Contact hertz", help::CONTACT_HERTZ, |ui| {
                ui.add_enabled(
                    soft,
                    slider(&mut s.contact_hertz, range("contact_hertz")).logarithmic(true).suffix(" Hz"),
                )
                .on_disabled_hover_text("Only soft position correction uses it.")
            });
            row(ui, "Damping ratio", help::DAMPING_RATIO, |ui| {
                ui.add_enabled(soft, slider(&mut s.damping_ratio, range("damping_ratio")))
                    .on_disabled_hover_text("Only soft position correction uses it.")
            });
            row(ui, "Max correction velocity", help::MAX_CORRECTION_VELOCITY, |ui| {
                ui.add(
                    slider(&mut s.max_correction_velocity, range("max_correction_velocity"))
                        .logarithmic(true)
                        .suffix(" m/s"),
                )
            });
            row(ui, "", help::WARM_STARTING, |ui| ui.checkbox(&mut s.warm_starting, "Warm starting"));
        });

        section(ui, "Materials (every body)");
        egui::Grid::new("settings_materials").num_columns(2).striped(true).show(ui, |ui| {
            override_row(ui, "Restitution", help::RESTITUTION, &mut s.restitution, range("restitution"), 0.3);
            override_row(ui, "Friction", help::FRICTION, &mut s.friction, range("friction"), 0.5);
        });

        section(ui, "Algorithms");
        egui::Grid::new("settings_algorithms").num_columns(2).striped(true).show(ui, |ui| {
            row(ui, "Broad phase", help::BROAD_PHASE, |ui| {
                combo(ui, "broad_phase", &mut s.broad_phase, BroadPhaseKind::ALL)
            });
            row(ui, "Grid cell size", help::GRID_CELL_SIZE, |ui| {
                ui.horizontal(|ui| {
                    // The range grows to hold a size from the scene or from "auto" (huge bodies).
                    let (lo, hi) = range("grid_cell_size").into_inner();
                    let range = s.grid_cell_size.min(lo)..=s.grid_cell_size.max(hi);
                    let grid = s.broad_phase == BroadPhaseKind::Grid;
                    let why = "Only the Grid broad phase uses it (Auto sizes its own grid).";
                    let mut r = ui
                        .add_enabled(grid, slider(&mut s.grid_cell_size, range).logarithmic(true).suffix(" m"))
                        .on_disabled_hover_text(why);
                    let auto = ui
                        .add_enabled(grid, egui::Button::new("auto"))
                        .on_hover_text("Set from the bodies' current boxes (about twice the typical size).")
                        .on_disabled_hover_text(why);
                    if auto.clicked() {
                        s.grid_cell_size = suggest_cell_size(world.aabbs());
                        r.mark_changed();
                    }
                    r
                })
                .inner
            });
            row(ui, "Narrow phase", help::NARROW_PHASE, |ui| {
                combo(ui, "narrow_phase", &mut s.narrow_phase, NarrowPhaseKind::ALL)
            });
            row(ui, "Internal edges", help::INTERNAL_EDGES, |ui| {
                combo(ui, "internal_edges", &mut s.internal_edges, InternalEdges::ALL)
            });
            row(ui, "Pair cache distance", help::PAIR_CACHE_DISTANCE, |ui| {
                ui.add(
                    slider(&mut s.pair_cache_distance, range("pair_cache_distance"))
                        .logarithmic(true)
                        .smallest_positive(1e-5)
                        .suffix(" m"),
                )
            });
            row(ui, "CCD", help::CCD, |ui| combo(ui, "ccd", &mut s.ccd, CcdMode::ALL));
            row(ui, "CCD speed threshold", help::CCD_SPEED_THRESHOLD, |ui| {
                ui.add_enabled(
                    s.ccd != CcdMode::Off,
                    slider(&mut s.ccd_speed_threshold, range("ccd_speed_threshold")).logarithmic(true).suffix(" m/s"),
                )
                .on_disabled_hover_text("CCD is off: no body is swept, whatever its speed.")
            });
        });

        section(ui, "Sleeping");
        egui::Grid::new("settings_sleep").num_columns(2).striped(true).show(ui, |ui| {
            row(ui, "", help::SLEEPING, |ui| ui.checkbox(&mut s.sleeping, "Sleeping"));
            row(ui, "Sleep speed", help::SLEEP_SPEED, |ui| {
                ui.add_enabled(s.sleeping, slider(&mut s.sleep_speed, range("sleep_speed")).suffix(" m/s"))
                    .on_disabled_hover_text("Sleeping is off.")
            });
            row(ui, "Sleep time", help::SLEEP_TIME, |ui| {
                ui.add_enabled(s.sleeping, slider(&mut s.sleep_time, range("sleep_time")).suffix(" s"))
                    .on_disabled_hover_text("Sleeping is off.")
            });
        });

        if let Some(e) = &self.error {
            ui.colored_label(colors::ERROR, e);
        }
        if s == world.settings {
            return Vec::new();
        }
        match s.validate() {
            Ok(()) => {
                self.error = None;
                vec![Command::SetSettings(Box::new(s))]
            }
            Err(e) => {
                self.error = Some(e.to_string());
                Vec::new()
            }
        }
    }

    /// The median over dynamic bodies of the smallest half extent of their box: the radius of
    /// a sphere, the half thickness of a box.
    fn typical_radius(&mut self, world: &World) -> Option<f32> {
        let n = world.bodies().len();
        if let Some((count, r)) = self.typical_radius
            && count == n
        {
            return Some(r);
        }
        let mut radii: Vec<f32> = world
            .bodies()
            .iter()
            .filter(|b| b.is_dynamic())
            .map(|b| {
                let a = b.shape.aabb(&crate::math::Pose::IDENTITY);
                ((a.max - a.min) * 0.5).min_element()
            })
            .filter(|r| r.is_finite() && *r > 0.0)
            .collect();
        if radii.is_empty() {
            return None;
        }
        radii.sort_by(f32::total_cmp);
        let r = radii[radii.len() / 2];
        self.typical_radius = Some((n, r));
        Some(r)
    }
}

fn section(ui: &mut Ui, title: &str) {
    ui.add_space(6.0);
    ui.strong(title);
}

/// One grid row: a label and a widget, both carrying the help text, the widget labelled by the
/// label for screen readers and tests.
fn row(ui: &mut Ui, label: &str, help: &str, add: impl FnOnce(&mut Ui) -> Response) {
    let label_response = ui.label(label).on_hover_text(help);
    let r = add(ui).on_hover_text(help);
    if !label.is_empty() {
        r.labelled_by(label_response.id);
    }
    ui.end_row();
}

/// A grid row of an optional override: a checkbox ("all bodies") and, while it is set, a
/// slider for the value (labelled `label`); unset, each body keeps its own material. Turning it
/// on starts from `start`.
fn override_row(
    ui: &mut Ui,
    label: &str,
    help: &str,
    value: &mut Option<f32>,
    range: std::ops::RangeInclusive<f32>,
    start: f32,
) {
    let l = ui.label(label).on_hover_text(help);
    ui.horizontal(|ui| {
        let mut on = value.is_some();
        if ui.checkbox(&mut on, "all bodies").on_hover_text(help).changed() {
            *value = on.then_some(start);
        }
        match value {
            Some(v) => {
                ui.add(slider(v, range)).on_hover_text(help).labelled_by(l.id);
            }
            None => {
                ui.weak("each body's own");
            }
        }
    });
    ui.end_row();
}

fn axis<'a>(value: &'a mut f32, prefix: &str) -> egui::DragValue<'a> {
    egui::DragValue::new(value)
        .speed(0.05)
        .range(-100.0..=100.0)
        .clamp_existing_to_range(false)
        .prefix(prefix.to_owned())
}
