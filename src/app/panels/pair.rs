//! The pair panel: how the narrow phase answered one pair of bodies, step by step — GJK
//! simplices, the Minkowski difference, EPA polytopes, SAT axes and the clipping stages.

use super::{Command, PanelCx};
use crate::debug_draw::{Color, DebugDraw, DrawCategory};
use crate::lesson::PairIteration;
use crate::math::Vec3;
use crate::narrowphase::{NarrowPhaseKind, PairTrace};
use crate::world::World;
use eframe::egui::{self, RichText, Ui};

const NP: DrawCategory = DrawCategory::NarrowPhase;
/// Chartreuse: the selected body is yellow, and a yellow simplex vanished on its faces.
const SIMPLEX: Color = [0.55, 1.0, 0.15, 1.0];
const MINKOWSKI: Color = [0.6, 0.6, 0.9, 0.8];
const ORIGIN: Color = [1.0, 1.0, 1.0, 1.0];
// EPA's colours are neither the friction impulses' cyan nor the contact normals' magenta, which
// the view draws beside them.
const EPA: Color = [0.7, 0.45, 1.0, 0.9];
const EPA_NEAREST: Color = [1.0, 0.6, 0.75, 1.0];
const AXIS: Color = [1.0, 0.5, 0.1, 1.0];
const REFERENCE: Color = [0.2, 0.6, 1.0, 1.0];
const INCIDENT: Color = [1.0, 0.3, 0.3, 1.0];
const STAGE: Color = [0.3, 1.0, 0.4, 1.0];

/// What each colour the panel draws in the view stands for, for the view's legend.
pub(crate) const VIEW_LEGEND: [(&str, Color); 9] = [
    ("A − B (Minkowski difference)", MINKOWSKI),
    ("origin", ORIGIN),
    ("GJK simplex", SIMPLEX),
    ("EPA polytope", EPA),
    ("EPA: face nearest the origin", EPA_NEAREST),
    ("SAT axis", AXIS),
    ("reference face", REFERENCE),
    ("incident polygon", INCIDENT),
    ("after clipping", STAGE),
];

/// Chooses a pair (the selected body and a partner), runs [`explain`] on their current poses
/// every frame, and shows and draws the trace.
#[derive(Default)]
pub struct PairPanel {
    /// The second body; `None` picks the selected body's first contact partner.
    pub partner: Option<usize>,
    pub method: NarrowPhaseKind,
    /// GJK iteration shown (clamped to the trace).
    pub gjk_iteration: usize,
    /// EPA iteration shown (clamped to the trace).
    pub epa_iteration: usize,
    /// Clip stage shown: 0 = incident polygon only, k = after the k-th side plane.
    pub clip_stage: usize,
    /// The GJK or EPA slider to scroll into view when next drawn (a lesson step set it).
    pub reveal: Option<PairIteration>,
    /// The slider last moved, by hand or by a lesson step: what "Add step from current state"
    /// records as the step's `pair_iteration`.
    pub moved: Option<PairIteration>,
    /// The last trace, kept for tests and for the table.
    pub trace: Option<PairTrace>,
    /// The points the Minkowski plot drew last frame (for tests).
    pub plotted: usize,
}

impl PairPanel {
    /// Shows the pair of `selected` and draws its trace into `draw` (category NarrowPhase).
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (world, selected, draw) = (&cx.sim.world, cx.view.selected, &mut cx.view.extra);
        self.trace = None;
        self.plotted = 0;
        let n = world.bodies().len();
        let Some(a) = selected.filter(|&a| a < n) else {
            ui.label("Select a body (click it) to explain how it collides with another.");
            return Vec::new();
        };
        let partners = contact_partners(world, a);
        if self.partner.is_some_and(|b| b >= n || b == a) {
            self.partner = None;
        }
        let b = self.partner.or(partners.first().copied()).or((0..n).find(|&i| i != a));
        let Some(b) = b else {
            ui.label("The scene has no other body to pair with.");
            return Vec::new();
        };

