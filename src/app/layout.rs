//! Which panels are open and where they sit. The 3D view owns the window: the side panels live
//! in two docks (left and right) that show one panel at a time as tabs and collapse to a strip,
//! the profiler and the timeline sit along the bottom, and presentation mode shows one chosen
//! panel only.

use serde::{Deserialize, Serialize};

/// One of the app's panels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum PanelId {
    Scenes,
    Settings,
    Sweep,
    /// Events of a run, their causes and the fixes tried.
    Diagnose,
    Inspector,
    View,
    Pair,
    /// The Ray tool (slab method).
    Ray,
    /// The geometric tests lesson.
    Tests,
    Profiler,
    Timeline,
}

/// Where a panel is docked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dock {
    Left,
    Right,
    Bottom,
}

impl PanelId {
    /// In toolbar order.
    pub const ALL: [PanelId; 11] = [
        PanelId::Scenes,
        PanelId::Settings,
        PanelId::Profiler,
        PanelId::Inspector,
        PanelId::View,
        PanelId::Sweep,
        PanelId::Diagnose,
        PanelId::Pair,
        PanelId::Ray,
        PanelId::Tests,
        PanelId::Timeline,
    ];

    /// The teaching tools, switched from the toolbar's "Tools…" menu.
    pub const TOOLS: [PanelId; 2] = [PanelId::Ray, PanelId::Tests];

    /// Panels without a button on the toolbar's row (the row holds the others at 1600 px): the
    /// teaching tools, and Diagnose, opened from the Timeline. All are in the folded
    /// "Panels…" menu.
    pub const OFF_ROW: [PanelId; 3] = [PanelId::Ray, PanelId::Tests, PanelId::Diagnose];

    pub fn label(self) -> &'static str {
        match self {
            PanelId::Scenes => "Scenes",
            PanelId::Settings => "Settings",
            PanelId::Sweep => "Sweep",
            PanelId::Diagnose => "Diagnose",
            PanelId::Inspector => "Inspector",
            PanelId::View => "View",
            PanelId::Pair => "Pair",
            PanelId::Ray => "Ray",
            PanelId::Tests => "Tests",
            PanelId::Profiler => "Profiler",
            PanelId::Timeline => "Timeline",
        }
    }

    pub fn hint(self) -> &'static str {
        match self {
            PanelId::Scenes => "Open, save and reload scene files",
            PanelId::Settings => "The world's settings, changed live",
            PanelId::Sweep => "Run the scene over a range of settings and plot the results",
            PanelId::Diagnose => "Run the scene, find what goes wrong, its cause, and the fixes that remove it",
            PanelId::Inspector => "The selected body: its state and its history over time",
            PanelId::View => "Debug layers, colours and the camera",
            PanelId::Pair => "How the narrow phase answers the selected body and a partner, step by step",
            PanelId::Ray => "The Ray tool: draw a ray in the view and see the slab method's per-axis intervals",
            PanelId::Tests => {
                "Geometric tests on the floor: point in a view cone, rectangles by separating axes, grid cells"
            }
            PanelId::Profiler => "Per-phase time and counters of every step",
            PanelId::Timeline => "Record, scrub, fork and compare (Ctrl+R records; shown while recording)",
        }
    }

    /// The symbol on a collapsed dock's strip.
    pub fn icon(self) -> &'static str {
        match self {
            PanelId::Scenes => "📂",
            PanelId::Settings => "⚙",
            PanelId::Sweep => "📈",
            PanelId::Diagnose => "🔬",
            PanelId::Inspector => "🔍",
            PanelId::View => "👁",
            PanelId::Pair => "⚔",
            PanelId::Ray => "↗",
            PanelId::Tests => "▦",
            PanelId::Profiler => "⏱",
            PanelId::Timeline => "⏺",
        }
    }

    /// A side panel's starting width (at most a quarter of the window) and the range it can be
    /// dragged to: each panel keeps its own, so a dock is as wide as what it shows.
    pub fn width(self) -> (f32, std::ops::RangeInclusive<f32>) {
        match self {
            PanelId::Scenes => (340.0, 260.0..=600.0),
            PanelId::Settings => (400.0, 300.0..=640.0),
            PanelId::Sweep => (440.0, 320.0..=760.0),
            PanelId::Diagnose => (460.0, 320.0..=760.0),
            PanelId::Inspector => (360.0, 260.0..=600.0),
            PanelId::View => (300.0, 240.0..=480.0),
            PanelId::Pair => (440.0, 300.0..=760.0),
            PanelId::Ray => (420.0, 300.0..=700.0),
            PanelId::Tests => (400.0, 300.0..=700.0),
            PanelId::Profiler | PanelId::Timeline => (300.0, 200.0..=600.0),
        }
    }

    pub fn dock(self) -> Dock {
        match self {
            PanelId::Scenes | PanelId::Settings | PanelId::Sweep | PanelId::Diagnose => Dock::Left,
            PanelId::Inspector | PanelId::View | PanelId::Pair | PanelId::Ray | PanelId::Tests => Dock::Right,
            PanelId::Profiler | PanelId::Timeline => Dock::Bottom,
        }
    }

    /// The panels of `dock`, in tab order.
    pub fn in_dock(dock: Dock) -> impl Iterator<Item = PanelId> {
        PanelId::ALL.into_iter().filter(move |p| p.dock() == dock)
    }
}

