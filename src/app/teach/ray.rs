//! The Ray tool: a ray drawn by dragging on a level plane, cast against the world, and the slab
//! method of one body's AABB shown step by step: each axis's entry and exit `t`, their
//! intersection `[t_enter, t_exit]`, and the parallel and inside cases.

use super::draw::{AXIS_COLORS, FAINT, INSIDE, OUTSIDE, RESULT, View};
use crate::app::PanelId;
use crate::app::panels::{Command, PanelCx};
use crate::geometry::{Aabb, Ray, RayHit, SlabAxis, SlabTrace, direction_from_degrees};
use crate::math::{Real, Vec3};
use crate::world::World;
use eframe::egui::{self, Color32, RichText, Stroke, Ui};

/// How far a ray reaches when it is not cut at the drag's end, m.
pub const RAY_REACH: Real = 100.0;
const AXIS_NAMES: [&str; 3] = ["x", "y", "z"];

/// Which body's AABB the slab table is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RayTarget {
    /// The first body the ray hits (its exact shape), if any.
    FirstHit,
    Body(usize),
}

pub struct RayTool {
    /// Owns the plain left-drag in the view.
    pub active: bool,
    pub origin: Vec3,
    /// Degrees from +x towards +z.
    pub heading: Real,
    /// Degrees up from level.
    pub elevation: Real,
    /// The drag's length, m: the ray's end when `segment` is on.
    pub length: Real,
    /// Stop the ray at the drag's end (`max_t = length`); off, it reaches [`RAY_REACH`].
    pub segment: bool,
    /// Round the heading to 15° steps while dragging (0° and 90°: exactly along an axis).
    pub snap: bool,
    /// Height of the level plane drags draw on, m.
    pub height: Real,
    pub target: RayTarget,
}

impl Default for RayTool {
    fn default() -> Self {
        RayTool {
            active: false,
            origin: Vec3::new(-2.0, 0.5, 0.1),
            heading: 12.0,
            elevation: 0.0,
            length: 8.0,
            segment: false,
            snap: true,
            height: 0.5,
            target: RayTarget::FirstHit,
        }
    }
}

/// The ray against the world, and the slab test of the target body's AABB.
#[derive(Clone, Debug, PartialEq)]
pub struct RayReport {
    /// The first body hit and where (exact shape).
    pub hit: Option<(usize, RayHit)>,
    /// The body whose AABB is tested, and that box.
    pub body: usize,
    pub aabb: Aabb,
    pub trace: SlabTrace,
}

impl RayTool {
    pub fn ray(&self) -> Ray {
        Ray::new(self.origin, direction_from_degrees(self.heading, self.elevation))
    }

    pub fn max_t(&self) -> Real {
        if self.segment { self.length } else { RAY_REACH }
    }

    /// Casts the ray and runs the engine's slab test on the target body's current AABB.
    pub fn report(&self, world: &World) -> Option<RayReport> {
        let (ray, max_t) = (self.ray(), self.max_t());
        let hit = world.ray_cast(&ray, max_t);
        let body = match self.target {
            RayTarget::FirstHit => hit?.0,
            RayTarget::Body(i) => i,
        };
        let aabb = world.bodies().get(body)?.aabb();
        Some(RayReport { hit, body, aabb, trace: aabb.slab_trace(ray.origin, ray.dir, max_t) })
    }

    /// The drag from `press` to `now` (camera rays) on the level plane at `height`: the press
    /// is the origin, the cursor sets heading and length.
    pub fn drag(&mut self, press: &Ray, now: &Ray) {
        let plane = |r: &Ray| {
            let t = (self.height - r.origin.y) / r.dir.y;
            (r.dir.y != 0.0 && t > 0.0 && t.is_finite()).then(|| r.at(t))
        };
        let (Some(a), Some(b)) = (plane(press), plane(now)) else { return };
        self.origin = Vec3::new(a.x, self.height, a.z);
        let d = b - a;
        if d.x.hypot(d.z) > 1e-3 {
            let mut heading = d.z.atan2(d.x).to_degrees().rem_euclid(360.0);
            if self.snap {
                heading = ((heading / 15.0).round() * 15.0).rem_euclid(360.0);
            }
            self.heading = heading;
            self.length = d.x.hypot(d.z);
        }
    }

