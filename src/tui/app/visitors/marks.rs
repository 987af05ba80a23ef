//! The pages marked in the visitors pane for a job: each keeps the numbers it was
//! marked with, so the prompt built from them says what was seen, whatever the pane
//! shows later.

use crate::api::{DateParam, PathVisitors, VisitorsQuery};
use crate::insight::templates::Marked;

/// The marked pages, in the order they were marked (a path at most once).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    list: Vec<PathVisitors>,
    /// The range each page's numbers cover, beside it.
    ranges: Vec<String>,
}

impl Marks {
    /// What the notice line says when `path` was just marked or unmarked.
    #[must_use]
    pub fn said(&self, path: &str, marked: bool) -> String {
        match (marked, self.len()) {
            (true, 1) => format!("marked {path}: n makes a job of it"),
            (true, n) => format!("marked {path} ({n} marked): n makes a job of them"),
            (false, 0) => format!("unmarked {path}: nothing is marked"),
            (false, n) => format!("unmarked {path} ({n} still marked)"),
        }
    }

    /// Marks `row` (its numbers counted over `range`), or unmarks it if its path is
    /// marked. Returns whether it is marked now.
    pub fn toggle(&mut self, row: &PathVisitors, range: &str) -> bool {
        if let Some(at) = self.list.iter().position(|m| m.path == row.path) {
            self.list.remove(at);
            self.ranges.remove(at);
            return false;
        }
        self.list.push(row.clone());
        self.ranges.push(range.to_owned());
        true
    }

    /// The pages and the range their numbers cover, as a prompt names them: one range
    /// when all were marked over the same, else each page's.
    #[must_use]
    pub fn marked(&self) -> Marked {
        let range = match self.ranges.first() {
            None => None,
            Some(first) if self.ranges.iter().all(|r| r == first) => {
                Some(format!("unique visitors {first}"))
            }
            Some(_) => Some(format!(
                "unique visitors, each page over the range it was marked in: {}",
                self.list
                    .iter()
                    .zip(&self.ranges)
                    .map(|(page, range)| format!("{} {range}", page.path))
                    .collect::<Vec<_>>()
                    .join("; ")
            )),
        };
        Marked {
            pages: self.list.clone(),
            range,
        }
    }

    /// The range of `query`, as a marked page's numbers are said to cover it: `from
    /// 2026-11-16 to 2026-11-23 (UTC, the end excluded)`.
    #[must_use]
    pub fn range_of(query: &VisitorsQuery) -> String {
        format!(
            "from {} to {} (UTC, the end excluded)",
            DateParam::shown(query.date_from, "the start"),
            DateParam::shown(query.date_to, "now")
        )
    }

    #[must_use]
    pub fn contains(&self, path: &str) -> bool {
        self.list.iter().any(|m| m.path == path)
    }

    #[must_use]
    pub fn len(&self) -> usize {
        self.list.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    #[must_use]
    pub fn list(&self) -> &[PathVisitors] {
        &self.list
    }

    pub fn clear(&mut self) {
        self.list.clear();
        self.ranges.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(path: &str) -> PathVisitors {
        PathVisitors {
            path: path.into(),
            human: 3,
            ai: 2,
            total: 4,
        }
    }

    #[test]
    fn marking_twice_unmarks_and_the_order_of_marking_is_kept() {
        let mut marks = Marks::default();
        assert!(marks.toggle(&row("/b"), "from a to b"));
        assert!(marks.toggle(&row("/a"), "from a to b"));
        assert_eq!(marks.len(), 2);
        assert_eq!(marks.list()[0].path, "/b");
        assert!(!marks.toggle(&row("/b"), "from a to b"));
        assert!(!marks.contains("/b") && marks.contains("/a"));
    }
}
