//! Colours shared by the structures' debug drawings.

use crate::debug_draw::Color;

/// Most boxes a structure draws, so that a huge scene cannot flood the viewer.
pub(super) const MAX_DRAWN_BOXES: usize = 20_000;

/// A colour for tree depth `depth`: hues cycle so neighbouring levels differ clearly.
pub(super) fn depth_color(depth: u32) -> Color {
    const HUES: [Color; 6] = [
        [1.0, 0.35, 0.35, 0.9],
        [1.0, 0.75, 0.2, 0.9],
        [0.55, 1.0, 0.3, 0.9],
        [0.25, 0.9, 1.0, 0.9],
        [0.45, 0.5, 1.0, 0.9],
        [0.95, 0.4, 1.0, 0.9],
    ];
    HUES[depth as usize % HUES.len()]
}

/// A colour for a cell holding `count` bodies out of at most `max`: blue when alone, through
/// green and yellow, to red for the fullest.
pub(super) fn count_color(count: u32, max: u32) -> Color {
    let t = if max <= 1 { 0.0 } else { (count.saturating_sub(1)) as f32 / (max - 1) as f32 };
    let t = t.clamp(0.0, 1.0);
    let (r, g, b) = if t < 0.5 {
        let u = t * 2.0;
        (u, 0.4 + 0.6 * u, 1.0 - u)
    } else {
        let u = (t - 0.5) * 2.0;
        (1.0, 1.0 - u, 0.0)
    };
    [r, g, b, 0.9]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_colour_runs_from_blue_to_red() {
        assert_eq!(count_color(1, 10), [0.0, 0.4, 1.0, 0.9]);
        assert_eq!(count_color(10, 10), [1.0, 0.0, 0.0, 0.9]);
        assert_eq!(count_color(3, 1), count_color(1, 1));
    }
}
