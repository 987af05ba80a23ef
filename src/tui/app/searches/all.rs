//! `w` in the searches pane: every page left of the list shown, read on while the service
//! gives a next cursor, so that the queries nobody clicked through are ordered over the
//! whole range and the tab's count is exact. Each page is one analytics request, refused
//! in the CLI's words when the hour's budget has none left (`Ctx::over_budget`) and
//! paused by a 429 like any read; past 10 pages the spend question asks first.

use super::{Ctx, SearchesPane, Which};
use crate::api::MAX_PAGES;
use crate::journal::ASK_ABOVE;
use crate::text::thousands;
use crate::tui::app::NoticeKind;
use crate::tui::app::confirm::Costly;
use crate::tui::app::outcome::Outcome;
use crate::tui::message::{Effect, Generation};

/// A read of every page left, under way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadAll {
    which: Which,
    /// Tells the spend question's answer about this read from one about another.
    generation: Generation,
    /// Pages sent by this read.
    sent: u32,
    /// Pages it may send: 10, then what the answer to the question allowed.
    allowed: u32,
}

impl SearchesPane {
    /// Whether the list shown is being read to its end.
    #[must_use]
    pub fn reading_all(&self) -> bool {
        self.all.is_some_and(|all| all.which == self.showing)
    }

    /// The cursor of the page after the rows `which` has read, while there is one.
    pub(super) fn next_cursor(&self, which: Which) -> Option<String> {
        match which {
            Which::Searches => self.searches.next_cursor(),
            Which::Questions => self.questions.next_cursor(),
        }
    }

    /// `w`: reads every page left of the list shown.
    pub(in crate::tui::app) fn read_all(
        &mut self,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        if self.reading_all() {
            return Outcome::Notice("every page left is being read");
        }
        if self.is_fetching() {
            return Outcome::Notice("a page of this list is being read");
        }
        if self.next_cursor(self.showing).is_none() {
            return Outcome::Notice(match self.showing {
                Which::Searches => {
                    "the whole range of searches is read: the order and count are exact"
                }
                Which::Questions => "the whole range of questions is read",
            });
        }
        self.all = Some(ReadAll {
            which: self.showing,
            generation: self.generations.issue(),
            sent: 0,
            allowed: ASK_ABOVE,
        });
        self.read_on(ctx, effects)
    }

    /// The next page of the read of every page, or its end: every page read, a read
    /// refused (the list says why), or the requests allowed spent (the question asks for
    /// more, up to what the hour has left).
    pub(in crate::tui::app) fn read_on(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) -> Outcome {
        let Some(mut all) = self.all else {
            return Outcome::Done;
        };
        let Some(cursor) = self.next_cursor(all.which) else {
            self.all = None;
            let text = match all.which {
                Which::Searches => format!(
                    "the whole range of searches is read ({} queries): the order and count are exact",
                    thousands(self.searches.rows().len() as u64)
                ),
                Which::Questions => format!(
                    "the whole range of questions is read ({} unanswered)",
                    thousands(self.questions.rows().len() as u64)
                ),
            };
            return Outcome::News(NoticeKind::Done, text.into());
        };
        if all.sent >= all.allowed {
            if all.allowed > ASK_ABOVE {
                self.all = None;
                return Outcome::Said(
                    NoticeKind::Warning,
                    format!("stopped after the {} pages allowed: w reads on", all.sent),
                );
            }
            let more = MAX_PAGES.saturating_sub(all.sent);
            let requests = more.min(ctx.analytics_left.max(1));
            return Outcome::Consider(
                Costly::AllPages {
                    generation: all.generation,
                },
                requests,
            );
        }
        self.read(all.which, Some(cursor), ctx, effects);
        let refused = match all.which {
            Which::Searches => self.searches.error.is_some(),
            Which::Questions => self.questions.error.is_some(),
        };
        if refused {
            self.all = None;
        } else {
            all.sent += 1;
            self.all = Some(all);
        }
        Outcome::Changed
    }

    /// The answer to the spend question about reading on: yes reads on with the pages
    /// allowed, no (or a budget that cannot afford them) stops, saying why.
    pub(in crate::tui::app) fn answered(
        &mut self,
        generation: Generation,
        answer: Result<u32, String>,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let Some(all) = self.all.as_mut().filter(|all| all.generation == generation) else {
            return Outcome::Done;
        };
        match answer {
            Ok(requests) => {
                all.allowed = all.sent.saturating_add(requests);
                self.read_on(ctx, effects)
            }
            Err(why) => {
                self.all = None;
                Outcome::Said(NoticeKind::Warning, why)
            }
        }
    }
}
