//! Views of an import on their way into the database, a batch at a time: one multi-row
//! statement claims their keys and another stores those whose key was new. Each key keeps
//! the column its view was counted in, so an import of the same lines under other rules
//! recounts them: a view whose class changed is moved to its new column, or taken back
//! when it now counts in neither (nothing is added twice).

use std::sync::Arc;

use std::collections::HashMap;

use rusqlite::{Connection, OptionalExtension as _, ToSql, params};

use super::known::{Ids, Visitor};
use super::search::{self, Search, StreamClick};
use super::summary::{Counts, Dropped, Summary};
use crate::server::db::StoreError;
use crate::server::signals::{NewConversation, NewFeedback, import_said};
use crate::server::store::{Lite, Sql};
use crate::server::views::{BATCH, Traffic, ViewRow, repeated, sizes, store_rows, with_statement};

/// A view as the reading of a line makes it, before it has ids of the database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ready {
    pub key: [u8; 16],
    pub ts_ms: i64,
    pub path: Arc<str>,
    pub visitor: Visitor,
    /// The column it counts in; `None` when the rules in force count it in neither (a
    /// crawler's page view), so that a count of it under other rules is taken back.
    pub traffic: Option<Traffic>,
    /// The words of the site search this view's page was opened from (its referer).
    pub from_search: Option<Box<str>>,
}

impl Ready {
    /// Records this view with `record` as the result clicked after the visitor's site
    /// search, when it is one (a counted view opened from a search): 1 if recorded, else 0.
    pub fn record_click(
        &self,
        record: impl FnOnce(search::Click<'_>) -> Result<bool, StoreError>,
    ) -> Result<u64, StoreError> {
        let (Some(words), Some(_)) = (&self.from_search, self.traffic) else {
            return Ok(0);
        };
        let visitor = self.visitor.name();
        let click = search::Click {
            visitor: visitor.as_str(),
            ts_ms: self.ts_ms,
            words,
            page: &self.path,
        };
        Ok(u64::from(record(click)?))
    }
}

/// What one line of a log gives to write: a page view, a search of the site, or from an
/// event stream a result clicked after a search, a page's feedback or an assistant's
/// answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    View(Ready),
    Search(Search),
    Click(StreamClick),
    Feedback(Box<Keyed<NewFeedback>>),
    /// An answer, and whether its event said if the docs answered (stored as answered
    /// when not, and counted).
    Conversation {
        keyed: Box<Keyed<NewConversation>>,
        status_said: bool,
    },
}

/// Something said, with the key that keeps a second import of it from adding it again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Keyed<T> {
    pub key: [u8; 16],
    pub said: T,
}

impl Item {
    /// Stores feedback or an answer in either store; `None` for the other items, which
    /// each store writes its own way.
    pub fn store_said(
        &self,
        sql: &mut dyn Sql,
        project: &str,
    ) -> Option<Result<Stored, StoreError>> {
        let stored = match self {
            Self::Feedback(keyed) => {
                import_said(sql, project, &keyed.key, &keyed.said).map(|added| {
                    Stored::of(Counts {
                        feedback: u64::from(added),
                        feedback_known: u64::from(!added),
                        ..Counts::default()
                    })
                })
            }
            Self::Conversation { keyed, status_said } => {
                import_said(sql, project, &keyed.key, &keyed.said).map(|added| {
                    Stored::of(Counts {
                        conversations: u64::from(added),
                        conversations_known: u64::from(!added),
                        conversations_unsaid: u64::from(added && !status_said),
                        ..Counts::default()
                    })
                })
            }
            Self::View(_) | Self::Search(_) | Self::Click(_) => return None,
        };
        Some(stored)
    }
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

/// What one write of the database did (a flush, a search, a click, feedback or an
/// answer): what it stored, counted as the import's summary counts it, and the repeats of
/// views stored before (not stored again).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stored {
    pub counts: Counts,
    pub repeats: u64,
}

impl Stored {
    #[must_use]
    pub fn of(counts: Counts) -> Self {
        Self { counts, repeats: 0 }
    }

    /// What storing a site search did: one stored, or one an earlier import stored.
    #[must_use]
    pub fn of_search(added: bool) -> Self {
        Self::of(Counts {
            searches: u64::from(added),
            searches_known: u64::from(!added),
            ..Counts::default()
        })
    }

    /// What recording a stream's result click did: one click, or one that matched no
    /// search.
    #[must_use]
    pub fn of_click(clicked: bool) -> Self {
        Self::of(Counts {
            clicks: u64::from(clicked),
            clicks_unmatched: u64::from(!clicked),
            ..Counts::default()
        })
    }

