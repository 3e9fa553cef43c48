//! Issue 20: the step gives the same bits on any number of threads. Every scene in scenes/
//! (lessons and benchmarks) and every broad phase: the state hash after each step on 2 and 4
//! threads equals the serial one.

use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::{Scene, World};

fn world(path: &std::path::Path) -> World {
    Scene::load(path).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}"))
}

/// The world stepping on `threads` threads, every step on them however small, so that every
/// scene runs the parallel code.
fn on_threads(mut w: World, threads: usize) -> World {
    w.set_threads(threads);
    w.set_parallel_min_pairs(0);
    assert_eq!(w.threads(), threads);
    w
}

/// Each step's hash and the contact points seen, on `threads` threads.
fn hashes(w: World, threads: usize, steps: usize) -> (Vec<u64>, u64) {
    let mut w = on_threads(w, threads);
    let mut contacts = 0;
    let hashes = (0..steps)
        .map(|_| {
            w.step();
            contacts += w.profile().contacts as u64;
            w.hash()
        })
        .collect();
    (hashes, contacts)
}

fn same_bits_on_every_thread_count(name: &str, make: impl Fn() -> World, steps: usize) -> u64 {
    let (serial, contacts) = hashes(make(), 1, steps);
    for threads in [2, 4] {
        let (h, _) = hashes(make(), threads, steps);
        if let Some(step) = (0..steps).find(|&i| h[i] != serial[i]) {
            panic!(
                "{name}: on {threads} threads step {} gives {:016x}, serial {:016x}",
                step + 1,
                h[step],
                serial[step]
            );
        }
    }
    contacts
}

#[test]
fn every_scene_gives_the_serial_hash_on_2_and_4_threads() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scenes");
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 20, "found only {} scenes", paths.len());
    let mut with_contacts = 0;
    for path in &paths {
        let bodies = world(path).bodies().len();
        // The benchmark scenes (thousands of bodies) for fewer steps: the suite stays fast.
        let steps = if bodies > 2000 { 12 } else { 90 };
        let name = path.file_name().unwrap().to_string_lossy();
        if same_bits_on_every_thread_count(&name, || world(path), steps) > 0 {
            with_contacts += 1;
        }
    }
    // Some lessons show shapes apart, or a bullet before it arrives: most scenes touch.
    assert!(with_contacts * 3 >= paths.len() * 2, "only {with_contacts} scenes made contacts: the check proves little");
}

#[test]
fn every_broad_phase_gives_the_serial_hash_on_2_and_4_threads() {
    let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/broadphase_cluster.ron"));
    for &kind in BroadPhaseKind::ALL {
        let make = || {
            let mut w = world(&path);
            w.settings.broad_phase = kind;
            w
        };
        let contacts = same_bits_on_every_thread_count(kind.cli_name(), make, 40);
        assert!(contacts > 100, "{}: only {contacts} contacts", kind.cli_name());
    }
}

/// Changing the thread count between steps, as the app's setting does, keeps the state.
#[test]
fn changing_the_thread_count_while_running_keeps_the_hash() {
    let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/rain_1000.ron"));
    let (serial, _) = hashes(world(&path), 1, 60);
    let mut w = world(&path);
    w.set_parallel_min_pairs(0);
    for (step, expect) in serial.iter().enumerate() {
        w.set_threads([1, 2, 3][step / 7 % 3]);
        w.step();
        assert_eq!(w.hash(), *expect, "step {}", step + 1);
    }
}

/// The step flushes subnormals to zero whatever the calling thread's mode, and hands the
/// thread its mode back: the ragdoll (whose joint errors pass through the subnormal range)
/// gives the same bits from a thread that flushes and from one that does not (its bits differ
/// with and without the flush), and on 1 and 2 threads.
#[test]
fn the_step_flushes_subnormals_whatever_the_callers_mode() {
    use collidoscope::fp::FlushSubnormals;
    let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/ragdoll.ron"));
    let run = |threads: usize| {
        let mut w = on_threads(world(&path), threads);
        for _ in 0..200 {
            w.step();
        }
        w.hash()
    };
    let plain = run(1);
    assert!(!FlushSubnormals::active(), "the step left its mode on the thread");
    let flushing = {
        let _mode = FlushSubnormals::new();
        let h = run(1);
        assert!(FlushSubnormals::active(), "the step did not give the caller its mode back");
        h
    };
    assert_eq!(plain, flushing);
    assert_eq!(plain, run(2));
}

/// The guard reads the bodies on the step's threads: a body made non-finite in a large world is
/// found and frozen on 2 threads as on one (in the first block and in the last), with the same
/// faults and the same bits after.
#[test]
fn a_non_finite_body_is_frozen_on_any_thread_count() {
    let path = std::path::PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/rain_1000.ron"));
    let run = |threads: usize| {
        let mut w = on_threads(world(&path), threads);
        (0..5).for_each(|_| w.step());
        let last = w.bodies().len() - 1;
        w.body_mut(1).linvel.x = f32::NAN;
        w.body_mut(last).pose.translation.y = f32::INFINITY;
        w.step();
        let faults: Vec<(u32, u64, &str)> = w.faults().iter().map(|f| (f.body, f.step, f.phase)).collect();
        (0..10).for_each(|_| w.step());
        (faults, w.hash())
    };
    let serial = run(1);
    assert_eq!(serial.0.len(), 2, "{:?}", serial.0);
    assert_eq!(run(2), serial);
}
