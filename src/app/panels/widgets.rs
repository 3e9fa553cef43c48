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

/// A plot's legend in small text over a see-through box: it sits on the plot's data (the first
/// steps of a timing plot), which shows through it.
pub(crate) fn plot_legend(corner: egui_plot::Corner) -> egui_plot::Legend {
    egui_plot::Legend::default().position(corner).text_style(egui::TextStyle::Small).background_alpha(0.45)
}

/// Tick labels for an axis of step numbers: whole steps only (zoomed in, the marks between them
/// stay unlabelled instead of reading "12.5").
pub(crate) fn step_ticks(mark: egui_plot::GridMark, _range: &std::ops::RangeInclusive<f64>) -> String {
    if mark.value.fract() == 0.0 { format!("{:.0}", mark.value) } else { String::new() }
}

/// A quantity to four significant figures with its unit: `1152 kg`, `549.8 J`, `0.5236 kg`,
/// `0 J`; scientific below 1e-4 and from 1e7 (`2.50e-6 kg`).
pub(crate) fn quantity(v: f32, unit: &str) -> String {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() {
        return format!("{} {unit}", if a == 0.0 { 0.0 } else { v });
    }
    if !(1e-4..1e7).contains(&a) {
        return format!("{v:.2e} {unit}");
    }
    let decimals = (3 - a.log10().floor() as i32).max(0) as usize;
    format!("{v:.decimals$} {unit}")
}

#[cfg(test)]
mod tests {
    use super::{quantity, step_ticks};

    #[test]
    fn quantities_keep_four_significant_figures() {
        assert_eq!(quantity(1152.0, "kg"), "1152 kg");
        assert_eq!(quantity(549.8156, "J"), "549.8 J");
        assert_eq!(quantity(0.412_345, "kg"), "0.4123 kg");
        assert_eq!(quantity(12.0, "kg"), "12.00 kg");
        assert_eq!(quantity(0.0, "J"), "0 J");
        assert_eq!(quantity(-0.0, "J"), "0 J");
        assert_eq!(quantity(2.5e-6, "kg"), "2.50e-6 kg");
        assert_eq!(quantity(123_456.0, "J"), "123456 J");
    }

    #[test]
    fn step_axes_label_whole_steps_only() {
        let mark = |value| egui_plot::GridMark { value, step_size: 0.5 };
        assert_eq!(step_ticks(mark(12.0), &(0.0..=20.0)), "12");
        assert_eq!(step_ticks(mark(12.5), &(0.0..=20.0)), "");
    }
}
