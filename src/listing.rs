//! Filtering and ordering rows of any list, below both faces: the CLI's `--filter` and
//! `--sort` and the console's tables (`/` and sort keys) share one rule for what a
//! pattern matches and which way a sort goes, so a script and the screen never disagree.

use std::cmp::Ordering;

/// What the user typed to narrow a list: a substring, where `*` stands for any run of
/// characters. Case does not matter. An empty pattern (or one of only `*`) keeps every
/// row.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pattern {
    /// The pieces between the `*`s, lowercased, empty ones dropped: each must appear in
    /// order, the next after the end of the one before.
    pieces: Vec<String>,
    typed: String,
}

impl Pattern {
    #[must_use]
    pub fn new(typed: &str) -> Self {
        let pieces = typed
            .split('*')
            .filter(|piece| !piece.is_empty())
            .map(str::to_lowercase)
            .collect();
        Self {
            pieces,
            typed: typed.to_owned(),
        }
    }

    /// The pattern as the user typed it, to show back.
    #[must_use]
    pub fn as_typed(&self) -> &str {
        &self.typed
    }

    /// True when the pattern keeps every row, so a list can say "no filter".
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.pieces.is_empty()
    }

    /// Whether `text` holds every piece, in order.
    #[must_use]
    pub fn matches(&self, text: &str) -> bool {
        if self.pieces.is_empty() {
            return true;
        }
        let text = text.to_lowercase();
        let mut rest = text.as_str();
        for piece in &self.pieces {
            match rest.find(piece.as_str()) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        true
    }

    /// Whether any of `texts` matches: a row is kept when one of its columns does.
    #[must_use]
    pub fn matches_any<'t>(&self, texts: impl IntoIterator<Item = &'t str>) -> bool {
        self.is_empty() || texts.into_iter().any(|text| self.matches(text))
    }
}

/// Which way a sort runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Direction {
    #[default]
    Ascending,
    Descending,
}

impl Direction {
    /// The other way (what a "reverse" key does).
    #[must_use]
    pub fn reversed(self) -> Self {
        match self {
            Self::Ascending => Self::Descending,
            Self::Descending => Self::Ascending,
        }
    }

    /// `ordering` of two rows compared ascending, turned this way.
    #[must_use]
    pub fn apply(self, ordering: Ordering) -> Ordering {
        match self {
            Self::Ascending => ordering,
            Self::Descending => ordering.reverse(),
        }
    }

    /// `▲` or `▼`, for a column header.
    #[must_use]
    pub fn arrow(self) -> char {
        match self {
            Self::Ascending => '▲',
            Self::Descending => '▼',
        }
    }
}

/// The positions in `rows` of the rows `keep` accepts, in the order `cmp` gives (a
/// stable sort: rows `cmp` calls equal keep their order). A view over rows that stay
/// where they are, so a selection can name a row by position in `rows`.
pub fn ordered<R>(
    rows: &[R],
    keep: impl Fn(&R) -> bool,
    cmp: impl Fn(&R, &R) -> Ordering,
) -> Vec<usize> {
    let mut view: Vec<usize> = (0..rows.len()).filter(|&i| keep(&rows[i])).collect();
    view.sort_by(|&a, &b| cmp(&rows[a], &rows[b]));
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_pattern_is_a_substring_in_any_case() {
        let pattern = Pattern::new("Quick");
        assert!(pattern.matches("/guides/quickstart"));
        assert!(!pattern.matches("/guides/start"));
    }

    #[test]
    fn a_star_stands_for_any_run_and_pieces_keep_their_order() {
        let pattern = Pattern::new("api*auth");
        assert!(pattern.matches("/api-reference/authentication"));
        assert!(pattern.matches("/apiauth"));
        assert!(!pattern.matches("/auth/api"));
        // One piece is not matched twice over the same characters.
        assert!(!Pattern::new("ab*ba").matches("aba"));
        assert!(Pattern::new("ab*ba").matches("abba"));
    }

    #[test]
    fn an_empty_pattern_or_only_stars_keeps_everything() {
        for typed in ["", "*", "**"] {
            let pattern = Pattern::new(typed);
            assert!(pattern.is_empty(), "{typed:?}");
            assert!(pattern.matches(""), "{typed:?}");
            assert!(pattern.matches_any(std::iter::empty()), "{typed:?}");
        }
        assert_eq!(Pattern::new("a*").as_typed(), "a*");
    }

    #[test]
    fn a_row_is_kept_when_any_column_matches() {
        let pattern = Pattern::new("fail");
        assert!(pattern.matches_any(["job_1", "failed"]));
        assert!(!pattern.matches_any(["job_1", "active"]));
    }

    #[test]
    fn a_non_ascii_text_is_matched_without_splitting_a_character() {
        assert!(Pattern::new("é*x").matches("/ÉTÉ/x"));
        assert!(!Pattern::new("ü").matches("/uber"));
    }

    #[test]
    fn ordered_filters_then_sorts_stably_and_reverses() {
        let rows = [("b", 2), ("a", 2), ("c", 1), ("d", 3)];
        let by_number = |x: &(&str, i32), y: &(&str, i32)| x.1.cmp(&y.1);
        assert_eq!(ordered(&rows, |_| true, by_number), vec![2, 0, 1, 3]);
        let down = |x: &(&str, i32), y: &(&str, i32)| Direction::Descending.apply(x.1.cmp(&y.1));
        assert_eq!(ordered(&rows, |_| true, down), vec![3, 0, 1, 2]);
        assert_eq!(ordered(&rows, |r| r.0 != "a", by_number), vec![2, 0, 3]);
        assert_eq!(Direction::Ascending.reversed(), Direction::Descending);
        assert_eq!(Direction::Descending.arrow(), '▼');
    }
}
