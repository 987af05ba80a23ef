//! New-job prompts whose send may have reached the service with no answer back: the
//! console lists them until the user dismisses them or tracks the job they made.

use chrono::{DateTime, Utc};
use rusqlite::params;

use super::{Journal, JournalError, Scope};

/// A new-job prompt of unknown outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnsureSend {
    /// The submission's row, to dismiss it or to attach it to the job it made.
    pub submission: i64,
    pub prompt: String,
    pub sent_at: DateTime<Utc>,
}

impl Journal {
    /// New-job prompts of unknown outcome not dismissed, newest first.
    pub fn unsure_creates(&self, scope: &Scope) -> Result<Vec<UnsureSend>, JournalError> {
        let mut statement = self.conn.prepare_cached(
            "SELECT id, prompt, sent_ms FROM submissions
             WHERE service = ?1 AND project = ?2 AND kind = 'create'
               AND outcome = 'unknown' AND dismissed = 0
             ORDER BY sent_ms DESC, id DESC LIMIT 100",
        )?;
        let rows = statement.query_map(params![scope.service, scope.project], |row| {
            Ok(UnsureSend {
                submission: row.get(0)?,
                prompt: row.get(1)?,
                sent_at: DateTime::from_timestamp_millis(row.get(2)?).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The user has seen a prompt of unknown outcome and wants it off the list. It still
    /// counts against the hourly budget, as the service may have counted it.
    pub fn dismiss_unsure(&mut self, scope: &Scope, submission: i64) -> Result<(), JournalError> {
        self.conn.execute(
            "UPDATE submissions SET dismissed = 1
             WHERE id = ?1 AND service = ?2 AND project = ?3",
            params![submission, scope.service, scope.project],
        )?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_creates_are_listed_until_dismissed_or_accepted() {
        let mut journal = Journal::open_in_memory().unwrap_or_else(|e| panic!("{e}"));
        let scope = Scope {
            service: "s".into(),
            project: "p".into(),
        };
        let now = Utc::now();
        let kind = super::super::SubmissionKind::Create;
        let mut ids = Vec::new();
        for prompt in ["first", "second", "refused"] {
            let id = journal
                .begin_submission(&scope, kind, None, prompt, now)
                .unwrap_or_else(|e| panic!("{e}"));
            let maybe = prompt != "refused";
            journal
                .submission_failed(id, "timed out", maybe)
                .unwrap_or_else(|e| panic!("{e}"));
            ids.push(id);
        }
        let listed = |j: &Journal| -> Vec<String> {
            j.unsure_creates(&scope)
                .unwrap_or_else(|e| panic!("{e}"))
                .into_iter()
                .map(|u| u.prompt)
                .collect()
        };
        assert_eq!(listed(&journal), ["second", "first"]);
        journal
            .dismiss_unsure(&scope, ids[1])
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(listed(&journal), ["first"]);
        let job = crate::api::Job {
            id: Some("job_x".into()),
            status: Some(crate::api::JobStatus::Active),
            ..crate::api::Job::default()
        };
        journal
            .submission_accepted(&scope, ids[0], &job, now)
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(listed(&journal).is_empty());
        let tracked = journal.tracked(&scope).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(tracked[0].first_prompt.as_deref(), Some("first"));
    }
}
