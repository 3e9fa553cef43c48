//! The inspector: the selected body's shape, mass, pose, velocity, contacts and joints, a plot of
//! its history since it was selected, and a list of all bodies to select from; the selected
//! joint's state and plot (`inspector/joint.rs`).

mod joint;

use super::PanelCx;
use super::{Command, widgets};
use crate::dynamics::Body;
use crate::dynamics::solver::Contact;
use crate::math::Vec3;
use crate::record::{BodyTrace, TRACE_SERIES};
use crate::world::World;
use eframe::egui::{self, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};

#[derive(Default)]
pub(crate) struct InspectorPanel {
    filter: String,
    /// The series of the history plot, an index into [`TRACE_SERIES`].
    series: usize,
    /// The series of the joint's plot, an index into [`crate::record::JOINT_SERIES`].
    joint_series: usize,
    /// The value range the history plot showed last frame (for tests).
    pub(crate) shown_range: Option<(f64, f64)>,
}

/// The smallest value range the history plot shows for each of [`TRACE_SERIES`]: noise smaller
/// than this (10 µm on a resting body) stays a flat line instead of filling the plot.
const MIN_SPAN: [f64; 5] = [0.1, 0.1, 0.1, 4.0, 0.005];

impl InspectorPanel {
    /// The series plotted, an index into [`TRACE_SERIES`].
    pub(crate) fn series(&self) -> usize {
        self.series
    }

    /// Plots series `k` of [`TRACE_SERIES`] (out of range: the first).
    pub(crate) fn set_series(&mut self, k: usize) {
        self.series = if k < TRACE_SERIES.len() { k } else { 0 };
    }

    /// The selected body's history since it was selected, and the pinned bodies' since they
    /// were pinned: one series at a time, and how often the selected body's contacts switched on
    /// and off.
    fn trace_plot(&mut self, ui: &mut Ui, trace: &BodyTrace, pinned: &[BodyTrace], out: &mut Vec<Command>) {
        ui.add_space(4.0);
        widgets::series_pick(ui, "Over time", "trace_series", &TRACE_SERIES, &mut self.series);
        let selected = trace.body();
        ui.horizontal_wrapped(|ui| {
            if let Some(i) = selected.filter(|i| !pinned.iter().any(|t| t.body() == Some(*i)))
                && ui
                    .button("📌 Pin to the plot")
                    .on_hover_text("Keep plotting this body after another is selected, to compare them")
                    .clicked()
            {
                out.push(Command::Pin(i, true));
            }
            for t in pinned {
                let Some(j) = t.body() else { continue };
                if ui.small_button(format!("✖ #{j}")).on_hover_text(format!("Unpin body {j}")).clicked() {
                    out.push(Command::Pin(j, false));
                }
            }
        });
        if trace.is_empty() && pinned.iter().all(BodyTrace::is_empty) {
            ui.label("Play or step to plot this body.");
            return;
        }
        let k = self.series;
        let others: Vec<&BodyTrace> = pinned.iter().filter(|t| t.body() != selected).collect();
        let (lo, hi) = std::iter::once(trace)
            .chain(others.iter().copied())
            .flat_map(|t| t.series(k))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), [_, y]| (lo.min(y), hi.max(y)));
        let mid = if lo.is_finite() && hi.is_finite() { 0.5 * (lo + hi) } else { 0.0 };
        let half = MIN_SPAN[k.min(MIN_SPAN.len() - 1)] * 0.5;
        let response = Plot::new("trace_plot")
            .height(160.0)
            .include_y(mid - half)
            .include_y(mid + half)
            .x_axis_label("step")
            .x_axis_formatter(super::widgets::step_ticks)
            .y_axis_label(TRACE_SERIES[k])
            .legend(super::widgets::plot_legend(egui_plot::Corner::RightTop))
            .show(ui, |plot| {
                let name = |t: &BodyTrace| t.body().map_or(String::new(), |i| format!("#{i}"));
                if !trace.is_empty() {
                    let pts: PlotPoints = trace.series(k).collect();
                    plot.line(Line::new(format!("{} (selected)", name(trace)), pts).width(2.0));
                }
                for t in others {
                    let pts: PlotPoints = t.series(k).collect();
                    plot.line(Line::new(format!("{} (pinned)", name(t)), pts).width(1.5));
                }
            });
        let b = response.transform.bounds();
        self.shown_range = Some((b.min()[1], b.max()[1]));
        ui.label(format!("contact changes since selected: {}", trace.contact_changes())).on_hover_text(
            "Contacts of this body that started or ended: a resting body whose count climbs is flickering (jitter).",
        );
    }

    pub(crate) fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (world, trace, pinned) = (&cx.sim.world, &cx.sim.trace, &cx.sim.pinned);
        let (selected, dragging) = (cx.view.selected, cx.sim.drag.map(|d| d.body));
        let mut commands = Vec::new();
        if let Some(k) = cx.view.selected_joint.filter(|&k| k < world.joints().len()) {
            self.joint_section(ui, world, k, &cx.sim.joint_trace, &mut commands);
            ui.separator();
        }
        match selected.and_then(|i| world.bodies().get(i).map(|b| (i, b))) {
            Some((i, body)) => {
                ui.horizontal(|ui| {
                    ui.heading(format!("Body {i}"));
                    if ui.button("Deselect").clicked() {
                        commands.push(Command::Select(None));
                    }
                });
                body_details(ui, world, i, body, dragging == Some(i), &mut commands);
                joint::body_joints(ui, world, i, cx.view.selected_joint, &mut commands);
                self.trace_plot(ui, trace, pinned, &mut commands);
            }
            None => {
                ui.label("Click a body in the 3D view, or pick one below.");
            }
        }
        ui.add_space(6.0);
        egui::CollapsingHeader::new(format!("All bodies ({})", world.bodies().len())).id_salt("all_bodies").show(
            ui,
            |ui| {
                ui.horizontal(|ui| {
                    let label = ui.label("Filter");
                    ui.text_edit_singleline(&mut self.filter).labelled_by(label.id);
                });
                let filter = self.filter.to_lowercase();
                let matches: Vec<usize> = (0..world.bodies().len())
                    .filter(|&i| filter.is_empty() || title(world, i).to_lowercase().contains(&filter))
                    .collect();
                let row_height = ui.text_style_height(&egui::TextStyle::Button) + 4.0;
                egui::ScrollArea::vertical().max_height(260.0).id_salt("bodies_list").show_rows(
                    ui,
                    row_height,
                    matches.len(),
                    |ui, range| {
                        for &i in &matches[range] {
                            if ui.selectable_label(selected == Some(i), title(world, i)).clicked() {
                                commands.push(Command::Select(Some(i)));
                            }
                        }
                    },
                );
            },
        );
        joint::all_joints(ui, world, cx.view.selected_joint, &mut commands);
        commands
    }
}

