//! The rate limits as handlers spend them: in this process on SQLite (one node), in the
//! database on PostgreSQL (`rate_uses`), so that every node sharing it counts the same
//! hour once.

use std::time::{Duration, Instant};

use axum::http::{HeaderName, HeaderValue};

use super::{AppState, ServiceError, error};
use crate::server::db::now_ms;
use crate::server::pg::limits as shared;
use crate::server::ratelimit::{Bucket, Permit, Usage, retry_after_secs};
use crate::server::store::Store;

/// A use that was counted; given back when the call it was for failed.
pub enum Spent {
    Local(Permit),
    Shared {
        project: String,
        bucket: Bucket,
        at_ms: i64,
    },
}

/// How a bucket is named in `rate_uses`.
fn kind(bucket: Bucket) -> &'static str {
    match bucket {
        Bucket::Create => "create",
        Bucket::Message => "message",
        Bucket::Analytics => "analytics",
        Bucket::Feedback => "feedback",
    }
}

fn what(bucket: Bucket) -> &'static str {
    match bucket {
        Bucket::Create => "creating agent jobs",
        Bucket::Message => "sending messages to agent jobs",
        Bucket::Analytics => "analytics",
        Bucket::Feedback => "feedback",
    }
}

impl AppState {
    fn window_ms(&self) -> i64 {
        i64::try_from(self.limiter.window().as_millis()).unwrap_or(i64::MAX)
    }

    /// Counts a use of `bucket`, or refuses with 429 and when to retry.
    pub(super) async fn acquire(
        &self,
        project: &str,
        bucket: Bucket,
    ) -> Result<Spent, ServiceError> {
        let limit = self.limiter.limit();
        let refused = |wait: Duration| {
            ServiceError::rate_limited(what(bucket), limit, retry_after_secs(wait))
        };
        match &self.db {
            Store::Sqlite(_) => self
                .limiter
                .try_acquire(project, bucket, Instant::now())
                .map(Spent::Local)
                .map_err(refused),
            Store::Postgres(pg) => {
                let (owner, window) = (project.to_owned(), self.window_ms());
                let at_ms = now_ms();
                let counted = pg
                    .call(move |c| shared::try_use(c, &owner, kind(bucket), limit, window, at_ms))
                    .await?;
                match counted {
                    Ok(()) => Ok(Spent::Shared {
                        project: project.to_owned(),
                        bucket,
                        at_ms,
                    }),
                    Err(wait_ms) => Err(refused(Duration::from_millis(
                        u64::try_from(wait_ms).unwrap_or(0),
                    ))),
                }
            }
        }
    }

    /// Keeps the use when the call succeeded and gives it back when it was refused or
    /// failed: only calls that did something count.
    pub(super) async fn settle<T>(
        &self,
        spent: Spent,
        result: Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        if result.is_err() {
            match (spent, &self.db) {
                (Spent::Local(permit), _) => self.limiter.release(permit),
                (Spent::Shared { .. }, Store::Sqlite(_)) => {}
                (
                    Spent::Shared {
                        project,
                        bucket,
                        at_ms,
                    },
                    Store::Postgres(pg),
                ) => {
                    let given = pg
                        .call(move |c| shared::release(c, &project, kind(bucket), at_ms))
                        .await;
                    if let Err(err) = given {
                        tracing::warn!("cannot give back a rate-limited use: {err}");
                    }
                }
            }
        }
        result
    }

    /// The `RateLimit-*` headers of `bucket` for `project`, after this call's use.
    pub(super) async fn limits(
        &self,
        project: &str,
        bucket: Bucket,
    ) -> [(HeaderName, HeaderValue); 3] {
        let usage = match &self.db {
            Store::Sqlite(_) => self.limiter.usage(project, bucket, Instant::now()),
            Store::Postgres(pg) => {
                let (owner, window, now) = (project.to_owned(), self.window_ms(), now_ms());
                let limit = self.limiter.limit();
                match pg
                    .call(move |c| shared::usage(c, &owner, kind(bucket), window, now))
                    .await
                {
                    Ok((used, oldest)) => Usage {
                        limit,
                        remaining: u32::try_from(i64::from(limit).saturating_sub(used).max(0))
                            .unwrap_or(0),
                        reset_secs: oldest.map_or(0, |oldest| {
                            let wait = oldest.saturating_add(window).saturating_sub(now);
                            retry_after_secs(Duration::from_millis(
                                u64::try_from(wait).unwrap_or(0),
                            ))
                        }),
                    },
                    Err(err) => {
                        tracing::warn!("cannot read a rate limit's uses: {err}");
                        Usage {
                            limit,
                            remaining: 0,
                            reset_secs: 0,
                        }
                    }
                }
            }
        };
        error::rate_limit_headers(usage)
    }
}