    /// The panel. A button makes the body selected in the view the one tested; switching the
    /// tool on asks for the view's drag.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (world, selected) = (&cx.sim.world, cx.view.selected);
        let toggled = ui
            .toggle_value(&mut self.active, "✏ Draw rays with the mouse")
            .on_hover_text("On: a left-drag in the view draws a ray on the level plane below (right-drag still orbits)")
            .changed();
        ui.label("A box is three slabs, the space between two parallel planes per axis. The ray is in the box for the t that lie in all three slabs at once.");
        // The slab test first, the ray's inputs after it: the table and the t diagram are what a
        // lesson step points at, and below the inputs they were off the bottom of the dock.
        match self.report(world) {
            None => {
                ui.label(
                    RichText::new("The ray hits nothing: draw it through a body, or pick a body below.").color(FAINT),
                );
            }
            Some(r) => report_ui(ui, world, &self.ray(), &r),
        }
        ui.separator();
        // Rows that wrap in a narrow dock (a projector's 1280×720 leaves the panel 300 points):
        // a row wider than the dock is cut off at its edge, not scrolled.
        ui.horizontal_wrapped(|ui| {
            ui.label("Origin");
            for (a, name) in AXIS_NAMES.iter().enumerate() {
                ui.add(
                    egui::DragValue::new(&mut self.origin[a]).speed(0.02).max_decimals(2).prefix(format!("{name} ")),
                );
            }
        });
        egui::Grid::new("ray_inputs").num_columns(2).show(ui, |ui| {
            let l = ui.label("Heading");
            ui.add(egui::Slider::new(&mut self.heading, 0.0..=359.0).suffix("°").step_by(1.0))
                .labelled_by(l.id)
                .on_hover_text(
                    "0°: along +x, 90°: along +z. At 0° or 90° one direction component is exactly 0: the parallel case",
                );
            ui.end_row();
            let l = ui.label("Elevation");
            ui.add(egui::Slider::new(&mut self.elevation, -90.0..=90.0).suffix("°").step_by(1.0))
                .labelled_by(l.id)
                .on_hover_text("0°: level, so the y component is exactly 0 (parallel to the y slab)");
            ui.end_row();
            let l = ui.label("Draw height");
            ui.add(egui::Slider::new(&mut self.height, -1.0..=5.0).suffix(" m"))
                .labelled_by(l.id)
                .on_hover_text("The level plane a drag in the view draws on");
            ui.end_row();
        });
        ui.horizontal_wrapped(|ui| {
            ui.checkbox(&mut self.snap, "Snap to 15°");
            ui.checkbox(&mut self.segment, "Stop at the drag's end").on_hover_text(format!(
                "On: t runs from 0 to the drag's length ({:.2} m). Off: to {RAY_REACH} m",
                self.length
            ));
        });
        ui.horizontal_wrapped(|ui| {
            let l = ui.label("Box of");
            let mut first = self.target == RayTarget::FirstHit;
            if ui.radio_value(&mut first, true, "the first body hit").changed() && first {
                self.target = RayTarget::FirstHit;
            }
            let mut index = match self.target {
                RayTarget::Body(i) => i,
                RayTarget::FirstHit => 0,
            };
            if ui.radio_value(&mut first, false, "body").changed() && !first {
                self.target = RayTarget::Body(index);
            }
            let n = world.bodies().len().saturating_sub(1);
            if ui.add_enabled(!first, egui::DragValue::new(&mut index).range(0..=n)).labelled_by(l.id).changed() {
                self.target = RayTarget::Body(index);
            }
            if let Some(s) = selected.filter(|s| *s < world.bodies().len())
                && ui
                    .button(format!("the selected, #{s}"))
                    .on_hover_text("Click a body in the view to select it")
                    .clicked()
            {
                self.target = RayTarget::Body(s);
            }
        });
        if toggled && self.active { vec![Command::TakeDrag(PanelId::Ray)] } else { Vec::new() }
    }

    pub fn paint(&self, v: &View, world: &World) {
        let ray = self.ray();
        let report = self.report(world);
        // The visible stretch of t: from behind the origin (where the slabs' entries may lie)
        // to past the exit.
        let (mut lo, mut hi) = (0.0, if self.segment { self.length } else { 12.0 });
        if let Some(r) = &report {
            for a in r.trace.axes {
                if let SlabAxis::Crosses { t_near, t_far } = a {
                    lo = Real::min(lo, t_near.max(-20.0));
                    hi = Real::max(hi, (t_far + 1.0).min(RAY_REACH));
                }
            }
            if !self.segment {
                hi = hi.max(r.trace.t_exit.min(RAY_REACH) + 2.0);
            }
        }
        let max_t = self.max_t();
        v.line(ray.at(lo), ray.at(0.0), Stroke::new(1.0, FAINT));
        v.line(ray.at(max_t.min(hi)), ray.at(hi), Stroke::new(1.0, FAINT));
        v.line(ray.at(0.0), ray.at(max_t.min(hi)), Stroke::new(2.0, Color32::WHITE));
        v.dot(ray.origin, 5.0, Color32::WHITE);
        v.label_left(ray.origin, egui::vec2(-8.0, -8.0), "origin, t = 0", Color32::WHITE);
        if self.segment {
            v.dot(ray.at(max_t), 4.0, FAINT);
            v.label(ray.at(max_t), egui::vec2(8.0, 4.0), format!("end, t = {max_t:.2}"), FAINT);
        }
        let Some(r) = report else { return };
        v.aabb(r.aabb.min, r.aabb.max, Stroke::new(1.5, RESULT.gamma_multiply(0.7)));
        // Each axis's interval beside the ray, offset sideways on screen, in its colour.
        let side = match (v.screen(ray.at(0.0)), v.screen(ray.at(1.0))) {
            (Some(p), Some(q)) if (q - p).length() > 1e-3 => (q - p).normalized().rot90(),
            _ => egui::vec2(0.0, 1.0),
        };
        let mut slot = 1.0;
        for (a, axis) in r.trace.axes.iter().enumerate() {
            let color = AXIS_COLORS[a];
            match *axis {
                SlabAxis::Crosses { t_near, t_far } => {
                    let (n, f) = (t_near.max(lo), t_far.min(hi));
                    if n <= f {
                        v.line_offset(ray.at(n), ray.at(f), side * 7.0 * slot, Stroke::new(3.0, color));
                    }
                    for (t, word) in [(t_near, "in"), (t_far, "out")] {
                        if (lo..=hi).contains(&t) {
                            let p = ray.at(t);
                            // A patch of the slab's plane where the ray crosses it.
                            let (u, w) = (Vec3::AXES[(a + 1) % 3] * 0.3, Vec3::AXES[(a + 2) % 3] * 0.3);
                            v.fill(&[p - u - w, p + u - w, p + u + w, p - u + w], color.gamma_multiply(0.22));
                            v.dot(p, 3.5, color);
                            // Labels on the bars' side of the ray, the result's on the other;
                            // entries end at their point, exits start at theirs.
                            let text = format!("{} {word} {t:.2}", AXIS_NAMES[a]);
                            let off = side * (7.0 + 16.0) * slot - egui::vec2(0.0, 8.0);
                            if word == "in" {
                                v.label_left(p, off - egui::vec2(4.0, 0.0), text, color);
                            } else {
                                v.label(p, off + egui::vec2(4.0, 0.0), text, color);
                            }
                        }
                    }
                    slot += 1.0;
                }
                SlabAxis::ParallelInside | SlabAxis::ParallelOutside => {
                    let inside = *axis == SlabAxis::ParallelInside;
                    let text = if inside {
                        format!("{} parallel, inside its slab: every t", AXIS_NAMES[a])
                    } else {
                        format!("{} parallel, outside its slab: no t, miss", AXIS_NAMES[a])
                    };
                    v.label(ray.origin, egui::vec2(8.0, 2.0 + 16.0 * a as f32), text, color);
                }
            }
        }
        if let Some((t0, t1)) = r.trace.hit() {
            let t1v = t1.min(hi);
            v.line(ray.at(t0), ray.at(t1v), Stroke::new(5.0, RESULT));
            v.ring(ray.at(t0), 7.0, RESULT);
            v.ring(ray.at(t1), 7.0, RESULT);
            let shape_hit = r.hit.filter(|(b, _)| *b == r.body).map(|(_, h)| h);
            let same = shape_hit.is_some_and(|h| (h.t - t0).abs() < 1e-3);
            let enter = match (r.trace.origin_inside, same) {
                (true, _) => "origin inside: t_enter = 0".to_owned(),
                (false, true) => format!("t_enter {t0:.2} = the shape's hit"),
                (false, false) => format!("t_enter {t0:.2}"),
            };
            v.label_left(ray.at(t0), -side * 24.0 - egui::vec2(4.0, 8.0), enter, RESULT);
            v.label(ray.at(t1v), -side * 24.0 + egui::vec2(4.0, -8.0), format!("t_exit {t1:.2}"), RESULT);
            if let Some(h) = shape_hit.filter(|_| !same) {
                v.ring(h.point, 10.0, Color32::WHITE);
                v.label(h.point, -side * 48.0 - egui::vec2(20.0, 8.0), format!("shape hit {:.2}", h.t), Color32::WHITE);
            }
        } else if let Some((_, h)) = r.hit.filter(|(b, _)| *b == r.body) {
            v.ring(h.point, 10.0, Color32::WHITE);
            v.label(h.point, -side * 24.0, format!("shape hit {:.2}", h.t), Color32::WHITE);
        }
    }
}

