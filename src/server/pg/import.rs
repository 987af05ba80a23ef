//! `docdeck import` into PostgreSQL (issue 26): views a batch at a time, with as few
//! statements per batch as the re-import rule allows. Page and visitor ids are resolved
//! by set (one `SELECT` joined to the batch's names, one `INSERT … RETURNING` for the new
//! ones, remembered in capped maps; `name = ANY($1)` was planned as a scan of the whole
//! table once the statement was prepared: 200 ms a batch), the batch's keys are claimed in one `INSERT … ON CONFLICT DO NOTHING
//! RETURNING key`, and the views of the new keys go into `views` by binary `COPY`. A key
//! stored before is a repeat, moved to the column its latest import gives (as SQLite's
//! writer does); a view the rules in force count in neither column is taken back.
//! Searches, their clicks and `--follow`'s positions are single statements, as they are
//! few.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use foldhash::fast::RandomState;

use postgres::Transaction;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;

use super::kept;
pub use super::kept::{position, save_position, visitor_secret};
use crate::server::db::StoreError;
use crate::server::traffic::known::Visitor;
use crate::server::traffic::{Counts, Item, Ready, Stored};
use crate::server::views::Traffic;

/// Views written at once: each batch costs a few round trips, so larger is faster, and a
/// batch is held in memory (about 150 bytes a view).
const BATCH: usize = 50_000;
/// Page and visitor ids remembered before starting again (bounded memory).
const PAGES_MAX: usize = 50_000;
const VISITORS_MAX: usize = 200_000;

