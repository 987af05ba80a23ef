//! `POST /v1/feedback/{projectId}` (issue 27): where a self-hosted page widget sends a
//! reader's thumb and comment. No key (the page is public), so: a project that has no key
//! is not one this service serves (404); each address may send a few an hour (429); the
//! body is small and checked field by field; contact details are never required. A
//! browser on the docs' own site posts across origins, so the answer allows any origin,
//! and the preflight `OPTIONS` is answered.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::{BytesRejection, PathRejection};
use axum::extract::{Path, State};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::handlers::bad_path;
use super::{AppState, ClientIp, ServiceError};
use crate::server::db::{ReadKind, now_ms};
use crate::server::keys::project_has_key;
use crate::server::ratelimit::{Bucket, RateLimiter, retry_after_secs};
use crate::server::signals::{NewFeedback, record_said};

/// Pieces of feedback one address may send per project per hour.
pub const PER_ADDRESS_HOURLY: u32 = 20;
/// The longest comment, path and contact kept, in characters.
const MAX_COMMENT: usize = 2000;
const MAX_PATH: usize = 2048;
const MAX_CONTACT: usize = 200;

/// The widget's limiter: per project and address, a rolling hour.
#[must_use]
pub fn limiter() -> RateLimiter {
    RateLimiter::new(PER_ADDRESS_HOURLY, Duration::from_secs(3600))
}

/// What a widget sends. Fields it does not name are ignored, not refused: a real widget
/// may send more (its version, the page title), and a body without `helpful` or a
/// `comment` is refused anyway.
#[derive(Debug, Deserialize)]
struct Sent {
    path: Option<String>,
    helpful: Option<bool>,
    comment: Option<String>,
    contact: Option<String>,
}

/// What every widget answer carries: any origin may read it.
const CORS: [(HeaderName, &str); 3] = [
    (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
    (header::ACCESS_CONTROL_ALLOW_METHODS, "POST, OPTIONS"),
    (header::ACCESS_CONTROL_ALLOW_HEADERS, "content-type"),
];

fn with_cors(mut response: Response) -> Response {
    for (name, value) in CORS {
        response
            .headers_mut()
            .insert(name, HeaderValue::from_static(value));
    }
    response
}

/// The preflight a browser sends before its POST.
pub async fn preflight() -> Response {
    with_cors(StatusCode::NO_CONTENT.into_response())
}

pub async fn send(
    State(state): State<Arc<AppState>>,
    path: Result<Path<String>, PathRejection>,
    client: ClientIp,
    body: Result<Bytes, BytesRejection>,
) -> Response {
    with_cors(match receive(&state, path, client, body).await {
        Ok(id) => (
            StatusCode::CREATED,
            Json(serde_json::json!({ "id": format!("fb_{id}") })),
        )
            .into_response(),
        Err(err) => err.into_response(),
    })
}

async fn receive(
    state: &AppState,
    path: Result<Path<String>, PathRejection>,
    client: ClientIp,
    body: Result<Bytes, BytesRejection>,
) -> Result<i64, ServiceError> {
    let Path(project) = path.map_err(bad_path)?;
    let invalid = |detail: &str| ServiceError::bad_request("Invalid feedback", [detail.to_owned()]);
    let body = body.map_err(|rejection| {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            ServiceError::payload_too_large(super::MAX_BODY_BYTES)
        } else {
            invalid("the body could not be read")
        }
    })?;
    let sent: Sent = serde_json::from_slice(&body).map_err(|err| {
        invalid(&format!(
            "the body must be a JSON object such as {{\"path\": \"/quickstart\", \"helpful\": false, \"comment\": \"...\"}}: {err}"
        ))
    })?;
    let page = sent
        .path
        .filter(|p| !p.trim().is_empty())
        .ok_or_else(|| invalid("path is required: the page's path or URL"))?;
    let lower = page.trim_start().to_ascii_lowercase();
    if !(lower.starts_with('/') || lower.starts_with("https://") || lower.starts_with("http://")) {
        return Err(invalid(
            "path must be the page's path (starting with /) or its whole URL (https://...)",
        ));
    }
    let comment = sent.comment.filter(|c| !c.trim().is_empty());
    if sent.helpful.is_none() && comment.is_none() {
        return Err(invalid("send helpful (true or false), a comment, or both"));
    }
    for (field, text, max) in [
        ("path", Some(&page), MAX_PATH),
        ("comment", comment.as_ref(), MAX_COMMENT),
        ("contact", sent.contact.as_ref(), MAX_CONTACT),
    ] {
        if text.is_some_and(|t| t.chars().count() > max || t.contains('\0')) {
            return Err(invalid(&format!(
                "{field} must be at most {max} characters, without NUL"
            )));
        }
    }
    let known = {
        let project = project.clone();
        state
            .db
            .read_sql(ReadKind::Quick, move |sql| project_has_key(sql, &project))
            .await?
    };
    if !known {
        return Err(ServiceError::not_found(
            "No such project on this service: feedback is taken for a project it holds a key for (docdeck serve --project ID, or docdeck serve keys add --project ID)",
        ));
    }
    let who = format!("{project} {}", client.0);
    state
        .widget
        .try_acquire(&who, Bucket::Feedback, Instant::now())
        .map_err(|wait| {
            ServiceError::rate_limited(
                "feedback from this address",
                PER_ADDRESS_HOURLY,
                retry_after_secs(wait),
            )
        })?;
    let contact = sent.contact.filter(|c| !c.trim().is_empty());
    // A thumb with a way to reach the reader is contextual feedback too.
    let said = comment.is_some() || contact.is_some();
    let feedback = NewFeedback {
        source: NewFeedback::source_of(false, said).to_owned(),
        contact,
        ..NewFeedback::thumb(now_ms(), page, sent.helpful, comment)
    };
    Ok(state
        .db
        .write(move |sql| record_said(sql, &project, &feedback))
        .await?)
}
