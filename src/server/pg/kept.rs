//! What an import into PostgreSQL keeps beside its views: the project's visitor secret,
//! where `--follow` stopped in each file, and the site searches read with their clicks,
//! each a single statement, as they are few (the views go by batch, `import.rs`).

use postgres::Transaction;
use postgres::types::ToSql;

use super::import::Prepared;
use crate::server::db::{StoreError, now_ms};
use crate::server::traffic::search::{self, Search};
use crate::server::traffic::store::{self, FileId, Position};

/// Stores `search` unless a search with its key is stored: whether it was added.
pub(super) fn store_search(
    tx: &mut Transaction<'_>,
    statements: &mut Prepared,
    project: &str,
    search: &Search,
) -> Result<bool, StoreError> {
    let statement = statements.get(
        tx,
        "INSERT INTO searches (project, ts_ms, query, key, visitor) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT DO NOTHING",
    )?;
    let added = tx.execute(
        &statement,
        &[
            &project,
            &search.ts_ms,
            &search.query,
            &&search.key[..],
            &search.visitor,
        ],
    )?;
    Ok(added > 0)
}

/// As `search::click`: the visitor's latest search for the words in the hour before gets
/// the page as its result, unless it has one.
pub(super) fn record_click(
    tx: &mut Transaction<'_>,
    statements: &mut Prepared,
    project: &str,
    click: search::Click<'_>,
) -> Result<bool, StoreError> {
    let statement = statements.get(
        tx,
        "UPDATE searches SET clicked = $5
         WHERE id = (SELECT id FROM searches
                     WHERE project = $1 AND visitor = $2 AND query = $3
                       AND ts_ms <= $4 AND ts_ms >= $4 - $6
                     ORDER BY ts_ms DESC, id DESC LIMIT 1)
           AND clicked IS NULL",
    )?;
    let clicked = tx.execute(
        &statement,
        &[
            &project,
            &click.visitor,
            &click.words,
            &click.ts_ms,
            &click.page,
            &search::CLICK_WITHIN_MS,
        ],
    )?;
    Ok(clicked > 0)
}

/// The project's visitor secret (as `traffic::store::visitor_secret` keeps it on SQLite),
/// made by the first importer of the project.
pub fn visitor_secret(
    client: &mut postgres::Client,
    project: &str,
) -> Result<[u8; 32], StoreError> {
    let (name, hex) = store::fresh_secret(project);
    client.execute(
        "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
        &[&name, &hex],
    )?;
    let stored: String = client
        .query_one("SELECT value FROM meta WHERE key = $1", &[&name])?
        .get(0);
    store::secret_of(&name, &stored)
}

fn as_i64(value: u64) -> i64 {
    i64::from_ne_bytes(value.to_ne_bytes())
}

/// Where `--follow` stopped in the file `id`, if it ever read it.
pub fn position(
    tx: &mut Transaction<'_>,
    project: &str,
    id: FileId,
) -> Result<Option<Position>, StoreError> {
    let row = tx.query_opt(
        "SELECT \"offset\", line FROM import_positions
         WHERE project = $1 AND device = $2 AND inode = $3",
        &[&project, &as_i64(id.device), &as_i64(id.inode)],
    )?;
    Ok(row.map(|row| Position {
        offset: u64::try_from(row.get::<_, i64>(0)).unwrap_or(0),
        line: u64::try_from(row.get::<_, i64>(1)).unwrap_or(0),
    }))
}

/// Stores where reading stopped, in the transaction that stores the views read.
pub fn save_position(
    tx: &mut Transaction<'_>,
    project: &str,
    id: FileId,
    path: &str,
    at: Position,
) -> Result<(), StoreError> {
    let params: [&(dyn ToSql + Sync); 7] = [
        &project,
        &as_i64(id.device),
        &as_i64(id.inode),
        &as_i64(at.offset),
        &as_i64(at.line),
        &path,
        &now_ms(),
    ];
    tx.execute(
        "INSERT INTO import_positions (project, device, inode, \"offset\", line, path, updated_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (project, device, inode) DO UPDATE SET
             \"offset\" = excluded.\"offset\", line = excluded.line, path = excluded.path,
             updated_ms = excluded.updated_ms",
        &params,
    )?;
    Ok(())
}
