//! A world that reuses its broad phase while asleep against the same world stepped with the
//! reuse forgotten before every step (the full pipeline), through sleep, wakes and edits.

use super::{Settings, World};
use crate::broadphase::BroadPhaseKind;
use crate::ccd::CcdMode;
use crate::dynamics::{Body, BodyKind, Material};
use crate::geometry::Shape;
use crate::math::{Pose, Vec3};
use crate::scene::Scene;

/// A walled pit with a rain of mixed shapes, a kinematic box resting in the pile and a kinematic
/// pusher outside the pit.
const PIT: &str = r#"(
    version: 1,
    settings: (sleep_time: 0.25),
    bodies: [
        (name: "floor", kind: Static, shape: Cuboid(half_extents: (6, 0.5, 6)), position: (0, -0.5, 0)),
        (name: "wall west", kind: Static, shape: Cuboid(half_extents: (0.2, 1, 2.4)), position: (-2.2, 1, 0)),
        (name: "wall east", kind: Static, shape: Cuboid(half_extents: (0.2, 1, 2.4)), position: (2.2, 1, 0)),
        (name: "wall north", kind: Static, shape: Cuboid(half_extents: (2, 1, 0.2)), position: (0, 1, -2.2)),
        (name: "wall south", kind: Static, shape: Cuboid(half_extents: (2, 1, 0.2)), position: (0, 1, 2.2)),
        (name: "rest", kind: Kinematic, shape: Cuboid(half_extents: (0.3, 0.3, 0.3)), position: (0, 0.3, 1.6)),
        (name: "pusher", kind: Kinematic, shape: Cuboid(half_extents: (0.2, 0.5, 1.5)), position: (4.5, 0.5, 0)),
    ],
    generators: [
        Rain(
            count: 40,
            seed: 7,
            min: (-1.8, 0.5, -1.8),
            max: (1.8, 4, 1.8),
            shapes: [
                Cuboid(half_extents: (0.25, 0.2, 0.3)),
                Capsule(half_height: 0.2, radius: 0.15),
                ConvexHull(points: [(0.3, 0, 0), (-0.26, 0.04, 0.08), (0, 0.28, 0), (0.04, -0.22, 0.04), (0, 0, 0.25), (0.08, 0.08, -0.3)]),
            ],
        ),
    ],
)"#;

const WALL: usize = 1;
const REST: usize = 5;
const PUSHER: usize = 6;
const FIRST_RAIN: usize = 7;

/// The pit; with `kinematic` false its two kinematic boxes are static, so that nothing at all
/// moves once the rain sleeps.
fn pit(kind: BroadPhaseKind, ccd: CcdMode, kinematic: bool) -> World {
    let text = if kinematic { PIT.to_string() } else { PIT.replace("kind: Kinematic", "kind: Static") };
    let mut world = Scene::parse(&text, "pit.ron").unwrap().build().unwrap();
    let mut settings = world.settings.clone();
    settings.broad_phase = kind;
    settings.ccd = ccd;
    world.set_settings(settings);
    world
}

/// Bit-level equality of what a step leaves behind.
fn assert_same(a: &World, b: &World, what: &str) {
    let at = format!("{what}, step {}", a.step_count());
    assert_eq!(a.hash(), b.hash(), "{at}: state hash");
    assert_eq!(a.snapshot(), b.snapshot(), "{at}: snapshot");
    assert_eq!(a.pairs(), b.pairs(), "{at}: pairs");
    assert_eq!(a.contacts(), b.contacts(), "{at}: contacts");
    let bits = |w: &World| -> Vec<[u32; 6]> {
        w.aabbs().iter().map(|x| [x.min.x, x.min.y, x.min.z, x.max.x, x.max.y, x.max.z].map(f32::to_bits)).collect()
    };
    assert_eq!(bits(a), bits(b), "{at}: aabbs");
    let (pa, pb) = (a.profile(), b.profile());
    let counters = |p: &super::StepProfile| {
        (p.bodies, p.awake_bodies, p.sleeping_bodies, p.pairs, p.narrow_tests, p.manifolds, p.contacts, p.toi_events)
    };
    assert_eq!(counters(pa), counters(pb), "{at}: counters");
    assert_eq!(pa.broad.true_overlaps, pb.broad.true_overlaps, "{at}: overlapping boxes");
}