impl std::str::FromStr for PanelId {
    type Err = super::UnknownPanel;

    /// A panel by its name, any case (`scenes`, `settings`, `profiler`, ...).
    fn from_str(s: &str) -> Result<Self, super::UnknownPanel> {
        PanelId::ALL
            .into_iter()
            .find(|p| p.label().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| super::UnknownPanel { name: s.to_string() })
    }
}

/// Which panels are open, which tab each side dock shows and whether it is collapsed. The first
/// run opens the scene browser only, so the 3D view has most of the window.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct OpenPanels {
    pub scenes: bool,
    pub settings: bool,
    pub profiler: bool,
    pub inspector: bool,
    pub view: bool,
    /// The narrow-phase pair panel.
    pub pair: bool,
    /// The recording timeline along the bottom (always shown while recording).
    pub timeline: bool,
    /// Parameter sweeps of the open scene.
    pub sweep: bool,
    /// Diagnosis of the open scene.
    pub diagnose: bool,
    /// The teaching tools' panels.
    pub ray: bool,
    pub tests: bool,
    /// The tab each side dock shows when more than one of its panels is open.
    pub left_tab: Option<PanelId>,
    pub right_tab: Option<PanelId>,
    /// A collapsed dock shows a narrow strip of its tabs instead of a panel.
    pub left_collapsed: bool,
    pub right_collapsed: bool,
    /// The one panel presentation mode shows beside the view, if any.
    pub presenting: Option<PanelId>,
    /// Side panels shown in the other side's dock (the Inspector joins an open left dock as a
    /// tab rather than opening a new column).
    pub moved: Vec<PanelId>,
}

impl Default for OpenPanels {
    fn default() -> Self {
        OpenPanels {
            scenes: true,
            settings: false,
            profiler: false,
            inspector: false,
            view: false,
            pair: false,
            timeline: false,
            sweep: false,
            diagnose: false,
            ray: false,
            tests: false,
            left_tab: None,
            right_tab: None,
            left_collapsed: false,
            right_collapsed: false,
            presenting: Some(PanelId::Scenes),
            moved: Vec::new(),
        }
    }
}

impl OpenPanels {
    /// Only `p` open, the first-run layout otherwise (a scripted screenshot's).
    pub fn only(p: PanelId) -> Self {
        let mut open = OpenPanels { scenes: false, ..OpenPanels::default() };
        open.set_open(p, true);
        open
    }

    pub fn is_open(&self, p: PanelId) -> bool {
        match p {
            PanelId::Scenes => self.scenes,
            PanelId::Settings => self.settings,
            PanelId::Sweep => self.sweep,
            PanelId::Diagnose => self.diagnose,
            PanelId::Inspector => self.inspector,
            PanelId::View => self.view,
            PanelId::Pair => self.pair,
            PanelId::Ray => self.ray,
            PanelId::Tests => self.tests,
            PanelId::Profiler => self.profiler,
            PanelId::Timeline => self.timeline,
        }
    }

