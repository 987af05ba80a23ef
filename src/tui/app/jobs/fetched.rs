//! A read of a job came back: the list and the poll schedule take it, and what changed
//! is said (a job that ended, one that failed, one that cannot be read any more).

use std::time::{Duration, Instant};

use super::answers;
use super::list::{JobList, JobRow};
use crate::api::{ApiError, Job};
use crate::tui::app::ConsoleOptions;
use crate::tui::app::outcome::Outcome;
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, Effect};

/// A read out longer than this is said on the status bar ("no answer for 7s"): the
/// service may hang, and the last answer's "online" would no longer be true.
pub const SLOW_ANSWER: Duration = Duration::from_secs(5);

impl JobList {
    /// How long the oldest read out has waited, once past [`SLOW_ANSWER`].
    #[must_use]
    pub fn unanswered_for(&self, now: Instant) -> Option<Duration> {
        let waited = now.saturating_duration_since(self.poll.oldest_out()?);
        (waited >= SLOW_ANSWER).then_some(waited)
    }

    /// Relative times ("updated 4s ago", "next poll 2s") are shown, and kept current once
    /// a second, only while a read is due within a minute. Otherwise the status bar shows
    /// clock times and the console sleeps.
    #[must_use]
    pub fn clock_ticking(&self, now: Instant) -> bool {
        self.poll
            .next_due()
            .is_some_and(|due| due.saturating_duration_since(now) < Duration::from_secs(60))
    }

    /// The read of job `id` came back (the app recorded the call); `detail_open` says
    /// whether the job's detail is on screen.
    pub(in crate::tui::app) fn on_fetched(
        &mut self,
        id: &str,
        result: Result<Job, ApiError>,
        detail_open: bool,
        config: &ConsoleOptions,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let Some(row) = self.get(id).cloned() else {
            // Untracked while the read was in flight: drop the answer.
            self.poll.remove(id);
            return Outcome::Done;
        };
        if self.poll.answered_stale(id, now.mono) {
            // Sent before a follow-up that may have changed the job: read it again.
            return Outcome::Done;
        }
        // A read that changes nothing on screen draws nothing: with 100 active jobs that is
        // most reads. The status line's "updated" follows with the 1 Hz tick, which runs
        // whenever a read is due within a minute; otherwise it shows a clock time, which
        // this read does change.
        let unchanged =
            matches!(&result, Ok(job) if row.job.as_ref() == Some(job)) && row.problem.is_none();
        let mut outcome = if !unchanged || !self.clock_ticking(now.mono) {
            Outcome::Changed
        } else {
            Outcome::Done
        };
        // An answer without a status is no news: the read counts as failed.
        match answers::read(result) {
            Ok(job) => {
                let before = row.status().cloned();
                self.poll.succeeded(id, job.status.as_ref(), now.mono);
                let news = self.announce(id, before.as_ref(), &job, detail_open, config, effects);
                if let Some((kind, text)) = news {
                    outcome = Outcome::News(kind, text.into());
                }
                self.upsert(JobRow {
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
                self.poll.stop(id);
                let key = config
                    .prefs
                    .keymap
                    .key_or_name(KeyContext::Jobs, Action::Refresh);
                self.upsert(JobRow {
                    problem: Some(format!("{err} (polling stopped; {key} retries)")),
                    ..row
                });
            }
            Err(err) => {
                if let Some(wait) = self.poll.failed(id, now.mono) {
                    self.upsert(JobRow {
                        problem: Some(format!("{err} (next try in {}s)", wait.as_secs().max(1))),
                        ..row
                    });
                }
            }
        }
        outcome
    }
}
