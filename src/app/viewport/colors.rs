//! Body colours for each [`ColorMode`], and the islands the island mode needs.

use super::ColorMode;
use crate::BodyKind;
use crate::dynamics::Body;
use crate::union_find;
use crate::world::World;

/// Speed (m/s) at the red end of the speed colour scale.
pub const SPEED_FULL_SCALE: f32 = 10.0;

/// sRGB colours of the state mode, shown in the legend too.
pub const DYNAMIC: [f32; 3] = [0.93, 0.55, 0.22];
pub const ASLEEP: [f32; 3] = [0.42, 0.48, 0.62];
pub const STATIC: [f32; 3] = [0.52, 0.53, 0.55];
pub const KINEMATIC: [f32; 3] = [0.30, 0.76, 0.62];
pub const SELECTED: [f32; 3] = [1.0, 0.92, 0.25];

/// Packs a `[0, 1]` RGBA colour into RGBA8 (red in the lowest byte, as `Unorm8x4` reads it).
pub fn pack_rgba(c: [f32; 4]) -> u32 {
    let b = |x: f32| (x.clamp(0.0, 1.0) * 255.0 + 0.5) as u32;
    b(c[0]) | (b(c[1]) << 8) | (b(c[2]) << 16) | (b(c[3]) << 24)
}

fn rgb(c: [f32; 3], scale: f32) -> u32 {
    pack_rgba([c[0] * scale, c[1] * scale, c[2] * scale, 1.0])
}

/// Per-frame colouring state: the island of every body when colouring by island.
#[derive(Default)]
pub struct BodyColors {
    island: Vec<u32>,
}

impl BodyColors {
    pub fn prepare(&mut self, world: &World, mode: ColorMode) {
        if mode == ColorMode::Island {
            islands_into(world, &mut self.island);
        }
    }

    /// The packed colour of body `i`. Call [`BodyColors::prepare`] first.
    pub fn color(&self, i: usize, b: &Body, mode: ColorMode, selected: bool) -> u32 {
        if selected {
            return selected_color();
        }
        match mode {
            ColorMode::State => state_color(i, b.kind, b.is_asleep()),
            _ if b.kind == BodyKind::Static => state_color(i, b.kind, b.is_asleep()),
            ColorMode::Island => {
                let root = self.island.get(i).copied().unwrap_or(i as u32);
                let hue = (root as f32 * 0.618_034).fract();
                let c = hsv(hue, 0.62, 0.92);
                rgb(c, if b.is_asleep() { 0.6 } else { 1.0 })
            }
            ColorMode::Speed => rgb(speed_color(b.linvel.length() / SPEED_FULL_SCALE), 1.0),
        }
    }
}

/// The packed colour of a selected body.
pub fn selected_color() -> u32 {
    rgb(SELECTED, 1.0)
}

/// The packed colour of body `i` colouring by state (and of a static body in every mode): what
/// [`BodyColors::color`] gives an unselected body of this kind, asleep or not.
pub fn state_color(i: usize, kind: BodyKind, asleep: bool) -> u32 {
    // A small per-body brightness change keeps neighbours in a stack apart.
    let jitter = 0.9 + 0.12 * (hash(i as u32) & 0xff) as f32 / 255.0;
    match (kind, asleep) {
        (BodyKind::Static, _) => rgb(STATIC, jitter),
        (BodyKind::Kinematic, _) => rgb(KINEMATIC, jitter),
        (_, true) => rgb(ASLEEP, jitter),
        _ => rgb(DYNAMIC, jitter),
    }
}

/// For each body, the smallest index in its island: dynamic bodies joined by a contact.
/// Static and kinematic bodies do not join islands (they would merge everything on the ground).
pub fn islands(world: &World) -> Vec<u32> {
    let mut out = Vec::new();
    islands_into(world, &mut out);
    out
}

