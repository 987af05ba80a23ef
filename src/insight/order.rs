//! Sorting and filtering rows of visitors, the same for the CLI's `--sort`/`--filter`
//! and the console's sort keys and `/`: numbers sort descending by default, paths
//! ascending, and ties always fall to the path ascending, so an order is total and the
//! same everywhere. Matching is [`crate::listing::Pattern`]'s.

use std::cmp::Ordering;

use thiserror::Error;

use super::compare::{ComparedRow, counts};
use crate::api::{PathVisitors, VisitorTotals};
use crate::listing::{Direction, Pattern, ordered};

/// What a table of visitors can be sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SortKey {
    Path,
    Human,
    Ai,
    Total,
    /// AI visitors as a share of the row's total.
    AiShare,
    /// The change in total visitors from the previous period (a new path: its whole
    /// total). Rows without a comparison have none, and fall to the path.
    Change,
}

impl SortKey {
    /// Every key, in the order of the table's columns.
    pub const ALL: [Self; 6] = [
        Self::Path,
        Self::Human,
        Self::Ai,
        Self::Total,
        Self::AiShare,
        Self::Change,
    ];

    /// As typed after `--sort` and shown in headers and help.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Path => "path",
            Self::Human => "human",
            Self::Ai => "ai",
            Self::Total => "total",
            Self::AiShare => "ai-share",
            Self::Change => "change",
        }
    }

    /// Descending for numbers (the biggest first), ascending for the path.
    #[must_use]
    pub fn default_direction(self) -> Direction {
        match self {
            Self::Path => Direction::Ascending,
            _ => Direction::Descending,
        }
    }
}

/// A key and a direction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sort {
    pub key: SortKey,
    pub direction: Direction,
}

impl Sort {
    /// `key` in its default direction.
    #[must_use]
    pub fn new(key: SortKey) -> Self {
        Self {
            key,
            direction: key.default_direction(),
        }
    }

    /// Reads `total`, `path:desc`, `ai-share:asc`.
    pub fn parse(text: &str) -> Result<Self, SortError> {
        let text = text.trim();
        let (name, direction) = match text.rsplit_once(':') {
            Some((name, way)) => (name, Some(way)),
            None => (text, None),
        };
        let key = SortKey::ALL
            .into_iter()
            .find(|key| key.as_str().eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| SortError::Key(crate::text::excerpt(name, 32)))?;
        let direction = match direction.map(|way| way.trim().to_ascii_lowercase()) {
            None => key.default_direction(),
            Some(way) if way == "asc" => Direction::Ascending,
            Some(way) if way == "desc" => Direction::Descending,
            Some(way) => return Err(SortError::Direction(crate::text::excerpt(&way, 16))),
        };
        Ok(Self { key, direction })
    }
}

impl std::fmt::Display for Sort {
    /// As `--sort` takes it, the direction always written: `total:desc`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let way = match self.direction {
            Direction::Ascending => "asc",
            Direction::Descending => "desc",
        };
        write!(f, "{}:{way}", self.key.as_str())
    }
}

/// A sort that was typed wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SortError {
    #[error("{0:?} is not a column to sort by: use path, human, ai, total, ai-share or change")]
    Key(String),
    #[error("{0:?} is not a direction: add :asc or :desc, or nothing for the default")]
    Direction(String),
}

/// What sorting needs of a row: its path and numbers, and its change when compared.
pub trait SortRow {
    fn path(&self) -> &str;
    fn counts(&self) -> VisitorTotals;
    /// The change in total from the previous period; `None` without a comparison.
    fn change(&self) -> Option<i64>;
}

impl SortRow for PathVisitors {
    fn path(&self) -> &str {
        &self.path
    }

    fn counts(&self) -> VisitorTotals {
        counts(self)
    }

    fn change(&self) -> Option<i64> {
        None
    }
}

impl SortRow for ComparedRow {
    fn path(&self) -> &str {
        &self.path
    }

    fn counts(&self) -> VisitorTotals {
        self.now
    }

    fn change(&self) -> Option<i64> {
        Some(self.total_change().absolute())
    }
}

/// Two rows by `key` alone, ascending: equal keys are equal (a table that sorts stably
/// over rows held in path order keeps the ties by path ascending either way).
pub fn compare_key<R: SortRow>(a: &R, b: &R, key: SortKey) -> Ordering {
    let (x, y) = (a.counts(), b.counts());
    match key {
        SortKey::Path => a.path().cmp(b.path()),
        SortKey::Human => x.human.cmp(&y.human),
        SortKey::Ai => x.ai.cmp(&y.ai),
        SortKey::Total => x.total.cmp(&y.total),
        SortKey::AiShare => x.ai_share().total_cmp(&y.ai_share()),
        SortKey::Change => a.change().cmp(&b.change()),
    }
}

