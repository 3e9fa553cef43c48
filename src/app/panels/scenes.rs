//! The scene browser: the scene files of a folder with their names and descriptions, the
//! guided lessons in the `lessons/` folder beside it by their titles, any scene or lesson file
//! through a dialog, saving the current state, recent files, and the last load error.

use super::PanelCx;
use super::{Command, colors, file_label};
use crate::scene::Scene;
use eframe::egui::{self, RichText, Ui};
use std::path::{Path, PathBuf};

/// How many recent files are kept.
pub(super) const MAX_RECENT: usize = 10;

/// One `.ron` file of the folder, read once per refresh.
struct Entry {
    path: PathBuf,
    /// Name and description (a lesson's title and summary), or why the file cannot be read.
    info: Result<(String, String), Unreadable>,
    /// The group it is listed under.
    topic: &'static str,
}

/// Why a listed file cannot be read: its load error, which names the file and the line.
#[derive(Debug, thiserror::Error)]
enum Unreadable {
    #[error(transparent)]
    Scene(Box<crate::scene::SceneError>),
    #[error(transparent)]
    Lesson(Box<crate::lesson::LessonError>),
}

/// The group the lessons are listed under, above the scenes' topics.
const LESSONS: &str = "Guided lessons";

pub struct ScenePanel {
    dir: PathBuf,
    entries: Option<Vec<Entry>>,
    /// The lessons beside `dir`, read with the scenes.
    lessons: Option<Vec<Entry>>,
    pub recent: Vec<PathBuf>,
    /// The last failed load or save, with `FILE:LINE:COL` when the parser gave one.
    pub error: Option<String>,
    /// The last successful save.
    pub notice: Option<String>,
    /// The path field beside "Open file…", for desktops without a file dialog.
    pub typed_path: String,
    /// The last "Open file…" came back without a file: say the path field exists.
    dialog_hint: bool,
    /// Shows only the scenes whose file name, name, description or topic contains this.
    pub filter: String,
}

impl ScenePanel {
    pub fn new(dir: PathBuf, recent: Vec<PathBuf>) -> Self {
        ScenePanel {
            dir,
            entries: None,
            lessons: None,
            recent,
            error: None,
            notice: None,
            typed_path: String::new(),
            dialog_hint: false,
            filter: String::new(),
        }
    }

