//! Widgets the panels share.

use super::humanize;
use eframe::egui::{self, Response, SliderClamping, Ui};

/// A slider that never changes a value merely by showing it, even one outside its range.
pub(crate) fn slider<'a, N: egui::emath::Numeric>(
    value: &'a mut N,
    range: std::ops::RangeInclusive<N>,
) -> egui::Slider<'a> {
    egui::Slider::new(value, range).clamping(SliderClamping::Edits)
}

/// A combo box over the variants of a settings enum, named after their Rust names.
pub(crate) fn combo<T: Copy + PartialEq + std::fmt::Debug>(
    ui: &mut Ui,
    id: &str,
    value: &mut T,
    all: &[T],
) -> Response {
    egui::ComboBox::from_id_salt(id)
        .selected_text(humanize(&format!("{value:?}")))
        .show_ui(ui, |ui| {
            for &v in all {
                ui.selectable_value(value, v, humanize(&format!("{v:?}")));
            }
        })
        .response
}

/// A combo box over a setting's choices, named after their Rust names.
pub(crate) fn combo_names(ui: &mut Ui, id: &str, choice: &mut dyn crate::settings::Choice) -> Response {
    let names = choice.names();
    let mut selected = choice.selected();
    let r = egui::ComboBox::from_id_salt(id)
        .selected_text(humanize(&names[selected]))
        .show_ui(ui, |ui| {
            for (i, n) in names.iter().enumerate() {
                ui.selectable_value(&mut selected, i, humanize(n));
            }
        })
        .response;
    choice.select(selected);
    r
}

/// A row naming a list of series with `label` and a combo box choosing one of `names` by index
/// (`id` keeps its state apart from other pickers).
pub(crate) fn series_pick(ui: &mut Ui, label: &str, id: &str, names: &[&str], k: &mut usize) {
    ui.horizontal(|ui| {
        let l = ui.label(label);
        egui::ComboBox::from_id_salt(id)
            .selected_text(names[*k])
            .show_ui(ui, |ui| {
                for (i, name) in names.iter().enumerate() {
                    ui.selectable_value(k, i, *name);
                }
            })
            .response
            .labelled_by(l.id);
    });
}

/// A value in a grid's last column, in monospace, wrapped at the panel's edge: a dock narrower
/// than the value (beside a lesson) would otherwise cut it off mid-number.
pub(crate) fn value(ui: &mut Ui, text: String) -> Response {
    ui.add(egui::Label::new(egui::RichText::new(text).monospace()).wrap())
}
