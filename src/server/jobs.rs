//! Agent jobs as the local service stores them: creation, follow-up turns, the lifecycle
//! of DESIGN (follow-ups re-activate, idle jobs archive), and the view sent on the wire.

use chrono::{DateTime, Utc};
use rand::Rng;
use rand::distr::Alphanumeric;
use rusqlite::Connection;

use super::db::StoreError;
use super::store::{Lite, Sql};
use crate::api::{Job, JobStatus, Source};

/// What a finished agent turn produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnOutcome {
    /// Files changed: a pull request is opened (or a new one replaces the old link).
    PullRequest,
    /// Nothing to change: the job completes and keeps whatever link it had.
    NoChange,
    /// An unrecoverable error: the job fails.
    Failed,
}

impl TurnOutcome {
    pub(crate) fn as_db(self) -> &'static str {
        match self {
            Self::PullRequest => "pr",
            Self::NoChange => "nochange",
            Self::Failed => "fail",
        }
    }
}

/// What a turn produced, with what the real agent knows beyond the outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnResult {
    pub outcome: TurnOutcome,
    /// The pull request (or change) link; `None` with [`TurnOutcome::PullRequest`] makes
    /// up a numbered link from the repository, as the simulated agent does.
    pub pr_link: Option<String>,
    /// Why a turn failed, kept with the turn.
    pub reason: Option<String>,
    /// Where the agent's output of this turn is kept.
    pub output: Option<String>,
}

impl TurnResult {
    /// An outcome and nothing else.
    #[must_use]
    pub fn of(outcome: TurnOutcome) -> Self {
        Self {
            outcome,
            pr_link: None,
            reason: None,
            output: None,
        }
    }

    /// A failed turn, for `reason`.
    #[must_use]
    pub fn failed(reason: impl Into<String>) -> Self {
        Self {
            reason: Some(reason.into()),
            ..Self::of(TurnOutcome::Failed)
        }
    }
}

/// Where new jobs say they work, and with which model.
#[derive(Debug, Clone)]
pub struct JobDefaults {
    pub repository: String,
    pub git_ref: Option<String>,
    pub model: String,
}

/// A stored job.
#[derive(Debug, Clone, PartialEq)]
pub struct JobRecord {
    pub seq: i64,
    pub id: String,
    pub project: String,
    pub status: JobStatus,
    pub repository: String,
    pub git_ref: Option<String>,
    pub model: String,
    pub pr_link: Option<String>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub archived_ms: Option<i64>,
    /// Beyond the hosted contract: runs or waits, why it failed, its output.
    pub progress: Progress,
}

impl JobRecord {
    /// The job as the interface returns it. The interface says `prLink` is null while a
    /// job is active, so a link kept from an earlier turn is only shown once it ends.
    #[must_use]
    pub fn to_wire(&self) -> Job {
        Job {
            id: Some(self.id.clone()),
            status: Some(self.status.clone()),
            source: Some(Source {
                repository: Some(self.repository.clone()),
                git_ref: self.git_ref.clone(),
            }),
            model: Some(self.model.clone()),
            pr_link: match self.status {
                JobStatus::Active => None,
                _ => self.pr_link.clone(),
            },
            created_at: to_time(self.created_ms),
            archived_at: self.archived_ms.and_then(to_time),
            failure_reason: match self.status {
                JobStatus::Failed => self.progress.last_failure.clone(),
                _ => None,
            },
            output_link: None,
            run_state: (self.status == JobStatus::Active).then(|| {
                if self.progress.running {
                    "running".to_owned()
                } else {
                    "queued".to_owned()
                }
            }),
            queue_position: match self.status {
                JobStatus::Active => self.progress.queue_position,
                _ => None,
            },
            change: None,
            node: self.progress.node.as_deref().map(Box::from),
        }
    }

    /// The job as the local service sends it, with the link to its last turn's output
    /// (kept by the real agent) on the service at `service_url`.
    #[must_use]
    pub fn to_wire_at(&self, service_url: &str) -> Job {
        let mut job = self.to_wire();
        // A link kept as a path is a page of this service (a change the real agent made
        // where no forge shows it, the demo's merged job).
        if let Some(path) = job.pr_link.as_deref().filter(|link| link.starts_with('/')) {
            job.pr_link = Some(format!("{}{path}", service_url.trim_end_matches('/')));
        }
        job.output_link = self.progress.output_turn.map(|turn| {
            format!(
                "{}/output/{}/{}/{turn}",
                service_url.trim_end_matches('/'),
                self.project,
                self.id
            )
        });
        job
    }
}

