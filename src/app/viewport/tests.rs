//! Frame building and interaction, without a GPU (egui_kittest drives the input).

use super::frame::{Batch, ContactMarker, FLAG_SELECTED, Instance, LineVertex, PointInstance};
use super::input::ray_plane;
use super::*;
use crate::dynamics::{Body, BodyKind, Material};
use crate::geometry::{ConvexHull, Shape};
use crate::math::{Pose, Quat};
use crate::scene::{Generator, Scene, ShapeDesc};
use crate::world::Settings;
use eframe::egui::{Key, Pos2};
use egui_kittest::Harness;
use std::sync::Arc;

fn body(kind: BodyKind, shape: Shape, at: Vec3) -> Body {
    Body::new(kind, shape, Pose::new(at, Quat::from_rotation_y(0.3)), Material::default())
}

fn tetra() -> Arc<ConvexHull> {
    Arc::new(ConvexHull::new(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).unwrap())
}

/// A static floor, two spheres, three boxes, one capsule, and three hulls of which two share
/// one `Arc`.
fn mixed_world() -> World {
    let mut w = World::new(Settings::default());
    w.add_body(body(BodyKind::Static, Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)), Vec3::new(0.0, -0.5, 0.0)));
    for x in [0.0, 2.0] {
        w.add_body(body(BodyKind::Dynamic, Shape::sphere(0.5), Vec3::new(x, 0.5, 0.0)));
    }
    for x in [4.0, 6.0] {
        w.add_body(body(BodyKind::Dynamic, Shape::cuboid(Vec3::new(0.5, 0.25, 0.4)), Vec3::new(x, 0.25, 0.0)));
    }
    w.add_body(body(BodyKind::Dynamic, Shape::capsule(0.5, 0.3), Vec3::new(-3.0, 0.8, 0.0)));
    let shared = tetra();
    for x in [-6.0, -8.0] {
        w.add_body(body(BodyKind::Dynamic, Shape::ConvexHull(shared.clone()), Vec3::new(x, 1.0, 0.0)));
    }
    w.add_body(body(BodyKind::Kinematic, Shape::ConvexHull(tetra()), Vec3::new(-10.0, 1.0, 0.0)));
    w
}

fn bare() -> ViewOptions {
    let off = Layers {
        aabbs: false,
        contact_points: false,
        contact_normals: false,
        contact_forces: false,
        velocities: false,
        broad_phase: false,
        candidate_pairs: false,
        ccd: false,
        narrow_phase: false,
        mesh: false,
        grid: false,
        axes: false,
        trails: false,
        joints: false,
    };
    ViewOptions { layers: off, ..ViewOptions::default() }
}

fn frame(world: &World, view: &ViewOptions) -> FrameData {
    build_frame(world, view, &Camera::default(), [800.0, 600.0], 1.0)
}

#[test]
fn instances_are_grouped_by_mesh() {
    let w = mixed_world();
    let f = frame(&w, &bare());
    assert_eq!(f.instance_count(MeshKey::Sphere), 2 + 2, "two spheres and the capsule's two ends");
    assert_eq!(f.instance_count(MeshKey::Cube), 1 + 2, "floor and two boxes");
    assert_eq!(f.instance_count(MeshKey::Cylinder), 1);
    assert_eq!(f.custom.len(), 2, "one mesh per distinct hull");
    assert_eq!(f.instance_count(MeshKey::Hull(0)), 2);
    assert_eq!(f.instance_count(MeshKey::Hull(1)), 1);
    assert_eq!(f.instances.len(), 11);
    // Batches tile the instance buffer exactly, each mesh once.
    let mut next = 0;
    for b in &f.batches {
        assert_eq!(b.instances.start, next);
        next = b.instances.end;
    }
    assert_eq!(next as usize, f.instances.len());
    // Each mesh once for moving bodies and once for static ones, the static ones last.
    let keys: std::collections::HashSet<_> = f.batches.iter().map(|b| (b.mesh, b.fixed)).collect();
    assert_eq!(keys.len(), f.batches.len());
    let fixed: Vec<bool> = f.batches.iter().map(|b| b.fixed).collect();
    assert!(fixed.is_sorted(), "moving bodies' batches, then static ones': {fixed:?}");
    let floor = f.batches.iter().find(|b| b.fixed).expect("the floor's batch");
    assert_eq!((floor.mesh, floor.instances.len()), (MeshKey::Cube, 1));
    assert!(f.batches.iter().all(|b| !b.see_through), "opaque unless asked");
}

/// With see-through statics the static bodies' batches, and only they, are drawn see-through;
/// the instances are the same.
#[test]
fn static_bodies_are_drawn_see_through_when_asked() {
    let w = mixed_world();
    let opaque = frame(&w, &bare());
    let f = frame(&w, &ViewOptions { see_through_statics: true, ..bare() });
    assert_eq!(f.instances, opaque.instances);
    for (b, o) in f.batches.iter().zip(&opaque.batches) {
        assert_eq!((b.mesh, &b.instances, b.fixed), (o.mesh, &o.instances, o.fixed));
        assert_eq!(b.see_through, b.fixed, "{b:?}");
    }
    let statics = w.bodies().iter().filter(|b| b.kind == BodyKind::Static).count();
    let see_through: usize = f.batches.iter().filter(|b| b.see_through).map(|b| b.instances.len()).sum();
    assert_eq!((statics, see_through), (1, 1), "the floor");
}

