//! The comparison with the period before (same length, just before: `[from − (to −
//! from), from)`): its totals, read with one request when `v` turns it on, and the
//! change of each number.

use super::super::insight_local::previous_period;
use crate::api::{ApiError, VisitorTotals, VisitorsPage, VisitorsQuery};
use crate::tui::app::{App, CallClass};
use crate::tui::message::{Clock, Effect, Io};

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

/// How one number moved: by how much, and by what part of what it was (none from 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Change {
    pub by: i128,
    pub percent: Option<f64>,
}

impl Change {
    #[must_use]
    pub fn of(now: u64, before: u64) -> Self {
        let by = i128::from(now) - i128::from(before);
        #[expect(clippy::cast_precision_loss)]
        let percent = (before > 0).then(|| by as f64 * 100.0 / before as f64);
        Self { by, percent }
    }
}

/// The change of the AI share, in percentage points.
#[must_use]
pub fn share_points(now: VisitorTotals, before: VisitorTotals) -> f64 {
    now.ai_share() - before.ai_share()
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
        let mut query = self.visitors.query(now.wall.date_naive());
        query.limit = Some(1);
        let Some(previous) = previous_period(&query) else {
            self.visitors.previous = PreviousLoad::NeedsDates;
            return;
        };
        if self.visitors.previous.query() == Some(&previous)
            && !matches!(self.visitors.previous, PreviousLoad::Failed { .. })
        {
            return;
        }
        if let Some(why) = self.rate_refusal(CallClass::Analytics, now) {
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
        effects.push(Effect::Io(Io::FetchPrevious {
            generation,
            query: previous,
        }));
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_says_how_much_and_what_part_and_none_from_nothing() {
        let up = Change::of(150, 100);
        assert_eq!(up.by, 50);
        assert_eq!(up.percent, Some(50.0));
        assert_eq!(Change::of(0, 0).percent, None);
        assert_eq!(Change::of(7, 0).by, 7);
        assert_eq!(Change::of(80, 100).percent, Some(-20.0));
    }
}
