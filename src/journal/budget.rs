//! The hourly budgets in the journal: the uses of create and message, the requests counted
//! against the analytics budget, and the trend cache (each bucket's totals, kept once its
//! numbers cannot change).
//!
//! The analytics budget: the hosted service allows 100 analytics requests an hour per
//! organization, shared by every analytics endpoint, unless the service states its own
//! limit (`RateLimit-Limit`), which is kept and followed. The journal counts this machine's
//! requests per service and project (it cannot see other machines or projects), as it
//! counts create and message. [`AnalyticsBudget::decide`] is the one rule both faces
//! follow: work of more than [`ASK_ABOVE`] requests says how many and asks first; work
//! that would go over what is left is refused, saying when enough requests free up. A
//! 429 still pauses every analytics call (the console's `CallClass::Analytics`).
//!
//! The trend cache: a bucket that ended more than [`TREND_SETTLING`] (48 hours) ago is
//! settled; its numbers, once read after it settled, are kept and not read again unless
//! the user asks (`refresh`). Newer buckets are read every time.

use chrono::{DateTime, TimeDelta, Utc};
use rusqlite::{OptionalExtension as _, params};

use super::{Journal, JournalError, Scope, SubmissionKind};
use crate::api::VisitorTotals;

/// Analytics requests allowed per hour (the hosted service's documented limit).
pub const ANALYTICS_HOURLY_LIMIT: u32 = 100;
/// Work that needs more requests than this asks first.
pub const ASK_ABOVE: u32 = 10;
/// How long after its end a trend bucket can still change (views arrive late).
pub const TREND_SETTLING: TimeDelta = TimeDelta::hours(48);

/// Whether a bucket that ends at `end` is settled at `at`: it ended at least
/// [`TREND_SETTLING`] before, so its numbers cannot change any more. The one rule for
/// what the trend cache keeps and gives back, and for the insight's buckets.
#[must_use]
pub fn settled(end: DateTime<Utc>, at: DateTime<Utc>) -> bool {
    end + TREND_SETTLING <= at
}

const HOUR_MS: i64 = 3_600_000;

/// A trend bucket's `[from, to)`.
pub type BucketRange = (DateTime<Utc>, DateTime<Utc>);

/// The analytics requests of the last hour, as counted here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnalyticsBudget {
    pub limit: u32,
    /// Where the limit comes from.
    pub source: LimitSource,
    /// When each request of the last hour was sent, oldest first.
    sent: Vec<DateTime<Utc>>,
}

/// Where an analytics limit comes from: the service that answers, or (where it states
/// nothing) the hosted service's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LimitSource {
    /// The hosted service's documented 100 an hour: the service stated no limit.
    Documented,
    /// The service stated it (`RateLimit-Limit`) in an answer at this time.
    Stated(DateTime<Utc>),
}

impl LimitSource {
    /// Where the limit came from, in words: "the limit the service states…" or "the hosted
    /// service's documented limit".
    #[must_use]
    pub fn words(self) -> &'static str {
        match self {
            Self::Documented => {
                "the hosted service's documented limit, as this service states none"
            }
            Self::Stated(_) => "the limit the service states in RateLimit-Limit",
        }
    }
}

/// What the budget says about work that needs some requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Few enough to go ahead without asking.
    Go,
    /// More than [`ASK_ABOVE`]: say how many, and go on only if the user agrees.
    Ask { needed: u32, left: u32 },
    /// More than are left. `enough_at` is when enough will have freed up; `None` when
    /// the work needs more than an hour's whole budget (it must be made smaller).
    Refuse {
        needed: u32,
        left: u32,
        enough_at: Option<DateTime<Utc>>,
    },
}

impl AnalyticsBudget {
    /// A budget with `sent` uses in the last hour (any order), for tests and faces that
    /// keep their own count between journal reads.
    #[must_use]
    pub fn new(limit: u32, mut sent: Vec<DateTime<Utc>>) -> Self {
        sent.sort_unstable();
        Self {
            limit,
            source: LimitSource::Documented,
            sent,
        }
    }

    /// Requests of the last hour.
    #[must_use]
    pub fn used(&self) -> u32 {
        u32::try_from(self.sent.len()).unwrap_or(u32::MAX)
    }

    /// Requests left this hour.
    #[must_use]
    pub fn left(&self) -> u32 {
        self.limit.saturating_sub(self.used())
    }

