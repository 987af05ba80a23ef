//! The trend under the chart: which range it is for, whether it is being read (and how
//! far), and the buckets once read. One enum per state, as the page load is.

use chrono::NaiveDate;

use super::super::insight_local::{Bucket, By, TrendPlan};

/// The chart's data, from the first request on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum TrendLoad {
    /// Nothing asked: the chart is hidden, or was never shown.
    #[default]
    Idle,
    /// The range has an open side (all time, or a custom range without an end): a trend
    /// needs both dates.
    NeedsDates,
    /// A request is out (`done` of `of` buckets read; `of` is 0 until the cache said).
    Fetching {
        generation: u64,
        plan: TrendPlan,
        done: u32,
        of: u32,
    },
    /// The trend needs `requests` analytics requests: the question is on screen.
    Asking {
        generation: u64,
        plan: TrendPlan,
        requests: u32,
    },
    /// The user said no to the cost, or the hour's budget cannot cover it.
    Declined {
        plan: TrendPlan,
        why: String,
    },
    Shown {
        plan: TrendPlan,
        buckets: Vec<Bucket>,
    },
    Failed {
        plan: TrendPlan,
        error: String,
    },
}

impl TrendLoad {
    /// The range this state is for, if any.
    #[must_use]
    pub fn plan(&self) -> Option<&TrendPlan> {
        match self {
            Self::Idle | Self::NeedsDates => None,
            Self::Fetching { plan, .. }
            | Self::Asking { plan, .. }
            | Self::Declined { plan, .. }
            | Self::Shown { plan, .. }
            | Self::Failed { plan, .. } => Some(plan),
        }
    }

    /// The number of the request out (or asked about), if one is.
    #[must_use]
    pub fn generation(&self) -> Option<u64> {
        match self {
            Self::Fetching { generation, .. } | Self::Asking { generation, .. } => {
                Some(*generation)
            }
            _ => None,
        }
    }

    /// Whether `plan` is already held, read or asked about (nothing to send).
    #[must_use]
    pub fn covers(&self, plan: &TrendPlan) -> bool {
        matches!(
            self,
            Self::Fetching { .. }
                | Self::Asking { .. }
                | Self::Shown { .. }
                | Self::Declined { .. }
        ) && self.plan() == Some(plan)
    }
}

/// The days of the trend for a range's bounds: whole UTC days, a bound inside a day
/// taking that whole day. `None` when a side is open.
#[must_use]
pub fn days_of(
    from: Option<crate::api::DateParam>,
    to: Option<crate::api::DateParam>,
) -> Option<(NaiveDate, NaiveDate)> {
    let from = from?.instant();
    let to = to?.instant();
    let end = if to.time() == chrono::NaiveTime::MIN {
        to.date_naive()
    } else {
        to.date_naive().succ_opt()?
    };
    (from.date_naive() < end).then_some((from.date_naive(), end))
}

/// The plan of a trend over `[from, to)`: by day up to 60 days, else by ISO week.
#[must_use]
pub fn plan_for(from: NaiveDate, to: NaiveDate) -> TrendPlan {
    let by = if (to - from).num_days() > 60 {
        By::Week
    } else {
        By::Day
    };
    TrendPlan { from, to, by }
}
