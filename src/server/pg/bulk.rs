//! Views written to PostgreSQL in bulk: `COPY` into a staging table, then pages, visitors,
//! keys and views each in one statement. The re-import rule holds as on SQLite: a view
//! whose key is stored already is not stored again, within one batch or across batches
//! and importers (`ON CONFLICT DO NOTHING` on the key decides, atomically); one stored in
//! the other column (human, AI) is moved to the column its latest import gives.

use std::io::Write as _;

use postgres::Client;

use crate::server::db::StoreError;
use crate::server::views::{Traffic, ViewEvent};

/// What a batch did: views stored, and views whose key was stored already.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Written {
    pub stored: u64,
    pub known: u64,
}

fn io_failed(err: &std::io::Error) -> StoreError {
    StoreError::Postgres(format!("cannot send views to PostgreSQL: {err}"))
}

/// Stores `views` of `project`, each with its key (`traffic::store::view_key`), in one
/// transaction.
pub fn copy_views(
    client: &mut Client,
    project: &str,
    views: &[([u8; 16], ViewEvent)],
) -> Result<Written, StoreError> {
    let mut tx = client.transaction()?;
    tx.batch_execute(
        "CREATE TEMP TABLE staging (n BIGINT, key BYTEA, ts_ms BIGINT, path TEXT, visitor TEXT,
                                    ai SMALLINT)
         ON COMMIT DROP",
    )?;
    {
        let writer = tx.copy_in("COPY staging FROM STDIN (FORMAT csv)")?;
        let mut csv = csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(std::io::BufWriter::with_capacity(1 << 16, writer));
        let mut hex = String::with_capacity(34);
        for (n, (key, view)) in views.iter().enumerate() {
            hex.clear();
            hex.push_str("\\x");
            for byte in key {
                hex.push_str(&format!("{byte:02x}"));
            }
            let ai = match view.traffic {
                Traffic::Human => "0",
                Traffic::Ai => "1",
            };
            csv.write_record([
                n.to_string().as_str(),
                hex.as_str(),
                &view.ts_ms.to_string(),
                &view.path,
                &view.visitor,
                ai,
            ])
            .map_err(|err| {
                StoreError::Postgres(format!("cannot send views to PostgreSQL: {err}"))
            })?;
        }
        let buffered = csv.into_inner().map_err(|err| io_failed(err.error()))?;
        let mut writer = buffered
            .into_inner()
            .map_err(|err| io_failed(err.error()))?;
        writer.flush().map_err(|err| io_failed(&err))?;
        writer.finish()?;
    }
    // A key given twice counts as its last view says, as the SQLite store recounts a
    // repeat in the column the rules in force give.
    tx.batch_execute(
        "CREATE TEMP TABLE batch ON COMMIT DROP AS
         SELECT DISTINCT ON (key) key, ts_ms, path, visitor, ai FROM staging
         ORDER BY key, n DESC",
    )?;
    tx.execute(
        "INSERT INTO pages (project, path) SELECT DISTINCT $1::text, path FROM batch
         ON CONFLICT (project, path) DO NOTHING",
        &[&project],
    )?;
    tx.execute(
        "INSERT INTO visitors (project, visitor) SELECT DISTINCT $1::text, visitor FROM batch
         ON CONFLICT (project, visitor) DO NOTHING",
        &[&project],
    )?;
    // Stored before in the other column: moved (a key kept without its column, by an
    // older docdeck, is left as it is).
    tx.execute(
        "WITH moved AS (
           UPDATE view_keys k SET counted = b.ai + 1 FROM batch b
           WHERE k.key = b.key AND k.counted IS NOT NULL AND k.counted <> b.ai + 1
           RETURNING b.ts_ms, b.path, b.visitor, b.ai)
         UPDATE views SET ai = m.ai
         FROM moved m JOIN pages p ON p.project = $1 AND p.path = m.path
         JOIN visitors v ON v.project = $1 AND v.visitor = m.visitor
         WHERE views.ctid = (SELECT w.ctid FROM views w
                             WHERE w.project = $1 AND w.ts_ms = m.ts_ms AND w.page_id = p.id
                               AND w.visitor_id = v.id AND w.ai = 1 - m.ai
                             LIMIT 1)",
        &[&project],
    )?;
    let stored = tx.execute(
        "WITH fresh AS (INSERT INTO view_keys (key, counted) SELECT key, ai + 1 FROM batch
                        ON CONFLICT (key) DO NOTHING RETURNING key)
         INSERT INTO views (project, ts_ms, page_id, visitor_id, ai)
         SELECT $1, b.ts_ms, p.id, v.id, b.ai
         FROM batch b JOIN fresh f ON f.key = b.key
         JOIN pages p ON p.project = $1 AND p.path = b.path
         JOIN visitors v ON v.project = $1 AND v.visitor = b.visitor",
        &[&project],
    )?;
    tx.commit()?;
    let total = u64::try_from(views.len()).unwrap_or(u64::MAX);
    Ok(Written {
        stored,
        known: total.saturating_sub(stored),
    })
}
