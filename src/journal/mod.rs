//! The journal: docdeck's local memory on SQLite, shared by the CLI and the console. The
//! service has no list of jobs, so the journal is what remembers them: every job tracked,
//! every prompt sent (written before it is sent), every status change seen, and the uses
//! of the hourly budgets (create, message, and analytics: see `budget.rs`, with the
//! trend cache). It never holds the API key.

mod budget;
mod drafts;
mod ids;
mod store;
mod unsure;

use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use rusqlite::{Connection, params};
use thiserror::Error;

use crate::api::{Job, JobStatus};
use crate::sqlite::{self, SchemaError};

pub use budget::{
    ANALYTICS_HOURLY_LIMIT, ASK_ABOVE, AnalyticsBudget, Decision, LimitSource, TREND_SETTLING,
    settled,
};
pub use unsure::UnsureSend;

/// A failure of the journal.
#[derive(Debug, Error)]
pub enum JournalError {
    #[error("cannot open the journal {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error(
        "the journal {path} was written by a newer docdeck (schema {found}; this build knows up to {known}): use the newer docdeck"
    )]
    TooNew {
        path: PathBuf,
        found: i64,
        known: usize,
    },
    #[error(
        "the journal cannot grow: the disk is full. Free some space; what the journal already holds is intact, only this change was not saved"
    )]
    DiskFull,
    #[error(
        "the journal file is damaged ({0}): quit docdeck and rename docdeck.sqlite in the data folder; docdeck then starts a new journal and the old file stays for recovery"
    )]
    Damaged(String),
    #[error("journal error: {0}")]
    Sql(rusqlite::Error),
    #[error(transparent)]
    Config(#[from] crate::config::ConfigError),
}

impl From<rusqlite::Error> for JournalError {
    fn from(err: rusqlite::Error) -> Self {
        if err.sqlite_error_code() == Some(rusqlite::ErrorCode::DiskFull) {
            Self::DiskFull
        } else if sqlite::is_unusable(&err) {
            Self::Damaged(err.to_string())
        } else {
            Self::Sql(err)
        }
    }
}

/// A journal file that could not be used, renamed beside itself (never deleted) so that a
/// new journal could start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetAside {
    pub from: PathBuf,
    pub moved_to: PathBuf,
    pub reason: String,
}

impl std::fmt::Display for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the journal {} {}; it was moved to {} (nothing was deleted) and a new journal was started",
            self.from.display(),
            self.reason,
            self.moved_to.display()
        )
    }
}

/// Why opening a journal file failed.
enum Attempt {
    /// Only setting the file aside helps; `tag` names the copy.
    Unusable {
        tag: &'static str,
        reason: String,
    },
    Failed(JournalError),
}

/// One service and project: jobs of different ones never mix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub service: String,
    pub project: String,
}

/// Which budget a submission spends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubmissionKind {
    Create,
    Message,
}

impl SubmissionKind {
    fn as_db(self) -> &'static str {
        match self {
            Self::Create => "create",
            Self::Message => "message",
        }
    }
}

/// A job the user follows, with what was last seen of it.
#[derive(Debug, Clone, PartialEq)]
pub struct TrackedJob {
    pub id: String,
    pub snapshot: Option<Job>,
    pub seen_at: Option<DateTime<Utc>>,
    pub first_prompt: Option<String>,
    /// When a change of its status was last observed (what "age of last change" sorts).
    pub changed_at: Option<DateTime<Utc>>,
}

/// What [`Journal::resolve_id`] found for a typed id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdMatch {
    /// The journal knows this job (the typed text was its id or a unique prefix of it).
    Known(String),
    /// No job of the journal starts with the text: it may still be a job made elsewhere.
    Unknown(String),
    /// Several jobs start with the text (up to six of them, sorted).
    Ambiguous(Vec<String>),
}

/// What [`Journal::submission_accepted`] did with the service's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// The job is followed and the prompt is part of its history.
    Followed,
    /// The answer cannot belong to this submission: a create answered with the id of a job
    /// this journal already knows (the service reused an id, or a proxy mixed answers up),
    /// or a follow-up answered about another job. Nothing was attached to any job, so the
    /// known job's prompts, snapshot and timeline are unchanged; the submission is kept
    /// as of unknown outcome (it may have been carried out, and counts against the
    /// budget), with `reason` as its error.
    Refused { job_id: String, reason: String },
}

/// A prompt sent to a job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SentPrompt {
    pub prompt: String,
    pub sent_at: DateTime<Utc>,
    pub kind: SubmissionKind,
}

/// A status seen for the first time, and when.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatusChange {
    pub status: JobStatus,
    pub observed_at: DateTime<Utc>,
}

/// The open journal.
pub struct Journal {
    conn: Connection,
    set_aside: Option<SetAside>,
}

impl Journal {
    /// `docdeck.sqlite` in the platform's data folder.
    pub fn default_path() -> Result<PathBuf, JournalError> {
        Ok(crate::config::data_dir()?.join("docdeck.sqlite"))
    }

