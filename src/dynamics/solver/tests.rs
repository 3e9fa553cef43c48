use super::*;
use crate::dynamics::Material;
use crate::geometry::Shape;
use crate::math::Pose;
use crate::scene::Scene;
use crate::settings::Settings;

/// Each contact's entry in `cache`, as the world finds them before the solver runs.
fn matched(contacts: &[Contact], cache: &WarmCache, settings: &Settings) -> Vec<u32> {
    let mut m = vec![u32::MAX; contacts.len()];
    if settings.warm_starting {
        crate::contacts::matching(contacts, cache, 0, &mut m);
    }
    m
}

/// One solver step as the world runs it, from these settings.
fn solve(
    solver: &mut Solver,
    (bodies, contacts): (&mut [Body], &[Contact]),
    settings: &Settings,
    cache: &mut WarmCache,
    rotations: &Rotations,
    crew: Option<&Crew>,
) -> SolverTimes {
    let m = matched(contacts, cache, settings);
    let (ctx, laps) = (StepContext::new(settings), &mut crate::timer::Laps::start());
    solver.step(bodies, (contacts, cache, &m), &ctx, rotations, crew, &mut Default::default(), laps, Default::default())
}

/// A pyramid a few steps into its fall, with its contacts and warm-start cache.
fn settled_pyramid() -> (Vec<Body>, Vec<Contact>, WarmCache, Settings) {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/pyramid.ron")).unwrap();
    let mut w = scene.build().unwrap();
    for _ in 0..20 {
        w.step();
    }
    let cache = w.contact_store().warm_cache().clone();
    (w.bodies().to_vec(), w.contacts().to_vec(), cache, w.settings.clone())
}

/// A solver of code path `isa` with `bodies` and `input`'s contacts prepared as a step prepares
/// them, rows built with `fall`: the solver, the recycled contacts, the cache (recycling writes
/// into its pool, so each caller's code path starts from the same cache) and the matches in it.
fn prepared(
    isa: Isa,
    bodies: &[Body],
    input: &[Contact],
    cache: &WarmCache,
    settings: &Settings,
    fall: Fall,
) -> (Solver, Vec<Contact>, WarmCache, Vec<u32>) {
    let mut solver = Solver::with_isa(isa);
    let mut rotations = Rotations::default();
    rotations.build(bodies, |_| true, None);
    solver.prepare_bodies(bodies, &rotations, &StepContext::new(settings), None, Still::default());
    let warm = matched(input, cache, settings);
    let mut cache = cache.clone();
    solver.assign_slots(&mut cache, &warm);
    let mut contacts = Vec::new();
    solver.recycle(bodies, input, &mut cache, &warm, &mut contacts, None);
    let impact_speed = StepContext::new(settings).impact_speed();
    solver.prepare_rows(isa, bodies, &contacts, (&cache, &warm), (fall, impact_speed), None);
    (solver, contacts, cache, warm)
}

fn bits(b: &Body) -> [u32; 13] {
    let (p, q) = (b.pose.translation, b.pose.rotation);
    [p.x, p.y, p.z, q.x, q.y, q.z, q.w, b.linvel.x, b.linvel.y, b.linvel.z, b.angvel.x, b.angvel.y, b.angvel.z]
        .map(f32::to_bits)
}

#[test]
fn portable_and_detected_code_paths_give_identical_bits() {
    let (bodies, contacts, cache, settings) = settled_pyramid();
    assert!(contacts.len() > 100);
    let mut results = Vec::new();
    for isa in [Isa::Portable, Isa::best()] {
        let (mut bodies, mut cache) = (bodies.clone(), cache.clone());
        let mut solver = Solver::with_isa(isa);
        for _ in 0..3 {
            let mut rotations = Rotations::default();
            rotations.build(&bodies, |_| true, None);
            solve(&mut solver, (&mut bodies, &contacts), &settings, &mut cache, &rotations, None);
        }
        results.push((bodies.iter().map(bits).collect::<Vec<_>>(), cache));
    }
    assert!(results[0].0 == results[1].0, "{:?} and {:?} disagree", Isa::Portable, Isa::best());
    assert_eq!(results[0].1, results[1].1);
}

