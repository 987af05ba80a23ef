//! Splitting a range into the buckets of a trend (UTC days, or ISO weeks from Monday),
//! and the period before a range. The interface has no time series: each bucket is read
//! as its own visitors request with `limit=1`, and its totals are the bucket's numbers.

use chrono::{DateTime, Datelike as _, Days, NaiveTime, TimeDelta, Utc};

use crate::api::{DateParam, VisitorsQuery};

/// How long after its end a bucket can still change: views arrive late (logs imported
/// later, the hosted service's own processing), so a bucket that ended less than this
/// long ago (48 hours) is read again every time; one that ended longer ago is settled,
/// and the journal keeps its numbers.
pub use crate::journal::TREND_SETTLING as SETTLING;

/// Ranges longer than this many days are drawn per week by the console (a day per
/// column stops being readable, and a week costs one request instead of seven).
pub const WEEKS_ABOVE_DAYS: i64 = 60;

/// The width of a bucket.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum By {
    /// UTC days, from 00:00 to 00:00.
    Day,
    /// ISO weeks: Monday 00:00 UTC to the next Monday.
    Week,
}

impl By {
    /// The console's choice for a range: days, or weeks once the range is longer than
    /// [`WEEKS_ABOVE_DAYS`].
    #[must_use]
    pub fn for_range(from: DateTime<Utc>, to: DateTime<Utc>) -> Self {
        if to - from > TimeDelta::days(WEEKS_ABOVE_DAYS) {
            Self::Week
        } else {
            Self::Day
        }
    }

    /// `day` or `week`, as the CLI and its JSON say it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Day => "day",
            Self::Week => "week",
        }
    }

    /// The first boundary of this width strictly after `at`.
    fn next_boundary(self, at: DateTime<Utc>) -> DateTime<Utc> {
        let date = at.date_naive();
        let days = match self {
            Self::Day => 1,
            Self::Week => 7 - u64::from(date.weekday().num_days_from_monday()),
        };
        date.checked_add_days(Days::new(days))
            .map_or(DateTime::<Utc>::MAX_UTC, |next| {
                next.and_time(NaiveTime::MIN).and_utc()
            })
    }

    /// How many buckets [`buckets`] makes of `[from, to)`, without making them: to refuse
    /// a range that would need too many requests before allocating anything.
    #[must_use]
    pub fn count(self, from: DateTime<Utc>, to: DateTime<Utc>) -> u64 {
        if to <= from {
            return 0;
        }
        let width = match self {
            Self::Day => 1,
            Self::Week => 7,
        };
        // Boundaries are counted from a fixed Monday, so both widths line up with them.
        let epoch_monday = |t: DateTime<Utc>| {
            let days = t.date_naive().num_days_from_ce() - 1; // 0001-01-01 was a Monday
            i64::from(days).div_euclid(width)
        };
        let last = to - TimeDelta::nanoseconds(1);
        u64::try_from(epoch_monday(last) - epoch_monday(from) + 1).unwrap_or(0)
    }
}

impl std::str::FromStr for By {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.trim().to_ascii_lowercase().as_str() {
            "day" => Ok(Self::Day),
            "week" => Ok(Self::Week),
            _ => Err(format!("{text:?} is not a bucket width: use day or week")),
        }
    }
}

/// One bucket of a trend: `from` included, `to` excluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Bucket {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
}

impl Bucket {
    /// The request that reads this bucket's totals: its range, one row (the rows are not
    /// wanted, only the totals, which do not depend on `limit`).
    #[must_use]
    pub fn query(&self) -> VisitorsQuery {
        VisitorsQuery {
            date_from: Some(param(self.from)),
            date_to: Some(param(self.to)),
            limit: Some(1),
            offset: None,
        }
    }

    /// `(from, to)`, as the journal's trend cache takes it.
    #[must_use]
    pub fn range(&self) -> (DateTime<Utc>, DateTime<Utc>) {
        (self.from, self.to)
    }

    /// Whether the bucket ended more than [`SETTLING`] before `now`, so its numbers
    /// cannot change any more.
    #[must_use]
    pub fn settled(&self, now: DateTime<Utc>) -> bool {
        crate::journal::settled(self.to, now)
    }
}

/// A date parameter for `at`: the day alone when it is a UTC midnight (how people and
/// the JSON contract write it), else the exact instant.
#[must_use]
pub fn param(at: DateTime<Utc>) -> DateParam {
    if at.time() == NaiveTime::MIN {
        DateParam::from_date(at.date_naive())
    } else {
        DateParam::from_instant(at)
    }
}

/// `at` as the CLI's JSON and tables write it: `2026-11-15` at a UTC midnight, else RFC 3339.
#[must_use]
pub fn shown(at: DateTime<Utc>) -> String {
    param(at).to_string()
}

/// `[from, to)` in buckets of `by`, in time order. Boundaries are UTC midnights (weeks:
/// Mondays); the first and last buckets are clipped to the range, so a range that starts
/// on a Wednesday begins with a bucket from that Wednesday to the Monday after. An empty
/// or reversed range has no buckets.
#[must_use]
pub fn buckets(from: DateTime<Utc>, to: DateTime<Utc>, by: By) -> Vec<Bucket> {
    let mut out = Vec::new();
    let mut start = from;
    while start < to {
        let end = by.next_boundary(start).min(to);
        out.push(Bucket {
            from: start,
            to: end,
        });
        start = end;
    }
    out
}

