//! The four operations of the interface, and the service's own OpenAPI document.

use std::sync::Arc;

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, RawQuery, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Method, StatusCode, Uri};
use axum::response::IntoResponse;
use serde_json::Value;

use super::{AppState, ClientIp, MAX_BODY_BYTES, ServiceError, ServiceJob};
use crate::api::VisitorsQuery;
use crate::api::limit::{VIEWS_SPAN, ViewsSpan};
use crate::server::db::{ReadKind, now_ms};
use crate::server::jobs::{self, MessageRefusal};
use crate::server::ratelimit::Bucket;
use crate::server::store::{self, Lite, Store};
use crate::server::views::{self, VisitorsRequest};
use crate::text::excerpt;

/// Longest query string read; anything longer is refused before parsing.
const MAX_QUERY_BYTES: usize = 4096;

type Shared = State<Arc<AppState>>;
/// The `RateLimit-*` headers of an answer that spent a rate-limited use.
type Limits = [(axum::http::HeaderName, axum::http::HeaderValue); 3];

pub async fn create_job(
    State(state): Shared,
    path: Result<Path<String>, PathRejection>,
    client: ClientIp,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Limits, Json<ServiceJob>), ServiceError> {
    let Path(project) = path.map_err(bad_path)?;
    state.authorize(&headers, client, &project).await?;
    state.may_run_agent(&project)?;
    let prompt = read_prompt(&headers, body)?;
    let permit = state.acquire(&project, Bucket::Create).await?;
    let defaults = state.defaults.clone();
    let created = state
        .db
        .write({
            let project = project.clone();
            move |sql| {
                let record = jobs::record::create(sql, &project, &prompt, &defaults, now_ms())?;
                store::announce(sql)?;
                Ok(record)
            }
        })
        .await
        .map_err(ServiceError::from);
    let record = state.settle(permit, created).await?;
    let job = state.kick(&record).await;
    let limits = state.limits(&project, Bucket::Create).await;
    Ok((StatusCode::CREATED, limits, Json(job)))
}

