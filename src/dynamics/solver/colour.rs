//! Graph colouring of the manifolds: within one colour no two manifolds share a body that the
//! solver moves, so a colour's manifolds can be solved side by side, eight at a time, with the
//! same result as one after another. Bodies that do not respond (static, kinematic, asleep)
//! may be shared freely: their velocities never change.

use super::Contact;
use super::lanes::W;

/// Colours tried before a manifold goes to the overflow, solved one by one after the colours.
pub(super) const MAX_COLOURS: usize = 24;

/// The most colours a chain of manifolds (a stack) cycles through: with [`chain_colours`] at
/// its most, manifold `i` of a column takes colour `i % CHAIN_COLOURS`, so each colour holds
/// every eighth manifold and a tall column fills 8 colours rather than 24 colours of one or
/// two. Within each run the column is still solved bottom-up. With 4 colours
/// `large_pyramid.ron` settled differently (asleep at 5.2 s against 2.7 s with 8); with 8 the
/// pyramids' stack measures (docs/dynamics.md) and the crowds' depths stay within their spread.
const CHAIN_COLOURS: usize = 8;

/// The colours chains cycle through in a step of `manifolds` manifolds: [`CHAIN_COLOURS`] when
/// a contact closes faster than an impact's speed (`impact`), else as few as hold a chain of
/// them in colours of at most one bundle ([`W`] manifolds) each, from 2 to [`CHAIN_COLOURS`].
///
/// A stop that must cross a chain within the step (a row of cubes flying into a wall, a box
/// landing on a stack) crosses a run of eight in one pass; solved red, black, red, … it crosses
/// one link per colour, and a row of ten struck at 15 m/s ends 13 cm deep in itself against
/// 8 cm. A chain at rest needs no such order (the stacks measure the same either way), and in
/// eight colours a small scene's chain is eight bundles of one or two manifolds, each costing
/// about what a full bundle does: a resting stack of nine boxes (`box_stack.ron`) in two colours
/// is two bundles, its step half as long (docs/dynamics.md, Graph colouring).
fn chain_colours(manifolds: usize, impact: bool) -> usize {
    match impact {
        true => CHAIN_COLOURS,
        false => manifolds.div_ceil(W).clamp(2, CHAIN_COLOURS),
    }
}

/// Manifold indices grouped by colour, each group in manifold order, then the overflow.
#[derive(Clone, Debug, Default)]
pub(super) struct Colouring {
    /// Manifold indices, colour by colour.
    pub order: Vec<u32>,
    /// `order[starts[c]..starts[c + 1]]` holds colour `c`.
    pub starts: Vec<usize>,
    pub overflow: Vec<u32>,
    /// Per body: the colours it is already in, as bits; all zero between builds (each build
    /// clears the entries it set), so a build costs its contacts, not the bodies.
    used: Vec<u32>,
    colour_of: Vec<u8>,
}

impl Colouring {
    /// Greedy colouring in manifold order (so the result depends only on the contacts and
    /// `impact`), each manifold taking, among the colours free for both of its moving bodies,
    /// the lowest of the first [`chain_colours`] after every colour its bodies are in, else the
    /// lowest.
    pub(super) fn build(&mut self, contacts: &[Contact], responds: &[bool], impact: bool) {
        const OVERFLOW: u8 = u8::MAX;
        debug_assert!(self.used.iter().all(|&u| u == 0));
        self.used.resize(responds.len(), 0);
        self.colour_of.clear();
        let mut counts = [0usize; MAX_COLOURS];
        let run = (1u32 << chain_colours(contacts.len(), impact)) - 1;
        for c in contacts {
            let (a, b) = (c.a as usize, c.b as usize);
            let (ra, rb) = (responds[a], responds[b]);
            let taken = if ra { self.used[a] } else { 0 } | if rb { self.used[b] } else { 0 };
            // First choice: the lowest free colour among the first `chain_colours` after every
            // colour its bodies are in, so that colour order follows manifold order along chains
            // (a stack is solved bottom-up, as one after another would); else the lowest free
            // colour, which starts the chain's next run of colours.
            let after = if taken == 0 { !0 } else { !0u32 << (32 - taken.leading_zeros()).min(31) };
            let later = !taken & after & run;
            let c = if later != 0 { later.trailing_zeros() } else { (!taken).trailing_zeros() } as usize;
            if c >= MAX_COLOURS {
                self.colour_of.push(OVERFLOW);
                continue;
            }
            let bit = 1u32 << c;
            if ra {
                self.used[a] |= bit;
            }
            if rb {
                self.used[b] |= bit;
            }
            counts[c] += 1;
            self.colour_of.push(c as u8);
        }
        for c in contacts {
            (self.used[c.a as usize], self.used[c.b as usize]) = (0, 0);
        }
        let colours = counts.iter().rposition(|&n| n > 0).map_or(0, |c| c + 1);
        self.starts.clear();
        self.starts.push(0);
        for &n in &counts[..colours] {
            self.starts.push(self.starts.last().unwrap() + n);
        }
        let mut next: Vec<usize> = self.starts[..colours].to_vec();
        self.order.clear();
        self.order.resize(self.starts[colours], 0);
        self.overflow.clear();
        for (i, &c) in self.colour_of.iter().enumerate() {
            if c == OVERFLOW {
                self.overflow.push(i as u32);
            } else {
                self.order[next[c as usize]] = i as u32;
                next[c as usize] += 1;
            }
        }
    }