/// Statements prepared once per connection (a `prepare` is a round trip of its own).
#[derive(Default)]
pub(super) struct Prepared(HashMap<&'static str, postgres::Statement>);

impl Prepared {
    pub(super) fn get(
        &mut self,
        tx: &mut Transaction<'_>,
        sql: &'static str,
    ) -> Result<postgres::Statement, StoreError> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = tx.prepare(sql)?;
        self.0.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Writes an import's items into PostgreSQL, in the caller's transactions.
pub struct PgWriter {
    statements: Prepared,
    project: String,
    pages: HashMap<Arc<str>, i64, RandomState>,
    /// By the visitor as the log line gave it (a hash is not written out as text to be
    /// looked up: SipHash and string compares were a tenth of the import's CPU).
    visitors: HashMap<Visitor, i64, RandomState>,
    /// Whether the last batch's unknown names were mostly new to the database: then the
    /// next batch's are added first and only those already there are read (a first
    /// import skips a lookup that finds nothing), else read first (a re-import).
    names_mostly_new: Fresh,
    pending: Vec<Ready>,
    /// Views counted in neither column, to take back if an earlier import counted them.
    uncounted: Vec<Ready>,
}

fn code(traffic: Traffic) -> i16 {
    match traffic {
        Traffic::Human => 1,
        Traffic::Ai => 2,
    }
}

impl PgWriter {
    #[must_use]
    pub fn new(project: &str) -> Self {
        Self {
            statements: Prepared::default(),
            project: project.to_owned(),
            pages: HashMap::default(),
            visitors: HashMap::default(),
            names_mostly_new: Fresh::default(),
            pending: Vec::new(),
            uncounted: Vec::new(),
        }
    }

    /// Writes a line's item: a search at once (a click later in the batch refers to it),
    /// a view queued, with the click it records.
    pub fn take(&mut self, tx: &mut Transaction<'_>, item: Item) -> Result<Stored, StoreError> {
        match item {
            Item::Search(found) => {
                let added = kept::store_search(tx, &mut self.statements, &self.project, &found)?;
                Ok(Stored::of_search(added))
            }
            Item::View(view) => {
                let stored = Stored::of(Counts {
                    clicks: view.record_click(|click| {
                        kept::record_click(tx, &mut self.statements, &self.project, click)
                    })?,
                    ..Counts::default()
                });
                if view.traffic.is_none() {
                    self.uncounted.push(view);
                } else {
                    self.pending.push(view);
                }
                if self.pending.len() + self.uncounted.len() >= BATCH {
                    let mut flushed = self.flush(tx)?;
                    flushed.counts.clicks += stored.counts.clicks;
                    return Ok(flushed);
                }
                Ok(stored)
            }
            Item::Click(found) => {
                let clicked =
                    kept::record_click(tx, &mut self.statements, &self.project, found.click())?;
                Ok(Stored::of_click(clicked))
            }
            said => said
                .store_said(tx, &self.project)
                .unwrap_or_else(|| Ok(Stored::default())),
        }
    }

    /// Writes the views waiting. A key stored before, or given again later in the batch,
    /// is a repeat: its view is stored once, in the column of its first line, then moved
    /// by each later line of another class (as SQLite's writer does), so the summary's
    /// classes and moves are SQLite's.
    pub fn flush(&mut self, tx: &mut Transaction<'_>) -> Result<Stored, StoreError> {
        let mut stored = self.take_back(tx)?;
        if self.pending.is_empty() {
            return Ok(stored);
        }
        let views = std::mem::take(&mut self.pending);
        let mut first: HashSet<[u8; 16], RandomState> =
            HashSet::with_capacity_and_hasher(views.len(), RandomState::default());
        let batch: Vec<&Ready> = views.iter().filter(|view| first.insert(view.key)).collect();
        let all: Vec<&Ready> = views.iter().collect();
        self.resolve(tx, &all)?;
        let keys: Vec<&[u8]> = batch.iter().map(|view| &view.key[..]).collect();
        let codes: Vec<i16> = batch
            .iter()
            .map(|view| view.traffic.map_or(0, code))
            .collect();
        let claim = self.statements.get(
            tx,
            "INSERT INTO view_keys (key, counted) SELECT * FROM unnest($1::bytea[], $2::int2[])
             ON CONFLICT (key) DO NOTHING RETURNING key",
        )?;
        let mut fresh: HashSet<[u8; 16], RandomState> = tx
            .query(&claim, &[&keys, &codes])?
            .iter()
            .filter_map(|row| <[u8; 16]>::try_from(row.get::<_, &[u8]>(0)).ok())
            .collect();
        let writer = tx.copy_in(
            "COPY views (project, ts_ms, page_id, visitor_id, ai) FROM STDIN (FORMAT binary)",
        )?;
        let mut copy = BinaryCopyInWriter::new(
            writer,
            &[Type::TEXT, Type::INT8, Type::INT8, Type::INT8, Type::INT2],
        );
        // The repeats in the order of their lines, as SQLite moves them.
        let mut known = Vec::new();
        for view in &views {
            let (page, visitor) = self.ids_of(view)?;
            // A fresh key's first line stores the view; any later line is a repeat.
            if !fresh.remove(&view.key) {
                known.push((view, page, visitor));
                continue;
            }
            let ai: i16 = match view.traffic {
                Some(Traffic::Ai) => {
                    stored.counts.ai += 1;
                    1
                }
                _ => {
                    stored.counts.human += 1;
                    0
                }
            };
            copy.write(&[&self.project, &view.ts_ms, &page, &visitor, &ai])?;
            stored.counts.saw(view.ts_ms);
        }
        copy.finish()?;
        stored.repeats += known.len() as u64;
        stored.counts.changed += recount(tx, &mut self.statements, &self.project, &known)?;
        Ok(stored)
    }

    /// The ids of a view's page and visitor (resolved by [`Self::resolve`]).
    fn ids_of(&self, view: &Ready) -> Result<(i64, i64), StoreError> {
        let missing =
            || StoreError::Postgres("an imported view's page or visitor has no id".into());
        let page = *self.pages.get(&view.path).ok_or_else(missing)?;
        let visitor = *self.visitors.get(&view.visitor).ok_or_else(missing)?;
        Ok((page, visitor))
    }

    /// Gives every page and visitor of `views` an id, adding those not stored.
    fn resolve(&mut self, tx: &mut Transaction<'_>, views: &[&Ready]) -> Result<(), StoreError> {
        let paths: HashSet<&str, RandomState> = views
            .iter()
            .filter(|view| !self.pages.contains_key(&view.path))
            .map(|view| &*view.path)
            .collect();
        if self.pages.len() + paths.len() > PAGES_MAX {
            return self.resolve_all(tx, views);
        }
        let unknown: HashSet<&Visitor, RandomState> = views
            .iter()
            .map(|view| &view.visitor)
            .filter(|visitor| !self.visitors.contains_key(*visitor))
            .collect();
        if self.visitors.len() + unknown.len() > VISITORS_MAX {
            return self.resolve_all(tx, views);
        }
        let paths: Vec<&str> = paths.into_iter().collect();
        self.learn_ids(tx, &paths, unknown.into_iter().collect())
    }

    /// Asks (adding those not stored) the ids of `paths` and `visitors`, and keeps them.
    fn learn_ids(
        &mut self,
        tx: &mut Transaction<'_>,
        paths: &[&str],
        visitors: Vec<&Visitor>,
    ) -> Result<(), StoreError> {
        let first = self.names_mostly_new;
        let asked = ids(
            tx,
            &mut self.statements,
            Table::Pages,
            &self.project,
            paths,
            first.pages,
        )?;
        self.names_mostly_new.pages = asked.mostly_new(paths.len());
        for (path, id) in asked.found {
            self.pages.insert(path.into(), id);
        }
        // A visitor id the log gives may read as a hashed one ("h:…"): one name, one id.
        let mut named: HashMap<String, Vec<&Visitor>, RandomState> = HashMap::default();
        for visitor in visitors {
            let name = visitor.name().as_str().to_owned();
            named.entry(name).or_default().push(visitor);
        }
        let names: Vec<&str> = named.keys().map(String::as_str).collect();
        let asked = ids(
            tx,
            &mut self.statements,
            Table::Visitors,
            &self.project,
            &names,
            first.visitors,
        )?;
        self.names_mostly_new.visitors = asked.mostly_new(names.len());
        for (name, id) in asked.found {
            for visitor in named.get(&name).into_iter().flatten() {
                self.visitors.insert((*visitor).clone(), id);
            }
        }
        Ok(())
    }

    /// [`Self::resolve`] after a memory was emptied: every name of the batch is asked.
    fn resolve_all(
        &mut self,
        tx: &mut Transaction<'_>,
        views: &[&Ready],
    ) -> Result<(), StoreError> {
        self.visitors.clear();
        self.pages.clear();
        let paths: HashSet<&str, RandomState> = views.iter().map(|view| &*view.path).collect();
        let paths: Vec<&str> = paths.into_iter().collect();
        let visitors: HashSet<&Visitor, RandomState> =
            views.iter().map(|view| &view.visitor).collect();
        self.learn_ids(tx, &paths, visitors.into_iter().collect())
    }

    /// Takes back the views an earlier import counted that the rules in force count in
    /// neither column: their view and key are deleted.
    fn take_back(&mut self, tx: &mut Transaction<'_>) -> Result<Stored, StoreError> {
        let mut stored = Stored::default();
        if self.uncounted.is_empty() {
            return Ok(stored);
        }
        let views = std::mem::take(&mut self.uncounted);
        let keys: Vec<&[u8]> = views.iter().map(|view| &view.key[..]).collect();
        let delete = self.statements.get(
            tx,
            "DELETE FROM view_keys k USING unnest($1::bytea[]) u (key)
             WHERE k.key = u.key AND k.counted IS NOT NULL RETURNING k.key, k.counted",
        )?;
        let gone: HashMap<[u8; 16], i16> = tx
            .query(&delete, &[&keys])?
            .iter()
            .filter_map(|row| {
                let key = <[u8; 16]>::try_from(row.get::<_, &[u8]>(0)).ok()?;
                Some((key, row.get::<_, i16>(1)))
            })
            .collect();
        let taken: Vec<&Ready> = views.iter().filter(|v| gone.contains_key(&v.key)).collect();
        if taken.is_empty() {
            return Ok(stored);
        }
        self.resolve_all(tx, &taken)?;
        for view in taken {
            let (page, visitor) = self.ids_of(view)?;
            let was: i16 = gone.get(&view.key).map_or(0, |counted| counted - 1);
            tx.execute(
                "DELETE FROM views WHERE ctid = (SELECT ctid FROM views WHERE project = $1
                 AND ts_ms = $2 AND page_id = $3 AND visitor_id = $4 AND ai = $5 LIMIT 1)",
                &[&self.project, &view.ts_ms, &page, &visitor, &was],
            )?;
            stored.counts.changed += 1;
        }
        Ok(stored)
    }
}

/// Moves the repeats whose stored column differs from the one the rules in force give;
/// returns how many moved. A key stored without its column (by an older docdeck) is left.
/// The stored columns are read by key (an index lookup each); only the few that moved are
/// written.
fn recount(
    tx: &mut Transaction<'_>,
    statements: &mut Prepared,
    project: &str,
    known: &[(&Ready, i64, i64)],
) -> Result<u64, StoreError> {
    if known.is_empty() {
        return Ok(0);
    }
    let keys: Vec<&[u8]> = known.iter().map(|(view, ..)| &view.key[..]).collect();
    let read = statements.get(
        tx,
        "SELECT k.key, k.counted FROM unnest($1::bytea[]) u (key)
         JOIN view_keys k ON k.key = u.key WHERE k.counted IS NOT NULL",
    )?;
    let mut stored: HashMap<[u8; 16], i16> = tx
        .query(&read, &[&keys])?
        .iter()
        .filter_map(|row| {
            let key = <[u8; 16]>::try_from(row.get::<_, &[u8]>(0)).ok()?;
            Some((key, row.get::<_, i16>(1)))
        })
        .collect();
    let mut changed = 0;
    for (view, page, visitor) in known {
        let now = view.traffic.map_or(0, code);
        match stored.get_mut(&view.key) {
            Some(was) if *was != now => *was = now,
            _ => continue,
        }
        tx.execute(
            "UPDATE view_keys SET counted = $2 WHERE key = $1",
            &[&&view.key[..], &now],
        )?;
        let ai: i16 = i16::from(view.traffic == Some(Traffic::Ai));
        tx.execute(
            "UPDATE views SET ai = $5::int2 WHERE ctid = (SELECT ctid FROM views WHERE project = $1
             AND ts_ms = $2 AND page_id = $3 AND visitor_id = $4 AND ai = 1 - $5::int2 LIMIT 1)",
            &[&project, &view.ts_ms, page, visitor, &ai],
        )?;
        changed += 1;
    }
    Ok(changed)
}

