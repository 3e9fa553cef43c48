//! The broad-phase step: every body's box, the candidate pairs, less those that can never
//! interact.

use super::*;

impl World {
    /// Every body's box (swept along its path for fast bodies), the broad phase's candidate
    /// pairs, less those that can never interact, in canonical order; or last update's pairs
    /// while nothing can move.
    pub(super) fn find_pairs(&mut self, st: &mut StepState, p: &mut StepProfile) {
        let dt = self.settings.dt;
        let ccd_mode = self.settings.ccd;
        let margin = self.settings.speculative_distance * 0.5;
        // No dynamic body awake: only kinematic bodies can move in this step.
        st.quiet = idle::quiet(&self.bodies);
        let bodies = &self.bodies;
        let joints = &self.joints;
        // Pairs that can never interact: neither moves, or both sleep; and jointed pairs whose
        // joint turns their collision off.
        let active = |&(a, b): &(u32, u32)| {
            if joints.filters((a, b)) {
                return false;
            }
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            let a_active = ba.kind != BodyKind::Static && !ba.asleep;
            let b_active = bb.kind != BodyKind::Static && !bb.asleep;
            (a_active || b_active) && (ba.is_dynamic() || bb.is_dynamic())
        };
        if st.quiet && self.idle.reusable(&self.settings, bodies, &self.aabbs, self.indexed, margin) {
            // Nothing moved since the kept update: its boxes and pairs still hold.
            self.pairs.clear();
            self.pairs.extend(self.idle.candidates().iter().copied().filter(active));
            p.broad = self.idle.reused_stats();
            p.broad_phase_reused = true;
            self.idle.no_unchanged();
        } else {
            let swept = |i: usize| ccd_mode != CcdMode::Off && (self.ccd.fast[i] || self.ccd.reach[i]);
            let n = bodies.len();
            self.aabbs.resize(n, Aabb::EMPTY);
            // A body that stayed still since its box was made keeps it (in a pile asleep, most).
            let (held, still, unchanged) = self.idle.still_boxes(n, margin);
            st.kept_resting = held && st.lists.movers.few;
            match st.kept_resting {
                // The others rested at the last update and still do (nothing woke them, and
                // a body at rest is not swept): their boxes are kept.
                true => {
                    unchanged.fill(true);
                    for i in st.lists.movers.list.iter().map(|&i| i as usize) {
                        let (still, unchanged, out) = (&mut still[i], &mut unchanged[i], &mut self.aabbs[i]);
                        make_box(&bodies[i], swept(i), held, (dt, margin), still, unchanged, out);
                    }
                    st.lists.movers.note_next(still);
                }
                false => {
                    let out = (&mut self.aabbs[..], still, unchanged);
                    parallel::fill(st.crew.as_ref(), out, BODY_BLOCK, |r, out| {
                        let (aabbs, still, unchanged) = out;
                        for (k, i) in r.enumerate() {
                            let (still, unchanged, out) = (&mut still[k], &mut unchanged[k], &mut aabbs[k]);
                            make_box(&bodies[i], swept(i), held, (dt, margin), still, unchanged, out);
                        }
                    });
                }
            }
            if ccd_mode != CcdMode::Off {
                // The sweeps of the bodies with reach, for drawing.
                st.lists.movers.bodies(n, false).each(|i| {
                    if self.ccd.reach[i] {
                        let (from, to) = (bodies[i].pose, ccd::predicted_pose(&bodies[i], dt));
                        self.ccd.motions.push(CcdMotion { body: i as u32, from, to, aabb: self.aabbs[i] });
                    }
                });
            }
            let params = BroadPhaseParams { grid_cell_size: self.settings.grid_cell_size };
            let (aabbs, movers, pairs) = (&self.aabbs, &st.lists.movers.list[..], &mut self.pairs);
            p.broad = match st.kept_resting {
                // Every box but the movers' is the one the last update saw, and every other body
                // is at rest, so a pair without a mover is not active: only the movers' pairs
                // are asked for.
                true => self.broad_phase.update_touching(aabbs, &params, movers, pairs),
                false => self.broad_phase.update(aabbs, &params, pairs),
            };
            self.indexed = self.aabbs.len();
            if st.quiet {
                self.idle.keep(&self.pairs, p.broad);
            }
            self.pairs.retain(active);
        }
        // Every structure returns the pairs in one canonical order (ascending), and the
        // filter keeps it, so the simulation is the same whichever structure ran.
        debug_assert!(self.pairs.is_sorted(), "{} returned unsorted pairs", self.broad_phase.kind().label());
        if self.pairs.len() > MAX_PAIRS {
            p.pairs_dropped = (self.pairs.len() - MAX_PAIRS) as u32;
            self.pairs.truncate(MAX_PAIRS);
        }
        p.broad_phase = self.broad_phase.resolved();
        p.pairs = self.pairs.len() as u32;
    }
}

/// A body's box and flags for the step's update (`IdlePairs::still_boxes`): `still` (made while
/// static or asleep and not swept) and `unchanged` (kept: `still` now and when last made, while
/// the kept boxes are `held`); the box is made afresh unless kept, swept along the body's path
/// when `swept`, grown by the margin.
#[inline(always)]
fn make_box(
    b: &Body,
    swept: bool,
    held: bool,
    (dt, margin): (Real, Real),
    still: &mut bool,
    unchanged: &mut bool,
    out: &mut Aabb,
) {
    let at_rest = b.kind == BodyKind::Static || b.asleep;
    let kept = held && *still;
    *still = at_rest && !swept;
    *unchanged = kept && *still;
    if !*unchanged {
        // Fast bodies are found by everything along the path they may take this step (the
        // time-of-impact pass queries these boxes for what a sweep can meet).
        *out = if swept { ccd::swept_aabb(b, dt) } else { b.aabb() }.expanded(margin);
    }
}
