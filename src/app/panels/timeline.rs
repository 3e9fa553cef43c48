//! The timeline panel: record / stop, open, save and verify recordings, and a scrubber over the
//! recorded steps with event markers (one colour per kind, each kind filterable).

use super::PanelCx;
use super::{Command, colors};
use crate::engine::Engine;
use crate::record::{Event, EventKind};
use crate::session::sim::{SPEED_RANGE, Simulation};
use crate::session::timeline::{RecordCommand, Review};
use eframe::egui::{self, Color32, Pos2, Rect, RichText, Sense, Stroke, Ui, pos2, vec2};

/// The marker colour of each event kind, in the order of [`EventKind::ALL`].
pub(super) const KIND_COLORS: [Color32; 10] = [
    Color32::from_rgb(90, 200, 255),  // time of impact
    Color32::from_rgb(150, 160, 200), // fell asleep
    Color32::from_rgb(120, 220, 140), // new contact
    Color32::from_rgb(255, 200, 90),  // flickering contact
    Color32::from_rgb(230, 170, 40),  // restless body
    Color32::from_rgb(255, 90, 80),   // deep penetration
    Color32::from_rgb(255, 120, 220), // large jump
    Color32::from_rgb(255, 150, 50),  // energy spike
    Color32::from_rgb(255, 255, 255), // non-finite state
    Color32::from_rgb(200, 255, 80),  // ghost bump
];

pub(super) fn kind_color(kind: EventKind) -> Color32 {
    KIND_COLORS[kind_index(kind)]
}

fn kind_index(kind: EventKind) -> usize {
    EventKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)
}

/// Height of one marker lane; each event kind has its own lane above the track.
const LANE: f32 = 6.0;
const TRACK: f32 = 8.0;
/// A click this close (points) to a marker picks it.
const PICK: f32 = 5.0;

pub(crate) struct TimelinePanel {
    /// Which event kinds are drawn, in the order of [`EventKind::ALL`].
    pub shown: [bool; EventKind::ALL.len()],
}

impl Default for TimelinePanel {
    fn default() -> Self {
        TimelinePanel { shown: [true; EventKind::ALL.len()] }
    }
}

impl TimelinePanel {
    pub(crate) fn shows(&self, kind: EventKind) -> bool {
        self.shown[kind_index(kind)]
    }

