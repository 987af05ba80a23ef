//! The searches pane's keys: moving in the list shown, switching lists, marking rows,
//! the job made of the marks, and reading the list's next page (`]`) or every page left (`w`).

use super::{Ctx, SearchesPane, Which};
use crate::text::sanitize;
use crate::tui::app::NoticeKind;
use crate::tui::app::outcome::Outcome;
use crate::tui::keymap::Action;
use crate::tui::message::Effect;

impl SearchesPane {
    /// A key of the pane (the global ones are the app's).
    pub(in crate::tui::app) fn on_key(
        &mut self,
        action: Action,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        let at = self.selected();
        let screen = ctx.rows_on_screen.max(1);
        match action {
            Action::Up => self.set_selected(at.saturating_sub(1)),
            Action::Down => self.set_selected(at.saturating_add(1)),
            Action::Top => self.set_selected(0),
            Action::Bottom => self.set_selected(usize::MAX),
            Action::NextPage => self.set_selected(at.saturating_add(screen)),
            Action::PrevPage => self.set_selected(at.saturating_sub(screen)),
            Action::SwitchList => {
                self.showing = self.showing.other();
                self.show(ctx, effects);
            }
            Action::Mark => return self.mark(ctx),
            Action::NewJob if self.marks.is_empty() => {
                return Outcome::Notice(
                    "nothing is marked: Space marks the searches and questions to ask about",
                );
            }
            Action::NewJob => return Outcome::MissingPage(self.marks.wanted()),
            Action::MoreRows => return self.more(ctx, effects),
            Action::WholeRange => return self.read_all(ctx, effects),
            _ => return Outcome::Done,
        }
        Outcome::Changed
    }

    /// Space: marks or unmarks the row under the cursor, with what was seen of it.
    fn mark(&mut self, ctx: &Ctx) -> Outcome {
        let at = self.selected();
        let job_key = ctx.job_key.as_deref();
        let said = match self.showing {
            Which::Searches => {
                let pages = self.searches.pages.as_ref();
                let Some((row, dates)) = pages.and_then(|p| Some((p.rows.get(at)?, p.dates)))
                else {
                    return Outcome::Notice("no search to mark here");
                };
                let marked = self.marks.toggle_query(row, dates);
                let what = format!("{:?}", sanitize(&row.search_query));
                self.marks.said(&what, marked, job_key)
            }
            Which::Questions => {
                let pages = self.questions.pages.as_ref();
                let Some((row, dates)) = pages.and_then(|p| Some((p.rows.get(at)?, p.dates)))
                else {
                    return Outcome::Notice("no question to mark here");
                };
                let marked = self.marks.toggle_question(row, dates);
                let what = format!("{:?}", crate::text::excerpt(&sanitize(&row.query), 40));
                self.marks.said(&what, marked, job_key)
            }
        };
        Outcome::Said(NoticeKind::Info, said)
    }

    /// `]`: the list's next page, added to the rows read.
    fn more(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) -> Outcome {
        if self.is_fetching() || self.reading_all() {
            return Outcome::Notice("a page of this list is being read");
        }
        let Some(cursor) = self.next_cursor(self.showing) else {
            return Outcome::Notice(match self.showing {
                Which::Searches => "the whole range of searches is read",
                Which::Questions => "the whole range of questions is read",
            });
        };
        self.read(self.showing, Some(cursor), ctx, effects);
        Outcome::Changed
    }
}
