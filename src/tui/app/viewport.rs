//! What the app knows of the last frame: how many rows its lists and texts had on
//! screen. The view keeps its own memory (`view::ViewMemory`); the loop hands these
//! numbers to the app after each draw, so page-wise keys move by a screen and `update`
//! stays a pure function of the app's state.

/// What the last frame measured, handed to the app by the loop after each draw (the view
/// keeps its own memory; the app keeps only these numbers, so `update` stays a pure
/// function of its state): how far page-wise keys move and where a text scroll ends.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Viewport {
    /// Rows of the jobs list on screen as last drawn (0 before the first frame).
    pub jobs_rows: usize,
    /// Rows of the visitors table on screen as last drawn.
    pub visitors_rows: usize,
    /// The detail overlay as last drawn; `None` when the text changed since.
    pub detail: Option<TextExtent>,
    /// The help overlay as last drawn; `None` when it was opened since.
    pub help: Option<TextExtent>,
}

/// A scrolled text as drawn: the rows on screen and the last position that fills them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextExtent {
    pub rows: usize,
    pub last: usize,
}

/// A text scroll at `at` moved by `by` rows. The view clamps the position as it draws;
/// the move starts from where the last frame could show it, so `k` after `G` moves at
/// once.
pub(super) fn scrolled(at: usize, extent: Option<TextExtent>, by: isize) -> usize {
    let shown = extent.map_or(at, |e| at.min(e.last));
    shown.saturating_add_signed(by)
}