/// The world under test and its reference, stepped and edited in lockstep.
struct Lockstep {
    world: World,
    reference: World,
    reused: usize,
    /// Steps that ran neither the solver nor the sleep update.
    still: usize,
    /// Steps of a world at rest, which ran no phase at all.
    at_rest: usize,
}

impl Lockstep {
    fn new(kind: BroadPhaseKind, ccd: CcdMode, kinematic: bool) -> Self {
        let (world, reference) = (pit(kind, ccd, kinematic), pit(kind, ccd, kinematic));
        Lockstep { world, reference, reused: 0, still: 0, at_rest: 0 }
    }

    fn step(&mut self, what: &str) {
        self.at_rest += self.world.idle.at_rest(&self.world.settings) as usize;
        self.world.step();
        self.reference.idle.forget();
        self.reference.step();
        assert!(!self.reference.profile().broad_phase_reused, "{what}: the reference must run the broad phase");
        let p = self.world.profile();
        self.reused += p.broad_phase_reused as usize;
        self.still += (p.broad_phase_reused && p.solve_ms == 0.0 && p.integrate_ms == 0.0) as usize;
        assert_same(&self.world, &self.reference, what);
    }

    /// The same edit on both worlds.
    fn edit(&mut self, f: impl Fn(&mut World)) {
        f(&mut self.world);
        f(&mut self.reference);
    }

    /// Steps until every dynamic body sleeps, then `idle` steps more.
    fn settle(&mut self, what: &str, idle: usize) {
        let mut steps = 0;
        while !super::idle::quiet(self.world.bodies()) {
            self.step(what);
            steps += 1;
            if steps == 1500 {
                let awake: Vec<usize> =
                    (0..self.world.bodies().len()).filter(|&i| !self.world.bodies()[i].is_asleep()).collect();
                panic!("{what}: the pit never fell asleep; awake: {awake:?}");
            }
        }
        for _ in 0..idle {
            self.step(what);
        }
    }
}

/// Sleep, then every kind of wake and edit the app makes, for one broad phase and CCD mode.
fn reuse_matches_the_full_pipeline(kind: BroadPhaseKind, ccd: CcdMode, kinematic: bool) -> Lockstep {
    let what = |s: &str| format!("{} / {} / kinematic {kinematic}: {s}", kind.label(), ccd.cli_name());
    let mut l = Lockstep::new(kind, ccd, kinematic);
    l.settle(&what("first sleep"), 20);
    // The first quiet step runs the broad phase and keeps it; the others reuse it.
    assert!(l.reused >= 19, "{}: only {} steps reused the broad phase", what("first sleep"), l.reused);

    // A push (what a drag or a recorded velocity action does) wakes the pile at once.
    l.edit(|w| w.body_mut(FIRST_RAIN + 5).linvel = Vec3::new(3.0, 1.0, 0.0));
    l.step(&what("push"));
    assert!(!l.world.profile().broad_phase_reused, "{}", what("a push must rerun the broad phase"));
    l.settle(&what("after the push"), 10);

    // Teleporting a static body wakes nobody but moves its box.
    l.edit(|w| w.body_mut(WALL).pose.translation.x -= 0.05);
    l.step(&what("wall moved"));
    assert!(!l.world.profile().broad_phase_reused, "{}", what("a moved wall must rerun the broad phase"));
    l.settle(&what("after the wall moved"), 10);

    // A kinematic body moving into the sleeping pile: the dynamic bodies sleep, yet its box
    // changes every step, and it wakes the pile when it arrives.
    l.edit(|w| w.body_mut(PUSHER).linvel = Vec3::new(-2.0, 0.0, 0.0));
    for _ in 0..100 {
        l.step(&what("pusher moving"));
    }
    l.edit(|w| w.body_mut(PUSHER).linvel = Vec3::ZERO);
    l.settle(&what("pusher stopped"), 10);

    // Settings edited on the field, not through set_settings: nobody wakes, the boxes change.
    let before = l.reused;
    l.edit(|w| w.settings.speculative_distance *= 2.0);
    l.step(&what("margin changed"));
    assert_eq!(l.reused, before, "{}", what("a new margin must rerun the broad phase"));
    l.edit(|w| w.settings.grid_cell_size *= 0.7);
    l.step(&what("cell size changed"));
    assert_eq!(l.reused, before, "{}", what("a new cell size must rerun the broad phase"));
    l.settle(&what("after the settings"), 10);

    // A bullet shot into the pile.
    l.edit(|w| {
        let mut shot = Body::new(
            BodyKind::Dynamic,
            Shape::cuboid(Vec3::splat(0.1)),
            Pose::from_translation(Vec3::new(0.3, 6.0, 0.2)),
            Material::default(),
        )
        .with_velocity(Vec3::new(0.0, -60.0, 0.0), Vec3::ZERO);
        shot.bullet = true;
        w.add_body(shot);
    });
    l.step(&what("shot"));
    assert!(!l.world.profile().broad_phase_reused, "{}", what("a new body must rerun the broad phase"));
    l.settle(&what("after the shot"), 10);
    l
}

