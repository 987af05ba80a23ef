//! Writing views: their pages and visitors as ids of lookup tables, the views themselves
//! a few hundred per statement (one statement per view was most of an import's time).

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension as _, Statement, ToSql, params};

use super::{Traffic, ViewEvent};
use crate::server::db::StoreError;

/// Views per statement: five parameters at most each, far below SQLite's limit.
pub const BATCH: usize = 256;

/// A view as stored: ids instead of texts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ViewRow {
    pub ts_ms: i64,
    pub page: i64,
    pub visitor: i64,
    pub ai: bool,
}

/// Appends views inside the caller's transaction, so an import is all or nothing.
pub fn insert_views(
    tx: &Connection,
    project: &str,
    events: &[ViewEvent],
) -> Result<(), StoreError> {
    let mut writer = ViewWriter::new(project);
    events
        .iter()
        .try_for_each(|event| writer.write(tx, event))?;
    writer.finish(tx)
}

/// Writes views a batch at a time, remembering the ids of pages and visitors already seen,
/// so large imports stream instead of being held in memory. Call [`ViewWriter::finish`]
/// before committing.
pub struct ViewWriter {
    project: String,
    pages: Interner,
    visitors: Interner,
    rows: Vec<ViewRow>,
}

impl ViewWriter {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            project: project.to_owned(),
            pages: Interner::new(Lookup::Pages),
            visitors: Interner::new(Lookup::Visitors),
            rows: Vec::with_capacity(BATCH),
        }
    }

    /// Stores one view inside the caller's transaction (with others, a batch at a time).
    pub fn write(&mut self, tx: &Connection, event: &ViewEvent) -> Result<(), StoreError> {
        let page = self.pages.id(tx, &self.project, &event.path)?;
        let visitor = self.visitors.id(tx, &self.project, &event.visitor)?;
        self.rows.push(ViewRow {
            ts_ms: event.ts_ms,
            page,
            visitor,
            ai: event.traffic == Traffic::Ai,
        });
        if self.rows.len() >= BATCH {
            self.finish(tx)?;
        }
        Ok(())
    }

    /// Stores the views still waiting.
    pub fn finish(&mut self, tx: &Connection) -> Result<(), StoreError> {
        store_rows(tx, &self.project, &self.rows)?;
        self.rows.clear();
        Ok(())
    }
}

/// How many ids an `Interner` remembers before it starts again.
const INTERNED_MAX: usize = 100_000;

/// Maps strings to integer ids of a lookup table, remembering those already seen.
struct Interner {
    table: Lookup,
    known: HashMap<String, i64>,
}

impl Interner {
    fn new(table: Lookup) -> Self {
        Self {
            table,
            known: HashMap::new(),
        }
    }

    fn id(&mut self, tx: &Connection, project: &str, value: &str) -> Result<i64, StoreError> {
        if let Some(id) = self.known.get(value) {
            return Ok(*id);
        }
        // A follower runs for days: what it remembers stays bounded (ids are asked again).
        if self.known.len() >= INTERNED_MAX {
            self.known.clear();
        }
        let id = intern(tx, self.table, project, value)?;
        self.known.insert(value.to_owned(), id);
        Ok(id)
    }
}

/// A lookup table that views refer to by id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lookup {
    Pages,
    Visitors,
}

/// The id of `value` in a lookup table of `project`, adding it if it is new. A value
/// already there is only read, not written again.
pub fn intern(
    conn: &Connection,
    table: Lookup,
    project: &str,
    value: &str,
) -> Result<i64, StoreError> {
    let (insert, select) = match table {
        Lookup::Pages => (
            "INSERT INTO pages (project, path) VALUES (?1, ?2)
             ON CONFLICT (project, path) DO NOTHING RETURNING id",
            "SELECT id FROM pages WHERE project = ?1 AND path = ?2",
        ),
        Lookup::Visitors => (
            "INSERT INTO visitors (project, visitor) VALUES (?1, ?2)
             ON CONFLICT (project, visitor) DO NOTHING RETURNING id",
            "SELECT id FROM visitors WHERE project = ?1 AND visitor = ?2",
        ),
    };
    let added = conn
        .prepare_cached(insert)?
        .query_row(params![project, value], |row| row.get(0))
        .optional()?;
    match added {
        Some(id) => Ok(id),
        None => Ok(conn
            .prepare_cached(select)?
            .query_row(params![project, value], |row| row.get(0))?),
    }
}

/// Appends `rows` to the views of `project` in as few statements as it takes.
pub fn store_rows(tx: &Connection, project: &str, rows: &[ViewRow]) -> Result<(), StoreError> {
    for chunk in sizes(rows) {
        let sql = format!(
            "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai) VALUES {}",
            repeated(chunk.len(), "(?1, ?, ?, ?, ?)")
        );
        let mut params: Vec<&dyn ToSql> = Vec::with_capacity(1 + 4 * chunk.len());
        params.push(&project);
        for row in chunk {
            params.extend([&row.ts_ms as &dyn ToSql, &row.page, &row.visitor, &row.ai]);
        }
        with_statement(tx, &sql, chunk.len(), |statement| {
            statement.execute(params.as_slice())?;
            Ok(())
        })?;
    }
    Ok(())
}

/// Runs `work` on the statement `sql` of `n` rows, kept prepared. Callers use two sizes
/// only, [`BATCH`] and 1 (see [`sizes`]): a statement of any other size would be parsed
/// again at every commit (ten a second when following a log), or push the service's own
/// statements out of the connection's cache.
pub(crate) fn with_statement<T>(
    tx: &Connection,
    sql: &str,
    n: usize,
    work: impl FnOnce(&mut Statement<'_>) -> rusqlite::Result<T>,
) -> Result<T, StoreError> {
    debug_assert!(n == BATCH || n == 1, "{n} rows");
    Ok(work(&mut *tx.prepare_cached(sql)?)?)
}

/// `items` in chunks of [`BATCH`], and what is left one at a time.
pub(crate) fn sizes<T>(items: &[T]) -> impl Iterator<Item = &[T]> {
    let whole = items.len() / BATCH * BATCH;
    items[..whole].chunks(BATCH).chain(items[whole..].chunks(1))
}

/// `row, row, ...`: `n` copies of `row`, for a multi-row statement.
pub(crate) fn repeated(n: usize, row: &str) -> String {
    let mut out = String::with_capacity(n * (row.len() + 2));
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(row);
    }
    out
}