    pub fn set_open(&mut self, p: PanelId, on: bool) {
        let flag = match p {
            PanelId::Scenes => &mut self.scenes,
            PanelId::Settings => &mut self.settings,
            PanelId::Sweep => &mut self.sweep,
            PanelId::Diagnose => &mut self.diagnose,
            PanelId::Inspector => &mut self.inspector,
            PanelId::View => &mut self.view,
            PanelId::Pair => &mut self.pair,
            PanelId::Ray => &mut self.ray,
            PanelId::Tests => &mut self.tests,
            PanelId::Profiler => &mut self.profiler,
            PanelId::Timeline => &mut self.timeline,
        };
        *flag = on;
    }

    /// The dock `p` shows in: its own, or the other side's when it was moved there.
    pub fn dock_of(&self, p: PanelId) -> Dock {
        match p.dock() {
            Dock::Left if self.moved.contains(&p) => Dock::Right,
            Dock::Right if self.moved.contains(&p) => Dock::Left,
            d => d,
        }
    }

    /// Shows `p` in the other side's dock from now on (or back in its own).
    pub fn move_to(&mut self, p: PanelId, dock: Dock) {
        self.moved.retain(|m| *m != p);
        if dock != p.dock() && dock != Dock::Bottom && p.dock() != Dock::Bottom {
            self.moved.push(p);
        }
    }

    /// Whether a side dock is on screen, expanded, with a panel in it.
    pub fn expanded(&self, dock: Dock) -> bool {
        dock != Dock::Bottom && !self.collapsed(dock) && self.active(dock).is_some()
    }

    fn tab_mut(&mut self, dock: Dock) -> Option<(&mut Option<PanelId>, &mut bool)> {
        match dock {
            Dock::Left => Some((&mut self.left_tab, &mut self.left_collapsed)),
            Dock::Right => Some((&mut self.right_tab, &mut self.right_collapsed)),
            Dock::Bottom => None,
        }
    }

    pub fn collapsed(&self, dock: Dock) -> bool {
        match dock {
            Dock::Left => self.left_collapsed,
            Dock::Right => self.right_collapsed,
            Dock::Bottom => false,
        }
    }

    pub fn set_collapsed(&mut self, dock: Dock, on: bool) {
        if let Some((_, c)) = self.tab_mut(dock) {
            *c = on;
        }
    }

    /// The panel a side dock shows: its chosen tab if that is open, else its first open panel.
    pub fn active(&self, dock: Dock) -> Option<PanelId> {
        let chosen = match dock {
            Dock::Left => self.left_tab,
            Dock::Right => self.right_tab,
            Dock::Bottom => None,
        };
        chosen.filter(|p| self.dock_of(*p) == dock && self.is_open(*p)).or_else(|| self.tabs(dock).into_iter().next())
    }

    /// The open panels of a dock, in tab order.
    pub fn tabs(&self, dock: Dock) -> Vec<PanelId> {
        PanelId::ALL.into_iter().filter(|p| self.dock_of(*p) == dock && self.is_open(*p)).collect()
    }

    /// Opens `p` and brings it to the front of its dock, expanding the dock.
    pub fn show(&mut self, p: PanelId) {
        self.set_open(p, true);
        if let Some((tab, collapsed)) = self.tab_mut(self.dock_of(p)) {
            *tab = Some(p);
            *collapsed = false;
        }
    }

    /// Whether `p`'s content is on screen (outside presentation mode): open and, in a side dock,
    /// the dock's active tab with the dock expanded.
    pub fn visible(&self, p: PanelId) -> bool {
        let dock = self.dock_of(p);
        self.is_open(p) && (dock == Dock::Bottom || (self.active(dock) == Some(p) && !self.collapsed(dock)))
    }

    /// A toolbar click on `p`: hides it when it is on screen, else shows it.
    pub fn toggle(&mut self, p: PanelId) {
        if self.visible(p) {
            self.set_open(p, false);
        } else {
            self.show(p);
        }
    }

