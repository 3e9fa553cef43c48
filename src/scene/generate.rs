//! Expands generators into bodies.

use super::schema::{BodyDesc, Generator, Rotation, ShapeDesc};
use crate::dynamics::BodyKind;
use crate::geometry::Aabb;
use crate::math::{Real, Vec3};
use crate::rng::SplitMix64;
use crate::rules;

/// Most bodies a scene may make, so that a typo cannot exhaust memory.
pub const MAX_BODIES: u64 = 1_000_000;

/// How many bodies a generator makes: exact for any counts (three `u32` factors fit in `u128`).
pub(super) fn count(g: &Generator) -> u128 {
    match g {
        Generator::Pyramid { base, .. } => (*base as u128) * (*base as u128 + 1) / 2,
        Generator::Grid { counts, .. } => counts.0 as u128 * counts.1 as u128 * counts.2 as u128,
        Generator::Rain { count, .. } => *count as u128,
        Generator::Chain { links, end_radius, .. } => super::joints::chain_count(*links, *end_radius),
        Generator::Ragdoll { .. } => super::joints::RAGDOLL_BODIES,
    }
}

/// What [`validate`] refuses in a generator; [`GeneratorError::field`] names the field.
#[derive(Debug, thiserror::Error)]
pub(super) enum GeneratorError {
    #[error("every component of min must be at most the same one of max")]
    MinAboveMax,
    #[error("rain needs at least one shape")]
    NoShapes,
    #[error(
        "{count} bodies need about {need:.3} m³ of bounding spheres but the box holds {have:.3} m³; at most a quarter of it can be filled clear of overlaps: enlarge the box, lower the count or turn separated off"
    )]
    Crowded { count: u32, need: f64, have: f64 },
    #[error("the farthest body would be at {error}")]
    OutOfRange { field: &'static str, error: rules::ValueError },
    #[error("the direction {0} has no length")]
    NoDirection(Vec3),
    #[error(
        "its body {body} (the scene's body {index}) found no place clear of the bodies already placed in {SEPARATED_TRIES} tries (the clearest overlaps by {overlap:.3} m, more than a tenth of its bounding radius): the box lies mostly inside other bodies or is too full; enlarge or move the box, or turn separated off"
    )]
    NoClearPlace { body: u32, index: usize, overlap: Real },
}

impl GeneratorError {
    /// The generator's field at fault.
    pub(super) fn field(&self) -> &'static str {
        match self {
            GeneratorError::MinAboveMax => "min",
            GeneratorError::NoShapes => "shapes",
            GeneratorError::Crowded { .. } => "separated",
            GeneratorError::OutOfRange { field, .. } => field,
            GeneratorError::NoDirection(_) => "direction",
            GeneratorError::NoClearPlace { .. } => "separated",
        }
    }
}

/// Checks what parsing cannot: the rain's box and shape list, and that every generated body
/// lies within the coordinate range.
pub(super) fn validate(g: &Generator) -> Result<(), GeneratorError> {
    let within = |field: &'static str, far: Vec3| {
        rules::coordinate_vec3(far).map_err(|error| GeneratorError::OutOfRange { field, error })
    };
    match g {
        Generator::Rain { min, max, shapes, count, separated, .. } => {
            if !min.cmple(*max).all() {
                return Err(GeneratorError::MinAboveMax);
            }
            if shapes.is_empty() {
                return Err(GeneratorError::NoShapes);
            }
            if *separated {
                // Random placement stalls as the spheres fill about a third of the space.
                let radii: Vec<Real> = shapes.iter().map(bounding_radius).collect();
                let r_max = radii.iter().copied().fold(0.0, Real::max);
                let mean_volume =
                    radii.iter().map(|r| 4.0 / 3.0 * std::f64::consts::PI * (*r as f64).powi(3)).sum::<f64>()
                        / radii.len() as f64;
                let room = (*max - *min + Vec3::splat(2.0 * r_max)).as_dvec3();
                let (need, have) = (*count as f64 * mean_volume, room.x * room.y * room.z);
                if need > SEPARATED_FILL * have {
                    return Err(GeneratorError::Crowded { count: *count, need, have });
                }
            }
        }
        Generator::Grid { counts, origin, spacing, .. } => {
            let last = Vec3::new(counts.0 as Real, counts.1 as Real, counts.2 as Real) - Vec3::ONE;
            within("spacing", *origin + *spacing * last.max(Vec3::ZERO))?;
        }
        Generator::Pyramid { base, half_extent, origin, gap, .. } => {
            let (n, h) = (*base as Real, *half_extent);
            let half_width = (n - 1.0).max(0.0) * (2.0 * h + gap) * 0.5 + h;
            within("base", *origin + Vec3::new(half_width, 2.0 * h * n, 0.0))?;
            within("base", *origin - Vec3::new(half_width, 0.0, 0.0))?;
        }
        Generator::Chain { links, origin, direction, link_length, end_radius, .. } => {
            if !direction.is_finite() || direction.length() < 1e-6 {
                return Err(GeneratorError::NoDirection(*direction));
            }
            let far = *links as Real * link_length + 2.0 * end_radius;
            within("links", *origin + direction.normalize() * far)?;
        }
        Generator::Ragdoll { origin, scale, .. } => within("scale", *origin + Vec3::splat(2.0 * scale))?,
    }
    Ok(())
}

