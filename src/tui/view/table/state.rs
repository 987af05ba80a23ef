//! What a table remembers between frames: the first row on screen, and how many rows the
//! last frame had room for. The selection is not here: it is the app's (it names a job,
//! or a row of a page), and the window only follows it.

use std::ops::Range;

use ratatui::layout::Rect;

use crate::tui::app::RowsArea;

/// The window of one table, kept by the view from frame to frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TableState {
    /// The first row on screen.
    offset: usize,
    /// Rows the last frame showed: how far PgDn and PgUp move.
    visible: usize,
    /// Where the last frame drew the rows, for clicks.
    drawn: RowsArea,
}

impl TableState {
    /// The rows to show of `len`, `visible` at most, so that `selected` is on screen. The
    /// window moves as little as it can (as a scrolled list does) and never leaves empty
    /// rows below the last one when there are rows above to fill them.
    pub fn window(&mut self, selected: usize, visible: usize, len: usize) -> Range<usize> {
        let visible = visible.max(1);
        let mut offset = self.offset;
        if selected < offset {
            offset = selected;
        } else if selected >= offset + visible {
            offset = selected + 1 - visible;
        }
        offset = offset.min(len.saturating_sub(visible));
        self.offset = offset;
        self.visible = visible;
        offset..len.min(offset + visible)
    }

    /// Records where the rows of `window` were drawn: the area below the header.
    pub fn drawn_at(&mut self, area: Rect, window: &Range<usize>) {
        self.drawn = RowsArea {
            area,
            first: window.start,
            drawn: window.len(),
        };
    }

    /// Where the last frame drew the rows.
    #[must_use]
    pub fn rows_area(&self) -> RowsArea {
        self.drawn
    }

    /// Rows on screen as last drawn (0 before the first frame).
    #[must_use]
    pub fn visible(&self) -> usize {
        self.visible
    }

    #[cfg(test)]
    #[must_use]
    pub fn offset(&self) -> usize {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_frame_shows_the_top() {
        let mut state = TableState::default();
        assert_eq!(state.window(0, 5, 20), 0..5);
        assert_eq!(state.visible(), 5);
    }

    #[test]
    fn the_window_moves_only_when_the_selection_would_leave_it() {
        let mut state = TableState::default();
        assert_eq!(state.window(4, 5, 20), 0..5, "still on screen");
        assert_eq!(state.window(5, 5, 20), 1..6, "one row down");
        assert_eq!(state.window(3, 5, 20), 1..6, "back up inside the window");
        assert_eq!(state.window(0, 5, 20), 0..5, "one row up");
        assert_eq!(state.window(17, 5, 20), 13..18, "a jump ends at the bottom");
        assert_eq!(
            state.window(10, 5, 20),
            10..15,
            "a jump up starts at the top"
        );
    }

    #[test]
    fn the_window_is_clamped_at_the_end() {
        let mut state = TableState::default();
        assert_eq!(state.window(19, 5, 20), 15..20);
        assert_eq!(
            state.window(usize::MAX - 1, 5, 20),
            15..20,
            "never past the last"
        );
        // Rows went away under the window: it fills the screen from the new last row.
        assert_eq!(state.window(7, 5, 8), 3..8);
        assert_eq!(state.window(0, 5, 3), 0..3, "fewer rows than room");
        assert_eq!(state.window(0, 5, 0), 0..0, "no rows");
    }

    #[test]
    fn shrinking_the_screen_keeps_the_selection_visible() {
        let mut state = TableState::default();
        assert_eq!(state.window(30, 20, 100), 11..31);
        assert_eq!(
            state.window(30, 5, 100),
            26..31,
            "the selection stays, at the bottom"
        );
        assert_eq!(state.visible(), 5, "PgDn now moves five");
        assert_eq!(
            state.window(30, 20, 100),
            26..46,
            "growing keeps the top row"
        );
        assert_eq!(state.window(99, 10, 100), 90..100);
        assert_eq!(
            state.window(99, 40, 100),
            60..100,
            "growing at the end fills the screen"
        );
    }

    #[test]
    fn a_table_with_no_room_still_shows_the_selected_row() {
        let mut state = TableState::default();
        assert_eq!(state.window(3, 0, 10), 3..4);
        assert_eq!(state.visible(), 1);
    }
}