fn body_name(world: &World, i: usize) -> String {
    match world.bodies().get(i).and_then(|b| b.name.clone()) {
        Some(n) => format!("#{i} {n}"),
        None => format!("#{i}"),
    }
}

/// The slab table, the t diagram and the verdict.
fn report_ui(ui: &mut Ui, world: &World, ray: &Ray, r: &RayReport) {
    match r.hit {
        Some((b, h)) => ui.label(format!("First hit: {} at t = {:.3} m (its exact shape)", body_name(world, b), h.t)),
        None => ui.label("First hit: nothing"),
    };
    ui.label(RichText::new(format!("Slab test of the AABB of {}", body_name(world, r.body))).strong());
    let tr = &r.trace;
    // In a narrow dock the direction leaves the table for a line of its own: five columns are
    // wider than 300 points, and the t columns, which the lesson is about, were the ones cut off.
    let narrow = ui.available_width() < WIDE_TABLE;
    if narrow {
        let [x, y, z] = [0, 1, 2].map(|a| format!("{:+.3}", ray.dir[a]));
        ui.label(format!("direction ({x}, {y}, {z})"));
    }
    let headers: &[&str] =
        if narrow { &["axis", "slab", "t near", "t far"] } else { &["axis", "direction", "slab", "t near", "t far"] };
    egui::Grid::new("slab_table").num_columns(headers.len()).striped(true).show(ui, |ui| {
        for h in headers {
            ui.label(RichText::new(*h).strong());
        }
        ui.end_row();
        for (a, axis) in tr.axes.iter().enumerate() {
            let color = AXIS_COLORS[a];
            ui.label(RichText::new(AXIS_NAMES[a]).color(color).strong());
            if !narrow {
                ui.label(format!("{:+.3}", ray.dir[a]));
            }
            // A bound just below 0 reads 0.00, not -0.00.
            let two = |v: Real| crate::math::fixed_text(v, 2);
            ui.label(format!("[{}, {}]", two(r.aabb.min[a]), two(r.aabb.max[a])));
            match *axis {
                SlabAxis::Crosses { t_near, t_far } => {
                    ui.label(RichText::new(format!("{t_near:.3}")).color(color));
                    ui.label(RichText::new(format!("{t_far:.3}")).color(color));
                }
                // Two short cells (a long one widened the table past a dock's edge); the hover
                // says why.
                SlabAxis::ParallelInside => {
                    let why = format!(
                        "Parallel to the slab, and the origin's {} = {:.3} lies in it: every t is inside; this \
                         axis sets no limit",
                        AXIS_NAMES[a], ray.origin[a]
                    );
                    ui.label(RichText::new("parallel").color(color)).on_hover_text(&why);
                    ui.label("every t").on_hover_text(why);
                }
                SlabAxis::ParallelOutside => {
                    let why = format!(
                        "Parallel to the slab, and the origin's {} = {:.3} lies outside it and never changes: no \
                         t is inside",
                        AXIS_NAMES[a], ray.origin[a]
                    );
                    ui.label(RichText::new("parallel").color(OUTSIDE)).on_hover_text(&why);
                    ui.label(RichText::new("no t").color(OUTSIDE)).on_hover_text(why);
                }
            }
            ui.end_row();
        }
    });
    let by = |axis: Option<usize>, what: &str| match axis {
        Some(a) => format!("{}'s {what} plane", AXIS_NAMES[a]),
        None => {
            if what == "entry" {
                "the ray's start (t = 0)".to_owned()
            } else {
                "the ray's end (max t)".to_owned()
            }
        }
    };
    ui.label(format!("t_enter = max(0, the t near) = {:.3}, set by {}", tr.t_enter, by(tr.enter_axis, "entry")));
    ui.label(format!(
        "t_exit = min(max t, the t far) = {:.3}, set by {}",
        tr.t_exit.min(RAY_REACH),
        by(tr.exit_axis, "exit")
    ));
    t_diagram(ui, tr);
    let verdict = match (tr.hit(), tr.parallel_miss_axis()) {
        (_, Some(a)) => {
            RichText::new(format!("Miss: parallel to the {} slab and outside it", AXIS_NAMES[a])).color(OUTSIDE)
        }
        (Some((t0, t1)), _) if tr.origin_inside => {
            RichText::new(format!("Hit, origin inside the box: in it for t in [0, {t1:.3}] (entry {t0} is the start)"))
                .color(INSIDE)
        }
        (Some((t0, t1)), _) => RichText::new(format!("Hit: in the box for t in [{t0:.3}, {t1:.3}]")).color(INSIDE),
        (None, _) => RichText::new(format!(
            "Miss: t_enter {:.3} > t_exit {:.3}, the slabs' intervals do not overlap",
            tr.t_enter, tr.t_exit
        ))
        .color(OUTSIDE),
    };
    ui.label(verdict.strong());
}

