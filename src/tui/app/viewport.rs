//! Text scrolls against what the last frame measured (see [`Viewport`], which the view
//! reports in `Msg::Drawn`).

use super::TextExtent;
#[cfg(doc)]
use super::Viewport;

/// A text scroll at `at` moved by `by` rows. The view clamps the position as it draws;
/// the move starts from where the last frame could show it, so `k` after `G` moves at
/// once.
pub(super) fn scrolled(at: usize, extent: Option<TextExtent>, by: isize) -> usize {
    let shown = extent.map_or(at, |e| at.min(e.last));
    shown.saturating_add_signed(by)
}
