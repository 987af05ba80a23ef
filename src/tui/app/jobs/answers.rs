//! What the service's answers mean for the jobs list: a job the composer made or followed
//! up, one that may be active again, and the one rule every answer goes through: an
//! answer without a status is no news.

use std::time::Instant;

use super::list::{JobList, JobRow};
use super::poll::FirstRead;
use super::short_id;
use crate::api::{ApiError, Job, JobStatus};
use crate::tui::app::composer::Accepted;
use crate::tui::message::{Clock, DraftKey};

/// An answer without a status tells nothing about the job (a broken body can read as an
/// empty job): the last known state stays, and the job is read again rather than guessed.
pub(crate) fn is_news(job: &Job) -> bool {
    job.status.is_some()
}

/// A read of a job: an answer that is no news (see [`is_news`]) counts as a failed read.
pub(crate) fn read(result: Result<Job, ApiError>) -> Result<Job, ApiError> {
    result.and_then(|job| {
        if is_news(&job) {
            Ok(job)
        } else {
            Err(ApiError::Decode {
                status: 200,
                reason: "the answer has no status".to_owned(),
                excerpt: String::new(),
            })
        }
    })
}

impl JobList {
    /// A job the composer made or followed up is followed here: its row shows it, the
    /// cursor is on it. `Ok`: what to say; `Err`: why it cannot be followed.
    pub(in crate::tui::app) fn accepted(
        &mut self,
        accepted: Accepted,
        now: Clock,
    ) -> Result<String, &'static str> {
        let Accepted {
            draft,
            job,
            first_prompt,
            ..
        } = accepted;
        // A follow-up's job is known even when the answer does not name it.
        let id = job.id.clone().or_else(|| match &draft {
            DraftKey::FollowUp(id) => Some(id.clone()),
            DraftKey::NewJob => None,
        });
        let Some(id) = id else {
            return Err(
                "the service accepted the prompt but sent no job id, so the job cannot be \
                 followed here: look for it in the dashboard",
            );
        };
        // Where the local service says the turn is, as the row will say it.
        let state = match (job.run_state.as_deref(), job.queue_position) {
            (Some("queued"), Some(place)) => format!("it waits for an agent (#{place})"),
            (Some("starting"), _) => "an agent is starting on it".to_owned(),
            (Some("running"), _) => "it is running".to_owned(),
            _ => format!("it is {}", JobStatus::Active),
        };
        let job = if is_news(&job) {
            let status = job.status.as_ref();
            self.poll
                .schedule(&id, status, now.mono, FirstRead::AfterCadence);
            job
        } else {
            // Read the job now, and keep what was known of it meanwhile.
            self.may_be_active(&id, now.mono);
            self.get(&id)
                .and_then(|row| row.job.clone())
                .unwrap_or(Job {
                    id: Some(id.clone()),
                    ..job
                })
        };
        self.upsert(JobRow {
            id: id.clone(),
            job: Some(job),
            first_prompt,
            seen_at: Some(now.wall),
            problem: None,
            changed_at: None,
        });
        self.reveal(&id);
        Ok(match draft {
            DraftKey::NewJob => format!(
                "job {} created; it is followed here until it ends",
                short_id(&id)
            ),
            DraftKey::FollowUp(_) => format!("follow-up sent to {}; {state}", short_id(&id)),
        })
    }

    /// The job may be active again (a follow-up may have arrived): read it now, and at
    /// the active cadence until a read says otherwise.
    pub(in crate::tui::app) fn may_be_active(&mut self, id: &str, now: Instant) {
        self.poll
            .schedule(id, Some(&JobStatus::Active), now, FirstRead::Now);
    }
}
