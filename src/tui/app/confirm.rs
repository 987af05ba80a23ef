//! The question asked before work that needs more than a few analytics requests (a
//! trend, the whole range): how many, of how many left this hour, y or n. Nothing is
//! spent until the answer is yes, and work the hour's budget cannot cover is refused
//! with when enough requests free up (the journal's rule, `AnalyticsBudget::decide`).

use super::outcome::Outcome;
use super::{App, NoticeKind, Overlay};
use crate::journal::Decision;
use crate::tui::keymap::Action;
use crate::tui::message::Generation;
use crate::tui::message::{Clock, Effect, TrendPlan};

/// What the question is about, and what yes starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ask {
    /// The chart's trend of request `generation`.
    Trend {
        generation: Generation,
        plan: TrendPlan,
    },
    /// Every row of the range (and of the period before, when comparing).
    Whole { generation: Generation },
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
                "The chart of {} → {} needs {} analytics requests (one per {} not kept in \
                 the journal yet).",
                crate::insight::buckets::shown(plan.from),
                crate::insight::buckets::shown(plan.to),
                self.requests,
                plan.by.as_str()
            ),
            Ask::Whole { .. } => format!(
                "This range has more rows than 10 requests hold (250 each): holding all of \
                 them takes up to {} analytics requests, from the start.",
                self.requests
            ),
        };
        format!(
            "{what} {} of this hour's 100 analytics requests are left. Spend them?",
            self.left
        )
    }
}

impl App {
    /// Work of `requests` analytics requests: started when few, asked about when more
    /// than 10, refused (saying when enough free up) when more than are left.
    pub(super) fn consider(
        &mut self,
        ask: Ask,
        requests: u32,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        match self.link.budget.analytics.decide(requests) {
            Decision::Go => self.answered(ask, Ok(requests), now, effects),
            Decision::Ask { needed, left } => {
                self.overlay = Some(Overlay::Confirm(Question {
                    ask,
                    requests: needed,
                    left,
                }));
            }
            Decision::Refuse {
                needed,
                left,
                enough_at,
            } => {
                let when = enough_at.map_or_else(
                    || "more than an hour's budget: choose shorter dates".to_owned(),
                    |at| format!("enough are free at {} UTC", at.format("%H:%M")),
                );
                let why = format!(
                    "needs {needed} analytics requests and {left} are left this hour; {when}"
                );
                self.answered(ask, Err(why), now, effects);
            }
        }
    }

    /// The answer reaches the pane that asked: yes with the requests allowed, or why not.
    fn answered(
        &mut self,
        ask: Ask,
        answer: Result<u32, String>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        self.in_visitors(now, effects, |v, ctx, fx| {
            v.answered(ask, answer, ctx, fx);
            Outcome::Done
        });
    }

    /// y or n.
    pub(super) fn on_confirm_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let Some(Overlay::Confirm(question)) = self.overlay.take() else {
            return;
        };
        match action {
            Action::Apply => self.answered(question.ask, Ok(question.requests), now, effects),
            Action::Close => {
                let why = format!(
                    "not read: it needs {} analytics requests; r asks again",
                    question.requests
                );
                self.answered(question.ask, Err(why), now, effects);
                self.notify(NoticeKind::Info, "nothing was read: r asks again");
            }
            _ => self.overlay = Some(Overlay::Confirm(question)),
        }
    }
}
