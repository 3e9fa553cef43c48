//! Issue 34 in the app: the Diagnose panel runs diagnose on the open scene in the background,
//! lists the event with its cause and the fixes tried, seeks the timeline to an event, applies a
//! verified fix, and reduces an event to a minimal case (from the panel and from the timeline).
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, PanelId};
use collidoscope::ccd::CcdMode;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::Path;

fn harness(bug: &str, steps: u64) -> Harness<'static, App> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bugs").join(bug);
    let mut app = App::open(&path, Viewport::new(None)).unwrap();
    app.open_panels_mut().show(PanelId::Diagnose);
    app.diagnose_panel_mut().steps = steps;
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1200.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// Steps the harness until the panel's background work is done.
fn wait(h: &mut Harness<'static, App>) {
    let start = std::time::Instant::now();
    h.step();
    while h.state_mut().diagnose_panel_mut().is_running() {
        assert!(start.elapsed().as_secs() < 180, "the diagnose panel's work did not finish");
        std::thread::sleep(std::time::Duration::from_millis(20));
        h.step();
    }
    h.run();
}

fn diagnose(h: &mut Harness<'static, App>) {
    h.get_by_label("🔬 Diagnose").click();
    wait(h);
    let p = h.state_mut().diagnose_panel_mut();
    assert!(p.result.is_some(), "no report: {:?}", p.error);
}

#[test]
fn a_plate_through_a_slab_is_diagnosed_and_a_verified_fix_applied_in_the_panel() {
    let mut h = harness("plate_through_plate.ron", 60);
    assert_eq!(h.state().world().settings.ccd, CcdMode::Off);
    diagnose(&mut h);
    h.get_by_label_contains("close at 60.0 m/s: 1.000 m per step");
    h.get_by_label("ccd=Toi");
    assert!(h.query_all_by_label("removes it").count() >= 2, "ccd=Toi and ccd=Speculative remove it");
    h.get_by_label("substeps=64");
    h.get_by_label("does not remove it");
    assert_eq!(h.query_all_by_label("Apply fix").count(), 2, "the two verified settings");
    h.get_all_by_label("Apply fix").next().unwrap().click();
    h.run();
    assert_ne!(h.state().world().settings.ccd, CcdMode::Off);
    assert_eq!(h.query_all_by_label("Apply fix").count(), 2, "the applied one stays, disabled");
    // Diagnosed again with the fix on, the scene is clean.
    diagnose(&mut h);
    h.get_by_label("No symptoms found in 60 steps");
}

#[test]
fn an_event_seeks_the_timeline_and_a_fix_there_forks_the_run() {
    let mut h = harness("plate_through_plate.ron", 60);
    diagnose(&mut h);
    // The event puts the same run on the timeline, seeks it to its step and selects the plate.
    h.get_by_label_contains("Step 4: passing another body (bodies 1, 0)").click();
    h.run();
    assert_eq!(h.state().world().step_count(), 4);
    assert_eq!(h.state().view().selected, Some(1));
    let review = h.state().simulation().record.review.as_ref().expect("the run is on the timeline");
    assert_eq!(review.steps(), 60);
    assert!(review.follows(h.state().world()));
    // The panel stays in front: a fix applied there forks the run (A as recorded, B with the fix).
    h.get_all_by_label("Apply fix").next().expect("the panel is still shown").click();
    h.run();
    assert_ne!(h.state().world().settings.ccd, CcdMode::Off);
    assert!(h.state().simulation().record.partner.is_some(), "a fork to compare");
}

#[test]
fn a_tunneling_crowd_reduces_to_a_minimal_case_that_saves() {
    let mut h = harness("crowd_tunneling.ron", 60);
    diagnose(&mut h);
    h.get_by_label_contains("tunneling (bodies");
    h.get_by_label("✂ Reduce to a minimal case").click();
    wait(&mut h);
    h.get_by_label_contains("of 190 bodies still show it");
    let p = h.state_mut().diagnose_panel_mut();
    let kept = p.reduced.as_ref().expect("a minimal case").shrunk.scene.bodies.len();
    assert!(kept <= 3, "kept {kept}");
    let out = std::env::temp_dir().join(format!("collidoscope-minimal-{}.ron", std::process::id()));
    p.save_case(&out).unwrap();
    h.run();
    h.get_by_label_contains("Saved ");
    let saved = collidoscope::Scene::load(&out).unwrap();
    assert_eq!(saved.bodies.len(), kept);
    let _ = std::fs::remove_file(&out);
}

#[test]
fn a_timeline_event_reduces_to_a_minimal_case() {
    let mut h = harness("spawn_overlap.ron", 30);
    diagnose(&mut h);
    // The overlap shows at step 1: on the timeline, its marker offers the reduction.
    h.get_by_label_contains("Step 1: deep penetration").click();
    h.run();
    assert_eq!(h.state().world().step_count(), 1);
    h.get_all_by_label("Reduce to a minimal case").next().expect("the timeline offers it").click();
    wait(&mut h);
    h.get_by_label_contains("of 3 bodies still show it");
    let p = h.state_mut().diagnose_panel_mut();
    let case = &p.reduced.as_ref().expect("a minimal case").shrunk;
    assert!(case.scene.bodies.len() <= 3 && case.step <= 2, "{:?} at {}", case.kept, case.step);
}

#[test]
fn the_timeline_opens_the_diagnose_panel() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes/bugs/plate_through_plate.ron");
    let mut app = App::open(&path, Viewport::new(None)).unwrap();
    app.open_panels_mut().show(PanelId::Timeline);
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    assert!(!h.state().open_panels().is_open(PanelId::Diagnose));
    h.get_by_label("🔬 Diagnose…").click();
    h.run();
    assert!(h.state().open_panels().is_open(PanelId::Diagnose));
    h.get_by_label("🔬 Diagnose");
}

/// The panel says which of a symptom's events it diagnosed ("the deepest of the 2 bodies"), and
/// an event of the whole world (energy gained) names no bodies ("(bodies )" before).
#[test]
fn the_panel_says_the_event_is_the_deepest_and_names_no_bodies_for_the_world() {
    let mut h = harness("fast_drops_ccd_off.ron", 30);
    diagnose(&mut h);
    h.get_by_label_contains("Step 5: deep penetration (bodies 2, 0)");
    h.get_by_label("This is the deepest of the 2 bodies it happened to.");
    h.get_by_label_contains("energy gained: energy rose from");
    assert!(h.query_by_label_contains("(bodies )").is_none());
}