/// Most of a rain's box that `separated` may fill with bounding spheres.
const SEPARATED_FILL: f64 = 0.25;
/// Places tried for one body of a separated rain.
const SEPARATED_TRIES: usize = 10_000;
/// In a box too full to clear every body, the share of its bounding radius by which the
/// clearest place tried may overlap another's bounding sphere (the shapes themselves rarely
/// touch then); deeper, the box is blocked and the scene is refused.
const SEPARATED_GRAZE: Real = 0.1;

/// The radius of a sphere about the shape's origin as the scene file describes it (where a
/// generator places the body) that holds it at any rotation. A hull or compound is re-centred
/// on its centre of mass, which the body's rotation swings about that origin: its bounding
/// radius about the centre plus the centre's distance (a chair's centre sits 0.64 m from the
/// origin it is drawn about: a sphere of the radius about the centre alone, put at the origin,
/// would let a rain place chairs 45 cm into a wall).
fn bounding_radius(s: &ShapeDesc) -> Real {
    match super::make_shape(s, &mut Default::default()) {
        Ok(shape) => shape.bounding_radius() + super::centre_offset(&shape).length(),
        // A cloud that builds no hull is reported elsewhere; any point is within the cloud's
        // diameter of wherever its centre would be.
        Err(_) => match s {
            ShapeDesc::ConvexHull { points, .. } => {
                let b = crate::geometry::Aabb::from_points(points.iter().copied());
                (b.max - b.min).length()
            }
            _ => 0.0,
        },
    }
}

/// The bounding spheres placed so far, hashed into cells of the largest diameter.
struct Clearance {
    cell: Real,
    spheres: std::collections::HashMap<[i32; 3], Vec<(Vec3, Real)>>,
}

impl Clearance {
    fn new(r_max: Real) -> Self {
        Clearance { cell: (2.0 * r_max).max(1e-3), spheres: Default::default() }
    }

    fn key(&self, p: Vec3) -> [i32; 3] {
        (p / self.cell).floor().as_ivec3().to_array()
    }

    /// How deep a sphere at `p` of radius `r` would overlap the deepest placed one (≤ 0: clear).
    fn overlap(&self, p: Vec3, r: Real) -> Real {
        let [x, y, z] = self.key(p);
        let mut worst = Real::NEG_INFINITY;
        for (dx, dy, dz) in (0..27).map(|i| (i % 3 - 1, i / 3 % 3 - 1, i / 9 - 1)) {
            for (q, s) in self.spheres.get(&[x + dx, y + dy, z + dz]).into_iter().flatten() {
                worst = worst.max(r + s - p.distance(*q));
            }
        }
        worst
    }

    fn add(&mut self, p: Vec3, r: Real) {
        let k = self.key(p);
        self.spheres.entry(k).or_default().push((p, r));
    }
}

