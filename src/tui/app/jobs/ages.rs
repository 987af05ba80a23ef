//! When the first age in the jobs list next reads differently, kept current as rows
//! come and change, so the loop wakes for an AGE (or CHANGED) cell only then.

use chrono::{DateTime, Utc};

use super::list::{JobList, JobRow};
use crate::tui::app::wake::RowsChange;

impl JobList {
    /// Keeps `ages_due`, the first time an AGE cell changes, current after `change`
    /// (`changed`: the CHANGED column's ages move too, as it is shown). A
    /// walk over every row (10,000 are fine, but not on every key) happens only when rows
    /// came or went in bulk or the last change time has passed; one read updates it with
    /// its own row.
    pub(in crate::tui::app) fn note_rows(
        &mut self,
        change: RowsChange,
        wall: DateTime<Utc>,
        changed: bool,
    ) {
        let next = |row: &JobRow| {
            let since = |at: DateTime<Utc>| at + crate::text::age_next_change(wall - at);
            let created = row.created_at().map(since);
            let change = row.changed_at.filter(|_| changed).map(since);
            created.into_iter().chain(change).min()
        };
        let passed = self.ages_due.is_some_and(|due| due <= wall);
        self.ages_due = match change {
            RowsChange::All => self.rows.iter().filter_map(next).min(),
            _ if passed => self.rows.iter().filter_map(next).min(),
            RowsChange::One(id) => {
                let row = self.get(&id).and_then(next);
                self.ages_due.into_iter().chain(row).min()
            }
            RowsChange::None => self.ages_due,
        };
    }
}