#[test]
fn capsule_ends_sit_at_the_segment_ends() {
    let mut w = World::new(Settings::default());
    let rot = Quat::from_rotation_z(0.7);
    w.add_body(Body::new(
        BodyKind::Dynamic,
        Shape::capsule(1.5, 0.25),
        Pose::new(Vec3::new(1.0, 2.0, 3.0), rot),
        Material::default(),
    ));
    let f = frame(&w, &bare());
    let ends: Vec<Vec3> = f.instances.iter().filter(|i| i.scale == [0.25; 3]).map(|i| Vec3::from(i.position)).collect();
    let axis = rot * Vec3::new(0.0, 1.5, 0.0);
    assert_eq!(ends.len(), 2);
    assert!(ends.iter().any(|e| (*e - (Vec3::new(1.0, 2.0, 3.0) + axis)).length() < 1e-5));
    assert!(ends.iter().any(|e| (*e - (Vec3::new(1.0, 2.0, 3.0) - axis)).length() < 1e-5));
}

#[test]
fn selection_marks_every_instance_of_the_body() {
    let w = mixed_world();
    let capsule = 5;
    let view = ViewOptions { selected: Some(capsule), ..bare() };
    let f = frame(&w, &view);
    let marked = f.instances.iter().filter(|i| i.flags & FLAG_SELECTED != 0).count();
    assert_eq!(marked, 3, "cylinder and both end spheres");
    let out_of_range = ViewOptions { selected: Some(999), ..bare() };
    assert!(frame(&w, &out_of_range).instances.iter().all(|i| i.flags == 0));
}

#[test]
fn color_modes_differ() {
    let mut w = mixed_world();
    w.body_mut(1).linvel = Vec3::new(9.0, 0.0, 0.0);
    let color_of = |mode: ColorMode, w: &World| {
        let f = frame(w, &ViewOptions { color_mode: mode, ..bare() });
        // Sphere batch: bodies 1 and 2 come first, in body order.
        let b = f.batches.iter().find(|b| b.mesh == MeshKey::Sphere).unwrap();
        (f.instances[b.instances.start as usize].color, f.instances[b.instances.start as usize + 1].color)
    };
    let (fast, still) = color_of(ColorMode::Speed, &w);
    assert_ne!(fast, still, "speed colours tell a fast body from a still one");
    assert_eq!(fast & 0xff, colors::pack_rgba([colors::speed_color(0.9)[0], 0.0, 0.0, 0.0]) & 0xff);
    let (a, b) = color_of(ColorMode::Island, &w);
    assert_ne!(a, b, "two separate bodies are two islands");
}

#[test]
fn layers_switch_their_lines() {
    let mut w = mixed_world();
    w.step();
    let base = frame(&w, &bare());
    assert_eq!((base.line_count(), base.point_count()), (0, 0));

    let with = |f: fn(&mut Layers)| {
        let mut v = bare();
        f(&mut v.layers);
        frame(&w, &v)
    };
    assert_eq!(with(|l| l.axes = true).line_count(), 3);
    assert_eq!(with(|l| l.aabbs = true).line_count(), 12 * w.bodies().len());
    let awake_dynamic = w.bodies().iter().filter(|b| b.is_dynamic() && !b.is_asleep()).count();
    assert!(awake_dynamic > 0);
    assert_eq!(with(|l| l.velocities = true).line_count(), awake_dynamic);
    let contact_points: usize = w.contacts().iter().map(|c| c.manifold.len()).sum();
    assert!(contact_points > 0, "bodies rest on the floor");
    let f = with(|l| l.contact_points = true);
    assert_eq!((f.line_count(), f.markers.len(), f.points.len()), (0, contact_points, 0));
    assert_eq!(with(|l| l.contact_normals = true).line_count(), contact_points);
    assert_eq!(with(|l| l.candidate_pairs = true).line_count(), w.pairs().len());
    let grid = with(|l| l.grid = true).line_count();
    assert!(grid >= 2 * 20, "a grid of at least ±10 m");
    let all = with(|l| {
        l.axes = true;
        l.aabbs = true;
        l.grid = true;
    });
    assert_eq!(all.line_count(), 3 + 12 * w.bodies().len() + grid);
}

/// The mesh layer on its own draws a mesh's edges (it counts as a debug layer).
#[test]
fn the_mesh_layer_alone_draws_the_mesh() {
    let text = "(bodies: [
        (kind: Static, shape: TriangleMesh(vertices: [(-3, 0, -3), (3, 0, -3), (3, 0, 3), (-3, 0, 3)],
                                           indices: [(0, 2, 1), (0, 3, 2)])),
        (shape: Sphere(radius: 0.25), position: (0, 0.2, 0)),
    ])";
    let mut w = Scene::parse(text, "mesh.ron").unwrap().build().unwrap();
    w.step();
    let mut v = bare();
    assert!(!v.layers.any_debug(), "bare() has no debug layer");
    v.layers.mesh = true;
    assert!(v.layers.any_debug());
    assert!(frame(&w, &v).line_count() > 0, "the mesh layer alone drew nothing");
}

