//! Guided lessons: a RON file (`lessons/*.ron`) that walks a class through a scene step by step.
//! Each step has a short text and may set settings, a camera, debug layers and panels, a body
//! (or a contact) to highlight, a plot, how far the simulation runs, and a prediction asked
//! before the run. [`Player`] applies the steps to a [`Simulation`](crate::session::Simulation) and keeps each step's
//! starting state as a snapshot, so going back is exact. Layer and panel names belong to the
//! app: [`Lesson::check_view`] checks them against the names it is given.

mod player;
pub mod text;

pub use player::{Phase, Player, RunDidNotStop, ViewChange};

use crate::math::Real;
use crate::scene::{CameraDesc, Scene, SceneError, one_line};
use crate::settings::Settings;
use crate::world::Snapshot;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The lesson format version this build reads and writes.
pub const LESSON_VERSION: u32 = 1;
/// Most steps a lesson may have.
pub const MAX_STEPS: usize = 64;
/// Longest step text, in characters: a few lines a class can read at once.
pub const MAX_TEXT: usize = 700;
/// Longest title, in characters.
pub const MAX_TITLE: usize = 80;
/// Most choices of a prediction.
pub const MAX_CHOICES: usize = 6;
/// Most steps one step's run may ask for (`Steps`, `Seconds`): ten minutes at 60 Hz.
pub const MAX_RUN_STEPS: u64 = 36_000;

fn version_one() -> u32 {
    LESSON_VERSION
}

/// A lesson file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lesson {
    /// The file format's version ([`LESSON_VERSION`]).
    #[serde(default = "version_one")]
    pub version: u32,
    /// The title, shown above the steps.
    pub title: String,
    /// One or two sentences on what the class learns, for the lesson list.
    #[serde(default)]
    pub summary: String,
    /// The scene the lesson runs.
    pub scene: SceneSource,
    /// The steps, in order.
    pub steps: Vec<Step>,
    /// The file it was loaded from (set by [`Lesson::load`]).
    #[serde(skip)]
    pub file: Option<PathBuf>,
}

/// Where a lesson's scene comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum SceneSource {
    /// A scene file, relative to the lesson file's folder.
    File(PathBuf),
    /// A scene written into the lesson.
    Inline(Box<Scene>),
}

/// One step of a lesson. Every field but the text may be left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Step {
    /// A few words naming the step, on the progress strip's tooltip and the step's heading.
    pub title: String,
    /// What the class reads (a few lines; see [`text`] for the markup).
    pub text: String,
    /// The state the step starts from.
    pub start: Start,
    /// Settings changed when the step starts, by their scene-file names, with RON values as
    /// `--set` takes them: `{"warm_starting": "false", "iterations": "8"}`.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, String>,
    /// Where the camera goes; left out, it stays.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub camera: Option<CameraDesc>,
    /// The debug layers on (all others off); left out, the layers stay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub layers: Option<Vec<String>>,
    /// Static bodies drawn see-through (`true`) or solid (`false`), as the view's X key
    /// switches them; left out, they stay as they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub see_through: Option<bool>,
    /// Panels brought forward, by name (`pair`, `profiler`, …); the first is the one
    /// presentation mode shows beside the view.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub panels: Vec<String>,
    /// A body to highlight (selected), by its name in the scene.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub highlight: Option<String>,
    /// With `highlight`: the body whose contact with it the Pair panel shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    /// With `highlight` and `partner`: the GJK or EPA iteration the Pair panel's slider shows;
    /// left out, the sliders stay.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair_iteration: Option<PairIteration>,
    /// The highlighted body's history plotted in the Inspector: `height`, `speed`,
    /// `kinetic energy`, `contact points` or `penetration`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plot: Option<String>,
    /// Whether the simulation runs in this step, and until when.
    pub run: Run,
    /// A question answered before the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prediction: Option<Prediction>,
}

