//! Rate limits counted in PostgreSQL, once for all nodes: each counted use of a project's
//! bucket is a row of `rate_uses`, and a use is counted under a transaction-scoped
//! advisory lock on (project, bucket), so nodes counting at once never let one use too
//! many through. Same rolling window as the in-process limiter (`ratelimit.rs`).

use postgres::Client;

use crate::server::db::StoreError;

/// Counts a use of `project`'s `bucket` at `now_ms` if fewer than `limit` were counted in
/// the `window_ms` before. `Err(ms)`: refused, and how long until the oldest use leaves
/// the window.
pub fn try_use(
    client: &mut Client,
    project: &str,
    bucket: &str,
    limit: u32,
    window_ms: i64,
    now_ms: i64,
) -> Result<Result<(), i64>, StoreError> {
    let mut tx = client.transaction()?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext($1), hashtext($2))",
        &[&project, &bucket],
    )?;
    tx.execute(
        "DELETE FROM rate_uses WHERE project = $1 AND kind = $2 AND at_ms <= $3",
        &[&project, &bucket, &now_ms.saturating_sub(window_ms)],
    )?;
    let row = tx.query_one(
        "SELECT count(*), min(at_ms) FROM rate_uses WHERE project = $1 AND kind = $2",
        &[&project, &bucket],
    )?;
    let (used, oldest): (i64, Option<i64>) = (row.get(0), row.get(1));
    if used >= i64::from(limit) {
        tx.commit()?;
        let oldest = oldest.unwrap_or(now_ms);
        return Ok(Err(oldest.saturating_add(window_ms).saturating_sub(now_ms)));
    }
    tx.execute(
        "INSERT INTO rate_uses (project, kind, at_ms) VALUES ($1, $2, $3)",
        &[&project, &bucket, &now_ms],
    )?;
    tx.commit()?;
    Ok(Ok(()))
}

/// Gives back a use counted at `at_ms` (the call it was for failed).
pub fn release(
    client: &mut Client,
    project: &str,
    bucket: &str,
    at_ms: i64,
) -> Result<(), StoreError> {
    client.execute(
        "DELETE FROM rate_uses WHERE ctid = (SELECT ctid FROM rate_uses
           WHERE project = $1 AND kind = $2 AND at_ms = $3 LIMIT 1)",
        &[&project, &bucket, &at_ms],
    )?;
    Ok(())
}

/// Uses counted in the window ending at `now_ms`, for the `RateLimit-*` headers.
pub fn used(
    client: &mut Client,
    project: &str,
    bucket: &str,
    window_ms: i64,
    now_ms: i64,
) -> Result<i64, StoreError> {
    Ok(client
        .query_one(
            "SELECT count(*) FROM rate_uses WHERE project = $1 AND kind = $2 AND at_ms > $3",
            &[&project, &bucket, &now_ms.saturating_sub(window_ms)],
        )?
        .get(0))
}

/// Uses counted in the window ending at `now_ms`, and when the oldest of them was counted,
/// for the `RateLimit-*` headers.
pub fn usage(
    client: &mut Client,
    project: &str,
    bucket: &str,
    window_ms: i64,
    now_ms: i64,
) -> Result<(i64, Option<i64>), StoreError> {
    let row = client.query_one(
        "SELECT count(*), min(at_ms) FROM rate_uses
         WHERE project = $1 AND kind = $2 AND at_ms > $3",
        &[&project, &bucket, &now_ms.saturating_sub(window_ms)],
    )?;
    Ok((row.get(0), row.get(1)))
}