/// The 5,000-body scene of the frame benchmark builds every instance.
#[test]
fn generated_scene_builds_one_instance_per_body() {
    let scene = Scene {
        generators: vec![Generator::Rain {
            count: 500,
            seed: 7,
            min: Vec3::new(-10.0, 1.0, -10.0),
            max: Vec3::new(10.0, 20.0, 10.0),
            shapes: vec![ShapeDesc::Sphere { radius: 0.3 }, ShapeDesc::Cuboid { half_extents: Vec3::splat(0.3) }],
            random_rotation: true,
            linear_velocity: Vec3::ZERO,
            material: Material::default(),
            separated: false,
        }],
        ..Scene::default()
    };
    let w = scene.build().unwrap();
    let f = frame(&w, &ViewOptions::default());
    assert_eq!(f.instance_count(MeshKey::Sphere) + f.instance_count(MeshKey::Cube), 500);
}

#[test]
fn frame_all_shows_every_moving_body_but_those_that_flew_away() {
    let mut w = mixed_world();
    w.add_body(body(BodyKind::Dynamic, Shape::sphere(0.2), Vec3::new(9.0, 6.0, -8.0)));
    // Far beyond the rest: left out, or the scene would shrink to a speck.
    let escaped = w.add_body(body(BodyKind::Dynamic, Shape::sphere(0.2), Vec3::new(900.0, 12.0, -25.0)));
    let mut vp = Viewport::new(None);
    vp.camera_mut().yaw = 2.0;
    vp.frame_all(&w);
    let rect = vp.rect();
    let p = vp.camera().project(w.bodies()[escaped].pose.translation, rect);
    assert!(p.is_none_or(|p| !rect.contains(p)), "the escaped body is left out of the frame");
    for b in w.bodies().iter().filter(|b| b.kind != BodyKind::Static).filter(|b| b.pose.translation.x < 100.0) {
        let aabb = b.aabb();
        for corner in [aabb.min, aabb.max] {
            let p = vp.camera().project(corner, rect).expect("in front of the camera");
            assert!(rect.expand(0.5).contains(p), "{corner} at {p:?} outside {rect:?}");
        }
    }
    // Only static bodies: frame those.
    let mut floor_only = World::new(Settings::default());
    floor_only.add_body(body(BodyKind::Static, Shape::cuboid(Vec3::splat(3.0)), Vec3::new(50.0, 0.0, 0.0)));
    vp.frame_all(&floor_only);
    assert!((vp.camera().target - Vec3::new(50.0, 0.0, 0.0)).length() < 1e-4);
}

#[test]
fn ray_plane_meets_the_plane() {
    let ray = crate::geometry::Ray::new(Vec3::new(0.0, 5.0, 0.0), Vec3::new(0.3, -1.0, 0.1));
    let p = ray_plane(&ray, Vec3::new(0.0, 1.0, 0.0), Vec3::Y).unwrap();
    assert!((p.y - 1.0).abs() < 1e-5);
    assert!(ray_plane(&ray, Vec3::new(0.0, 9.0, 0.0), Vec3::Y).is_none(), "plane behind the ray");
    assert!(ray_plane(&ray, Vec3::ZERO, Vec3::new(1.0, 0.3, 0.0).cross(ray.dir).normalize()).is_none());
}

// ---- interaction through egui_kittest ----

struct Ui {
    viewport: Viewport,
    world: World,
    view: ViewOptions,
    actions: Vec<ViewAction>,
}

/// A sphere at the origin on a floor, seen from the front at a known distance.
fn harness() -> Harness<'static, Ui> {
    let mut world = World::new(Settings::default());
    world.add_body(body(BodyKind::Static, Shape::cuboid(Vec3::new(5.0, 0.5, 5.0)), Vec3::new(0.0, -1.5, 0.0)));
    world.add_body(Body::new(BodyKind::Dynamic, Shape::sphere(1.0), Pose::IDENTITY, Material::default()));
    let mut viewport = Viewport::new(None);
    *viewport.camera_mut() = Camera { target: Vec3::ZERO, yaw: 0.0, pitch: 0.0, distance: 10.0, ..Camera::default() };
    let state = Ui { viewport, world, view: ViewOptions::default(), actions: Vec::new() };
    let mut h = Harness::builder().with_size(egui::vec2(640.0, 480.0)).build_ui_state(
        |ui, s: &mut Ui| {
            let a = s.viewport.ui(ui, &s.world, &s.view);
            s.actions.extend(a);
        },
        state,
    );
    h.run();
    h
}

fn screen_of(h: &Harness<'_, Ui>, p: Vec3) -> Pos2 {
    let s = h.state();
    s.viewport.camera().project(p, s.viewport.rect()).unwrap()
}

fn click(h: &mut Harness<'_, Ui>, at: Pos2) {
    h.hover_at(at);
    h.run();
    h.drag_at(at);
    h.run();
    h.drop_at(at);
    h.run();
}

/// A left-drag from `from` to `to`, the cursor moving there in `moves` even steps.
fn drag(h: &mut Harness<'_, Ui>, from: Pos2, to: Pos2, moves: u32) {
    h.hover_at(from);
    h.run();
    h.drag_at(from);
    h.run();
    for k in 1..=moves {
        h.hover_at(from + (to - from) * (k as f32 / moves as f32));
        h.run();
    }
    h.drop_at(to);
    h.run();
}