/// An iteration of the Pair panel's trace, from 0 as its sliders count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum PairIteration {
    /// The GJK simplex after this many iterations.
    Gjk(usize),
    /// The EPA polytope after this many iterations.
    Epa(usize),
}

impl PairIteration {
    /// The algorithm's name and the iteration.
    pub fn parts(self) -> (&'static str, usize) {
        match self {
            PairIteration::Gjk(k) => ("GJK", k),
            PairIteration::Epa(k) => ("EPA", k),
        }
    }

    /// How many iterations of this algorithm `trace` holds.
    pub fn available(self, trace: &crate::narrowphase::PairTrace) -> usize {
        match self {
            PairIteration::Gjk(_) => trace.gjk_simplices.len(),
            PairIteration::Epa(_) => trace.epa.len(),
        }
    }
}

/// The state a step starts from.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Start {
    /// Where the previous step's run ended (the first step: the scene's start).
    #[default]
    Continue,
    /// The scene's start, with the scene's settings.
    SceneStart,
    /// A captured state ("Add step from current state").
    Snapshot(Box<Snapshot>),
}

/// Whether a step runs the simulation and where the run stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum Run {
    /// The clock stays stopped (a step to look, or to step with S).
    #[default]
    Paused,
    /// Runs this many steps.
    Steps(u64),
    /// Runs this many simulated seconds.
    Seconds(Real),
    /// Runs until two bodies first touch.
    FirstContact,
    /// Runs until continuous collision stops a body at its time of impact.
    Toi,
    /// Runs until every moving body is asleep.
    AllAsleep,
    /// Runs with no stop, until the class moves on.
    Free,
}

impl Run {
    /// The stop in words: "until first contact", "for 120 steps".
    pub fn describe(self) -> String {
        match self {
            Run::Paused => "paused".into(),
            Run::Steps(1) => "for 1 step".into(),
            Run::Steps(n) => format!("for {n} steps"),
            Run::Seconds(s) => format!("for {s} s"),
            Run::FirstContact => "until first contact".into(),
            Run::Toi => "until a time-of-impact event".into(),
            Run::AllAsleep => "until every body is asleep".into(),
            Run::Free => "until you move on".into(),
        }
    }

    /// Whether the run stops by itself.
    pub fn stops(self) -> bool {
        !matches!(self, Run::Paused | Run::Free)
    }
}

/// A question the class answers before the run; after it, the app shows what happened beside
/// what was predicted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Prediction {
    /// The question.
    pub question: String,
    /// The choices, two to [`MAX_CHOICES`].
    pub choices: Vec<String>,
    /// The choice that happens (from 0).
    pub answer: usize,
    /// Why it happens, shown after the run.
    pub explain: String,
}

/// The names of the series the Inspector plots, as a step's `plot` gives them.
pub fn plot_names() -> Vec<&'static str> {
    crate::record::TRACE_SERIES.iter().map(|s| s.split(" (").next().unwrap_or(s)).collect()
}

/// The layer and panel names the app knows, for [`Lesson::check_view`].
pub struct ViewNames<'a> {
    /// Debug layers, as `--layer` takes them.
    pub layers: &'a [&'a str],
    /// Panels, as `--show` takes them (any case).
    pub panels: &'a [&'a str],
}

/// Why a lesson could not be read, checked or written. Messages start with the file, then the
/// line and column from the parser or the field (`steps[2].settings.slop`) for later checks.
#[derive(Debug, thiserror::Error)]
pub enum LessonError {
    /// The file could not be read or written, or its text is not a lesson (the parser's
    /// `FILE:LINE:COL: …`, as for scenes).
    #[error(transparent)]
    File(SceneError),
    /// A field is out of range or names something that does not exist.
    #[error("{}", one_line(format!("{}: {}: {}", .path.display(), .field, .message)))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The field, as a path into the lesson (`steps[2].prediction.answer`).
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// The lesson's scene could not be loaded (the message names its file).
    #[error("{}: scene: {source}", .path.display())]
    Scene {
        /// The lesson file.
        path: PathBuf,
        /// Why the scene failed.
        source: Box<SceneError>,
    },
}