/// `#3 crate (Dynamic sphere)`: an entry of the body list.
fn title(world: &World, i: usize) -> String {
    let b = &world.bodies()[i];
    let kind = format!("{:?}", b.shape.kind()).to_lowercase();
    match &b.name {
        Some(n) => format!("#{i} {n} ({:?} {kind})", b.kind),
        None => format!("#{i} ({:?} {kind})", b.kind),
    }
}

/// The body's restitution, friction and density, each editable (a change is a user action);
/// a material setting that overrides a value for every body is named beside it.
fn material_rows(ui: &mut Ui, world: &World, i: usize, b: &Body, out: &mut Vec<Command>) {
    let mut m = b.material;
    let overridden = |v: Option<f32>, name: &str| v.map(|v| format!("the {name} setting overrides it: {v:.2}"));
    // (name, value, range, drag speed, what overrides it)
    type Row<'a> = (&'a str, &'a mut f32, std::ops::RangeInclusive<f32>, f64, Option<String>);
    let rows: [Row; 3] = [
        ("restitution", &mut m.restitution, 0.0..=1.0, 0.01, overridden(world.settings.restitution, "restitution")),
        ("friction", &mut m.friction, 0.0..=100.0, 0.01, overridden(world.settings.friction, "friction")),
        ("density", &mut m.density, 1e-3..=1e6, 10.0, None),
    ];
    for (name, v, range, speed, note) in rows {
        let l = ui.label(name);
        ui.horizontal(|ui| {
            let suffix = if name == "density" { " kg/m³" } else { "" };
            ui.add(egui::DragValue::new(v).range(range).speed(speed).suffix(suffix))
                .on_hover_text(format!("Drag or type to change this body's {name}"))
                .labelled_by(l.id);
            if let Some(n) = note {
                ui.weak(n);
            }
        });
        ui.end_row();
    }
    if m != b.material {
        out.push(Command::SetMaterial(i, m));
    }
}