fn islands_into(world: &World, parent: &mut Vec<u32>) {
    let bodies = world.bodies();
    union_find::reset(parent, bodies.len());
    for c in world.contacts() {
        let (a, b) = (c.a as usize, c.b as usize);
        if a >= bodies.len() || b >= bodies.len() || !bodies[a].is_dynamic() || !bodies[b].is_dynamic() {
            continue;
        }
        // The smaller index becomes the root, so the root is the island's smallest body.
        union_find::join(parent, c.a, c.b);
    }
    union_find::flatten(parent);
}

/// Blue (still) through cyan, green and yellow to red (`t >= 1`).
pub fn speed_color(t: f32) -> [f32; 3] {
    const STOPS: [[f32; 3]; 5] =
        [[0.22, 0.36, 0.86], [0.12, 0.74, 0.86], [0.32, 0.84, 0.32], [0.96, 0.84, 0.22], [0.95, 0.25, 0.15]];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 1.0 } * (STOPS.len() - 1) as f32;
    let k = (t.floor() as usize).min(STOPS.len() - 2);
    let f = t - k as f32;
    let (a, b) = (STOPS[k], STOPS[k + 1]);
    [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f, a[2] + (b[2] - a[2]) * f]
}

fn hsv(h: f32, s: f32, v: f32) -> [f32; 3] {
    let h6 = h.fract() * 6.0;
    let c = v * s;
    let x = c * (1.0 - ((h6 % 2.0) - 1.0).abs());
    let (r, g, b) = match h6 as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = v - c;
    [r + m, g + m, b + m]
}

fn hash(mut x: u32) -> u32 {
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dynamics::Material;
    use crate::geometry::Shape;
    use crate::math::{Pose, Vec3};
    use crate::world::Settings;

    #[test]
    fn pack_puts_red_in_the_low_byte() {
        assert_eq!(pack_rgba([1.0, 0.0, 0.0, 0.0]), 0xff);
        assert_eq!(pack_rgba([0.0, 0.0, 0.0, 1.0]), 0xff00_0000);
        assert_eq!(pack_rgba([2.0, -1.0, 0.5, 1.0]), 0xff80_00ff);
    }

    #[test]
    fn speed_scale_runs_from_blue_to_red() {
        assert_eq!(speed_color(0.0), [0.22, 0.36, 0.86]);
        assert_eq!(speed_color(1.0), [0.95, 0.25, 0.15]);
        assert_eq!(speed_color(7.0), speed_color(1.0));
        assert_eq!(speed_color(f32::NAN), speed_color(1.0));
    }

    /// Two stacks of touching spheres on a static floor: islands follow the stacks, not the
    /// floor; compared with a brute-force flood fill over the contact graph.
    #[test]
    fn islands_match_a_flood_fill() {
        let mut w = World::new(Settings { gravity: Vec3::ZERO, ..Settings::default() });
        let floor = Body::new(
            BodyKind::Static,
            Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)),
            Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
            Material::default(),
        );
        w.add_body(floor);
        for (x, n) in [(0.0, 3), (5.0, 2), (10.0, 1)] {
            for k in 0..n {
                let p = Vec3::new(x, 0.5 + k as f32 * 0.99, 0.0);
                w.add_body(Body::new(
                    BodyKind::Dynamic,
                    Shape::sphere(0.5),
                    Pose::from_translation(p),
                    Material::default(),
                ));
            }
        }
        w.step();
        let got = islands(&w);
        // Brute force: repeat relaxing min labels over dynamic-dynamic contacts until stable.
        let mut label: Vec<u32> = (0..w.bodies().len() as u32).collect();
        loop {
            let mut changed = false;
            for c in w.contacts() {
                let (a, b) = (c.a as usize, c.b as usize);
                if w.bodies()[a].is_dynamic() && w.bodies()[b].is_dynamic() && label[a] != label[b] {
                    let m = label[a].min(label[b]);
                    (label[a], label[b]) = (m, m);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
        assert_eq!(got, label);
        assert_eq!(got, vec![0, 1, 1, 1, 4, 4, 6], "three stacks, floor alone");
    }
}
