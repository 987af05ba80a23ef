//! How a list shows what the user chose for it (`app::table::Arrangement`): an arrow on
//! the header of the column it is sorted by, and the filter with "3 of 120" in its title,
//! with a cursor while it is typed. Any table of the console uses these two.

use ratatui::text::{Line, Span};

use crate::listing::Direction;
use crate::text::sanitize;
use crate::tui::app::table::{Arrangement, SortKey};
use crate::tui::view::theme::Theme;

/// A column's header, with `▲`/`▼` when the list is sorted by it.
#[must_use]
pub fn sorted_header(header: &str, sorted: Option<Direction>) -> Line<'static> {
    match sorted {
        Some(direction) => Line::from(format!("{header}{}", direction.arrow())),
        None => Line::from(header.to_owned()),
    }
}

/// The way `column` is sorted in `arrangement`, if the list is sorted by it.
#[must_use]
pub fn direction_of<C: SortKey, K>(arrangement: &Arrangement<C, K>, column: C) -> Option<Direction>
where
    K: PartialEq + Clone,
{
    arrangement
        .sort()
        .and_then(|(by, direction)| (by == column).then_some(direction))
}

/// The filter for a list's title: ` /fail▏ 3 of 120 · Enter keeps · Esc clears ` while
/// typed (the bar is the cursor), ` /fail · 3 of 120 ` once applied; `None` with no
/// filter. It starts with a space: put it after a title that does not end with one.
#[must_use]
pub fn filter_title<C: SortKey, K: PartialEq + Clone>(
    arrangement: &Arrangement<C, K>,
    theme: Theme,
) -> Option<Line<'static>> {
    let typing = arrangement.typing();
    let pattern = arrangement.filter();
    if pattern.as_typed().is_empty() && !typing {
        return None;
    }
    let count = format!("{} of {}", arrangement.len(), arrangement.total());
    let typed = sanitize(pattern.as_typed());
    let spans = if typing {
        vec![
            Span::styled(format!(" /{typed}"), theme.accent()),
            Span::styled("▏", theme.accent()),
            Span::styled(format!(" {count} · Enter keeps · Esc clears "), theme.dim()),
        ]
    } else {
        vec![
            Span::styled(format!(" /{typed}"), theme.accent()),
            Span::styled(format!(" · {count} "), theme.bold()),
        ]
    };
    Some(Line::from(spans))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listing::Pattern;
    use crate::tui::app::table::{Arrangeable, FilterKey};

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    struct Only;

    impl SortKey for Only {
        const CYCLE: &'static [Self] = &[Self];

        fn first_direction(self) -> Direction {
            Direction::Descending
        }
    }

    impl Arrangeable<Only> for &str {
        type Id = String;

        fn id(&self) -> String {
            (*self).to_owned()
        }

        fn matches(&self, pattern: &Pattern) -> bool {
            pattern.matches(self)
        }

        fn compare(&self, other: &Self, _: Only) -> std::cmp::Ordering {
            self.cmp(other)
        }
    }

    fn text(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn the_sorted_column_carries_the_arrow_of_its_way() {
        let list = Arrangement::<Only, String>::default();
        assert_eq!(
            text(&sorted_header("AGE", direction_of(&list, Only))),
            "AGE▼"
        );
        assert_eq!(text(&sorted_header("ID", None)), "ID");
    }

    #[test]
    fn the_title_shows_the_filter_and_how_many_rows_of_all_it_keeps() {
        let rows = ["ab", "b", "cab"];
        let mut list = Arrangement::<Only, String>::default();
        list.arrange(&rows);
        assert_eq!(
            filter_title(&list, Theme { color: false }),
            None,
            "no filter"
        );
        list.start_filter();
        assert_eq!(
            text(&filter_title(&list, Theme { color: false }).unwrap()),
            " /▏ 3 of 3 · Enter keeps · Esc clears ",
            "an empty line being typed"
        );
        list.edit_filter(FilterKey::Char('a'));
        list.edit_filter(FilterKey::Enter);
        list.arrange(&rows);
        assert_eq!(
            text(&filter_title(&list, Theme { color: false }).unwrap()),
            " /a · 2 of 3 "
        );
    }
}
