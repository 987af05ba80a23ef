//! `docdeck import` into PostgreSQL (issue 26): views a batch at a time, with as few
//! statements per batch as the re-import rule allows. The batch's keys are claimed in one
//! `INSERT … ON CONFLICT DO NOTHING RETURNING key` while the ids of its pages and
//! visitors are asked on a second connection (`names`), and the views of the new keys go
//! into `views` by binary `COPY`. A key stored before is a repeat, moved to the column its
//! latest import gives (as SQLite's writer does); a view the rules in force count in
//! neither column is taken back. Searches, their clicks and `--follow`'s positions are
//! single statements, as they are few.

use std::collections::{HashMap, HashSet};

use foldhash::fast::RandomState;

use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::Type;
use postgres::{Client, GenericClient, Transaction};

use super::kept;
pub use super::kept::{position, save_position, visitor_secret};
use super::names::Names;
use crate::server::db::StoreError;
use crate::server::traffic::{Counts, Item, Ready, Stored};
use crate::server::views::Traffic;

/// Views written at once: each batch costs a few round trips, so larger is faster, and a
/// batch is held in memory (about 150 bytes a view).
const BATCH: usize = 50_000;

/// Statements prepared once per connection (a `prepare` is a round trip of its own).
#[derive(Default)]
pub(super) struct Prepared(HashMap<&'static str, postgres::Statement>);

impl Prepared {
    pub(super) fn get(
        &mut self,
        client: &mut impl GenericClient,
        sql: &'static str,
    ) -> Result<postgres::Statement, StoreError> {
        if let Some(statement) = self.0.get(sql) {
            return Ok(statement.clone());
        }
        let statement = client.prepare(sql)?;
        self.0.insert(sql, statement.clone());
        Ok(statement)
    }
}

/// Writes an import's items into PostgreSQL, in the caller's transactions.
pub struct PgWriter {
    statements: Prepared,
    project: String,
    /// The pages' and visitors' ids, asked on a connection of their own.
    names: Names,
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
    /// A writer for `project`; `ids` is a second connection to the same database, for
    /// the pages' and visitors' ids.
    #[must_use]
    pub fn new(project: &str, ids: Client) -> Self {
        Self {
            statements: Prepared::default(),
            project: project.to_owned(),
            names: Names::new(ids, project),
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
        // The batch's ids are asked on the second connection while its keys are claimed
        // on this one.
        let names = &mut self.names;
        let (resolved, claimed) = std::thread::scope(|scope| {
            let resolving = scope.spawn(|| names.resolve(&all));
            let claimed = tx.query(&claim, &[&keys, &codes]);
            (resolving.join(), claimed)
        });
        resolved.map_err(|_| {
            StoreError::Postgres("the thread asking pages' and visitors' ids stopped".into())
        })??;
        let mut fresh: HashSet<[u8; 16], RandomState> = claimed?
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
            let (page, visitor) = self.names.ids_of(view)?;
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
        self.names.resolve_all(&taken)?;
        for view in taken {
            let (page, visitor) = self.names.ids_of(view)?;
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
