//! Mouse and keys: orbit, pan, zoom, picking, the body-drag spring, shooting; and the small
//! text overlay that tells a new user how.

use super::colors::{self, SPEED_FULL_SCALE};
use super::{ColorMode, SHOOT_SPEED, ViewAction, ViewOptions, Viewport};
use crate::dynamics::BodyKind;
use crate::geometry::{Ray, RayHit};
use crate::math::Vec3;
use crate::world::World;
use eframe::egui::{self, Color32, FontId, Key, PointerButton, Pos2, Rect, Response};

/// Radians per point of mouse drag.
const ORBIT_PER_POINT: f32 = 0.008;
/// Radians per second while an orbit key is held.
const ORBIT_KEY_SPEED: f32 = 1.6;
/// Farthest pick distance, m.
const PICK_RANGE: f32 = 10_000.0;
/// A click within this many points of a joint's anchors picks the joint.
const JOINT_PICK_POINTS: f32 = 10.0;
/// A joint this far behind the body a click hits still wins it (its anchor sits on or in the
/// body's surface), m.
const JOINT_PICK_DEPTH: f32 = 0.3;

/// What the current drag gesture does.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(super) enum Drag {
    #[default]
    None,
    Orbit,
    Pan,
    /// A teaching tool's drag, pressed at `press`.
    Tool {
        press: Pos2,
    },
    /// Pulling `body`; the target stays on the plane through `point` with normal `normal`.
    Body {
        body: usize,
        point: Vec3,
        normal: Vec3,
    },
}

/// Where `ray` meets the plane through `point` with `normal`, if in front of the ray.
pub(super) fn ray_plane(ray: &Ray, point: Vec3, normal: Vec3) -> Option<Vec3> {
    let denom = ray.dir.dot(normal);
    if denom.abs() < 1e-6 {
        return None;
    }
    let t = (point - ray.origin).dot(normal) / denom;
    (t >= 0.0 && t.is_finite()).then(|| ray.at(t))
}

/// The body a click along `ray` lands on: the nearest one it meets; with static bodies drawn
/// see-through, the nearest moving one if it meets any, so a body behind a wall can be picked
/// and dragged through it.
fn body_under(world: &World, ray: &Ray, view: &ViewOptions) -> Option<(usize, RayHit)> {
    let moving = || world.ray_cast_where(ray, PICK_RANGE, |b| b.kind != BodyKind::Static);
    view.see_through_statics.then(moving).flatten().or_else(|| world.ray_cast(ray, PICK_RANGE))
}

impl Viewport {
    pub(super) fn handle_input(
        &mut self,
        ui: &egui::Ui,
        response: &Response,
        rect: Rect,
        world: &World,
        view: &ViewOptions,
        actions: &mut Vec<ViewAction>,
    ) {
        let (shift, press_origin, pointer) =
            ui.input(|i| (i.modifiers.shift, i.pointer.press_origin(), response.interact_pointer_pos()));

        // A drag on a body that has since gone (reset, new scene) ends.
        if let Drag::Body { body, .. } = self.drag
            && body >= world.bodies().len()
        {
            self.drag = Drag::None;
            actions.push(ViewAction::DragEnd);
        }

        if response.drag_started() {
            let primary = response.drag_started_by(PointerButton::Primary);
            self.drag = if response.drag_started_by(PointerButton::Middle) || (primary && shift) {
                Drag::Pan
            } else if primary && self.tool {
                Drag::Tool { press: press_origin.unwrap_or(rect.center()) }
            } else if primary {
                self.try_grab(press_origin.unwrap_or(rect.center()), rect, world, view, actions).unwrap_or(Drag::Orbit)
            } else {
                Drag::Orbit
            };
        }

        if response.dragged() {
            let delta = response.drag_delta();
            match self.drag {
                Drag::Orbit => self.camera.orbit(-delta.x * ORBIT_PER_POINT, delta.y * ORBIT_PER_POINT),
                Drag::Pan => self.camera.pan(delta.x, delta.y, rect.height()),
                Drag::Body { point, normal, .. } => {
                    if let Some(pos) = pointer
                        && let Some(target) = ray_plane(&self.camera.ray_through(pos, rect), point, normal)
                    {
                        actions.push(ViewAction::DragTo { target });
                    }
                }
                Drag::Tool { press } => self.tool_action(press, pointer, rect, false, actions),
                Drag::None => {}
            }
        }

        if response.drag_stopped() {
            match self.drag {
                Drag::Body { .. } => actions.push(ViewAction::DragEnd),
                Drag::Tool { press } => self.tool_action(press, pointer, rect, true, actions),
                _ => {}
            }
            self.drag = Drag::None;
        }

        if response.clicked()
            && let Some(pos) = pointer
        {
            actions.push(self.pick(pos, rect, world, view));
        }

        if response.hovered() {
            self.scroll_zoom(ui);
            if !ui.ctx().egui_wants_keyboard_input() {
                self.keys(ui, rect, world, actions);
            }
        }
    }

