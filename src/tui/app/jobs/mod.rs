//! The jobs pane's keys and replies: reads coming back from the poll schedule, the
//! list's sort and filter keys, and the detail overlay (the rows are `job_list.rs`).

pub(crate) mod poll;

mod ages;
mod announce;
mod answers;
mod detail;
mod fetched;
mod impact;
mod keys;
mod list;
mod track;

pub use detail::{DetailSearch, JobDetail};
pub use fetched::SLOW_ANSWER;
pub use impact::{IMPACT_WINDOW_DAYS, IMPACT_WINDOWS, ImpactLoad, Impacts, humans_change};
pub use list::{JobList, JobRow, JobSort};
pub use track::unsure_submission;

use crate::text::sanitize;

/// The first 12 characters of an id: enough to tell jobs apart on screen.
#[must_use]
pub fn short_id(id: &str) -> String {
    let clean = sanitize(id);
    clean.chars().take(12).collect()
}