/// The period of the same length immediately before `[from, to)`:
/// `[from − (to − from), from)`. `None` when it would start before the year 0000, the
/// first the interface's dates can say.
#[must_use]
pub fn previous_period(
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    let length = to.signed_duration_since(from);
    from.checked_sub_signed(length)
        .filter(|start| start.year() >= 0)
        .map(|start| (start, from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        DateParam::parse("test", text).unwrap().instant()
    }

    fn shown_all(buckets: &[Bucket]) -> Vec<(String, String)> {
        buckets
            .iter()
            .map(|b| (shown(b.from), shown(b.to)))
            .collect()
    }

    #[test]
    fn days_are_utc_days_and_a_range_over_a_month_end_runs_on() {
        let days = buckets(at("2026-10-30"), at("2026-11-02"), By::Day);
        assert_eq!(
            shown_all(&days),
            [
                ("2026-10-30".into(), "2026-10-31".into()),
                ("2026-10-31".into(), "2026-11-01".into()),
                ("2026-11-01".into(), "2026-11-02".into()),
            ]
        );
        assert_eq!(By::Day.count(at("2026-10-30"), at("2026-11-02")), 3);
    }

    #[test]
    fn the_first_and_last_days_are_clipped_to_the_range() {
        let days = buckets(
            at("2026-11-15T18:00:00Z"),
            at("2026-11-17T06:00:00Z"),
            By::Day,
        );
        assert_eq!(
            shown_all(&days),
            [
                ("2026-11-15T18:00:00Z".into(), "2026-11-16".into()),
                ("2026-11-16".into(), "2026-11-17".into()),
                ("2026-11-17".into(), "2026-11-17T06:00:00Z".into()),
            ]
        );
        assert_eq!(
            By::Day.count(at("2026-11-15T18:00:00Z"), at("2026-11-17T06:00:00Z")),
            3
        );
    }

    #[test]
    fn weeks_start_on_monday_and_are_clipped_at_both_ends() {
        // 2026-11-11 is a Wednesday; 2026-11-16 and 2026-11-23 are Mondays.
        let weeks = buckets(at("2026-11-11"), at("2026-11-25"), By::Week);
        assert_eq!(
            shown_all(&weeks),
            [
                ("2026-11-11".into(), "2026-11-16".into()),
                ("2026-11-16".into(), "2026-11-23".into()),
                ("2026-11-23".into(), "2026-11-25".into()),
            ]
        );
        assert_eq!(By::Week.count(at("2026-11-11"), at("2026-11-25")), 3);
        // A range from a Monday to a Monday is whole weeks.
        let whole = buckets(at("2026-11-16"), at("2026-11-30"), By::Week);
        assert_eq!(whole.len(), 2);
        assert_eq!(By::Week.count(at("2026-11-16"), at("2026-11-30")), 2);
        // A week over a month end and a year end.
        let year_end = buckets(at("2026-12-28"), at("2027-01-05"), By::Week);
        assert_eq!(
            shown_all(&year_end),
            [
                ("2026-12-28".into(), "2027-01-04".into()),
                ("2027-01-04".into(), "2027-01-05".into()),
            ]
        );
    }

    #[test]
    fn an_empty_or_reversed_range_has_no_buckets() {
        assert!(buckets(at("2026-11-15"), at("2026-11-15"), By::Day).is_empty());
        assert!(buckets(at("2026-11-16"), at("2026-11-15"), By::Week).is_empty());
        assert_eq!(By::Day.count(at("2026-11-16"), at("2026-11-15")), 0);
    }

    #[test]
    fn the_count_matches_the_buckets_for_many_ranges() {
        let start = at("2026-01-01T05:00:00Z");
        for days in 0..40 {
            for hours in [0, 7, 19] {
                let end = start + TimeDelta::days(days) + TimeDelta::hours(hours);
                for by in [By::Day, By::Week] {
                    assert_eq!(
                        By::count(by, start, end),
                        buckets(start, end, by).len() as u64,
                        "{by:?} {days}d {hours}h"
                    );
                }
            }
        }
    }

    #[test]
    fn a_bucket_reads_with_one_row_and_dates_as_days() {
        let bucket = Bucket {
            from: at("2026-11-15"),
            to: at("2026-11-16"),
        };
        let pairs = bucket.query().to_pairs();
        assert_eq!(
            pairs,
            [
                ("dateFrom", "2026-11-15".to_owned()),
                ("dateTo", "2026-11-16".to_owned()),
                ("limit", "1".to_owned()),
            ]
        );
    }

    #[test]
    fn a_bucket_settles_48_hours_after_its_end() {
        let bucket = Bucket {
            from: at("2026-11-15"),
            to: at("2026-11-16"),
        };
        assert!(!bucket.settled(at("2026-11-17T23:59:00Z")));
        assert!(bucket.settled(at("2026-11-18")));
    }

    #[test]
    fn the_previous_period_has_the_same_length_and_ends_where_the_range_starts() {
        let (from, to) = previous_period(at("2026-11-15"), at("2026-11-22")).unwrap();
        assert_eq!(
            (shown(from), shown(to)),
            ("2026-11-08".into(), "2026-11-15".into())
        );
        let (from, to) = previous_period(at("2026-11-15T12:00:00Z"), at("2026-11-16")).unwrap();
        assert_eq!(
            (shown(from), shown(to)),
            ("2026-11-15".into(), "2026-11-15T12:00:00Z".into())
        );
        // A period before the year 0000 cannot be asked for.
        assert_eq!(previous_period(at("0001-01-01"), at("2026-01-01")), None);
    }

    #[test]
    fn ranges_over_60_days_are_drawn_per_week() {
        assert_eq!(By::for_range(at("2026-01-01"), at("2026-03-02")), By::Day);
        assert_eq!(By::for_range(at("2026-01-01"), at("2026-03-03")), By::Week);
        assert_eq!("Week".parse::<By>(), Ok(By::Week));
        assert!("month".parse::<By>().unwrap_err().contains("day or week"));
    }
}