#[test]
fn reuse_matches_the_full_pipeline_for_every_broad_phase() {
    for &kind in BroadPhaseKind::ALL {
        let l = reuse_matches_the_full_pipeline(kind, CcdMode::Off, true);
        assert_eq!(l.still, 0, "{}: kinematic bodies always run the solver", kind.label());
        assert_eq!(l.at_rest, 0, "{}: a world with kinematic bodies is never at rest", kind.label());
    }
}

/// With no kinematic body a sleeping world with no contact skips the solver and the sleep
/// update too: the same state as the full pipeline all the same.
#[test]
fn reuse_matches_the_full_pipeline_with_nothing_kinematic() {
    for kind in [BroadPhaseKind::BruteForce, BroadPhaseKind::Grid] {
        let l = reuse_matches_the_full_pipeline(kind, CcdMode::Off, false);
        assert!(l.still >= 19, "{}: only {} steps skipped the solver", kind.label(), l.still);
        assert!(l.at_rest >= 18, "{}: only {} steps of the world at rest skipped every phase", kind.label(), l.at_rest);
    }
}

#[test]
fn reuse_matches_the_full_pipeline_with_ccd() {
    reuse_matches_the_full_pipeline(BroadPhaseKind::Bvh, CcdMode::Speculative, true);
    for ccd in [CcdMode::Speculative, CcdMode::Toi] {
        let l = reuse_matches_the_full_pipeline(BroadPhaseKind::Grid, ccd, false);
        assert!(l.at_rest >= 18, "{ccd:?}: only {} steps of the world at rest skipped every phase", l.at_rest);
    }
}

/// A kinematic box creeping too slowly to change its box's bits keeps the island it touches
/// awake, even with no sleep delay (an island with a moving kinematic member never rests): no
/// step may reuse the boxes taken while its neighbours slept, and every step matches the
/// reference that never reuses.
#[test]
fn a_creeping_kinematic_keeps_its_neighbours_awake_with_no_sleep_delay() {
    let mut l = Lockstep::new(BroadPhaseKind::SweepAndPrune, CcdMode::Off, true);
    l.settle("first sleep", 0);
    l.edit(|w| {
        let settings = Settings { sleep_time: 0.0, ..w.settings.clone() };
        w.set_settings(settings);
    });
    l.settle("no sleep delay", 5);
    l.edit(|w| w.body_mut(REST).linvel = Vec3::new(0.0, 0.0, 1e-9));
    for step in 0..60 {
        l.step("creeping");
        let p = l.world.profile();
        assert!(p.awake_bodies > 0 && !p.broad_phase_reused, "step {step}: {p:?}");
    }
}