        egui::Grid::new("pair_choice").num_columns(2).show(ui, |ui| {
            ui.label("Body A");
            ui.monospace(body_label(world, a));
            ui.end_row();
            let label = ui.label("Body B");
            egui::ComboBox::from_id_salt("pair_partner")
                .selected_text(body_label(world, b))
                .show_ui(ui, |ui| {
                    for i in partners.iter().copied().chain((0..n).filter(|i| *i != a && !partners.contains(i))) {
                        let mark = if partners.contains(&i) { " (touching)" } else { "" };
                        ui.selectable_value(&mut self.partner, Some(i), format!("{}{mark}", body_label(world, i)));
                    }
                })
                .response
                .labelled_by(label.id);
            ui.end_row();
            ui.label("Method");
            ui.horizontal(|ui| {
                ui.selectable_value(&mut self.method, NarrowPhaseKind::Analytic, "Analytic");
                ui.selectable_value(&mut self.method, NarrowPhaseKind::Gjk, "GJK");
            });
            ui.end_row();
        });

        let Some(trace) = world.explain_pair(a, b, self.method) else { return Vec::new() };
        let (ba, bb) = (&world.bodies()[a], &world.bodies()[b]);
        self.show_result(ui, &trace);
        let parts = [ba, bb].iter().find(|b| b.shape.is_compound() || b.shape.is_mesh()).map(|b| b.shape.is_mesh());
        if let Some(mesh) = parts {
            // The steps below trace one convex pair; a compound or a mesh is many ("cores do not
            // overlap" and "SAT not used" were shown for two boxes of compounds in contact).
            let what =
                if mesh { "a mesh is tested triangle by triangle" } else { "a compound is tested child by child" };
            ui.weak(format!(
                "The answer above is the world's; {what}, each part as a convex pair, so no single GJK, EPA \
                 or SAT run is traced here. Select a body of one convex shape to see those steps."
            ));
            self.plotted = 0;
            self.trace = Some(trace);
            return Vec::new();
        }
        self.plotted = self.minkowski_plot(ui, &trace);
        self.show_gjk(ui, &trace, draw);
        self.show_epa(ui, &trace, draw);
        show_sat(ui, &trace, (ba.pose.translation + bb.pose.translation) * 0.5, draw);
        self.show_clip(ui, &trace, draw);
        self.trace = Some(trace);
        Vec::new()
    }

    fn show_result(&self, ui: &mut Ui, t: &PairTrace) {
        ui.add_space(4.0);
        ui.strong("Answer");
        // Each fact on its own line, wrapping within the panel: a grid's cells do not wrap, and
        // at presentation scale its numbers ran past the dock.
        let fact = |ui: &mut Ui, what: &str, value: String| {
            ui.horizontal_wrapped(|ui| {
                ui.label(what);
                ui.monospace(value);
            });
        };
        if let Some(d) = &t.distance {
            let (what, value) = if d.distance >= 0.0 { ("Distance", d.distance) } else { ("Depth", -d.distance) };
            fact(ui, what, format!("{value:.4} m"));
            fact(ui, "Normal (A to B)", vec_text(d.normal));
        }
        let manifold = match &t.manifold {
            Some(m) => format!("{} point(s), deepest {:.4} m", m.len(), m.max_depth()),
            None => "none (apart beyond the margin)".into(),
        };
        fact(ui, "Manifold", manifold);
        // A mesh pair across a crease: one manifold per direction its triangles push.
        for (k, m) in t.more.iter().enumerate() {
            let text = format!("{} point(s), deepest {:.4} m, normal {}", m.len(), m.max_depth(), vec_text(m.normal));
            fact(ui, &format!("Manifold {}", k + 2), text);
        }
        if t.swapped {
            ui.weak("Traced with the shapes in canonical order (B - A); the answer above is A to B.");
        }
    }

    /// The share of the Minkowski plot's span left empty above the cloud for the legend.
    const LEGEND_ROOM: f64 = 0.4;

    /// The Minkowski difference A − B in the panel, on the plane of the two world axes it spreads
    /// most along, scaled to fill the plot: its points, the GJK simplex shown, the EPA face
    /// nearest the origin, the origin and the answer's normal. Returns the points drawn.
    fn minkowski_plot(&self, ui: &mut Ui, t: &PairTrace) -> usize {
        use egui_plot::{Arrows, Line, Plot, PlotPoints, Points, Polygon};
        if t.minkowski.is_empty() {
            return 0;
        }
        let (lo, hi) = t
            .minkowski
            .iter()
            .fold((Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)), |(l, h), p| (l.min(*p), h.max(*p)));
        let spread = hi - lo;
        let mut axes = [0usize, 1, 2];
        axes.sort_by(|a, b| spread[*b].total_cmp(&spread[*a]));
        let (u, v) = (axes[0].min(axes[1]), axes[0].max(axes[1]));
        let names = ["x", "y", "z"];
        let flat = |p: Vec3| [p[u] as f64, p[v] as f64];
        ui.add_space(4.0);
        ui.strong(format!("Minkowski difference A − B, seen along {}", names[3 - u - v]));
        let line = |w: f32| egui::Stroke::new(w, rgb(SIMPLEX));
        // Room above the cloud (and the origin) for the legend, which sat on the cloud's corner
        // points: the plot is taller than wide by that room, so the cloud keeps its size.
        let (top, bottom) = (hi[v].max(0.0) as f64, lo[v].min(0.0) as f64);
        let span = (top - bottom).max((hi[u].max(0.0) - lo[u].min(0.0)) as f64);
        let width = ui.available_width().clamp(220.0, 420.0);
        Plot::new("pair_minkowski")
            .height(width * (1.0 + Self::LEGEND_ROOM as f32))
            .data_aspect(1.0)
            .include_x(0.0)
            .include_y(0.0)
            .include_y(top + Self::LEGEND_ROOM * span)
            .x_axis_label(names[u])
            .y_axis_label(names[v])
            .legend(super::widgets::plot_legend(egui_plot::Corner::LeftTop))
            .show(ui, |plot| {
                let cloud: PlotPoints = t.minkowski.iter().map(|p| flat(*p)).collect();
                plot.points(Points::new("A − B", cloud).radius(3.5).color(rgb(MINKOWSKI)));
                if let Some(simplex) =
                    t.gjk_simplices.get(self.gjk_iteration.min(t.gjk_simplices.len().saturating_sub(1)))
                {
                    let mut ring: Vec<[f64; 2]> = simplex.iter().map(|p| flat(*p)).collect();
                    if let Some(&first) = ring.first() {
                        ring.push(first);
                    }
                    plot.line(Line::new("GJK simplex", PlotPoints::from(ring.clone())).stroke(line(3.0)));
                    plot.points(Points::new("GJK simplex", PlotPoints::from(ring)).radius(6.0).color(rgb(SIMPLEX)));
                }
                if let Some(snap) = t.epa.get(self.epa_iteration.min(t.epa.len().saturating_sub(1)))
                    && let Some(f) = snap.faces.get(snap.nearest)
                {
                    let face: Vec<[f64; 2]> =
                        f.iter().filter_map(|&i| snap.vertices.get(i as usize)).map(|p| flat(*p)).collect();
                    plot.polygon(
                        Polygon::new("EPA nearest face", PlotPoints::from(face))
                            .fill_color(rgb(EPA_NEAREST).gamma_multiply(0.3))
                            .stroke(egui::Stroke::new(2.5, rgb(EPA_NEAREST))),
                    );
                }
                if let Some(d) = &t.distance {
                    let tip = flat(-d.normal * d.distance);
                    if tip[0].hypot(tip[1]) > 1e-9 {
                        plot.arrows(Arrows::new("normal × distance", vec![[0.0, 0.0]], vec![tip]).color(rgb(AXIS)));
                    }
                }
                plot.points(Points::new("origin", vec![[0.0, 0.0]]).radius(7.0).color(rgb(ORIGIN)));
            });
        t.minkowski.len()
    }

    fn show_gjk(&mut self, ui: &mut Ui, t: &PairTrace, draw: &mut DebugDraw) {
        ui.add_space(4.0);
        ui.strong("GJK simplex");
        ui.weak("Minkowski difference A - B, drawn around the world origin (white point).");
        for &p in &t.minkowski {
            draw.point(NP, p, 3.0, MINKOWSKI);
        }
        draw.point(NP, Vec3::ZERO, 8.0, ORIGIN);
        if t.gjk_simplices.is_empty() {
            ui.label("No GJK iterations.");
            return;
        }
        let last = t.gjk_simplices.len() - 1;
        self.gjk_iteration = self.gjk_iteration.min(last);
        let slider = ui.add(egui::Slider::new(&mut self.gjk_iteration, 0..=last).text("iteration"));
        if slider.changed() {
            self.moved = Some(PairIteration::Gjk(self.gjk_iteration));
        }
        self.reveal_if(ui, &slider, |r| matches!(r, PairIteration::Gjk(_)));
        let simplex = &t.gjk_simplices[self.gjk_iteration];
        ui.label(format!("Simplex of {} point(s)", simplex.len()));
        polytope_edges(draw, simplex, SIMPLEX);
        for &p in simplex {
            draw.point(NP, p, 7.0, SIMPLEX);
        }
    }

    /// Scrolls `slider` into view when it is the one to reveal, until it is in view (the
    /// first frames of a window or a zoom change move it again).
    fn reveal_if(&mut self, ui: &Ui, slider: &egui::Response, is_it: fn(PairIteration) -> bool) {
        if !self.reveal.is_some_and(is_it) {
            return;
        }
        if ui.clip_rect().contains_rect(slider.rect) {
            self.reveal = None;
        } else {
            slider.scroll_to_me(Some(egui::Align::Center));
        }
    }

    fn show_epa(&mut self, ui: &mut Ui, t: &PairTrace, draw: &mut DebugDraw) {
        ui.add_space(4.0);
        ui.strong("EPA polytope");
        if t.epa.is_empty() {
            ui.label("Not run: the shapes' cores do not overlap.");
            return;
        }
        let last = t.epa.len() - 1;
        self.epa_iteration = self.epa_iteration.min(last);
        let slider = ui.add(egui::Slider::new(&mut self.epa_iteration, 0..=last).text("iteration"));
        if slider.changed() {
            self.moved = Some(PairIteration::Epa(self.epa_iteration));
        }
        self.reveal_if(ui, &slider, |r| matches!(r, PairIteration::Epa(_)));
        let snap = &t.epa[self.epa_iteration];
        ui.label(format!(
            "{} vertices, {} faces; pink: the face nearest the origin",
            snap.vertices.len(),
            snap.faces.len()
        ));
        for (k, f) in snap.faces.iter().enumerate() {
            let color = if k == snap.nearest { EPA_NEAREST } else { EPA };
            let v = |i: u16| snap.vertices.get(i as usize).copied();
            if let (Some(p), Some(q), Some(r)) = (v(f[0]), v(f[1]), v(f[2])) {
                loop_lines(draw, &[p, q, r], color);
            }
        }
    }

    fn show_clip(&mut self, ui: &mut Ui, t: &PairTrace, draw: &mut DebugDraw) {
        ui.add_space(4.0);
        ui.strong("Clipping");
        let c = &t.clip;
        if c.reference.is_empty() && c.incident.is_empty() {
            ui.label("The manifold was not built by clipping.");
            return;
        }
        ui.horizontal_wrapped(|ui| {
            ui.colored_label(rgb(REFERENCE), "reference face");
            ui.colored_label(rgb(INCIDENT), "incident polygon");
            ui.colored_label(rgb(STAGE), "after clipping");
        });
        loop_lines(draw, &c.reference, REFERENCE);
        loop_lines(draw, &c.incident, INCIDENT);
        self.clip_stage = self.clip_stage.min(c.stages.len());
        if !c.stages.is_empty() {
            ui.add(egui::Slider::new(&mut self.clip_stage, 0..=c.stages.len()).text("side planes clipped"));
        }
        if let Some(stage) = self.clip_stage.checked_sub(1).and_then(|k| c.stages.get(k)) {
            ui.label(format!("{} vertices left", stage.len()));
            loop_lines(draw, stage, STAGE);
            for &p in stage {
                draw.point(NP, p, 6.0, STAGE);
            }
        }
    }
}

