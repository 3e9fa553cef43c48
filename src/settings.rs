//! Every tunable of the simulation, and the choices of algorithm it holds.

use crate::broadphase::BroadPhaseKind;
use crate::math::{Real, Vec3};
use crate::narrowphase::NarrowPhaseKind;
use crate::narrowphase::mesh::InternalEdges;
use crate::rules::{self, de};
pub use crate::rules::{FieldError, ValueError};
use serde::{Deserialize, Serialize};

/// How fast bodies are kept from tunneling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum CcdMode {
    /// Discrete collision only: fast, thin obstacles can be missed (the tunneling lessons set it
    /// to show that).
    Off,
    /// Every moving body's contacts reach as far as it can move this step (linear motion plus
    /// turn times reach); the solver stops it at the surface. The default.
    #[default]
    Speculative,
    /// Bullets and bodies faster than `ccd_speed_threshold` are swept against the world after
    /// the solver and stopped at the time of impact; the other moving bodies get speculative
    /// contacts as with [`CcdMode::Speculative`].
    Toi,
}

impl CcdMode {
    /// Every mode, in the order the app and the CLI list them.
    pub const ALL: &'static [CcdMode] = &[CcdMode::Off, CcdMode::Speculative, CcdMode::Toi];

    /// The name used on the command line.
    pub fn cli_name(self) -> &'static str {
        match self {
            CcdMode::Off => "off",
            CcdMode::Speculative => "speculative",
            CcdMode::Toi => "toi",
        }
    }

    /// The mode whose [`cli_name`](Self::cli_name) is `name`.
    pub fn from_cli_name(name: &str) -> Option<CcdMode> {
        Self::ALL.iter().copied().find(|m| m.cli_name() == name)
    }
}

/// How contacts push overlapping bodies apart.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum PositionCorrection {
    /// A velocity bias proportional to the penetration beyond the slop (`baumgarte` factor).
    /// Within the slop contacts are rigid and tilts inside it stay.
    Baumgarte,
    /// A soft constraint: a spring of `contact_hertz` and `damping_ratio` whose rest depth is
    /// half the slop, then a relax pass that removes the push-out velocity (Box2D v3's soft step).
    /// Bodies settle to the slop plus a sag proportional to the load they carry.
    #[default]
    Soft,
}

impl PositionCorrection {
    /// Both, in the order the app lists them.
    pub const ALL: &'static [PositionCorrection] = &[PositionCorrection::Soft, PositionCorrection::Baumgarte];
}

/// A setting's value as RON text.
fn ron_text<T: Serialize>(v: &T) -> String {
    ron::to_string(v).unwrap_or_default()
}

/// The group the Settings panel shows a setting in, in the panel's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Section {
    /// The step, substeps, iterations and gravity.
    Time,
    /// Contact creation and the solver's treatment of contacts.
    Contacts,
    /// Material overrides for every body.
    Materials,
    /// The choice of broad phase, narrow phase and CCD, and their parameters.
    Algorithms,
    /// Islands falling asleep.
    Sleeping,
    /// The soft constraints of joints.
    Joints,
}

impl Section {
    /// Every section, in the panel's order.
    pub const ALL: &'static [Section] = &[
        Section::Time,
        Section::Contacts,
        Section::Joints,
        Section::Materials,
        Section::Algorithms,
        Section::Sleeping,
    ];

    /// The section's heading.
    pub fn title(self) -> &'static str {
        match self {
            Section::Time => "Time stepping",
            Section::Contacts => "Contacts",
            Section::Materials => "Materials (every body)",
            Section::Algorithms => "Algorithms",
            Section::Sleeping => "Sleeping",
            Section::Joints => "Joints",
        }
    }
}

/// The range a number is edited over (a slider's, and where a parameter sweep starts), which
/// is narrower than the values [`Settings::validate`] accepts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Range {
    /// The low end.
    pub lo: f64,
    /// The high end.
    pub hi: f64,
    /// Whether the scale is logarithmic.
    pub log: bool,
    /// The smallest positive value on a logarithmic scale that starts at 0 (0: none).
    pub smallest: f64,
}

impl Range {
    /// The low end a geometric sweep can start from: the smallest positive value when the
    /// scale is logarithmic and starts at 0.
    pub fn positive_lo(&self) -> f64 {
        if self.log && self.lo <= 0.0 { self.smallest } else { self.lo }
    }
}

/// What someone editing a setting needs to know of it: its name in words, where the panel
/// shows it, its unit and range, its help text and when it does nothing. One row of the
/// `settings!` list gives a field all of them.
#[derive(Clone, Copy, Debug)]
pub struct Facts {
    /// The field's name, as scene files and `--set` write it.
    pub name: &'static str,
    /// The name the panel shows.
    pub label: &'static str,
    /// The panel's group.
    pub section: Section,
    /// The unit of a number ("m", "m/s"; empty for ratios and counts).
    pub unit: &'static str,
    /// The range a number is edited over.
    pub range: Option<Range>,
    /// Decimals a number is shown with (`None`: as the slider picks).
    pub decimals: Option<usize>,
    /// A number shown in scientific notation.
    pub scientific: bool,
    /// The value an unset override starts from when it is turned on.
    pub start: Option<f64>,
    /// What the setting does, and what goes wrong when it is too small or too large.
    pub help: &'static str,
    /// Why the setting does nothing under the other settings, if it does nothing.
    pub unused: fn(&Settings) -> Option<&'static str>,
}

