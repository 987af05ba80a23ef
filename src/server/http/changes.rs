//! `GET /changes/{project}/{job}`: the change a job's agent made, as a unified diff
//! against the base branch, for repositories whose forge has no page of its own. A job
//! without a change gets a page that says why (running, queued, failed and why, nothing
//! changed), never an empty one. The job id (unguessable) is what grants access, as a
//! link opened in a browser carries no key. A diff past `DIFF_LIMIT` is cut with a
//! marker, and only a few are made at once, so large changes asked for in parallel cannot
//! take the service's memory.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;

use super::{AppState, ServiceError};
use crate::api::{Job, JobStatus};
use crate::args;
use crate::server::db::{ReadKind, now_ms};
use crate::server::jobs::{self, Peek};
use crate::server::store::Engine;

pub async fn changes(
    State(state): State<Arc<AppState>>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<impl IntoResponse, ServiceError> {
    let Path((project, id)) = path.map_err(|_| ServiceError::not_found("No such change"))?;
    let archive_after = state.archive_after_ms;
    let job = id.clone();
    let found = state
        .db
        .read_sql(ReadKind::Quick, move |sql| {
            let peeked = jobs::record::peek(sql, &project, &job, now_ms(), archive_after)?;
            // On PostgreSQL the change is the one stored with the job's last turn that
            // kept one, so that every node answers alike.
            let stored = match (sql.engine(), &peeked) {
                (Engine::Postgres, Peek::Current(_) | Peek::DueForArchive) => sql
                    .opt(
                        "SELECT t.diff FROM turns t JOIN jobs j ON j.seq = t.job_seq
                         WHERE j.project = $1 AND j.id = $2 AND t.diff IS NOT NULL
                         ORDER BY t.turn DESC LIMIT 1",
                        args![project.as_str(), job.as_str()],
                    )?
                    .map(|row| row.text(0))
                    .transpose()?
                    .map(Ok),
                _ => None,
            };
            Ok((peeked, stored))
        })
        .await?;
    let (found, stored) = found;
    let record = match found {
        Peek::Missing => return Err(ServiceError::not_found("Job not found")),
        Peek::Current(record) => Some(*record),
        Peek::DueForArchive => None,
    };
    let page = |text: String| {
        (
            [
                (CONTENT_TYPE, "text/plain; charset=utf-8"),
                (CACHE_CONTROL, "no-store"),
            ],
            text,
        )
    };
    let diff = {
        // Never closed, so acquiring fails only if it were: then no diff is made at all.
        let _turn = state
            .diffs
            .acquire()
            .await
            .map_err(|err| ServiceError::internal(&err))?;
        match stored {
            Some(diff) => Some(diff),
            None => state.agent.changes(&id).await,
        }
    };
    match diff {
        Some(Ok(diff)) if !diff.is_empty() => Ok(page(diff)),
        Some(Err(err)) => {
            tracing::warn!(job = %id, "cannot show a job's change: {err}");
            Err(ServiceError::internal(
                &"cannot read the job's change from git",
            ))
        }
        Some(Ok(_)) => Ok(page(no_change(&id, record.map(|r| state.wire(&r).0)))),
        None => Err(ServiceError::not_found(
            "This job has no change page here: its agent runs elsewhere (the simulated agent keeps none)",
        )),
    }
}

/// What the page of a job without a change says: what there is to see instead.
fn no_change(id: &str, job: Option<Job>) -> String {
    let Some(job) = job else {
        return format!("Job {id} is archived. It made no change.\n");
    };
    let mut text = match job.status {
        Some(JobStatus::Active) if job.is_queued() => format!(
            "Job {id} is waiting for a free agent{}. It has no change yet: this page shows it once the agent makes one.\n",
            job.queue_position
                .map(|p| format!(" (#{p} in line)"))
                .unwrap_or_default()
        ),
        Some(JobStatus::Active) => format!(
            "Job {id} is running. Its agent has not changed anything yet: this page shows the change once there is one.\n"
        ),
        Some(JobStatus::Failed) => format!(
            "Job {id} failed, and nothing it did was kept as a change.\nWhy: {}\n",
            job.failure_reason
                .as_deref()
                .unwrap_or("the service did not keep a reason")
        ),
        Some(JobStatus::Completed) => {
            format!(
                "Job {id} completed, and its agent changed nothing: there is no change to show.\n"
            )
        }
        _ => format!("Job {id} is archived. It made no change.\n"),
    };
    if let Some(output) = &job.output_link {
        text.push_str(&format!("The agent's output of its last turn: {output}\n"));
    }
    text
}
