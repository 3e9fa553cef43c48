//! Issue 31: the scene file is the truth. A scene opens with its file's settings; edits come
//! back in a later run only when the user chose "Keep my edits for this scene", shown by the
//! toolbar's edited badge in every layout; `--compare` starts both sides from the file.
#![cfg(feature = "gui")]

use collidoscope::app::viewport::Viewport;
use collidoscope::app::{App, AppOptions, PanelId, Persisted, build_app};
use collidoscope::ccd::CcdMode;
use collidoscope::scene::Scene;
use eframe::egui;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::PathBuf;

fn tunneling() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/tunneling.ron")
}

/// What `collidoscope SCENE [--compare NAME=VALUE]...` asks for.
fn options(scene: PathBuf, compare: &[(&str, &str)]) -> AppOptions {
    AppOptions {
        scene,
        compare: compare.iter().map(|(f, v)| (f.to_string(), v.to_string())).collect(),
        ..AppOptions::default()
    }
}

/// One run of the app: opened as the command line would, with what the last run stored.
fn launch(opts: &AppOptions, stored: Option<&str>) -> Harness<'static, App> {
    let (saved, unreadable) = Persisted::parse(stored);
    assert!(unreadable.is_none(), "{unreadable:?}");
    let app = build_app(opts, saved, None, &|| Viewport::new(None)).unwrap();
    let mut h =
        Harness::builder().with_size(egui::vec2(1600.0, 1000.0)).build_ui_state(|ui, app: &mut App| app.show(ui), app);
    h.run();
    h
}

/// Closing the window: what eframe stores (RON, as `eframe::set_value` writes it).
fn close(h: &Harness<'static, App>) -> String {
    ron::to_string(&h.state().persisted()).unwrap()
}

fn click(h: &mut Harness<'static, App>, label: &str) {
    h.get_by_label(label).scroll_to_me();
    h.run();
    h.get_by_label(label).click();
    h.run();
}

/// Sets CCD to Toi in the Settings panel, as a user would.
fn edit_ccd_to_toi(h: &mut Harness<'static, App>) {
    h.state_mut().open_panels_mut().show(PanelId::Settings);
    h.run();
    click(h, "CCD");
    click(h, "Toi");
    assert_eq!(h.state().world().settings.ccd, CcdMode::Toi);
}

fn partner_ccd(h: &Harness<'static, App>) -> CcdMode {
    h.state().simulation().record.partner.as_ref().expect("an A/B").world.settings.ccd
}

#[test]
fn compare_after_a_remembered_edit_starts_a_from_the_file_and_b_with_the_change() {
    let file = Scene::load(tunneling()).unwrap().settings;
    assert_ne!(file.ccd, CcdMode::Toi, "the lesson's file leaves the bullet unprotected");
    // Run 1: CCD set to Toi on tunneling.ron, then the window closes.
    let mut h = launch(&options(tunneling(), &[]), None);
    edit_ccd_to_toi(&mut h);
    let stored = close(&h);

    // Run 2: the same scene again opens with the file's settings, nothing marked.
    let reopen = AppOptions { reopen_last: true, ..options(tunneling(), &[]) };
    let h = launch(&reopen, Some(&stored));
    assert_eq!(h.state().world().settings, file, "the file is the truth");
    assert!(h.query_by_label_contains("✏ edited").is_none());

    // Run 3: `collidoscope scenes/tunneling.ron --compare ccd=Toi`.
    let mut h = launch(&options(tunneling(), &[("ccd", "Toi")]), Some(&stored));
    assert_eq!(partner_ccd(&h), file.ccd, "A is the file's setting");
    assert_eq!(h.state().world().settings.ccd, CcdMode::Toi, "B is Toi");
    assert_eq!(h.state().simulation().record.partner.as_ref().unwrap().world.settings, file, "A is the file, whole");
    // The lesson shows: A's bullet crosses the wall (x > 0), B's stops on the near side.
    for _ in 0..20 {
        h.key_press(egui::Key::S);
        h.run();
    }
    let bullet =
        |w: &collidoscope::World| w.bodies().iter().find(|b| b.is_dynamic()).map(|b| b.pose.translation.x).unwrap();
    let a = bullet(&h.state().simulation().record.partner.as_ref().unwrap().world);
    let b = bullet(h.state().world());
    assert!(a > 0.0 && b < 0.0, "A tunnels, B does not: A at x = {a}, B at x = {b}");
}

