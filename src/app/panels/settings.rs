//! The settings panel: every [`Settings`] field, editable while the world runs. The rows, their
//! labels, sections, ranges, units, help text and when a control is disabled come from
//! [`Settings::FACTS`]; this file adds the readouts beside a few of them.

use super::PanelCx;
use super::widgets::{combo_names, slider};
use super::{Command, colors};
use crate::broadphase::suggest_cell_size;
use crate::settings::{Facts, Section, ValueMut};
use crate::world::{Settings, World, slop_warning, thinnest_fixed_solid};
use eframe::egui::{self, Response, Ui};

/// Edits a copy of the world's settings and hands back a [`Command::SetSettings`] on change.
#[derive(Default)]
pub(crate) struct SettingsPanel {
    /// The last rejected edit, shown until the next valid one.
    error: Option<String>,
    /// (body count, typical body radius) for the epsilon readout, recomputed when bodies change.
    typical_radius: Option<(usize, f32)>,
    /// (the world's bodies revision, its thinnest fixed solid) for the slop warning.
    thinnest: Option<(u64, Option<(usize, f32)>)>,
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
        let thinnest = self.thinnest(world);

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

        // A narrow dock (a projector's 1280 px window) stacks each label over its control:
        // beside the longest label, a slider would shrink to a stub.
        let stacked = visible_width(ui) < STACK_BELOW;
        for &section in Section::ALL {
            ui.add_space(6.0);
            ui.strong(section.title());
            let rows = |ui: &mut Ui| {
                for facts in Settings::FACTS.iter().filter(|f| f.section == section) {
                    let unused = (facts.unused)(&s);
                    let readouts = has_extras(facts.name, radius)
                        .then_some(|ui: &mut Ui, s: &mut Settings| extras(ui, facts.name, s, world, radius));
                    row(ui, facts, unused, &mut s, readouts, stacked);
                    let warning = match facts.name {
                        "speculative_distance" => contact_warning(&s, radius),
                        "slop" => slop_warning(s.slop, world.bodies(), thinnest).map(|w| format!("⚠ {w}")),
                        _ => None,
                    };
                    if let Some(w) = warning {
                        second_column(ui, stacked);
                        // Wrapped at the dock's visible edge, as the readouts are.
                        ui.vertical(|ui| {
                            ui.set_max_width(visible_width(ui));
                            ui.add(egui::Label::new(egui::RichText::new(w).color(colors::WARN)).wrap());
                        });
                        ui.end_row();
                    }
                }
            };
            if stacked {
                ui.vertical(rows);
            } else {
                egui::Grid::new(("settings", section.title())).num_columns(2).striped(true).show(ui, rows);
            }
        }

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

