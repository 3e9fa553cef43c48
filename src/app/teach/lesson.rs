//! The geometric tests lesson: on the floor (y = 0), a point against a sector and a view cone,
//! two rectangles by the separating-axis test, and the grid cell the point falls in. The user
//! drags the handles in the view (or types values) and sees each test's numbers and answer.

use super::draw::{AXIS_COLORS, FAINT, INSIDE, OUTSIDE, RESULT, View};
use crate::app::PanelId;
use crate::app::panels::{Command, PanelCx};
use crate::geometry::Ray;
use crate::geometry::planar::{
    ConeTest, Rect2, SatTest, Vec2, grid_cell, grid_cells_of_box, point_in_cone, point_in_sector, sat_rects,
};
use crate::math::{Real, Vec3};
use eframe::egui::{self, Color32, RichText, Stroke, Ui};

/// What a drag in the view moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The viewer (apex of the sector and cone).
    Apex,
    /// The tip of the facing direction: sets facing and range.
    Facing,
    Point,
    RectA,
    RectB,
    /// The press was on no handle: the drag does nothing.
    Nothing,
}

/// How near (m, on the floor) a press must land to grab a handle.
const GRAB_RADIUS: Real = 0.8;

pub struct TestsLesson {
    pub active: bool,
    pub apex: Vec2,
    /// Degrees from +x towards +z.
    pub facing: Real,
    /// Degrees.
    pub half_angle: Real,
    pub range: Real,
    pub point: Vec2,
    /// The point's height above the floor: the sector ignores it, the view cone does not.
    pub point_height: Real,
    /// Rectangle angles in degrees here (radians in [`Rect2`]).
    pub rect_a: Rect2,
    pub rect_b: Rect2,
    pub cell: Real,
    grabbed: Option<Handle>,
}

impl Default for TestsLesson {
    fn default() -> Self {
        TestsLesson {
            active: false,
            apex: Vec2::new(-4.0, -2.0),
            facing: 30.0,
            half_angle: 30.0,
            range: 5.0,
            point: Vec2::new(-0.5, 0.3),
            point_height: 0.0,
            rect_a: Rect2 { center: Vec2::new(2.0, 2.5), half: Vec2::new(1.2, 0.6), angle: 0.0 },
            rect_b: Rect2 { center: Vec2::new(4.2, 3.4), half: Vec2::new(0.8, 0.5), angle: 35.0 },
            cell: 1.0,
            grabbed: None,
        }
    }
}

fn floor(p: Vec2, y: Real) -> Vec3 {
    Vec3::new(p.x, y, p.y)
}

fn heading(deg: Real) -> Vec2 {
    let (s, c) = deg.to_radians().sin_cos();
    Vec2::new(c, s)
}

impl TestsLesson {
    fn in_radians(r: &Rect2) -> Rect2 {
        Rect2 { angle: r.angle.to_radians(), ..*r }
    }

    /// The sector (heights ignored) and the view cone (3D, apex at floor level).
    pub fn cone_tests(&self) -> (ConeTest, ConeTest) {
        let half = self.half_angle.to_radians();
        let sector = point_in_sector(self.apex, self.facing.to_radians(), half, self.range, self.point);
        let f = heading(self.facing);
        let cone = point_in_cone(
            floor(self.apex, 0.0),
            Vec3::new(f.x, 0.0, f.y),
            half,
            self.range,
            floor(self.point, self.point_height),
        );
        (sector, cone)
    }

    pub fn sat(&self) -> SatTest {
        sat_rects(&Self::in_radians(&self.rect_a), &Self::in_radians(&self.rect_b))
    }

    fn handles(&self) -> [(Handle, Vec2); 5] {
        [
            (Handle::Apex, self.apex),
            (Handle::Facing, self.apex + heading(self.facing) * self.range),
            (Handle::Point, self.point),
            (Handle::RectA, self.rect_a.center),
            (Handle::RectB, self.rect_b.center),
        ]
    }

