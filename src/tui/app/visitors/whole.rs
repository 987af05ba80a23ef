//! The whole range in the console: every row read (when the range has at most the
//! threshold of rows, 5,000 by default), so the table sorts by any column and filters
//! by path as you type, through the shared table helper (by the feedback's 👍, 👎 and 👎
//! per 1,000 human visitors too, once the range's feedback is known). Above the threshold
//! the pane stays with the service's pages and says why. The page on screen stays usable
//! while the rows come.

use crate::tui::message::{Awaits, Generation};
use std::cmp::Ordering;

use super::feedback::{Thumbs, compare_rates};
use crate::api::{VisitorTotals, VisitorsQuery};
use crate::insight::order::compare_key;
use crate::insight::{ComparedRow, SortKey};
use crate::listing::{Direction, Pattern};
use crate::tui::app::table::{self, Arrangeable, Arrangement};

/// A row read: the page's visitors (and change) and its feedback over the range.
#[derive(Debug, Clone, PartialEq)]
pub struct WholeRow {
    pub visitors: ComparedRow,
    /// `None` while the range's feedback is not known (or the page is not among the
    /// pages a partial list named).
    pub thumbs: Option<Thumbs>,
}

impl WholeRow {
    /// 👎 per 1,000 human visitors of the page; `None` without thumbs or human visitors.
    #[must_use]
    pub fn down_per_thousand(&self) -> Option<f64> {
        self.thumbs?.down_per_thousand(self.visitors.now.human)
    }
}

/// What the read table sorts by: the visitors' columns, and the feedback's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum VisitorsColumn {
    Visitors(SortKey),
    ThumbsUp,
    ThumbsDown,
    /// 👎 per 1,000 human visitors.
    DownPerThousand,
}

impl VisitorsColumn {
    /// Every column, in the table's order.
    pub const ALL: [Self; 9] = [
        Self::Visitors(SortKey::Path),
        Self::Visitors(SortKey::Human),
        Self::Visitors(SortKey::Ai),
        Self::Visitors(SortKey::Total),
        Self::Visitors(SortKey::AiShare),
        Self::Visitors(SortKey::Change),
        Self::ThumbsUp,
        Self::ThumbsDown,
        Self::DownPerThousand,
    ];

    fn is_feedback(self) -> bool {
        !matches!(self, Self::Visitors(_))
    }
}

/// The rows of a range, as read: sorted and filtered by the user's choice.
#[derive(Debug, Clone)]
pub struct WholeTable {
    /// The range read (its limit and offset do not matter).
    pub query: VisitorsQuery,
    pub totals: VisitorTotals,
    /// Every row, in path order (so ties of any sort stay by path ascending).
    pub rows: Vec<WholeRow>,
    /// Whether `rows` carry the period before (each row's change, "new").
    pub compared: bool,
    /// Whether `rows` carry the range's feedback (the 👍 and 👎 columns).
    pub feedback: bool,
    pub arrangement: Arrangement<VisitorsColumn, String>,
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
    /// The rows are coming: `requests` sent of `most` at most, `rows` read so far.
    Fetching {
        generation: Generation,
        requests: u32,
        rows: usize,
        most: u32,
    },
    Table(Box<WholeTable>),
    /// The range has more rows than the threshold: the pane stays with pages.
    TooMany {
        max_rows: usize,
    },
    /// The fetch failed, was refused or was stopped: the pages stay, with the reason.
    Stopped(String),
}

impl Awaits for WholeLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Asking { generation, .. } | Self::Fetching { generation, .. } => {
                Some(*generation)
            }
            _ => None,
        }
    }
}

impl WholeLoad {
    #[must_use]
    pub fn table(&self) -> Option<&WholeTable> {
        match self {
            Self::Table(whole) => Some(whole),
            _ => None,
        }
    }

    pub fn table_mut(&mut self) -> Option<&mut WholeTable> {
        match self {
            Self::Table(whole) => Some(whole),
            _ => None,
        }
    }
}

