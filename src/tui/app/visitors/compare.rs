//! The comparison with the period before (same length, just before: `[from − (to −
//! from), from)`): its totals, read with one request when `v` turns it on, and the
//! change of each number.

use crate::api::{ApiError, VisitorTotals, VisitorsPage, VisitorsQuery};
use crate::insight::buckets::{param, previous_period};
use crate::tui::app::{App, CallClass};
use crate::tui::message::{Clock, Effect, InsightIo, Io};

/// The period before, from `v` on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PreviousLoad {
    /// The comparison is off.
    #[default]
    Off,
    /// The range has an open side: there is no period of the same length before it.
    NeedsDates,
    Fetching {
        generation: u64,
        query: VisitorsQuery,
    },
    Shown {
        query: VisitorsQuery,
        totals: VisitorTotals,
    },
    Failed {
        query: VisitorsQuery,
        error: String,
    },
}

impl PreviousLoad {
    /// The previous period's range, when one is asked or held.
    #[must_use]
    pub fn query(&self) -> Option<&VisitorsQuery> {
        match self {
            Self::Off | Self::NeedsDates => None,
            Self::Fetching { query, .. }
            | Self::Shown { query, .. }
            | Self::Failed { query, .. } => Some(query),
        }
    }

    #[must_use]
    pub fn is_on(&self) -> bool {
        !matches!(self, Self::Off)
    }
}

impl App {
    /// `v`: compares with the period before, or stops comparing.
    pub(in crate::tui::app) fn toggle_compare(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        if self.visitors.previous.is_on() {
            self.visitors.previous = PreviousLoad::Off;
            return;
        }
        self.visitors.previous = PreviousLoad::NeedsDates;
        self.want_previous(now, effects);
    }

    /// Reads the period before the range on screen, when comparing and not held.
    pub(in crate::tui::app) fn want_previous(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        if !self.visitors.previous.is_on() {
            return;
        }
        let query = self.visitors.query(now.wall.date_naive());
        // Only its totals are wanted: one row.
        let Some(previous) = previous_range(&query, Some(1)) else {
            self.visitors.previous = PreviousLoad::NeedsDates;
            return;
        };
        if self.visitors.previous.query() == Some(&previous)
            && !matches!(self.visitors.previous, PreviousLoad::Failed { .. })
        {
            return;
        }
        if let Some(why) = self.link.refusal(CallClass::Analytics, now) {
            self.visitors.previous = PreviousLoad::Failed {
                query: previous,
                error: format!("{why}; r reads it then"),
            };
            return;
        }
        self.visitors.previous_requests += 1;
        let generation = self.visitors.previous_requests;
        self.visitors.previous = PreviousLoad::Fetching {
            generation,
            query: previous.clone(),
        };
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchPrevious {
            generation,
            query: previous,
        })));
    }

    pub(in crate::tui::app) fn on_previous(
        &mut self,
        generation: u64,
        result: Result<VisitorsPage, ApiError>,
        now: Clock,
    ) {
        self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
        let PreviousLoad::Fetching {
            generation: g,
            query,
        } = &self.visitors.previous
        else {
            return;
        };
        if *g != generation {
            return;
        }
        let query = query.clone();
        self.dirty = true;
        self.visitors.previous = match result {
            Ok(page) => PreviousLoad::Shown {
                query,
                totals: page.totals,
            },
            Err(err) => PreviousLoad::Failed {
                query,
                error: err.to_string(),
            },
        };
    }
}

/// The period before `query`'s range, asked with `limit`; `None` when a side of the
/// range is open.
pub(super) fn previous_range(query: &VisitorsQuery, limit: Option<u32>) -> Option<VisitorsQuery> {
    let (from, to) = (query.date_from?.instant(), query.date_to?.instant());
    let (start, end) = previous_period(from, to)?;
    Some(VisitorsQuery {
        date_from: Some(param(start)),
        date_to: Some(param(end)),
        limit,
        offset: None,
    })
}