    /// The world's thinnest fixed solid ([`thinnest_fixed_solid`]), found again when its bodies
    /// change.
    fn thinnest(&mut self, world: &World) -> Option<(usize, f32)> {
        let revision = world.bodies_revision();
        match self.thinnest {
            Some((r, t)) if r == revision => t,
            _ => {
                let t = thinnest_fixed_solid(world.bodies());
                self.thinnest = Some((revision, t));
                t
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

/// Below this visible width the settings stack each label over its control (the longest label,
/// a usable slider and its [`VALUE_BOX`] side by side take about this).
const STACK_BELOW: f32 = 380.0;

/// The widest a stacked slider grows (it fits the line: [`fit_slider`]).
const STACKED_SLIDER: f32 = 200.0;

/// The indent of a stacked control under its label.
const STACKED_INDENT: f32 = 14.0;

/// Moves to the control's column: past the grid's first cell; stacked, the next line is already
/// there.
fn second_column(ui: &mut Ui, stacked: bool) {
    if !stacked {
        ui.label("");
    }
}

/// One row: the label and the setting's control, both carrying its help text, the control
/// labelled by the label for screen readers and tests and disabled, saying why, when the other
/// settings make it do nothing; `extras`, if any, adds a line of readouts under it. In a grid
/// the two are side by side; `stacked`, the control goes under its label, indented.
fn row(
    ui: &mut Ui,
    facts: &Facts,
    unused: Option<&'static str>,
    s: &mut Settings,
    extras: Option<impl FnOnce(&mut Ui, &mut Settings)>,
    stacked: bool,
) {
    let switch = matches!(s.value_mut(facts.name), Some(ValueMut::Switch(_)));
    // An unset override shows its checkbox alone, which keeps its own name ("all bodies").
    let labelled = !switch && !matches!(s.value_mut(facts.name), Some(ValueMut::Override(None)));
    // Stacked, a switch (a checkbox carrying its own name) needs no empty line above it.
    let label = if stacked && switch {
        None
    } else {
        Some(ui.label(if switch { "" } else { facts.label }).on_hover_text(facts.help))
    };
    let indent = if stacked && !switch { STACKED_INDENT } else { 0.0 };
    let mut r = ui
        .add_enabled_ui(unused.is_none(), |ui| {
            ui.horizontal(|ui| {
                ui.add_space(indent);
                if stacked {
                    // The dock caps sliders for a control beside its label; under it, a slider
                    // may take the line.
                    ui.spacing_mut().slider_width = STACKED_SLIDER;
                }
                control(ui, facts, s)
            })
            .inner
        })
        .inner
        .on_hover_text(facts.help);
    if let Some(why) = unused {
        r = r.on_disabled_hover_text(why);
    }
    if let Some(label) = label
        && labelled
    {
        r.labelled_by(label.id);
    }
    ui.end_row();
    // Readouts go on a line of their own under the control, which leaves the control the
    // dock's width.
    if let Some(extras) = extras {
        second_column(ui, stacked);
        ui.add_enabled_ui(unused.is_none(), |ui| {
            // Wrapped at the dock's visible edge, word by word.
            ui.set_max_width(visible_width(ui));
            ui.horizontal_wrapped(|ui| {
                ui.add_space(indent);
                extras(ui, s)
            })
        });
        ui.end_row();
    }
}

/// The control of one setting, by the kind of its value, with the range, scale and unit of its
/// facts.
fn control(ui: &mut Ui, facts: &Facts, s: &mut Settings) -> Response {
    let range = facts.range.unwrap_or(crate::settings::Range { lo: 0.0, hi: 1.0, log: false, smallest: 0.0 });
    match s.value_mut(facts.name).expect("every fact names a field") {
        ValueMut::Number(v) => {
            // The range grows to hold a value from the scene or from "auto" (huge bodies).
            let span = v.min(range.lo as f32)..=v.max(range.hi as f32);
            fit_slider(ui);
            let mut sl = slider(v, span).logarithmic(range.log).suffix(facts.suffix());
            if range.smallest > 0.0 {
                sl = sl.smallest_positive(range.smallest);
            }
            if let Some(d) = facts.decimals {
                sl = sl.fixed_decimals(d);
            }
            if facts.scientific {
                sl = sl.custom_formatter(|v, _| format!("{v:.2e}")).custom_parser(|t| t.trim().parse().ok());
            }
            ui.add(sl)
        }
        ValueMut::Count(v) => {
            fit_slider(ui);
            ui.add(slider(v, range.lo as u32..=range.hi as u32).logarithmic(range.log))
        }
        ValueMut::Switch(v) => ui.checkbox(v, facts.label),
        ValueMut::Vector(v) => {
            let mut r = ui.add(axis(&mut v.x, "x ", range));
            r |= ui.add(axis(&mut v.y, "y ", range));
            r | ui.add(axis(&mut v.z, "z ", range))
        }
        ValueMut::Override(value) => {
            let mut on = value.is_some();
            let check = ui.checkbox(&mut on, "all bodies");
            if check.changed() {
                *value = on.then_some(facts.start.unwrap_or(range.lo) as f32);
            }
            // The slider, while there is one, is the control the row's label names.
            match value {
                Some(v) => {
                    fit_slider(ui);
                    ui.add(slider(v, range.lo as f32..=range.hi as f32)) | check
                }
                None => {
                    ui.weak("each body's own");
                    check
                }
            }
        }
        ValueMut::Choice(c) => combo_names(ui, facts.name, c),
    }
}

/// The room a slider's value box takes beside it (the widest value, such as `1.00e-6` or
/// `1.00e-6 m²`, with the spacing before it).
const VALUE_BOX: f32 = 100.0;

/// Narrows the next sliders so that their value boxes end where the dock's visible area does
/// (the dock scrolls sideways, so its content may be wider than it shows): the visible width
/// left in the row less [`VALUE_BOX`], at most the style's slider width and at least a
/// usable rail.
fn fit_slider(ui: &mut Ui) {
    let fit = visible_width(ui) - VALUE_BOX;
    ui.spacing_mut().slider_width = fit.clamp(24.0, ui.spacing().slider_width.max(24.0));
}

/// The width from the cursor to the right edge of what the dock shows.
fn visible_width(ui: &Ui) -> f32 {
    ui.clip_rect().right() - ui.cursor().left()
}

/// Whether [`extras`] shows anything under the setting `name` (the ε readout needs the
/// scene's typical radius).
fn has_extras(name: &str, radius: Option<f32>) -> bool {
    match name {
        "dt" | "grid_cell_size" => true,
        "contact_epsilon" => radius.is_some(),
        _ => false,
    }
}

/// Readouts and buttons under a few settings' controls ([`has_extras`]).
fn extras(ui: &mut Ui, name: &str, s: &mut Settings, world: &World, radius: Option<f32>) {
    match name {
        "dt" => {
            ui.label(format!("{:.0} steps/s", 1.0 / s.dt));
        }
        "contact_epsilon" => {
            if let Some(r0) = radius {
                let delta = s.contact_epsilon / (2.0 * r0);
                ui.label(format!("≈ δ = {} at r = {r0:.2} m", super::length_text(delta)))
                    .on_hover_text("The distance error ε tolerates at the scene's typical body radius: δ ≈ ε / (2r).");
            }
        }
        "grid_cell_size" => {
            let auto =
                ui.button("auto").on_hover_text("Set from the bodies' current boxes (about twice the typical size).");
            if auto.clicked() {
                s.grid_cell_size = suggest_cell_size(world.aabbs());
            }
        }
        _ => {}
    }
}

fn axis<'a>(value: &'a mut f32, prefix: &str, range: crate::settings::Range) -> egui::DragValue<'a> {
    egui::DragValue::new(value)
        .speed(0.05)
        .range(range.lo..=range.hi)
        .clamp_existing_to_range(false)
        .prefix(prefix.to_owned())
}