#[test]
fn clicking_selects_the_body_under_the_cursor() {
    let mut h = harness();
    let on_sphere = screen_of(&h, Vec3::new(0.3, 0.2, 0.0));
    click(&mut h, on_sphere);
    assert_eq!(h.state().actions, vec![ViewAction::Select(Some(1))]);
    h.state_mut().actions.clear();
    let sky = screen_of(&h, Vec3::new(0.0, 3.0, 0.0));
    click(&mut h, sky);
    assert_eq!(h.state().actions, vec![ViewAction::Select(None)]);
}

/// With static bodies see-through, a click on a wall selects the body behind it and a drag
/// there pulls that body; where nothing moving is behind, the click selects the wall. Opaque,
/// the wall takes the click.
#[test]
fn a_click_passes_through_see_through_statics_to_the_body_behind() {
    let mut h = harness();
    // A wall between the camera (on +z) and the sphere, wider than the sphere.
    let wall = body(BodyKind::Static, Shape::cuboid(Vec3::new(3.0, 3.0, 0.1)), Vec3::new(0.0, 0.0, 3.0));
    h.state_mut().world.add_body(wall);
    h.run();
    let (on_sphere, beside) = (screen_of(&h, Vec3::new(0.3, 0.2, 0.0)), screen_of(&h, Vec3::new(2.0, 2.0, 0.0)));
    for (see_through, sphere_click, beside_click) in [(false, 2, 2), (true, 1, 2)] {
        h.state_mut().view.see_through_statics = see_through;
        h.state_mut().actions.clear();
        click(&mut h, on_sphere);
        click(&mut h, beside);
        let expected = vec![ViewAction::Select(Some(sphere_click)), ViewAction::Select(Some(beside_click))];
        assert_eq!(h.state().actions, expected, "see-through {see_through}");
    }
    // A drag from the sphere, through the wall, pulls the sphere.
    h.state_mut().actions.clear();
    drag(&mut h, on_sphere, on_sphere + egui::vec2(40.0, 0.0), 1);
    let started = h.state().actions.iter().find_map(|a| match a {
        ViewAction::DragStart { body, .. } => Some(*body),
        _ => None,
    });
    assert_eq!(started, Some(1), "{:?}", h.state().actions);
}

