//! The local service's HTTP surface: its routes, and the state every handler shares.

mod changes;
pub mod deadline;
mod error;
mod handlers;
mod limits;
mod output;
mod seed_wait;
mod signals;
mod widget;

use std::net::{IpAddr, Ipv4Addr};
use std::sync::Arc;
use std::time::Instant;

use axum::Router;
use axum::extract::{DefaultBodyLimit, FromRequestParts};
use axum::http::HeaderMap;
use axum::http::header::AUTHORIZATION;
use axum::http::request::Parts;
use axum::routing::{get, post};

pub use error::ServiceError;
pub use output::{LOCAL_FIELDS, ServiceJob};
pub use widget::{PER_ADDRESS_HOURLY as WIDGET_HOURLY, limiter as widget_limiter};

use super::agent::Agent;
use super::db::{ReadKind, now_ms};
use super::gate::SeedGate;
use super::jobs::JobDefaults;
use super::keys::{self, AuthFailure, KeyHasher};
use super::ratelimit::RateLimiter;
use super::store::Store;
use super::throttle::AuthThrottle;
use super::worker::Worker;

/// Largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every request handler needs.
pub struct AppState {
    /// For the `/changes` page of the agent's work.
    pub agent: Arc<dyn Agent>,
    /// SQLite, or PostgreSQL shared with other nodes.
    pub db: Store,
    /// Analytics answers wait here while the demo seed's views are written.
    pub seed: SeedGate,
    pub keys: KeyHasher,
    /// Slows down clients that keep sending wrong keys.
    pub throttle: AuthThrottle,
    /// The limit and its window; the uses are counted here on SQLite only (in the
    /// database on PostgreSQL).
    pub limiter: RateLimiter,
    /// Runs the turns on SQLite; on PostgreSQL the node loop claims them (`None`).
    pub worker: Option<Worker>,
    /// On PostgreSQL: this node's agents running a turn (`None` on SQLite).
    pub node_busy: Option<super::pg::node::Busy>,
    pub defaults: JobDefaults,
    pub archive_after_ms: i64,
    /// Diffs made at once for `/changes`: each holds up to its limit in memory.
    pub diffs: tokio::sync::Semaphore,
    /// With the real agent, the one project whose jobs it runs: a key of another project
    /// in the same database must not make it work on this repository.
    pub agent_project: Option<String>,
    /// The service's own address, for the links it makes (a turn's output).
    pub service_url: String,
    /// Feedback a page widget sends, per project and address.
    pub widget: RateLimiter,
}

/// How many `/changes` diffs are made at once; further requests wait their turn.
pub const PARALLEL_DIFFS: usize = 4;

impl AppState {
    /// No or malformed header, or an unknown or revoked key: 401 (held back past a few a
    /// minute from one address). A key of another project: 403. The key is looked up
    /// in the database at every request, so a revoked key is refused at once.
    async fn authorize(
        &self,
        headers: &HeaderMap,
        client: ClientIp,
        project: &str,
    ) -> Result<(), ServiceError> {
        let header = headers
            .get(AUTHORIZATION)
            .and_then(|value| value.to_str().ok());
        let checked = match keys::bearer(header) {
            Err(failure) => Err(failure),
            Ok(key) => {
                let (hasher, key, owner) = (self.keys.clone(), key.to_owned(), project.to_owned());
                self.db
                    .read_sql(ReadKind::Quick, move |sql| {
                        hasher.check(sql, &key, &owner, now_ms())
                    })
                    .await?
            }
        };
        let failure = match checked {
            Ok(accepted) => {
                if accepted.needs_touch {
                    let db = self.db.clone();
                    tokio::spawn(async move {
                        let touched = db
                            .write(move |sql| keys::touch(sql, accepted.id, now_ms()))
                            .await;
                        if let Err(err) = touched {
                            tracing::info!("cannot note when a key was last used: {err}");
                        }
                    });
                }
                return Ok(());
            }
            Err(AuthFailure::OtherProject) => {
                return Err(ServiceError::forbidden(
                    "This API key does not belong to this project",
                ));
            }
            Err(failure) => failure,
        };
        if self.throttle.failed(client.0, Instant::now()) {
            tokio::time::sleep(self.throttle.penalty).await;
        }
        Err(match failure {
            AuthFailure::Malformed => ServiceError::unauthorized(
                "Missing or malformed Authorization header: send Authorization: Bearer <API key>",
            ),
            AuthFailure::Revoked => ServiceError::unauthorized("This API key was revoked"),
            AuthFailure::Unknown | AuthFailure::OtherProject => {
                ServiceError::unauthorized("Invalid API key")
            }
        })
    }

    /// 403 when the real agent runs here for another project than `project`.
    fn may_run_agent(&self, project: &str) -> Result<(), ServiceError> {
        match &self.agent_project {
            Some(only) if only != project => Err(ServiceError::forbidden(
                "This service runs its agent for another project only: jobs of this project cannot be started or followed up here",
            )),
            _ => Ok(()),
        }
    }
}

/// Every answer says its content type is meant: a browser never guesses HTML (and runs
/// it) from a diff or an error that an agent or a client wrote.
async fn no_sniffing(mut response: axum::response::Response) -> axum::response::Response {
    response.headers_mut().insert(
        axum::http::header::X_CONTENT_TYPE_OPTIONS,
        axum::http::HeaderValue::from_static("nosniff"),
    );
    response
}

/// The address a request came from, as the connection loop notes it (unspecified when a
/// request did not come through it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ClientIp(pub IpAddr);

impl<S: Send + Sync> FromRequestParts<S> for ClientIp {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<Self>()
            .copied()
            .unwrap_or(Self(IpAddr::V4(Ipv4Addr::UNSPECIFIED))))
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
        .route("/v1/analytics/{project}/searches", get(signals::searches))
        .route("/v1/analytics/{project}/feedback", get(signals::feedback))
        .route(
            "/v1/analytics/{project}/feedback/by-page",
            get(signals::feedback_by_page),
        )
        .route("/v1/analytics/{project}/assistant", get(signals::assistant))
        .route(
            "/v1/feedback/{project}",
            post(widget::send).options(widget::preflight),
        )
        .route("/openapi.json", get(handlers::openapi))
        .route("/changes/{project}/{id}", get(changes::changes))
        .route("/output/{project}/{id}/{turn}", get(output::output))
        .fallback(handlers::no_route)
        .method_not_allowed_fallback(handlers::wrong_method)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::map_response(no_sniffing))
        .with_state(state)
}
