//! How a list's cursor moves with the keys, the same in every list: one row, a screen of
//! rows (as last drawn), or to either end, never past the last row.

use crate::tui::keymap::Action;

/// Where the cursor at `at` of `len` rows goes for `action`, with `page` rows on screen;
/// `None` when the action does not move a cursor.
#[must_use]
pub fn moved(at: usize, len: usize, action: Action, page: usize) -> Option<usize> {
    let next = match action {
        Action::Up => at.saturating_sub(1),
        Action::Down => at.saturating_add(1),
        Action::PrevPage => at.saturating_sub(page.max(1)),
        Action::NextPage => at.saturating_add(page.max(1)),
        Action::Top => 0,
        Action::Bottom => usize::MAX,
        _ => return None,
    };
    Some(next.min(len.saturating_sub(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cursor_moves_by_a_row_a_screen_or_to_an_end_and_stays_in_the_list() {
        assert_eq!(moved(3, 10, Action::Up, 4), Some(2));
        assert_eq!(moved(0, 10, Action::Up, 4), Some(0));
        assert_eq!(moved(9, 10, Action::Down, 4), Some(9));
        assert_eq!(moved(3, 10, Action::NextPage, 4), Some(7));
        assert_eq!(moved(7, 10, Action::NextPage, 4), Some(9));
        assert_eq!(moved(7, 10, Action::PrevPage, 4), Some(3));
        assert_eq!(
            moved(3, 10, Action::NextPage, 0),
            Some(4),
            "a screen is a row at least"
        );
        assert_eq!(moved(3, 10, Action::Bottom, 4), Some(9));
        assert_eq!(moved(3, 10, Action::Top, 4), Some(0));
        assert_eq!(moved(0, 0, Action::Down, 4), Some(0), "an empty list");
        assert_eq!(moved(3, 10, Action::Open, 4), None);
    }
}