    /// Adds these counts to an import's summary.
    pub fn count(self, summary: &mut Summary) {
        summary.counts.add(&self.counts);
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
    /// Views counted in neither column, to take back if an earlier import counted them.
    uncounted: Vec<Ready>,
}

impl Writer {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            project: project.to_owned(),
            ids: Ids::new(),
            pending: Vec::with_capacity(BATCH),
            uncounted: Vec::new(),
        }
    }

    /// Writes a line's item: a search at once (they are few, and a click later in the same
    /// batch refers to it), a view queued, with the click it records.
    pub fn take(&mut self, tx: &Connection, item: Item) -> Result<Stored, StoreError> {
        match item {
            Item::Search(found) => Ok(Stored::of_search(search::store(tx, &self.project, &found)?)),
            Item::View(view) => {
                let clicks = view.record_click(|click| search::click(tx, &self.project, click))?;
                let mut stored = self.write(tx, view)?;
                stored.counts.clicks += clicks;
                Ok(stored)
            }
            Item::Click(found) => Ok(Stored::of_click(search::click(
                tx,
                &self.project,
                found.click(),
            )?)),
            said => said
                .store_said(&mut Lite(tx), &self.project)
                .unwrap_or_else(|| Ok(Stored::default())),
        }
    }

    /// Queues a view, and writes the batch when it is full.
    pub fn write(&mut self, tx: &Connection, view: Ready) -> Result<Stored, StoreError> {
        let Some(traffic) = view.traffic else {
            self.uncounted.push(view);
            return if self.uncounted.len() >= BATCH {
                self.take_back(tx)
            } else {
                Ok(Stored::default())
            };
        };
        let page = self.ids.page(tx, &self.project, &view.path)?;
        let visitor = self.ids.visitor(tx, &self.project, &view.visitor)?;
        self.pending.push(Pending {
            key: view.key,
            ts_ms: view.ts_ms,
            page,
            visitor,
            traffic,
        });
        if self.pending.len() >= BATCH {
            self.flush(tx)
        } else {
            Ok(Stored::default())
        }
    }

    /// Writes what is waiting. A key seen before (in the database, or earlier in this
    /// batch) is a repeat and its view is not stored again; if it was counted in the
    /// other column, it is moved.
    pub fn flush(&mut self, tx: &Connection) -> Result<Stored, StoreError> {
        let mut stored = self.take_back(tx)?;
        if self.pending.is_empty() {
            return Ok(stored);
        }
        let mut added = claim_keys(tx, &self.pending)?;
        added.sort_unstable();
        // Each added key stands for one view: a second view with the same key in this
        // batch is a repeat, like one stored before.
        let mut used = vec![false; added.len()];
        let mut new = Vec::with_capacity(self.pending.len());
        let mut repeats = Vec::new();
        for view in self.pending.drain(..) {
            match added.binary_search(&view.key) {
                Ok(at) if !used[at] => {
                    used[at] = true;
                    new.push(view);
                }
                _ => repeats.push(view),
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
        // After the new views are stored: a repeat of a key new in this batch moves the
        // view just stored (before, it moved nothing and only its key changed column).
        stored.repeats += repeats.len() as u64;
        stored.counts.changed += recount(tx, &self.project, &repeats)?;
        for view in &new {
            stored.counts.saw(view.ts_ms);
            match view.traffic {
                Traffic::Human => stored.counts.human += 1,
                Traffic::Ai => stored.counts.ai += 1,
            }
        }
        Ok(stored)
    }
}

impl Writer {
    /// Takes back the views an earlier import counted that the rules in force count in
    /// neither column: their view and key are deleted.
    fn take_back(&mut self, tx: &Connection) -> Result<Stored, StoreError> {
        let mut stored = Stored::default();
        if self.uncounted.is_empty() {
            return Ok(stored);
        }
        let views = std::mem::take(&mut self.uncounted);
        let keys: Vec<[u8; 16]> = views.iter().map(|view| view.key).collect();
        let counted = counted_as(tx, &keys)?;
        for view in views {
            let Some(Some(was)) = counted.get(&view.key) else {
                continue;
            };
            let page = self.ids.page(tx, &self.project, &view.path)?;
            let visitor = self.ids.visitor(tx, &self.project, &view.visitor)?;
            tx.prepare_cached(
                "DELETE FROM views WHERE rowid = (SELECT rowid FROM views WHERE project = ?1
                 AND ts_ms = ?2 AND page_id = ?3 AND visitor_id = ?4 AND ai = ?5 LIMIT 1)",
            )?
            .execute(params![
                self.project,
                view.ts_ms,
                page,
                visitor,
                *was == Traffic::Ai
            ])?;
            tx.prepare_cached("DELETE FROM view_keys WHERE key = ?1")?
                .execute([&view.key[..]])?;
            stored.counts.changed += 1;
        }
        Ok(stored)
    }
}

