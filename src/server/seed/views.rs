//! Writing the demo seed's views, a day per transaction, after the claim (`mod.rs`),
//! once for both stores (written against `Sql`: pages and visitors interned a set at a
//! time, views a batch per statement).

use std::collections::{HashMap, HashSet};

use chrono::{Days, NaiveDate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rusqlite::Connection;

use super::traffic::{NEW_PAGES, TrafficModel, page_paths};
use super::{PendingViews, RNG_SEED, SEED_DAYS};
use crate::args;
use crate::server::db::StoreError;
use crate::server::store::{Lite, Sql, Value};
use crate::server::views::BATCH;
use crate::server::views::{Traffic, ViewEvent};

impl PendingViews {
    /// Writes every day not written yet; returns how many views over how many pages.
    pub fn write(self, conn: &mut Connection) -> Result<(usize, usize), StoreError> {
        let mut days = self.days()?;
        loop {
            let tx = crate::sqlite::write_transaction(conn)?;
            let more = days.next(&mut Lite(&tx))?;
            tx.commit()?;
            if !more {
                return Ok(days.written());
            }
        }
    }

    /// The writer of the days still to write.
    pub fn days(self) -> Result<SeedDays, StoreError> {
        let pages = page_paths();
        let traffic = TrafficModel::new(&pages).map_err(|err| StoreError::Seed(err.to_string()))?;
        let mut days = SeedDays {
            start: self
                .today
                .checked_sub_days(Days::new(SEED_DAYS))
                .unwrap_or(self.today),
            pending: self,
            next: 0,
            rng: ChaCha8Rng::seed_from_u64(RNG_SEED),
            traffic,
            pages: pages.len() + NEW_PAGES.len(),
            views: 0,
            pages_known: HashMap::new(),
            visitors_known: HashMap::new(),
        };
        // The days an earlier start wrote are made again, unwritten, so the random
        // sequence carries on where it stopped.
        while days.next < days.pending.done.min(SEED_DAYS) {
            days.views += days.make().len();
        }
        Ok(days)
    }
}

/// Writes the demo views one day per transaction: the writer connection is free between
/// two days, so a job request waits a few milliseconds at most, never for the whole seed.
/// Each transaction also records the days done, so a start that stops part way leaves the
/// rest to the next start, and nothing is written twice.
pub struct SeedDays {
    pending: PendingViews,
    start: NaiveDate,
    next: u64,
    rng: ChaCha8Rng,
    traffic: TrafficModel,
    pages: usize,
    views: usize,
    /// Ids of the pages and visitors written so far (the seed's are a few tens of
    /// thousands).
    pages_known: HashMap<String, i64>,
    visitors_known: HashMap<String, i64>,
}

impl SeedDays {
    fn make(&mut self) -> Vec<ViewEvent> {
        let day = self.next;
        let date = self
            .start
            .checked_add_days(Days::new(day))
            .unwrap_or(self.start);
        self.next += 1;
        self.traffic.day(&mut self.rng, date, day)
    }

    /// Writes the next day inside the caller's transaction; false once every day is
    /// written, or when another start (a node beside this one, on PostgreSQL) is writing
    /// them: each day moves the marker on from the value the day before left, so two
    /// writers never write one day twice.
    pub fn next(&mut self, sql: &mut dyn Sql) -> Result<bool, StoreError> {
        if self.next >= SEED_DAYS {
            return Ok(false);
        }
        let expected = marker_value(self.pending.today, self.next);
        let events = self.make();
        let marker = pending_marker(&self.pending.project);
        let moved = if self.next >= SEED_DAYS {
            sql.exec(
                "DELETE FROM meta WHERE key = $1 AND value = $2",
                args![&marker, &expected],
            )?
        } else {
            sql.exec(
                "UPDATE meta SET value = $3 WHERE key = $1 AND value = $2",
                args![
                    &marker,
                    &expected,
                    marker_value(self.pending.today, self.next)
                ],
            )?
        };
        if moved == 0 {
            tracing::info!(
                project = %self.pending.project,
                "the demo views are being written by another start; this one stops"
            );
            self.next = SEED_DAYS;
            return Ok(false);
        }
        self.store(sql, &events)?;
        self.views += events.len();
        Ok(self.next < SEED_DAYS)
    }

    /// Writes `events`: their new pages and visitors first, then the views.
    fn store(&mut self, sql: &mut dyn Sql, events: &[ViewEvent]) -> Result<(), StoreError> {
        let project = self.pending.project.as_str();
        intern(
            sql,
            project,
            Lookup::Pages,
            &mut self.pages_known,
            events.iter().map(|e| e.path.as_str()),
        )?;
        intern(
            sql,
            project,
            Lookup::Visitors,
            &mut self.visitors_known,
            events.iter().map(|e| e.visitor.as_str()),
        )?;
        let mut rows = Vec::with_capacity(events.len());
        for event in events {
            let (Some(page), Some(visitor)) = (
                self.pages_known.get(&event.path),
                self.visitors_known.get(&event.visitor),
            ) else {
                return Err(StoreError::Seed(format!(
                    "no id was stored for the page {} or its visitor",
                    event.path
                )));
            };
            rows.push([
                event.ts_ms,
                *page,
                *visitor,
                i64::from(event.traffic == Traffic::Ai),
            ]);
        }
        for chunk in rows.chunks(BATCH) {
            let mut params: Vec<Value> = Vec::with_capacity(1 + 4 * chunk.len());
            params.push(project.into());
            let mut values = Vec::with_capacity(chunk.len());
            for row in chunk {
                let at = params.len() + 1;
                values.push(format!(
                    "($1, ${at}, ${}, ${}, ${})",
                    at + 1,
                    at + 2,
                    at + 3
                ));
                params.extend(row.iter().map(|v| Value::Int(*v)));
            }
            sql.exec(
                &format!(
                    "INSERT INTO views (project, ts_ms, page_id, visitor_id, ai) VALUES {}",
                    values.join(", ")
                ),
                &params,
            )?;
        }
        Ok(())
    }

    /// Views (of every day, this start's and earlier ones') and pages.
    #[must_use]
    pub fn written(&self) -> (usize, usize) {
        (self.views, self.pages)
    }
}

/// The `meta` key that says a claimed project's views are not written yet.
pub(crate) fn pending_marker(project: &str) -> String {
    format!("seed-views-pending:{project}")
}

/// The marker's value once `done` days are written: the anchor date, then the count.
fn marker_value(today: NaiveDate, done: u64) -> String {
    if done == 0 {
        today.to_string()
    } else {
        format!("{today} {done}")
    }
}

/// A lookup table that views refer to by id.
#[derive(Debug, Clone, Copy)]
enum Lookup {
    Pages,
    Visitors,
}

/// Adds the values of `names` that `known` lacks to their lookup table (those already
/// there are kept) and reads their ids into `known`, a set per statement. (A day's last
/// statement has a size of its own: a few statements a day, not one per row, which on
/// PostgreSQL would be a round trip each.)
fn intern<'a>(
    sql: &mut dyn Sql,
    project: &str,
    table: Lookup,
    known: &mut HashMap<String, i64>,
    names: impl Iterator<Item = &'a str>,
) -> Result<(), StoreError> {
    let (table, column) = match table {
        Lookup::Pages => ("pages", "path"),
        Lookup::Visitors => ("visitors", "visitor"),
    };
    let mut seen = HashSet::new();
    let new: Vec<&str> = names
        .filter(|name| !known.contains_key(*name) && seen.insert(*name))
        .collect();
    for chunk in new.chunks(BATCH) {
        let mut params: Vec<Value> = vec![project.into()];
        params.extend(chunk.iter().map(|name| Value::from(*name)));
        let list = (2..=chunk.len() + 1)
            .map(|i| format!("${i}"))
            .collect::<Vec<_>>();
        let rows = list
            .iter()
            .map(|p| format!("($1, {p})"))
            .collect::<Vec<_>>();
        sql.exec(
            &format!(
                "INSERT INTO {table} (project, {column}) VALUES {}
                 ON CONFLICT (project, {column}) DO NOTHING",
                rows.join(", ")
            ),
            &params,
        )?;
        for row in sql.rows(
            &format!(
                "SELECT {column}, id FROM {table} WHERE project = $1 AND {column} IN ({})",
                list.join(", ")
            ),
            &params,
        )? {
            known.insert(row.text(0)?, row.int(1)?);
        }
    }
    Ok(())
}
