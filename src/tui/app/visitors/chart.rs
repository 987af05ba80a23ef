//! The chart's side of the pane: shown or hidden (by size until `c` says), and the
//! trend it draws, read for the range on screen when the chart is shown, at a cost
//! asked for above a few requests; and where every insight reply goes.

use super::trend::TrendLoad;
use super::{Ctx, VisitorsTable};
use crate::api::{ApiError, VisitorTotals};
use crate::journal::ASK_ABOVE;
use crate::tui::app::confirm::Costly;
use crate::tui::app::outcome::Outcome;
use crate::tui::message::{Awaits, Effect, Generation, InsightIo, InsightMsg, Io, TrendPlan};

/// Rows from which the chart is shown until `c` says otherwise: at 80x24 the rows keep
/// the room, from 30 rows (120x40) the chart fits beside enough of them.
pub const CHART_MIN_HEIGHT: u16 = 30;

impl VisitorsTable {
    /// Whether the chart is shown: as `c` last said, else by the terminal's height.
    #[must_use]
    pub fn chart_shown(&self, size: Option<(u16, u16)>) -> bool {
        self.chart
            .unwrap_or_else(|| size.is_some_and(|(_, h)| h >= CHART_MIN_HEIGHT))
    }

    /// `c`: shows or hides the chart; shown, it reads the trend if it has not.
    pub(in crate::tui::app) fn toggle_chart(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        let shown = !self.chart_shown(ctx.size);
        self.chart = Some(shown);
        if shown {
            if matches!(self.trend, TrendLoad::Declined { .. }) {
                self.trend = TrendLoad::Idle;
            }
            self.want_trend(ctx, effects);
        } else if self.trend.generation().is_some() {
            // Hidden while being read: stop spending on it.
            self.trend = TrendLoad::Idle;
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
    }

    /// Reads the trend of the range on screen if the chart is shown and does not hold it.
    pub(in crate::tui::app) fn want_trend(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        if !self.chart_shown(ctx.size) {
            return;
        }
        let query = self.query(ctx.today());
        let Some(plan) = TrendPlan::of(query.date_from, query.date_to) else {
            if self.trend.generation().is_some() {
                effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
            }
            self.trend = TrendLoad::NeedsDates;
            return;
        };
        if self.trend.covers(&plan) {
            return;
        }
        if let Some(why) = &ctx.paused {
            self.trend = TrendLoad::Failed {
                plan,
                error: format!("{why}; r reads it then"),
            };
            return;
        }
        if self.trend.generation().is_some() {
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
        let generation = self.generations.issue();
        self.trend = TrendLoad::Fetching {
            generation,
            plan,
            done: 0,
            of: 0,
        };
        let allow = ASK_ABOVE.min(ctx.analytics_left);
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
        if self.trend.generation().is_some() {
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        }
        self.trend = TrendLoad::Idle;
    }

    /// The trend needs more requests than it may spend unasked: ask, or say why not.
    fn on_trend_needs(&mut self, generation: Generation, requests: u32) -> Outcome {
        let Some(plan) = self.trend.fetching(generation) else {
            return Outcome::Done;
        };
        self.trend = TrendLoad::Asking {
            generation,
            plan,
            requests,
        };
        Outcome::Consider(Costly::Trend { generation, plan }, requests)
    }

    pub(super) fn trend_confirmed(
        &mut self,
        generation: Generation,
        plan: TrendPlan,
        requests: u32,
        effects: &mut Vec<Effect>,
    ) {
        if !self.trend.awaits(generation) {
            return;
        }
        self.trend = TrendLoad::Fetching {
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

    pub(super) fn trend_declined(&mut self, plan: TrendPlan, why: String) {
        self.trend = TrendLoad::Declined { plan, why };
    }

    fn on_trend_progress(&mut self, generation: Generation, got: u32, all: u32) -> Outcome {
        if self.trend.awaits(generation)
            && let TrendLoad::Fetching { done, of, .. } = &mut self.trend
        {
            *done = got;
            *of = all;
            return Outcome::Changed;
        }
        Outcome::Done
    }

    /// The trend of request `generation` came (the app recorded the call).
    fn on_trend(
        &mut self,
        generation: Generation,
        result: Result<Vec<VisitorTotals>, ApiError>,
    ) -> Outcome {
        let Some(plan) = self.trend.fetching(generation) else {
            return Outcome::Done;
        };
        self.trend = match result {
            Ok(totals) => TrendLoad::Shown { plan, totals },
            Err(err) => TrendLoad::Failed {
                plan,
                error: err.to_string(),
            },
        };
        Outcome::Changed
    }

    /// Esc in the pane: stops the trend being read. Returns whether one was.
    pub(in crate::tui::app) fn cancel_trend(&mut self, effects: &mut Vec<Effect>) -> bool {
        let TrendLoad::Fetching { plan, .. } = &self.trend else {
            return false;
        };
        let plan = *plan;
        effects.push(Effect::Io(Io::Insight(InsightIo::CancelTrend)));
        self.trend = TrendLoad::Declined {
            plan,
            why: "stopped: r reads it again".into(),
        };
        true
    }

    /// What the chart, the comparison and the whole range hear back (the app recorded
    /// the call each reports).
    pub(in crate::tui::app) fn on_insight(&mut self, msg: InsightMsg, ctx: &Ctx) -> Outcome {
        match msg {
            InsightMsg::TrendNeeds {
                generation,
                requests,
            } => self.on_trend_needs(generation, requests),
            InsightMsg::TrendProgress {
                generation,
                done,
                of,
            } => self.on_trend_progress(generation, done, of),
            InsightMsg::Trend {
                generation,
                result,
                requests: _,
            } => self.on_trend(generation, result),
            InsightMsg::Previous { generation, result } => self.on_previous(generation, result),
            InsightMsg::Feedback { generation, result } => self.on_feedback(generation, result),
            InsightMsg::WholeProgress {
                generation,
                requests,
                rows,
                most,
            } => self.on_whole_progress(generation, requests, rows, most),
            InsightMsg::Whole {
                generation,
                result,
                requests: _,
            } => self.on_whole(generation, result, ctx),
        }
    }
}
