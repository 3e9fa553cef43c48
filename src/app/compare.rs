//! The A/B view: world A and the app's world B side by side with one shared camera, bodies
//! coloured by how far they have diverged, both step profiles in one plot, and the settings
//! that make them differ.

use super::panels::widgets::combo;
use super::panels::{Command, colors, humanize, length_text};
use super::viewport::colors::{STATIC, speed_color};
use super::viewport::{Layers, ViewAction, ViewOptions, Viewport};
use crate::BodyKind;
use crate::broadphase::BroadPhaseKind;
use crate::ccd::CcdMode;
use crate::math::Real;
use crate::narrowphase::NarrowPhaseKind;
use crate::narrowphase::mesh::InternalEdges;
use crate::session::sim::Simulation;
use crate::session::timeline::{Partner, RecordCommand};
use crate::world::{PHASES, Settings, World};
use eframe::egui::{self, Color32, RichText, SliderClamping, Ui};
use egui_plot::{Line, LineStyle, Plot, PlotPoints};

/// Colour of bodies that exist in B only (shots fired in B).
const ONLY_IN_B: [f32; 3] = [0.85, 0.3, 0.95];
const A_COLOR: Color32 = Color32::from_rgb(90, 170, 255);
const B_COLOR: Color32 = Color32::from_rgb(255, 150, 60);

pub(super) struct CompareView {
    /// The view of world A, made beside the app's viewport the first time it is needed.
    a_view: Option<Viewport>,
    /// Divergence (m) drawn at the red end of the colour scale.
    pub full_scale: Real,
    /// Which time the plot shows: `None` for the step total, else an index into [`PHASES`].
    pub phase: Option<usize>,
}

impl Default for CompareView {
    fn default() -> Self {
        CompareView { a_view: None, full_scale: 0.5, phase: None }
    }
}

impl CompareView {
    /// The view of world A, once A/B has been shown side by side.
    pub(super) fn a_view(&self) -> Option<&Viewport> {
        self.a_view.as_ref()
    }