    /// Opens (creating if needed) the journal at `path`. A file that is not a usable
    /// journal (not a database, damaged, or written by a newer docdeck) is renamed beside
    /// itself with its WAL, never deleted, and a new journal is started:
    /// [`Journal::set_aside`] then says where the old file went.
    pub fn open(path: &Path) -> Result<Self, JournalError> {
        // It holds every prompt and draft; journals of older builds were 0644.
        sqlite::make_private(path);
        match Self::open_file(path) {
            Ok(journal) => Ok(journal),
            Err(Attempt::Failed(err)) => Err(err),
            Err(Attempt::Unusable { tag, reason }) => {
                let moved_to = move_aside(path, tag).map_err(|err| JournalError::Open {
                    path: path.to_path_buf(),
                    reason: format!("{reason}, and it could not be moved aside: {err}"),
                })?;
                // Said once, by the caller, through `set_aside`: not here as well.
                tracing::info!(from = %path.display(), to = %moved_to.display(), "journal set aside: {reason}");
                let mut journal = Self::open_file(path).map_err(|attempt| match attempt {
                    Attempt::Failed(err) => err,
                    Attempt::Unusable { reason, .. } => JournalError::Open {
                        path: path.to_path_buf(),
                        reason,
                    },
                })?;
                journal.set_aside = Some(SetAside {
                    from: path.to_path_buf(),
                    moved_to,
                    reason,
                });
                Ok(journal)
            }
        }
    }

    fn open_file(path: &Path) -> Result<Self, Attempt> {
        let conn = sqlite::open_shared(path).map_err(|failure| {
            if failure.unusable {
                Attempt::Unusable {
                    tag: "damaged",
                    reason: format!("could not be read ({})", failure.reason),
                }
            } else {
                Attempt::Failed(JournalError::Open {
                    path: path.to_path_buf(),
                    reason: failure.reason,
                })
            }
        })?;
        Self::with_connection(conn, path).map_err(|err| match err {
            JournalError::TooNew { found, known, .. } => Attempt::Unusable {
                tag: "newer",
                reason: format!(
                    "was written by a newer docdeck (schema {found}; this build knows up to {known}); move it back to use it with that docdeck"
                ),
            },
            JournalError::Damaged(reason) => Attempt::Unusable {
                tag: "damaged",
                reason: format!("could not be read ({reason})"),
            },
            other => Attempt::Failed(other),
        })
    }

    /// A journal that lives only as long as the value, for tests.
    pub fn open_in_memory() -> Result<Self, JournalError> {
        let conn = Connection::open_in_memory()?;
        sqlite::configure(&conn)?;
        Self::with_connection(conn, Path::new(":memory:"))
    }

    fn with_connection(conn: Connection, path: &Path) -> Result<Self, JournalError> {
        sqlite::migrate(&conn, store::MIGRATIONS).map_err(|err| match err {
            SchemaError::TooNew { found, known } => JournalError::TooNew {
                path: path.to_path_buf(),
                found,
                known,
            },
            SchemaError::Sql(err) => JournalError::from(err),
        })?;
        Ok(Self {
            conn,
            set_aside: None,
        })
    }

    /// The schema version of the open journal and the newest this build knows (equal
    /// once opened, as opening migrates), for `docdeck doctor`.
    pub fn schema_version(&self) -> Result<(i64, usize), JournalError> {
        let version = self
            .conn
            .pragma_query_value(None, "user_version", |row| row.get(0))?;
        Ok((version, store::MIGRATIONS.len()))
    }

    /// The unusable file this open moved aside, if it did: callers tell the user.
    #[must_use]
    pub fn set_aside(&self) -> Option<&SetAside> {
        self.set_aside.as_ref()
    }

