//! The trend under the chart: which range it is for, whether it is being read (and how
//! far), and each bucket's totals once read. One enum per state, as the page load is.

use crate::api::VisitorTotals;
use crate::tui::message::{Awaits, Generation, TrendPlan};

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
        generation: Generation,
        plan: TrendPlan,
        done: u32,
        of: u32,
    },
    /// The trend needs `requests` analytics requests: the question is on screen.
    Asking {
        generation: Generation,
        plan: TrendPlan,
        requests: u32,
    },
    /// The user said no to the cost, or the hour's budget cannot cover it.
    Declined {
        plan: TrendPlan,
        why: String,
    },
    /// Each bucket's totals, in the plan's bucket order.
    Shown {
        plan: TrendPlan,
        totals: Vec<VisitorTotals>,
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

    /// The plan of request `generation`, while it is being read.
    #[must_use]
    pub fn fetching(&self, generation: Generation) -> Option<TrendPlan> {
        match self {
            Self::Fetching { plan, .. } if self.awaits(generation) => Some(*plan),
            _ => None,
        }
    }

    /// Whether `plan` is read, being read, asked about or declined: nothing to send.
    #[must_use]
    pub fn covers(&self, plan: &TrendPlan) -> bool {
        !matches!(self, Self::Idle | Self::NeedsDates | Self::Failed { .. })
            && self.plan() == Some(plan)
    }
}

impl Awaits for TrendLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Fetching { generation, .. } | Self::Asking { generation, .. } => {
                Some(*generation)
            }
            _ => None,
        }
    }
}
