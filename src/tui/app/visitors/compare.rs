//! The comparison with the period before (same length, just before: `[from − (to −
//! from), from)`): its totals, read with one request when `v` turns it on, and the
//! change of each number.

use super::{Ctx, VisitorsTable};
use crate::api::{ApiError, VisitorTotals, VisitorsPage, VisitorsQuery};
use crate::insight::buckets::{param, previous_period};
use crate::tui::app::outcome::Outcome;
use crate::tui::message::{Awaits, Effect, Generation, InsightIo, Io};

/// The period before, from `v` on.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum PreviousLoad {
    /// The comparison is off.
    #[default]
    Off,
    /// The range has an open side: there is no period of the same length before it.
    NeedsDates,
    Fetching {
        generation: Generation,
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
    /// The previous period's range, when one is asked or read.
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

impl Awaits for PreviousLoad {
    fn generation(&self) -> Option<Generation> {
        match self {
            Self::Fetching { generation, .. } => Some(*generation),
            _ => None,
        }
    }
}

impl VisitorsTable {
    /// `v`: compares with the period before, or stops comparing.
    pub(in crate::tui::app) fn toggle_compare(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        if self.previous.is_on() {
            self.previous = PreviousLoad::Off;
            return;
        }
        self.previous = PreviousLoad::NeedsDates;
        self.want_previous(ctx, effects);
    }

    /// Reads the period before the range on screen, when comparing and not read.
    pub(in crate::tui::app) fn want_previous(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        if !self.previous.is_on() {
            return;
        }
        let query = self.query(ctx.today());
        // Only its totals are wanted: one row.
        let Some(previous) = previous_range(&query, Some(1)) else {
            self.previous = PreviousLoad::NeedsDates;
            return;
        };
        if self.previous.query() == Some(&previous)
            && !matches!(self.previous, PreviousLoad::Failed { .. })
        {
            return;
        }
        if let Some(why) = &ctx.paused {
            self.previous = PreviousLoad::Failed {
                query: previous,
                error: format!("{why}; r reads it then"),
            };
            return;
        }
        let generation = self.generations.issue();
        self.previous = PreviousLoad::Fetching {
            generation,
            query: previous.clone(),
        };
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchPrevious {
            generation,
            query: previous,
        })));
    }

    /// The totals of the period before came (the app recorded the call).
    pub(super) fn on_previous(
        &mut self,
        generation: Generation,
        result: Result<VisitorsPage, ApiError>,
    ) -> Outcome {
        if !self.previous.awaits(generation) {
            return Outcome::Done;
        }
        let PreviousLoad::Fetching { query, .. } = std::mem::take(&mut self.previous) else {
            return Outcome::Done;
        };
        self.previous = match result {
            Ok(page) => PreviousLoad::Shown {
                query,
                totals: page.totals,
            },
            Err(err) => PreviousLoad::Failed {
                query,
                error: err.to_string(),
            },
        };
        Outcome::Changed
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
