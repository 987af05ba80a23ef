//! The local service's own additions to the job: its fields are always sent (null when
//! they say nothing, as every field of its contract), and `GET /output/{project}/{job}/{turn}`
//! serves what the agent printed in a turn. As with `/changes`, the unguessable job id is
//! what grants access: a link opened in a browser carries no key.

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::header::{CACHE_CONTROL, CONTENT_TYPE};
use axum::response::IntoResponse;
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::{AppState, ServiceError};
use crate::api::Job;
use crate::args;
use crate::server::db::ReadKind;
use crate::server::jobs;

/// The fields of the local service's job that the hosted contract does not have.
pub const LOCAL_FIELDS: [&str; 6] = [
    "failureReason",
    "outputLink",
    "runState",
    "queuePosition",
    "change",
    "node",
];

/// A job as the local service sends it: the client's type leaves out the local fields
/// it was not sent; the service sends every one, null when it has nothing to say.
pub struct ServiceJob(pub Job);

impl Serialize for ServiceJob {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut value = serde_json::to_value(&self.0).map_err(serde::ser::Error::custom)?;
        if let Value::Object(fields) = &mut value {
            for name in LOCAL_FIELDS {
                fields.entry(name).or_insert(Value::Null);
            }
        }
        value.serialize(serializer)
    }
}

pub async fn output(
    State(state): State<Arc<AppState>>,
    path: Result<Path<(String, String, i64)>, PathRejection>,
) -> Result<impl IntoResponse, ServiceError> {
    let Path((project, id, turn)) =
        path.map_err(|_| ServiceError::not_found("No such turn output"))?;
    let page = |text: String| {
        (
            [
                (CONTENT_TYPE, "text/plain; charset=utf-8"),
                (CACHE_CONTROL, "no-store"),
            ],
            text,
        )
    };
    if state.db.is_postgres() {
        // Stored with the turn by the node that ran it, so every node answers alike.
        let stored = state
            .db
            .read_sql(ReadKind::Quick, move |sql| {
                sql.opt(
                    "SELECT t.output_text FROM turns t JOIN jobs j ON j.seq = t.job_seq
                     WHERE j.project = $1 AND j.id = $2 AND t.turn = $3",
                    args![project.as_str(), id.as_str(), turn],
                )?
                .map(|row| row.opt_text(0))
                .transpose()
                .map(Option::flatten)
            })
            .await?;
        return stored.map(page).ok_or_else(|| {
            ServiceError::not_found(
                "No output is kept for this turn: the job or turn does not exist, or its agent keeps none",
            )
        });
    }
    let kept = state
        .db
        .read(ReadKind::Quick, move |conn| {
            Ok(jobs::output_path(conn, &project, &id, turn)?)
        })
        .await?;
    let Some(file) = kept else {
        return Err(ServiceError::not_found(
            "No output is kept for this turn: the job or turn does not exist, or its agent keeps none",
        ));
    };
    match tokio::fs::read(&file).await {
        Ok(bytes) => Ok(page(String::from_utf8_lossy(&bytes).into_owned())),
        Err(err) => {
            tracing::warn!(file = %file, "cannot read a turn's output: {err}");
            Err(ServiceError::not_found(
                "This turn's output is no longer on the service's disk",
            ))
        }
    }
}
