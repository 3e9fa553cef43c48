//! Time of impact against meshes: fast shapes shot at a thin tessellated floor (a triangle mesh
//! of zero thickness, and a height field) at 10–1,000 m/s. The sweep's time against the first
//! overlap of a finely sampled motion, and whole shots in the `toi` mode (every shot a bullet,
//! so the sweep, not the speculative reach, stops it): no centre ever crosses the floor. Fixed
//! seeds; a failure prints the case.

use super::common::{KINDS, bullet, grid_mesh, rotation, settings, shape, slide_into_wall, world};
use collidoscope::ccd::{CcdMode, Motion, mesh_time_of_impact, toi_target};
use collidoscope::geometry::HeightField;
use collidoscope::math::{Pose, Real, Vec3};
use collidoscope::narrowphase::{MeshRef, Tolerance, contact_mesh_shape};
use collidoscope::{Body, BodyKind, Material, Settings, Shape};
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::sync::Arc;

/// Half the floor's width: it spans x and z in [-HALF, HALF].
const HALF: Real = 2.0;
/// Cells per side of the tessellated floor (two triangles each).
const CELLS: u32 = 16;

/// The floor at y = 0 as a triangle mesh facing +y, or as a height field with small waves
/// (under 1 mm, so the plane y = 0 still tells the sides apart).
fn floor(height_field: bool) -> Shape {
    let cell = 2.0 * HALF / CELLS as Real;
    if height_field {
        let n = CELLS as usize + 1;
        let h = (0..n * n).map(|k| 0.0008 * ((k * 7919 % 13) as Real / 13.0 - 0.5)).collect();
        return Shape::HeightField(Arc::new(HeightField::new(n, n, cell, h).unwrap()));
    }
    grid_mesh(HALF, CELLS, |x, z| Vec3::new(x, 0.0, z))
}

/// `CCD_CASES` raises the case count and `CCD_SEED` changes the seed for a longer hunt.
fn config(cases: u32) -> Config {
    crate::seeded::config(cases, 0x5eed_0019, Some("CCD_CASES"), Some("CCD_SEED"))
}

#[derive(Clone, Debug)]
struct Shot {
    kind: &'static str,
    size: Real,
    aspect: Real,
    speed: Real,
    /// Angle from the floor's normal, rad.
    tilt: Real,
    azimuth: Real,
    orientation: [Real; 3],
    spin: Vec3,
    /// Fraction of the first step at which the shot reaches the floor.
    lead: Real,
    height_field: bool,
}

fn shot() -> impl Strategy<Value = Shot> {
    (
        (0..KINDS.len(), 0.01f32..0.1, 0.0f32..1.0, 10.0f32..1000.0),
        (0.0f32..60f32.to_radians(), 0.0f32..std::f32::consts::TAU, [0.0f32..1.0, 0.0f32..1.0, 0.0f32..1.0]),
        (prop::array::uniform3(-1.0f32..1.0), 0.0f32..=100.0, 0.05f32..0.95, any::<bool>()),
    )
        .prop_map(
            |((kind, size, aspect, speed), (tilt, azimuth, orientation), (axis, rate, lead, height_field))| {
                let spin = Vec3::from(axis).normalize_or(Vec3::Y) * rate;
                Shot { kind: KINDS[kind], size, aspect, speed, tilt, azimuth, orientation, spin, lead, height_field }
            },
        )
}

impl Shot {
    /// The direction of flight: down, tilted from the normal.
    fn dir(&self) -> Vec3 {
        Vec3::new(self.tilt.sin() * self.azimuth.cos(), -self.tilt.cos(), self.tilt.sin() * self.azimuth.sin())
    }

    /// The shot as a bullet, clear of the floor and aimed at a point near its centre (off the
    /// grid's lines), reached at `lead` of the first step.
    fn body(&self, dt: Real) -> Body {
        let body_shape = shape(self.kind, self.size, self.aspect);
        let back = (body_shape.bounding_radius() + 0.002) / -self.dir().y + self.speed * dt * self.lead;
        let aim = Vec3::new(0.137, 0.0, -0.071);
        let pose = Pose::new(aim - self.dir() * back, rotation(self.orientation));
        bullet(body_shape, pose, self.dir() * self.speed, self.spin)
    }
}

/// Fires the shot for 12 steps: the y below zero at which the centre crossed the floor within
/// its span, or 0 if it never did.
fn fire(s: &Shot, mode: CcdMode) -> Real {
    let set = Settings { ccd: mode, ..settings(mode, false) };
    let mut b = s.body(set.dt);
    b.bullet = mode == CcdMode::Toi;
    let f = Body::new(BodyKind::Static, floor(s.height_field), Pose::IDENTITY, Material::default());
    let mut w = world(set, [f, b]);
    let mut before = w.bodies()[1].pose.translation;
    for _ in 0..12 {
        w.step();
        let now = w.bodies()[1].pose.translation;
        if before.y > 0.0 && now.y <= 0.0 {
            let at = before.lerp(now, before.y / (before.y - now.y));
            if at.x.abs() < HALF && at.z.abs() < HALF {
                return now.y.min(-Real::MIN_POSITIVE);
            }
        }
        before = now;
    }
    0.0
}