    /// A typed path as given, or inside the listed folder when it is not found as given.
    fn resolve(&self, typed: &str) -> PathBuf {
        let p = PathBuf::from(typed);
        if p.exists() || p.is_absolute() { p } else { Some(self.dir.join(&p)).filter(|q| q.exists()).unwrap_or(p) }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn set_dir(&mut self, dir: PathBuf) {
        self.dir = dir;
        self.refresh();
    }

    /// The lessons folder listed: `lessons/` beside the scenes folder.
    pub fn lessons_dir(&self) -> PathBuf {
        self.dir.parent().unwrap_or(Path::new("")).join("lessons")
    }

    /// Reads the folders again when next shown.
    fn refresh(&mut self) {
        self.entries = None;
        self.lessons = None;
    }

    /// Puts a file at the top of the recent list.
    pub fn remember(&mut self, path: &Path) {
        let path = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
        self.recent.retain(|p| *p != path);
        self.recent.insert(0, path);
        self.recent.truncate(MAX_RECENT);
    }

    /// Shows the panel. `current` is the open scene's file; `name` and `description` its text.
    pub fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let (current, name, description) = (cx.sim.path.as_deref(), &cx.sim.scene.name, &cx.sim.scene.description);
        let mut commands = Vec::new();
        ui.horizontal_wrapped(|ui| {
            ui.label("Open:");
            ui.strong(if name.is_empty() { "(unnamed scene)" } else { name });
            if let Some(p) = current {
                ui.weak(file_label(p));
            }
        });
        if !description.is_empty() {
            ui.add(egui::Label::new(RichText::new(description).weak()).wrap());
        }
        ui.horizontal_wrapped(|ui| {
            if ui.button("📂 Open file…").clicked() {
                match rfd::FileDialog::new().add_filter("Scene", &["ron"]).set_directory(&self.dir).pick_file() {
                    Some(p) => {
                        self.dialog_hint = false;
                        commands.push(Command::OpenScene(p));
                    }
                    // Cancelled, or no dialog could be shown (no portal or GTK on this desktop).
                    None => self.dialog_hint = true,
                }
            }
            if ui.button("📖 Open lesson…").on_hover_text("Open a guided lesson (a lessons/*.ron file)").clicked() {
                let dialog = rfd::FileDialog::new().add_filter("Lesson", &["ron"]).set_directory(self.lessons_dir());
                match dialog.pick_file() {
                    Some(p) => {
                        self.dialog_hint = false;
                        commands.push(Command::OpenLesson(p));
                    }
                    None => self.dialog_hint = true,
                }
            }
            if ui
                .button("💾 Save state as…")
                .on_hover_text(
                    "Save every body's current pose and velocity, and the current settings, as a scene file.",
                )
                .clicked()
                && let Some(p) = rfd::FileDialog::new()
                    .add_filter("Scene", &["ron"])
                    .set_directory(&self.dir)
                    .set_file_name(current.map(file_label).unwrap_or_else(|| "scene.ron".into()))
                    .save_file()
            {
                commands.push(Command::SaveScene(p));
            }
            if ui.button("Folder…").on_hover_text("List the scenes of another folder.").clicked()
                && let Some(d) = rfd::FileDialog::new().set_directory(&self.dir).pick_folder()
            {
                self.set_dir(d);
            }
            if ui.button("⟳ Refresh").clicked() {
                self.refresh();
            }
        });

        ui.horizontal(|ui| {
            let l = ui.label("Path");
            let field = ui
                .add(
                    // The hint names no file: a greyed file name reads as the one open.
                    egui::TextEdit::singleline(&mut self.typed_path)
                        .hint_text("a .ron file's path")
                        .desired_width(220.0),
                )
                .labelled_by(l.id);
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Open").on_hover_text("Open the scene file at this path").clicked() || enter)
                && !self.typed_path.trim().is_empty()
            {
                self.dialog_hint = false;
                commands.push(Command::OpenScene(self.resolve(self.typed_path.trim())));
            }
        });

        ui.add_space(4.0);
        let lessons_dir = self.lessons_dir();
        let lessons = self.lessons.get_or_insert_with(|| scan(&lessons_dir, read_lesson));
        let listed = if lessons.is_empty() {
            format!("Scenes in {}", self.dir.display())
        } else {
            format!("Lessons in {}, scenes in {}", lessons_dir.display(), self.dir.display())
        };
        ui.label(RichText::new(listed).strong());
        ui.horizontal(|ui| {
            let l = ui.label("Filter");
            ui.add(
                egui::TextEdit::singleline(&mut self.filter).hint_text("tunnel, pyramid, SAT…").desired_width(180.0),
            )
            .labelled_by(l.id)
            .on_hover_text("Show the scenes and lessons whose file, name, description or topic contains this");
            if !self.filter.is_empty() && ui.small_button("✖ Clear").on_hover_text("Show every scene").clicked() {
                self.filter.clear();
            }
        });
        let lessons = self.lessons.get_or_insert_with(|| scan(&lessons_dir, read_lesson));
        let entries = self.entries.get_or_insert_with(|| scan(&self.dir, read_scene));
        if entries.is_empty() {
            ui.weak("(no .ron files here)");
        }
        let needle = self.filter.trim().to_lowercase();
        let shown: Vec<&Entry> = lessons.iter().chain(entries.iter()).filter(|e| e.matches(&needle)).collect();
        if shown.is_empty() && !entries.is_empty() {
            ui.weak(format!("No scene matches \"{}\"", self.filter.trim()));
        }
        // The list takes the dock's height, less room for the messages and the recent files.
        let messages = [self.dialog_hint, self.notice.is_some()].iter().filter(|m| **m).count() as f32;
        let reserve = 3.0 * 34.0 + messages * 26.0 + if self.error.is_some() { 150.0 } else { 0.0 };
        let height = (ui.available_height() - reserve).max(160.0);
        egui::ScrollArea::vertical().id_salt("scene_list").max_height(height).auto_shrink([false, true]).show(
            ui,
            |ui| {
                for topic in std::iter::once(LESSONS).chain(TOPICS) {
                    let group: Vec<&&Entry> = shown.iter().filter(|e| e.topic == topic).collect();
                    if group.is_empty() {
                        continue;
                    }
                    ui.add_space(4.0);
                    ui.label(RichText::new(topic).strong().color(ui.visuals().weak_text_color()));
                    for e in group {
                        if topic == LESSONS {
                            lesson_row(ui, e, &mut commands);
                            continue;
                        }
                        let is_current = current.is_some_and(|c| same_file(c, &e.path));
                        let hover = match &e.info {
                            Ok((_, desc)) if !desc.is_empty() => format!("{}\n\n{desc}", e.path.display()),
                            Ok(_) => e.path.display().to_string(),
                            Err(e) => e.to_string(),
                        };
                        ui.horizontal_wrapped(|ui| {
                            let button = egui::Button::new(file_label(&e.path)).selected(is_current);
                            if ui.add(button).on_hover_text(&hover).clicked() {
                                commands.push(Command::OpenScene(e.path.clone()));
                            }
                            match &e.info {
                                Ok((name, _)) => ui.label(name).on_hover_text(&hover),
                                Err(_) => ui.colored_label(colors::ERROR, "cannot be read").on_hover_text(&hover),
                            };
                        });
                    }
                }
            },
        );

        // Messages go below the list, so a load error never moves the entries under the cursor.
        if self.dialog_hint {
            ui.colored_label(colors::WARN, "No file was chosen. If no dialog appeared, type the file's path above.");
        }
        if self.error.is_some() {
            egui::Frame::group(ui.style()).stroke(egui::Stroke::new(2.0, colors::ERROR)).show(ui, |ui| {
                ui.horizontal(|ui| {
                    ui.colored_label(colors::ERROR, RichText::new("⚠ Could not load").strong());
                    if ui.small_button("✖").on_hover_text("Dismiss").clicked() {
                        self.error = None;
                    }
                });
                if let Some(e) = &self.error {
                    ui.add(egui::Label::new(RichText::new(e).monospace().color(colors::ERROR)).wrap());
                    ui.label("The current scene stays open.");
                }
            });
        }
        if let Some(n) = &self.notice {
            ui.colored_label(colors::OK, n);
        }

        if !self.recent.is_empty() {
            let mut forget = None;
            egui::CollapsingHeader::new(RichText::new(format!("Recent files ({})", self.recent.len())).strong())
                .id_salt("recent_files")
                .show(ui, |ui| {
                    for (i, p) in self.recent.iter().enumerate() {
                        ui.horizontal(|ui| {
                            if ui.link(file_label(p)).on_hover_text(p.display().to_string()).clicked() {
                                commands.push(Command::OpenScene(p.clone()));
                            }
                            if ui.small_button("✖").on_hover_text("Forget this file").clicked() {
                                forget = Some(i);
                            }
                        });
                    }
                });
            if let Some(i) = forget {
                self.recent.remove(i);
            }
        }
        commands
    }
}