impl Lesson {
    /// Reads and checks a lesson file and the scene it uses.
    pub fn load(path: impl AsRef<Path>) -> Result<(Lesson, Scene), LessonError> {
        let path = path.as_ref();
        let text = crate::scene::read_text(path).map_err(LessonError::File)?;
        Lesson::parse(&text, path)
    }

    /// Parses and checks lesson text; `path` names it in errors and is where a scene file's
    /// path starts from.
    pub fn parse(text: &str, path: &Path) -> Result<(Lesson, Scene), LessonError> {
        let mut lesson: Lesson = crate::scene::parse_ron(text, path).map_err(LessonError::File)?;
        lesson.file = Some(path.to_path_buf());
        let scene = lesson.load_scene()?;
        lesson.validate(&scene)?;
        Ok((lesson, scene))
    }

    /// The lesson files (`*.ron`) in `dir`, sorted by name.
    pub fn files_in(dir: &Path) -> Result<Vec<PathBuf>, LessonError> {
        let io = |source| LessonError::File(SceneError::Io { path: dir.into(), source });
        let mut files = Vec::new();
        for e in std::fs::read_dir(dir).map_err(io)? {
            let p = e.map_err(io)?.path();
            if p.extension().is_some_and(|x| x == "ron") {
                files.push(p);
            }
        }
        files.sort();
        Ok(files)
    }

    /// Whether the file at `path` reads as a lesson (see [`Lesson::is_lesson_text`]).
    pub fn is_lesson_file(path: &Path) -> bool {
        crate::scene::read_text(path).is_ok_and(|t| Lesson::is_lesson_text(&t))
    }

    /// Whether `text` is a lesson rather than a scene: a struct with a `steps` field.
    pub fn is_lesson_text(text: &str) -> bool {
        matches!(ron::from_str::<ron::Value>(text), Ok(ron::Value::Map(m)) if m.keys().any(|k| *k == ron::Value::String("steps".into())))
    }

    /// The file the scene comes from, when it is a file (relative to the lesson's folder).
    pub fn scene_path(&self) -> Option<PathBuf> {
        match &self.scene {
            SceneSource::File(p) => {
                let base = self.file.as_deref().and_then(Path::parent).unwrap_or(Path::new(""));
                Some(base.join(p))
            }
            SceneSource::Inline(_) => None,
        }
    }

    /// The lesson's scene, loaded and checked.
    pub fn load_scene(&self) -> Result<Scene, LessonError> {
        let path = self.file.clone().unwrap_or_default();
        let wrap = |e: SceneError| LessonError::Scene { path: path.clone(), source: Box::new(e) };
        match (&self.scene, self.scene_path()) {
            (_, Some(p)) => Scene::load(&p).map_err(wrap),
            (SceneSource::Inline(s), None) => (**s).clone().finish(&path).map_err(wrap),
            (SceneSource::File(_), None) => unreachable!("a file source always has a path"),
        }
    }

    /// Whether the lesson has step `k` (from 0); the error names the step from 1.
    pub fn check_step(&self, k: usize) -> Result<(), LessonError> {
        if k < self.steps.len() {
            return Ok(());
        }
        Err(self.invalid(
            "steps",
            format!("there is no step {} (the lesson has {} steps, from 1)", k + 1, self.steps.len()),
        ))
    }

    fn invalid(&self, field: impl Into<String>, message: impl Into<String>) -> LessonError {
        LessonError::Invalid {
            path: self.file.clone().unwrap_or_default(),
            field: field.into(),
            message: message.into(),
        }
    }

