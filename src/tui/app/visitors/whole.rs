//! The whole range in the console: every row held (when the range has at most the
//! threshold of rows, 5,000 by default), so the table sorts by any column and filters
//! by path as you type, through the shared table helper. Above the threshold the pane
//! stays with the service's pages and says why. The page on screen stays usable while
//! the rows come.

use crate::tui::message::Generation;
use std::cmp::Ordering;

use crate::api::{VisitorTotals, VisitorsQuery};
use crate::insight::order::compare_key;
use crate::insight::{ComparedRow, SortKey};
use crate::listing::{Direction, Pattern};
use crate::tui::app::table::{self, Arrangeable, Arrangement};

/// The rows of a range, as held: sorted and filtered by the user's choice.
#[derive(Debug, Clone)]
pub struct Held {
    /// The range held (its limit and offset do not matter).
    pub query: VisitorsQuery,
    pub totals: VisitorTotals,
    /// Every row, in path order (so ties of any sort stay by path ascending).
    pub rows: Vec<ComparedRow>,
    /// Whether `rows` carry the period before (each row's change, "new").
    pub compared: bool,
    pub arrangement: Arrangement<SortKey, String>,
}

/// The whole range, from `w` on.
#[derive(Debug, Clone, Default)]
pub enum WholeLoad {
    /// The service's pages (the default).
    #[default]
    Off,
    /// `requests` at most are asked about: the question is on screen.
    Asking {
        generation: Generation,
        requests: u32,
    },
    /// The rows are coming: `requests` sent of `most` at most, `rows` held so far.
    Fetching {
        generation: Generation,
        requests: u32,
        rows: usize,
        most: u32,
    },
    Held(Box<Held>),
    /// The range has more rows than the threshold: the pane stays with pages.
    TooMany {
        max_rows: usize,
    },
    /// The fetch failed, was refused or was stopped: the pages stay, with the reason.
    Stopped(String),
}

impl WholeLoad {
    /// The number of the fetch out (or asked about).
    #[must_use]
    pub fn generation(&self) -> Option<Generation> {
        match self {
            Self::Asking { generation, .. } | Self::Fetching { generation, .. } => {
                Some(*generation)
            }
            _ => None,
        }
    }

    #[must_use]
    pub fn held(&self) -> Option<&Held> {
        match self {
            Self::Held(held) => Some(held),
            _ => None,
        }
    }

    pub fn held_mut(&mut self) -> Option<&mut Held> {
        match self {
            Self::Held(held) => Some(held),
            _ => None,
        }
    }
}

impl Held {
    /// Rows of a whole range, held in path order and arranged as the user last chose
    /// (total, largest first, to begin with: the service's own order).
    #[must_use]
    pub fn new(
        query: VisitorsQuery,
        totals: VisitorTotals,
        mut rows: Vec<ComparedRow>,
        compared: bool,
        choice: Option<(SortKey, Direction)>,
    ) -> Self {
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        let mut arrangement = Arrangement::default();
        let sort = choice
            .filter(|(key, _)| compared || *key != SortKey::Change)
            .unwrap_or((SortKey::Total, Direction::Descending));
        arrangement.sort_by(Some(sort));
        arrangement.arrange(&rows);
        arrangement.place_cursor(&rows, 0);
        Self {
            query,
            totals,
            rows,
            compared,
            arrangement,
        }
    }

    /// The row under the cursor.
    #[must_use]
    pub fn cursor_row(&self) -> Option<&ComparedRow> {
        self.arrangement.cursor_row().and_then(|i| self.rows.get(i))
    }

    /// `s`: the next column (the change only when compared), from its top.
    pub fn cycle_sort(&mut self) {
        self.arrangement.cycle_sort();
        if !self.compared
            && self
                .arrangement
                .sort()
                .is_some_and(|(key, _)| key == SortKey::Change)
        {
            self.arrangement.cycle_sort();
        }
        self.arrangement.arrange(&self.rows);
        // A new order is read from its top: the first rows are what it was asked for.
        self.arrangement.place_cursor(&self.rows, 0);
    }

    /// `S`: the same column the other way, from its top.
    pub fn reverse(&mut self) {
        self.arrangement.reverse();
        self.arrangement.arrange(&self.rows);
        self.arrangement.place_cursor(&self.rows, 0);
    }

    /// The filter as applied.
    #[must_use]
    pub fn filter(&self) -> &Pattern {
        self.arrangement.filter()
    }
}

impl table::SortKey for SortKey {
    const CYCLE: &'static [Self] = &SortKey::ALL;

    fn first_direction(self) -> Direction {
        self.default_direction()
    }
}

impl Arrangeable<SortKey> for ComparedRow {
    type Id = String;

    fn id(&self) -> String {
        self.path.clone()
    }

    fn matches(&self, pattern: &Pattern) -> bool {
        pattern.matches(&self.path)
    }

    fn compare(&self, other: &Self, column: SortKey) -> Ordering {
        compare_key(self, other, column)
    }
}