#[test]
fn dragging_a_body_pulls_it_across_the_camera_plane() {
    let mut h = harness();
    let grab = screen_of(&h, Vec3::ZERO);
    let drop = grab + egui::vec2(120.0, -40.0);
    drag(&mut h, grab, drop, 4);

    let s = h.state();
    assert_eq!(s.actions[0], ViewAction::Select(Some(1)));
    let ViewAction::DragStart { body, local_anchor } = s.actions[1] else { panic!("{:?}", s.actions) };
    assert_eq!(body, 1);
    // The ray through the sphere's centre meets its surface at the front, 1 m towards the eye.
    assert!((local_anchor - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-3, "{local_anchor}");
    assert_eq!(s.actions.last(), Some(&ViewAction::DragEnd));
    let targets: Vec<Vec3> = s
        .actions
        .iter()
        .filter_map(|a| if let ViewAction::DragTo { target } = a { Some(*target) } else { None })
        .collect();
    assert!(!targets.is_empty());
    let last = *targets.last().unwrap();
    assert!((last.z - 1.0).abs() < 1e-3, "stays on the plane z = 1 through the grab point: {last}");
    let back = s.viewport.camera().project(last, s.viewport.rect()).unwrap();
    assert!((back - drop).length() < 0.5, "under the cursor: {back:?} vs {drop:?}");
    assert_eq!(s.viewport.camera().yaw, 0.0, "pulling a body does not orbit");
}

#[test]
fn dragging_empty_space_orbits_without_actions() {
    let mut h = harness();
    let start = screen_of(&h, Vec3::new(0.0, 3.0, 0.0));
    drag(&mut h, start, start + egui::vec2(80.0, 0.0), 1);
    let s = h.state();
    assert!(s.actions.is_empty(), "{:?}", s.actions);
    assert!(s.viewport.camera().yaw != 0.0);
}

#[test]
fn key_b_shoots_along_the_cursor_ray() {
    let mut h = harness();
    let at = screen_of(&h, Vec3::ZERO);
    h.hover_at(at);
    h.run();
    h.key_press(Key::B);
    h.run();
    let s = h.state();
    let [ViewAction::Shoot { origin, velocity }] = s.actions[..] else { panic!("{:?}", s.actions) };
    assert!((origin - s.viewport.camera().eye()).length() < 1e-4);
    assert!((velocity.length() - SHOOT_SPEED).abs() < 1e-3);
    assert!(velocity.normalize().dot(-origin.normalize()) > 0.9999, "aimed at the sphere under the cursor");
}

#[test]
fn key_f_frames_the_scene() {
    let mut h = harness();
    h.state_mut().viewport.camera_mut().target = Vec3::new(100.0, 0.0, 0.0);
    let centre = h.state().viewport.rect().center();
    h.hover_at(centre);
    h.run();
    h.key_press(Key::F);
    h.run();
    assert!(h.state().viewport.camera().target.length() < 1e-4);
}

/// What the frame's instances, lines and points are, built the straightforward way: one pass
/// over the bodies pushing into a list per mesh, and every debug primitive through the world's
/// own [`World::debug_draw`] (contact points included). Grid and axis lines come from a frame
/// with only those layers on.
fn straightforward(w: &World, view: &ViewOptions) -> Expected {
    let mut colors = colors::BodyColors::default();
    colors.prepare(w, view.color_mode);
    // Moving bodies' groups, then static bodies'; a custom mesh's group index is shared.
    let mut all_groups: [Vec<Vec<Instance>>; 2] = [vec![Vec::new(); 3], vec![Vec::new(); 3]];
    let mut custom: Vec<usize> = Vec::new();
    for (i, b) in w.bodies().iter().enumerate() {
        let groups = &mut all_groups[usize::from(b.kind == BodyKind::Static)];
        let selected = view.selected == Some(i);
        let color = match view.body_colors.as_ref().and_then(|c| c.get(i)).filter(|_| !selected) {
            Some(&[r, g, b]) => colors::pack_rgba([r, g, b, 1.0]),
            None => colors.color(i, b, view.color_mode, selected),
        };
        let make = |p: Vec3, r: Quat, s: Vec3| Instance {
            position: p.to_array(),
            color,
            rotation: r.to_array(),
            scale: s.to_array(),
            flags: if selected { FLAG_SELECTED } else { 0 },
        };
        let parts: Vec<(&Shape, Pose)> = match &b.shape {
            Shape::Compound(c) => c.children().iter().map(|k| (&k.shape, b.pose.mul(&k.pose))).collect(),
            s => vec![(s, b.pose)],
        };
        for (shape, pose) in parts {
            let (p, r) = (pose.translation, pose.rotation);
            match shape {
                Shape::Sphere(s) => groups[0].push(make(p, r, Vec3::splat(s.radius))),
                Shape::Cuboid(c) => groups[1].push(make(p, r, c.half_extents)),
                Shape::Capsule(c) => {
                    let axis = r * Vec3::new(0.0, c.half_height, 0.0);
                    groups[2].push(make(p, r, Vec3::new(c.radius, c.half_height, c.radius)));
                    groups[0].push(make(p + axis, r, Vec3::splat(c.radius)));
                    groups[0].push(make(p - axis, r, Vec3::splat(c.radius)));
                }
                Shape::Compound(_) => {}
                _ => {
                    let key = frame::custom_key(shape);
                    let k = custom.iter().position(|&c| c == key).unwrap_or_else(|| {
                        custom.push(key);
                        custom.len() - 1
                    });
                    if groups.len() <= 3 + k {
                        groups.resize(3 + k + 1, Vec::new());
                    }
                    groups[3 + k].push(make(p, r, Vec3::ONE));
                }
            }
        }
    }
    let (mut instances, mut batches) = (Vec::new(), Vec::new());
    for (fixed, groups) in all_groups.iter().enumerate() {
        for (g, group) in groups.iter().enumerate().filter(|(_, g)| !g.is_empty()) {
            let mesh = [MeshKey::Sphere, MeshKey::Cube, MeshKey::Cylinder]
                .get(g)
                .copied()
                .unwrap_or_else(|| MeshKey::Hull(g - 3));
            let start = instances.len() as u32;
            instances.extend_from_slice(group);
            let (fixed, instances) = (fixed == 1, start..instances.len() as u32);
            batches.push(Batch { mesh, instances, fixed, see_through: fixed && view.see_through_statics });
        }
    }
    let own = Layers { grid: view.layers.grid, axes: view.layers.axes, ..bare().layers };
    let mut lines = frame(w, &ViewOptions { layers: own, ..bare() }).lines;
    let (mut markers, mut points) = (Vec::new(), Vec::new());
    let mut d = crate::debug_draw::DebugDraw::default();
    d.set_filter(|c| view.layers.shows(c));
    w.debug_draw(&mut d);
    d.points.extend(view.extra.points.iter().filter(|p| view.layers.shows(p.category)));
    let mut lines_over_bodies = lines.len();
    if view.layers.any_debug() {
        let push = |lines: &mut Vec<LineVertex>, l: &crate::debug_draw::DebugLine| {
            let color = colors::pack_rgba(l.color);
            lines.push(LineVertex { position: l.a.to_array(), color });
            lines.push(LineVertex { position: l.b.to_array(), color });
        };
        d.lines.iter().filter(|l| !frame::over_bodies(l.category)).for_each(|l| push(&mut lines, l));
        lines_over_bodies = lines.len();
        d.lines.iter().filter(|l| frame::over_bodies(l.category)).for_each(|l| push(&mut lines, l));
        // The panels' lines, over the bodies after the world's.
        view.extra.lines.iter().filter(|l| view.layers.shows(l.category)).for_each(|l| push(&mut lines, l));
        for p in &d.points {
            let color = colors::pack_rgba(p.color);
            if p.category == crate::debug_draw::DrawCategory::ContactPoint {
                assert_eq!(p.size, crate::debug_draw::CONTACT_POINT_SIZE, "the contact markers' one size");
                // A view coloured by divergence (A/B) marks points in its own two colours.
                let k = crate::debug_draw::CONTACT_POINT_COLORS.iter().position(|c| *c == p.color).unwrap();
                let color = colors::pack_rgba(crate::debug_draw::contact_point_colors(view.body_colors.is_some())[k]);
                markers.push(ContactMarker { position: p.p.to_array(), color });
            } else {
                points.push(PointInstance { position: p.p.to_array(), size: p.size, color });
            }
        }
    }
    Expected { instances, batches, custom, lines, markers, points, lines_over_bodies }
}

/// A frame's contents, with each custom mesh as its [`frame::custom_key`].
struct Expected {
    instances: Vec<Instance>,
    batches: Vec<Batch>,
    custom: Vec<usize>,
    lines: Vec<LineVertex>,
    markers: Vec<ContactMarker>,
    points: Vec<PointInstance>,
    lines_over_bodies: usize,
}

/// Asserts that a frame holds what [`straightforward`] builds, naming the case on failure.
fn assert_as_straightforward(f: &FrameData, w: &World, view: &ViewOptions, case: &str) {
    let Expected { instances, batches, custom, lines, markers, points, lines_over_bodies } = straightforward(w, view);
    let keys: Vec<usize> = f.custom.iter().map(frame::custom_key).collect();
    assert_eq!(f.batches, batches, "{case}: batches");
    assert_eq!(keys, custom, "{case}: custom meshes");
    assert_eq!(f.instances.len(), instances.len(), "{case}: instance count");
    for (k, (a, b)) in f.instances.iter().zip(&instances).enumerate() {
        assert_eq!(a, b, "{case}: instance {k}");
    }
    assert_eq!(f.lines.len(), lines.len(), "{case}: line vertex count");
    assert!(f.lines == lines, "{case}: lines differ");
    assert_eq!(f.lines_over_bodies, lines_over_bodies, "{case}: where the lines over the bodies start");
    assert_eq!(f.markers.len(), markers.len(), "{case}: contact marker count");
    assert!(f.markers == markers, "{case}: contact markers differ");
    assert_eq!(f.points.len(), points.len(), "{case}: point count");
    assert!(f.points == points, "{case}: points differ");
}

/// The frame a scratch builds over a run (bodies' layout kept, frames taken from the last one
/// while nothing changed) is the straightforward build, for scenes with every shape kind
/// (sphere, box, capsule, hull, compound, triangle mesh, height field), joints and CCD, with
/// every view: the default layers, every layer, each colour mode, a selection, per-body colours.
#[test]
fn frames_are_the_straightforward_build() {
    let scenes = ["compounds", "ghost_lab", "mesh_import", "ragdoll", "tunneling_shapes", "rain_1000", "hinge_door"];
    let all = Layers::all();
    let mut seen = (false, false, false, false);
    for name in scenes {
        let path = format!("{}/scenes/{name}.ron", env!("CARGO_MANIFEST_DIR"));
        let mut w = Scene::load(&path).unwrap().build().unwrap();
        let n = w.bodies().len();
        let views = [
            ("default layers", ViewOptions::default()),
            ("every layer", ViewOptions { layers: all.clone(), ..ViewOptions::default() }),
            (
                "islands, selected",
                ViewOptions { color_mode: ColorMode::Island, selected: Some(n / 2), ..ViewOptions::default() },
            ),
            ("speed", ViewOptions { color_mode: ColorMode::Speed, ..ViewOptions::default() }),
            ("see-through statics", ViewOptions { see_through_statics: true, ..ViewOptions::default() }),
            ("selected", ViewOptions { selected: Some(n - 1), ..ViewOptions::default() }),
            (
                "body colours",
                ViewOptions {
                    body_colors: Some(vec![[0.1, 0.7, 0.3]; n / 2]),
                    selected: Some(0),
                    ..ViewOptions::default()
                },
            ),
        ];
        // Every pass on this thread, and passes over 5 items or more split into blocks of 7
        // for rayon's global pool.
        let mut serial = FrameScratch::default();
        let mut shared = FrameScratch::default();
        shared.set_parallel(5, 7);
        for step in [0, 1, 2, 20] {
            while w.step_count() < step {
                w.step();
            }
            for (label, view) in &views {
                // Twice: built, then taken unchanged from the recycled frame.
                for pass in 0..2 {
                    let case = format!("{name} at step {step}, {label}, pass {pass}");
                    let f = build_frame_into(&w, view, &Camera::default(), [800.0, 600.0], 1.0, &mut serial);
                    assert_as_straightforward(&f, &w, view, &case);
                    seen.0 |= !f.custom.is_empty();
                    seen.1 |= f.instance_count(MeshKey::Cylinder) > 0;
                    seen.2 |= f.markers.len() > 7 * 3;
                    seen.3 |= f.instances.len() > 7 * 3;
                    serial.recycle(f);
                    let f = build_frame_into(&w, view, &Camera::default(), [800.0, 600.0], 1.0, &mut shared);
                    assert_as_straightforward(&f, &w, view, &format!("{case}, shared between threads"));
                    shared.recycle(f);
                }
            }
        }
    }
    assert_eq!(seen, (true, true, true, true), "custom meshes, capsules, several blocks of points and of instances");
}

/// A frame is taken from the last one only while the world and the view are unchanged: a step,
/// a body's change, a settings edit or a toggled layer builds it afresh, a camera move does not.
#[test]
fn the_frame_cache_invalidates_on_every_change() {
    let mut w = mixed_world();
    w.step();
    let mut view = ViewOptions::default();
    let mut scratch = FrameScratch::default();
    let mut camera = Camera::default();
    let draw = |w: &World, view: &ViewOptions, camera: &Camera, scratch: &mut FrameScratch, case: &str| {
        let before = scratch.builds();
        let f = build_frame_into(w, view, camera, [800.0, 600.0], 1.0, scratch);
        assert_as_straightforward(&f, w, view, case);
        assert_eq!(f.uniforms, build_frame(w, view, camera, [800.0, 600.0], 1.0).uniforms, "{case}: uniforms");
        scratch.recycle(f);
        scratch.builds() - before
    };
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "first"), 1);
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "unchanged"), 0, "nothing changed: not rebuilt");
    camera.yaw += 0.5;
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "camera moved"), 0, "the camera shapes only the uniforms");
    w.step();
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "stepped"), 1);
    view.layers.contact_points = false;
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "layer off"), 1);
    view.selected = Some(3);
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "selected"), 1);
    view.see_through_statics = true;
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "see-through statics"), 1);
    w.body_mut(1).shape = Shape::cuboid(Vec3::splat(0.3));
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "shape changed"), 1);
    w.body_mut(2).pose.translation.y += 1.0;
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "body moved"), 1);
    w.settings.speculative_distance *= 2.0;
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "settings edited"), 1);
    w.add_body(body(BodyKind::Dynamic, Shape::capsule(0.2, 0.1), Vec3::new(3.0, 4.0, 0.0)));
    assert_eq!(draw(&w, &view, &camera, &mut scratch, "body added"), 1);
    let other = mixed_world();
    assert_eq!(draw(&other, &view, &camera, &mut scratch, "another world"), 1);
    assert_eq!(draw(&other, &view, &camera, &mut scratch, "another world again"), 0);
    scratch.invalidate();
    assert_eq!(draw(&other, &view, &camera, &mut scratch, "invalidated"), 1);
    // A frame not handed back is not reused, even with nothing changed.
    let kept = build_frame_into(&other, &view, &camera, [800.0, 600.0], 1.0, &mut scratch);
    assert_eq!(draw(&other, &view, &camera, &mut scratch, "not recycled"), 1);
    assert_as_straightforward(&kept, &other, &view, "kept");
}

