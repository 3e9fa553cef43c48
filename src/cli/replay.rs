//! `collidoscope replay`: recordings re-run, every step's hash checked against them.

use super::CliError;
use collidoscope::record::Recording;
use std::path::PathBuf;

pub fn replay(files: &[PathBuf]) -> Result<(), CliError> {
    let mut failed = 0;
    for f in files {
        let outcome = Recording::load_verified(f);
        match outcome {
            Ok(n) => outln!("{}: verified {n} steps", f.display()),
            Err(e) => {
                outln!("{e}");
                failed += 1;
            }
        }
    }
    if failed > 0 { Err(format!("{failed} of {} recordings failed to replay", files.len()).into()) } else { Ok(()) }
}