impl Facts {
    const fn new(label: &'static str, section: Section) -> Facts {
        Facts {
            name: "",
            label,
            section,
            unit: "",
            range: None,
            decimals: None,
            scientific: false,
            start: None,
            help: "",
            unused: |_| None,
        }
    }

    const fn named(mut self, name: &'static str) -> Facts {
        self.name = name;
        self
    }

    const fn unit(mut self, unit: &'static str) -> Facts {
        self.unit = unit;
        self
    }

    const fn range(mut self, lo: f64, hi: f64) -> Facts {
        self.range = Some(Range { lo, hi, log: false, smallest: 0.0 });
        self
    }

    const fn log(mut self, lo: f64, hi: f64, smallest: f64) -> Facts {
        self.range = Some(Range { lo, hi, log: true, smallest });
        self
    }

    const fn decimals(mut self, n: usize) -> Facts {
        self.decimals = Some(n);
        self
    }

    const fn scientific(mut self) -> Facts {
        self.scientific = true;
        self
    }

    const fn start(mut self, v: f64) -> Facts {
        self.start = Some(v);
        self
    }

    const fn help(mut self, help: &'static str) -> Facts {
        self.help = help;
        self
    }

    const fn unused_when(mut self, why: fn(&Settings) -> Option<&'static str>) -> Facts {
        self.unused = why;
        self
    }

    /// The unit as a suffix (" m"), empty without one.
    pub fn suffix(&self) -> String {
        if self.unit.is_empty() { String::new() } else { format!(" {}", self.unit) }
    }
}

/// Why the soft contact's parameters do nothing.
fn not_soft(s: &Settings) -> Option<&'static str> {
    (s.position_correction != PositionCorrection::Soft).then_some("Only soft position correction uses it.")
}

/// Why the sleep thresholds do nothing.
fn not_sleeping(s: &Settings) -> Option<&'static str> {
    (!s.sleeping).then_some("Sleeping is off.")
}

/// A setting's value, borrowed for editing, by the kind of control that edits it.
pub enum ValueMut<'a> {
    /// A real number.
    Number(&'a mut Real),
    /// A whole number.
    Count(&'a mut u32),
    /// On or off.
    Switch(&'a mut bool),
    /// A vector.
    Vector(&'a mut Vec3),
    /// A number that overrides every body's own, or nothing.
    Override(&'a mut Option<Real>),
    /// One of a list of choices.
    Choice(&'a mut dyn Choice),
}

/// A setting that is one of a list of choices (an algorithm, a mode).
pub trait Choice {
    /// Every choice's Rust name (`SweepAndPrune`), in the order they are listed.
    fn names(&self) -> Vec<String>;
    /// The index of the current choice in [`Choice::names`].
    fn selected(&self) -> usize;
    /// Makes choice `i` the current one.
    fn select(&mut self, i: usize);
}

/// How each type of setting is edited, and the values a sweep runs through for a choice.
pub trait Field {
    /// The value, for its control.
    fn value_mut(&mut self) -> ValueMut<'_>;
    /// Every value, as RON text, of a setting that is a choice; `None` for a number.
    fn choices() -> Option<Vec<String>> {
        None
    }
}

impl Field for Real {
    fn value_mut(&mut self) -> ValueMut<'_> {
        ValueMut::Number(self)
    }
}

impl Field for u32 {
    fn value_mut(&mut self) -> ValueMut<'_> {
        ValueMut::Count(self)
    }
}

impl Field for Vec3 {
    fn value_mut(&mut self) -> ValueMut<'_> {
        ValueMut::Vector(self)
    }
}

impl Field for Option<Real> {
    fn value_mut(&mut self) -> ValueMut<'_> {
        ValueMut::Override(self)
    }
}

impl Field for bool {
    fn value_mut(&mut self) -> ValueMut<'_> {
        ValueMut::Switch(self)
    }
    fn choices() -> Option<Vec<String>> {
        Some(vec!["true".into(), "false".into()])
    }
}

/// [`Choice`] and [`Field`] for enums with an `ALL` list of their variants.
macro_rules! choice_fields {
    ($($ty:ty),*) => {$(
        impl Choice for $ty {
            fn names(&self) -> Vec<String> {
                <$ty>::ALL.iter().map(|v| format!("{v:?}")).collect()
            }
            fn selected(&self) -> usize {
                <$ty>::ALL.iter().position(|v| v == self).unwrap_or(0)
            }
            fn select(&mut self, i: usize) {
                if let Some(&v) = <$ty>::ALL.get(i) {
                    *self = v;
                }
            }
        }

        impl Field for $ty {
            fn value_mut(&mut self) -> ValueMut<'_> {
                ValueMut::Choice(self)
            }
            fn choices() -> Option<Vec<String>> {
                Some(<$ty>::ALL.iter().map(ron_text).collect())
            }
        }
    )*};
}

choice_fields!(BroadPhaseKind, NarrowPhaseKind, InternalEdges, CcdMode, PositionCorrection);

