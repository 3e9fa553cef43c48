//! Tooltips of the settings panel: what each setting does, and what goes wrong when it is too
//! small or too large.

pub(super) const GRAVITY: &str = "Acceleration of gravity (m/s²), applied to every dynamic body.\n\
Earth is (0, -9.81, 0); the Moon is (0, -1.62, 0).\n\
Too large for the step: bodies gain so much speed per step that they sink into the floor or tunnel through thin boxes.";

pub(super) const DT: &str = "The fixed time step (s). Every step advances simulated time by exactly dt, whatever the frame rate.\n\
Too small: many steps per second of simulated time, so playback slows down.\n\
Too large: fast bodies jump past thin obstacles (tunneling), contacts are found late and stacks jitter or explode.";

pub(super) const SUBSTEPS: &str = "Solver substeps per step: the step is split into this many smaller ones for the contact solver.\n\
Too few: tall stacks sag and jitter, heavy bodies on light ones push through.\n\
Too many: every step costs more (watch 'solve' in the profiler).";

pub(super) const ITERATIONS: &str = "Velocity iterations per substep of the sequential-impulse solver.\n\
Too few: contacts between many bodies do not agree, piles are soft.\n\
Too many: solve time grows linearly for little gain once substeps are high.";

pub(super) const RESTITUTION_THRESHOLD: &str = "Approach speeds below this (m/s) do not bounce, whatever the material's restitution.\n\
Too small: resting bodies keep bouncing on tiny gravity-induced speeds (jitter).\n\
Too large: slow impacts lose their bounce; a ball stops bouncing early.";

pub(super) const SLOP: &str = "Penetration allowed before position correction pushes bodies apart (m).\n\
Too small: correction fights contact noise every step and resting bodies jitter.\n\
Too large: bodies visibly sink into each other. Keep it well below the smallest body's size.";

pub(super) const CONTACT_EPSILON: &str = "Tolerance of the squared-distance comparisons d² ≤ r² + ε (m²).\n\
It is compared with squared lengths, so its meaning depends on scale: at radius r it tolerates a distance error δ ≈ ε / (2·r), i.e. ε ≈ 2·r·δ.\n\
Too small for the scene's scale: touching shapes flicker between contact and no contact (jitter).\n\
Too large: shapes that are apart count as touching and hover or stick.";

pub(super) const SPECULATIVE_DISTANCE: &str = "Contacts are created this far before shapes touch (m), so the solver can stop a body before it penetrates.\n\
Too small: fast bodies penetrate before the contact exists and bounce out hard.\n\
Too large: many needless contacts (narrow phase and solver slow down) and bodies can snag on nearby edges.";

pub(super) const PAIR_CACHE_DISTANCE: &str = "A pair's last contact is reused, without the narrow phase, while neither body has moved more than this (m) or turned more than 2° relative to the other since it was made (the body-pair cache).\n\
0: every pair goes through the narrow phase every step.\n\
Too large: a contact feature that appears as a body rolls onto an edge arrives late, by up to this distance.";

pub(super) const POSITION_CORRECTION: &str = "How overlapping bodies are pushed apart.\n\
Soft: a spring of 'contact hertz' and 'damping ratio', then a relax pass that removes the push-out velocity (stable, no bounce).\n\
Baumgarte: a velocity bias of 'baumgarte' × the penetration beyond the slop (simple, but adds energy: bodies pop out).";

pub(super) const BAUMGARTE: &str = "Fraction of the excess penetration removed per substep (Baumgarte correction only).\n\
Too small: overlaps linger, stacks sink.\n\
Too large (over ~0.3): bodies are shot apart, stacks jitter and gain energy.";

pub(super) const CONTACT_HERTZ: &str = "Stiffness of soft contacts as a natural frequency (Hz, Soft correction only).\n\
Too small: contacts are squishy and bodies sink.\n\
Too large: above about a quarter of the substep rate (1 / (4·dt/substeps)) the spring can't be resolved and contacts become stiff and jittery.";

