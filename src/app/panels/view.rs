//! The view panel: which debug layers the 3D view draws, how bodies are coloured, the camera.

use super::Command;
use super::PanelCx;
use crate::app::viewport::ColorMode;
use eframe::egui::{self, Ui};

#[derive(Default)]
pub(crate) struct ViewPanel;

impl ViewPanel {
    pub(crate) fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (view, camera) = (&mut *cx.view, &mut *cx.camera);
        let mut commands = Vec::new();
        ui.strong("Debug layers");
        let l = &mut view.layers;
        egui::Grid::new("layers").num_columns(2).show(ui, |ui| {
            ui.checkbox(&mut l.aabbs, "AABBs").on_hover_text("Each body's bounding box, as the broad phase sees it.");
            ui.checkbox(&mut l.contact_points, "Contact points")
                .on_hover_text("Red: overlapping. Blue: speculative (still apart, within the margin).");
            ui.end_row();
            ui.checkbox(&mut l.contact_normals, "Contact normals")
                .on_hover_text("From body A to body B; the longer the arrow, the deeper the penetration.");
            ui.checkbox(&mut l.velocities, "Velocities").on_hover_text("Linear velocity of awake bodies.");
            ui.end_row();
            ui.checkbox(&mut l.contact_forces, "Contact forces").on_hover_text(
                "Each contact point's normal impulse (white) and friction impulse (cyan) of the last step, drawn over the bodies; \
                 the longest arrow is half a metre, the others in proportion",
            );
            ui.end_row();
            ui.checkbox(&mut l.broad_phase, "Broad phase")
                .on_hover_text("The broad phase's structure: grid cells, tree nodes, sorted axes.");
            ui.checkbox(&mut l.candidate_pairs, "Candidate pairs")
                .on_hover_text("A line between the centres of each pair the broad phase passed on.");
            ui.end_row();
            ui.checkbox(&mut l.ccd, "CCD sweeps").on_hover_text("Swept volumes and times of impact of fast bodies.");
            ui.checkbox(&mut l.narrow_phase, "Narrow phase").on_hover_text("Separating axes, GJK simplices, clipping; mesh edges near moving bodies, orange active, blue inactive.");
            ui.end_row();
            ui.checkbox(&mut l.grid, "Ground grid");
            ui.checkbox(&mut l.axes, "Axes");
            ui.end_row();
            ui.checkbox(&mut l.trails, "Trails").on_hover_text(
                "A trail behind the selected body and bodies that move more than half their size per step; moving bodies smaller than a few pixels are drawn at a minimum size with a ring.",
            );
            ui.checkbox(&mut l.mesh, "Mesh internals").on_hover_text(
                "Triangle meshes and height fields near moving bodies: triangle edges (orange active, blue inactive), the BVH nodes or height-field cells the mid phase visits (leaves bright), and each mesh contact's normal as used (green) beside the raw triangle contact's (red).",
            );
            ui.end_row();
            ui.checkbox(&mut l.joints, "Joints").on_hover_text(
                "Each joint's anchors (yellow on body A, cyan on body B) with an arm from each body's centre, \
                 A's axis (magenta), the limits as arcs, a cone or a range (green, orange while the joint sits on one), \
                 where the joint is within them (white), and its error, the gap it should close, in red. \
                 Click near a joint to inspect it.",
            );
            ui.end_row();
        });

        ui.horizontal(|ui| {
            let label = ui.label("Tree depth drawn");
            let mut all = view.broad_phase_depth.is_none();
            let r =
                ui.checkbox(&mut all, "all").on_hover_text("Broad-phase layer: draw BVH/octree nodes at every depth.");
            if r.changed() {
                view.broad_phase_depth = if all { None } else { Some(3) };
            }
            if let Some(depth) = &mut view.broad_phase_depth {
                ui.add(egui::Slider::new(depth, 0..=16))
                    .labelled_by(label.id)
                    .on_hover_text("Broad-phase layer: draw BVH and octree nodes only down to this depth (root = 0).");
            }
        });

        ui.horizontal(|ui| {
            ui.label("Teaching tools");
            for p in crate::app::PanelId::TOOLS {
                if ui.button(p.label()).on_hover_text(p.hint()).clicked() {
                    commands.push(Command::ShowPanel(p));
                }
            }
        });

        ui.checkbox(&mut view.see_through_statics, "See-through static bodies (X)").on_hover_text(
            "Draw floors, walls and terrain see-through, so a pile inside a walled bin or a body pushed into a wall stays in sight. A click then selects the moving body behind a static one.",
        );

        ui.add_space(6.0);
        ui.strong("Colour bodies by");
        ui.horizontal(|ui| {
            ui.selectable_value(&mut view.color_mode, ColorMode::State, "State")
                .on_hover_text("Dynamic, asleep, static, kinematic, selected.");
            ui.selectable_value(&mut view.color_mode, ColorMode::Island, "Island")
                .on_hover_text("Bodies that touch, directly or through others, share a colour.");
            ui.selectable_value(&mut view.color_mode, ColorMode::Speed, "Speed")
                .on_hover_text("Blue is still, red is fast.");
        });

        ui.add_space(6.0);
        ui.horizontal(|ui| {
            ui.strong("Camera");
            if ui.button("Frame all").on_hover_text("Fit every body in the view (F).").clicked() {
                commands.push(Command::FrameAll);
            }
            ui.checkbox(&mut view.follow, "Follow selected")
                .on_hover_text("Keep the camera aimed at the selected body as it moves (C).");
        });
        egui::Grid::new("camera").num_columns(2).show(ui, |ui| {
            let label = ui.label("Field of view");
            let mut deg = camera.fov_y.to_degrees();
            if ui.add(egui::Slider::new(&mut deg, 20.0..=100.0).suffix("°")).labelled_by(label.id).changed() {
                camera.fov_y = deg.to_radians();
            }
            ui.end_row();
            let label = ui.label("Distance");
            ui.add(egui::DragValue::new(&mut camera.distance).speed(0.1).range(0.1..=10_000.0).suffix(" m"))
                .labelled_by(label.id);
            ui.end_row();
            ui.label("Target");
            let t = camera.target;
            ui.monospace(format!("({:.2}, {:.2}, {:.2})", t.x, t.y, t.z));
            ui.end_row();
        });
        ui.weak(
            "Left-drag: orbit (on a body: pull it) · right-drag: orbit · middle or Shift+drag: pan · wheel: zoom · click: select · B: shoot",
        );
        commands
    }
}