/// Defines [`Settings`] from one list of its fields (docs, serde attributes, type, default and
/// [`Facts`]), and from the same list its field names, facts, differences, by-name setter and
/// by-name access for the panel.
macro_rules! settings {
    ($($(#[$attr:meta])* $name:ident: $ty:ty = $default:expr; $facts:expr,)*) => {
        /// Every tunable of the simulation. Plain data: part of the scene file, editable while running.
        #[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
        #[serde(default, deny_unknown_fields)]
        pub struct Settings {
            $($(#[$attr])* pub $name: $ty,)*
        }

        impl Default for Settings {
            fn default() -> Self {
                Self { $($name: $default,)* }
            }
        }

        impl Settings {
            /// The names of every field, as written in scene files.
            pub const FIELD_NAMES: &'static [&'static str] = &[$(stringify!($name)),*];

            /// Every field's [`Facts`], in declaration order.
            pub const FACTS: &'static [Facts] = &[$($facts.named(stringify!($name))),*];

            /// The value of the field `name`, for its control.
            pub fn value_mut(&mut self, name: &str) -> Option<ValueMut<'_>> {
                match name {
                    $(stringify!($name) => Some(Field::value_mut(&mut self.$name)),)*
                    _ => None,
                }
            }

            /// Every value (RON text) of the field `name` if it is a choice (a mode, an
            /// algorithm, on or off); `None` for a number or an unknown name.
            pub fn choices(name: &str) -> Option<Vec<String>> {
                match name {
                    $(stringify!($name) => <$ty as Field>::choices(),)*
                    _ => None,
                }
            }
            /// The fields that differ from `to`, each as `name old -> new` (RON values).
            pub fn changes(&self, to: &Settings) -> Vec<String> {
                self.changed_values(to)
                    .into_iter()
                    .map(|(name, old, new)| format!("{name} {old} -> {new}"))
                    .collect()
            }

            /// The fields that differ from `to`, in declaration order, each as its name, its
            /// value here and its value in `to` (RON text, as [`Settings::set_field`] reads it).
            pub fn changed_values(&self, to: &Settings) -> Vec<(&'static str, String, String)> {
                let mut out = Vec::new();
                $(
                    if self.$name != to.$name {
                        out.push((stringify!($name), ron_text(&self.$name), ron_text(&to.$name)));
                    }
                )*
                out
            }

            /// Sets one field from its RON text, e.g. `("slop", "0.01")` or
            /// `("broad_phase", "BruteForce")`, and validates the result. On error nothing
            /// changes.
            pub fn set_field(&mut self, name: &str, value: &str) -> Result<(), SettingsError> {
                let mut next = self.clone();
                match name {
                    $(stringify!($name) => {
                        // `0.3` as well as `Some(0.3)` for the optional settings.
                        let ron = ron::Options::default()
                            .with_default_extension(ron::extensions::Extensions::IMPLICIT_SOME);
                        // A choice in another spelling (`toi`, `brute-force`) is read as the
                        // choice it names (`Toi`, `BruteForce`), as the command line's flags are.
                        next.$name = ron.from_str(value)
                            .or_else(|e| choice_named::<$ty>(value).and_then(|v| ron.from_str(&v).ok()).ok_or(e))
                            .map_err(|e| SettingsError::Unreadable {
                                name: name.to_string(),
                                value: value.to_string(),
                                error: e.code,
                            })?;
                    })*
                    _ => {
                        return Err(SettingsError::Unknown { name: name.to_string() })
                    }
                }
                next.validate()?;
                *self = next;
                Ok(())
            }
        }
    };
}

/// What a setting takes, after the parser's words when a value cannot be read: "Integer is out
/// of bounds" for `substeps=-1` does not say that a whole number, not negative, is wanted.
fn read_hint(name: &str) -> &'static str {
    match Settings::numeric(name) {
        Some(true) => " (give a whole number)",
        Some(false) => " (give a number)",
        None => "",
    }
}

/// A choice's name as it is matched, whatever its spelling: lower case, without `-` or `_`
/// (`toi`, `Toi`, `brute-force`, `BruteForce` and `BRUTE_FORCE` are two keys). The command
/// line's flags and [`Settings::set_field`] match names by it.
pub fn choice_key(name: &str) -> String {
    name.chars().filter(|c| *c != '-' && *c != '_').flat_map(char::to_lowercase).collect()
}

/// The choice of the setting type `T` (its RON text) that `value` names in another spelling;
/// `None` for a number, or a name no choice has. Tried only when `value` cannot be read as is.
fn choice_named<T: Field>(value: &str) -> Option<String> {
    let key = choice_key(value.trim());
    T::choices()?.into_iter().find(|c| choice_key(c) == key)
}

settings! {
    /// Acceleration of gravity, m/s².
    #[serde(deserialize_with = "de::gravity_vec3")]
    gravity: Vec3 = Vec3::new(0.0, -9.81, 0.0);
    Facts::new("Gravity", Section::Time).unit("m/s²").range(-100.0, 100.0)
        .help("Acceleration of gravity (m/s²), applied to every dynamic body.\n\
Earth is (0, -9.81, 0); the Moon is (0, -1.62, 0).\n\
Too large for the step: bodies gain so much speed per step that they sink into the floor or tunnel through thin boxes."),
    /// The fixed time step, s.
    #[serde(deserialize_with = "de::positive")]
    dt: Real = 1.0 / 60.0;
    Facts::new("dt", Section::Time).unit("s").log(0.001, 0.1, 0.0).decimals(4)
        .help("The fixed time step (s). Every step advances simulated time by exactly dt, whatever the frame rate.\n\
Too small: many steps per second of simulated time, so playback slows down.\n\
Too large: fast bodies jump past thin obstacles (tunneling), contacts are found late and stacks jitter or explode."),
    /// Solver substeps per step.
    substeps: u32 = 4;
    Facts::new("Substeps", Section::Time).log(1.0, Settings::MAX_SUBSTEPS as f64, 0.0)
        .help("Solver substeps per step: the step is split into this many smaller ones for the contact solver.\n\
Too few: tall stacks sag and jitter, heavy bodies on light ones push through.\n\
Too many: every step costs more (watch 'solve' in the profiler)."),
    /// Velocity iterations per substep.
    iterations: u32 = 1;
    Facts::new("Iterations", Section::Time).log(1.0, Settings::MAX_ITERATIONS as f64, 0.0)
        .help("Velocity iterations per substep of the sequential-impulse solver.\n\
Too few: contacts between many bodies do not agree, piles are soft.\n\
Too many: solve time grows linearly for little gain once substeps are high."),
    /// Approach speeds below this (m/s) do not bounce.
    #[serde(deserialize_with = "de::non_negative")]
    restitution_threshold: Real = 1.0;
    Facts::new("Restitution threshold", Section::Contacts).unit("m/s").range(0.0, 10.0)
        .help("Approach speeds below this (m/s) do not bounce, whatever the material's restitution.\n\
Too small: resting bodies keep bouncing on tiny gravity-induced speeds (jitter).\n\
Too large: slow impacts lose their bounce; a ball stops bouncing early."),
    /// Penetration position correction leaves in place, m: Baumgarte pushes only beyond it,
    /// soft contacts settle to half of it.
    #[serde(deserialize_with = "de::non_negative")]
    slop: Real = 0.001;
    Facts::new("Slop", Section::Contacts).unit("m").log(0.0, 0.1, 1e-5)
        .help("Penetration allowed before position correction pushes bodies apart (m).\n\
Too small: correction fights contact noise every step and resting bodies jitter.\n\
Too large: bodies visibly sink into each other. Keep it well below the smallest body's size."),
    /// Tolerance of the squared-distance comparisons `d² <= r² + ε`, m².
    #[serde(deserialize_with = "de::non_negative")]
    contact_epsilon: Real = 1e-6;
    Facts::new("Contact epsilon", Section::Contacts).unit("m²").log(0.0, 1e-2, 1e-12).scientific()
        .help("Tolerance of the squared-distance comparisons d² ≤ r² + ε (m²).\n\
It is compared with squared lengths, so its meaning depends on scale: at radius r it tolerates a distance error δ ≈ ε / (2·r), i.e. ε ≈ 2·r·δ.\n\
Too small for the scene's scale: touching shapes flicker between contact and no contact (jitter).\n\
Too large: shapes that are apart count as touching and hover or stick."),
    /// Contacts are created this far before shapes touch (speculative margin), m.
    #[serde(deserialize_with = "de::non_negative")]
    speculative_distance: Real = 0.02;
    Facts::new("Speculative distance", Section::Contacts).unit("m").log(0.0, 0.5, 1e-4)
        .help("Contacts are created this far before shapes touch (m), so the solver can stop a body before it penetrates.\n\
Too small: fast bodies penetrate before the contact exists and bounce out hard.\n\
Too large: many needless contacts (narrow phase and solver slow down) and bodies can snag on nearby edges."),
    /// How contacts push overlapping bodies apart.
    position_correction: PositionCorrection = PositionCorrection::Soft;
    Facts::new("Position correction", Section::Contacts)
        .help("How overlapping bodies are pushed apart.\n\
Soft: a spring of 'contact hertz' and 'damping ratio', then a relax pass that removes the push-out velocity (stable, no bounce).\n\
Baumgarte: a velocity bias of 'baumgarte' × the penetration beyond the slop (simple, but adds energy: bodies pop out)."),
    /// Fraction of the excess penetration removed per substep with Baumgarte correction.
    #[serde(deserialize_with = "de::unit_interval")]
    baumgarte: Real = 0.2;
    Facts::new("Baumgarte factor", Section::Contacts).range(0.0, 1.0).unused_when(|s| {
        (s.position_correction != PositionCorrection::Baumgarte).then_some("Only Baumgarte position correction uses it.")
    })
        .help("Fraction of the excess penetration removed per substep (Baumgarte correction only).\n\
Too small: overlaps linger, stacks sink.\n\
Too large (over ~0.3): bodies are shot apart, stacks jitter and gain energy."),
    /// Stiffness of soft contacts, Hz.
    #[serde(deserialize_with = "de::positive")]
    contact_hertz: Real = 30.0;
    Facts::new("Contact hertz", Section::Contacts).unit("Hz").log(1.0, 240.0, 0.0).unused_when(not_soft)
        .help("Stiffness of soft contacts as a natural frequency (Hz, Soft correction only).\n\
Too small: contacts are squishy and bodies sink.\n\
Too large: above about a quarter of the substep rate (1 / (4·dt/substeps)) the spring can't be resolved and contacts become stiff and jittery."),
    /// Damping ratio of soft contacts.
    #[serde(deserialize_with = "de::non_negative")]
    damping_ratio: Real = 10.0;
    Facts::new("Damping ratio", Section::Contacts).range(0.0, 20.0).unused_when(not_soft)
        .help("Damping of soft contacts (Soft correction only); 1 is critical damping.\n\
Too small: contacts ring and bodies bob on each other.\n\
Too large: push-out becomes slow and sluggish (the default is strongly over-damped on purpose)."),
    /// Stiffness of joints' position correction, Hz (at most a quarter of the substep rate).
    #[serde(deserialize_with = "de::positive")]
    joint_hertz: Real = 60.0;
    Facts::new("Joint stiffness", Section::Joints).unit("Hz").log(1.0, 500.0, 0.0)
        .help("How hard joints pull their bodies back together (the spring of the soft step, Hz; the solver uses at most a quarter of the substep rate).\n\
Too small: chains stretch and hinges sag under load.\n\
Too large: no stiffer than a quarter of the substep rate; raise substeps for stiffer joints."),
    /// Damping ratio of joints' position correction.
    #[serde(deserialize_with = "de::non_negative")]
    joint_damping_ratio: Real = 2.0;
    Facts::new("Joint damping ratio", Section::Joints).range(0.0, 20.0)
        .help("Damping of joints' position correction; 1 is critical damping.\n\
Too small: joints ring and chains bounce.\n\
Too large: a stretched joint comes back slowly."),
    /// Solve the anchors of joints that form chains and trees (no loops) together, exactly.
    exact_joint_trees: bool = true;
    Facts::new("Exact joint trees", Section::Joints)
        .help("Hold the anchors of ball, hinge and fixed joints that form chains and trees (no loops) together in one exact solve per pass (a sparse direct solve, linear in the joints), rigid, with the joint stiffness setting only how fast drift is pulled back.\n\
Off: each joint is solved on its own, one after another, as a soft spring: a heavy body on light links stretches the chain (the light links hand on little of its pull per pass) and a swinging 100:1 chain flails apart unless substeps are raised.\n\
Joints that close a loop, and the other rows (limits, motors, axes, distances), are solved one by one either way.\n\
The forest is factored once per substep and solved in every pass; a ragdoll's step costs about 1.4 times as much as with it off."),
    /// Fastest push-out velocity of position correction, m/s.
    #[serde(deserialize_with = "de::positive")]
    max_correction_velocity: Real = 3.0;
    Facts::new("Max correction velocity", Section::Contacts).unit("m/s").log(0.01, 100.0, 0.0)
        .help("Fastest push-out velocity of position correction (m/s).\n\
Too small: deep overlaps take many steps to resolve; bodies stay stuck inside each other.\n\
Too large: a deep overlap launches bodies apart."),
    /// Reuse last step's impulses as the first guess.
    warm_starting: bool = true;
    Facts::new("Warm starting", Section::Contacts)
        .help("Start the solver from last step's impulses (matched per contact feature).\n\
Off: stacks need many more iterations to stay still and jitter more.\n\
On is almost always better; turn it off to see why it exists."),
    /// The broad phase that finds candidate pairs.
    broad_phase: BroadPhaseKind = BroadPhaseKind::default();
    Facts::new("Broad phase", Section::Algorithms)
        .help("How candidate pairs are found. Every structure must give the same pairs as brute force, only faster.\n\
Watch 'broad_phase' ms and 'pairs' in the profiler when you switch; the world keeps its state."),
    /// Cell size of the uniform grid broad phase, m.
    #[serde(deserialize_with = "de::positive")]
    grid_cell_size: Real = 1.0;
    Facts::new("Grid cell size", Section::Algorithms).unit("m").log(0.05, 50.0, 0.0).unused_when(|s| {
        (s.broad_phase != BroadPhaseKind::Grid).then_some("Only the Grid broad phase uses it (Auto sizes its own grid).")
    })
        .help("Cell size of the uniform-grid broad phase (m); other broad phases ignore it.\n\
Too small: large bodies cover many cells, inserting them costs more.\n\
Too large: many bodies share a cell and the grid degrades towards brute force.\n\
A good value is about the size of a typical body."),
    /// The family of algorithms that answers pair tests.
    narrow_phase: NarrowPhaseKind = NarrowPhaseKind::default();
    Facts::new("Narrow phase", Section::Algorithms)
        .help("Which algorithms answer pair tests: analytic tests and SAT with clipped manifolds, or GJK + EPA.\n\
Switching keeps the world's state; compare 'narrow_phase' ms and the contact counts."),
    /// A pair's last narrow-phase result is reused while no point of one body has moved more
    /// than this (m) relative to the other since it was made (the body-pair cache); 0: the narrow
    /// phase tests every pair every step.
    #[serde(deserialize_with = "de::non_negative")]
    pair_cache_distance: Real = 0.001;
    Facts::new("Pair cache distance", Section::Algorithms).unit("m").log(0.0, 0.05, 1e-5).unused_when(|s| {
        (!s.warm_starting).then_some("The body-pair cache is kept only with warm starting on.")
    })
        .help("A pair's last contact is reused, without the narrow phase, while neither body has moved more than this (m) or turned more than 2° relative to the other since it was made (the body-pair cache).\n\
0: every pair goes through the narrow phase every step.\n\
Too large: a contact feature that appears as a body rolls onto an edge arrives late, by up to this distance."),
    /// How fast bodies are kept from tunneling.
    ccd: CcdMode = CcdMode::default();
    Facts::new("CCD", Section::Algorithms)
        .help("Continuous collision detection: how fast bodies are kept from passing through thin ones.\n\
Off: a body that moves more than a thin obstacle's thickness in one step can tunnel (press B to shoot one)."),
    /// How contacts on the edges and vertices inside triangle meshes and height fields are
    /// corrected (docs/meshes.md).
    internal_edges: InternalEdges = InternalEdges::default();
    Facts::new("Internal edges", Section::Algorithms)
        .help("Contacts on the edges and vertices inside triangle meshes and height fields (ghost bumps).\n\
None: raw triangle contacts. Adjacency normals: a normal the neighbouring triangle rules out becomes the face normal.\n\
Voided features: such a contact is dropped when a neighbour's contact covers it, else takes the face normal."),
    /// With time of impact, bodies whose fastest point moves faster than this (m/s) are swept
    /// even without the bullet flag; slower moving bodies get speculative contacts.
    #[serde(deserialize_with = "de::positive")]
    ccd_speed_threshold: Real = 20.0;
    Facts::new("CCD speed threshold", Section::Algorithms).unit("m/s").log(0.1, 500.0, 0.0).unused_when(|s| {
        (s.ccd == CcdMode::Off).then_some("CCD is off: no body is swept, whatever its speed.")
    })
        .help("Toi: bodies faster than this (m/s) are swept by CCD even without the bullet flag.\n\
Too small: CCD runs for ordinary bodies and costs time.\n\
Too large: fast non-bullet bodies tunnel.\n\
Speculative: Collidoscope does not use it (every moving body's contacts reach as far as it moves); \
rapier3d's side of an A/B does, as its soft-CCD distance (threshold × dt)."),
    /// Let resting islands fall asleep.
    sleeping: bool = true;
    Facts::new("Sleeping", Section::Sleeping)
        .help("Let resting islands fall asleep: they skip the solver until something touches them.\n\
Off: every body is simulated every step (slower, and resting piles may creep)."),
    /// Speed below which a body counts as resting, m/s: its centre's speed, and the speed its
    /// spin gives its farthest point.
    #[serde(deserialize_with = "de::non_negative")]
    sleep_speed: Real = 0.05;
    Facts::new("Sleep speed", Section::Sleeping).unit("m/s").range(0.0, 1.0).unused_when(not_sleeping)
        .help("Below this speed (m/s) a body counts as resting: its centre and the point its spin moves fastest.\n\
Too small: piles never fall asleep because of solver noise.\n\
Too large: slowly moving bodies freeze in mid-motion."),
    /// How long an island must rest before it sleeps, s.
    #[serde(deserialize_with = "de::non_negative")]
    sleep_time: Real = 0.5;
    Facts::new("Sleep time", Section::Sleeping).unit("s").range(0.0, 5.0).unused_when(not_sleeping)
        .help("How long (s) an island must rest before it sleeps.\n\
Too small: bodies freeze at the top of a bounce.\n\
Too large: piles stay awake and cost time long after they settled."),
    /// Restitution of every body, 0–1, over each body's own material; unset (`None`), each
    /// body keeps its own.
    #[serde(deserialize_with = "de::opt_unit_interval", skip_serializing_if = "Option::is_none")]
    restitution: Option<Real> = None;
    Facts::new("Restitution", Section::Materials).range(0.0, 1.0).start(0.3)
        .help("Restitution (0–1) of every body, over each body's own material: the fraction of the approach speed an impact gives back. A pair bounces with the larger of its two values.\n\
Unset: each body keeps the restitution its scene gives it (see the Inspector).\n\
Impacts slower than the restitution threshold never bounce."),
    /// Friction coefficient of every body, 0–100, over each body's own material; unset
    /// (`None`), each body keeps its own.
    #[serde(deserialize_with = "de::opt_friction", skip_serializing_if = "Option::is_none")]
    friction: Option<Real> = None;
    Facts::new("Friction", Section::Materials).range(0.0, 2.0).start(0.5)
        .help("Coulomb friction coefficient of every body, over each body's own material. A pair rubs with the geometric mean of its two values.\n\
Unset: each body keeps the friction its scene gives it (see the Inspector).\n\
0: everything slides; large: nothing slides, boxes tip instead."),
}

impl Settings {
    /// The facts of the field `name`.
    pub fn facts(name: &str) -> Option<&'static Facts> {
        Self::FACTS.iter().find(|f| f.name == name)
    }

    /// Whether the setting `name` holds a number, and if so whether only whole numbers.
    pub fn numeric(name: &str) -> Option<bool> {
        let probe = |v: &str| Settings::default().set_field(name, v).is_ok();
        probe("1").then(|| !probe("0.5"))
    }

    /// Most substeps a scene may ask for.
    pub const MAX_SUBSTEPS: u32 = 64;
    /// Most iterations a scene may ask for.
    pub const MAX_ITERATIONS: u32 = 256;

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), FieldError> {
        use rules::{ValueError, field};
        field("gravity", self.gravity, rules::gravity_vec3)?;
        field("dt", self.dt, rules::positive)?;
        if !(1e-5..=1.0).contains(&self.dt) {
            return Err(FieldError { field: "dt", error: ValueError::Step(self.dt) });
        }
        if !(1..=Self::MAX_SUBSTEPS).contains(&self.substeps) {
            return Err(FieldError {
                field: "substeps",
                error: ValueError::Count { value: self.substeps, max: Self::MAX_SUBSTEPS },
            });
        }
        if !(1..=Self::MAX_ITERATIONS).contains(&self.iterations) {
            return Err(FieldError {
                field: "iterations",
                error: ValueError::Count { value: self.iterations, max: Self::MAX_ITERATIONS },
            });
        }
        // Upper bounds far beyond any useful value, so that no product of them overflows.
        let ranges: [(&str, Real, Real, Real, &str); 15] = [
            ("restitution_threshold", self.restitution_threshold, 0.0, 1e4, " m/s"),
            ("slop", self.slop, 0.0, 1.0, " m"),
            ("contact_epsilon", self.contact_epsilon, 0.0, 1.0, " m²"),
            ("speculative_distance", self.speculative_distance, 0.0, 100.0, " m"),
            ("pair_cache_distance", self.pair_cache_distance, 0.0, 1.0, " m"),
            ("contact_hertz", self.contact_hertz, 1e-3, 1e4, " Hz"),
            ("damping_ratio", self.damping_ratio, 0.0, 1e4, ""),
            ("joint_hertz", self.joint_hertz, 1e-3, 1e4, " Hz"),
            ("joint_damping_ratio", self.joint_damping_ratio, 0.0, 1e4, ""),
            ("max_correction_velocity", self.max_correction_velocity, 1e-6, 1e4, " m/s"),
            ("grid_cell_size", self.grid_cell_size, 1e-3, 1e5, " m"),
            ("ccd_speed_threshold", self.ccd_speed_threshold, 1e-3, 1e6, " m/s"),
            ("sleep_speed", self.sleep_speed, 0.0, 1e4, " m/s"),
            ("sleep_time", self.sleep_time, 0.0, 1e4, " s"),
            ("baumgarte", self.baumgarte, 0.0, 1.0, ""),
        ];
        for (name, v, lo, hi, unit) in ranges {
            rules::within(v, lo, hi, unit).map_err(|error| FieldError { field: name, error })?;
        }
        if let Some(e) = self.restitution {
            field("restitution", e, rules::unit_interval)?;
        }
        if let Some(f) = self.friction {
            field("friction", f, rules::friction)?;
        }
        Ok(())
    }
}