    /// A drag in the view: the press picks the nearest handle on the floor, the cursor moves it.
    pub fn drag(&mut self, press: &Ray, now: &Ray, done: bool) {
        let on_floor = |r: &Ray| {
            let t = -r.origin.y / r.dir.y;
            (r.dir.y != 0.0 && t > 0.0 && t.is_finite())
                .then(|| Vec2::new(r.origin.x + t * r.dir.x, r.origin.z + t * r.dir.z))
        };
        if self.grabbed.is_none() {
            self.grabbed = Some(
                on_floor(press)
                    .and_then(|p| {
                        self.handles()
                            .into_iter()
                            .map(|(h, at)| (h, at.distance(p)))
                            .filter(|(_, d)| *d <= GRAB_RADIUS)
                            .min_by(|a, b| a.1.total_cmp(&b.1))
                    })
                    .map_or(Handle::Nothing, |(h, _)| h),
            );
        }
        if let (Some(h), Some(p)) = (self.grabbed, on_floor(now)) {
            match h {
                Handle::Apex => self.apex = p,
                Handle::Facing => {
                    let d = p - self.apex;
                    if d.length() > 0.05 {
                        self.facing = d.y.atan2(d.x).to_degrees().rem_euclid(360.0);
                        self.range = d.length();
                    }
                }
                Handle::Point => self.point = p,
                Handle::RectA => self.rect_a.center = p,
                Handle::RectB => self.rect_b.center = p,
                Handle::Nothing => {}
            }
        }
        if done {
            self.grabbed = None;
        }
    }

    /// The panel; switching the drag on asks for the view's drag.
    pub fn ui(&mut self, ui: &mut Ui, _cx: &mut PanelCx) -> Vec<Command> {
        let toggled = ui
            .toggle_value(&mut self.active, "✋ Drag the handles in the view")
            .on_hover_text("On: a left-drag near a handle on the floor moves it (right-drag still orbits)")
            .changed();
        self.cone_ui(ui);
        ui.separator();
        self.sat_ui(ui);
        ui.separator();
        self.grid_ui(ui);
        if toggled && self.active { vec![Command::TakeDrag(PanelId::Tests)] } else { Vec::new() }
    }

    fn cone_ui(&mut self, ui: &mut Ui) {
        ui.label(RichText::new("Point in a sector / view cone").strong());
        egui::Grid::new("cone_inputs").num_columns(2).show(ui, |ui| {
            ui.label("Viewer");
            vec2_edit(ui, &mut self.apex);
            ui.end_row();
            let l = ui.label("Facing");
            ui.add(egui::Slider::new(&mut self.facing, 0.0..=359.0).suffix("°")).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Half angle");
            ui.add(egui::Slider::new(&mut self.half_angle, 1.0..=179.0).suffix("°")).labelled_by(l.id);
            ui.end_row();
            let l = ui.label("Range");
            ui.add(egui::Slider::new(&mut self.range, 0.5..=12.0).suffix(" m")).labelled_by(l.id);
            ui.end_row();
            ui.label("Point");
            vec2_edit(ui, &mut self.point);
            ui.end_row();
            let l = ui.label("Point height");
            ui.add(egui::Slider::new(&mut self.point_height, -3.0..=6.0).suffix(" m")).labelled_by(l.id);
            ui.end_row();
        });
        let (sector, cone) = self.cone_tests();
        let verdict = |t: &ConeTest| {
            if t.inside() { RichText::new("inside").color(INSIDE) } else { RichText::new("outside").color(OUTSIDE) }
        };
        ui.label(format!(
            "On the floor: distance {:.2} m {} range {:.2} m; cos θ = f·d/|d| = {:.3} {} cos(half angle) = {:.3} (θ = {:.1}°)",
            sector.distance,
            if sector.in_range { "≤" } else { ">" },
            self.range,
            sector.cos_angle,
            if sector.in_angle { "≥" } else { "<" },
            sector.cos_half,
            sector.angle().to_degrees()
        ));
        ui.horizontal_wrapped(|ui| {
            ui.label("Sector (heights ignored):");
            ui.label(verdict(&sector).strong());
            ui.label("· View cone (3D):");
            ui.label(verdict(&cone).strong());
        });
        ui.label(RichText::new("Look for: no square root or arc cosine decides it: the squared distance against the squared range, and f·d ≥ cos(half angle)·|d|. Raise the point: its shadow stays in the sector while it leaves the cone.").weak());
    }