    /// The checks parsing cannot make, against the lesson's scene: lengths, markup, each
    /// step's settings (applied in order, as the player does), body names, plots, runs and
    /// predictions, and captured states.
    pub fn validate(&self, scene: &Scene) -> Result<(), LessonError> {
        if self.version != LESSON_VERSION {
            return Err(self.invalid(
                "version",
                format!("unsupported lesson version {} (this build reads version {LESSON_VERSION})", self.version),
            ));
        }
        check_len(self, "title", &self.title, MAX_TITLE, false)?;
        if self.steps.is_empty() || self.steps.len() > MAX_STEPS {
            return Err(
                self.invalid("steps", format!("a lesson has 1 to {MAX_STEPS} steps, this one {}", self.steps.len()))
            );
        }
        let names: Vec<Option<String>> = scene.expanded_bodies().into_iter().map(|b| b.name).collect();
        let mut settings = scene.settings.clone();
        for (i, step) in self.steps.iter().enumerate() {
            let at = |f: &str| format!("steps[{i}].{f}");
            check_len(self, &at("title"), &step.title, MAX_TITLE, true)?;
            check_len(self, &at("text"), &step.text, MAX_TEXT, false)?;
            text::spans(&step.text).map_err(|e| self.invalid(at("text"), e.to_string()))?;
            match &step.start {
                Start::Continue => {}
                Start::SceneStart => settings = scene.settings.clone(),
                Start::Snapshot(snap) => {
                    let mut world = scene.build().map_err(|e| self.invalid(at("start"), e.to_string()))?;
                    world.restore(snap).map_err(|e| self.invalid(at("start.Snapshot"), e.to_string()))?;
                    settings = snap.settings.clone();
                }
            }
            settings = apply_settings(&settings, &step.settings)
                .map_err(|e| self.invalid(at(&format!("settings.{}", e.name)), e.source.to_string()))?;
            if let Some(c) = &step.camera
                && c.eye.distance(c.target) < 1e-3
            {
                return Err(self.invalid(at("camera"), format!("the eye {} is at the target", c.eye)));
            }
            let body = |field: &str, name: &Option<String>| match name {
                Some(n) if !names.iter().any(|b| b.as_deref() == Some(n.as_str())) => {
                    let known: Vec<&str> = names.iter().flatten().map(String::as_str).collect();
                    Err(self.invalid(
                        at(field),
                        format!("no body is named {n:?}; the scene's named bodies: {}", known.join(", ")),
                    ))
                }
                _ => Ok(()),
            };
            body("highlight", &step.highlight)?;
            body("partner", &step.partner)?;
            if step.partner.is_some() && step.highlight.is_none() {
                return Err(self.invalid(at("partner"), "a partner goes with a highlighted body: give `highlight` too"));
            }
            if step.pair_iteration.is_some() {
                if step.highlight.is_none() || step.partner.is_none() {
                    return Err(self.invalid(
                        at("pair_iteration"),
                        "the Pair panel traces a named pair: give `highlight` and `partner` too",
                    ));
                }
                if !step.panels.iter().any(|p| p.trim().eq_ignore_ascii_case("pair")) {
                    return Err(self.invalid(at("pair_iteration"), "the Pair panel shows it: add \"pair\" to `panels`"));
                }
            }
            if let Some(p) = &step.plot {
                if !plot_names().contains(&p.as_str()) {
                    return Err(self.invalid(
                        at("plot"),
                        format!("unknown plot {p:?}; the plots are {}", plot_names().join(", ")),
                    ));
                }
                if step.highlight.is_none() {
                    return Err(self.invalid(at("plot"), "a plot shows the highlighted body: give `highlight` too"));
                }
            }
            match step.run {
                Run::Steps(n) if !(1..=MAX_RUN_STEPS).contains(&n) => {
                    return Err(self.invalid(at("run"), format!("Steps({n}): give 1 to {MAX_RUN_STEPS} steps")));
                }
                Run::Seconds(s) if !(s.is_finite() && s > 0.0 && (s / settings.dt) as u64 <= MAX_RUN_STEPS) => {
                    return Err(self.invalid(
                        at("run"),
                        format!(
                            "Seconds({s}): give a time above 0 s and at most {MAX_RUN_STEPS} steps ({:.0} s at the \
                             scene's dt)",
                            MAX_RUN_STEPS as f64 * settings.dt as f64
                        ),
                    ));
                }
                _ => {}
            }
            if let Some(p) = &step.prediction {
                check_len(self, &at("prediction.question"), &p.question, MAX_TEXT, false)?;
                text::spans(&p.question).map_err(|e| self.invalid(at("prediction.question"), e.to_string()))?;
                if !(2..=MAX_CHOICES).contains(&p.choices.len()) {
                    return Err(self.invalid(
                        at("prediction.choices"),
                        format!("give 2 to {MAX_CHOICES} choices, not {}", p.choices.len()),
                    ));
                }
                for (k, c) in p.choices.iter().enumerate() {
                    check_len(self, &at(&format!("prediction.choices[{k}]")), c, MAX_TITLE * 2, false)?;
                    text::spans(c).map_err(|e| self.invalid(at(&format!("prediction.choices[{k}]")), e.to_string()))?;
                }
                if p.answer >= p.choices.len() {
                    return Err(self.invalid(
                        at("prediction.answer"),
                        format!("choice {} does not exist: there are {} (from 0)", p.answer, p.choices.len()),
                    ));
                }
                check_len(self, &at("prediction.explain"), &p.explain, MAX_TEXT, true)?;
                text::spans(&p.explain).map_err(|e| self.invalid(at("prediction.explain"), e.to_string()))?;
                if step.run == Run::Paused {
                    return Err(self.invalid(
                        at("prediction"),
                        "a prediction is answered before a run: give the step a `run` other than Paused",
                    ));
                }
            }
        }
        Ok(())
    }