/// The SAT table (axis, separation, winner highlighted), and the winning axis drawn through
/// `center`.
fn show_sat(ui: &mut Ui, t: &PairTrace, center: Vec3, draw: &mut DebugDraw) {
    ui.add_space(4.0);
    ui.strong("Separating axes");
    let Some(sat) = &t.sat else {
        ui.label("SAT not used (GJK method, or shapes without faces).");
        return;
    };
    ui.weak("Separation along each axis; the largest (least overlap) wins. Positive: separated.");
    egui::Grid::new("sat_axes").num_columns(3).striped(true).show(ui, |ui| {
        ui.strong("Axis");
        ui.strong("Direction");
        ui.strong("Separation");
        ui.end_row();
        for (k, axis) in sat.axes.iter().enumerate() {
            let text = |s: String| {
                let r = RichText::new(s).monospace();
                if sat.chosen == Some(k) { r.strong().color(rgb(AXIS)) } else { r }
            };
            ui.label(text(format!("{:?}", axis.kind)));
            ui.label(text(vec_text(axis.axis)));
            ui.label(text(format!("{:+.4}", axis.separation)));
            ui.end_row();
        }
    });
    if let Some(w) = sat.chosen.and_then(|k| sat.axes.get(k)) {
        draw.line(NP, center - w.axis * 1.5, center + w.axis * 1.5, AXIS);
        draw.point(NP, center + w.axis * 1.5, 7.0, AXIS);
    }
}