/// The boxes of the bodies in `bodies` that are not meshes or height fields (whose box holds far
/// more than their surface: a rain over hills would find no room) and that overlap `region`,
/// as the built world places them.
fn boxes_in(bodies: &[BodyDesc], region: &Aabb) -> Vec<Aabb> {
    let mut hulls = Default::default();
    bodies
        .iter()
        .filter(|b| !super::is_mesh(&b.shape))
        .filter_map(|b| b.to_body(&mut hulls).ok())
        .map(|body| body.shape.aabb(&body.pose))
        .filter(|aabb| aabb.overlaps(region))
        .collect()
}

/// How deep a sphere at `p` of radius `r` would overlap the deepest of `boxes` (≤ 0: clear): a
/// centre inside a box is the radius plus its depth under the nearest face deep.
fn box_overlap(boxes: &[Aabb], p: Vec3, r: Real) -> Real {
    let depth = |b: &Aabb| {
        let outside = b.distance_to_point(p);
        let inside = (p - b.min).min(b.max - p).min_element().max(0.0);
        r - outside + inside
    };
    boxes.iter().map(depth).fold(Real::NEG_INFINITY, Real::max)
}

/// Appends the generator's bodies to `out`, and its joints (chain, ragdoll) to `joints`. A
/// separated rain puts a body that finds no clear place at the clearest it tried, and the first
/// such body is the error ([`Scene::validate`](super::Scene::validate) refuses the scene).
pub(super) fn expand(
    g: &Generator,
    out: &mut Vec<BodyDesc>,
    joints: &mut Vec<super::JointDesc>,
) -> Result<(), GeneratorError> {
    let mut uncleared = None;
    match g {
        Generator::Chain { links, origin, direction, link_length, radius, end_radius, end_mass_ratio, material } => {
            let c = super::joints::ChainParams {
                links: *links,
                origin: *origin,
                direction: *direction,
                link_length: *link_length,
                radius: *radius,
                end_radius: *end_radius,
                end_mass_ratio: *end_mass_ratio,
                material: *material,
            };
            let first = out.len() as u32;
            super::joints::chain(&c, first, out, joints);
        }
        Generator::Ragdoll { origin, scale, material } => {
            let first = out.len() as u32;
            super::joints::ragdoll(*origin, *scale, *material, first, out, joints);
        }
        Generator::Pyramid { base, half_extent, origin, gap, material } => {
            let (h, step) = (*half_extent, 2.0 * half_extent + gap);
            for row in 0..*base {
                let n = base - row;
                let y = origin.y + h + row as Real * 2.0 * h;
                let x0 = origin.x - (n as Real - 1.0) * step * 0.5;
                for i in 0..n {
                    let mut b = BodyDesc::new(
                        ShapeDesc::Cuboid { half_extents: Vec3::splat(h) },
                        Vec3::new(x0 + i as Real * step, y, origin.z),
                    );
                    b.material = *material;
                    out.push(b);
                }
            }
        }
        Generator::Grid { counts, shape, origin, spacing, rotation, kind, linear_velocity, material } => {
            for k in 0..counts.2 {
                for j in 0..counts.1 {
                    for i in 0..counts.0 {
                        let mut b = BodyDesc::new(
                            shape.clone(),
                            *origin + *spacing * Vec3::new(i as Real, j as Real, k as Real),
                        );
                        b.rotation = *rotation;
                        b.kind = *kind;
                        b.material = *material;
                        if *kind != BodyKind::Static {
                            b.linear_velocity = *linear_velocity;
                        }
                        out.push(b);
                    }
                }
            }
        }
        Generator::Rain { count, seed, min, max, shapes, random_rotation, linear_velocity, material, separated } => {
            let mut rng = SplitMix64::new(*seed);
            let radii: Vec<Real> = shapes.iter().map(bounding_radius).collect();
            let r_max = radii.iter().copied().fold(0.0, Real::max);
            let mut clear = Clearance::new(r_max);
            // The bodies already in the scene that reach into the rain's box, kept clear of too.
            let placed = if *separated { boxes_in(out, &Aabb::new(*min, *max).expanded(r_max)) } else { Vec::new() };
            for body in 0..*count {
                let k = (rng.next_u64() % shapes.len() as u64) as usize;
                let shape = shapes[k].clone();
                let mut draw = || Vec3::new(rng.range(min.x, max.x), rng.range(min.y, max.y), rng.range(min.z, max.z));
                let mut p = draw();
                if *separated {
                    // The first clear place, or after many tries the least overlapping one.
                    let overlap = |q: Vec3| clear.overlap(q, radii[k]).max(box_overlap(&placed, q, radii[k]));
                    let mut best = (overlap(p), p);
                    for _ in 0..SEPARATED_TRIES {
                        if best.0 <= 0.0 {
                            break;
                        }
                        let q = draw();
                        let o = overlap(q);
                        if o < best.0 {
                            best = (o, q);
                        }
                    }
                    if best.0 > SEPARATED_GRAZE * radii[k] && uncleared.is_none() {
                        uncleared = Some(GeneratorError::NoClearPlace { body, index: out.len(), overlap: best.0 });
                    }
                    p = best.1;
                    clear.add(p, radii[k]);
                }
                let mut b = BodyDesc::new(shape, p);
                if *random_rotation {
                    let q = rng.rotation();
                    b.rotation = Rotation::Quat(q.x, q.y, q.z, q.w);
                }
                b.linear_velocity = *linear_velocity;
                b.material = *material;
                out.push(b);
            }
        }
    }
    uncleared.map_or(Ok(()), Err)
}