    /// Brings `p` forward without adding a column to the window when a side dock is already on
    /// screen: a panel that is not open joins the expanded dock as a tab (its own dock first).
    /// With no dock on screen it opens in its own.
    pub fn show_as_tab(&mut self, p: PanelId) {
        let home = p.dock();
        if home != Dock::Bottom && !self.is_open(p) {
            let other = if home == Dock::Left { Dock::Right } else { Dock::Left };
            let dock = if self.expanded(home) || !self.expanded(other) { home } else { other };
            self.move_to(p, dock);
        }
        self.show(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panels_parse_by_name_and_an_unknown_name_lists_them() {
        assert_eq!("profiler".parse::<PanelId>(), Ok(PanelId::Profiler));
        assert_eq!("Pair".parse::<PanelId>(), Ok(PanelId::Pair));
        let e = "graphs".parse::<PanelId>().unwrap_err().to_string();
        assert!(e.contains("`graphs`") && e.contains("scenes, settings, profiler"), "{e}");
    }

    #[test]
    fn the_first_run_opens_one_side_panel() {
        let o = OpenPanels::default();
        let open: Vec<PanelId> = PanelId::ALL.into_iter().filter(|p| o.is_open(*p)).collect();
        assert_eq!(open, vec![PanelId::Scenes]);
    }

    #[test]
    fn a_dock_shows_its_chosen_tab_or_its_first_open_panel() {
        let mut o = OpenPanels { scenes: false, ..Default::default() };
        assert_eq!(o.active(Dock::Left), None);
        o.set_open(PanelId::Sweep, true);
        o.set_open(PanelId::Settings, true);
        assert_eq!(o.active(Dock::Left), Some(PanelId::Settings), "first in tab order");
        o.show(PanelId::Sweep);
        assert_eq!(o.active(Dock::Left), Some(PanelId::Sweep));
        assert_eq!(o.tabs(Dock::Left), vec![PanelId::Settings, PanelId::Sweep]);
        o.toggle(PanelId::Sweep);
        assert!(!o.sweep);
        assert_eq!(o.active(Dock::Left), Some(PanelId::Settings), "the next open tab takes over");
    }

    #[test]
    fn a_panel_shown_as_a_tab_joins_the_dock_on_screen() {
        let mut o = OpenPanels::default();
        assert!(o.expanded(Dock::Left) && !o.expanded(Dock::Right));
        o.show_as_tab(PanelId::Inspector);
        assert_eq!(o.dock_of(PanelId::Inspector), Dock::Left);
        assert_eq!(o.tabs(Dock::Left), vec![PanelId::Scenes, PanelId::Inspector]);
        assert!(o.visible(PanelId::Inspector) && !o.expanded(Dock::Right), "no new column");
        // Closed and shown again with its own dock open: it goes home.
        o.set_open(PanelId::Inspector, false);
        o.show(PanelId::View);
        o.show_as_tab(PanelId::Inspector);
        assert_eq!(o.dock_of(PanelId::Inspector), Dock::Right);
        assert_eq!(o.tabs(Dock::Right), vec![PanelId::Inspector, PanelId::View]);
        // No dock on screen: its own dock opens.
        let mut o = OpenPanels { scenes: false, ..Default::default() };
        o.show_as_tab(PanelId::Inspector);
        assert_eq!(o.dock_of(PanelId::Inspector), Dock::Right);
    }

    #[test]
    fn toggling_a_hidden_panel_brings_it_forward_and_expands_its_dock() {
        let mut o =
            OpenPanels { inspector: true, view: true, right_tab: Some(PanelId::Inspector), ..Default::default() };
        o.set_collapsed(Dock::Right, true);
        assert!(!o.visible(PanelId::Inspector));
        o.toggle(PanelId::View);
        assert!(o.view && o.visible(PanelId::View) && !o.right_collapsed);
        assert!(o.inspector && !o.visible(PanelId::Inspector), "still open, behind its tab");
        o.toggle(PanelId::View);
        assert!(!o.view && o.visible(PanelId::Inspector));
    }
}
