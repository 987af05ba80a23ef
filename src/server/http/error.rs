//! Error responses of the local service: `{"error": ...}`, with `details` on 400s and
//! `Retry-After` on 429s, as DESIGN decides.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::api::{ErrorBody, ErrorDetail};
use crate::server::db::StoreError;

/// A refusal or failure, turned into the documented error body.
#[derive(Debug)]
pub struct ServiceError {
    status: StatusCode,
    error: String,
    details: Vec<String>,
    retry_after_secs: Option<u64>,
    /// The limit a 429 refused under, stated in `RateLimit-*` headers.
    limit: Option<u32>,
}

impl ServiceError {
    fn new(status: StatusCode, error: impl Into<String>) -> Self {
        Self {
            status,
            error: error.into(),
            details: Vec::new(),
            retry_after_secs: None,
            limit: None,
        }
    }

    /// 400 with one detail per problem found.
    pub fn bad_request(error: &str, details: impl IntoIterator<Item = String>) -> Self {
        Self {
            details: details.into_iter().collect(),
            ..Self::new(StatusCode::BAD_REQUEST, error)
        }
    }

    pub fn unauthorized(error: &str) -> Self {
        Self::new(StatusCode::UNAUTHORIZED, error)
    }

    pub fn forbidden(error: &str) -> Self {
        Self::new(StatusCode::FORBIDDEN, error)
    }

    pub fn not_found(error: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, error)
    }

    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "Method not allowed on this path; see /openapi.json",
        )
    }

    pub fn conflict(error: &str) -> Self {
        Self::new(StatusCode::CONFLICT, error)
    }

    /// 400 for a create or message body not sent as JSON (the public document lists 400,
    /// not 415, for an invalid request), naming the Content-Type that came.
    pub fn not_json(content_type: Option<&str>) -> Self {
        let received = match content_type {
            Some(value) => format!(
                "the body was sent with Content-Type {:?}",
                crate::text::excerpt(value, 80)
            ),
            None => "the request has no Content-Type header".to_owned(),
        };
        Self::bad_request(
            "Invalid request body: send it as JSON with Content-Type: application/json",
            [format!(
                "{received}; send the body as JSON, such as {{\"prompt\": \"Fix the typos\"}}, with the header Content-Type: application/json"
            )],
        )
    }

    pub fn payload_too_large(limit_bytes: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            format!("The body is larger than {} KiB", limit_bytes / 1024),
        )
    }

    /// A body that did not all arrive within the body limit (`serve --body-timeout`).
    pub fn body_too_slow(limit: std::time::Duration) -> Self {
        Self::new(
            StatusCode::REQUEST_TIMEOUT,
            format!(
                "The request body took longer than {} s to arrive; send it at once",
                limit.as_secs()
            ),
        )
    }

    pub fn rate_limited(what: &str, limit: u32, retry_after_secs: u64) -> Self {
        Self {
            retry_after_secs: Some(retry_after_secs),
            limit: Some(limit),
            ..Self::new(
                StatusCode::TOO_MANY_REQUESTS,
                format!("Rate limit exceeded for {what}; retry after {retry_after_secs} seconds"),
            )
        }
    }

    /// 503: the request can be made again after `retry_after_secs` (`Retry-After`).
    pub fn unavailable(error: String, retry_after_secs: u64) -> Self {
        Self {
            retry_after_secs: Some(retry_after_secs),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, error)
        }
    }

    /// 500. The cause is logged, not sent: it may describe the server's files.
    pub fn internal(cause: &dyn std::fmt::Display) -> Self {
        tracing::error!("request failed: {cause}");
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "Internal server error")
    }
}

/// Seconds a client is told to wait when the database was held by another writer (an
/// import) past the busy timeout.
const BUSY_RETRY_SECS: u64 = 2;

/// Seconds a client is told to wait when PostgreSQL could not be reached.
const UNREACHABLE_RETRY_SECS: u64 = 5;