    /// Draws the central area: the app's viewport alone, or A and B side by side with the
    /// comparison below. Returns what the user did in B's view (the app's world).
    pub(super) fn ui(
        &mut self,
        ui: &mut Ui,
        main: &mut Viewport,
        sim: &Simulation,
        view: &ViewOptions,
        commands: &mut Vec<Command>,
    ) -> Vec<ViewAction> {
        let Some(partner) = sim.record.partner.as_ref().filter(|_| sim.record.side_by_side) else {
            return main.ui(ui, &sim.world, view);
        };
        let a_view = self.a_view.get_or_insert_with(|| main.sibling());
        // Each view has half the width: its legend and help fold to one line.
        let colored = ViewOptions {
            body_colors: Some(divergence_colors(partner, &sim.world, self.full_scale)),
            legend: Some(folded_legend(self.full_scale, partner)),
            folded: true,
            ..view.clone()
        };
        let strip = 250.0_f32.min(ui.available_height() * 0.4);
        let view_h = (ui.available_height() - strip).max(80.0);
        let half = ((ui.available_width() - 6.0) * 0.5).max(40.0);
        let mut actions = Vec::new();
        // A rapier partner is B, on the right; the app's world is then A, on the left.
        let swap = partner.is_peer();
        // rapier's world reads back bodies only: the layers drawn from Collidoscope's pipeline
        // (boxes, contacts, pairs, sweeps, structures) would show stale data there.
        let partner_view = if swap { bodies_only(&colored) } else { colored.clone() };
        ui.horizontal(|ui| {
            ui.spacing_mut().item_spacing.x = 6.0;
            // One camera: the partner's view starts from the app's, and an orbit made in it
            // carries over.
            *a_view.camera_mut() = main.camera().clone();
            let down = egui::Layout::top_down(egui::Align::Min);
            let mut partner_side = |ui: &mut Ui, actions: &mut Vec<ViewAction>| {
                let (name, color) = if swap { ("B", B_COLOR) } else { ("A", A_COLOR) };
                side_label(
                    ui,
                    name,
                    color,
                    label_partner(partner),
                    partner.other(),
                    partner.is_peer().then(|| partner.engine_label()),
                );
                for a in a_view.ui(ui, partner.other(), &partner_view) {
                    if let ViewAction::Select(_) | ViewAction::SelectJoint(_) = a {
                        actions.push(a);
                    }
                }
            };
            let app_label = "Collidoscope: the app's world (drag, shoot, edit here)".to_string();
            if swap {
                ui.allocate_ui_with_layout(egui::vec2(half, view_h), down, |ui| {
                    side_label(ui, "A", A_COLOR, app_label.clone(), &sim.world, None);
                    actions.extend(main.ui(ui, &sim.world, &colored));
                });
                ui.allocate_ui_with_layout(egui::vec2(half, view_h), down, |ui| partner_side(ui, &mut actions));
            } else {
                ui.allocate_ui_with_layout(egui::vec2(half, view_h), down, |ui| partner_side(ui, &mut actions));
            }
            if a_view.camera() != main.camera() {
                *main.camera_mut() = a_view.camera().clone();
            }
            if !swap {
                ui.allocate_ui_with_layout(egui::vec2(half, view_h), down, |ui| {
                    side_label(ui, "B", B_COLOR, app_label, &sim.world, None);
                    actions.extend(main.ui(ui, &sim.world, &colored));
                });
            }
        });
        ui.separator();
        // The strip below: the report, the settings grid and the plot, each in its own column
        // that scrolls rather than clip when the window is small.
        let strip = ui.available_height().max(80.0);
        ui.horizontal_top(|ui| {
            let down = egui::Layout::top_down(egui::Align::Min);
            let width = ui.available_width();
            let (report_w, grid_w) = ((width * 0.27).clamp(220.0, 340.0), (width * 0.4).clamp(300.0, 460.0));
            ui.allocate_ui_with_layout(egui::vec2(report_w, strip), down, |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("ab_report")
                    .auto_shrink([false, true])
                    .show(ui, |ui| self.report(ui, partner, sim, commands));
            });
            ui.separator();
            ui.allocate_ui_with_layout(egui::vec2(grid_w, strip), down, |ui| {
                egui::ScrollArea::both().id_salt("ab_grid").auto_shrink([false, true]).show(ui, |ui| {
                    ui.spacing_mut().item_spacing.y = 2.0;
                    ui.spacing_mut().interact_size.y = 20.0;
                    settings_grid(ui, partner, &sim.world.settings, commands)
                });
            });
            ui.separator();
            ui.allocate_ui_with_layout(egui::vec2(ui.available_width().max(160.0), strip), down, |ui| {
                self.plot(ui, partner)
            });
        });
        actions
    }

    fn report(&mut self, ui: &mut Ui, p: &Partner, sim: &Simulation, commands: &mut Vec<Command>) {
        ui.vertical(|ui| {
            ui.horizontal_wrapped(|ui| {
                ui.strong("A/B");
                if ui.button("✖ Close").on_hover_text("End the comparison; B (the app's world) carries on").clicked()
                {
                    commands.push(Command::Record(RecordCommand::CloseAb));
                }
                if ui.button("Single view").on_hover_text("Show B alone; A keeps stepping").clicked() {
                    commands.push(Command::Record(RecordCommand::SideBySide(false)));
                }
                if ui
                    .button("⟲ Both to the start")
                    .on_hover_text(
                        "Both worlds back to the A/B's start, each keeping its settings, still in lockstep (R)",
                    )
                    .clicked()
                {
                    commands.push(Command::Reset);
                }
                if ui
                    .add_enabled(p.back_steps() > 0, egui::Button::new("◀ Back"))
                    .on_hover_text("Both worlds one step back (←)")
                    .clicked()
                {
                    commands.push(Command::Record(RecordCommand::StepBack));
                }
            });
            ui.label(format!("since step {}: {} steps in lockstep", p.start, p.steps()));
            if p.out_of_step {
                ui.colored_label(colors::WARN, "B was reset or replaced: A no longer steps with it");
            }
            if p.is_peer() {
                // Another engine's state never hashes as ours: the distances below say how far
                // apart the two runs are.
                ui.weak("another engine: compared by the bodies' distances, not by state hashes");
            } else {
                match p.first_divergent {
                    Some(s) => ui.colored_label(colors::WARN, format!("first divergent step: {s}")),
                    None => ui.colored_label(colors::OK, "identical so far (same state hash every step)"),
                }
                .on_hover_text("The first step after which A and B's state hashes differ");
            }
            // A body is named only when it is apart: with every Δ 0 the largest is any body (the
            // strip named "body 3000" of a rain that had not diverged).
            match p.max_divergence() {
                Some((_, d)) if d <= 0.0 => {
                    ui.label(format!("no body apart: max Δ {d:.4} m"));
                }
                Some((i, d)) => {
                    let name =
                        sim.world.bodies().get(i).and_then(|b| b.name.clone()).unwrap_or_else(|| format!("body {i}"));
                    ui.horizontal_wrapped(|ui| {
                        ui.add(egui::Label::new(format!("max Δ {d:.4} m:")).wrap_mode(egui::TextWrapMode::Extend));
                        if ui.link(name).on_hover_text("Select it").clicked() {
                            commands.push(Command::Select(Some(i)));
                        }
                        // One piece: wrapped inside, the value went to the next line alone.
                        ui.add(
                            egui::Label::new(format!("mean Δ {:.4} m", p.mean_divergence()))
                                .wrap_mode(egui::TextWrapMode::Extend),
                        );
                    });
                }
                None => {}
            }
            let extra = sim.world.bodies().len().saturating_sub(p.other().bodies().len());
            if extra > 0 {
                let side = if p.is_peer() { "A" } else { "B" };
                ui.colored_label(color32(ONLY_IN_B), format!("{extra} bodies only in {side}"));
            }
            ui.horizontal(|ui| {
                let l = ui.label("Colour scale").id;
                ui.spacing_mut().slider_width = (ui.available_width() - 90.0).clamp(40.0, 120.0);
                ui.add(
                    egui::Slider::new(&mut self.full_scale, 0.001..=10.0)
                        .logarithmic(true)
                        .suffix(" m")
                        .clamping(SliderClamping::Always),
                )
                .on_hover_text("Position difference drawn fully red; blue is none")
                .labelled_by(l);
            });
        });
    }

    fn plot(&mut self, ui: &mut Ui, p: &Partner) {
        ui.horizontal(|ui| {
            let l = ui.strong("ms per step").id;
            egui::ComboBox::from_id_salt("ab_phase")
                .selected_text(self.phase.map_or("total", |k| PHASES[k]))
                .show_ui(ui, |ui| {
                    ui.selectable_value(&mut self.phase, None, "total");
                    for (k, name) in PHASES.iter().enumerate() {
                        ui.selectable_value(&mut self.phase, Some(k), *name);
                    }
                })
                .response
                .labelled_by(l);
        });
        let phase = self.phase;
        let pick = move |prof: &crate::world::StepProfile| match phase {
            None => prof.total_ms,
            Some(k) => prof.phase_ms()[k],
        };
        // Profiles are (step, partner, app's world); a rapier partner is B.
        let swap = p.is_peer();
        let (a_name, b_name) = ("A · Collidoscope".to_string(), format!("B · {}", p.engine_label()));
        let a: PlotPoints =
            p.profiles.iter().map(|(s, pa, pb)| [*s as f64, pick(if swap { pb } else { pa })]).collect();
        let b: PlotPoints =
            p.profiles.iter().map(|(s, pa, pb)| [*s as f64, pick(if swap { pa } else { pb })]).collect();
        Plot::new("ab_profile")
            .legend(super::panels::widgets::plot_legend(egui_plot::Corner::LeftTop))
            .x_axis_label("step")
            .x_axis_formatter(super::panels::widgets::step_ticks)
            .include_y(0.0)
            .height(ui.available_height().max(80.0))
            .show(ui, |plot| {
                plot.line(Line::new(a_name, a).color(A_COLOR).width(2.0));
                plot.line(Line::new(b_name, b).color(B_COLOR).width(2.0).style(LineStyle::dashed_loose()));
            });
    }
}

