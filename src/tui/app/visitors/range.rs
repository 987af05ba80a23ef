//! The date ranges of the visitors pane: presets resolved against today (UTC), custom
//! dates, and the form they are saved in.

use chrono::{Datelike as _, Days, NaiveDate};

use crate::api::DateParam;

/// Which dates the pane shows. Presets are resolved against today (UTC) at each fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateRange {
    /// The last N days including today: `[today - (N-1), today + 1)`.
    LastDays(u32),
    /// `[first of this month, first of next month)`.
    ThisMonth,
    Custom {
        from: Option<DateParam>,
        to: Option<DateParam>,
    },
    AllTime,
}

impl DateRange {
    /// `dateFrom` and `dateTo` (exclusive) for this range, as of `today`.
    #[must_use]
    pub fn bounds(&self, today: NaiveDate) -> (Option<DateParam>, Option<DateParam>) {
        let tomorrow = today.checked_add_days(Days::new(1)).unwrap_or(today);
        match *self {
            Self::LastDays(days) => {
                let from = today
                    .checked_sub_days(Days::new(u64::from(days.saturating_sub(1))))
                    .unwrap_or(today);
                (
                    Some(DateParam::from_date(from)),
                    Some(DateParam::from_date(tomorrow)),
                )
            }
            Self::ThisMonth => {
                let first = today.with_day(1).unwrap_or(today);
                let next = first
                    .checked_add_months(chrono::Months::new(1))
                    .unwrap_or(tomorrow);
                (
                    Some(DateParam::from_date(first)),
                    Some(DateParam::from_date(next)),
                )
            }
            Self::Custom { from, to } => (from, to),
            Self::AllTime => (None, None),
        }
    }

    /// How the range is named in the pane's title.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Self::LastDays(days) => format!("last {days} days"),
            Self::ThisMonth => "this month".to_owned(),
            Self::Custom { .. } => "custom".to_owned(),
            Self::AllTime => "all time".to_owned(),
        }
    }

    /// The form the journal keeps it in.
    #[must_use]
    pub fn to_setting(&self) -> String {
        let side = |d| DateParam::shown(d, "-");
        match self {
            Self::LastDays(days) => format!("{days}d"),
            Self::ThisMonth => "month".to_owned(),
            Self::Custom { from, to } => format!("custom {} {}", side(*from), side(*to)),
            Self::AllTime => "all".to_owned(),
        }
    }

    /// Reads a saved range; anything unreadable is ignored (the default stays).
    #[must_use]
    pub fn from_setting(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        match words.next()? {
            "month" => Some(Self::ThisMonth),
            "all" => Some(Self::AllTime),
            "custom" => {
                let mut side = |field| match words.next()? {
                    "-" => Some(None),
                    value => DateParam::parse(field, value).ok().map(Some),
                };
                Some(Self::Custom {
                    from: side("dateFrom")?,
                    to: side("dateTo")?,
                })
            }
            days => days
                .strip_suffix('d')?
                .parse()
                .ok()
                .filter(|d| (1..=3660).contains(d))
                .map(Self::LastDays),
        }
    }
}