/// Bodies touching `a` in the last step's contacts, in order.
fn contact_partners(world: &World, a: usize) -> Vec<usize> {
    let mut out: Vec<usize> = world
        .contacts()
        .iter()
        .filter_map(|c| match (c.a as usize, c.b as usize) {
            (x, y) if x == a => Some(y),
            (x, y) if y == a => Some(x),
            _ => None,
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

fn body_label(world: &World, i: usize) -> String {
    match &world.bodies()[i].name {
        Some(name) => format!("#{i} {name}"),
        None => format!("#{i}"),
    }
}

fn vec_text(v: Vec3) -> String {
    format!("({:+.3}, {:+.3}, {:+.3})", v.x, v.y, v.z)
}

fn rgb(c: Color) -> egui::Color32 {
    egui::Color32::from_rgb((c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8)
}

/// Every edge of a simplex (up to four points: all pairs are edges).
fn polytope_edges(draw: &mut DebugDraw, points: &[Vec3], color: Color) {
    for (i, &p) in points.iter().enumerate() {
        for &q in &points[i + 1..] {
            draw.line(NP, p, q, color);
        }
    }
}

/// A closed polygon.
fn loop_lines(draw: &mut DebugDraw, poly: &[Vec3], color: Color) {
    for (i, &p) in poly.iter().enumerate() {
        draw.line(NP, p, poly[(i + 1) % poly.len()], color);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simplex_edges_and_loops() {
        let mut d = DebugDraw::default();
        let pts = [Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
        polytope_edges(&mut d, &pts, SIMPLEX);
        assert_eq!(d.lines.len(), 6);
        d.clear();
        loop_lines(&mut d, &pts[..3], SIMPLEX);
        assert_eq!(d.lines.len(), 3);
        assert_eq!(d.lines[2].b, Vec3::ZERO);
        assert!(d.lines.iter().all(|l| l.category == DrawCategory::NarrowPhase));
    }
}