/// One colour per body of B: blue (none) to red (`full_scale` or more); B-only bodies purple,
/// static bodies their usual grey.
pub(super) fn divergence_colors(p: &Partner, b: &World, full_scale: Real) -> Vec<[f32; 3]> {
    let bodies = b.bodies();
    p.divergence
        .iter()
        .enumerate()
        .map(|(i, d)| match d {
            _ if bodies.get(i).is_some_and(|b| b.kind == BodyKind::Static) => STATIC,
            None => ONLY_IN_B,
            Some(d) => speed_color(d / full_scale.max(1e-9)),
        })
        .collect()
}

/// The legend of [`divergence_colors`]: which engine each side is, the scale in steps of a
/// quarter, then the other colours.
pub(super) fn divergence_legend(full_scale: Real, p: &Partner) -> Vec<(String, [f32; 3])> {
    // A is always Collidoscope: the copy, or with a rapier partner the app's world.
    let mut entries = vec![(format!("A: Collidoscope · B: {}", p.engine_label()), rgb(B_COLOR))];
    entries.extend((0..=4).map(|k| {
        let t = k as Real / 4.0;
        let label = match k {
            0 => "same place in A and B".to_string(),
            4 => format!("≥ {} apart", length_text(full_scale)),
            _ => format!("{} apart", length_text(t * full_scale)),
        };
        (label, speed_color(t))
    }));
    // Bodies added to the app's world (shots) have no counterpart in the partner.
    entries.push((if p.is_peer() { "only in A" } else { "only in B" }.into(), ONLY_IN_B));
    entries.push(("static".into(), STATIC));
    entries
}