/// The column each of `keys` was counted in: absent when the key is not stored, `None`
/// for a key stored by a docdeck that did not keep the column.
fn counted_as(
    tx: &Connection,
    keys: &[[u8; 16]],
) -> Result<HashMap<[u8; 16], Option<Traffic>>, StoreError> {
    let mut found = HashMap::with_capacity(keys.len());
    let mut lookup = tx.prepare_cached("SELECT counted FROM view_keys WHERE key = ?1")?;
    for key in keys {
        let counted: Option<Option<i64>> =
            lookup.query_row([&key[..]], |row| row.get(0)).optional()?;
        if let Some(counted) = counted {
            found.insert(*key, counted.and_then(traffic_of_code));
        }
    }
    Ok(found)
}

/// How a key keeps its view's column: 1 human, 2 AI.
fn traffic_code(traffic: Traffic) -> i64 {
    match traffic {
        Traffic::Human => 1,
        Traffic::Ai => 2,
    }
}

fn traffic_of_code(code: i64) -> Option<Traffic> {
    match code {
        1 => Some(Traffic::Human),
        2 => Some(Traffic::Ai),
        _ => None,
    }
}

/// Moves the repeats whose stored column differs from the one the rules in force give;
/// returns how many moved. A key stored without its column (by an older docdeck) is left
/// as it is.
fn recount(tx: &Connection, project: &str, repeats: &[Pending]) -> Result<u64, StoreError> {
    if repeats.is_empty() {
        return Ok(0);
    }
    let keys: Vec<[u8; 16]> = repeats.iter().map(|view| view.key).collect();
    let mut counted = counted_as(tx, &keys)?;
    let mut changed = 0;
    for view in repeats {
        // The column as the repeats before this one left it.
        let was = match counted.get_mut(&view.key) {
            Some(Some(was)) if *was != view.traffic => std::mem::replace(was, view.traffic),
            _ => continue,
        };
        tx.prepare_cached(
            "UPDATE views SET ai = ?6 WHERE rowid = (SELECT rowid FROM views WHERE project = ?1
             AND ts_ms = ?2 AND page_id = ?3 AND visitor_id = ?4 AND ai = ?5 LIMIT 1)",
        )?
        .execute(params![
            project,
            view.ts_ms,
            view.page,
            view.visitor,
            was == Traffic::Ai,
            view.traffic == Traffic::Ai
        ])?;
        tx.prepare_cached("UPDATE view_keys SET counted = ?2 WHERE key = ?1")?
            .execute(params![&view.key[..], traffic_code(view.traffic)])?;
        changed += 1;
    }
    Ok(changed)
}

/// Inserts the keys, and returns those that were not there before.
fn claim_keys(tx: &Connection, views: &[Pending]) -> Result<Vec<[u8; 16]>, StoreError> {
    if views.len() == BATCH && all_new(tx, views)? {
        return Ok(views.iter().map(|view| view.key).collect());
    }
    let mut added = Vec::with_capacity(views.len());
    for chunk in sizes(views) {
        added.extend(claim_some(tx, chunk)?);
    }
    Ok(added)
}

/// Each view's key and the column it counts in, as `view_keys` keeps them.
fn key_rows(views: &[Pending]) -> Vec<(&[u8], i64)> {
    views
        .iter()
        .map(|view| (&view.key[..], traffic_code(view.traffic)))
        .collect()
}

/// [`key_rows`] as the parameters of a multi-row insert, `(?, ?)` a view.
fn key_params<'a>(rows: &'a [(&'a [u8], i64)]) -> Vec<&'a dyn ToSql> {
    rows.iter()
        .flat_map(|(key, code)| [key as &dyn ToSql, code as &dyn ToSql])
        .collect()
}

/// The common case of a first import: every key of a full batch is new. One insert
/// without `RETURNING` (which SQLite carries out through a temporary table) claims them
/// all; if it added fewer than all, it is undone and the keys are claimed the slow way.
fn all_new(tx: &Connection, views: &[Pending]) -> Result<bool, StoreError> {
    let sql = format!(
        "INSERT INTO view_keys (key, counted) VALUES {} ON CONFLICT (key) DO NOTHING",
        repeated(views.len(), "(?, ?)")
    );
    let rows = key_rows(views);
    let params = key_params(&rows);
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

fn claim_some(tx: &Connection, views: &[Pending]) -> Result<Vec<[u8; 16]>, StoreError> {
    let sql = format!(
        "INSERT INTO view_keys (key, counted) VALUES {} ON CONFLICT (key) DO NOTHING RETURNING key",
        repeated(views.len(), "(?, ?)")
    );
    let rows = key_rows(views);
    let params = key_params(&rows);
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