    fn sat_ui(&mut self, ui: &mut Ui) {
        ui.label(RichText::new("Two rectangles: separating axes").strong());
        for (name, r) in [("A", &mut self.rect_a), ("B", &mut self.rect_b)] {
            // Wrapped: five fields are wider than a dock, and a row past its edge widened every
            // paragraph after it, which the dock then cut.
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("{name} centre"));
                vec2_edit(ui, &mut r.center);
                ui.add(
                    egui::DragValue::new(&mut r.half.x).speed(0.02).range(0.05..=5.0).max_decimals(2).prefix("half x "),
                );
                ui.add(
                    egui::DragValue::new(&mut r.half.y).speed(0.02).range(0.05..=5.0).max_decimals(2).prefix("half z "),
                );
                ui.add(egui::DragValue::new(&mut r.angle).speed(1.0).prefix("turn ").suffix("°").max_decimals(1));
            });
        }
        let sat = self.sat();
        let names = ["A's x", "A's z", "B's x", "B's z"];
        egui::Grid::new("sat_table").num_columns(4).striped(true).show(ui, |ui| {
            for h in ["axis", "A projected", "B projected", "overlap"] {
                ui.label(RichText::new(h).strong());
            }
            ui.end_row();
            for (k, p) in sat.axes.iter().enumerate() {
                let strong = sat.separating == Some(k) || (sat.overlaps() && sat.least == k);
                let name = RichText::new(names[k]);
                ui.label(if strong { name.strong().color(RESULT) } else { name });
                ui.label(format!("[{:.2}, {:.2}]", p.a.0, p.a.1));
                ui.label(format!("[{:.2}, {:.2}]", p.b.0, p.b.1));
                let o = if p.overlap < 0.0 {
                    RichText::new(format!("gap {:.3}", -p.overlap)).color(OUTSIDE)
                } else {
                    RichText::new(format!("{:.3}", p.overlap))
                };
                ui.label(o);
                ui.end_row();
            }
        });
        let verdict = match sat.separating {
            Some(k) => {
                RichText::new(format!("Apart: {} is a separating axis (gap {:.3} m)", names[k], -sat.axes[k].overlap))
                    .color(INSIDE)
            }
            None => RichText::new(format!(
                "Overlapping: no axis separates them; least overlap {:.3} m along {}",
                sat.axes[sat.least].overlap, names[sat.least]
            ))
            .color(OUTSIDE),
        };
        ui.label(verdict.strong());
        ui.label(RichText::new("Look for: each rectangle's two edge normals are the only axes to try. They overlap only if the projections overlap on all four; the first gap found ends the test. The yellow axis on the floor is the separating one (or the least overlap).").weak());
    }

    fn grid_ui(&mut self, ui: &mut Ui) {
        ui.label(RichText::new("Grid cell lookup").strong());
        ui.horizontal(|ui| {
            let l = ui.label("Cell size");
            ui.add(egui::Slider::new(&mut self.cell, 0.1..=3.0).suffix(" m")).labelled_by(l.id);
        });
        let (i, j) = grid_cell(self.point, self.cell);
        ui.label(format!(
            "Point ({:.3}, {:.3}) is in cell ({i}, {j}): floor(x / {c}) and floor(z / {c}), made exact at cell boundaries",
            self.point.x,
            self.point.y,
            c = self.cell
        ));
        let (lo, hi) = self.rect_b_box();
        let ((i0, j0), (i1, j1)) = grid_cells_of_box(lo, hi, self.cell);
        ui.label(format!(
            "B's bounding box covers cells ({i0}…{i1}, {j0}…{j1}): {} cells to register it in",
            (i1 - i0 + 1) * (j1 - j0 + 1)
        ));
        ui.label(RichText::new("Look for: negative coordinates round down (x = −0.5 is in cell −1, not 0); a point on a grid line belongs to the cell above it; with 0.1 m cells x = 0.7 is in cell 6, because 0.7 and 0.1 are not exact in binary and plain division says 7. A query checks the point's cell and its 8 neighbours (outlined).").weak());
    }

    fn rect_b_box(&self) -> (Vec2, Vec2) {
        let c = Self::in_radians(&self.rect_b).corners();
        (c.iter().copied().fold(Vec2::INFINITY, Vec2::min), c.iter().copied().fold(Vec2::NEG_INFINITY, Vec2::max))
    }

    pub fn paint(&self, v: &View) {
        let y = 0.01;
        self.paint_grid(v, y);
        // Sector on the floor, coloured by the floor test.
        let (sector, cone) = self.cone_tests();
        let color = if sector.inside() { INSIDE } else { OUTSIDE };
        let half = self.half_angle;
        let arc: Vec<Vec3> = (0..=32)
            .map(|k| floor(self.apex + heading(self.facing - half + 2.0 * half * k as Real / 32.0) * self.range, y))
            .collect();
        let apex = floor(self.apex, y);
        v.line(apex, arc[0], Stroke::new(2.0, color));
        v.line(apex, arc[32], Stroke::new(2.0, color));
        for w in arc.windows(2) {
            v.line(w[0], w[1], Stroke::new(2.0, color));
        }
        // The cone's outline in the upright plane through the facing direction.
        let f = heading(self.facing);
        let up = |deg: Real| {
            let (s, c) = deg.to_radians().sin_cos();
            apex + (Vec3::new(f.x, 0.0, f.y) * c + Vec3::Y * s) * self.range
        };
        let cone_color = if cone.inside() { INSIDE } else { OUTSIDE }.gamma_multiply(0.6);
        v.line(apex, up(half.min(90.0)), Stroke::new(1.0, cone_color));
        v.line(apex, up(-half.min(90.0)), Stroke::new(1.0, cone_color));
        let tip = self.apex + f * self.range;
        v.line(apex, floor(tip, y), Stroke::new(1.0, FAINT));
        // The point, its shadow and its height.
        let p = floor(self.point, self.point_height);
        v.line(floor(self.point, 0.0), p, Stroke::new(1.0, FAINT));
        v.dot(floor(self.point, y), 4.0, color.gamma_multiply(0.6));
        v.dot(p, 7.0, if cone.inside() { INSIDE } else { OUTSIDE });
        v.label(p, egui::vec2(10.0, -8.0), "point", Color32::WHITE);
        v.dot(apex, 6.0, Color32::WHITE);
        v.label(apex, egui::vec2(10.0, -8.0), "viewer", Color32::WHITE);
        v.ring(floor(tip, y), 6.0, Color32::WHITE);
        // The rectangles, red when they overlap.
        let sat = self.sat();
        let (ra, rb) = (Self::in_radians(&self.rect_a), Self::in_radians(&self.rect_b));
        let fill = if sat.overlaps() { OUTSIDE } else { INSIDE };
        for (r, name) in [(&ra, "A"), (&rb, "B")] {
            let corners: Vec<Vec3> = r.corners().iter().map(|c| floor(*c, y)).collect();
            v.fill(&corners, fill.gamma_multiply(0.25));
            v.outline(&corners, Stroke::new(2.0, fill));
            v.label(floor(r.center, y), egui::vec2(-4.0, -8.0), name, Color32::WHITE);
        }
        self.paint_axis(v, &sat, &ra, &rb, y);
    }

    /// The deciding axis drawn beside the rectangles, with both projections on it.
    fn paint_axis(&self, v: &View, sat: &SatTest, ra: &Rect2, rb: &Rect2, y: Real) {
        let k = sat.separating.unwrap_or(sat.least);
        let p = sat.axes[k];
        let mid = (ra.center + rb.center) * 0.5;
        // Beside both rectangles, on their far side from a camera looking towards -z.
        let mut perp = Vec2::new(-p.axis.y, p.axis.x);
        if perp.y > 0.0 {
            perp = -perp;
        }
        let reach = ra.corners().iter().chain(rb.corners().iter()).map(|c| (*c - mid).dot(perp)).fold(0.0, Real::max);
        let base = mid + perp * (reach + 0.5);
        let s0 = base.dot(p.axis);
        let at = |s: Real| floor(base + p.axis * (s - s0), y);
        let lo = p.a.0.min(p.b.0) - 0.5;
        let hi = p.a.1.max(p.b.1) + 0.5;
        v.line(at(lo), at(hi), Stroke::new(1.0, RESULT));
        v.line_offset(at(p.a.0), at(p.a.1), egui::vec2(0.0, -4.0), Stroke::new(4.0, AXIS_COLORS[0]));
        v.line_offset(at(p.b.0), at(p.b.1), egui::vec2(0.0, 4.0), Stroke::new(4.0, AXIS_COLORS[2]));
        v.label_left(at(p.a.0), egui::vec2(-4.0, -12.0), "A", AXIS_COLORS[0]);
        v.label(at(p.b.1), egui::vec2(4.0, 2.0), "B", AXIS_COLORS[2]);
        let text = if p.overlap < 0.0 { format!("gap {:.2}", -p.overlap) } else { format!("overlap {:.2}", p.overlap) };
        v.label(at(hi), egui::vec2(6.0, -6.0), text, RESULT);
    }

    fn paint_grid(&self, v: &View, y: Real) {
        let c = self.cell;
        let (pi, pj) = grid_cell(self.point, c);
        // Lines over a fixed patch around the point, at most 41 a side.
        let n = ((8.0 / c).ceil() as i32).min(20);
        for k in -n..=n + 1 {
            let x = (pi + k) as Real * c;
            let z = (pj + k) as Real * c;
            let (z0, z1) = ((pj - n) as Real * c, (pj + n + 1) as Real * c);
            let (x0, x1) = ((pi - n) as Real * c, (pi + n + 1) as Real * c);
            v.line(Vec3::new(x, y, z0), Vec3::new(x, y, z1), Stroke::new(1.0, FAINT.gamma_multiply(0.4)));
            v.line(Vec3::new(x0, y, z), Vec3::new(x1, y, z), Stroke::new(1.0, FAINT.gamma_multiply(0.4)));
        }
        let cell_quad = |i: i32, j: i32| {
            let (x, z) = (i as Real * c, j as Real * c);
            [Vec3::new(x, y, z), Vec3::new(x + c, y, z), Vec3::new(x + c, y, z + c), Vec3::new(x, y, z + c)]
        };
        for di in -1..=1 {
            for dj in -1..=1 {
                v.outline(&cell_quad(pi + di, pj + dj), Stroke::new(1.0, AXIS_COLORS[2].gamma_multiply(0.5)));
            }
        }
        v.fill(&cell_quad(pi, pj), AXIS_COLORS[2].gamma_multiply(0.3));
        let (lo, hi) = self.rect_b_box();
        let ((i0, j0), (i1, j1)) = grid_cells_of_box(lo, hi, c);
        let box_quad = [
            Vec3::new(i0 as Real * c, y, j0 as Real * c),
            Vec3::new((i1 + 1) as Real * c, y, j0 as Real * c),
            Vec3::new((i1 + 1) as Real * c, y, (j1 + 1) as Real * c),
            Vec3::new(i0 as Real * c, y, (j1 + 1) as Real * c),
        ];
        v.outline(&box_quad, Stroke::new(1.5, RESULT.gamma_multiply(0.5)));
    }
}

fn vec2_edit(ui: &mut Ui, p: &mut Vec2) {
    ui.horizontal(|ui| {
        ui.add(egui::DragValue::new(&mut p.x).speed(0.02).max_decimals(3).prefix("x "));
        ui.add(egui::DragValue::new(&mut p.y).speed(0.02).max_decimals(3).prefix("z "));
    });
}