    /// `41 of 100 left this hour as counted on this machine for this project; 100 is …`.
    #[must_use]
    pub fn counted_words(&self) -> String {
        let limit = self.limit;
        format!(
            "{} of {limit} left this hour as counted on this machine for this project; {limit} is {}",
            self.left(),
            self.source.words()
        )
    }

    /// The words of a refusal, the same in the CLI and the console: `what` needs `need`,
    /// more than are left; nothing was sent; then when enough are free again
    /// (`free_again`, worded by the face: a countdown would go stale on a screen), or,
    /// when the work needs more than an hour's whole budget, only `smaller`.
    #[must_use]
    pub fn refusal(
        &self,
        what: &str,
        need: &str,
        free_again: Option<&str>,
        smaller: &str,
    ) -> String {
        let when = free_again.map_or_else(
            || format!("that is more than an hour's {}: {smaller}", self.limit),
            |at| format!("enough are free again {at}, or {smaller}"),
        );
        format!(
            "{what} needs {need}, more than are left ({}); nothing was sent: {when}",
            self.counted_words()
        )
    }

    /// When `needed` requests will be left, if they are not now: as the oldest uses turn
    /// an hour old. `None` when they are left now, or never will be (more than the limit).
    #[must_use]
    pub fn enough_at(&self, needed: u32) -> Option<DateTime<Utc>> {
        let short = needed.checked_sub(self.left()).filter(|short| *short > 0)?;
        if needed > self.limit {
            return None;
        }
        // Uses beyond the limit (counted elsewhere too) must expire before any frees one.
        let over = self.used().saturating_sub(self.limit);
        let index = usize::try_from(over + short - 1).ok()?;
        self.sent.get(index).map(|at| *at + TimeDelta::hours(1))
    }

    /// The rule both faces follow for work of `needed` requests.
    #[must_use]
    pub fn decide(&self, needed: u32) -> Decision {
        let left = self.left();
        if needed > left {
            Decision::Refuse {
                needed,
                left,
                enough_at: self.enough_at(needed),
            }
        } else if needed > ASK_ABOVE {
            Decision::Ask { needed, left }
        } else {
            Decision::Go
        }
    }
}

