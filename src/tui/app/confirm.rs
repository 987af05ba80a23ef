//! The question asked before work that needs more than a few analytics requests (a
//! trend, the whole range): how many, of how many left this hour, y or n. Nothing is
//! spent until the answer is yes, and work the hour's budget cannot cover is refused
//! with when enough requests free up (the journal's rule, `AnalyticsBudget::decide`).

use super::outcome::Outcome;
use super::{NoticeKind, Overlay};
use crate::journal::{AnalyticsBudget, Decision};
use crate::tui::keymap::Action;
use crate::tui::message::{Generation, TrendPlan};

/// Work that costs several analytics requests: what the question is about, and what yes
/// starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Costly {
    /// The chart's trend of request `generation`.
    Trend {
        generation: Generation,
        plan: TrendPlan,
    },
    /// Every row of the range (and of the period before, when comparing).
    Whole { generation: Generation },
    /// Job `id`'s impact: every row of both windows of `days` days; `detail`: the scroll
    /// of its detail when asked over it, which the answer opens again where it was.
    Impact {
        id: String,
        days: i64,
        detail: Option<usize>,
    },
    /// Every page left of the searches pane's list, read on by `generation`.
    AllPages { generation: Generation },
}

impl Costly {
    /// The key that asks again, for the words of a no.
    fn again(&self) -> &'static str {
        match self {
            Self::Trend { .. } | Self::Whole { .. } => "r",
            Self::Impact { .. } => "i",
            Self::AllPages { .. } => "w",
        }
    }

    /// Why work the hour's budget cannot afford is not done: the CLI's words
    /// (`AnalyticsBudget::refusal`) for all of them (the chart and the whole range kept
    /// older words of their own until the new-user trial of stop 33 saw both).
    fn refusal(
        &self,
        budget: &AnalyticsBudget,
        needed: u32,
        enough_at: Option<chrono::DateTime<chrono::Utc>>,
    ) -> String {
        let free_again = enough_at.map(|at| format!("at {} UTC", at.format("%H:%M")));
        let up_to = format!("up to {needed} analytics requests");
        let (what, need, smaller) = match self {
            // The trend knows what it sends: one request a bucket not kept yet.
            Self::Trend { .. } => (
                "the chart",
                format!("{needed} analytics requests"),
                "f chooses shorter dates",
            ),
            Self::Whole { .. } => ("reading the whole range", up_to, "f chooses shorter dates"),
            Self::Impact { .. } => ("reading the impact", up_to, "w picks a shorter window"),
            Self::AllPages { .. } => ("reading on", up_to, "3, then f, narrows the dates"),
        };
        budget.refusal(what, &need, free_again.as_deref(), smaller)
    }

    /// The words of a no: the visitors pane's say what was not read, the others show
    /// them under their own heading.
    fn declined(&self, requests: u32) -> String {
        let again = self.again();
        let what = match self {
            Self::Trend { .. } => "the chart ",
            Self::Whole { .. } => "the whole range ",
            Self::Impact { .. } | Self::AllPages { .. } => "",
        };
        format!("{what}not read: it needs {requests} analytics requests; {again} asks again")
    }
}

/// The question on screen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Question {
    pub work: Costly,
    /// Analytics requests the work needs.
    pub requests: u32,
    /// Analytics requests left this hour, as the journal counts them.
    pub left: u32,
}

impl Question {
    /// What is asked, in words.
    #[must_use]
    pub fn text(&self) -> String {
        let what = match &self.work {
            Costly::Trend { plan, .. } => format!(
                "The chart of {} → {} needs {} analytics requests (one per {} not kept in \
                 the journal yet).",
                crate::insight::buckets::shown(plan.from),
                crate::insight::buckets::shown(plan.to),
                self.requests,
                plan.by.as_str()
            ),
            Costly::Whole { .. } => format!(
                "This range has more rows than 10 requests hold (250 each): holding all of \
                 them takes up to {} analytics requests, from the start.",
                self.requests
            ),
            Costly::Impact { days, .. } => format!(
                "The two {days}-day windows have more rows than 10 requests hold (250 each): \
                 reading the impact takes up to {} analytics requests, from the start.",
                self.requests
            ),
            Costly::AllPages { .. } => format!(
                "Reading on past 10 pages (one analytics request each) takes up to {} more, \
                 until no page is left.",
                self.requests
            ),
        };
        format!(
            "{what} {} of this hour's 100 analytics requests are left. Spend them?",
            self.left
        )
    }
}

impl Question {
    /// Work of `requests` analytics requests: started when few, asked about when more
    /// than 10, refused (saying when enough free up) when more than are left.
    pub(super) fn consider(work: Costly, requests: u32, budget: &AnalyticsBudget) -> Outcome {
        match budget.decide(requests) {
            Decision::Go => Outcome::Answered(work, Ok(requests)),
            Decision::Ask { needed, left } => Outcome::Open(Overlay::Confirm(Self {
                work,
                requests: needed,
                left,
            })),
            Decision::Refuse {
                needed, enough_at, ..
            } => {
                let why = work.refusal(budget, needed, enough_at);
                Outcome::Answered(work, Err(why))
            }
        }
    }

    /// y or n: the answer goes to the pane that asked; another key leaves the question
    /// open.
    pub(super) fn on_action(self, action: Action) -> Outcome {
        match action {
            Action::Apply => Outcome::Answered(self.work, Ok(self.requests)),
            Action::Close => {
                let again = self.work.again();
                let why = self.work.declined(self.requests);
                Outcome::Then(
                    Box::new(Outcome::Answered(self.work, Err(why))),
                    // About the pane asked over: it leaves with that pane.
                    Box::new(Outcome::Said(
                        NoticeKind::Info,
                        format!("nothing was read: {again} asks again"),
                    )),
                )
            }
            _ => Outcome::Open(Overlay::Confirm(self)),
        }
    }
}