    /// What a click at `pos` selects: a joint drawn near it (when joints are drawn) unless a
    /// body stands well in front of it, else the body under it ([`body_under`]), else nothing.
    fn pick(&self, pos: Pos2, rect: Rect, world: &World, view: &ViewOptions) -> ViewAction {
        let ray = self.camera.ray_through(pos, rect);
        let body = body_under(world, &ray, view);
        let pick_joints = view.layers.joints;
        let slope = JOINT_PICK_POINTS * 2.0 * (self.camera.fov_y * 0.5).tan() / rect.height().max(1.0);
        let joint = world.joint_at_ray(&ray, slope).filter(|&(_, t)| {
            pick_joints && body.as_ref().is_none_or(|(_, hit)| t <= hit.t * ray.dir.length() + JOINT_PICK_DEPTH)
        });
        match joint {
            Some((k, _)) => ViewAction::SelectJoint(Some(k)),
            None => ViewAction::Select(body.map(|(i, _)| i)),
        }
    }

    fn tool_action(&self, press: Pos2, now: Option<Pos2>, rect: Rect, done: bool, actions: &mut Vec<ViewAction>) {
        if let Some(now) = now {
            let (press, now) = (self.camera.ray_through(press, rect), self.camera.ray_through(now, rect));
            actions.push(ViewAction::Tool { press, now, done });
        }
    }

    /// Starts a body drag if the press landed on a dynamic body.
    fn try_grab(
        &self,
        at: Pos2,
        rect: Rect,
        world: &World,
        view: &ViewOptions,
        actions: &mut Vec<ViewAction>,
    ) -> Option<Drag> {
        let ray = self.camera.ray_through(at, rect);
        let (body, hit) = body_under(world, &ray, view)?;
        let b = &world.bodies()[body];
        if !b.is_dynamic() {
            return None;
        }
        actions.push(ViewAction::Select(Some(body)));
        actions.push(ViewAction::DragStart { body, local_anchor: b.pose.inverse_transform_point(hit.point) });
        Some(Drag::Body { body, point: hit.point, normal: self.camera.forward() })
    }

    fn scroll_zoom(&mut self, ui: &egui::Ui) {
        let (scroll, zoom) = ui.input(|i| (i.smooth_scroll_delta().y, i.zoom_delta()));
        if scroll != 0.0 {
            self.camera.zoom((-scroll * 0.002).exp());
        }
        if zoom != 1.0 {
            self.camera.zoom(1.0 / zoom);
        }
    }

    /// I/K and J/L orbit (with Shift: pan), +/- zoom, F frames all, B shoots. S, R, Space and
    /// the arrows are left to the simulation controls.
    fn keys(&mut self, ui: &egui::Ui, rect: Rect, world: &World, actions: &mut Vec<ViewAction>) {
        let (dt, shift, down, pressed, hover) = ui.input(|i| {
            let down = |k| i.key_down(k) as i32 as f32;
            let axes = (
                down(Key::L) - down(Key::J),
                down(Key::K) - down(Key::I),
                down(Key::Minus) - down(Key::Plus) - down(Key::Equals),
            );
            (
                i.stable_dt.min(0.1),
                i.modifiers.shift,
                axes,
                (i.key_pressed(Key::F), i.key_pressed(Key::B)),
                i.pointer.hover_pos(),
            )
        });
        let (horizontal, vertical, zoom) = down;
        if horizontal != 0.0 || vertical != 0.0 {
            if shift {
                let speed = rect.height() * 0.8 * dt;
                self.camera.pan(horizontal * speed, vertical * speed, rect.height());
            } else {
                self.camera.orbit(-horizontal * ORBIT_KEY_SPEED * dt, vertical * ORBIT_KEY_SPEED * dt);
            }
            ui.ctx().request_repaint();
        }
        if zoom != 0.0 {
            self.camera.zoom((zoom * 1.5 * dt).exp());
            ui.ctx().request_repaint();
        }
        let (frame, shoot) = pressed;
        if frame {
            self.frame_all(world);
        }
        if shoot {
            let at = hover.filter(|p| rect.contains(*p)).unwrap_or(rect.center());
            let ray = self.camera.ray_through(at, rect);
            actions.push(ViewAction::Shoot { origin: ray.origin, velocity: ray.dir * SHOOT_SPEED });
        }
    }
}

