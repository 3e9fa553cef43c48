//! The simulation does not depend on the broad phase: the same scene gives the same state hash
//! with every structure, and switching structures while running changes nothing.

use collidoscope::broadphase::BroadPhaseKind;
use collidoscope::{Scene, World};

const STEPS: u64 = 24;

fn world(path: &str) -> World {
    let path = format!("{}/scenes/{path}", env!("CARGO_MANIFEST_DIR"));
    Scene::load(&path).unwrap_or_else(|e| panic!("{e}")).build().unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `path` with `kind` and returns the hash and the contacts seen on the way.
fn run(path: &str, kind: BroadPhaseKind) -> (u64, u64) {
    let mut w = world(path);
    w.settings.broad_phase = kind;
    let mut contacts = 0;
    for _ in 0..STEPS {
        w.step();
        assert!(w.profile().broad.true_overlaps as usize >= w.pairs().len(), "the world only filters pairs");
        contacts += w.profile().contacts as u64;
    }
    (w.hash(), contacts)
}

fn same_hash_for_every_kind(path: &str) {
    let (reference, contacts) = run(path, BroadPhaseKind::BruteForce);
    assert!(contacts > 100, "{path}: only {contacts} contacts; the check would prove little");
    for &kind in BroadPhaseKind::ALL {
        let (hash, _) = run(path, kind);
        assert_eq!(hash, reference, "{path}: {} gives hash {hash:016x}, brute force {reference:016x}", kind.cli_name());
    }
}

#[test]
fn uniform_rain_hash_is_the_same_for_every_broad_phase() {
    same_hash_for_every_kind("broadphase_uniform_rain.ron");
}

#[test]
fn cluster_hash_is_the_same_for_every_broad_phase() {
    same_hash_for_every_kind("broadphase_cluster.ron");
}

/// Switching structure every few steps, as a user might in the app, keeps the state.
#[test]
fn switching_while_running_keeps_the_hash() {
    let path = "broadphase_huge_and_tiny.ron";
    let (reference, _) = run(path, BroadPhaseKind::BruteForce);
    let mut w = world(path);
    for step in 0..STEPS {
        let kinds = BroadPhaseKind::ALL;
        w.settings.broad_phase = kinds[(step as usize / 3) % kinds.len()];
        w.step();
    }
    assert_eq!(w.hash(), reference);
}