    pub(super) fn colours(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }

    pub(super) fn colour(&self, c: usize) -> &[u32] {
        &self.order[self.starts[c]..self.starts[c + 1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(a: u32, b: u32) -> Contact {
        Contact { a, b, manifold: Default::default() }
    }

    #[test]
    fn no_colour_shares_a_moving_body_and_every_manifold_is_placed_once() {
        // A chain of 30 bodies on a static floor (body 0), plus a hub touching 40 others.
        let mut rows: Vec<Contact> = (1..30).map(|i| row(i, i + 1)).collect();
        rows.extend((1..31).map(|i| row(0, i)));
        rows.extend((32..72).map(|i| row(31, i)));
        let mut responds = vec![true; 72];
        responds[0] = false;
        for impact in [false, true] {
            let mut col = Colouring::default();
            col.build(&rows, &responds, impact);
            no_shared_body_and_each_placed_once(&col, &rows, &responds);
            // The hub's 40 manifolds cannot all get colours: the rest overflow.
            assert_eq!(col.overflow.len(), 40 - MAX_COLOURS);
        }
        // A chain of seven manifolds with three more at its bottom body: at rest red-black, and
        // the bottom body's four manifolds take four colours; struck, the chain runs through
        // seven.
        let mut rows: Vec<Contact> = (1..8).map(|i| row(i, i + 1)).collect();
        rows.extend((9..12).map(|i| row(1, i)));
        let responds = vec![true; 12];
        for (impact, colours) in [(false, 4), (true, 7)] {
            let mut col = Colouring::default();
            col.build(&rows, &responds, impact);
            no_shared_body_and_each_placed_once(&col, &rows, &responds);
            assert!(col.overflow.is_empty());
            assert_eq!(col.colours(), colours, "impact {impact}");
        }
    }

    fn no_shared_body_and_each_placed_once(col: &Colouring, rows: &[Contact], responds: &[bool]) {
        let mut seen = vec![0; rows.len()];
        for c in 0..col.colours() {
            let mut bodies = Vec::new();
            for &i in col.colour(c) {
                seen[i as usize] += 1;
                let r = &rows[i as usize];
                bodies.extend([r.a, r.b].into_iter().filter(|&x| responds[x as usize]));
            }
            let n = bodies.len();
            bodies.sort_unstable();
            bodies.dedup();
            assert_eq!(bodies.len(), n, "colour {c} shares a moving body");
        }
        for &i in &col.overflow {
            seen[i as usize] += 1;
        }
        assert!(seen.iter().all(|&s| s == 1));
        assert!(col.colour(0).windows(2).all(|w| w[0] < w[1]), "manifold order within a colour");
    }

    #[test]
    fn a_column_cycles_through_as_many_chain_colours_as_fill_bundles_bottom_up() {
        // Columns of `n` bodies on a static floor (body 0), manifolds listed bottom-up: at rest
        // a short one is solved red, black, red, …, a tall one in runs of eight; struck, any
        // in runs of eight.
        let at_rest = [(3, 2), (10, 2), (16, 2), (17, 3), (20, 3), (40, 5), (57, 8), (64, 8), (100, 8)];
        let struck = at_rest.map(|(n, _)| (n, n.min(8) as usize));
        let cases = at_rest.iter().map(|&c| (false, c)).chain(struck.iter().map(|&c| (true, c)));
        for (impact, (n, chain)) in cases {
            let rows: Vec<Contact> = (0..n).map(|i| row(i, i + 1)).collect();
            let mut responds = vec![true; n as usize + 1];
            responds[0] = false;
            let mut col = Colouring::default();
            col.build(&rows, &responds, impact);
            assert_eq!(col.colours(), chain, "{n} manifolds, impact {impact}");
            assert!(col.overflow.is_empty());
            for c in 0..chain {
                let expected: Vec<u32> = (c as u32..n).step_by(chain).collect();
                assert_eq!(col.colour(c), &expected[..], "{n} manifolds, impact {impact}, colour {c}");
            }
        }
    }
}