#[test]
fn a_sleeping_world_does_not_run_the_broad_phase() {
    let mut world = pit(BroadPhaseKind::BruteForce, CcdMode::Off, true);
    let n = world.bodies().len() as u64;
    let all_pairs = n * (n - 1) / 2;
    let mut steps = 0;
    while !super::idle::quiet(world.bodies()) {
        world.step();
        steps += 1;
        assert!(steps < 1500, "the pit never fell asleep");
    }
    // The first quiet step runs it (the boxes of the step before were taken before bodies moved).
    world.step();
    let full = *world.profile();
    assert!(!full.broad_phase_reused);
    assert_eq!(full.broad.aabb_tests, all_pairs, "brute force tests every pair");
    for _ in 0..5 {
        world.step();
        let p = world.profile();
        assert!(p.broad_phase_reused);
        assert_eq!(p.broad.aabb_tests, 0, "no box was tested");
        assert_eq!((p.broad.update_ms, p.broad.pairs_ms), (0.0, 0.0));
        // The pairs that exist are still counted; the world's filter keeps only the resting
        // kinematic box's pairs with its sleeping neighbours.
        assert_eq!(p.broad.true_overlaps, full.broad.true_overlaps);
        assert!(p.broad.true_overlaps > 40, "a pile overlaps: {}", p.broad.true_overlaps);
        assert_eq!((p.pairs, p.narrow_tests), (full.pairs, full.pairs));
        assert!(p.pairs > 0, "the resting kinematic box touches the pile");
        assert_eq!(p.sleeping_bodies, 40);
    }
    // A wake brings the full pipeline back at the very next step.
    world.body_mut(FIRST_RAIN).angvel = Vec3::new(0.0, 2.0, 0.0);
    world.step();
    let p = world.profile();
    assert!(!p.broad_phase_reused);
    assert_eq!(p.broad.aabb_tests, all_pairs);
    assert!(p.awake_bodies > 0);
}

/// The scene twice: with the default broad phase, keeping all it can, and with sweep and prune,
/// to be stepped with nothing kept ([`step_lockstep`]).
fn kept_and_unkept(scene: &str) -> (World, World) {
    let build = |kind: BroadPhaseKind| {
        let mut w = Scene::parse(scene, "lockstep.ron").unwrap().build().unwrap();
        let mut settings = w.settings.clone();
        settings.broad_phase = kind;
        w.set_settings(settings);
        w
    };
    (build(BroadPhaseKind::Auto), build(BroadPhaseKind::SweepAndPrune))
}

/// Steps both worlds, the reference with nothing kept, and checks that they agree bit for bit:
/// the settings differ in the broad phase alone.
fn step_lockstep(world: &mut World, reference: &mut World, step: usize) {
    world.step();
    reference.idle.forget();
    reference.step();
    assert_eq!(world.hash(), reference.hash(), "step {step}: state hash");
    assert!(world.pairs() == reference.pairs(), "step {step}: pairs");
    assert!(world.contacts() == reference.contacts(), "step {step}: contacts");
    assert!(world.aabbs() == reference.aabbs(), "step {step}: boxes");
    let (p, q) = (world.profile(), reference.profile());
    assert_eq!((p.sleeping_bodies, p.awake_bodies), (q.sleeping_bodies, q.awake_bodies), "step {step}: counts");
}