#[test]
fn the_warm_start_cache_comes_out_sorted_with_one_entry_per_contact() {
    let (mut bodies, contacts, mut cache, settings) = settled_pyramid();
    let mut rotations = Rotations::default();
    rotations.build(&bodies, |_| true, None);
    solve(&mut Solver::default(), (&mut bodies, &contacts), &settings, &mut cache, &rotations, None);
    assert_eq!(cache.len(), contacts.len());
    assert!(cache.iter().zip(&contacts).all(|(e, c)| e.0 == (c.a, c.b)));
    assert!(cache.iter().any(|e| e.1[0].normal > 0.0));
}

/// A slab carrying 36 boxes has more contacts than there are colours: the rest overflow to
/// the one-by-one path, which must hold them up just the same.
#[test]
fn a_body_with_more_contacts_than_colours_still_carries_its_load() {
    let mut w = slab_with_boxes();
    let mut overflowed = 0;
    for _ in 0..120 {
        w.step();
        overflowed = overflowed.max(w.solver().overflow.len());
    }
    assert!(overflowed > 0, "the scene must exercise the overflow path");
    for b in &w.bodies()[2..] {
        let y = b.pose.translation.y;
        // Resting on the slab's top (0.5) with their centres 0.4 up, within a few mm.
        assert!((y - 0.9).abs() < 0.005, "a box sank or rose: y = {y}");
        assert!(b.linvel.length() < 0.05, "a box still moves: {}", b.linvel);
    }
}

/// The solver on a pool of 2 or 4 threads gives the bits of the serial path, bodies and
/// warm-start cache, on a pyramid whose contacts rest, slide, spin and bounce.
#[test]
fn steps_on_a_pool_give_the_serial_bits() {
    let (mut bodies, contacts, cache, settings) = settled_pyramid();
    for (i, b) in bodies.iter_mut().enumerate().filter(|(_, b)| b.is_dynamic()) {
        b.material.restitution = if i % 2 == 0 { 0.6 } else { 0.0 };
        b.linvel += Vec3::new(0.3, -2.5, -0.2) * (i % 4) as f32;
        b.angvel += Vec3::new(-0.5, 0.2, 0.7) * (i % 5) as f32;
    }
    let mut results = Vec::new();
    for threads in [1, 2, 4] {
        let threads = crate::parallel::Threads::new(threads);
        let (mut bodies, mut cache) = (bodies.clone(), cache.clone());
        let mut solver = Solver::default();
        for _ in 0..3 {
            let mut rotations = Rotations::default();
            rotations.build(&bodies, |_| true, None);
            solve(&mut solver, (&mut bodies, &contacts), &settings, &mut cache, &rotations, threads.crew().as_ref());
        }
        assert!(solver.any_bounce, "the restitution pass must run");
        results.push((bodies.iter().map(bits).collect::<Vec<_>>(), cache));
    }
    for (n, r) in [2, 4].iter().zip(&results[1..]) {
        assert!(r.0 == results[0].0, "bodies differ on {n} threads");
        assert!(r.1 == results[0].1, "warm-start caches differ on {n} threads");
    }
}

/// The overflow runs on one thread between the colours' passes: the same bits as serial.
#[test]
fn the_overflow_on_a_pool_gives_the_serial_bits() {
    let run = |threads: usize| {
        let mut w = slab_with_boxes();
        w.set_threads(threads);
        let mut hashes = Vec::new();
        let mut overflowed = 0;
        for _ in 0..40 {
            w.step();
            hashes.push(w.hash());
            overflowed = overflowed.max(w.solver().overflow.len());
        }
        assert!(overflowed > 0, "the scene must exercise the overflow path");
        hashes
    };
    let serial = run(1);
    assert_eq!(run(2), serial, "2 threads");
    assert_eq!(run(3), serial, "3 threads");
}

/// A floor, a slab on it and 36 boxes on the slab: more contacts on the slab than colours.
fn slab_with_boxes() -> crate::world::World {
    let mut w = crate::world::World::new(Settings::default());
    let floor = Shape::cuboid(Vec3::new(10.0, 0.5, 10.0));
    w.add_body(Body::new(
        BodyKind::Static,
        floor,
        Pose::from_translation(Vec3::new(0.0, -0.5, 0.0)),
        Material::default(),
    ));
    let slab = Shape::cuboid(Vec3::new(3.5, 0.25, 3.5));
    w.add_body(Body::new(
        BodyKind::Dynamic,
        slab,
        Pose::from_translation(Vec3::new(0.0, 0.25, 0.0)),
        Material::default(),
    ));
    for i in 0..6 {
        for k in 0..6 {
            let at = Vec3::new(i as f32 * 1.1 - 2.75, 0.9, k as f32 * 1.1 - 2.75);
            let cube = Shape::cuboid(Vec3::splat(0.4));
            w.add_body(Body::new(BodyKind::Dynamic, cube, Pose::from_translation(at), Material::default()));
        }
    }
    w
}

