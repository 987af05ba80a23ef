//! A job's record written once for both stores (SQLite and PostgreSQL): creating a job,
//! reading it (archiving it when it became due), and queueing a follow-up. The callers
//! give a transaction; these functions open none.

use super::{JobDefaults, JobRecord, MessageRefusal, Peek, new_job_id, progress};
use crate::api::JobStatus;
use crate::args;
use crate::server::db::StoreError;
use crate::server::store::{Engine, Row, Sql};

/// The columns [`from_row`] reads, in its order.
const COLUMNS: &str = "seq, id, project, status, repository, git_ref, model, pr_link, \
                       created_ms, updated_ms, archived_ms";

fn from_row(row: &Row) -> Result<JobRecord, StoreError> {
    Ok(JobRecord {
        seq: row.int(0)?,
        id: row.text(1)?,
        project: row.text(2)?,
        status: JobStatus::parse(&row.text(3)?),
        repository: row.text(4)?,
        git_ref: row.opt_text(5)?,
        model: row.text(6)?,
        pr_link: row.opt_text(7)?,
        created_ms: row.int(8)?,
        updated_ms: row.int(9)?,
        archived_ms: row.opt_int(10)?,
        progress: super::Progress::default(),
    })
}

fn missing() -> StoreError {
    StoreError::Damaged("a job written in this transaction cannot be read back".to_owned())
}

/// Creates an active job whose first turn is `prompt`.
pub fn create(
    sql: &mut dyn Sql,
    project: &str,
    prompt: &str,
    defaults: &JobDefaults,
    now_ms: i64,
) -> Result<JobRecord, StoreError> {
    let id = new_job_id();
    let seq = sql
        .one(
            "INSERT INTO jobs (id, project, status, repository, git_ref, model, created_ms, updated_ms)
             VALUES ($1, $2, 'active', $3, $4, $5, $6, $6) RETURNING seq",
            args![
                &id,
                project,
                &defaults.repository,
                defaults.git_ref.as_deref(),
                &defaults.model,
                now_ms
            ],
        )?
        .int(0)?;
    sql.exec(
        "INSERT INTO turns (job_seq, turn, prompt, received_ms) VALUES ($1, 1, $2, $3)",
        args![seq, prompt, now_ms],
    )?;
    load(sql, project, &id)?.ok_or_else(missing)
}

/// Reads a job of `project`, archiving it first if it has been idle for `archive_after_ms`.
pub fn get(
    sql: &mut dyn Sql,
    project: &str,
    id: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Option<JobRecord>, StoreError> {
    Ok(match load(sql, project, id)? {
        Some(mut record) => {
            archive_if_idle(sql, &mut record, now_ms, archive_after_ms)?;
            Some(record)
        }
        None => None,
    })
}

/// Reads a job without writing. A job that has just become due for archiving is left to
/// [`get`].
pub fn peek(
    sql: &mut dyn Sql,
    project: &str,
    id: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Peek, StoreError> {
    Ok(match load(sql, project, id)? {
        None => Peek::Missing,
        Some(record) if archive_due(&record, now_ms, archive_after_ms).is_some() => {
            Peek::DueForArchive
        }
        Some(record) => Peek::Current(Box::new(record)),
    })
}

/// Queues a follow-up turn. A completed or failed job becomes active again; an active job
/// takes it after its current turn; an archived job refuses it.
pub fn add_message(
    sql: &mut dyn Sql,
    project: &str,
    id: &str,
    prompt: &str,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<Result<JobRecord, MessageRefusal>, StoreError> {
    if sql.engine() == Engine::Postgres {
        // Two follow-ups of one job at once, on two nodes: the second waits here, so
        // both number their turn after the other's. (SQLite's write lock does this.)
        sql.exec(
            "SELECT seq FROM jobs WHERE project = $1 AND id = $2 FOR UPDATE",
            args![project, id],
        )?;
    }
    let Some(mut record) = load(sql, project, id)? else {
        return Ok(Err(MessageRefusal::NotFound));
    };
    archive_if_idle(sql, &mut record, now_ms, archive_after_ms)?;
    if record.status == JobStatus::Archived {
        return Ok(Err(MessageRefusal::Archived));
    }
    sql.exec(
        "INSERT INTO turns (job_seq, turn, prompt, received_ms)
         SELECT $1, COALESCE(MAX(turn), 0) + 1, CAST($2 AS TEXT), CAST($3 AS BIGINT)
         FROM turns WHERE job_seq = $1",
        args![record.seq, prompt, now_ms],
    )?;
    sql.exec(
        "UPDATE jobs SET status = 'active', updated_ms = $2 WHERE seq = $1",
        args![record.seq, now_ms],
    )?;
    Ok(Ok(load(sql, project, id)?.ok_or_else(missing)?))
}

/// A job of `project` with its progress.
pub fn load(sql: &mut dyn Sql, project: &str, id: &str) -> Result<Option<JobRecord>, StoreError> {
    let row = sql.opt(
        &format!("SELECT {COLUMNS} FROM jobs WHERE project = $1 AND id = $2"),
        args![project, id],
    )?;
    let Some(row) = row else {
        return Ok(None);
    };
    let mut record = from_row(&row)?;
    record.progress = progress::read(sql, record.seq, record.status == JobStatus::Active)?;
    Ok(Some(record))
}

/// Archiving is applied when a job is next looked at, at the exact instant it became due,
/// so the service needs no timer and every reader sees the same `archivedAt`.
fn archive_if_idle(
    sql: &mut dyn Sql,
    record: &mut JobRecord,
    now_ms: i64,
    archive_after_ms: i64,
) -> Result<(), StoreError> {
    if let Some(due) = archive_due(record, now_ms, archive_after_ms) {
        sql.exec(
            "UPDATE jobs SET status = 'archived', archived_ms = $2 WHERE seq = $1",
            args![record.seq, due],
        )?;
        record.status = JobStatus::Archived;
        record.archived_ms = Some(due);
    }
    Ok(())
}

/// When a finished job idle past `archive_after_ms` became archived, if it has.
fn archive_due(record: &JobRecord, now_ms: i64, archive_after_ms: i64) -> Option<i64> {
    let ended = matches!(record.status, JobStatus::Completed | JobStatus::Failed);
    let due = record.updated_ms.saturating_add(archive_after_ms);
    (ended && now_ms >= due).then_some(due)
}