/// Below this width (points) the slab table leaves out its direction column.
const WIDE_TABLE: f32 = 420.0;

/// The three slab intervals and their intersection on one t axis.
fn t_diagram(ui: &mut Ui, tr: &SlabTrace) {
    let mut ts = vec![0.0, tr.t_enter.min(RAY_REACH), tr.t_exit.min(RAY_REACH)];
    if tr.max_t < RAY_REACH {
        ts.push(tr.max_t);
    }
    for a in tr.axes {
        if let SlabAxis::Crosses { t_near, t_far } = a {
            ts.extend([t_near, t_far]);
        }
    }
    let lo = ts.iter().copied().fold(Real::INFINITY, Real::min).max(-50.0);
    let hi = ts.iter().copied().fold(Real::NEG_INFINITY, Real::max).min(RAY_REACH).max(lo + 1.0);
    let pad = (hi - lo) * 0.06;
    let (lo, hi) = (lo - pad, hi + pad);
    let row = 20.0;
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width().max(200.0), row * 4.0 + 20.0), egui::Sense::hover());
    let p = ui.painter_at(rect);
    let left = rect.left() + 22.0;
    let x = |t: Real| left + (t.clamp(lo, hi) - lo) / (hi - lo) * (rect.right() - 4.0 - left);
    p.rect_filled(rect, 3.0, Color32::from_gray(24));
    let font = egui::FontId::proportional(13.0);
    // The t axis's marks: 0, the ray's end when it is cut at the drag's end, and the entry and
    // exit of a hit, each labelled unless it would sit on a label already drawn.
    let mut marks = vec![(0.0, "t=0".to_owned(), FAINT)];
    if tr.max_t < RAY_REACH {
        marks.push((tr.max_t, format!("max {:.1}", tr.max_t), FAINT));
    }
    if let Some((t0, t1)) = tr.hit() {
        marks.extend([(t0, format!("{t0:.2}"), RESULT), (t1, format!("{t1:.2}"), RESULT)]);
    }
    let mut labelled: Vec<f32> = Vec::new();
    for (t, label, color) in marks {
        if !(lo..=hi).contains(&t) {
            continue;
        }
        p.line_segment([egui::pos2(x(t), rect.top()), egui::pos2(x(t), rect.bottom() - 15.0)], Stroke::new(1.0, FAINT));
        if labelled.iter().all(|&at| (at - x(t)).abs() > 36.0) {
            p.text(egui::pos2(x(t), rect.bottom() - 1.0), egui::Align2::CENTER_BOTTOM, label, font.clone(), color);
            labelled.push(x(t));
        }
    }
    let bar = |k: usize, a: Real, b: Real, color: Color32, label: &str| {
        let y = rect.top() + 4.0 + row * k as f32 + row * 0.5;
        p.text(egui::pos2(rect.left() + 4.0, y), egui::Align2::LEFT_CENTER, label, font.clone(), color);
        if a <= b {
            p.line_segment([egui::pos2(x(a), y), egui::pos2(x(b), y)], Stroke::new(6.0, color));
        }
    };
    for (k, a) in tr.axes.iter().enumerate() {
        match *a {
            SlabAxis::Crosses { t_near, t_far } => bar(k, t_near, t_far, AXIS_COLORS[k], AXIS_NAMES[k]),
            SlabAxis::ParallelInside => bar(k, lo, hi, AXIS_COLORS[k].gamma_multiply(0.5), AXIS_NAMES[k]),
            SlabAxis::ParallelOutside => {
                bar(k, 1.0, 0.0, OUTSIDE, AXIS_NAMES[k]);
                let y = rect.top() + 4.0 + row * k as f32 + row * 0.5;
                p.text(
                    egui::pos2(left + 4.0, y),
                    egui::Align2::LEFT_CENTER,
                    "no t (parallel, outside)",
                    font.clone(),
                    OUTSIDE,
                );
            }
        }
    }
    match tr.hit() {
        Some((t0, t1)) => bar(3, t0, t1, RESULT, "all"),
        None => bar(3, 1.0, 0.0, OUTSIDE, "all"),
    }
}
