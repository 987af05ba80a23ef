//! Which trend to read: the range and the size of its buckets. It travels in the insight
//! messages, so it lives beside them.

use chrono::{DateTime, Utc};

use crate::api::DateParam;
use crate::insight::buckets::{Bucket, By, buckets};

/// A trend to read: `[from, to)` in buckets of `by` (days, or ISO weeks over 60 days).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrendPlan {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub by: By,
}

impl TrendPlan {
    /// The plan for a range; `None` when a side is open or the range is empty.
    #[must_use]
    pub fn of(from: Option<DateParam>, to: Option<DateParam>) -> Option<Self> {
        let (from, to) = (from?.instant(), to?.instant());
        (from < to).then(|| Self {
            from,
            to,
            by: By::for_range(from, to),
        })
    }

    /// The buckets, in time order.
    #[must_use]
    pub fn buckets(&self) -> Vec<Bucket> {
        buckets(self.from, self.to, self.by)
    }
}
