//! Analytics answers wait for the demo seed's views, whichever node writes them. The node
//! that seeds waits at its own gate (`gate.rs`); on PostgreSQL another node may be writing
//! them (a node starting beside it stops at the first day the other wrote, and one started
//! with `--seed none` never knew), so the seed's pending marker is read from the database:
//! while it is there the request waits, and past a few seconds it is told to retry, never
//! answered with a count over part of the views.

use std::time::Duration;

use super::{AppState, ServiceError};
use crate::server::seed::pending_marker;
use crate::server::store::Store;

/// How long a request waits for views another node is writing before it is told to retry.
pub(super) const ELSEWHERE_WAIT: Duration = Duration::from_secs(5);
/// How often the marker is read again while waiting.
const POLL: Duration = Duration::from_millis(100);
/// What `Retry-After` says when the wait ran out.
const RETRY_SECS: u64 = 2;

/// Waits until the demo seed's views of `project` are all written, by this node or
/// another; a 503 with `Retry-After` when another node is still writing them after
/// [`ELSEWHERE_WAIT`].
pub(super) async fn seed_written(state: &AppState, project: &str) -> Result<(), ServiceError> {
    state.seed.wait().await.map_err(|reason| {
        ServiceError::internal(&format!("the demo data could not be written: {reason}"))
    })?;
    let Store::Postgres(pg) = &state.db else {
        // SQLite has one node: its own gate is the whole truth.
        return Ok(());
    };
    let started = tokio::time::Instant::now();
    loop {
        let marker = pending_marker(project);
        let pending = pg
            .call(move |client| {
                Ok(client
                    .query_opt("SELECT 1 FROM meta WHERE key = $1", &[&marker])?
                    .is_some())
            })
            .await?;
        if !pending {
            return Ok(());
        }
        if started.elapsed() >= ELSEWHERE_WAIT {
            return Err(ServiceError::unavailable(
                format!(
                    "The demo data of project {project} is still being written by another docdeck serve node; its visitors are counted once all of it is written: retry after {RETRY_SECS} seconds (if no node is writing it, one stopped while seeding: start a node with --seed demo to finish it)"
                ),
                RETRY_SECS,
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}
