//! Writing the demo seed's views, a day per transaction, after the claim (`mod.rs`).

use chrono::{Days, NaiveDate};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use rusqlite::{Connection, params};

use super::traffic::{NEW_PAGES, TrafficModel, page_paths};
use super::{PendingViews, RNG_SEED, SEED_DAYS};
use crate::server::analytics::{ViewEvent, ViewWriter};
use crate::server::db::StoreError;

impl PendingViews {
    /// Writes every day not written yet; returns how many views over how many pages.
    pub fn write(self, conn: &mut Connection) -> Result<(usize, usize), StoreError> {
        let mut days = self.days()?;
        while days.next(conn)? {}
        Ok(days.written())
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
            writer: None,
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
    writer: Option<ViewWriter>,
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

    /// Writes the next day; false once every day is written.
    pub fn next(&mut self, conn: &mut Connection) -> Result<bool, StoreError> {
        if self.next >= SEED_DAYS {
            return Ok(false);
        }
        let events = self.make();
        let project = &self.pending.project;
        let writer = self.writer.get_or_insert_with(|| ViewWriter::new(project));
        let tx = crate::sqlite::write_transaction(conn)?;
        for event in &events {
            writer.write(&tx, event)?;
        }
        writer.finish(&tx)?;
        let marker = pending_marker(project);
        if self.next >= SEED_DAYS {
            tx.execute("DELETE FROM meta WHERE key = ?1", [marker])?;
        } else {
            tx.execute(
                "UPDATE meta SET value = ?2 WHERE key = ?1",
                params![marker, format!("{} {}", self.pending.today, self.next)],
            )?;
        }
        tx.commit()?;
        self.views += events.len();
        Ok(self.next < SEED_DAYS)
    }

    /// Views (of every day, this start's and earlier ones') and pages.
    #[must_use]
    pub fn written(&self) -> (usize, usize) {
        (self.views, self.pages)
    }
}

/// The `meta` key that says a claimed project's views are not written yet.
pub(super) fn pending_marker(project: &str) -> String {
    format!("seed-views-pending:{project}")
}