/// [`divergence_legend`] for one line across a view: the scale's steps and the other colours,
/// without the engines (each view's header names them).
pub(super) fn folded_legend(full_scale: Real, p: &Partner) -> Vec<(String, [f32; 3])> {
    let mut entries = divergence_legend(full_scale, p);
    entries.remove(0);
    entries[0].0 = "same".into();
    for (k, e) in entries.iter_mut().enumerate().take(5).skip(1) {
        let t = k as Real / 4.0;
        e.0 = if k == 4 { format!("≥ {}", length_text(full_scale)) } else { length_text(t * full_scale) };
    }
    entries
}

/// `view` without the layers only Collidoscope's pipeline can fill.
fn bodies_only(view: &ViewOptions) -> ViewOptions {
    let l = &view.layers;
    ViewOptions {
        layers: Layers {
            aabbs: false,
            contact_points: false,
            contact_normals: false,
            broad_phase: false,
            candidate_pairs: false,
            ccd: false,
            narrow_phase: false,
            joints: false,
            ..l.clone()
        },
        extra: Default::default(),
        ..view.clone()
    }
}

fn label_partner(p: &Partner) -> String {
    if p.is_peer() {
        format!("{}: the scene mapped onto it (its bodies drawn)", p.engine_label())
    } else if p.first_divergent.is_some() || p.steps() > 0 {
        "world A (compared with B)".into()
    } else {
        "world A, a copy of B".into()
    }
}