/// Rows built eight at a time (`build.rs`) have the bits of the one-manifold builder
/// (`prepare::manifold_rows` put in a lane by `Bundle::set`), on manifolds of every size
/// (including empty), slipping and resting pairs, bouncy and not, against the static floor and
/// between moving bodies, matched and unmatched warm starts, and part empty bundles.
#[test]
fn bundles_built_eight_at_a_time_match_the_one_by_one_rows_bit_for_bit() {
    let (mut bodies, contacts, cache, settings) = settled_pyramid();
    for (i, b) in bodies.iter_mut().enumerate().filter(|(i, _)| i % 3 == 0) {
        b.linvel += Vec3::new(0.3, -0.1, -0.2) * (i % 7) as f32;
        b.angvel += Vec3::new(-0.5, 0.2, 0.7) * (i % 5) as f32;
    }
    // Pairs of every mix of restitutions (the larger one is the pair's).
    for (i, b) in bodies.iter_mut().enumerate() {
        b.material.restitution = [0.0, 0.3, 0.7, 0.3][i % 4];
    }
    let contacts_in: Vec<Contact> = contacts
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let mut m = crate::narrowphase::Manifold::new(c.manifold.normal);
            for p in c.manifold.points().iter().skip(j % 3 / 2).take(j % 5) {
                m.push(*p);
            }
            Contact { manifold: m, ..*c }
        })
        .collect();
    assert!(contacts_in.iter().any(|c| c.manifold.is_empty()) && contacts_in.iter().any(|c| c.manifold.len() == 4));
    for isa in [Isa::Portable, Isa::best()] {
        // Gravity off every axis, so that each lane's impact speed sums all three terms.
        let fall = Fall { gravity: Vec3::new(0.7, -9.81, 0.4), dt: settings.dt };
        let (solver, contacts, cache, warm) = prepared(isa, &bodies, &contacts_in, &cache, &settings, fall);
        assert!(warm.iter().any(|&w| w != u32::MAX), "some contacts must be warm-started");
        let dummy = bodies.len() as u32;
        let (mut partial, mut alone) = (0, 0);
        for (k, lanes) in solver.lanes.iter().enumerate() {
            let (mut expect, mut bounce) = (wide::Bundle::default(), wide::Bounce::default());
            // An empty lane's rows hold nothing the passes read back: compared as zero rows.
            let (mut built, mut built_bounce) = (solver.bundles[k], solver.bounces[k]);
            let width = lanes.contact.iter().take_while(|&&m| m != u32::MAX).count();
            alone += (width == 1) as usize;
            for i in 0..W {
                let m = lanes.contact[i];
                if m == u32::MAX {
                    partial += 1;
                    assert!(i >= width, "{isa:?}: bundle {k}: lanes in use come first");
                    expect.set_zero(i, dummy, &mut bounce);
                    built.set_zero(i, dummy, &mut built_bounce);
                    continue;
                }
                let (a, b) = (contacts[m as usize].a as usize, contacts[m as usize].b as usize);
                let mut info = [PointInfo::default(); MAX_MANIFOLD_POINTS];
                let rows =
                    solver.manifold_rows(&contacts, m as usize, cache.impulses(warm[m as usize]), fall, &mut info);
                expect.set(i, &rows, &info, [solver.responds[a], solver.responds[b]], &mut bounce);
                assert_eq!(lanes.len[i] as u32, rows.len);
                assert_eq!(lanes.ids[i][..rows.len as usize], info.map(|p| p.id)[..rows.len as usize]);
            }
            expect.finish(width);
            assert_eq!(format!("{built:?}"), format!("{expect:?}"), "{isa:?}: bundle {k}");
            assert_eq!(format!("{built_bounce:?}"), format!("{bounce:?}"), "{isa:?}: bundle {k}");
        }
        assert!(partial > 0, "some bundles must have empty lanes");
        assert!(alone > 0, "some bundles must hold one manifold (built on one lane alone)");
    }
}

