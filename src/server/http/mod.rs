//! The local service's HTTP surface: its routes, and the state every handler shares.

mod changes;
mod error;
mod handlers;
mod output;

use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::routing::{get, post};

pub use error::ServiceError;
pub use output::{LOCAL_FIELDS, ServiceJob};

use super::agent::Agent;
use super::db::Db;
use super::gate::SeedGate;
use super::jobs::JobDefaults;
use super::keys::{AuthFailure, KeyRing};
use super::ratelimit::{Bucket, Permit, RateLimiter, retry_after_secs};
use super::worker::Worker;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every request handler needs.
pub struct AppState {
    /// For the `/changes` page of the agent's work.
    pub agent: Arc<dyn Agent>,
    pub db: Db,
    /// Analytics answers wait here while the demo seed's views are written.
    pub seed: SeedGate,
    pub keys: KeyRing,
    pub limiter: RateLimiter,
    pub worker: Worker,
    pub defaults: JobDefaults,
    pub archive_after_ms: i64,
    /// The service's own address, for the links it makes (a turn's output).
    pub service_url: String,
}

impl AppState {
    /// No or malformed header, or an unknown key: 401. A key of another project: 403.
    fn authorize(&self, headers: &HeaderMap, project: &str) -> Result<(), ServiceError> {
        let header = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        self.keys.check(header, project).map_err(|failure| match failure {
            AuthFailure::Malformed => ServiceError::unauthorized(
                "Missing or malformed Authorization header: send Authorization: Bearer <API key>",
            ),
            AuthFailure::Unknown => ServiceError::unauthorized("Invalid API key"),
            AuthFailure::OtherProject => {
                ServiceError::forbidden("This API key does not belong to this project")
            }
        })
    }

    /// Keeps the use of the budget when the call succeeded and gives it back when it was
    /// refused or failed: only calls that did something count.
    fn settle<T>(
        &self,
        permit: Permit,
        result: Result<T, ServiceError>,
    ) -> Result<T, ServiceError> {
        if result.is_err() {
            self.limiter.release(permit);
        }
        result
    }

    fn acquire(&self, project: &str, bucket: Bucket) -> Result<Permit, ServiceError> {
        self.limiter
            .try_acquire(project, bucket, Instant::now())
            .map_err(|wait| {
                let what = match bucket {
                    Bucket::Create => "creating agent jobs",
                    Bucket::Message => "sending messages to agent jobs",
                    Bucket::Analytics => "analytics",
                };
                ServiceError::rate_limited(what, retry_after_secs(wait))
            })
    }
}

/// The routes of the interface, plus `/openapi.json`, with JSON errors everywhere.
pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v2/agent/{project}/job", post(handlers::create_job))
        .route("/v2/agent/{project}/job/{id}", get(handlers::get_job))
        .route(
            "/v2/agent/{project}/job/{id}/message",
            post(handlers::send_message),
        )
        .route("/v1/analytics/{project}/visitors", get(handlers::visitors))
        .route("/openapi.json", get(handlers::openapi))
        .route("/changes/{project}/{id}", get(changes::changes))
        .route("/output/{project}/{id}/{turn}", get(output::output))
        .fallback(handlers::no_route)
        .method_not_allowed_fallback(handlers::wrong_method)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}