#[cfg(test)]
mod tests {
    use crate::scene::{Scene, SceneError};

    fn rain(count: u32, max: &str, separated: bool) -> Result<Scene, SceneError> {
        let text = format!(
            "(version: 1, name: \"r\", description: \"\", generators: [Rain(count: {count}, seed: 3, min: (0, 0, 0), max: {max},
              shapes: [Sphere(radius: 0.3), Cuboid(half_extents: (0.5, 0.2, 0.3)), Capsule(half_height: 0.3, radius: 0.2)],
              separated: {separated})])"
        );
        Scene::parse(&text, "rain.ron")
    }

    /// A separated rain starts with no two bounding spheres overlapping (the same box without it
    /// has overlaps), and a box too small for its bodies is refused with the reason.
    #[test]
    fn a_separated_rain_starts_without_overlaps() {
        let overlaps = |scene: &Scene| {
            let w = scene.build().unwrap();
            let b = w.bodies();
            let mut n = 0;
            for i in 0..b.len() {
                for j in 0..i {
                    let reach = b[i].shape.bounding_radius() + b[j].shape.bounding_radius();
                    n += (b[i].pose.translation.distance(b[j].pose.translation) < reach) as usize;
                }
            }
            n
        };
        assert_eq!(overlaps(&rain(300, "(8, 8, 8)", true).unwrap()), 0);
        assert!(overlaps(&rain(300, "(8, 8, 8)", false).unwrap()) > 10);
        let e = rain(300, "(2, 2, 2)", true).unwrap_err().to_string();
        assert!(e.contains("generators[0].separated") && e.contains("enlarge the box"), "{e}");
    }

    /// A separated rain whose box lies inside a static block has no clear place: the scene is
    /// refused, naming the generator, the body and how deep it would start (it was built with
    /// every body in the block). Without `separated` it builds as drawn.
    #[test]
    fn a_separated_rain_with_no_clear_place_is_refused() {
        let scene = |separated: bool| {
            Scene::parse(
                &format!(
                    "(bodies: [(kind: Static, shape: Cuboid(half_extents: (1, 1, 1)))],
                      generators: [Rain(count: 3, seed: 1, min: (-0.5, -0.5, -0.5), max: (0.5, 0.5, 0.5),
                                        shapes: [Sphere(radius: 0.1)], separated: {separated})])"
                ),
                "inside.ron",
            )
        };
        let e = scene(true).unwrap_err().to_string();
        assert!(e.contains("inside.ron") && e.contains("generators[0].separated"), "{e}");
        assert!(e.contains("its body 0 (the scene's body 1)") && e.contains("no place clear"), "{e}");
        assert!(e.contains("overlaps by 0.6"), "the clearest place is 0.5 m in, plus the radius: {e}");
        assert_eq!(scene(false).unwrap().build().unwrap().bodies().len(), 4);
    }

    /// A separated rain keeps clear of the bodies already in the scene where they reach into its
    /// box (a ball placed by hand, a slab), but not of a floor far below it; without
    /// `separated` it does not look.
    #[test]
    fn a_separated_rain_keeps_clear_of_the_scene_s_bodies() {
        let scene = |separated: bool| {
            let text = format!(
                "(version: 1, name: \"r\", description: \"\",
                  bodies: [(name: \"floor\", kind: Static, shape: Cuboid(half_extents: (20, 0.5, 20)), position: (0, -0.5, 0)),
                           (name: \"ball\", shape: Sphere(radius: 1.5), position: (4, 4, 4)),
                           (name: \"slab\", kind: Static, shape: Cuboid(half_extents: (3, 0.2, 3)), position: (4, 1, 4), rotation: Euler(0, 0, 20))],
                  generators: [Rain(count: 300, seed: 2, min: (0, 0.5, 0), max: (8, 8, 8),
                    shapes: [Sphere(radius: 0.3), Cuboid(half_extents: (0.5, 0.2, 0.3))], separated: {separated})])"
            );
            Scene::parse(&text, "rain.ron").unwrap().build().unwrap()
        };
        let into = |w: &crate::World, k: usize| {
            let (fixed, b) = (&w.bodies()[k], w.bodies());
            let bx = fixed.shape.aabb(&fixed.pose);
            b[3..].iter().filter(|g| bx.distance_to_point(g.pose.translation) < g.shape.bounding_radius()).count()
        };
        let w = scene(true);
        assert_eq!((into(&w, 1), into(&w, 2)), (0, 0), "generated bodies inside the ball's or the slab's box");
        let w = scene(false);
        assert!(into(&w, 1) > 0 && into(&w, 2) > 0, "without separated the test scene puts bodies there");
    }

    /// Bodies re-centred on their centre of mass (a chair-like compound whose centre is 0.6 m
    /// from the origin it is drawn about, a hull drawn 1 m off its origin) start clear of each
    /// other and of a wall beside the rain's box, whatever rotation they draw: measured by the
    /// shapes' distance at the built poses, not by the rain's own spheres.
    #[test]
    fn a_separated_rain_of_off_centre_shapes_starts_clear() {
        let text = "(version: 1, name: \"r\", description: \"\",
          bodies: [(name: \"wall\", kind: Static, shape: Cuboid(half_extents: (0.2, 16, 6)), position: (6.2, 16, 3))],
          generators: [Rain(count: 25, seed: 5, min: (0, 1, 0), max: (5.9, 31, 5.9), separated: true, shapes: [
            Compound(children: [
              (shape: Cuboid(half_extents: (0.3, 0.04, 0.3)), position: (0, 0.5, 0)),
              (shape: Cuboid(half_extents: (0.3, 0.35, 0.03)), position: (0, 0.89, -0.27)),
              (shape: Cuboid(half_extents: (0.03, 0.23, 0.03)), position: (0.25, 0.23, 0.25))]),
            ConvexHull(points: [(1.3, 0, 0), (0.7, 0.05, 0.1), (1, 0.3, 0), (1, -0.3, 0), (1, 0, 0.3), (1.1, 0.1, -0.3)])])])";
        let w = Scene::parse(text, "rain.ron").unwrap().build().unwrap();
        let b = w.bodies();
        let mut touching = Vec::new();
        for i in 1..b.len() {
            for j in 0..i {
                let d = crate::narrowphase::distance(&b[i].shape, &b[i].pose, &b[j].shape, &b[j].pose).distance;
                if d <= 0.0 {
                    touching.push((j, i, d));
                }
            }
        }
        assert!(touching.is_empty(), "overlapping at the start (body, body, distance): {touching:?}");
    }
}
