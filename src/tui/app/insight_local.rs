//! Stand-ins for the shared insight module (buckets of a trend, the previous period)
//! until it lands; then these go and its types are used instead.

use chrono::{Datelike as _, Days, NaiveDate};

use crate::api::{DateParam, VisitorsQuery};

/// How long one bucket of a trend is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Day,
    /// ISO weeks, Monday to Monday (the first and last clipped to the range).
    Week,
}

/// A trend to read: whole UTC days `[from, to)`, in buckets of `by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrendPlan {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub by: By,
}

impl TrendPlan {
    /// The buckets' days, in time order.
    #[must_use]
    pub fn ranges(&self) -> Vec<(NaiveDate, NaiveDate)> {
        let mut out = Vec::new();
        let mut at = self.from;
        while at < self.to {
            let next = match self.by {
                By::Day => at.checked_add_days(Days::new(1)),
                By::Week => {
                    let to_monday = 7 - u64::from(at.weekday().num_days_from_monday());
                    at.checked_add_days(Days::new(to_monday))
                }
            };
            let Some(next) = next else { break };
            let end = next.min(self.to);
            out.push((at, end));
            at = end;
        }
        out
    }
}

/// One bucket's unique visitors: the service's totals for its range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bucket {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub human: u64,
    pub ai: u64,
    pub total: u64,
}

/// The period just before `query`'s, of the same length: `[from − (to − from), from)`.
/// `None` when a side is open.
#[must_use]
pub fn previous_period(query: &VisitorsQuery) -> Option<VisitorsQuery> {
    let (from, to) = (query.date_from?, query.date_to?);
    let start = from.instant() - (to.instant() - from.instant());
    let side = |at: chrono::DateTime<chrono::Utc>, like: DateParam| {
        if like.to_string().len() == 10 && at.time() == chrono::NaiveTime::MIN {
            DateParam::from_date(at.date_naive())
        } else {
            DateParam::from_instant(at)
        }
    };
    Some(VisitorsQuery {
        date_from: Some(side(start, from)),
        date_to: Some(from),
        limit: query.limit,
        offset: Some(0),
    })
}
