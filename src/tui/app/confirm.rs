//! The question asked before work that needs more than a few analytics requests (a
//! trend, the whole range): how many, of how many left this hour, y or n. Nothing is
//! spent until the answer is yes.

use super::TrendPlan;
use super::{App, NoticeKind, Overlay};
use crate::tui::keymap::Action;
use crate::tui::message::Effect;

/// Requests a piece of work may spend without asking.
pub const ASK_ABOVE: u32 = 10;

/// What the question is about, and what yes starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The chart's trend of request `generation`.
    Trend { generation: u64, plan: TrendPlan },
}

/// The question on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub ask: Ask,
    /// Analytics requests the work needs.
    pub requests: u32,
    /// Analytics requests left this hour, as the journal counts them.
    pub left: u32,
}

impl Question {
    /// What is asked, in words.
    #[must_use]
    pub fn text(&self) -> String {
        let what = match &self.ask {
            Ask::Trend { plan, .. } => format!(
                "The chart of {} → {} needs {} analytics requests (one per {} not yet kept \
                 in the journal).",
                crate::insight::buckets::shown(plan.from),
                crate::insight::buckets::shown(plan.to),
                self.requests,
                plan.by.as_str()
            ),
        };
        format!(
            "{what} {} of the hour's analytics requests are left. Spend them?",
            self.left
        )
    }
}

impl App {
    /// Analytics requests left this hour, as the journal counts them.
    #[must_use]
    pub fn analytics_left(&self) -> u32 {
        self.config
            .hourly_limit
            .saturating_sub(self.budget.analytics_used)
    }

    /// Opens the question, unless the hour's budget cannot cover the work at all: then
    /// it says so and returns false.
    pub(super) fn ask(&mut self, ask: Ask, requests: u32) -> bool {
        let left = self.analytics_left();
        if requests > left {
            return false;
        }
        self.overlay = Some(Overlay::Confirm(Question {
            ask,
            requests,
            left,
        }));
        true
    }

    /// y or n.
    pub(super) fn on_confirm_action(&mut self, action: Action, effects: &mut Vec<Effect>) {
        let Some(Overlay::Confirm(question)) = self.overlay.take() else {
            return;
        };
        match (action, question.ask) {
            (Action::Apply, Ask::Trend { generation, plan }) => {
                self.trend_confirmed(generation, plan, question.requests, effects);
            }
            (Action::Close, Ask::Trend { plan, .. }) => {
                self.trend_declined(plan, question.requests);
                self.notify(NoticeKind::Info, "nothing was read: r asks again");
            }
            (_, ask) => {
                self.overlay = Some(Overlay::Confirm(Question { ask, ..question }));
            }
        }
    }
}