    pub(crate) fn ui(&mut self, ui: &mut Ui, cx: &mut PanelCx) -> Vec<Command> {
        let sim = cx.sim;
        let mut out = Vec::new();
        let rec = |c| Command::Record(c);
        ui.horizontal_wrapped(|ui| {
            ui.heading("Timeline");
            if let Some(t) = &sim.record.tape {
                if ui
                    .button(RichText::new("⏹ Stop recording").strong())
                    .on_hover_text("Stop and put the recording on the timeline (Ctrl+R)")
                    .clicked()
                {
                    out.push(rec(RecordCommand::ToggleRecording));
                }
                ui.label(RichText::new(format!("⏺ REC {} steps", t.steps())).color(colors::ERROR).strong());
            } else if ui
                .button(RichText::new("⏺ Record").strong())
                .on_hover_text(
                    "Record every step and every action (settings, drags, shots) so the run can be replayed, scrubbed and forked (Ctrl+R)",
                )
                .clicked()
            {
                out.push(rec(RecordCommand::ToggleRecording));
            }
            if ui.button("📂 Open recording…").on_hover_text("Open a recording (binary .cdrec or RON) onto the timeline").clicked()
                && let Some(p) = rfd::FileDialog::new().add_filter("Recording", &["cdrec", "ron"]).pick_file()
            {
                out.push(rec(RecordCommand::Open(p)));
                out.push(Command::FrameAll);
            }
            let has = sim.record.tape.is_some() || sim.record.review.is_some();
            if ui
                .add_enabled(has, egui::Button::new("💾 Save recording…"))
                .on_hover_text(
                    "Write the recording (atomically): binary if the name ends in .cdrec, else RON; `collidoscope replay` checks it",
                )
                .clicked()
                && let Some(p) =
                    rfd::FileDialog::new().add_filter("Recording", &["cdrec", "ron"]).set_file_name("recording.cdrec").save_file()
            {
                out.push(rec(RecordCommand::Save(p)));
            }
            if ui
                .add_enabled(sim.record.review.is_some(), egui::Button::new("🎞 Export clip…"))
                .on_hover_text("Render the recording's steps, as this view shows them, into an animated GIF (`collidoscope clip`)")
                .clicked()
                && let Some(p) = rfd::FileDialog::new().add_filter("GIF", &["gif"]).set_file_name("clip.gif").save_file()
            {
                out.push(Command::ExportClip(p));
            }
            if ui
                .add_enabled(has, egui::Button::new("✔ Verify"))
                .on_hover_text("Replay the recording from its scene and check the state hash of every step")
                .clicked()
            {
                out.push(rec(RecordCommand::Verify));
            }
            if ui.button("🔬 Diagnose…").on_hover_text(crate::app::PanelId::Diagnose.hint()).clicked() {
                out.push(Command::ShowPanel(crate::app::PanelId::Diagnose));
            }
            ui.separator();
            match &sim.record.partner {
                None => {
                    if ui
                        .button("A/B from here")
                        .on_hover_text("Compare two worlds stepped together: A is a copy of this one; change B's settings")
                        .clicked()
                    {
                        out.push(rec(RecordCommand::StartAb { from_start: false }));
                    }
                    if ui
                        .button("A/B from start")
                        .on_hover_text("Both worlds start from the scene: A with the scene file's settings, B with the current ones; change B's settings")
                        .clicked()
                    {
                        out.push(rec(RecordCommand::StartAb { from_start: true }));
                    }
                    if cfg!(feature = "rapier")
                        && ui
                            .button("A/B vs rapier3d")
                            .on_hover_text(
                                "Run the scene in rapier3d beside this world, from the scene's start: \
                                 A is this world (Collidoscope), B is rapier3d with the settings that map",
                            )
                            .clicked()
                    {
                        out.push(rec(RecordCommand::StartAbPeer { engine: Engine::Rapier, from_start: true }));
                    }
                    if cfg!(feature = "jolt")
                        && ui
                            .button("A/B vs Jolt")
                            .on_hover_text(
                                "Run the scene in Jolt Physics beside this world, from the scene's start: \
                                 A is this world (Collidoscope), B is Jolt with the settings that map",
                            )
                            .clicked()
                    {
                        out.push(rec(RecordCommand::StartAbPeer { engine: Engine::Jolt, from_start: true }));
                    }
                }
                Some(_) => {
                    let mut on = sim.record.side_by_side;
                    if ui.toggle_value(&mut on, "A/B side by side").changed() {
                        out.push(rec(RecordCommand::SideBySide(on)));
                    }
                    if ui.button("End A/B").clicked() {
                        out.push(rec(RecordCommand::CloseAb));
                    }
                }
            }
            super::status_line(ui, sim.record.status.as_ref());
        });
        if let Some(review) = &sim.record.review {
            self.review_ui(ui, sim, review, &mut out);
        } else if sim.record.tape.is_none() {
            ui.label("Press ⏺ Record (Ctrl+R), play, then stop: the run appears here to scrub, fork and compare.");
        }
        out
    }