    /// Records a prompt before it is sent, so that it survives a crash or a dropped
    /// connection mid-request. Returns the submission's id for the outcome.
    pub fn begin_submission(
        &mut self,
        scope: &Scope,
        kind: SubmissionKind,
        job_id: Option<&str>,
        prompt: &str,
        now: DateTime<Utc>,
    ) -> Result<i64, JournalError> {
        self.conn.execute(
            "INSERT INTO submissions (service, project, kind, job_id, prompt, sent_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                scope.service,
                scope.project,
                kind.as_db(),
                job_id,
                prompt,
                now.timestamp_millis()
            ],
        )?;
        Ok(self.conn.last_insert_rowid())
    }

    /// The service accepted the submission: the job is tracked and its snapshot stored,
    /// unless the answer cannot belong to it (see [`Recorded::Refused`]); the caller tells
    /// the user then, as the journal followed nothing.
    pub fn submission_accepted(
        &mut self,
        scope: &Scope,
        submission: i64,
        job: &Job,
        now: DateTime<Utc>,
    ) -> Result<Recorded, JournalError> {
        let tx = crate::sqlite::write_transaction(&mut self.conn)?;
        if let Some(refused) = store::refusal(&tx, scope, submission, job)? {
            if let Recorded::Refused { reason, .. } = &refused {
                tx.execute(
                    "UPDATE submissions SET outcome = 'unknown', error = ?2 WHERE id = ?1",
                    params![submission, reason],
                )?;
            }
            tx.commit()?;
            return Ok(refused);
        }
        tx.execute(
            "UPDATE submissions SET outcome = 'accepted', job_id = COALESCE(?2, job_id) WHERE id = ?1",
            params![submission, job.id],
        )?;
        if let Some(id) = &job.id {
            store::track(&tx, scope, id, now)?;
            store::keep_first_prompt(&tx, scope, id)?;
            store::observe(&tx, scope, id, job, now)?;
        }
        tx.commit()?;
        Ok(Recorded::Followed)
    }

    /// The submission failed. `may_have_reached_server` marks it as of unknown outcome: it
    /// still counts against the budget, and the user is told to check before resending.
    pub fn submission_failed(
        &mut self,
        submission: i64,
        error: &str,
        may_have_reached_server: bool,
    ) -> Result<(), JournalError> {
        let outcome = if may_have_reached_server {
            "unknown"
        } else {
            "rejected"
        };
        self.conn.execute(
            "UPDATE submissions SET outcome = ?2, error = ?3 WHERE id = ?1",
            params![submission, outcome, error],
        )?;
        Ok(())
    }

    /// Starts following a job (again). Its history is kept either way.
    pub fn track(
        &mut self,
        scope: &Scope,
        job_id: &str,
        now: DateTime<Utc>,
    ) -> Result<(), JournalError> {
        store::track(&self.conn, scope, job_id, now)?;
        Ok(())
    }

    /// Stops following a job; its prompts and timeline stay in the journal.
    pub fn untrack(&mut self, scope: &Scope, job_id: &str) -> Result<bool, JournalError> {
        let changed = self.conn.execute(
            "UPDATE jobs SET tracked = 0 WHERE service = ?1 AND project = ?2 AND job_id = ?3 AND tracked = 1",
            params![scope.service, scope.project, job_id],
        )?;
        Ok(changed > 0)
    }

    /// Stores what was just read of a tracked job and records its status if it changed.
    /// Returns whether it changed. Jobs not tracked are left alone.
    pub fn observe(
        &mut self,
        scope: &Scope,
        job: &Job,
        now: DateTime<Utc>,
    ) -> Result<bool, JournalError> {
        let Some(id) = job.id.as_deref() else {
            return Ok(false);
        };
        if store::unchanged(&self.conn, scope, id, job, now)? {
            return Ok(false);
        }
        let tx = crate::sqlite::write_transaction(&mut self.conn)?;
        let changed = store::observe(&tx, scope, id, job, now)?;
        tx.commit()?;
        Ok(changed)
    }

    /// Followed jobs, newest first.
    pub fn tracked(&self, scope: &Scope) -> Result<Vec<TrackedJob>, JournalError> {
        store::tracked(&self.conn, scope)
    }

    /// The tracked jobs' ids and last statuses seen alone: a cheap look for what another
    /// docdeck tracked or saw.
    pub fn tracked_statuses(
        &self,
        scope: &Scope,
    ) -> Result<Vec<(String, Option<String>)>, JournalError> {
        store::tracked_statuses(&self.conn, scope)
    }

    /// The journal's file (`None` in memory), for a console to watch.
    #[must_use]
    pub fn file(&self) -> Option<PathBuf> {
        self.conn
            .path()
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }

    /// Every prompt accepted for a job, oldest first.
    pub fn conversation(
        &self,
        scope: &Scope,
        job_id: &str,
    ) -> Result<Vec<SentPrompt>, JournalError> {
        store::conversation(&self.conn, scope, job_id)
    }

    /// Every status seen for a job, oldest first.
    pub fn timeline(&self, scope: &Scope, job_id: &str) -> Result<Vec<StatusChange>, JournalError> {
        store::timeline(&self.conn, scope, job_id)
    }
}

/// Renames `path` (and its `-wal` and `-shm` files, which belong to it) to
/// `<name>.<tag>-<time>` in the same folder, and returns the new path.
fn move_aside(path: &Path, tag: &str) -> std::io::Result<PathBuf> {
    let name = path.file_name().map_or_else(
        || "journal".into(),
        |name| name.to_string_lossy().into_owned(),
    );
    let stamp = Utc::now().format("%Y%m%dT%H%M%S");
    let mut target = path.with_file_name(format!("{name}.{tag}-{stamp}"));
    let mut n = 1;
    while target.exists() {
        n += 1;
        target = path.with_file_name(format!("{name}.{tag}-{stamp}-{n}"));
    }
    std::fs::rename(path, &target)?;
    for suffix in ["-wal", "-shm"] {
        let mut side = path.as_os_str().to_owned();
        side.push(suffix);
        let side = PathBuf::from(side);
        if side.exists() {
            let mut moved = target.as_os_str().to_owned();
            moved.push(suffix);
            std::fs::rename(&side, PathBuf::from(moved))?;
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests;