/// The legend names the colours of the contact layers that are on, in the colours the world
/// draws them with: a box resting on a floor, its points red (overlapping), its normal impulses
/// the legend's "normal impulse".
#[test]
fn the_legend_names_the_contact_layers_colours() {
    let mut w = World::new(Settings::default());
    w.add_body(body(BodyKind::Static, Shape::cuboid(Vec3::new(5.0, 0.5, 5.0)), Vec3::new(0.0, -0.5, 0.0)));
    w.add_body(body(BodyKind::Dynamic, Shape::cuboid(Vec3::splat(0.5)), Vec3::new(0.0, 0.5, 0.0)));
    for _ in 0..30 {
        w.step();
    }
    let names = |l: &Layers| super::input::layer_legend(l, false).into_iter().map(|(n, _)| n).collect::<Vec<_>>();
    assert_eq!(names(&Layers::default()), ["contact: overlapping", "contact: apart (speculative)"]);
    let none = Layers { contact_points: false, ..Layers::default() };
    assert!(names(&none).is_empty(), "no contact layer, no entry");
    let forces = Layers { contact_forces: true, ..none };
    let legend = super::input::layer_legend(&forces, false);
    let mut d = crate::debug_draw::DebugDraw::default();
    d.set_filter(|c| c == crate::debug_draw::DrawCategory::ContactForce);
    w.debug_draw(&mut d);
    let drawn: Vec<[f32; 3]> = d.lines.iter().map(|l| [l.color[0], l.color[1], l.color[2]]).collect();
    let normal = legend.iter().find(|(n, _)| *n == "normal impulse").expect("an entry for normal impulses").1;
    assert!(drawn.contains(&normal), "the box's normal impulses are drawn in the legend's colour: {drawn:?}");
}

