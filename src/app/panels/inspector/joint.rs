//! The Inspector's joints: the selected joint's kind, bodies, force, error, limit and motor
//! with a plot of them over time; a jointed body's joints and the world's, to select from.

use super::super::{Command, length_text, widgets};
use super::InspectorPanel;
use crate::dynamics::joints::{DistanceMode, Joint, JointKind, JointReport, LimitState, Motor};
use crate::record::{JOINT_SERIES, JointTrace};
use crate::world::World;
use eframe::egui::{self, RichText, Ui};
use egui_plot::{Line, Plot, PlotPoints};

/// The smallest value range the joint plot shows for each of [`JOINT_SERIES`], so that noise
/// on a joint at rest stays a flat line.
const MIN_SPAN: [f64; 6] = [1.0, 1.0, 1e-3, 0.5, 1.0, 1.0];

impl InspectorPanel {
    /// The selected joint's state and its plot.
    pub(super) fn joint_section(
        &mut self,
        ui: &mut Ui,
        world: &World,
        k: usize,
        trace: &JointTrace,
        out: &mut Vec<Command>,
    ) {
        let j = &world.joints()[k];
        let r = world.joint_report(k);
        ui.horizontal(|ui| {
            ui.heading(format!("Joint {k}"));
            if ui.button("Deselect joint").clicked() {
                out.push(Command::SelectJoint(None));
            }
        });
        egui::Grid::new("inspector_joint").num_columns(2).striped(true).show(ui, |ui| {
            let mut kv = |k: &str, v: String, help: &str| {
                ui.label(k).on_hover_text(help);
                widgets::value(ui, v);
                ui.end_row();
            };
            kv("name", j.name.clone().unwrap_or_else(|| "—".into()), "The joint's name in the scene.");
            kv("kind", kind_text(j), "What the joint holds, with its limits and motor.");
            kv("bodies", format!("{} — {}", side(world, j.a), side(world, j.b)), "Body A — body B.");
            let unit = coordinate_unit(j);
            kv(
                "coordinate",
                coordinate_text(j, r.coordinate),
                &format!("Where the joint is: {unit}, from the rest pose."),
            );
            kv(
                "force",
                format!("{:.3} N", r.force),
                "The constraint force of the last substep: its linear impulse over the substep.",
            );
            kv("torque", format!("{:.3} N·m", r.torque), "The constraint torque of the last substep.");
            kv(
                "linear error",
                length_text(r.linear_error),
                "How far the anchors are from where the joint holds them (drawn as a red segment).",
            );
            kv(
                "angular error",
                format!("{:.3}°", r.angular_error.to_degrees()),
                "How far the rotation is from where the joint holds it: axes apart for a hinge, past the cone for a ball.",
            );
            kv("limit", limit_text(j, &r), "Where the coordinate sits against its limits.");
            kv("motor", motor_text(j, &r), "The motor's target, its largest effort and what it applies now.");
            if j.break_force.is_some() || r.broken {
                let v = match (r.broken, j.break_force) {
                    (true, _) => "broken: no longer acts".to_string(),
                    (false, Some(f)) => format!("breaks above {f:.1} N"),
                    (false, None) => "—".into(),
                };
                kv("breaks", v, "A joint with a break force stops acting once its force exceeds it.");
            }
        });
        self.joint_plot(ui, trace);
    }

    /// The selected joint's history since it was selected, one series at a time.
    fn joint_plot(&mut self, ui: &mut Ui, trace: &JointTrace) {
        widgets::series_pick(ui, "Joint over time", "joint_series", &JOINT_SERIES, &mut self.joint_series);
        if trace.is_empty() {
            ui.label("Play or step to plot this joint.");
            return;
        }
        let k = self.joint_series;
        let (lo, hi) =
            trace.series(k).fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), [_, y]| (lo.min(y), hi.max(y)));
        let mid = if lo.is_finite() && hi.is_finite() { 0.5 * (lo + hi) } else { 0.0 };
        let half = MIN_SPAN[k] * 0.5;
        Plot::new("joint_plot")
            .height(140.0)
            .include_y(mid - half)
            .include_y(mid + half)
            .x_axis_label("step")
            .y_axis_label(JOINT_SERIES[k])
            .show(ui, |plot| {
                let pts: PlotPoints = trace.series(k).collect();
                plot.line(Line::new(JOINT_SERIES[k], pts).width(2.0));
            });
    }
}

/// Body `i`'s joints, each a button that selects it.
pub(super) fn body_joints(ui: &mut Ui, world: &World, i: usize, selected: Option<usize>, out: &mut Vec<Command>) {
    let idx = Some(i as u32);
    let mine: Vec<usize> =
        (0..world.joints().len()).filter(|&k| [world.joints()[k].a, world.joints()[k].b].contains(&idx)).collect();
    if mine.is_empty() {
        return;
    }
    ui.add_space(4.0);
    ui.label(RichText::new(format!("Joints ({})", mine.len())).strong());
    for k in mine {
        let j = &world.joints()[k];
        let other = if j.a == idx { j.b } else { j.a };
        let text = format!("#{k} {} with {}", j.kind.label(), side(world, other));
        if ui.selectable_label(selected == Some(k), text).on_hover_text("Inspect this joint").clicked() {
            out.push(Command::SelectJoint(Some(k)));
        }
    }
}