#[test]
fn edits_are_kept_for_a_scene_only_by_choice_and_the_badge_shows_them_in_every_layout() {
    let file = Scene::load(tunneling()).unwrap().settings;
    let mut h = launch(&options(tunneling(), &[]), None);
    assert!(h.query_by_label_contains("✏ edited").is_none(), "the file's settings: no badge");
    edit_ccd_to_toi(&mut h);
    h.get_by_label("✏ edited: 1 setting");
    // Collapsed docks and presentation mode still show it.
    h.state_mut().open_panels_mut().set_collapsed(collidoscope::app::Dock::Left, true);
    h.state_mut().open_panels_mut().set_collapsed(collidoscope::app::Dock::Right, true);
    h.run();
    h.get_by_label("✏ edited: 1 setting");
    h.state_mut().set_presentation_flag(true);
    h.run();
    h.get_by_label("✏ edited: 1");
    h.state_mut().set_presentation_flag(false);
    h.run();

    // Keep them: the next run opens the scene with them, and says so.
    click(&mut h, "✏ edited: 1 setting");
    h.get_by_label_contains("ccd Off -> Toi");
    click(&mut h, "Keep my edits for this scene");
    assert!(h.state().keeps_edits());
    h.key_press(egui::Key::Escape);
    h.run();
    let stored = close(&h);
    let mut h = launch(&AppOptions { reopen_last: true, ..options(tunneling(), &[]) }, Some(&stored));
    assert_eq!(h.state().world().settings.ccd, CcdMode::Toi, "kept by choice");
    h.get_by_label("✏ edited: 1 setting · kept");
    // Even so, --compare starts A from the file.
    let hc = launch(&options(tunneling(), &[("ccd", "Speculative")]), Some(&stored));
    assert_eq!(partner_ccd(&hc), file.ccd);
    assert_eq!(hc.state().world().settings.ccd, CcdMode::Speculative);
    drop(hc);

    // Revert: back to the file, and nothing kept for the next run.
    click(&mut h, "✏ edited: 1 setting · kept");
    click(&mut h, "⟲ Revert to the file");
    assert_eq!(h.state().world().settings, file);
    assert!(!h.state().keeps_edits());
    assert!(h.query_by_label_contains("✏ edited").is_none());
    let stored = close(&h);
    let h = launch(&AppOptions { reopen_last: true, ..options(tunneling(), &[]) }, Some(&stored));
    assert_eq!(h.state().world().settings, file);
}

#[test]
fn another_scene_opens_with_its_file_settings_not_the_last_ones() {
    let mut h = launch(&options(tunneling(), &[]), None);
    edit_ccd_to_toi(&mut h);
    let jitter = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenes/jitter.ron");
    h.state_mut().apply(collidoscope::app::Command::OpenScene(jitter.clone()));
    h.run();
    assert_eq!(h.state().world().settings, Scene::load(&jitter).unwrap().settings);
    // Back to the tunneling scene: its file again, the edit not kept.
    h.state_mut().apply(collidoscope::app::Command::OpenScene(tunneling()));
    h.run();
    assert_eq!(h.state().world().settings, Scene::load(tunneling()).unwrap().settings);
}

/// `--show PANEL --select N` keeps the panel asked for in front: selecting brought the Inspector
/// forward over it (`--show view --select 2` showed the Inspector).
#[test]
fn the_panel_asked_for_stays_in_front_of_the_selection() {
    for panel in [PanelId::View, PanelId::Settings, PanelId::Profiler] {
        let opts = AppOptions { show: vec![panel], select: Some(1), ..options(tunneling(), &[]) };
        let h = launch(&opts, None);
        assert_eq!(h.state().view().selected, Some(1));
        assert!(h.state().open_panels().visible(panel), "{panel:?} in front");
    }
}
