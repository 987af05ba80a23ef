//! What the visitors pane's insight (the chart's trend, the period before, the whole
//! range) asks the runner for, and what it hears back: kept apart from the console's
//! other messages so each side matches them in one place.

use super::TrendPlan;
use crate::api::signals::{FeedbackByPage, SignalsQuery};
use crate::api::{ApiError, PathVisitors, VisitorTotals, VisitorsPage, VisitorsQuery};
use crate::tui::message::Generation;

/// What the chart, the comparison and the whole range hear back.
#[derive(Debug)]
pub enum InsightMsg {
    /// The trend of request `generation` needs `requests` analytics requests (its cached
    /// buckets cost none), more than it was allowed: nothing was sent; the app asks.
    TrendNeeds {
        generation: Generation,
        requests: u32,
    },
    /// Buckets of the trend read so far (from the cache or the service), of all.
    TrendProgress {
        generation: Generation,
        done: u32,
        of: u32,
    },
    /// The trend of request `generation`, or why not; `requests` is how many analytics
    /// requests it made (the budget's count).
    Trend {
        generation: Generation,
        result: Result<Vec<VisitorTotals>, ApiError>,
        requests: u32,
    },
    /// The totals of the period before, for the comparison; dropped when its generation
    /// is not the latest.
    Previous {
        generation: Generation,
        result: Result<VisitorsPage, ApiError>,
    },
    /// The range's feedback counted per page (👍, 👎), for the table's feedback
    /// columns; dropped when its generation is not the latest.
    Feedback {
        generation: Generation,
        result: Result<FeedbackByPage, ApiError>,
    },
    /// How far the whole-range fetch of `generation` has come.
    WholeProgress {
        generation: Generation,
        requests: u32,
        rows: usize,
        most: u32,
    },
    /// How the whole-range fetch of `generation` ended (a cancelled one says nothing);
    /// `requests` is how many it sent.
    Whole {
        generation: Generation,
        result: Result<WholeEnd, ApiError>,
        requests: u32,
    },
}

impl InsightMsg {
    /// The analytics call this reply reports, for the link and its rate pauses: progress
    /// reports none, and a trend read wholly from the journal made none.
    #[must_use]
    pub fn analytics_call(&self) -> Option<Result<(), &ApiError>> {
        match self {
            Self::TrendNeeds { .. } | Self::TrendProgress { .. } | Self::WholeProgress { .. } => {
                None
            }
            Self::Trend {
                result, requests, ..
            } => (*requests > 0 || result.is_err()).then(|| result.as_ref().map(|_| ())),
            Self::Previous { result, .. } => Some(result.as_ref().map(|_| ())),
            Self::Feedback { result, .. } => Some(result.as_ref().map(|_| ())),
            Self::Whole { result, .. } => Some(result.as_ref().map(|_| ())),
        }
    }
}

/// What the chart, the comparison and the whole range ask the runner for.
#[derive(Debug, Clone, PartialEq)]
pub enum InsightIo {
    /// Reads a trend: each bucket from the journal's cache when settled, else one request
    /// with `limit=1`. When more than `allow` requests would be needed it sends none and
    /// answers `TrendNeeds`; otherwise `TrendProgress` as buckets come, then `Trend`.
    FetchTrend {
        generation: Generation,
        plan: TrendPlan,
        allow: u32,
        /// Read settled buckets again too, rather than from the journal.
        refresh: bool,
    },
    /// Stops the trend being read (Esc, another range): no answer comes.
    CancelTrend,
    /// Reads the totals of the period before (`limit=1`); answers `Previous`.
    FetchPrevious {
        generation: Generation,
        query: VisitorsQuery,
    },
    /// Reads the range's feedback per page (one request, the most pages a request
    /// holds); answers `Feedback`.
    FetchFeedback {
        generation: Generation,
        query: SignalsQuery,
    },
    /// Fetches every row of `query`'s range (pages of 250) up to `max_rows`, then those
    /// of `previous` when comparing; answers `WholeProgress` as pages come, then `Whole`.
    FetchWhole {
        generation: Generation,
        query: VisitorsQuery,
        previous: Option<VisitorsQuery>,
        max_rows: usize,
        /// Requests it may send in all; a range that needs more answers `NeedsMore`.
        allow: u32,
    },
    /// Esc or `w` during the whole-range fetch: stops it; the pages stay.
    CancelWhole,
}

/// How a whole-range fetch ended, when no request failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WholeEnd {
    /// Every row of the range; with the period before's rows when they were asked for and
    /// read whole (`None`: not asked, or more than the threshold).
    All {
        page: VisitorsPage,
        previous: Option<Vec<PathVisitors>>,
    },
    /// The range has more rows than `max_rows`.
    TooMany { max_rows: usize },
    /// It needs more requests than it was allowed: the app asks before the rest.
    NeedsMore,
}