fn body_details(ui: &mut Ui, world: &World, i: usize, b: &Body, dragging: bool, out: &mut Vec<Command>) {
    let state = if b.is_asleep() {
        "asleep"
    } else if b.is_dynamic() {
        "awake"
    } else {
        ""
    };
    egui::Grid::new("inspector_body").num_columns(2).striped(true).show(ui, |ui| {
        let mut kv = |k: &str, v: String| {
            ui.label(k);
            super::widgets::value(ui, v);
            ui.end_row();
        };
        kv("name", b.name.clone().unwrap_or_else(|| "—".into()));
        kv("kind", format!("{:?} {state}{}", b.kind, if b.bullet { ", bullet" } else { "" }));
        kv("shape", b.shape.describe());
        kv(
            "mass",
            if b.is_dynamic() {
                super::widgets::quantity(b.mass(), "kg")
            } else {
                "∞ (not moved by contacts)".into()
            },
        );
        material_rows(ui, world, i, b, out);
        let mut kv = |k: &str, v: String| {
            ui.label(k);
            super::widgets::value(ui, v);
            ui.end_row();
        };
        kv("position", vec3(b.pose.translation));
        let (ex, ey, ez) = b.pose.rotation.to_euler(glam::EulerRot::XYZ);
        let deg = |a: f32| crate::math::fixed_text(a.to_degrees(), 1);
        kv("rotation", format!("({}°, {}°, {}°) XYZ", deg(ex), deg(ey), deg(ez)));
        let q = b.pose.rotation;
        kv("quaternion", format!("({:.4}, {:.4}, {:.4}, {:.4})", q.x, q.y, q.z, q.w));
        kv("velocity", format!("{}  |v| = {:.3} m/s", vec3(b.linvel), b.linvel.length()));
        kv("angular velocity", format!("{}  |ω| = {:.3} rad/s", vec3(b.angvel), b.angvel.length()));
        kv("kinetic energy", super::widgets::quantity(b.kinetic_energy(), "J"));
        if dragging {
            kv("mouse", "held by the mouse spring".into());
        }
    });

    let idx = i as u32;
    let touches = |c: &&Contact| c.a == idx || c.b == idx;
    // Each contact with its place in the step's list (for its impulses); a body asleep has
    // none there, as its pairs are not tested, and lists those its island fell asleep with,
    // as the view draws them.
    let mut contacts: Vec<(Option<usize>, &Contact)> =
        world.contacts().iter().enumerate().filter(|(_, c)| touches(c)).map(|(k, c)| (Some(k), c)).collect();
    let resting = contacts.is_empty() && b.is_asleep();
    if resting {
        contacts.extend(world.resting_contacts().iter().filter(touches).map(|c| (None, c)));
    }
    ui.add_space(4.0);
    ui.label(RichText::new(format!("Contacts ({})", contacts.len())).strong());
    if contacts.is_empty() {
        ui.weak("None in the last step.");
    } else if resting {
        ui.weak("Asleep: the contacts its island fell asleep with. They are not solved while it sleeps.");
    }
    // Both ways: the table's five columns are wider than a narrow dock.
    egui::ScrollArea::both().max_height(280.0).id_salt("inspector_contacts").show(ui, |ui| {
        for (k, c) in contacts {
            let impulses = k.and_then(|k| world.contact_impulses(k));
            let other = if c.a == idx { c.b } else { c.a };
            let other_name = world
                .bodies()
                .get(other as usize)
                .and_then(|b| b.name.clone())
                .map(|n| format!(" {n}"))
                .unwrap_or_default();
            ui.label(format!(
                "with #{other}{other_name}: normal {} (from #{} to #{})",
                vec3(c.manifold.normal),
                c.a,
                c.b
            ));
            egui::Grid::new(("contact", c.a, c.b)).num_columns(5).show(ui, |ui| {
                ui.weak("point");
                ui.weak("depth");
                let per = "over the last step (its last substep's impulse times the substeps)";
                ui.weak("normal impulse").on_hover_text(format!("Push along the normal, N·s, {per}"));
                ui.weak("friction impulse").on_hover_text(format!("Size of the friction impulse, N·s, {per}"));
                ui.weak("");
                ui.end_row();
                for (j, p) in c.manifold.points().iter().enumerate() {
                    // Per step: the last substep's impulse times the substeps.
                    let per_step = world.settings.substeps as f32;
                    let imp = impulses.map(|m| (m[j].normal * per_step, m[j].tangent.length() * per_step));
                    ui.monospace(vec3(p.point));
                    ui.monospace(format!("{:+.5} m", p.depth));
                    ui.monospace(imp.map_or("—".into(), |(n, _)| format!("{n:.4} N·s")));
                    ui.monospace(imp.map_or("—".into(), |(_, t)| format!("{t:.4} N·s")));
                    ui.weak(if p.depth >= 0.0 { "overlap" } else { "speculative" });
                    ui.end_row();
                }
            });
        }
    });
}

/// Three places, a value that rounds to zero written `0.000`, not `-0.000`.
fn vec3(v: Vec3) -> String {
    let r = |x: f32| crate::math::fixed_text(x, 3);
    format!("({}, {}, {})", r(v.x), r(v.y), r(v.z))
}