/// Two rows in `sort`'s order; equal keys fall to the path, ascending either way.
pub fn compare<R: SortRow>(a: &R, b: &R, sort: Sort) -> Ordering {
    sort.direction
        .apply(compare_key(a, b, sort.key))
        .then_with(|| a.path().cmp(b.path()))
}

/// The positions in `rows` of the rows whose path matches `filter`, in `sort`'s order:
/// a view over rows that stay where they are (see [`crate::listing::ordered`]).
#[must_use]
pub fn order<R: SortRow>(rows: &[R], filter: &Pattern, sort: Sort) -> Vec<usize> {
    ordered(
        rows,
        |row| filter.matches(row.path()),
        |a, b| compare(a, b, sort),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::insight::compare::compare_rows;

    fn paths<R: SortRow>(rows: &[R], filter: &str, sort: &str) -> Vec<String> {
        order(rows, &Pattern::new(filter), Sort::parse(sort).unwrap())
            .into_iter()
            .map(|i| rows[i].path().to_owned())
            .collect()
    }

    fn sample() -> Vec<PathVisitors> {
        vec![
            PathVisitors::new("/guides/b", 10, 0, 10),
            PathVisitors::new("/api/users", 2, 8, 9),
            PathVisitors::new("/guides/a", 10, 5, 12),
            PathVisitors::new("/faq", 1, 1, 1),
        ]
    }

    #[test]
    fn numbers_sort_descending_and_paths_ascending_by_default() {
        let rows = sample();
        assert_eq!(
            paths(&rows, "", "human"),
            ["/guides/a", "/guides/b", "/api/users", "/faq"]
        );
        assert_eq!(
            paths(&rows, "", "path"),
            ["/api/users", "/faq", "/guides/a", "/guides/b"]
        );
        assert_eq!(
            paths(&rows, "", "total:asc"),
            ["/faq", "/api/users", "/guides/b", "/guides/a"]
        );
        assert_eq!(
            paths(&rows, "", "PATH:desc"),
            ["/guides/b", "/guides/a", "/faq", "/api/users"]
        );
    }

    #[test]
    fn ties_fall_to_the_path_ascending_in_either_direction() {
        let rows = sample();
        // /guides/a and /guides/b both have 10 humans.
        assert_eq!(
            paths(&rows, "", "human:desc")[..2],
            ["/guides/a", "/guides/b"]
        );
        assert_eq!(
            paths(&rows, "", "human:asc")[2..],
            ["/guides/a", "/guides/b"]
        );
    }

    #[test]
    fn ai_share_sorts_by_the_rows_own_share() {
        let rows = sample();
        // 8/9, 1/1, 5/12, 0/10.
        assert_eq!(
            paths(&rows, "", "ai-share"),
            ["/faq", "/api/users", "/guides/a", "/guides/b"]
        );
    }

    #[test]
    fn the_filter_is_the_listing_pattern_on_the_path() {
        let rows = sample();
        assert_eq!(paths(&rows, "GUIDES", "path"), ["/guides/a", "/guides/b"]);
        assert_eq!(paths(&rows, "/g*b", "path"), ["/guides/b"]);
        assert!(paths(&rows, "nothing", "path").is_empty());
    }

    #[test]
    fn change_sorts_compared_rows_and_a_new_path_changed_by_its_total() {
        let before = [
            PathVisitors::new("/guides/b", 20, 0, 20),
            PathVisitors::new("/faq", 1, 0, 1),
        ];
        let rows = compare_rows(&sample(), &before);
        // Changes: /guides/b −10, /api/users new +9, /guides/a new +12, /faq 0.
        assert_eq!(
            paths(&rows, "", "change"),
            ["/guides/a", "/api/users", "/faq", "/guides/b"]
        );
        // Uncompared rows have no change: the path decides.
        assert_eq!(
            paths(&sample(), "", "change"),
            ["/api/users", "/faq", "/guides/a", "/guides/b"]
        );
    }

    #[test]
    fn a_wrong_sort_says_what_is_accepted() {
        assert!(
            Sort::parse("visits")
                .unwrap_err()
                .to_string()
                .contains("ai-share")
        );
        assert!(
            Sort::parse("total:up")
                .unwrap_err()
                .to_string()
                .contains(":asc or :desc")
        );
        assert_eq!(
            Sort::parse(" ai-share ").unwrap().to_string(),
            "ai-share:desc"
        );
        assert_eq!(Sort::new(SortKey::Path).to_string(), "path:asc");
    }
}
