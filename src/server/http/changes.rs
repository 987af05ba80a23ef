//! `GET /changes/{project}/{job}`: the change a job's agent made, as a unified diff
//! against the base branch, for repositories whose forge has no page of its own. The job
//! id (unguessable) is what grants access, as a link opened in a browser carries no key.
//! A diff past `DIFF_LIMIT` is cut with a marker, and only a few are made at once, so
//! large changes asked for in parallel cannot take the service's memory.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;

use super::{AppState, ServiceError};
use crate::server::db::{ReadKind, now_ms};
use crate::server::jobs::{self, Peek};

pub async fn changes(
    State(state): State<Arc<AppState>>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<impl IntoResponse, ServiceError> {
    let Path((project, id)) = path.map_err(|_| ServiceError::not_found("No such change"))?;
    let archive_after = state.archive_after_ms;
    let job = id.clone();
    let found = state
        .db
        .read(ReadKind::Quick, move |conn| {
            jobs::peek(conn, &project, &job, now_ms(), archive_after)
        })
        .await?;
    if matches!(found, Peek::Missing) {
        return Err(ServiceError::not_found("Job not found"));
    }
    let diff = {
        // Never closed, so acquiring fails only if it were: then no diff is made at all.
        let _turn = state
            .diffs
            .acquire()
            .await
            .map_err(|err| ServiceError::internal(&err))?;
        state.agent.changes(&id).await
    };
    match diff {
        Some(Ok(diff)) => Ok((
            [
                (CONTENT_TYPE, "text/plain; charset=utf-8"),
                (CACHE_CONTROL, "no-store"),
            ],
            diff,
        )),
        Some(Err(err)) => {
            tracing::warn!(job = %id, "cannot show a job's change: {err}");
            Err(ServiceError::internal(
                &"cannot read the job's change from git",
            ))
        }
        None => Err(ServiceError::not_found(
            "This job has no change to show: its agent changed nothing, or runs elsewhere",
        )),
    }
}