/// Why a setting could not be set from its name and RON text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SettingsError {
    /// No setting has this name.
    #[error("unknown setting {name:?}; known settings: {}", Settings::FIELD_NAMES.join(", "))]
    Unknown {
        /// The name given.
        name: String,
    },
    /// The text is not a value of the setting's type.
    #[error("{name}: cannot read {value:?}: {error}{}", read_hint(name))]
    Unreadable {
        /// The setting.
        name: String,
        /// The text given.
        value: String,
        /// What the RON parser said.
        error: ron::Error,
    },
    /// The value breaks the setting's rule.
    #[error(transparent)]
    Invalid(#[from] FieldError),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_setting_has_its_facts_and_every_edit_range_validates() {
        assert_eq!(Settings::FACTS.len(), Settings::FIELD_NAMES.len());
        for (f, name) in Settings::FACTS.iter().zip(Settings::FIELD_NAMES) {
            assert_eq!(f.name, *name);
            assert!(!f.label.is_empty() && !f.help.is_empty(), "{name}: a label and help text");
            // Gravity's range bounds each component.
            let numeric = Settings::numeric(name).is_some() || *name == "gravity";
            assert_eq!(numeric, f.range.is_some(), "{name}: a number has a range, a choice none");
            assert_eq!(numeric, Settings::choices(name).is_none(), "{name}: a choice lists its values");
            let Some(r) = f.range else { continue };
            assert!(r.lo < r.hi && (!r.log || r.lo > 0.0 || r.smallest > 0.0), "{name}: {r:?}");
            // Each end of the range a slider or a sweep reaches is a value the settings accept.
            for v in [r.positive_lo(), r.hi] {
                let text = match Settings::numeric(name) {
                    Some(true) => format!("{}", v as u32),
                    _ => format!("{v}"),
                };
                let text = if *name == "gravity" { format!("({v}, {v}, {v})") } else { text };
                Settings::default().set_field(name, &text).unwrap_or_else(|e| panic!("{name} = {text}: {e}"));
            }
        }
        // Every choice's values read back as the setting.
        for name in Settings::FIELD_NAMES {
            for v in Settings::choices(name).unwrap_or_default() {
                Settings::default().set_field(name, &v).unwrap_or_else(|e| panic!("{name} = {v}: {e}"));
            }
        }
    }

    #[test]
    fn a_control_is_unused_only_where_the_other_settings_ignore_it() {
        let unused = |s: &Settings, name: &str| (Settings::facts(name).unwrap().unused)(s).is_some();
        let d = Settings::default();
        assert!(unused(&d, "baumgarte") && !unused(&d, "contact_hertz") && !unused(&d, "damping_ratio"));
        assert!(unused(&d, "grid_cell_size"), "the default broad phase sizes its own grid");
        let b = Settings { position_correction: PositionCorrection::Baumgarte, ..d.clone() };
        assert!(!unused(&b, "baumgarte") && unused(&b, "contact_hertz") && unused(&b, "damping_ratio"));
        let g = Settings { broad_phase: BroadPhaseKind::Grid, warm_starting: false, sleeping: false, ..d.clone() };
        assert!(!unused(&g, "grid_cell_size") && unused(&g, "pair_cache_distance") && unused(&g, "sleep_time"));
        assert!(unused(&Settings { ccd: CcdMode::Off, ..d.clone() }, "ccd_speed_threshold"));
        let always = ["gravity", "dt", "slop", "restitution_threshold", "max_correction_velocity", "ccd"];
        for s in [&d, &b, &g] {
            assert!(always.iter().all(|n| !unused(s, n)));
        }
    }

    #[test]
    fn set_field_parses_ron_and_validates() {
        let mut s = Settings::default();
        s.set_field("slop", "0.01").unwrap();
        assert_eq!(s.slop, 0.01);
        s.set_field("gravity", "(0, -1.62, 0)").unwrap();
        assert_eq!(s.gravity, Vec3::new(0.0, -1.62, 0.0));
        assert!(s.set_field("dt", "-1").unwrap_err().to_string().contains("dt"));
        assert!(s.set_field("substeps", "0").unwrap_err().to_string().contains("substeps"));
        assert!(s.set_field("nope", "1").unwrap_err().to_string().contains("unknown setting"));
        assert!(s.set_field("broad_phase", "Quadtree").unwrap_err().to_string().contains("broad_phase"));
        // A choice spelt as the command line's flags spell it, as its variant.
        let mut c = s.clone();
        c.set_field("ccd", "toi").unwrap();
        c.set_field("broad_phase", "brute-force").unwrap();
        c.set_field("internal_edges", "voided_features").unwrap();
        c.set_field("narrow_phase", "GJK").unwrap();
        assert_eq!((c.ccd, c.broad_phase), (crate::ccd::CcdMode::Toi, BroadPhaseKind::BruteForce));
        assert_eq!(c.internal_edges, crate::narrowphase::mesh::InternalEdges::VoidedFeatures);
        assert!(c.set_field("ccd", "toy").unwrap_err().to_string().contains("toy"));
        // What a number's field takes is said after the parser's words.
        let e = c.set_field("substeps", "-1").unwrap_err().to_string();
        assert!(e.ends_with("(give a whole number)"), "{e}");
        assert!(c.set_field("slop", "abc").unwrap_err().to_string().ends_with("(give a number)"));
        assert!(c.set_field("warm_starting", "yes").is_err() && c.set_field("warm_starting", "false").is_ok());
        assert_eq!(s.dt, 1.0 / 60.0, "a failed set changes nothing");
        let mut t = s.clone();
        t.set_field("substeps", "8").unwrap();
        assert_eq!(s.changes(&t), ["substeps 4 -> 8"]);
        assert!(s.changes(&s).is_empty());
    }

    #[test]
    fn changed_values_name_each_difference_as_ron_that_sets_it_back() {
        let base = Settings::default();
        let mut now = base.clone();
        now.set_field("gravity", "(0, -1.62, 0)").unwrap();
        now.set_field("substeps", "8").unwrap();
        now.set_field("broad_phase", "BruteForce").unwrap();
        now.set_field("friction", "0.25").unwrap();
        let changed = base.changed_values(&now);
        let names: Vec<&str> = changed.iter().map(|c| c.0).collect();
        assert_eq!(names, ["gravity", "substeps", "broad_phase", "friction"], "{changed:?}");
        assert_eq!(changed[1], ("substeps", "4".to_string(), "8".to_string()));
        assert_eq!(changed[3].2, "Some(0.25)");
        let mut back = base.clone();
        for (name, _, value) in &changed {
            back.set_field(name, value).unwrap();
        }
        assert_eq!(back, now, "{changed:?}");
        assert!(now.changed_values(&now).is_empty());
    }

    #[test]
    fn material_overrides_read_bare_or_optional_values_and_are_checked() {
        let mut s = Settings::default();
        assert_eq!((s.restitution, s.friction), (None, None), "unset by default");
        s.set_field("restitution", "0.3").unwrap();
        s.set_field("friction", "Some(0)").unwrap();
        assert_eq!((s.restitution, s.friction), (Some(0.3), Some(0.0)));
        assert!(s.set_field("restitution", "1.5").unwrap_err().to_string().contains("restitution"));
        assert!(s.set_field("friction", "-1").unwrap_err().to_string().contains("friction"));
        assert_eq!(Settings::numeric("restitution"), Some(false), "a sweep can vary it");
        s.set_field("restitution", "None").unwrap();
        assert_eq!(s.restitution, None);
        let text = ron::to_string(&Settings::default()).unwrap();
        assert!(!text.contains("restitution:") && !text.contains("friction"), "unset is not written: {text}");
    }
}
