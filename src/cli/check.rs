//! `collidoscope check`: scene files loaded and checked, one line each.

use super::CliError;
use collidoscope::Scene;
use std::path::PathBuf;

pub fn check(files: &[PathBuf]) -> Result<(), CliError> {
    let mut failed = 0;
    for f in files {
        match Scene::load(f) {
            Ok(scene) => println!("ok: {} ({} bodies)", f.display(), scene.expanded_bodies().len()),
            Err(e) => {
                println!("{e}");
                failed += 1;
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} scene files failed the check", files.len()).into()) } else { Ok(()) }
}
