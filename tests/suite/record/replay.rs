//! Recordings through the real binary: record → replay verifies; an edited step is named;
//! every shipped recording in scenes/recordings/ still replays.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_collidoscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("collidoscope-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn record_then_replay_and_a_tampered_hash_is_named() {
    let rec = temp("stack.rec.ron");
    let out = bin()
        .args(["record", "scenes/box_stack.ron", "--steps", "90", "--keyframe-every", "30", "-o"])
        .arg(&rec)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ok = bin().arg("replay").arg(&rec).output().unwrap();
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stdout));
    assert!(String::from_utf8_lossy(&ok.stdout).contains("verified 90 steps"));

    // Replace the 40th recorded hash: replay must name step 40 and fail.
    let text = std::fs::read_to_string(&rec).unwrap();
    let start = text.find("hashes: [").unwrap();
    let mut hashes: Vec<String> = text[start + 9..text[start..].find(']').unwrap() + start]
        .split(',')
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect();
    assert_eq!(hashes.len(), 90);
    hashes[39] = "12345".into();
    let edited = format!(
        "{}hashes: [{}]{}",
        &text[..start],
        hashes.join(", "),
        &text[text[start..].find(']').unwrap() + start + 1..]
    );
    std::fs::write(&rec, edited).unwrap();
    let bad = bin().arg("replay").arg(&rec).output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&bad.stdout).contains("diverged at step 40"),
        "{}",
        String::from_utf8_lossy(&bad.stdout)
    );

    // Truncated: a clear error with a position, no panic.
    std::fs::write(&rec, &text[..text.len() / 3]).unwrap();
    let cut = bin().arg("replay").arg(&rec).output().unwrap();
    assert_eq!(cut.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&cut.stdout);
    assert!(msg.contains(&format!("{}:", rec.display())) && !msg.contains("panicked"), "{msg}");
    let _ = std::fs::remove_file(&rec);
}

#[test]
fn shipped_recordings_replay() {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/recordings"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "ron")).collect()
        })
        .unwrap_or_default();
    files.sort();
    assert!(!files.is_empty(), "scenes/recordings/ holds no recordings");
    let out = bin().arg("replay").args(&files).output().unwrap();
    assert!(
        out.status.success(),
        "a shipped recording no longer replays; if the physics changed on purpose, re-record with \
         scripts/record-samples\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn binary_recordings_replay_and_damage_is_a_clear_error() {
    for (name, extra) in [("stack.cdrec", None), ("stack-full.cdrec", Some("--full-keyframes"))] {
        let rec = temp(name);
        let out = bin()
            .args(["record", "scenes/box_stack.ron", "--steps", "90", "--keyframe-every", "30", "-o"])
            .arg(&rec)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let ok = bin().arg("replay").arg(&rec).output().unwrap();
        assert!(String::from_utf8_lossy(&ok.stdout).contains("verified 90 steps"), "{ok:?}");
        let bytes = std::fs::read(&rec).unwrap();
        assert!(bytes.starts_with(b"\x89CDREC"));
        // A flipped byte in the middle and a file cut short: one line naming the file and byte.
        let mut flipped = bytes.clone();
        flipped[bytes.len() / 2] ^= 0x40;
        for damaged in [flipped, bytes[..bytes.len() * 2 / 3].to_vec()] {
            std::fs::write(&rec, damaged).unwrap();
            let bad = bin().arg("replay").arg(&rec).output().unwrap();
            assert_eq!(bad.status.code(), Some(1));
            let msg = String::from_utf8_lossy(&bad.stdout);
            assert!(msg.contains(&format!("{}: byte ", rec.display())) && !msg.contains("panicked"), "{msg}");
        }
        let _ = std::fs::remove_file(&rec);
    }
}

/// A binary recording of a jointed scene keeps each keyframe's joint impulses: every keyframe
/// restores (delta-coded and full), and the world it gives carries on bit for bit.
#[test]
fn binary_keyframes_of_a_jointed_scene_restore() {
    for (name, extra) in [("chain.cdrec", None), ("chain-full.cdrec", Some("--full-keyframes"))] {
        let rec = temp(name);
        let out = bin()
            .args(["record", "scenes/chain.ron", "--steps", "120", "--keyframe-every", "40", "-o"])
            .arg(&rec)
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let recording = collidoscope::record::Recording::load(&rec).unwrap();
        let mut fresh = recording.scene.build().unwrap();
        assert!(!fresh.joints().is_empty());
        for step in [40, 80, 100, 120] {
            while fresh.step_count() < step {
                fresh.step();
            }
            let restored = recording.world_at(step).unwrap_or_else(|e| panic!("{name} at {step}: {e}"));
            assert_eq!(restored.hash(), fresh.hash(), "{name} at step {step}");
        }
        let _ = std::fs::remove_file(&rec);
    }
}
