//! `diagnose --bundle`: the case cut down to its minimal scene, recorded, diagnosed again and
//! clipped, as a [`Bundle`].

use super::CliError;
use collidoscope::Scene;
use collidoscope::bundle::{Bundle, CLIP, ClipSpan, NO_CLIP, NoClip, RECORDING, REPORT_JSON, REPORT_TEXT, SCENE};
use collidoscope::diagnose::{Report, Symptom, diagnose_stepping, shrink};
use collidoscope::record::{Recorder, Recording};
use std::path::Path;

/// Steps recorded after the event, and shown around it in the clip.
const AFTER_EVENT: u64 = 60;
const CLIP_BEFORE: u64 = 30;
const CLIP_AFTER: u64 = 30;
/// Keyframes of the bundle's recording, as `record` takes them.
const KEYFRAME_EVERY: u32 = 60;

/// Whether the bundle could be written to `path` after the run.
pub fn check(path: &Path) -> Result<(), CliError> {
    collidoscope::bundle::check(path).map_err(|e| CliError::Usage(e.to_string()))
}

/// The bundle of `scene` (read from `case`, diagnosed over `steps` into `report`), and a line
/// saying what it holds.
pub fn make(case: &Path, scene: &Scene, steps: u64, report: &Report) -> Result<(Bundle, String), CliError> {
    // The report's first diagnosis (its symptom's worst event), as the report leads with it.
    let first = report.diagnoses.first().map(|d| &d.event).or_else(|| report.events.iter().min_by_key(|e| e.step));
    let before = scene.expanded_bodies().len();
    let (minimal, event, shrunk) = match first {
        Some(e) => match shrink(scene, e.symptom, e.bodies.first().copied(), steps) {
            Ok(s) => {
                let kept: Vec<String> = s.kept.iter().map(|k| k.to_string()).collect();
                let line = format!(
                    "{} of {before} bodies (bodies {} of the original) keep the {} event, at step {}; shrunk in {} runs",
                    s.scene.bodies.len(),
                    kept.join(", "),
                    e.symptom.label(),
                    s.step,
                    s.runs
                );
                (s.scene, Some(s.step), line)
            }
            Err(err) => (
                scene.clone(),
                Some(e.step),
                format!(
                    "the scene as given ({before} bodies): shrinking for the {} event failed: {err}",
                    e.symptom.label()
                ),
            ),
        },
        None => {
            (scene.clone(), None, format!("the scene as given ({before} bodies): no event was found to shrink for"))
        }
    };
    let rec_steps = event.map_or(steps, |s| (s + AFTER_EVENT).min(steps).max(s));
    // The minimal scene's diagnosis runs it once, and that run is the one recorded.
    let mut recorder = None;
    let small = diagnose_stepping(&minimal, rec_steps, |world| {
        recorder.get_or_insert_with(|| Recorder::new(&minimal, world, KEYFRAME_EVERY)).step(world);
    })
    .map_err(|e| CliError::Usage(format!("{}: the minimal scene: {e}", case.display())))?;
    let recording = match recorder {
        Some(recorder) => recorder.finish(),
        None => Recorder::new(&minimal, &minimal.build()?, KEYFRAME_EVERY).finish(),
    };
    let (from, to) = match event {
        Some(s) => (s.saturating_sub(CLIP_BEFORE), (s + CLIP_AFTER).min(rec_steps)),
        None => (0, rec_steps.min(collidoscope::clip::MAX_FRAMES as u64 - 1)),
    };
    // A body through a static body is hidden behind it in a clip drawn solid (seen from the
    // side it came from): such a clip draws static bodies see-through.
    let see_through = first.is_some_and(|e| e.symptom == Symptom::Tunneling);
    let clip = clip(&recording, ClipSpan { from, to, see_through }, event);
    let clip_line = match &clip {
        Ok(_) if see_through => {
            format!("Clip ({CLIP}): steps {from} to {to} of the recording, static bodies drawn see-through.")
        }
        Ok(_) => format!("Clip ({CLIP}): steps {from} to {to} of the recording."),
        Err(why) => format!("No clip ({NO_CLIP}): {why}"),
    };
    let about = format!(
        "Collidoscope case bundle\n\n\
         Case: {} (\"{}\"), diagnosed over {steps} steps; events found: {}.\n\
         Scene ({SCENE}): {shrunk}.\n\
         Recording ({RECORDING}): {rec_steps} steps of that scene; `collidoscope replay {RECORDING}` checks every step's hash.\n\
         Report ({REPORT_TEXT}, {REPORT_JSON}): that scene diagnosed over those steps.\n\
         {clip_line}\n\n\
         Open it with `collidoscope open BUNDLE`: the app with the scene, the recording on the timeline.\n",
        case.display(),
        scene.name,
        report.events.len(),
    );
    let summary = format!("bundle: {shrunk}; {rec_steps} steps recorded; {clip_line}");
    let bundle = Bundle {
        scene: minimal,
        recording,
        report_text: small.to_text(),
        report_json: super::diagnose::to_json(&small),
        clip,
        about,
    };
    Ok((bundle, summary))
}

/// The recording's steps `from..=to` as a GIF (the camera framing the bodies at `from` and at the
/// event), or why there is none.
#[cfg(feature = "gui")]
fn clip(recording: &Recording, span: ClipSpan, event: Option<u64>) -> Result<Vec<u8>, NoClip> {
    use collidoscope::app::clip::{DEFAULT_SIZE, clip_view, display_available, render_frames};
    use collidoscope::clip::{ClipRange, encode_gif, frame_delay};
    let ClipSpan { from, to, see_through } = span;
    if !display_available() {
        return Err(NoClip::NoDisplay(span));
    }
    let made = || -> Result<Vec<u8>, collidoscope::app::AppError> {
        let range = ClipRange::new(from, to, 1, Some(recording.steps()))?;
        let case = collidoscope::record::Case::Recording(Box::new(recording.clone()));
        let frames = render_frames(&case, range, None, DEFAULT_SIZE, &clip_view(&[], see_through)?, event)?;
        Ok(encode_gif(&frames, frame_delay(None, recording.scene.settings.dt as f64, 1)?)?)
    };
    made().map_err(|e| NoClip::NotRendered { span, message: e.to_string() })
}

#[cfg(not(feature = "gui"))]
fn clip(_recording: &Recording, span: ClipSpan, _event: Option<u64>) -> Result<Vec<u8>, NoClip> {
    Err(NoClip::NoWindow(span))
}
