//! `GET /v1/analytics/{projectId}/searches`, `/feedback`, `/feedback/by-page` and
//! `/assistant` (issue 27): the hosted export's shapes, the same checks and the same
//! analytics rate limit as visitors.

use std::convert::Infallible;
use std::sync::Arc;

use axum::Json;
use axum::extract::FromRequestParts;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use axum::http::request::Parts;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::handlers::{bad_path, query_pairs};
use super::{AppState, ClientIp, ServiceError};
use crate::api::signals::{Kind, SignalsQuery, SignalsQueryError};
use crate::server::db::{ReadKind, StoreError};
use crate::server::ratelimit::Bucket;
use crate::server::signals::{self, Cursor, NextCursor};
use crate::server::store::Sql;
use crate::text::excerpt;

type Shared = State<Arc<AppState>>;

/// What every read of a signal takes from its request: the project in the path, the
/// caller's address and headers (for the key), and the query text.
pub struct Asked {
    path: Result<Path<String>, PathRejection>,
    client: ClientIp,
    headers: HeaderMap,
    raw: RawQuery,
}

impl FromRequestParts<Arc<AppState>> for Asked {
    type Rejection = Infallible;

    async fn from_request_parts(
        parts: &mut Parts,
        state: &Arc<AppState>,
    ) -> Result<Self, Self::Rejection> {
        let path = Path::<String>::from_request_parts(parts, state).await;
        let Ok(client) = ClientIp::from_request_parts(parts, state).await;
        let Ok(raw) = RawQuery::from_request_parts(parts, state).await;
        Ok(Self {
            path,
            client,
            headers: parts.headers.clone(),
            raw,
        })
    }
}

pub async fn searches(state: Shared, asked: Asked) -> Result<Response, ServiceError> {
    read(state, asked, Kind::Searches, signals::searches).await
}

pub async fn feedback(state: Shared, asked: Asked) -> Result<Response, ServiceError> {
    read(state, asked, Kind::Feedback, signals::feedback).await
}

pub async fn feedback_by_page(state: Shared, asked: Asked) -> Result<Response, ServiceError> {
    read(
        state,
        asked,
        Kind::FeedbackByPage,
        |conn, project, query, _| signals::feedback_by_page(conn, project, query),
    )
    .await
}

pub async fn assistant(state: Shared, asked: Asked) -> Result<Response, ServiceError> {
    read(state, asked, Kind::Assistant, signals::assistant).await
}

/// One read of `kind`: the key, the query (with its cursor), the demo seed, one use of
/// the analytics limit, then `load` on a scan reader.
async fn read<T, F>(
    State(state): Shared,
    asked: Asked,
    kind: Kind,
    load: F,
) -> Result<Response, ServiceError>
where
    T: Serialize + NextCursor + Send + 'static,
    F: FnOnce(&mut dyn Sql, &str, &SignalsQuery, Cursor) -> Result<T, StoreError> + Send + 'static,
{
    let Asked {
        path,
        client,
        headers,
        raw: RawQuery(raw),
    } = asked;
    let Path(project) = path.map_err(bad_path)?;
    state.authorize(&headers, client, &project).await?;
    let pairs = query_pairs(raw)?;
    let invalid = |err: crate::api::signals::SignalsQueryError| {
        ServiceError::bad_request("Invalid query parameters", [err.to_string()])
    };
    let query = SignalsQuery::from_pairs(kind, pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .map_err(invalid)?;
    // A cursor is the service's own only with its tag (`BODY~TAG`): one made up, however
    // well formed, is refused rather than read as a page that happens to be empty.
    let mut query = query;
    if let Some(sent) = query.cursor.take() {
        let body = sent
            .rsplit_once('~')
            .filter(|(body, tag)| state.keys.tag(body) == *tag)
            .map(|(body, _)| body.to_owned())
            .ok_or_else(|| invalid(SignalsQueryError::Cursor(excerpt(&sent, 64))))?;
        query.cursor = Some(body);
    }
    let cursor = Cursor::of(&query).map_err(invalid)?;
    super::seed_wait::seed_written(&state, &project).await?;
    let permit = state.acquire(&project, Bucket::Analytics).await?;
    let page = state
        .db
        .read_sql(ReadKind::Scan, {
            let project = project.clone();
            move |sql| load(sql, &project, &query, cursor)
        })
        .await
        .map_err(ServiceError::from);
    let mut page = state.settle(permit, page).await?;
    if let Some(next) = page.next_cursor() {
        let tag = state.keys.tag(next);
        next.push('~');
        next.push_str(&tag);
    }
    Ok((state.limits(&project, Bucket::Analytics).await, Json(page)).into_response())
}