/// Help line at the bottom, colour legend at the top right.
/// `tool`: a teaching tool owns the plain drag (it says what the drag does at the top left).
/// Returns how many legend entries had no room (a folded legend leaves out what does not fit).
pub(super) fn draw_overlay(
    painter: &egui::Painter,
    rect: Rect,
    view: &ViewOptions,
    world: &World,
    tool: bool,
) -> usize {
    let font = FontId::proportional(12.0);
    let dim = Color32::from_rgba_unmultiplied(225, 228, 235, 200);
    let drag = if tool { "drag: the tool (top left)" } else { "drag: orbit or pull a body" };
    let help = format!(
        "{drag} · right-drag: orbit · middle or shift-drag: pan · wheel: zoom · F: frame all · C: follow selected · \
         X: see-through statics · B: shoot · I J K L: orbit keys"
    );
    if !view.bare {
        let galley = if view.folded {
            let mut job = egui::text::LayoutJob::simple_singleline(help, font.clone(), dim);
            job.wrap = egui::text::TextWrapping::truncate_at_width((rect.width() - 16.0).max(40.0));
            painter.layout_job(job)
        } else {
            painter.layout(help, font.clone(), dim, (rect.width() - 16.0).max(40.0))
        };
        let pos = rect.left_bottom() + egui::vec2(8.0, -6.0 - galley.size().y);
        painter.rect_filled(
            Rect::from_min_size(pos, galley.size()).expand(3.0),
            3.0,
            Color32::from_rgba_unmultiplied(10, 12, 16, 150),
        );
        painter.galley(pos, galley, dim);
    }
    let swatch = |c: [f32; 3]| Color32::from_rgb((c[0] * 255.0) as u8, (c[1] * 255.0) as u8, (c[2] * 255.0) as u8);
    let mut entries: Vec<(String, Color32)> = match (&view.legend, view.color_mode) {
        (Some(legend), _) => legend.iter().map(|(label, c)| (label.clone(), swatch(*c))).collect(),
        (None, ColorMode::State) => vec![
            ("dynamic".into(), swatch(colors::DYNAMIC)),
            ("asleep".into(), swatch(colors::ASLEEP)),
            ("static".into(), swatch(colors::STATIC)),
            ("kinematic".into(), swatch(colors::KINEMATIC)),
            ("selected".into(), swatch(colors::SELECTED)),
        ],
        (None, ColorMode::Island) => {
            let n = count_islands(world);
            vec![(format!("{n} islands (one colour each)"), Color32::from_gray(200))]
        }
        (None, ColorMode::Speed) => (0..=4)
            .map(|k| {
                let t = k as f32 / 4.0;
                let label = if k == 4 {
                    format!("≥ {SPEED_FULL_SCALE} m/s")
                } else {
                    format!("{} m/s", t * SPEED_FULL_SCALE)
                };
                (label, swatch(colors::speed_color(t)))
            })
            .collect(),
    };
    // The layers' colours, in an A/B view too (its points in their own colours).
    let ab = view.body_colors.is_some();
    entries.extend(layer_legend(&view.layers, ab).into_iter().map(|(label, c)| (label.to_owned(), swatch(c))));
    entries.extend(extra_legend(view).into_iter().map(|(label, c)| (label.to_owned(), swatch(c))));
    if view.folded {
        return legend_row(painter, rect, entries, &font, dim);
    }
    let mut y = rect.top() + 8.0;
    for (label, color) in entries {
        let right = rect.right() - 8.0;
        let galley = painter.layout_no_wrap(label, font.clone(), dim);
        let text_pos = Pos2::new(right - galley.size().x, y);
        painter.rect_filled(
            Rect::from_min_size(Pos2::new(text_pos.x - 16.0, y + 2.0), egui::vec2(10.0, 10.0)),
            2.0,
            color,
        );
        painter.galley(text_pos, galley, dim);
        y += 16.0;
    }
    0
}