    fn review_ui(&mut self, ui: &mut Ui, sim: &Simulation, review: &Review, out: &mut Vec<Command>) {
        let rec = |c| Command::Record(c);
        let recording = sim.record.tape.is_some();
        let follows = review.follows(&sim.world);
        let cursor = if follows { review.cursor } else { sim.world.step_count().min(review.steps()) };
        ui.horizontal_wrapped(|ui| {
            ui.add_enabled_ui(!recording, |ui| {
                if ui.button("⏮").on_hover_text("Back to the first step").clicked() {
                    out.push(rec(RecordCommand::Seek(0)));
                }
                if ui.button("◀ Step back").on_hover_text("One step back: the nearest keyframe, re-simulated (Left arrow)").clicked()
                {
                    out.push(rec(RecordCommand::StepBack));
                }
                if ui.button("⏪").on_hover_text("Previous marker").clicked()
                    && let Some(e) = review.next_event(false, &|k| self.shows(k))
                {
                    jump(out, e);
                }
                if ui.button("⏩").on_hover_text("Next marker").clicked()
                    && let Some(e) = review.next_event(true, &|k| self.shows(k))
                {
                    jump(out, e);
                }
                if ui.button("⏭").on_hover_text("The last recorded step").clicked() {
                    out.push(rec(RecordCommand::Seek(review.steps())));
                }
            });
            let where_ = if follows {
                RichText::new(format!("step {} / {}", review.cursor, review.steps())).monospace().strong()
            } else {
                RichText::new(format!("live at step {} (recording: {} steps)", sim.world.step_count(), review.steps()))
                    .monospace()
                    .color(colors::WARN)
            };
            ui.label(where_).on_hover_text(
                "While the world follows the recording, Play and Step replay it. Any change (a setting, a drag, a shot) forks it.",
            );
            ui.label(RichText::new(&review.name).italics());
            let mut looping = review.looping;
            if ui.checkbox(&mut looping, "Loop").on_hover_text("Start over at the end of the recording").changed() {
                out.push(rec(RecordCommand::SetLooping(looping)));
            }
            let l = ui.label("Speed").id;
            let mut speed = sim.speed;
            if ui
                .add(egui::Slider::new(&mut speed, SPEED_RANGE).logarithmic(true).custom_formatter(|v, _| format!("{v:.2}×")))
                .on_hover_text("Playback speed: simulated time per real second")
                .labelled_by(l)
                .changed()
            {
                out.push(rec(RecordCommand::SetSpeed(speed)));
            }
            ui.separator();
            if ui
                .add_enabled(!recording && follows, egui::Button::new("🔀 Fork here"))
                .on_hover_text(
                    "Branch the run at this step: B continues with the settings you change, A replays the original beside it. Changing a setting here forks too.",
                )
                .clicked()
            {
                out.push(rec(RecordCommand::Fork));
            }
            if ui.button("✖").on_hover_text("Close the recording (save it first to keep it)").clicked() {
                out.push(rec(RecordCommand::CloseReview));
            }
        });
        if let Some(step) = self.scrubber(ui, review, cursor, !recording, out) {
            out.push(rec(RecordCommand::Seek(step)));
        }
        ui.horizontal_wrapped(|ui| {
            ui.label("Markers:");
            for (k, kind) in EventKind::ALL.iter().enumerate() {
                let n = review.events.iter().filter(|e| e.kind == *kind).count();
                let text = RichText::new(format!("{} ({n})", kind.label())).color(KIND_COLORS[k]);
                ui.checkbox(&mut self.shown[k], text).on_hover_text(kind_help(*kind));
            }
        });
        let here: Vec<&Event> = review.events.iter().filter(|e| e.step == cursor && self.shows(e.kind)).collect();
        if !here.is_empty() {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("At step {cursor}:"));
                for e in here.iter().take(6) {
                    let r = ui.link(RichText::new(&e.detail).color(kind_color(e.kind)));
                    if r.clicked()
                        && let Some(&b) = e.bodies.first()
                    {
                        out.push(Command::Select(Some(b as usize)));
                    }
                    if let Some(symptom) = crate::diagnose::Symptom::of_event(e.kind)
                        && ui
                            .small_button("Reduce to a minimal case")
                            .on_hover_text("Remove bodies while this event still happens (in the Diagnose panel)")
                            .clicked()
                    {
                        // Diagnose names the dynamic body of a pair first.
                        let dynamic = |b: &&u32| sim.world.bodies().get(**b as usize).is_some_and(|b| b.is_dynamic());
                        let body = e.bodies.iter().find(dynamic).copied();
                        out.push(Command::Reduce { symptom, body, step: e.step });
                    }
                }
                if here.len() > 6 {
                    ui.label(format!("… and {} more", here.len() - 6));
                }
            });
        }
    }

    /// The scrubber: lanes of markers above a track with the cursor. Returns the step to seek to
    /// when the track is clicked or dragged; a click on a marker jumps there and selects.
    fn scrubber(
        &self,
        ui: &mut Ui,
        review: &Review,
        cursor: u64,
        enabled: bool,
        out: &mut Vec<Command>,
    ) -> Option<u64> {
        let n = review.steps().max(1);
        let height = LANE * EventKind::ALL.len() as f32 + TRACK + 14.0;
        let sense = if enabled { Sense::click_and_drag() } else { Sense::hover() };
        let (rect, resp) = ui.allocate_exact_size(vec2(ui.available_width().max(120.0), height), sense);
        let resp =
            resp.on_hover_text_at_pointer("Click or drag to scrub; click a marker to jump there and select its bodies");
        let painter = ui.painter_at(rect);
        let left = rect.left() + 8.0;
        let width = (rect.width() - 16.0).max(1.0);
        let x_of = |s: u64| left + width * s as f32 / n as f32;
        let lanes_top = rect.top() + 2.0;
        let track = Rect::from_min_size(pos2(left, lanes_top + LANE * 7.0 + 2.0), vec2(width, TRACK));
        painter.rect_filled(track, 3.0, Color32::from_gray(70));
        // Keyframes: where a seek starts re-simulating.
        for kf in &review.recording.keyframes {
            let x = x_of(kf.step);
            painter.line_segment(
                [pos2(x, track.top()), pos2(x, track.bottom())],
                Stroke::new(1.0, Color32::from_gray(110)),
            );
        }
        let mut markers: Vec<(Pos2, &Event)> = Vec::new();
        for e in review.events.iter().filter(|e| self.shows(e.kind)) {
            let k = kind_index(e.kind);
            let y0 = lanes_top + LANE * k as f32;
            let x = x_of(e.step);
            painter.rect_filled(Rect::from_min_size(pos2(x - 1.0, y0), vec2(2.5, LANE - 1.0)), 0.0, KIND_COLORS[k]);
            markers.push((pos2(x, y0 + LANE * 0.5), e));
        }
        if let Some(f) = review.fork_from {
            let x = x_of(f);
            painter.line_segment([pos2(x, rect.top()), pos2(x, rect.bottom())], Stroke::new(2.0, colors::WARN));
            painter.text(
                pos2(x + 3.0, rect.bottom() - 1.0),
                egui::Align2::LEFT_BOTTOM,
                "fork",
                egui::FontId::proportional(11.0),
                colors::WARN,
            );
        }
        let cx = x_of(cursor);
        painter.line_segment([pos2(cx, rect.top()), pos2(cx, track.bottom() + 4.0)], Stroke::new(2.0, Color32::WHITE));
        painter.circle_filled(pos2(cx, track.center().y), 6.0, Color32::WHITE);
        painter.text(
            pos2(rect.right() - 4.0, rect.bottom() - 1.0),
            egui::Align2::RIGHT_BOTTOM,
            format!("{} steps", review.steps()),
            egui::FontId::monospace(11.0),
            Color32::from_gray(170),
        );

        let pointer = resp.interact_pointer_pos().or(resp.hover_pos())?;
        let nearest = markers
            .iter()
            .filter(|(p, _)| (p.x - pointer.x).abs() <= PICK && (p.y - pointer.y).abs() <= LANE)
            .min_by(|a, b| (a.0.x - pointer.x).abs().total_cmp(&(b.0.x - pointer.x).abs()));
        if let Some((_, e)) = nearest {
            resp.clone().on_hover_text_at_pointer(format!("step {}: {}", e.step, e.detail));
            if resp.clicked() {
                jump(out, e);
                return None;
            }
        }
        if resp.clicked() || resp.dragged() {
            let s = (((pointer.x - left) / width) * n as f32).round().clamp(0.0, review.steps() as f32) as u64;
            if s != cursor || resp.clicked() {
                return Some(s);
            }
        }
        None
    }
}

