//! The jobs pane's keys and replies: reads coming back from the poll schedule, the
//! list's sort and filter keys, and the detail overlay (the rows are `job_list.rs`).

pub(crate) mod poll;

mod announce;
mod answers;
mod detail;
mod fetched;
mod keys;
mod list;
mod track;

pub use detail::{DetailSearch, JobDetail};
pub use list::{JobList, JobRow, JobSort};
pub use track::unsure_submission;

use super::{App, Overlay};
use crate::text::sanitize;
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};

impl App {
    /// Routes a key of the jobs pane: the list changes itself, the app does what is
    /// shared.
    pub(super) fn on_jobs_action(&mut self, action: Action, now: Clock, effects: &mut Vec<Effect>) {
        let page = self.viewport.jobs_rows;
        let outcome = self.jobs.on_action(action, page, &self.config, effects);
        self.route(outcome, now, effects);
    }

    /// A key of the opened job's detail.
    pub(super) fn on_detail_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let Some(Overlay::Detail(detail)) = &mut self.overlay else {
            return;
        };
        let matches = self.viewport.found.map_or(0, |f| f.matches);
        let outcome = detail.on_action(action, self.viewport.detail, matches);
        self.route(outcome, now, effects);
    }
}

/// The first 12 characters of an id: enough to tell jobs apart on screen.
#[must_use]
pub fn short_id(id: &str) -> String {
    let clean = sanitize(id);
    clean.chars().take(12).collect()
}
