//! What a drawn frame measured, as the view reports it to the app in a message: how
//! many rows its lists and texts had on screen, where a click can hit, and what the
//! detail's search found. The app keeps only these numbers, so page-wise keys move by a
//! screen and `update` stays a pure function of its state.

use ratatui::layout::{Position, Rect};

/// The console's panes: the app moves the focus between them, the view draws their tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pane {
    Jobs,
    Composer,
    Visitors,
    /// What readers searched for and did not find, and asked the assistant in vain.
    Searches,
}

impl Pane {
    /// The panes the focus moves between, in tab order: under `--read-only` the composer
    /// is not one.
    #[must_use]
    pub fn all(read_only: bool) -> &'static [Self] {
        if read_only {
            &[Self::Jobs, Self::Visitors, Self::Searches]
        } else {
            &[Self::Jobs, Self::Composer, Self::Visitors, Self::Searches]
        }
    }

    /// The pane `step` tabs away (round, as Tab and Shift+Tab move).
    #[must_use]
    pub fn step(self, step: isize, read_only: bool) -> Self {
        let panes = Self::all(read_only);
        let at = panes.iter().position(|p| *p == self).unwrap_or(0);
        let len = panes.len().cast_signed();
        panes[(at.cast_signed() + step).rem_euclid(len).cast_unsigned()]
    }
}

/// What the last frame measured, reported by the loop after each draw as
/// [`Msg::Drawn`](super::Msg::Drawn): how far page-wise keys move and where a text
/// scroll ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Viewport {
    /// Rows of the jobs list on screen as last drawn (0 before the first frame).
    pub jobs_rows: usize,
    /// Rows of the visitors table on screen as last drawn.
    pub visitors_rows: usize,
    /// Rows of the searches pane's list on screen as last drawn.
    pub searches_rows: usize,
    /// The detail overlay as last drawn; `None` when the text changed since.
    pub detail: Option<TextExtent>,
    /// The help overlay as last drawn; `None` when it was opened since.
    pub help: Option<TextExtent>,
    /// What the detail's search found in the last frame, while one is open.
    pub found: Option<Found>,
    /// Where the last frame put what a click can hit.
    pub hits: Hits,
}

/// Where the last frame drew what a click can hit: the pane tabs and the rows of the
/// list on screen. Empty before the first frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Hits {
    /// The tabs of the top line, left to right (as many as are shown).
    pub tabs: [Option<(Rect, Pane)>; 4],
    /// The rows of the jobs list or the visitors table, whichever is on screen.
    pub rows: Option<RowsArea>,
}

impl Hits {
    /// The pane whose tab is at a cell.
    #[must_use]
    pub fn tab_at(&self, column: u16, row: u16) -> Option<Pane> {
        self.tabs
            .iter()
            .flatten()
            .find(|(area, _)| area.contains(Position::new(column, row)))
            .map(|(_, pane)| *pane)
    }
}

/// The rows of a table as drawn: the area they fill and which of them is on top.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RowsArea {
    pub area: Rect,
    /// The position (among the rows shown) of the top row on screen.
    pub first: usize,
    /// Rows drawn (fewer than the area's height at the end of a list).
    pub drawn: usize,
}

impl RowsArea {
    /// The position among the rows shown of the row at a cell, if one is drawn there.
    #[must_use]
    pub fn row_at(&self, column: u16, row: u16) -> Option<usize> {
        if !self.area.contains(Position::new(column, row)) {
            return None;
        }
        let down = usize::from(row - self.area.y);
        (down < self.drawn).then_some(self.first + down)
    }
}

/// A scrolled text as drawn: the rows on screen and the last position that fills them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextExtent {
    pub rows: usize,
    pub last: usize,
}

/// What the last frame found of the detail's search: how many rows match, and the row
/// the text was scrolled to (to bring the current one into sight).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Found {
    pub matches: usize,
    pub scroll: usize,
}

#[cfg(test)]
mod tests {
    use super::Pane;

    #[test]
    fn tab_goes_round_the_panes_and_read_only_has_no_composer() {
        assert_eq!(Pane::Jobs.step(1, false), Pane::Composer);
        assert_eq!(Pane::Visitors.step(1, false), Pane::Searches);
        assert_eq!(Pane::Searches.step(1, false), Pane::Jobs);
        assert_eq!(Pane::Jobs.step(-1, false), Pane::Searches);
        assert_eq!(Pane::Jobs.step(1, true), Pane::Visitors);
        assert_eq!(Pane::Searches.step(1, true), Pane::Jobs);
        assert_eq!(Pane::Visitors.step(-1, true), Pane::Jobs);
        // The composer, not a pane under `--read-only`, steps as the first pane does.
        assert_eq!(Pane::Composer.step(1, true), Pane::Visitors);
    }
}