/// A ball rolling up to a pile asleep and into it: while it rolls, the default broad phase keeps
/// its structure and tests the ball's box alone, and the bodies that stay still keep their boxes
/// and their solver entries; the ball then wakes the cubes it strikes. Every step is the step
/// of a world with sweep and prune and nothing kept, bit for bit.
#[test]
fn a_ball_rolling_past_a_sleeping_pile_steps_as_the_full_pipeline() {
    let scene = r#"(
        version: 1,
        bodies: [
            (name: "floor", kind: Static, shape: Cuboid(half_extents: (8, 0.5, 8)), position: (0, -0.5, 0)),
            (name: "roller", shape: Sphere(radius: 0.3), position: (-1.5, 0.3, -6), linear_velocity: (0, 0, 1)),
        ],
        generators: [
            Grid(counts: (4, 5, 4), shape: Cuboid(half_extents: (0.25, 0.25, 0.25)), origin: (-1.5, 0.25, -1.5), spacing: (1, 0.5, 1)),
        ],
    )"#;
    let (mut world, mut reference) = kept_and_unkept(scene);
    let n = world.bodies().len();
    let pile_asleep = |w: &World| w.bodies().iter().skip(2).all(|b| b.asleep);
    let (mut incremental, mut woke) = (0, false);
    for step in 0..500 {
        step_lockstep(&mut world, &mut reference, step);
        if pile_asleep(&world) {
            // While the ball rolls, only its box is made, and it alone is tested: against the
            // boxes the structure answers for it, not every box.
            let p = world.profile();
            let made = world.idle.unchanged().iter().filter(|&&u| !u).count();
            incremental += (!world.bodies()[1].asleep && made == 1 && p.broad.aabb_tests < n as u64) as usize;
        } else {
            woke |= incremental > 0;
        }
    }
    assert!(incremental > 150, "the pile slept and the structure was kept in {incremental} steps");
    assert!(woke, "the ball woke the pile");
}

/// A world mostly asleep with what the movers' passes must treat with care: a jointed pair
/// asleep on the floor, a block asleep on a kinematic platform that stands still (it keeps the
/// block's island without waking it), and two balls, one rolling into the pile and one into
/// the jointed pair, waking them. Every step is the step of a world with sweep and prune and
/// nothing kept, bit for bit; the steps with few movers are counted.
#[test]
fn a_mostly_asleep_world_with_joints_and_a_kinematic_platform_steps_as_the_full_pipeline() {
    let scene = r#"(
        version: 1,
        bodies: [
            (name: "floor", kind: Static, shape: Cuboid(half_extents: (8, 0.5, 8)), position: (0, -0.5, 0)),
            (name: "roller", shape: Sphere(radius: 0.3), position: (-1.5, 0.3, -6), linear_velocity: (0, 0, 1)),
            (name: "late roller", shape: Sphere(radius: 0.3), position: (5, 0.3, -7.5), linear_velocity: (0, 0, 1)),
            (name: "platform", kind: Kinematic, shape: Cuboid(half_extents: (0.5, 0.1, 0.5)), position: (-5, 1, 5)),
            (name: "on platform", shape: Cuboid(half_extents: (0.2, 0.2, 0.2)), position: (-5, 1.3, 5)),
            (name: "link a", shape: Cuboid(half_extents: (0.3, 0.1, 0.1)), position: (4.7, 0.1, 0)),
            (name: "link b", shape: Cuboid(half_extents: (0.3, 0.1, 0.1)), position: (5.3, 0.1, 0)),
        ],
        joints: [
            (name: "pin", kind: Hinge(), a: "link a", b: "link b", anchor_a: (0.3, 0, 0), axis_a: (0, 0, 1)),
        ],
        generators: [
            Grid(counts: (4, 5, 4), shape: Cuboid(half_extents: (0.25, 0.25, 0.25)), origin: (-1.5, 0.25, -1.5), spacing: (1, 0.5, 1)),
        ],
    )"#;
    let (mut world, mut reference) = kept_and_unkept(scene);
    let n = world.bodies().len();
    let (mut few, mut slept, mut woke, mut block_asleep) = (0, [false; 2], [false; 2], true);
    for step in 0..900 {
        step_lockstep(&mut world, &mut reference, step);
        let made = world.idle.unchanged().iter().filter(|&&u| !u).count();
        few += (world.idle.unchanged().len() == n && made * 8 < n) as usize;
        // The pair (bodies 5 and 6) and the pile (from body 7) each asleep, then woken.
        let b = world.bodies();
        for (k, first) in [(0, 5), (1, 7)] {
            slept[k] |= b[first].asleep;
            woke[k] |= slept[k] && !b[first].asleep;
        }
        block_asleep &= step < 60 || b[4].asleep;
    }
    assert!(few > 300, "the world was mostly asleep in {few} steps");
    assert_eq!(woke, [true, true], "the balls woke the jointed pair and the pile");
    assert!(block_asleep, "the block on the still platform slept on");
}