#[derive(Clone, Copy)]
enum Table {
    Pages,
    Visitors,
}

/// Per table, whether the names last asked were mostly new to the database.
#[derive(Debug, Default, Clone, Copy)]
struct Fresh {
    pages: bool,
    visitors: bool,
}

/// The ids [`ids`] found, and how many of them it added.
struct Asked {
    found: Vec<(String, i64)>,
    added: usize,
}

impl Asked {
    fn mostly_new(&self, asked: usize) -> bool {
        self.added * 2 > asked
    }
}

/// The ids of `names` in `table` for `project`, adding those not stored (another
/// importer adding one at the same time is read back). With `insert_first`, all are
/// added first and only those already stored are read; else all are read first and only
/// those not found are added: each way saves a statement that would find nothing.
fn ids(
    tx: &mut Transaction<'_>,
    statements: &mut Prepared,
    table: Table,
    project: &str,
    names: &[&str],
    insert_first: bool,
) -> Result<Asked, StoreError> {
    if names.is_empty() {
        return Ok(Asked {
            found: Vec::new(),
            added: 0,
        });
    }
    let (select, insert) = match table {
        Table::Pages => (
            "SELECT p.path, p.id FROM unnest($2::text[]) n (path)
             JOIN pages p ON p.project = $1 AND p.path = n.path",
            "INSERT INTO pages (project, path) SELECT $1, unnest($2::text[])
             ON CONFLICT DO NOTHING RETURNING path, id",
        ),
        Table::Visitors => (
            "SELECT v.visitor, v.id FROM unnest($2::text[]) n (visitor)
             JOIN visitors v ON v.project = $1 AND v.visitor = n.visitor",
            "INSERT INTO visitors (project, visitor) SELECT $1, unnest($2::text[])
             ON CONFLICT DO NOTHING RETURNING visitor, id",
        ),
    };
    let read = |rows: Vec<postgres::Row>| -> Vec<(String, i64)> {
        rows.iter().map(|row| (row.get(0), row.get(1))).collect()
    };
    let select = statements.get(tx, select)?;
    let insert = statements.get(tx, insert)?;
    if insert_first {
        let mut found = read(tx.query(&insert, &[&project, &names])?);
        let added = found.len();
        if added < names.len() {
            // Stored before, or by another importer since (its insert was waited for).
            let stored = not_in(&found, names);
            found.extend(read(tx.query(&select, &[&project, &stored])?));
        }
        return Ok(Asked { found, added });
    }
    let mut found = read(tx.query(&select, &[&project, &names])?);
    if found.len() == names.len() {
        return Ok(Asked { found, added: 0 });
    }
    let missing = not_in(&found, names);
    let added = read(tx.query(&insert, &[&project, &missing])?);
    if added.len() < missing.len() {
        let raced = not_in(&added, &missing);
        let more = read(tx.query(&select, &[&project, &raced])?);
        found.extend(more);
    }
    let count = added.len();
    found.extend(added);
    Ok(Asked {
        found,
        added: count,
    })
}

/// The names of `of` that `got` does not hold.
fn not_in<'a>(got: &[(String, i64)], of: &[&'a str]) -> Vec<&'a str> {
    let got: HashSet<&str, RandomState> = got.iter().map(|(name, _)| name.as_str()).collect();
    of.iter().copied().filter(|n| !got.contains(n)).collect()
}
