//! Issue 31: every shipped scene opens framed, with its own camera or an automatic frame of its
//! bodies, whatever view the last run left.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::{Camera, Viewport};
use collidoscope::app::{App, Persisted};
use collidoscope::math::Vec3;
use eframe::egui;
use egui_kittest::Harness;

/// Space kept clear at the view's edges (the hint bar runs along its bottom).
const MARGIN: f32 = 24.0;

fn scenes() -> Vec<std::path::PathBuf> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("scenes");
    let mut out: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ron"))
        .collect();
    out.sort();
    out
}

/// The dynamic bodies' starting centres that fall outside the view (less its margin).
fn outside(h: &Harness<'static, App>) -> Vec<String> {
    let v = h.state().viewport();
    let rect = v.rect().shrink(MARGIN);
    h.state()
        .world()
        .bodies()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.is_dynamic())
        .filter(|(_, b)| !v.camera().project(b.pose.translation, v.rect()).is_some_and(|s| rect.contains(s)))
        .map(|(i, b)| format!("#{i} {} at {}", b.name.clone().unwrap_or_default(), b.pose.translation))
        .collect()
}

#[test]
fn every_shipped_scene_opens_with_all_its_moving_bodies_in_view() {
    // The last run looked far away from everything: no scene may open with that view.
    let away = Camera::looking(Vec3::new(500.0, 400.0, 500.0), Vec3::new(600.0, 400.0, 600.0));
    let mut bad = Vec::new();
    for path in scenes() {
        let app = App::open(&path, Viewport::new(None)).unwrap();
        let mut h = Harness::builder()
            .with_size(egui::vec2(1600.0, 1000.0))
            .build_ui_state(|ui, app: &mut App| app.show(ui), app);
        h.state_mut().restore(Persisted { camera: Some(away.clone()), ..Persisted::default() });
        h.run();
        let missing = outside(&h);
        if !missing.is_empty() {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            bad.push(format!("{name}: {} of them, e.g. {}", missing.len(), missing[..missing.len().min(3)].join(", ")));
        }
    }
    assert!(bad.is_empty(), "scenes that open with moving bodies out of view:\n{}", bad.join("\n"));
}
