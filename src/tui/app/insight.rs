//! Where the replies of the visitors pane's insight go (the chart's trend, the period
//! before, the whole range), and the keys of the held table's filter line.

use crossterm::event::KeyEvent;

use super::App;
use crate::tui::keymap::{self, KeyContext};
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

    /// A key while the held table's filter line is open: what is typed narrows the rows;
    /// keys that type nothing (Ctrl+C, F1, Tab) keep their global meaning.
    pub(super) fn on_filter_typing(
        &mut self,
        key: &KeyEvent,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let global = keymap::action(KeyContext::Form, key).filter(|a| a.is_global());
        match global {
            Some(action) => self.on_global(action, now, effects),
            None if self.on_filter_key(key) => {}
            None => return,
        }
        self.dirty = true;
    }
}