/// The first fraction of `sweep` at which the shape overlaps the floor, sampled at 1/4000 of
/// the sweep (every shot moves at most 17 m, 4 mm a sample): the sub-stepped reference.
fn first_overlap(body: &Shape, sweep: &Motion, floor: &Shape) -> Option<Real> {
    let mesh = MeshRef::of(floor).unwrap();
    let tol = Tolerance { margin: 0.0, epsilon: 1e-6 };
    (0..=4000).map(|k| k as Real / 4000.0).find(|&t| {
        contact_mesh_shape(mesh, &Pose::IDENTITY, body, &sweep.at(t), tol).is_some_and(|m| m.max_depth() >= 0.0)
    })
}

proptest! {
    #![proptest_config(config(150))]

    /// The sweep's time is never after the sampled first overlap and, at the time it reports,
    /// the shape is clear of the floor.
    #[test]
    fn mesh_toi_is_no_later_than_the_sampled_first_overlap(s in shot()) {
        let set = settings(CcdMode::Toi, false);
        let b = s.body(set.dt);
        let end = Pose::new(
            b.pose.translation + b.linvel * set.dt,
            (collidoscope::math::Quat::from_scaled_axis(b.angvel * set.dt) * b.pose.rotation).normalize(),
        );
        let sweep = Motion::new(b.pose, end);
        let f = floor(s.height_field);
        let reference = first_overlap(&b.shape, &sweep, &f);
        let hit = mesh_time_of_impact(&b.shape, &sweep, &f, &Motion::stationary(Pose::IDENTITY), toi_target(&set));
        prop_assert!(reference.is_some(), "the shot misses the floor: {s:?}");
        let (Some(r), Some(h)) = (reference, hit) else {
            return Err(TestCaseError::fail(format!("no impact found, first overlap at {reference:?}")));
        };
        prop_assert!(h.t <= r, "impact at {} after the first overlap at {r}", h.t);
        let tol = Tolerance { margin: 0.0, epsilon: 1e-6 };
        let at = contact_mesh_shape(MeshRef::of(&f).unwrap(), &Pose::IDENTITY, &b.shape, &sweep.at(h.t), tol);
        prop_assert!(at.is_none_or(|m| m.max_depth() < 1e-4), "overlapping at the impact: {at:?}");
    }

    #[test]
    fn toi_keeps_every_shot_above_a_mesh_floor(s in shot()) {
        let y = fire(&s, CcdMode::Toi);
        prop_assert!(y == 0.0, "went through: centre at y = {y}");
    }
}

/// Shots CCD off lets through, on both floors: the floor and speeds above are a real test.
#[test]
fn without_ccd_fast_shots_pass_through_a_mesh_floor() {
    for height_field in [false, true] {
        let s = Shot {
            kind: "cuboid",
            size: 0.05,
            aspect: 0.5,
            speed: 300.0,
            tilt: 0.3,
            azimuth: 1.0,
            orientation: [0.2, 0.4, 0.6],
            spin: Vec3::new(0.0, 50.0, 0.0),
            lead: 0.5,
            height_field,
        };
        assert!(fire(&s, CcdMode::Off) < -1.0, "{s:?}");
        assert_eq!(fire(&s, CcdMode::Toi), 0.0, "{s:?}");
    }
}

/// A body touching one face of a mesh while it closes fast on another face from another side
/// gets rows against both: a box sliding at 5–40 m/s along a mesh floor stops at the mesh wall
/// it meets (a crease: the floor and wall share an edge), with the default `Speculative`. The
/// pair keeps a manifold per direction its triangles push, and the wall's must exist before the
/// box arrives: when only an overlapping point could start one, the box went 5–6 cm into the
/// wall, and at 30 m/s through it (a mesh has no thickness).
#[test]
fn a_body_sliding_on_a_mesh_floor_stops_at_the_mesh_wall() {
    let v = vec![
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(-1.0, 0.0, 1.0),
        Vec3::new(1.0, 1.0, -1.0),
        Vec3::new(1.0, 1.0, 1.0),
    ];
    // The floor faces +y, the wall at x = 1 faces -x.
    let t = vec![[0, 3, 2], [0, 2, 1], [1, 5, 4], [1, 2, 5]];
    let u = Shape::TriangleMesh(Arc::new(collidoscope::geometry::TriangleMesh::new(v, t).unwrap()));
    for speed in [5.0, 10.0, 20.0, 30.0, 40.0] {
        let deepest = slide_into_wall(&u, 0.0, 1.0, speed);
        assert!(deepest < 0.01, "at {speed} m/s the box went {deepest} m into the mesh wall");
    }
}