fn to_time(ms: i64) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp_millis(ms)
}

/// Why a follow-up was refused.
#[derive(Debug, PartialEq, Eq)]
pub enum MessageRefusal {
    NotFound,
    Archived,
}

/// A turn waiting for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingTurn {
    pub job_seq: i64,
    pub job_id: String,
    pub project: String,
    pub turn: i64,
    pub prompt: String,
    pub repository: String,
    /// The job's prompts up to and including this turn's, oldest first (for a pull
    /// request's description).
    pub prompts: Vec<String>,
}

/// A fresh, unguessable job id.
#[must_use]
pub fn new_job_id() -> String {
    let suffix: String = rand::rng()
        .sample_iter(Alphanumeric)
        .take(20)
        .map(|c| char::from(c).to_ascii_lowercase())
        .collect();
    format!("job_{suffix}")
}

/// Creates an active job whose first turn is `prompt`.
pub fn create(
    conn: &mut Connection,
    project: &str,
    prompt: &str,
    defaults: &JobDefaults,
    now_ms: i64,
) -> Result<JobRecord, StoreError> {
    in_write(conn, |sql| {
        record::create(sql, project, prompt, defaults, now_ms)
    })
}

/// Reads a job of `project`, archiving it first if it has been idle for `archive_after_ms`.
pub fn get(
    conn: &mut Connection,
    project: &str,
    id: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Option<JobRecord>, StoreError> {
    in_write(conn, |sql| {
        record::get(sql, project, id, now_ms, archive_after_ms)
    })
}

/// What a read-only look at a job found.
pub enum Peek {
    Missing,
    Current(Box<JobRecord>),
    /// The job must be archived first, which takes the writer: use [`get`].
    DueForArchive,
}

/// Reads a job without writing, for the read connections. A job that has just become due
/// for archiving is left to [`get`].
pub fn peek(
    conn: &Connection,
    project: &str,
    id: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Peek, StoreError> {
    record::peek(&mut Lite(conn), project, id, now_ms, archive_after_ms)
}

/// Queues a follow-up turn on SQLite, as [`record::add_message`] says.
pub fn add_message(
    conn: &mut Connection,
    project: &str,
    id: &str,
    prompt: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Result<JobRecord, MessageRefusal>, StoreError> {
    in_write(conn, |sql| {
        record::add_message(sql, project, id, prompt, now_ms, archive_after_ms)
    })
}

/// Runs `work` in one SQLite write transaction.
fn in_write<T>(
    conn: &mut Connection,
    work: impl FnOnce(&mut dyn Sql) -> Result<T, StoreError>,
) -> Result<T, StoreError> {
    let tx = crate::sqlite::write_transaction(conn)?;
    let result = work(&mut Lite(&tx))?;
    tx.commit()?;
    Ok(result)
}

/// The oldest unfinished turn of a job, if any.
pub fn next_turn(conn: &mut Connection, job_id: &str) -> Result<Option<PendingTurn>, StoreError> {
    turns::next(&mut Lite(conn), job_id)
}

/// Records a finished turn. When no other turn waits, the job ends with the turn's outcome.
pub fn finish_turn(
    conn: &mut Connection,
    turn: &PendingTurn,
    result: &TurnResult,
    now_ms: i64,
) -> Result<(), StoreError> {
    in_write(conn, |sql| turns::finish(sql, turn, result, now_ms))
}

/// Ids of jobs with turns still to run: the work to resume after a restart.
pub fn active_ids(conn: &mut Connection) -> Result<Vec<String>, StoreError> {
    let mut statement = conn.prepare("SELECT id FROM jobs WHERE status = 'active' ORDER BY seq")?;
    let ids = statement
        .query_map([], |row| row.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

mod lifecycle;
mod progress;
pub mod record;
#[cfg(test)]
mod tests;
pub mod turns;

pub use progress::{Progress, output_path};

pub use lifecycle::{ended_between, fail_interrupted, mark_started, under_way};
