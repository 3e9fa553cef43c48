//! `collidoscope check`: scene and lesson files loaded and checked, one line each. A lesson is
//! told from a scene by its `steps`; its scene is checked with it.

use super::CliError;
use collidoscope::Scene;
use collidoscope::lesson::Lesson;
use std::path::{Path, PathBuf};

pub fn check(files: &[PathBuf]) -> Result<(), CliError> {
    let mut failed = 0;
    for f in files {
        let outcome = match collidoscope::scene::read_text(f) {
            Ok(text) if Lesson::is_lesson_text(&text) => check_lesson(&text, f),
            text => text
                .and_then(|t| Scene::parse(&t, f))
                .map(|scene| format!("ok: {} ({} bodies)", f.display(), scene.expanded_bodies().len()))
                .map_err(|e| e.to_string()),
        };
        match outcome {
            Ok(line) => outln!("{line}"),
            Err(e) => {
                outln!("{e}");
                failed += 1;
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} files failed the check", files.len()).into()) } else { Ok(()) }
}

/// A lesson with its scene; with the app built in, its layer and panel names too.
fn check_lesson(text: &str, f: &Path) -> Result<String, String> {
    let (lesson, scene) = Lesson::parse(text, f).map_err(|e| e.to_string())?;
    #[cfg(feature = "gui")]
    collidoscope::app::check_lesson_view(&lesson).map_err(|e| e.to_string())?;
    let unchecked = if cfg!(feature = "gui") { "" } else { "; layer and panel names need the app build to check" };
    let source = lesson.scene_path().map_or("inline".to_string(), |p| p.display().to_string());
    Ok(format!(
        "ok: {} (lesson: {} steps on {} with {} bodies{unchecked})",
        f.display(),
        lesson.steps.len(),
        source,
        scene.expanded_bodies().len()
    ))
}