/// The colours of the contact and mesh layers that are on, for the legend under the bodies'
/// colours: what a red and a blue contact point, a normal and an impulse arrow mean, and the
/// mesh layer's boxes, normals and edges.
pub(super) fn layer_legend(layers: &super::Layers, ab: bool) -> Vec<(&'static str, [f32; 3])> {
    use crate::debug_draw::{CONTACT_NORMAL_COLOR, CONTACT_POINT_COLORS, IMPULSE_COLORS};
    let rgb = |c: [f32; 4]| [c[0], c[1], c[2]];
    let mut out = Vec::new();
    // An A/B view's one-line legend is full with its divergence scale: its points, white and
    // grey, go unnamed rather than push a scale entry out.
    if layers.contact_points && !ab {
        out.push(("contact: overlapping", rgb(CONTACT_POINT_COLORS[0])));
        out.push(("contact: apart (speculative)", rgb(CONTACT_POINT_COLORS[1])));
    }
    if layers.contact_normals {
        out.push(("contact normal (length: depth)", rgb(CONTACT_NORMAL_COLOR)));
    }
    if layers.contact_forces {
        out.push(("normal impulse", rgb(IMPULSE_COLORS[0])));
        out.push(("friction impulse", rgb(IMPULSE_COLORS[1])));
    }
    // The mesh layer's long red and green normals read as contact normals without these.
    if layers.mesh {
        use crate::narrowphase::mesh::{ACTIVE_EDGE_COLOR, INACTIVE_EDGE_COLOR};
        use crate::world::{BVH_INNER_COLOR, BVH_LEAF_COLOR, CORRECTED_NORMAL_COLOR, RAW_NORMAL_COLOR};
        out.push(("mesh: triangle normal, raw", rgb(RAW_NORMAL_COLOR)));
        out.push(("mesh: manifold normal, corrected", rgb(CORRECTED_NORMAL_COLOR)));
        out.push(("mesh: BVH node entered", rgb(BVH_INNER_COLOR)));
        out.push(("mesh: leaf or cell tested", rgb(BVH_LEAF_COLOR)));
        out.push(("mesh edge: active", rgb(ACTIVE_EDGE_COLOR)));
        out.push(("mesh edge: inactive", rgb(INACTIVE_EDGE_COLOR)));
    }
    out
}

/// The Pair panel's drawing in the view (`ViewOptions::extra`, on the narrow-phase layer): an
/// entry for each colour it drew (the Minkowski difference's cloud and the origin were drawn
/// over the scene with no name).
pub(super) fn extra_legend(view: &super::ViewOptions) -> Vec<(&'static str, [f32; 3])> {
    use crate::debug_draw::DrawCategory;
    if !view.layers.shows(DrawCategory::NarrowPhase) {
        return Vec::new();
    }
    let extra = &view.extra;
    let drawn = |c: [f32; 4]| {
        extra.lines.iter().any(|l| l.category == DrawCategory::NarrowPhase && l.color == c)
            || extra.points.iter().any(|p| p.category == DrawCategory::NarrowPhase && p.color == c)
    };
    crate::app::panels::pair::VIEW_LEGEND
        .iter()
        .filter(|(_, c)| drawn(*c))
        .map(|(label, c)| (*label, [c[0], c[1], c[2]]))
        .collect()
}

/// The legend on one line along the top of `rect`, right-aligned; entries that do not fit are
/// left out and an ellipsis says so.
/// Returns how many entries were left out.
fn legend_row(
    painter: &egui::Painter,
    rect: Rect,
    entries: Vec<(String, Color32)>,
    font: &FontId,
    dim: Color32,
) -> usize {
    let (swatch, gap) = (14.0, 10.0);
    let n = entries.len();
    let galleys: Vec<_> =
        entries.into_iter().map(|(label, c)| (painter.layout_no_wrap(label, font.clone(), dim), c)).collect();
    let room = rect.width() - 16.0;
    let ellipsis = painter.layout_no_wrap("…".into(), font.clone(), dim);
    let mut shown = galleys.len();
    let width = |n: usize| galleys[..n].iter().map(|(g, _)| swatch + g.size().x + gap).sum::<f32>();
    while shown > 0 && width(shown) + if shown < galleys.len() { ellipsis.size().x } else { 0.0 } > room {
        shown -= 1;
    }
    let total = width(shown) + if shown < galleys.len() { ellipsis.size().x } else { 0.0 };
    let mut x = rect.right() - 8.0 - total;
    let y = rect.top() + 8.0;
    painter.rect_filled(
        Rect::from_min_size(Pos2::new(x - 4.0, y - 2.0), egui::vec2(total + 4.0, 18.0)),
        3.0,
        Color32::from_rgba_unmultiplied(10, 12, 16, 150),
    );
    for (galley, color) in galleys.into_iter().take(shown) {
        painter.rect_filled(Rect::from_min_size(Pos2::new(x, y + 2.0), egui::vec2(10.0, 10.0)), 2.0, color);
        let w = galley.size().x;
        painter.galley(Pos2::new(x + swatch, y), galley, dim);
        x += swatch + w + gap;
    }
    if shown < n {
        painter.galley(Pos2::new(x, y), ellipsis, dim);
    }
    n - shown
}

fn count_islands(world: &World) -> usize {
    let islands = colors::islands(world);
    world
        .bodies()
        .iter()
        .enumerate()
        .filter(|(i, b)| b.kind != crate::BodyKind::Static && islands[*i] == *i as u32)
        .count()
}