/// `peer`: the peer engine stepping `w`, if one does.
fn side_label(ui: &mut Ui, name: &str, color: Color32, what: String, w: &World, peer: Option<&str>) {
    let s = &w.settings;
    let line = if let Some(engine) = peer {
        format!(
            "{engine} · CCD {} · {} substeps × {} iteration{}",
            humanize(&format!("{:?}", s.ccd)),
            s.substeps,
            s.iterations,
            if s.iterations == 1 { "" } else { "s" }
        )
    } else {
        let mut line = format!(
            "{} · {} · CCD {} · {} substeps · slop {}",
            humanize(&format!("{:?}", s.broad_phase)),
            humanize(&format!("{:?}", s.narrow_phase)),
            humanize(&format!("{:?}", s.ccd)),
            s.substeps,
            s.slop
        );
        // Meshes are where the internal-edge mode tells the two sides apart.
        if w.bodies().iter().any(|b| b.shape.is_mesh()) {
            line += &format!(" · internal edges {}", humanize(&format!("{:?}", s.internal_edges)));
        }
        line
    };
    // One line, the same height on both sides so the two views line up; what does not fit is
    // cut and shown whole on hover.
    ui.horizontal(|ui| {
        ui.set_width(ui.available_width());
        ui.label(RichText::new(name).color(color).strong().size(20.0));
        let text = format!("{line} · {what}");
        ui.add(egui::Label::new(RichText::new(&text).monospace().small()).truncate()).on_hover_text(text);
    });
}

/// Side-by-side editors of the settings that most often explain a difference. With a rapier
/// partner (B) the app's world is A, and rows rapier has no counterpart for show a dash.
fn settings_grid(ui: &mut Ui, p: &Partner, app: &Settings, commands: &mut Vec<Command>) {
    let swap = p.is_peer();
    let has_mesh = p.other().bodies().iter().any(|b| b.shape.is_mesh());
    let other = &p.other().settings;
    let (a, b) = if swap { (app, other) } else { (other, app) };
    let (mut sa, mut sb) = (a.clone(), b.clone());
    egui::Grid::new("ab_settings").num_columns(3).striped(true).show(ui, |ui| {
        ui.label("");
        ui.label(RichText::new("A").color(A_COLOR).strong());
        ui.label(RichText::new("B").color(B_COLOR).strong());
        ui.end_row();
        let none = |ui: &mut Ui| {
            ui.label("—").on_hover_text("rapier3d has no counterpart");
        };
        // Each editor is named by its row label, for screen readers and tests.
        let l = ui.label("Broad phase").id;
        combo(ui, "ab_bp_a", &mut sa.broad_phase, BroadPhaseKind::ALL).labelled_by(l);
        if swap {
            none(ui)
        } else {
            combo(ui, "ab_bp_b", &mut sb.broad_phase, BroadPhaseKind::ALL).labelled_by(l);
        }
        ui.end_row();
        let l = ui.label("Narrow phase").id;
        combo(ui, "ab_np_a", &mut sa.narrow_phase, NarrowPhaseKind::ALL).labelled_by(l);
        if swap {
            none(ui)
        } else {
            combo(ui, "ab_np_b", &mut sb.narrow_phase, NarrowPhaseKind::ALL).labelled_by(l);
        }
        ui.end_row();
        let l = ui.label("CCD").id;
        combo(ui, "ab_ccd_a", &mut sa.ccd, CcdMode::ALL).labelled_by(l);
        combo(ui, "ab_ccd_b", &mut sb.ccd, CcdMode::ALL).labelled_by(l);
        ui.end_row();
        let l = ui.label("Substeps").id;
        ui.add(egui::DragValue::new(&mut sa.substeps).range(1..=Settings::MAX_SUBSTEPS)).labelled_by(l);
        ui.add(egui::DragValue::new(&mut sb.substeps).range(1..=Settings::MAX_SUBSTEPS)).labelled_by(l);
        ui.end_row();
        let l = ui.label("Slop").id;
        ui.add(sci_value(&mut sa.slop, 0.0..=0.1, 1e-5, " m")).labelled_by(l);
        ui.add(sci_value(&mut sb.slop, 0.0..=0.1, 1e-5, " m")).labelled_by(l);
        ui.end_row();
        let l = ui.label("Contact ε").id;
        ui.add(sci_value(&mut sa.contact_epsilon, 0.0..=1e-2, 1e-12, " m²")).labelled_by(l);
        if swap {
            none(ui)
        } else {
            ui.add(sci_value(&mut sb.contact_epsilon, 0.0..=1e-2, 1e-12, " m²")).labelled_by(l);
        }
        ui.end_row();
        if has_mesh {
            let l = ui.label("Internal edges").id;
            combo(ui, "ab_edges_a", &mut sa.internal_edges, InternalEdges::ALL).labelled_by(l);
            if swap {
                none(ui)
            } else {
                combo(ui, "ab_edges_b", &mut sb.internal_edges, InternalEdges::ALL).labelled_by(l);
            }
            ui.end_row();
        }
    });
    let (partner_new, app_new) = if swap { (sb, sa) } else { (sa, sb) };
    if partner_new != *other {
        commands.push(Command::Record(RecordCommand::PartnerSettings(Box::new(partner_new))));
    }
    if app_new != *app {
        commands.push(Command::SetSettings(Box::new(app_new)));
    }
}