impl Journal {
    /// Uses of a budget in the hour before `now` (accepted, pending, or of unknown outcome),
    /// counted no further than `cap`: past the hour's limit the number changes nothing, and
    /// a journal that holds more (one filled by a script, or a service with a higher limit)
    /// would otherwise walk every one of them at each start.
    pub fn uses_last_hour(
        &self,
        scope: &Scope,
        kind: SubmissionKind,
        now: DateTime<Utc>,
        cap: u32,
    ) -> Result<u32, JournalError> {
        let since = now.timestamp_millis() - 3_600_000;
        let count: i64 = self.conn.query_row(
            "SELECT COUNT(*) FROM (SELECT 1 FROM submissions
             WHERE service = ?1 AND project = ?2 AND kind = ?3 AND sent_ms > ?4
               AND outcome IN ('pending', 'accepted', 'unknown') LIMIT ?5)",
            params![scope.service, scope.project, kind.as_db(), since, cap],
            |row| row.get(0),
        )?;
        Ok(u32::try_from(count).unwrap_or(u32::MAX))
    }

    /// Counts `requests` analytics requests sent at `now`. Rows older than a day are
    /// dropped on the way: only the last hour is ever read.
    pub fn record_analytics(
        &mut self,
        scope: &Scope,
        requests: u32,
        now: DateTime<Utc>,
    ) -> Result<(), JournalError> {
        if requests == 0 {
            return Ok(());
        }
        let at = now.timestamp_millis();
        let tx = crate::sqlite::write_transaction(&mut self.conn)?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO analytics_requests (service, project, sent_ms) VALUES (?1, ?2, ?3)",
            )?;
            for _ in 0..requests {
                insert.execute(params![scope.service, scope.project, at])?;
            }
        }
        tx.execute(
            "DELETE FROM analytics_requests WHERE service = ?1 AND project = ?2 AND sent_ms < ?3",
            params![scope.service, scope.project, at - 24 * HOUR_MS],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// Keeps the analytics limit the service stated (its `RateLimit-Limit`): the budget
    /// follows it from then on.
    pub fn note_analytics_limit(
        &mut self,
        scope: &Scope,
        hourly: u32,
        now: DateTime<Utc>,
    ) -> Result<(), JournalError> {
        self.conn
            .prepare_cached(
                "INSERT INTO analytics_limits (service, project, hourly, stated_ms)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (service, project) DO UPDATE SET
                     hourly = excluded.hourly, stated_ms = excluded.stated_ms",
            )?
            .execute(params![
                scope.service,
                scope.project,
                hourly,
                now.timestamp_millis()
            ])?;
        Ok(())
    }

    /// The analytics requests of the hour before `now`, against the limit the service
    /// stated, or `limit` (usually [`ANALYTICS_HOURLY_LIMIT`]) where it stated none.
    pub fn analytics_budget(
        &self,
        scope: &Scope,
        limit: u32,
        now: DateTime<Utc>,
    ) -> Result<AnalyticsBudget, JournalError> {
        let stated: Option<(i64, i64)> = self
            .conn
            .prepare_cached(
                "SELECT hourly, stated_ms FROM analytics_limits WHERE service = ?1 AND project = ?2",
            )?
            .query_row(params![scope.service, scope.project], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .optional()?;
        let since = now.timestamp_millis() - HOUR_MS;
        let mut statement = self.conn.prepare_cached(
            "SELECT sent_ms FROM analytics_requests
             WHERE service = ?1 AND project = ?2 AND sent_ms > ?3 ORDER BY sent_ms",
        )?;
        let sent = statement
            .query_map(params![scope.service, scope.project, since], |row| {
                row.get::<_, i64>(0)
            })?
            .map(|ms| ms.map(|ms| DateTime::from_timestamp_millis(ms).unwrap_or_default()))
            .collect::<Result<Vec<_>, _>>()?;
        let mut budget = AnalyticsBudget::new(limit, sent);
        if let Some((hourly, at)) = stated {
            budget.limit = u32::try_from(hourly).unwrap_or(limit);
            budget.source =
                LimitSource::Stated(DateTime::from_timestamp_millis(at).unwrap_or_default());
        }
        Ok(budget)
    }

    /// The kept totals of each `[from, to)` bucket, `None` where it must be read: not
    /// kept, not settled at `now`, kept from a read made before it settled, or `refresh`.
    pub fn trend_kept(
        &self,
        scope: &Scope,
        buckets: &[BucketRange],
        now: DateTime<Utc>,
        refresh: bool,
    ) -> Result<Vec<Option<VisitorTotals>>, JournalError> {
        if refresh {
            return Ok(vec![None; buckets.len()]);
        }
        let mut statement = self.conn.prepare_cached(
            "SELECT human, ai, total, read_ms FROM trend_buckets
             WHERE service = ?1 AND project = ?2 AND from_ms = ?3 AND to_ms = ?4",
        )?;
        let mut kept = Vec::with_capacity(buckets.len());
        for (from, to) in buckets {
            if !settled(*to, now) {
                kept.push(None);
                continue;
            }
            let to_ms = to.timestamp_millis();
            let row: Option<(i64, i64, i64, i64)> = statement
                .query_row(
                    params![scope.service, scope.project, from.timestamp_millis(), to_ms],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)),
                )
                .optional()?;
            let count = |n: i64| u64::try_from(n).unwrap_or(0);
            kept.push(
                // Numbers read before the bucket settled may have changed since.
                row.filter(|row| {
                    DateTime::from_timestamp_millis(row.3).is_some_and(|read| settled(*to, read))
                })
                .map(|(human, ai, total, _)| VisitorTotals {
                    human: count(human),
                    ai: count(ai),
                    total: count(total),
                }),
            );
        }
        Ok(kept)
    }

    /// Keeps the totals of buckets read at `now` (a bucket read again replaces its row).
    pub fn store_trend(
        &mut self,
        scope: &Scope,
        read: &[(BucketRange, VisitorTotals)],
        now: DateTime<Utc>,
    ) -> Result<(), JournalError> {
        let tx = crate::sqlite::write_transaction(&mut self.conn)?;
        {
            let mut upsert = tx.prepare_cached(
                "INSERT INTO trend_buckets
                     (service, project, from_ms, to_ms, human, ai, total, read_ms)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                 ON CONFLICT (service, project, from_ms, to_ms) DO UPDATE SET
                     human = excluded.human, ai = excluded.ai, total = excluded.total,
                     read_ms = excluded.read_ms",
            )?;
            let count = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
            for ((from, to), totals) in read {
                upsert.execute(params![
                    scope.service,
                    scope.project,
                    from.timestamp_millis(),
                    to.timestamp_millis(),
                    count(totals.human),
                    count(totals.ai),
                    count(totals.total),
                    now.timestamp_millis(),
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests;