impl From<StoreError> for ServiceError {
    /// A database held by another writer past the busy timeout is a 503 with
    /// `Retry-After` (the call can be made again), a full disk a 507 that says so; any
    /// other failure a 500.
    fn from(err: StoreError) -> Self {
        use rusqlite::ErrorCode;
        let code = match &err {
            StoreError::Sql(rusqlite::Error::SqliteFailure(failure, _)) => Some(failure.code),
            _ => None,
        };
        // PostgreSQL down or restarting (a connection refused or lost): the request may
        // be made again, as with a busy SQLite.
        if matches!(err, StoreError::Unreachable(_) | StoreError::Open { .. }) {
            // The node's own loops say so once a minute (`pg::outage`): not once a request.
            tracing::debug!("a request found the database unreachable: {err}");
            return Self {
                retry_after_secs: Some(UNREACHABLE_RETRY_SECS),
                ..Self::new(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!(
                        "The service cannot reach its database; retry after {UNREACHABLE_RETRY_SECS} seconds"
                    ),
                )
            };
        }
        if let StoreError::NotOnPostgres { what } = &err {
            return Self::new(
                StatusCode::NOT_IMPLEMENTED,
                format!(
                    "{what} does not run on PostgreSQL yet (issue 26): this node serves jobs and keys from PostgreSQL; serve this from a SQLite --db meanwhile"
                ),
            );
        }
        match code {
            Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => {
                tracing::warn!("a request waited too long for the database: {err}");
                Self {
                    retry_after_secs: Some(BUSY_RETRY_SECS),
                    ..Self::new(
                        StatusCode::SERVICE_UNAVAILABLE,
                        format!(
                            "The database is busy with another writer (an import); retry after {BUSY_RETRY_SECS} seconds"
                        ),
                    )
                }
            }
            Some(ErrorCode::DiskFull) => {
                tracing::error!("request failed: {err}");
                Self::new(
                    StatusCode::INSUFFICIENT_STORAGE,
                    "The service's disk is full: nothing was stored; free some space and try again",
                )
            }
            _ => Self::internal(&err),
        }
    }
}

impl IntoResponse for ServiceError {
    fn into_response(self) -> Response {
        let details = (self.status == StatusCode::BAD_REQUEST).then(|| {
            let messages = if self.details.is_empty() {
                vec![self.error.clone()]
            } else {
                self.details
            };
            messages
                .into_iter()
                .map(|message| ErrorDetail { message })
                .collect()
        });
        let body = ErrorBody {
            error: Some(self.error),
            details,
        };
        let mut response = (self.status, Json(body)).into_response();
        if let Some(secs) = self.retry_after_secs {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        if let (Some(limit), Some(reset_secs)) = (self.limit, self.retry_after_secs) {
            let usage = crate::server::ratelimit::Usage {
                limit,
                remaining: 0,
                reset_secs,
            };
            response.headers_mut().extend(rate_limit_headers(usage));
        }
        response
    }
}

/// `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (seconds), as the IETF
/// draft names them, so a client follows this service's limits rather than guessing.
pub fn rate_limit_headers(
    usage: crate::server::ratelimit::Usage,
) -> [(header::HeaderName, HeaderValue); 3] {
    [
        (
            header::HeaderName::from_static("ratelimit-limit"),
            HeaderValue::from(usage.limit),
        ),
        (
            header::HeaderName::from_static("ratelimit-remaining"),
            HeaderValue::from(usage.remaining),
        ),
        (
            header::HeaderName::from_static("ratelimit-reset"),
            HeaderValue::from(usage.reset_secs),
        ),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: i32) -> StoreError {
        StoreError::Sql(rusqlite::Error::SqliteFailure(
            rusqlite::ffi::Error::new(code),
            None,
        ))
    }

    #[test]
    fn a_busy_database_is_503_with_retry_after_and_a_full_disk_507() {
        let busy = ServiceError::from(failure(rusqlite::ffi::SQLITE_BUSY)).into_response();
        assert_eq!(busy.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(busy.headers()[header::RETRY_AFTER], "2");
        let full = ServiceError::from(failure(rusqlite::ffi::SQLITE_FULL)).into_response();
        assert_eq!(full.status(), StatusCode::INSUFFICIENT_STORAGE);
        let other = ServiceError::from(failure(rusqlite::ffi::SQLITE_CORRUPT)).into_response();
        assert_eq!(other.status(), StatusCode::INTERNAL_SERVER_ERROR);
        // PostgreSQL down (the trial of stop 33 got a 500 for it).
        let down = ServiceError::from(StoreError::Unreachable("connection refused".into()))
            .into_response();
        assert_eq!(down.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(down.headers()[header::RETRY_AFTER], "5");
        let reconnect = ServiceError::from(StoreError::Open {
            path: "postgres://u:***@h/db".into(),
            reason: "connection refused".into(),
        });
        assert_eq!(reconnect.status, StatusCode::SERVICE_UNAVAILABLE);
        let missing = ServiceError::from(StoreError::NotOnPostgres {
            what: "the visitors count",
        });
        assert_eq!(missing.status, StatusCode::NOT_IMPLEMENTED);
        assert!(
            missing
                .error
                .starts_with("the visitors count does not run on PostgreSQL"),
            "{}",
            missing.error
        );
    }
}