/// With the mesh layer on, the legend names its colours: the raw triangle normals and the
/// corrected manifold normal the ghost lab draws in red and green (the legend named only the
/// contact normal, too short there to see), each in the colour the world draws it with.
#[test]
fn the_legend_names_the_mesh_layers_colours() {
    let w = stepped("ghost_lab.ron", 60);
    let mesh = Layers { mesh: true, ..Layers::default() };
    let legend = super::input::layer_legend(&mesh, false);
    assert!(super::input::layer_legend(&Layers::default(), false).iter().all(|(n, _)| !n.starts_with("mesh")));
    let mut d = crate::debug_draw::DebugDraw::default();
    d.set_filter(|c| c == crate::debug_draw::DrawCategory::Mesh);
    w.debug_draw(&mut d);
    let drawn: Vec<[f32; 3]> = d.lines.iter().map(|l| [l.color[0], l.color[1], l.color[2]]).collect();
    for name in ["mesh: triangle normal, raw", "mesh: manifold normal, corrected", "mesh: leaf or cell tested"] {
        let c = legend.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("an entry {name}")).1;
        assert!(drawn.contains(&c), "{name} is drawn in the legend's colour");
    }
}

/// Shipped scene `name` after `steps` steps.
fn stepped(name: &str, steps: usize) -> World {
    let path = format!("{}/scenes/{name}", env!("CARGO_MANIFEST_DIR"));
    let mut w = crate::Scene::load(path).unwrap().build().unwrap();
    for _ in 0..steps {
        w.step();
    }
    w
}