pub(super) const DAMPING_RATIO: &str = "Damping of soft contacts (Soft correction only); 1 is critical damping.\n\
Too small: contacts ring and bodies bob on each other.\n\
Too large: push-out becomes slow and sluggish (the default is strongly over-damped on purpose).";

pub(super) const MAX_CORRECTION_VELOCITY: &str = "Fastest push-out velocity of position correction (m/s).\n\
Too small: deep overlaps take many steps to resolve; bodies stay stuck inside each other.\n\
Too large: a deep overlap launches bodies apart.";

pub(super) const WARM_STARTING: &str = "Start the solver from last step's impulses (matched per contact feature).\n\
Off: stacks need many more iterations to stay still and jitter more.\n\
On is almost always better; turn it off to see why it exists.";

pub(super) const BROAD_PHASE: &str = "How candidate pairs are found. Every structure must give the same pairs as brute force, only faster.\n\
Watch 'broad_phase' ms and 'pairs' in the profiler when you switch; the world keeps its state.";

pub(super) const GRID_CELL_SIZE: &str = "Cell size of the uniform-grid broad phase (m); other broad phases ignore it.\n\
Too small: large bodies cover many cells, inserting them costs more.\n\
Too large: many bodies share a cell and the grid degrades towards brute force.\n\
A good value is about the size of a typical body.";

pub(super) const NARROW_PHASE: &str = "Which algorithms answer pair tests: analytic tests and SAT with clipped manifolds, or GJK + EPA.\n\
Switching keeps the world's state; compare 'narrow_phase' ms and the contact counts.";

pub(super) const INTERNAL_EDGES: &str = "Contacts on the edges and vertices inside triangle meshes and height fields (ghost bumps).\n\
None: raw triangle contacts. Adjacency normals: a normal the neighbouring triangle rules out becomes the face normal.\n\
Voided features: such a contact is dropped when a neighbour's contact covers it, else takes the face normal.";

pub(super) const CCD: &str = "Continuous collision detection: how fast bodies are kept from passing through thin ones.\n\
Off: a body that moves more than a thin obstacle's thickness in one step can tunnel (press B to shoot one).";

pub(super) const CCD_SPEED_THRESHOLD: &str = "Toi: bodies faster than this (m/s) are swept by CCD even without the bullet flag.\n\
Too small: CCD runs for ordinary bodies and costs time.\n\
Too large: fast non-bullet bodies tunnel.\n\
Speculative: Collidoscope does not use it (every moving body's contacts reach as far as it moves); \
rapier3d's side of an A/B does, as its soft-CCD distance (threshold × dt).";

pub(super) const SLEEPING: &str = "Let resting islands fall asleep: they skip the solver until something touches them.\n\
Off: every body is simulated every step (slower, and resting piles may creep).";

pub(super) const SLEEP_SPEED: &str = "Below this speed (m/s) a body counts as resting: its centre and the point its spin moves fastest.\n\
Too small: piles never fall asleep because of solver noise.\n\
Too large: slowly moving bodies freeze in mid-motion.";

pub(super) const SLEEP_TIME: &str = "How long (s) an island must rest before it sleeps.\n\
Too small: bodies freeze at the top of a bounce.\n\
Too large: piles stay awake and cost time long after they settled.";

pub(super) const RESTITUTION: &str = "Restitution (0–1) of every body, over each body's own material: the fraction of the approach speed an impact gives back. A pair bounces with the larger of its two values.\n\
Unset: each body keeps the restitution its scene gives it (see the Inspector).\n\
Impacts slower than the restitution threshold never bounce.";

pub(super) const FRICTION: &str = "Coulomb friction coefficient of every body, over each body's own material. A pair rubs with the geometric mean of its two values.\n\
Unset: each body keeps the friction its scene gives it (see the Inspector).\n\
0: everything slides; large: nothing slides, boxes tip instead.";