/// A value in scientific notation that a drag changes by a tenth of itself per 10 points (a
/// slider's rail and value box side by side ran into B's column in a narrow strip).
fn sci_value<'a>(
    v: &'a mut f32,
    range: std::ops::RangeInclusive<f32>,
    smallest: f64,
    suffix: &str,
) -> egui::DragValue<'a> {
    let speed = (*v as f64).abs().max(smallest) * 0.01;
    egui::DragValue::new(v).range(range).speed(speed).custom_formatter(|v, _| format!("{v:.1e}")).suffix(suffix)
}

fn rgb(c: Color32) -> [f32; 3] {
    [c.r() as f32 / 255.0, c.g() as f32 / 255.0, c.b() as f32 / 255.0]
}

fn color32(c: [f32; 3]) -> Color32 {
    Color32::from_rgb((c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_divergence_legend_names_the_engines_and_the_colours_bodies_get() {
        let copy = Partner::copy_of(&World::new(Settings::default()));
        let legend = divergence_legend(0.5, &copy);
        let labels: Vec<&str> = legend.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "A: Collidoscope · B: Collidoscope",
                "same place in A and B",
                "125 mm apart",
                "250 mm apart",
                "375 mm apart",
                "≥ 500 mm apart",
                "only in B",
                "static"
            ]
        );
        // The swatches are the colours `divergence_colors` gives a body that far apart.
        for (k, d) in [0.0, 0.125, 0.25, 0.375, 0.5].into_iter().enumerate() {
            assert_eq!(legend[k + 1].1, speed_color(d / 0.5), "entry {k}");
        }
        assert_eq!(legend[6].1, ONLY_IN_B);
        assert_eq!(legend[7].1, STATIC);
        assert_eq!(divergence_legend(2.0, &copy)[5].0, "≥ 2.00 m apart");
        let folded: Vec<String> = folded_legend(0.5, &copy).into_iter().map(|(l, _)| l).collect();
        assert_eq!(folded, ["same", "125 mm", "250 mm", "375 mm", "≥ 500 mm", "only in B", "static"]);
        assert_eq!(folded_legend(0.5, &copy)[1].1, legend[2].1, "the same swatches");
        #[cfg(feature = "rapier")]
        {
            let rapier = Partner::peer_of(crate::engine::Engine::Rapier, &World::new(Settings::default())).unwrap();
            let legend = divergence_legend(0.5, &rapier);
            assert_eq!(legend[0].0, "A: Collidoscope · B: rapier3d 0.36");
            assert_eq!(legend[6].0, "only in A", "shots land in the app's world, A");
        }
    }
}
