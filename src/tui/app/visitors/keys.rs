//! The visitors pane's keys over the service's pages: the cursor, paging and page
//! size, the forms, marks, and the background reads (`c`, `v`, `w`, Esc). The read
//! table's own keys are in `whole_keys.rs`.

use super::{Ctx, ExportForm, FilterForm, Overlay, PAGE_SIZES, Shown, VisitorsTable, WholeLoad};
use crate::tui::app::NoticeKind;
use crate::tui::app::outcome::Outcome;
use crate::tui::keymap::Action;
use crate::tui::message::{Effect, Io};

impl VisitorsTable {
    /// A key of the pane: the read table's keys first, then the pages'.
    pub(in crate::tui::app) fn on_key(
        &mut self,
        action: Action,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        if let Some(outcome) = self.on_page_key(action) {
            return outcome;
        }
        if let Some(outcome) = self.on_whole_action(action, ctx.rows_on_screen) {
            return outcome;
        }
        if matches!(
            action,
            Action::SortNext | Action::SortReverse | Action::Search
        ) {
            let why = match &self.whole {
                WholeLoad::TooMany { max_rows } => format!(
                    "sorting and filtering need the whole range, and this one has more than \
                     {max_rows} rows: the service's pages stay"
                ),
                _ => "sorting and filtering need the whole range: w holds it".to_owned(),
            };
            return Outcome::News(NoticeKind::Info, why.into());
        }
        self.on_action(action, ctx, effects)
    }

    /// Esc: stops what is being read in the background.
    fn stop(&mut self, effects: &mut Vec<Effect>) -> Outcome {
        let whole = matches!(self.whole, WholeLoad::Fetching { .. });
        if whole {
            self.stop_whole(effects);
            self.whole = WholeLoad::Stopped("stopped: w starts again".into());
        }
        if self.cancel_trend(effects) {
            Outcome::News(NoticeKind::Info, "the chart's trend was stopped".into())
        } else if whole {
            Outcome::Changed
        } else {
            Outcome::News(NoticeKind::Info, "nothing is being read".into())
        }
    }

    /// What a key of the pane does to the pane itself, and what it asks of the app.
    fn on_action(&mut self, action: Action, ctx: &Ctx, effects: &mut Vec<Effect>) -> Outcome {
        let today = ctx.today();
        match action {
            // PgDn and PgUp are the service's pages here (`n` and `p`), never a screen.
            Action::Up | Action::Down | Action::Top | Action::Bottom => {
                let rows = self.rows().len();
                if let Some(next) = crate::tui::app::cursor::moved(self.selected, rows, action, 1) {
                    self.selected = next;
                }
            }
            Action::NextPage => {
                // The page shown decides: paging while a fetch runs pages from the target.
                let has_more = self.load.shown().is_some_and(|s| s.page.has_more);
                if !has_more && !self.load.is_fetching() {
                    return Outcome::Notice("this is the last page");
                }
                self.offset += u64::from(self.limit);
                self.selected = 0;
                self.fetch(ctx, effects);
            }
            Action::PrevPage => {
                if self.offset == 0 {
                    return Outcome::Notice("this is the first page");
                }
                self.offset = self.offset.saturating_sub(u64::from(self.limit));
                self.selected = 0;
                self.fetch(ctx, effects);
            }
            Action::MoreRows | Action::FewerRows => {
                let limit = step_size(self.limit, action == Action::MoreRows);
                self.set_filter(self.range, limit, ctx, effects);
            }
            Action::Filter => {
                // An empty range is offered the dates that hold views, when known.
                let range = self.offered_range().unwrap_or(self.range);
                let form = FilterForm::new(&range, self.limit, today);
                return Outcome::Open(Overlay::Filter(Box::new(form)));
            }
            Action::Export => {
                if self.export.take().is_some() {
                    effects.push(Effect::Io(Io::CancelExport));
                    return Outcome::News(
                        NoticeKind::Info,
                        "export cancelled; nothing was written".into(),
                    );
                }
                let mut form = ExportForm::new(&self.query(today));
                form.whole_rows = self.whole.table().map(|whole| whole.arrangement.len());
                return Outcome::Open(Overlay::Export(Box::new(form)));
            }
            Action::Mark => return self.mark_selected(),
            Action::Open => return self.open_page(ctx, effects),
            Action::NewJob => return Outcome::NewJob,
            Action::ToggleChart => self.toggle_chart(ctx, effects),
            Action::Compare => self.toggle_compare(ctx, effects),
            Action::WholeRange => return self.toggle_whole(ctx, effects),
            Action::Close => return self.stop(effects),
            _ => {}
        }
        Outcome::Done
    }

    /// Space: marks or unmarks the row under the cursor.
    fn mark_selected(&mut self) -> Outcome {
        let Some(Shown { page, query }) = self.load.shown() else {
            return Outcome::Notice("no page to mark yet");
        };
        let Some(row) = page.visitors.get(self.selected) else {
            return Outcome::Notice("no page to mark in this range");
        };
        let marked = self.marks.toggle(row, &super::Marks::range_of(query));
        let text = self.marks.said(&crate::text::sanitize(&row.path), marked);
        Outcome::Said(NoticeKind::Info, text)
    }
}

fn step_size(limit: u32, up: bool) -> u32 {
    if up {
        PAGE_SIZES
            .iter()
            .copied()
            .find(|s| *s > limit)
            .unwrap_or(limit)
    } else {
        PAGE_SIZES
            .iter()
            .rev()
            .copied()
            .find(|s| *s < limit)
            .unwrap_or(limit)
    }
}
