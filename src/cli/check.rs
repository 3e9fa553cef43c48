//! `collidoscope check`: scene and lesson files loaded and checked, one line each. A lesson is
//! told from a scene by its `steps`; its scene is checked with it.

use super::CliError;
use collidoscope::Scene;
use collidoscope::lesson::Lesson;
use std::path::{Path, PathBuf};

pub fn check(files: &[PathBuf]) -> Result<(), CliError> {
    let mut failed = 0;
    for f in files {
        let is_lesson = collidoscope::scene::read_text(f).is_ok_and(|t| Lesson::is_lesson_text(&t));
        let outcome = if is_lesson {
            check_lesson(f)
        } else {
            Scene::load(f)
                .map(|scene| format!("ok: {} ({} bodies)", f.display(), scene.expanded_bodies().len()))
                .map_err(|e| e.to_string())
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
fn check_lesson(f: &Path) -> Result<String, String> {
    #[cfg(feature = "gui")]
    let (lesson, scene) = collidoscope::app::load_lesson(f).map_err(|e| e.to_string())?;
    #[cfg(not(feature = "gui"))]
    let (lesson, scene) = Lesson::load(f).map_err(|e| e.to_string())?;
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