impl WholeTable {
    /// Rows of a whole range, read in path order and arranged as the user last chose
    /// (total, largest first, to begin with: the service's own order).
    #[must_use]
    pub fn new(
        query: VisitorsQuery,
        totals: VisitorTotals,
        mut rows: Vec<ComparedRow>,
        compared: bool,
        choice: Option<(VisitorsColumn, Direction)>,
    ) -> Self {
        rows.sort_by(|a, b| a.path.cmp(&b.path));
        let rows = rows
            .into_iter()
            .map(|visitors| WholeRow {
                visitors,
                thumbs: None,
            })
            .collect();
        let mut whole = Self {
            query,
            totals,
            rows,
            compared,
            feedback: false,
            arrangement: Arrangement::default(),
        };
        let sort = choice
            .filter(|(column, _)| whole.sorts_by(*column))
            .unwrap_or((
                VisitorsColumn::Visitors(SortKey::Total),
                Direction::Descending,
            ));
        whole.arrangement.sort_by(Some(sort));
        whole.arrangement.arrange(&whole.rows);
        whole.arrangement.place_cursor(&whole.rows, 0);
        whole
    }

    /// Whether `s` offers `column`: the change only when compared, the feedback only
    /// when it is known.
    fn sorts_by(&self, column: VisitorsColumn) -> bool {
        match column {
            VisitorsColumn::Visitors(SortKey::Change) => self.compared,
            column if column.is_feedback() => self.feedback,
            _ => true,
        }
    }

    /// Gives every row its thumbs of `thumbs` (`None`: the feedback is not known), and
    /// arranges again; the cursor stays on its row.
    pub fn set_feedback(&mut self, thumbs: Option<&super::PageThumbs>) {
        for row in &mut self.rows {
            row.thumbs = thumbs.and_then(|t| t.of(&row.visitors.path));
        }
        self.feedback = thumbs.is_some();
        self.arrangement.arrange(&self.rows);
    }

    /// The row under the cursor.
    #[must_use]
    pub fn cursor_row(&self) -> Option<&ComparedRow> {
        self.arrangement
            .cursor_row()
            .and_then(|i| self.rows.get(i))
            .map(|row| &row.visitors)
    }

    /// `s`: the next column it offers (see `sorts_by`), from its top.
    pub fn cycle_sort(&mut self) {
        for _ in 0..VisitorsColumn::ALL.len() {
            self.arrangement.cycle_sort();
            if self
                .arrangement
                .sort()
                .is_none_or(|(column, _)| self.sorts_by(column))
            {
                break;
            }
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

impl table::SortKey for VisitorsColumn {
    const CYCLE: &'static [Self] = &Self::ALL;

    fn first_direction(self) -> Direction {
        match self {
            Self::Visitors(key) => key.default_direction(),
            _ => Direction::Descending,
        }
    }
}

impl Arrangeable<VisitorsColumn> for WholeRow {
    type Id = String;

    fn id(&self) -> String {
        self.visitors.path.clone()
    }

    fn matches(&self, pattern: &Pattern) -> bool {
        pattern.matches(&self.visitors.path)
    }

    /// Unknown thumbs sort below any count, as a page without human visitors sorts below
    /// any rate.
    fn compare(&self, other: &Self, column: VisitorsColumn) -> Ordering {
        let thumbs = |row: &Self, get: fn(Thumbs) -> u64| row.thumbs.map(get);
        match column {
            VisitorsColumn::Visitors(key) => compare_key(&self.visitors, &other.visitors, key),
            VisitorsColumn::ThumbsUp => thumbs(self, |t| t.up).cmp(&thumbs(other, |t| t.up)),
            VisitorsColumn::ThumbsDown => thumbs(self, |t| t.down).cmp(&thumbs(other, |t| t.down)),
            VisitorsColumn::DownPerThousand => {
                compare_rates(self.down_per_thousand(), other.down_per_thousand())
            }
        }
    }
}