impl Entry {
    /// Whether the file name, scene name, description or topic contains `needle` (lower case).
    fn matches(&self, needle: &str) -> bool {
        if needle.is_empty() {
            return true;
        }
        let (name, desc) = self.info.as_ref().map(|(n, d)| (n.as_str(), d.as_str())).unwrap_or(("", ""));
        [file_label(&self.path).as_str(), name, desc, self.topic].iter().any(|t| t.to_lowercase().contains(needle))
    }
}

/// The topics the scene list is grouped under, in order.
pub(super) const TOPICS: [&str; 8] =
    ["Lessons", "Broad phase", "Narrow phase", "CCD", "Stacking", "Materials and motion", "Meshes", "Other"];

/// The topic a scene file is listed under, from its file name.
pub(super) fn topic_of(path: &Path) -> &'static str {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let starts = |p: &str| stem.starts_with(p);
    match stem {
        _ if starts("broadphase") => "Broad phase",
        _ if starts("narrowphase") => "Narrow phase",
        _ if starts("tunneling") => "CCD",
        _ if starts("mesh") => "Meshes",
        "rain_1000" => "Broad phase",
        "sphere_vs_rotated_box" => "Narrow phase",
        "ghost_lab" => "Meshes",
        "box_stack" | "pyramid" | "large_pyramid" | "many_pyramids" | "tower" | "mixed_stack" | "thin_column"
        | "staggered_wall" | "jitter" => "Stacking",
        "restitution" | "frictionless_pair" | "energy_box" | "newtons_cradle" | "ramp" => "Materials and motion",
        "default" | "ray_slab" | "geometric_tests" | "compounds" => "Lessons",
        _ => "Other",
    }
}

/// The `.ron` files of a folder, sorted by name, each read by `read`.
fn scan(dir: &Path, read: fn(&Path) -> Entry) -> Vec<Entry> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut paths: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ron"))
        .collect();
    paths.sort();
    paths.iter().map(|p| read(p)).collect()
}

/// A scene file's entry: its name and description, under its topic.
fn read_scene(path: &Path) -> Entry {
    let info = Scene::load(path).map(|s| (s.name, s.description)).map_err(|e| Unreadable::Scene(Box::new(e)));
    Entry { path: path.to_path_buf(), info, topic: topic_of(path) }
}

/// A lesson file's entry: its title and summary, checked as opening it checks it.
fn read_lesson(path: &Path) -> Entry {
    let info =
        crate::app::load_lesson(path).map(|(l, _)| (l.title, l.summary)).map_err(|e| Unreadable::Lesson(Box::new(e)));
    Entry { path: path.to_path_buf(), info, topic: LESSONS }
}

/// A lesson of the list: its title, which opens it (a broken one says why on hover, and opening
/// it shows the error).
fn lesson_row(ui: &mut Ui, e: &Entry, commands: &mut Vec<Command>) {
    let (title, hover) = match &e.info {
        Ok((title, summary)) => (title.clone(), format!("{}\n\n{summary}", e.path.display())),
        Err(why) => (file_label(&e.path), why.to_string()),
    };
    ui.horizontal_wrapped(|ui| {
        if ui.button(format!("📖 {title}")).on_hover_text(&hover).clicked() {
            commands.push(Command::OpenLesson(e.path.clone()));
        }
        if e.info.is_err() {
            ui.colored_label(colors::ERROR, "cannot be read").on_hover_text(&hover);
        }
    });
}

fn same_file(a: &Path, b: &Path) -> bool {
    a == b || matches!((std::fs::canonicalize(a), std::fs::canonicalize(b)), (Ok(x), Ok(y)) if x == y)
}
