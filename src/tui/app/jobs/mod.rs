//! The jobs pane's keys and replies: reads coming back from the poll schedule, the
//! list's sort and filter keys, and the detail overlay (the rows are `job_list.rs`).

pub(crate) mod poll;

mod announce;
mod answers;
mod detail;
mod keys;
mod list;
mod track;

pub use detail::{DetailSearch, Found, JobDetail};
pub use list::{JobList, JobRow, JobSort};
pub use track::unsure_submission;

use super::{App, CallClass, Overlay};
use crate::api::{ApiError, Job};
use crate::text::sanitize;
use crate::tui::keymap::{Action, KeyContext};
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

    pub(super) fn on_job_fetched(
        &mut self,
        id: &str,
        result: Result<Job, ApiError>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let link_before = self.link.connection;
        self.record_call(result.as_ref().map(|_| ()), CallClass::Read, Some(id), now);
        let Some(row) = self.jobs.get(id).cloned() else {
            // Untracked while the read was in flight: drop the answer.
            self.jobs.poll.remove(id);
            return;
        };
        if self.jobs.poll.answered_stale(id, now.mono) {
            // Sent before a follow-up that may have changed the job: read it again.
            return;
        }
        // A read that changes nothing on screen draws nothing: with 100 active jobs that is
        // most reads. The status line's "updated" follows with the 1 Hz tick, which runs
        // whenever a read is due within a minute; otherwise it shows a clock time, which
        // this read does change.
        let unchanged =
            matches!(&result, Ok(job) if row.job.as_ref() == Some(job)) && row.problem.is_none();
        self.dirty |=
            !unchanged || self.link.connection != link_before || !self.clock_ticking(now.mono);
        // An answer without a status is no news: the read counts as failed.
        let result = answers::read(result);
        match result {
            Ok(job) => {
                let before = row.status().cloned();
                self.jobs.poll.succeeded(id, job.status.as_ref(), now.mono);
                let detail_open = matches!(&self.overlay, Some(Overlay::Detail(d)) if d.id == id);
                let news = self.jobs.announce(
                    id,
                    before.as_ref(),
                    &job,
                    detail_open,
                    &self.config,
                    effects,
                );
                if let Some((kind, text)) = news {
                    self.notify(kind, text);
                }
                self.jobs.upsert(JobRow {
                    job: Some(job),
                    seen_at: Some(now.wall),
                    problem: None,
                    ..row
                });
            }
            Err(ApiError::RateLimited { .. }) => {}
            Err(
                err @ (ApiError::NotFound { .. }
                | ApiError::Forbidden { .. }
                | ApiError::Unauthorized { .. }),
            ) => {
                // Reading again will not help until something changes: stop until `r`.
                self.jobs.poll.stop(id);
                self.jobs.upsert(JobRow {
                    problem: Some(format!(
                        "{err} (polling stopped; {} retries)",
                        self.keymap().key_or_name(KeyContext::Jobs, Action::Refresh)
                    )),
                    ..row
                });
            }
            Err(err) => {
                if let Some(wait) = self.jobs.poll.failed(id, now.mono) {
                    self.jobs.upsert(JobRow {
                        problem: Some(format!("{err} (next try in {}s)", wait.as_secs().max(1))),
                        ..row
                    });
                }
            }
        }
    }
}

/// The first 12 characters of an id: enough to tell jobs apart on screen.
#[must_use]
pub fn short_id(id: &str) -> String {
    let clean = sanitize(id);
    clean.chars().take(12).collect()
}
