//! Views of an import on their way into the database, a batch at a time: one multi-row
//! statement claims their keys and another stores those whose key was new.

use std::sync::Arc;

use rusqlite::{ToSql, Transaction};

use super::known::{Ids, Visitor};
use super::summary::{Dropped, Summary};
use crate::server::analytics::{
    BATCH, Traffic, ViewRow, repeated, sizes, store_rows, with_statement,
};
use crate::server::db::StoreError;

/// A view as the reading of a line makes it, before it has ids of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    pub key: [u8; 16],
    pub ts_ms: i64,
    pub path: Arc<str>,
    pub visitor: Visitor,
    pub traffic: Traffic,
}

/// A view ready to store: its key and the ids it refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Pending {
    key: [u8; 16],
    ts_ms: i64,
    page: i64,
    visitor: i64,
    traffic: Traffic,
}

/// What a flush did: views stored by class, and repeats of views stored before.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stored {
    pub human: u64,
    pub ai: u64,
    pub repeats: u64,
    /// The times of the first and last view stored (ms).
    pub span: Option<(i64, i64)>,
}

impl Stored {
    /// Adds these counts to an import's summary.
    pub fn count(self, summary: &mut Summary) {
        summary.human += self.human;
        summary.ai += self.ai;
        if let Some((first, last)) = self.span {
            summary.saw(first);
            summary.saw(last);
        }
        if self.repeats > 0 {
            *summary.dropped.entry(Dropped::AlreadyStored).or_default() += self.repeats;
        }
    }
}

/// Writes views in the caller's transaction, a batch at a time, giving them the ids of
/// their page and visitor.
pub struct Writer {
    project: String,
    ids: Ids,
    pending: Vec<Pending>,
}

impl Writer {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            project: project.to_owned(),
            ids: Ids::new(),
            pending: Vec::with_capacity(BATCH),
        }
    }

    /// Queues a view, and writes the batch when it is full.
    pub fn write(&mut self, tx: &Transaction<'_>, view: Ready) -> Result<Stored, StoreError> {
        let page = self.ids.page(tx, &self.project, &view.path)?;
        let visitor = self.ids.visitor(tx, &self.project, &view.visitor)?;
        self.pending.push(Pending {
            key: view.key,
            ts_ms: view.ts_ms,
            page,
            visitor,
            traffic: view.traffic,
        });
        if self.pending.len() >= BATCH {
            self.flush(tx)
        } else {
            Ok(Stored::default())
        }
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
        let rows: Vec<ViewRow> = new
            .iter()
            .map(|view| ViewRow {
                ts_ms: view.ts_ms,
                page: view.page,
                visitor: view.visitor,
                ai: view.traffic == Traffic::Ai,
            })
            .collect();
        store_rows(tx, &self.project, &rows)?;
        for view in &new {
            stored.span = Some(match stored.span {
                None => (view.ts_ms, view.ts_ms),
                Some((first, last)) => (first.min(view.ts_ms), last.max(view.ts_ms)),
            });
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
    if views.len() == BATCH && all_new(tx, views)? {
        return Ok(views.iter().map(|view| view.key).collect());
    }
    let mut added = Vec::with_capacity(views.len());
    for chunk in sizes(views) {
        added.extend(claim_some(tx, chunk)?);
    }
    Ok(added)
}

/// The common case of a first import: every key of a full batch is new. One insert
/// without `RETURNING` (which SQLite carries out through a temporary table) claims them
/// all; if it added fewer than all, it is undone and the keys are claimed the slow way.
fn all_new(tx: &Transaction<'_>, views: &[Pending]) -> Result<bool, StoreError> {
    let sql = format!(
        "INSERT INTO view_keys (key) VALUES {} ON CONFLICT (key) DO NOTHING",
        repeated(views.len(), "(?)")
    );
    let keys: Vec<&[u8]> = views.iter().map(|view| &view.key[..]).collect();
    let params: Vec<&dyn ToSql> = keys.iter().map(|key| key as &dyn ToSql).collect();
    tx.prepare_cached("SAVEPOINT claim")?.execute([])?;
    let added = with_statement(tx, &sql, views.len(), |statement| {
        statement.execute(params.as_slice())
    })?;
    if added == views.len() {
        tx.prepare_cached("RELEASE claim")?.execute([])?;
        return Ok(true);
    }
    tx.prepare_cached("ROLLBACK TO claim")?.execute([])?;
    tx.prepare_cached("RELEASE claim")?.execute([])?;
    Ok(false)
}

fn claim_some(tx: &Transaction<'_>, views: &[Pending]) -> Result<Vec<[u8; 16]>, StoreError> {
    let sql = format!(
        "INSERT INTO view_keys (key) VALUES {} ON CONFLICT (key) DO NOTHING RETURNING key",
        repeated(views.len(), "(?)")
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