/// Seeks to an event and selects its first body.
fn jump(out: &mut Vec<Command>, e: &Event) {
    out.push(Command::Record(RecordCommand::Seek(e.step)));
    if let Some(&b) = e.bodies.first() {
        out.push(Command::Select(Some(b as usize)));
    }
}

fn kind_help(kind: EventKind) -> &'static str {
    match kind {
        EventKind::Toi => "Continuous collision stopped a fast body at its time of impact.",
        EventKind::FellAsleep => "A body came to rest and fell asleep.",
        EventKind::NewContact => "Two bodies touched for the first time.",
        EventKind::ContactFlicker => "A contact switched on and off repeatedly within a few steps: jitter.",
        EventKind::Restless => {
            "A body in contact stayed in place for two seconds without coming to rest: jitter that switches no \
             contact off."
        }
        EventKind::DeepPenetration => "Bodies overlap far beyond the slop: a tunneling or solver suspect.",
        EventKind::LargeJump => "A body moved farther in one step than its own size: a tunneling suspect.",
        EventKind::EnergySpike => "Total energy rose without a user action: an instability.",
        EventKind::NonFinite => "A body's state became NaN or infinite; the step froze it where it was.",
        EventKind::GhostBump => {
            "A body on a triangle mesh or height field was kicked up, or its contact normal jumped: a ghost collision on an internal edge (try the Internal edges setting)."
        }
    }
}
