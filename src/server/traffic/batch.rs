//! Views on their way into the database, written a few hundred at a time: one multi-row
//! statement claims their keys and another stores those whose key was new. One statement
//! per view was most of an import's time (BENCHMARKS.md).

use rusqlite::{Statement, ToSql, Transaction};

use crate::server::analytics::Traffic;
use crate::server::db::StoreError;

/// Views per statement. Each costs five parameters at most, far below SQLite's limit.
pub const BATCH: usize = 256;

/// A view ready to store: its key and the ids it refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending {
    pub key: [u8; 16],
    pub ts_ms: i64,
    pub page: i64,
    pub visitor: i64,
    pub traffic: Traffic,
}

/// What a flush did: views stored by class, and repeats of views stored before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stored {
    pub human: u64,
    pub ai: u64,
    pub repeats: u64,
}

/// Views waiting to be written, in the caller's transaction.
#[derive(Debug)]
pub struct Batch {
    project: String,
    pending: Vec<Pending>,
}

impl Batch {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            project: project.to_owned(),
            pending: Vec::with_capacity(BATCH),
        }
    }

    /// Whether a full batch is waiting (the caller then flushes).
    #[must_use]
    pub fn push(&mut self, view: Pending) -> bool {
        self.pending.push(view);
        self.pending.len() >= BATCH
    }

    /// Writes what is waiting. A key seen before (in the database, or earlier in this
    /// batch) is a repeat and its view is not stored.
    pub fn flush(&mut self, tx: &Transaction<'_>) -> Result<Stored, StoreError> {
        let mut stored = Stored::default();
        if self.pending.is_empty() {
            return Ok(stored);
        }
        let mut added = claim_keys(tx, &self.pending)?;
        added.sort_unstable();
        // Each added key stands for one view: a second view with the same key in this
        // batch is a repeat, like one stored before.
        let mut used = vec![false; added.len()];
        let mut new = Vec::with_capacity(self.pending.len());
        for view in self.pending.drain(..) {
            match added.binary_search(&view.key) {
                Ok(at) if !used[at] => {
                    used[at] = true;
                    new.push(view);
                }
                _ => stored.repeats += 1,
            }
        }
        store_views(tx, &self.project, &new)?;
        for view in &new {
            match view.traffic {
                Traffic::Human => stored.human += 1,
                Traffic::Ai => stored.ai += 1,
            }
        }
        Ok(stored)
    }
}

/// Inserts the keys, and returns those that were not there before.
fn claim_keys(tx: &Transaction<'_>, views: &[Pending]) -> Result<Vec<[u8; 16]>, StoreError> {
    let sql = format!(
        "INSERT INTO view_keys (key) VALUES {} ON CONFLICT (key) DO NOTHING RETURNING key",
        rows(views.len(), "(?)")
    );
    let keys: Vec<&[u8]> = views.iter().map(|view| &view.key[..]).collect();
    let params: Vec<&dyn ToSql> = keys.iter().map(|key| key as &dyn ToSql).collect();
    with_statement(tx, &sql, views.len(), |statement| {
        let mut rows = statement.query(params.as_slice())?;
        let mut added = Vec::with_capacity(views.len());
        while let Some(row) = rows.next()? {
            if let Ok(key) = <[u8; 16]>::try_from(row.get_ref(0)?.as_blob()?) {
                added.push(key);
            }
        }
        Ok(added)
    })
}

fn store_views(tx: &Transaction<'_>, project: &str, views: &[Pending]) -> Result<(), StoreError> {
    if views.is_empty() {
        return Ok(());
    }
    let sql = format!(
        "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai) VALUES {}",
        rows(views.len(), "(?1, ?, ?, ?, ?)")
    );
    let ai: Vec<bool> = views.iter().map(|v| v.traffic == Traffic::Ai).collect();
    let mut params: Vec<&dyn ToSql> = Vec::with_capacity(1 + 4 * views.len());
    params.push(&project);
    for (view, ai) in views.iter().zip(&ai) {
        params.extend([&view.ts_ms as &dyn ToSql, &view.page, &view.visitor, ai]);
    }
    with_statement(tx, &sql, views.len(), |statement| {
        statement.execute(params.as_slice())?;
        Ok(())
    })
}

/// Runs `work` on the statement `sql` of `n` rows: kept prepared when it is a full batch,
/// the size of nearly every statement; prepared once for the rest, which would otherwise
/// push the service's own statements out of the connection's cache.
fn with_statement<T>(
    tx: &Transaction<'_>,
    sql: &str,
    n: usize,
    work: impl FnOnce(&mut Statement<'_>) -> rusqlite::Result<T>,
) -> Result<T, StoreError> {
    if n == BATCH {
        Ok(work(&mut *tx.prepare_cached(sql)?)?)
    } else {
        Ok(work(&mut tx.prepare(sql)?)?)
    }
}

/// `(?), (?), ...`: `n` copies of `row`.
fn rows(n: usize, row: &str) -> String {
    let mut out = String::with_capacity(n * (row.len() + 2));
    for i in 0..n {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(row);
    }
    out
}
