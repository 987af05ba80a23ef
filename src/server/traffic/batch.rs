//! Views of an import on their way into the database, a batch at a time: one multi-row
//! statement claims their keys and another stores those whose key was new.

use rusqlite::{ToSql, Transaction};

use crate::server::analytics::{BATCH, Traffic, ViewRow, repeated, store_rows, with_statement};
use crate::server::db::StoreError;

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