/// A point whose feature id changed keeps its warm start by position; a new id far from every
/// cached point, or near one whose id another point still has, does not.
#[test]
fn warm_start_matches_a_point_whose_id_changed_by_position() {
    use crate::narrowphase::ContactPoint;
    let at = |x: f32, z: f32| Vec3::new(x, 0.0, z);
    let cached_pt = |id: u32, normal: f32, p: Vec3| CachedImpulse { id, normal, point: p, ..Default::default() };
    let cached = [
        cached_pt(32, 1.0, at(0.2, 0.2)),
        cached_pt(33, 2.0, at(0.2, -0.2)),
        cached_pt(34, 3.0, at(-0.2, -0.2)),
        cached_pt(35, 4.0, at(-0.2, 0.2)),
    ];
    let cp = |id: u32, p: Vec3| ContactPoint { point: p, depth: 0.0, id };
    // Two ids changed (33 and 34), the points moved 0.1 mm.
    let pts = [cp(32, at(0.2, 0.2)), cp(7, at(0.2001, -0.2)), cp(9, at(-0.2, -0.2001)), cp(35, at(-0.2, 0.2))];
    let found: Vec<_> = (0..4).map(|k| prepare::find_point(&cached, k, &pts, &pts[k]).map(|c| c.normal)).collect();
    assert_eq!(found, [Some(1.0), Some(2.0), Some(3.0), Some(4.0)]);
    // A new id 3 cm from any cached point: no match.
    let far = [cp(32, at(0.2, 0.2)), cp(7, at(0.23, -0.2))];
    assert_eq!(prepare::find_point(&cached, 1, &far, &far[1]), None);
    // A new id next to the cached point of an id the manifold still has: no match.
    let taken = [cp(32, at(-0.2, -0.2)), cp(7, at(0.2, 0.1995))];
    assert_eq!(prepare::find_point(&cached, 1, &taken, &taken[1]).map(|c| c.id), None);
}

/// The kept contacts' pool: while pairs come and go (balls bouncing on boxes), every entry
/// names its own slot, the pool holds no more slots than the most contacts of any step, and
/// the cache equals one built afresh from its entries and their kept contacts.
#[test]
fn kept_contacts_stay_in_their_slots_and_the_pool_does_not_grow() {
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/restitution.ron")).unwrap();
    let mut w = scene.build().unwrap();
    let (mut most, mut changes, mut kept_slots) = (0, 0, 0);
    let mut last: Vec<(u32, u32)> = Vec::new();
    for _ in 0..240 {
        let before: std::collections::HashMap<(u32, u32), u32> = w
            .contact_store()
            .warm_cache()
            .iter()
            .map(|e| e.0)
            .zip(w.contact_store().warm_cache().slots.iter().copied())
            .collect();
        w.step();
        let cache = w.contact_store().warm_cache();
        most = most.max(cache.len());
        let pairs: Vec<(u32, u32)> = cache.iter().map(|e| e.0).collect();
        changes += usize::from(pairs != last);
        last = pairs;
        let mut seen = vec![false; cache.pool.len()];
        for (e, &s) in cache.iter().zip(&cache.slots) {
            assert!(!std::mem::replace(&mut seen[s as usize], true), "slot {s} named twice");
            // A pair that had an entry keeps its slot.
            if let Some(&was) = before.get(&e.0) {
                assert_eq!(was, s, "pair {:?} moved from slot {was} to {s}", e.0);
                kept_slots += 1;
            }
        }
        assert!(cache.pool.len() <= most, "pool of {} slots, at most {most} contacts", cache.pool.len());
        let fresh = WarmCache::new(cache.to_vec(), cache.kept().copied().collect());
        assert!(*cache == fresh, "the cache differs from one built from its entries");
    }
    assert!(changes > 10 && kept_slots > 100, "{changes} steps changed the pairs, {kept_slots} kept slots");
}