pub async fn send_message(
    State(state): Shared,
    path: Result<Path<(String, String)>, PathRejection>,
    client: ClientIp,
    headers: HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<(Limits, Json<ServiceJob>), ServiceError> {
    let Path((project, id)) = path.map_err(bad_path)?;
    state.authorize(&headers, client, &project).await?;
    state.may_run_agent(&project)?;
    let prompt = read_prompt(&headers, body)?;
    let permit = state.acquire(&project, Bucket::Message).await?;
    let archive_after = state.archive_after_ms;
    let queued = state
        .db
        .write({
            let project = project.clone();
            move |sql| {
                let queued = jobs::record::add_message(
                    sql,
                    &project,
                    &id,
                    &prompt,
                    now_ms(),
                    archive_after,
                )?;
                if queued.is_ok() {
                    store::announce(sql)?;
                }
                Ok(queued)
            }
        })
        .await
        .map_err(ServiceError::from)
        .and_then(|outcome| {
            outcome.map_err(|refusal| match refusal {
                MessageRefusal::NotFound => ServiceError::not_found("Job not found"),
                MessageRefusal::Archived => ServiceError::conflict(
                    "Job is archived and cannot take messages; create a new job instead",
                ),
            })
        });
    let record = state.settle(permit, queued).await?;
    let job = state.kick(&record).await;
    Ok((state.limits(&project, Bucket::Message).await, Json(job)))
}

pub async fn get_job(
    State(state): Shared,
    path: Result<Path<(String, String)>, PathRejection>,
    client: ClientIp,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<Json<ServiceJob>, ServiceError> {
    let Path((project, id)) = path.map_err(bad_path)?;
    state.authorize(&headers, client, &project).await?;
    let (name, value) = crate::api::change::INCLUDE_CHANGE;
    let with_change = query_pairs(raw)?
        .iter()
        .any(|(k, v)| k == name && v.split(',').any(|v| v.trim() == value));
    let archive_after = state.archive_after_ms;
    let peeked = {
        let (project, id) = (project.clone(), id.clone());
        state
            .db
            .read_sql(ReadKind::Quick, move |sql| {
                jobs::record::peek(sql, &project, &id, now_ms(), archive_after)
            })
            .await?
    };
    let record = match peeked {
        jobs::Peek::Missing => None,
        jobs::Peek::Current(record) => Some(*record),
        jobs::Peek::DueForArchive => {
            state
                .db
                .write(move |sql| jobs::record::get(sql, &project, &id, now_ms(), archive_after))
                .await?
        }
    };
    let record = record.ok_or_else(|| ServiceError::not_found("Job not found"))?;
    let mut job = state.wire(&record);
    if with_change {
        job.0.change = state.agent.change_of(&record.id).await.map(Box::new);
    }
    Ok(Json(job))
}

/// The run state of a job an agent is free for, whose turn is about to start.
pub const STARTING: &str = "starting";

impl AppState {
    /// A stored job as this service sends it.
    pub(super) fn wire(&self, record: &jobs::JobRecord) -> ServiceJob {
        ServiceJob(record.to_wire_at(&self.service_url))
    }

    /// Tells the SQLite worker that a job has a turn to run (PostgreSQL's nodes were
    /// told by the `NOTIFY` committed with it), and answers with the job as it stands:
    /// a job waiting no further back than there are free agents is `starting`, not
    /// `queued` (the record was read before the worker could take it; the trial saw
    /// every new job say `queued #1` with every agent idle).
    ///
    /// On PostgreSQL the free agents are every node's that may take the job, as the
    /// database says them (`pg::nodes`): the node keeping the job, else any node alive.
    /// Counting this node's only said `queued` with another node's agent free, and
    /// `starting` for a follow-up waiting for another, full, node.
    async fn kick(&self, record: &jobs::JobRecord) -> ServiceJob {
        let mut job = self.wire(record);
        let free = if let Some(worker) = &self.worker {
            let free = worker.free_agents();
            worker.kick(record.id.clone());
            free
        } else if let (Some(node), Store::Postgres(pg)) = (&self.node_busy, &self.db) {
            if !job.0.is_queued() {
                return job;
            }
            let (seq, me, max) = (record.seq, node.name().to_owned(), node.max_agents());
            let starts = pg
                .call(move |c| crate::server::pg::nodes::starts_now(c, seq, &me, max, now_ms()))
                .await;
            match starts {
                Ok(true) => Some(usize::MAX),
                Ok(false) => Some(0),
                Err(err) => {
                    tracing::debug!("cannot read the nodes' free agents: {err}");
                    Some(node.free_agents())
                }
            }
        } else {
            return job;
        };
        let now = job.0.queue_position.filter(|_| job.0.is_queued());
        if now.is_some_and(|place| free.is_none_or(|free| place <= free as u64)) {
            job.0.run_state = Some(STARTING.to_owned());
            job.0.queue_position = None;
        }
        job
    }
}

pub async fn visitors(
    State(state): Shared,
    path: Result<Path<String>, PathRejection>,
    client: ClientIp,
    headers: HeaderMap,
    RawQuery(raw): RawQuery,
) -> Result<axum::response::Response, ServiceError> {
    let Path(project) = path.map_err(bad_path)?;
    state.authorize(&headers, client, &project).await?;
    let pairs = query_pairs(raw)?;
    let query = VisitorsQuery::from_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(|err| ServiceError::bad_request("Invalid query parameters", [err.to_string()]))?;
    super::seed_wait::seed_written(&state, &project).await?;
    let permit = state.acquire(&project, Bucket::Analytics).await?;
    let request = VisitorsRequest {
        from_ms: query.date_from.map(|d| d.millis()),
        to_ms: query.date_to.map(|d| d.millis()),
        limit: query.effective_limit(),
        offset: query.effective_offset(),
    };
    let project_of = project.clone();
    let read = match &state.db {
        Store::Sqlite(db) => {
            db.read(ReadKind::Scan, move |conn| {
                let page = views::visitors(conn, &project_of, &request)?;
                Ok((page, views::span(&mut Lite(conn), &project_of)?))
            })
            .await
        }
        // Counted inside PostgreSQL: one row per page comes back (`pg::views`).
        Store::Postgres(pg) => {
            let store = pg.clone();
            pg.call(move |client| {
                let page = crate::server::pg::views::visitors_split(
                    &store,
                    client,
                    &project_of,
                    &request,
                )?;
                Ok((page, views::span(client, &project_of)?))
            })
            .await
        }
    }
    .map_err(ServiceError::from);
    let (page, span) = state.settle(permit, read).await?;
    let mut answer = (state.limits(&project, Bucket::Analytics).await, Json(page)).into_response();
    if let Some(value) = span.and_then(|(first, last)| ViewsSpan::from_millis(first, last)) {
        answer.headers_mut().insert(VIEWS_SPAN, value.header());
    }
    Ok(answer)
}

/// The pairs of a query string, refused when it is longer than [`MAX_QUERY_BYTES`].
pub(super) fn query_pairs(raw: Option<String>) -> Result<Vec<(String, String)>, ServiceError> {
    let raw = raw.unwrap_or_default();
    if raw.len() > MAX_QUERY_BYTES {
        return Err(ServiceError::bad_request(
            "Invalid query parameters",
            [format!(
                "the query string is longer than {MAX_QUERY_BYTES} bytes"
            )],
        ));
    }
    Ok(url::form_urlencoded::parse(raw.as_bytes())
        .into_owned()
        .collect())
}

/// The service's own OpenAPI document.
pub async fn openapi() -> impl IntoResponse {
    (
        [(CONTENT_TYPE, "application/json")],
        include_str!("../../../assets/openapi.json"),
    )
}

pub async fn no_route(method: Method, uri: Uri) -> ServiceError {
    ServiceError::not_found(format!(
        "No such endpoint: {method} {}; see /openapi.json",
        excerpt(uri.path(), 200)
    ))
}

pub async fn wrong_method() -> ServiceError {
    ServiceError::method_not_allowed()
}

pub(super) fn bad_path(rejection: PathRejection) -> ServiceError {
    ServiceError::bad_request("Invalid path", [rejection.body_text()])
}

/// Checks the media type and body of a create or message request and returns the prompt.
fn read_prompt(
    headers: &HeaderMap,
    body: Result<Bytes, BytesRejection>,
) -> Result<String, ServiceError> {
    let content_type = headers
        .get(CONTENT_TYPE)
        .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
    let is_json = content_type
        .as_deref()
        .and_then(|value| value.split(';').next())
        .is_some_and(|media| media.trim().eq_ignore_ascii_case("application/json"));
    if !is_json {
        return Err(ServiceError::not_json(content_type.as_deref()));
    }
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ServiceError::payload_too_large(MAX_BODY_BYTES)
        } else if let Some(limit) = super::deadline::too_slow(&rejection) {
            ServiceError::body_too_slow(limit)
        } else {
            ServiceError::bad_request("Invalid request body", [rejection.body_text()])
        }
    })?;
    let invalid = |detail: String| ServiceError::bad_request("Invalid request body", [detail]);
    let value: Value = serde_json::from_slice(&body)
        .map_err(|err| invalid(format!("the body is not valid JSON: {err}")))?;
    let Value::Object(mut fields) = value else {
        return Err(invalid(r#"the body must be a JSON object such as {"prompt": "Fix the typos in the quickstart"}"#.to_owned()));
    };
    match fields.remove("prompt") {
        None | Some(Value::Null) => Err(invalid("prompt is required".to_owned())),
        Some(Value::String(prompt)) if prompt.is_empty() => Err(invalid(
            "prompt must be at least 1 character long".to_owned(),
        )),
        Some(Value::String(prompt)) if prompt.contains('\0') => Err(invalid(
            "prompt must not contain a NUL character (\\u0000): an agent cannot receive it on its standard input, its environment or its command line".to_owned(),
        )),
        Some(Value::String(prompt)) => Ok(prompt),
        Some(_) => Err(invalid("prompt must be a string".to_owned())),
    }
}