/// A stack asleep shows the contact points it fell asleep with, and normals from each.
#[test]
fn a_stack_asleep_shows_its_resting_contacts() {
    let w = stepped("tower.ron", 240);
    assert!(w.contacts().is_empty() && !w.resting_contacts().is_empty(), "asleep");
    let points: usize = w.resting_contacts().iter().map(|c| c.manifold.len()).sum();
    let mut view = bare();
    view.layers.contact_points = true;
    assert_eq!(frame(&w, &view).markers.len(), points);
    view.layers.contact_normals = true;
    assert_eq!(frame(&w, &view).line_count(), points, "a normal from each point");
}

/// An A/B view, whose bodies are coloured blue (same) to red (apart), marks contact points in
/// white and grey, and its legend names no red or blue point: red and blue points read as
/// divergence.
#[test]
fn an_ab_views_contact_points_are_not_in_the_divergence_colours() {
    let w = stepped("box_stack.ron", 5);
    let mut view = bare();
    view.layers.contact_points = true;
    let colors = |f: &FrameData| {
        let mut c: Vec<u32> = f.markers.iter().map(|m| m.color).collect();
        c.sort();
        c.dedup();
        c
    };
    let plain = colors(&frame(&w, &view));
    view.body_colors = Some(vec![[0.2, 0.4, 1.0]; w.bodies().len()]);
    let ab = colors(&frame(&w, &view));
    assert!(!ab.is_empty() && ab.iter().all(|c| !plain.contains(c)), "{plain:?} {ab:?}");
    let legend = super::input::layer_legend(&view.layers, true);
    use super::colors::pack_rgba;
    let pack = |c: [f32; 3]| pack_rgba([c[0], c[1], c[2], 1.0]);
    let neutral = crate::debug_draw::CONTACT_POINT_COLORS_AB.map(pack_rgba);
    assert!(ab.iter().all(|c| neutral.contains(c)), "{ab:?}");
    for red_or_blue in crate::debug_draw::CONTACT_POINT_COLORS {
        assert!(legend.iter().all(|(_, l)| pack(*l) != pack_rgba(red_or_blue)));
    }
}

/// The Pair panel's drawing in the view is named in the legend, a colour at a time as drawn,
/// with the narrow-phase layer on; and none of its colours is the contact normals' magenta or
/// the friction impulses' cyan, lines drawn beside its own (EPA's were those two).
#[test]
fn the_pair_panels_view_drawing_is_in_the_legend_in_colours_of_its_own() {
    use crate::app::panels::pair::VIEW_LEGEND;
    use crate::debug_draw::{CONTACT_NORMAL_COLOR, DrawCategory, IMPULSE_COLORS};
    let mut view = bare();
    let (cloud, simplex) = (VIEW_LEGEND[0], VIEW_LEGEND[2]);
    view.extra.point(DrawCategory::NarrowPhase, Vec3::ZERO, 3.0, cloud.1);
    view.extra.line(DrawCategory::NarrowPhase, Vec3::ZERO, Vec3::X, simplex.1);
    assert!(super::input::extra_legend(&view).is_empty(), "the layer is off");
    view.layers.narrow_phase = true;
    let names: Vec<&str> = super::input::extra_legend(&view).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, [cloud.0, simplex.0]);
    let near = |a: [f32; 4], b: [f32; 4]| (0..3).map(|k| (a[k] - b[k]).abs()).sum::<f32>() < 0.3;
    // Nor like the selected body's yellow: the GJK lesson draws its simplex on the selected hull.
    let [r, g, b] = super::colors::SELECTED;
    let layers = [CONTACT_NORMAL_COLOR, IMPULSE_COLORS[1], [r, g, b, 1.0]];
    for (name, c) in VIEW_LEGEND {
        for l in layers {
            assert!(!near(c, l), "{name} {c:?} is too like a contact layer's or the selection's {l:?}");
        }
    }
}

/// The panels' own lines (the Pair panel's simplex, polytope and clipped faces) are drawn over
/// the bodies: drawn about the bodies they explain, behind their faces they hardly showed.
#[test]
fn the_panels_lines_are_drawn_over_the_bodies() {
    let w = mixed_world();
    let mut view = bare();
    view.layers.narrow_phase = true;
    let tip = Vec3::new(0.25, 0.5, 0.75);
    view.extra.line(crate::debug_draw::DrawCategory::NarrowPhase, Vec3::ZERO, tip, [1.0, 0.85, 0.1, 1.0]);
    let f = frame(&w, &view);
    let at = f.lines.iter().position(|v| v.position == tip.to_array()).expect("the panel's line is drawn");
    assert!(at >= f.lines_over_bodies, "line vertex {at} before the over-bodies part at {}", f.lines_over_bodies);
}