/// The stop on bundles (`wide::stop`) and on one-by-one rows (`rows::stop`, the overflow's) give
/// the same bits, on a pyramid whose bodies are thrown down into the floor and each other; and
/// it only ever pushes.
#[test]
fn the_stop_on_bundles_matches_the_one_by_one_rows_bit_for_bit() {
    let (mut bodies, contacts, cache, settings) = settled_pyramid();
    for (i, b) in bodies.iter_mut().enumerate().filter(|(_, b)| b.is_dynamic()) {
        b.linvel += Vec3::new(0.4, -3.0, -0.3) * (i % 3) as f32;
        b.angvel += Vec3::new(-2.0, 0.5, 1.5) * (i % 4) as f32;
    }
    for isa in [Isa::Portable, Isa::best()] {
        let fall = Fall { gravity: Vec3::new(0.0, -9.81, 0.0), dt: settings.dt };
        let (mut solver, recycled, cache, warm) = prepared(isa, &bodies, &contacts, &cache, &settings, fall);
        let ctx = StepContext::new(&settings);
        // The one-sided manifolds' rows one by one, in the bundles' order, and those bundles.
        let (mut rows, mut list) = (Vec::new(), Vec::new());
        for (k, lanes) in solver.lanes.iter().enumerate() {
            if solver.bundles[k].any_one_sided() {
                list.push(k as u32);
            }
            for &m in lanes.contact.iter().take_while(|&&m| m != u32::MAX) {
                let mut info = [PointInfo::default(); MAX_MANIFOLD_POINTS];
                let r = solver.manifold_rows(&recycled, m as usize, cache.impulses(warm[m as usize]), fall, &mut info);
                if r.one_sided != 0 {
                    rows.push(r);
                }
            }
        }
        assert!(list.len() > 1 && rows.len() > list.len(), "{isa:?}: several bundles of floor contacts");
        let before = solver.states.clone();
        let mut one_by_one = solver.states.clone();
        rows::stop(&mut rows, &mut one_by_one, &ctx.solve);
        let bundles = crate::parallel::SharedMut::new(&mut solver.bundles);
        // SAFETY: the bundles' indices were checked when they were built; one thread.
        unsafe { wide::stop(isa, &bundles, &list, lanes::States::new(&mut solver.states), &ctx.solve) };
        assert_eq!(format!("{:?}", solver.states), format!("{one_by_one:?}"), "{isa:?}");
        let pushed = before.iter().zip(&one_by_one).filter(|(b, a)| b.v != a.v).count();
        assert!(pushed > 10, "{isa:?}: the stop must act on bodies thrown into the floor: {pushed}");
        // Pushing only: no body ends moving into the floor faster than it started.
        for (b, a) in before.iter().zip(&one_by_one) {
            assert!(a.v.y >= b.v.y, "{isa:?}: pulled down: {} -> {}", b.v.y, a.v.y);
        }
    }
}

#[test]
fn a_resting_stack_is_coloured_red_black_and_a_struck_one_in_order() {
    // `box_stack.ron` at rest: its nine manifolds (floor and eight box on box) in two colours.
    let scene = Scene::load(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/box_stack.ron")).unwrap();
    let mut w = scene.build().unwrap();
    let mut settings = w.settings.clone();
    settings.sleeping = false;
    w.set_settings(settings);
    for _ in 0..120 {
        w.step();
    }
    let colours = |bodies: &[Body], settings: &Settings| {
        let (contacts, cache) = (w.contacts(), w.contact_store().warm_cache());
        let fall = StepContext::new(settings).fall();
        prepared(Isa::best(), bodies, contacts, cache, settings, fall).0.colouring.colours()
    };
    // Stopped exactly, so that only the velocity set below closes any contact.
    let mut bodies = w.bodies().to_vec();
    for b in &mut bodies {
        (b.linvel, b.angvel) = (Vec3::ZERO, Vec3::ZERO);
    }
    assert_eq!(w.contacts().len(), 9);
    assert_eq!(colours(&bodies, &w.settings), 2, "at rest");
    // Warm starting off: every substep rebuilds the support from zero, bottom-up.
    let cold = Settings { warm_starting: false, ..w.settings.clone() };
    assert_eq!(colours(&bodies, &cold), 8, "warm starting off");
    // The top body (the slab) driven down onto the stack: runs of eight once it closes faster
    // than the restitution threshold.
    let top = (0..bodies.len()).max_by(|&i, &j| bodies[i].pose.translation.y.total_cmp(&bodies[j].pose.translation.y));
    let top = top.unwrap();
    bodies[top].linvel.y = -0.99 * w.settings.restitution_threshold;
    assert_eq!(colours(&bodies, &w.settings), 2, "closing slower than the threshold");
    bodies[top].linvel.y = -1.01 * w.settings.restitution_threshold;
    assert_eq!(colours(&bodies, &w.settings), 8, "struck");
}
