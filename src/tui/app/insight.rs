//! Where the replies of the visitors pane's insight go: the chart's trend, the period
//! before, the whole range.

use super::App;
use crate::tui::message::{Clock, Effect, InsightMsg};

impl App {
    pub(super) fn on_insight(&mut self, msg: InsightMsg, now: Clock, effects: &mut Vec<Effect>) {
        match msg {
            InsightMsg::TrendNeeds {
                generation,
                requests,
            } => self.on_trend_needs(generation, requests, now, effects),
            InsightMsg::TrendProgress {
                generation,
                done,
                of,
            } => self.on_trend_progress(generation, done, of),
            InsightMsg::Trend {
                generation,
                result,
                requests,
            } => self.on_trend(generation, result, requests, now),
            InsightMsg::Previous { generation, result } => {
                self.on_previous(generation, result, now);
            }
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
            } => self.on_whole(generation, result, now, effects),
        }
    }
}