/// Every joint of the world, to select from.
pub(super) fn all_joints(ui: &mut Ui, world: &World, selected: Option<usize>, out: &mut Vec<Command>) {
    if world.joints().is_empty() {
        return;
    }
    egui::CollapsingHeader::new(format!("All joints ({})", world.joints().len())).id_salt("all_joints").show(
        ui,
        |ui| {
            let row_height = ui.text_style_height(&egui::TextStyle::Button) + 4.0;
            egui::ScrollArea::vertical().max_height(200.0).id_salt("joints_list").show_rows(
                ui,
                row_height,
                world.joints().len(),
                |ui, range| {
                    for k in range {
                        if ui.selectable_label(selected == Some(k), joint_title(world, k)).clicked() {
                            out.push(Command::SelectJoint(Some(k)));
                        }
                    }
                },
            );
        },
    );
}

/// `#3 hinge "door hinge": #0 post — #1 door`: an entry of the joint list.
pub(crate) fn joint_title(world: &World, k: usize) -> String {
    let j = &world.joints()[k];
    let name = j.name.as_ref().map(|n| format!(" \"{n}\"")).unwrap_or_default();
    format!("#{k} {}{name}: {} — {}", j.kind.label(), side(world, j.a), side(world, j.b))
}

/// `#2 door`, `#5`, or `world`.
fn side(world: &World, i: Option<u32>) -> String {
    match i {
        None => "world".into(),
        Some(i) => match world.bodies().get(i as usize).and_then(|b| b.name.as_deref()) {
            Some(n) => format!("#{i} {n}"),
            None => format!("#{i}"),
        },
    }
}

fn degrees((lo, hi): (f32, f32)) -> String {
    format!("{:.1}° to {:.1}°", lo.to_degrees(), hi.to_degrees())
}

/// The kind with its parameters: `Hinge, limits 0.0° to 90.0°, motor`.
fn kind_text(j: &Joint) -> String {
    let motor = |m: &Option<Motor>| if m.is_some() { ", motor" } else { "" };
    match &j.kind {
        JointKind::Fixed => "Fixed".into(),
        JointKind::Ball { cone, twist } => {
            let cone = cone.map(|c| format!(", cone {:.1}°", c.to_degrees())).unwrap_or_default();
            let twist = twist.map(|t| format!(", twist {}", degrees(t))).unwrap_or_default();
            format!("Ball{cone}{twist}")
        }
        JointKind::Hinge { limits, motor: m } => {
            format!("Hinge{}{}", limits.map(|l| format!(", limits {}", degrees(l))).unwrap_or_default(), motor(m))
        }
        JointKind::Prismatic { limits, motor: m } => format!(
            "Slider{}{}",
            limits.map(|(lo, hi)| format!(", range {lo:.3} m to {hi:.3} m")).unwrap_or_default(),
            motor(m)
        ),
        JointKind::Distance { length, mode } => match mode {
            DistanceMode::Rod => format!("Rod, {length:.3} m"),
            DistanceMode::Rope => format!("Rope, at most {length:.3} m"),
            DistanceMode::Spring { stiffness, damping } => {
                format!("Spring, {length:.3} m, {stiffness:.1} N/m, {damping:.2} N·s/m")
            }
        },
    }
}

/// What the coordinate measures.
fn coordinate_unit(j: &Joint) -> &'static str {
    match j.kind {
        JointKind::Fixed => "none for a fixed joint",
        JointKind::Hinge { .. } => "the angle about the axis",
        JointKind::Ball { .. } => "the twist about A's axis",
        JointKind::Prismatic { .. } => "the offset along the axis",
        JointKind::Distance { .. } => "the anchors' distance",
    }
}

fn coordinate_text(j: &Joint, x: f32) -> String {
    match j.kind {
        JointKind::Fixed => "—".into(),
        JointKind::Hinge { .. } | JointKind::Ball { .. } => format!("{:.2}°", x.to_degrees()),
        JointKind::Prismatic { .. } | JointKind::Distance { .. } => format!("{x:.4} m"),
    }
}

/// `at the lower limit (0.0°)`, `free (0.0° to 90.0°)`, `no limit`.
fn limit_text(j: &Joint, r: &JointReport) -> String {
    let range = match j.kind {
        JointKind::Hinge { limits: Some(l), .. } | JointKind::Ball { twist: Some(l), .. } => Some(degrees(l)),
        JointKind::Prismatic { limits: Some((lo, hi)), .. } => Some(format!("{lo:.3} m to {hi:.3} m")),
        _ => None,
    };
    let cone = match j.kind {
        JointKind::Ball { cone: Some(c), .. } => Some(format!("cone {:.1}°", c.to_degrees())),
        _ => None,
    };
    let within = [range, cone].into_iter().flatten().collect::<Vec<_>>().join(", ");
    match r.limit {
        LimitState::None => "no limit".into(),
        LimitState::Free => format!("free ({within})"),
        LimitState::AtLower => format!("at the lower limit ({within})"),
        LimitState::AtUpper if matches!(j.kind, JointKind::Ball { .. }) => {
            format!("at the upper limit or the cone ({within})")
        }
        LimitState::AtUpper => format!("at the upper limit ({within})"),
    }
}

/// `target 1.00 rad/s, at most 30.0 N·m, applies 12.3 N·m (saturated)`, or `none`.
fn motor_text(j: &Joint, r: &JointReport) -> String {
    let (m, speed, effort) = match j.kind {
        JointKind::Hinge { motor: Some(m), .. } => (m, "rad/s", "N·m"),
        JointKind::Prismatic { motor: Some(m), .. } => (m, "m/s", "N"),
        _ => return "none".into(),
    };
    let saturated = m.max_force > 0.0 && r.motor.abs() >= 0.999 * m.max_force;
    format!(
        "target {:.2} {speed}, at most {:.1} {effort}, applies {:.2} {effort}{}",
        m.speed,
        m.max_force,
        r.motor,
        if saturated { " (saturated)" } else { "" }
    )
}