    /// Checks the layer and panel names against the app's.
    pub fn check_view(&self, names: &ViewNames) -> Result<(), LessonError> {
        for (i, step) in self.steps.iter().enumerate() {
            for (k, l) in step.layers.iter().flatten().enumerate() {
                if !names.layers.contains(&l.as_str()) {
                    return Err(self.invalid(
                        format!("steps[{i}].layers[{k}]"),
                        format!("unknown layer {l:?}; the layers are {}", names.layers.join(", ")),
                    ));
                }
            }
            for (k, p) in step.panels.iter().enumerate() {
                if !names.panels.iter().any(|n| n.eq_ignore_ascii_case(p.trim())) {
                    return Err(self.invalid(
                        format!("steps[{i}].panels[{k}]"),
                        format!("unknown panel {p:?}; the panels are {}", names.panels.join(", ")),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The lesson as RON text, as lesson files are written.
    pub fn to_ron(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(5).struct_names(false);
        ron::ser::to_string_pretty(self, config).expect("a lesson always serialises")
    }

    /// Writes the lesson atomically (as scenes are saved).
    pub fn save(&self, path: &Path) -> Result<(), LessonError> {
        crate::scene::write_atomic(path, self.to_ron().as_bytes()).map_err(LessonError::File)
    }
}

/// A step's setting change that the settings refuse.
#[derive(Debug, thiserror::Error)]
#[error("settings.{name}: {source}")]
pub struct StepSettingError {
    /// The setting, as the step names it.
    pub name: String,
    /// Why the settings refuse its value.
    pub source: Box<crate::settings::SettingsError>,
}

/// `settings` with `changes` applied by name, as `--set` applies them; the error names the
/// setting.
pub fn apply_settings(settings: &Settings, changes: &BTreeMap<String, String>) -> Result<Settings, StepSettingError> {
    let mut s = settings.clone();
    for (name, value) in changes {
        s.set_field(name, value).map_err(|e| StepSettingError { name: name.clone(), source: Box::new(e) })?;
    }
    Ok(s)
}

fn check_len(lesson: &Lesson, field: &str, text: &str, max: usize, may_be_empty: bool) -> Result<(), LessonError> {
    let n = text.chars().count();
    if !may_be_empty && text.trim().is_empty() {
        return Err(lesson.invalid(field, "is empty: write what the class reads"));
    }
    if n > max {
        return Err(lesson.invalid(field, format!("{n} characters, more than {max}: split it over two steps")));
    }
    Ok(())
}
