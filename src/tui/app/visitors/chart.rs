//! The chart's side of the pane: shown or hidden (by size until `c` says), and the
//! trend it draws, read for the range on screen when the chart is shown, at a cost
//! asked for above a few requests.

use super::super::confirm::Ask;
use super::trend::TrendLoad;
use crate::api::{ApiError, VisitorTotals};
use crate::journal::ASK_ABOVE;
use crate::tui::app::{App, CallClass, NoticeKind};
use crate::tui::message::{Clock, Effect, InsightIo, Io, TrendPlan};

/// Rows from which the chart is shown until `c` says otherwise: at 80x24 the rows keep
/// the room, from 30 rows (120x40) the chart fits beside enough of them.
pub const CHART_MIN_HEIGHT: u16 = 30;

impl App {
    /// Whether the chart is shown: as `c` last said, else by the terminal's height.
    #[must_use]
    pub fn chart_shown(&self) -> bool {
        self.visitors
            .chart
            .unwrap_or_else(|| self.size.is_some_and(|(_, h)| h >= CHART_MIN_HEIGHT))
    }

    /// `c`: shows or hides the chart; shown, it reads the trend if it has not.
    pub(in crate::tui::app) fn toggle_chart(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        let shown = !self.chart_shown();
        self.visitors.chart = Some(shown);
        if shown {
            if matches!(self.visitors.trend, TrendLoad::Declined { .. }) {
                self.visitors.trend = TrendLoad::Idle;
            }
            self.want_trend(now, effects);
        } else if self.visitors.trend.generation().is_some() {
            // Hidden while being read: stop spending on it.
            self.visitors.trend = TrendLoad::Idle;
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
    }

    /// Reads the trend of the range on screen if the chart is shown and does not hold it.
    pub(in crate::tui::app) fn want_trend(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        if !self.chart_shown() {
            return;
        }
        let query = self.visitors.query(now.wall.date_naive());
        let Some(plan) = TrendPlan::of(query.date_from, query.date_to) else {
            if self.visitors.trend.generation().is_some() {
                effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
            }
            self.visitors.trend = TrendLoad::NeedsDates;
            return;
        };
        if self.visitors.trend.covers(&plan) {
            return;
        }
        if let Some(why) = self.link.refusal(CallClass::Analytics, now) {
            self.visitors.trend = TrendLoad::Failed {
                plan,
                error: format!("{why}; r reads it then"),
            };
            return;
        }
        if self.visitors.trend.generation().is_some() {
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
        self.visitors.trend_requests += 1;
        let generation = self.visitors.trend_requests;
        self.visitors.trend = TrendLoad::Fetching {
            generation,
            plan,
            done: 0,
            of: 0,
        };
        let allow = ASK_ABOVE.min(self.analytics_left());
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchTrend {
            generation,
            plan,
            allow,
            refresh: false,
        })));
    }

    /// `r`: the trend is read again once the page is (settled days come from the journal
    /// at no cost).
    pub(in crate::tui::app) fn refresh_trend(&mut self, effects: &mut Vec<Effect>) {
        if self.visitors.trend.generation().is_some() {
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
        self.visitors.trend = TrendLoad::Idle;
    }

    /// The trend needs more requests than it may spend unasked: ask, or say why not.
    pub(in crate::tui::app) fn on_trend_needs(
        &mut self,
        generation: u64,
        requests: u32,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let Some(plan) = self.visitors.trend.fetching(generation) else {
            return;
        };
        self.dirty = true;
        self.visitors.trend = TrendLoad::Asking {
            generation,
            plan,
            requests,
        };
        self.consider(Ask::Trend { generation, plan }, requests, now, effects);
    }

    pub(in crate::tui::app) fn trend_confirmed(
        &mut self,
        generation: u64,
        plan: TrendPlan,
        requests: u32,
        effects: &mut Vec<Effect>,
    ) {
        if self.visitors.trend.generation() != Some(generation) {
            return;
        }
        self.visitors.trend = TrendLoad::Fetching {
            generation,
            plan,
            done: 0,
            of: 0,
        };
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchTrend {
            generation,
            plan,
            allow: requests,
            refresh: false,
        })));
    }

    pub(in crate::tui::app) fn trend_declined(&mut self, plan: TrendPlan, why: String) {
        self.visitors.trend = TrendLoad::Declined { plan, why };
    }

    pub(in crate::tui::app) fn on_trend_progress(&mut self, generation: u64, got: u32, all: u32) {
        if let TrendLoad::Fetching {
            generation: g,
            done,
            of,
            ..
        } = &mut self.visitors.trend
            && *g == generation
        {
            *done = got;
            *of = all;
            self.dirty = true;
        }
    }

    pub(in crate::tui::app) fn on_trend(
        &mut self,
        generation: u64,
        result: Result<Vec<VisitorTotals>, ApiError>,
        requests: u32,
        now: Clock,
    ) {
        // The budget's count came from the runner already; a 429 pauses analytics.
        if requests > 0 || result.is_err() {
            self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
        }
        let Some(plan) = self.visitors.trend.fetching(generation) else {
            return;
        };
        self.dirty = true;
        self.visitors.trend = match result {
            Ok(totals) => TrendLoad::Shown { plan, totals },
            Err(err) => TrendLoad::Failed {
                plan,
                error: err.to_string(),
            },
        };
    }

    /// Esc in the pane: stops the trend being read. Returns whether one was.
    pub(in crate::tui::app) fn cancel_trend(&mut self, effects: &mut Vec<Effect>) -> bool {
        let TrendLoad::Fetching { plan, .. } = &self.visitors.trend else {
            return false;
        };
        let plan = *plan;
        effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        self.visitors.trend = TrendLoad::Declined {
            plan,
            why: "stopped: r reads it again".into(),
        };
        self.notify(NoticeKind::Info, "the chart's trend was stopped");
        true
    }
}
