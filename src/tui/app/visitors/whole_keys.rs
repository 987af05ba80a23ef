//! The pane's side of the whole range: `w` asks what it costs and fetches, the keys of
//! the read table (move, sort, filter as you type, mark), and what a fetch brought.

use super::Ctx;
use super::compare::previous_range;
use super::whole::{WholeLoad, WholeTable};
use crate::api::ApiError;
use crate::insight::compare::compare_rows;
use crate::insight::order::SortRow as _;
use crate::journal::ASK_ABOVE;
use crate::tui::app::confirm::Costly;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::table::{FilterEdit, FilterKey};
use crate::tui::app::{NoticeKind, VisitorsTable};
use crate::tui::keymap::Action;
use crate::tui::message::{Awaits, Effect, Generation, InsightIo, Io, WholeEnd};

impl VisitorsTable {
    /// `w`: holds the whole range (asking first above 10 requests), or goes back to the
    /// service's pages.
    pub(in crate::tui::app) fn toggle_whole(
        &mut self,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        match &self.whole {
            WholeLoad::Table(_) | WholeLoad::Fetching { .. } | WholeLoad::Asking { .. } => {
                self.stop_whole(effects);
                return Outcome::News(
                    NoticeKind::Info,
                    "back to the service's pages: w holds the whole range".into(),
                );
            }
            WholeLoad::Off | WholeLoad::TooMany { .. } | WholeLoad::Stopped(_) => {}
        }
        if let Some(why) = &ctx.paused {
            self.whole = WholeLoad::Stopped(format!("{why}; w asks again then"));
            return Outcome::Changed;
        }
        let generation = self.generations.issue();
        self.whole = WholeLoad::Asking {
            generation,
            requests: 0,
        };
        // Up to 10 requests (2,500 rows) go without asking; a range that needs more
        // says so, and the question comes then.
        let allow = ASK_ABOVE.min(ctx.analytics_left);
        self.whole_confirmed(generation, allow, ctx, effects);
        Outcome::Changed
    }

    /// The most requests reading the range can take: pages of 250 up to the threshold,
    /// twice that when comparing.
    fn whole_cost(&self, ctx: &Ctx) -> u32 {
        let most = u32::try_from(ctx.whole_max_rows.div_ceil(250)).unwrap_or(u32::MAX);
        if self.previous.is_on() {
            most.saturating_mul(2)
        } else {
            most
        }
    }

    pub(super) fn whole_confirmed(
        &mut self,
        generation: Generation,
        allow: u32,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) {
        if !self.whole.awaits(generation) {
            return;
        }
        let query = self.query(ctx.today());
        let previous = if self.previous.is_on() {
            previous_range(&query, None)
        } else {
            None
        };
        self.whole = WholeLoad::Fetching {
            generation,
            requests: 0,
            rows: 0,
            most: 0,
        };
        self.whole_query = Some(query.clone());
        effects.push(Effect::Io(Io::Insight(InsightIo::FetchWhole {
            generation,
            query,
            previous,
            max_rows: ctx.whole_max_rows,
            allow,
        })));
    }

    pub(super) fn whole_declined(&mut self, why: String) {
        self.whole = WholeLoad::Stopped(why);
    }

    /// Stops reading or fetching the whole range: the pages are back.
    pub(in crate::tui::app) fn stop_whole(&mut self, effects: &mut Vec<Effect>) {
        if matches!(self.whole, WholeLoad::Fetching { .. }) {
            effects.push(Effect::Io(Io::Insight(InsightIo::CancelWhole)));
        }
        self.whole = WholeLoad::Off;
    }

    pub(super) fn on_whole_progress(
        &mut self,
        generation: Generation,
        sent: u32,
        whole: usize,
        most_of: u32,
    ) -> Outcome {
        if self.whole.awaits(generation)
            && let WholeLoad::Fetching {
                requests,
                rows,
                most,
                ..
            } = &mut self.whole
        {
            (*requests, *rows, *most) = (sent, whole, most_of);
            return Outcome::Changed;
        }
        Outcome::Done
    }

    /// How the whole-range fetch of `generation` ended (the app recorded the call).
    pub(super) fn on_whole(
        &mut self,
        generation: Generation,
        result: Result<WholeEnd, ApiError>,
        ctx: &Ctx,
    ) -> Outcome {
        if !self.whole.awaits(generation) {
            return Outcome::Done;
        }
        let query = self.whole_query.clone().unwrap_or_default();
        let (whole, outcome) = match result {
            Ok(WholeEnd::All { page, previous }) => {
                let compared = previous.is_some();
                let rows = compare_rows(&page.visitors, previous.as_deref().unwrap_or(&[]));
                let whole = WholeTable::new(query, page.totals, rows, compared, self.sort_choice);
                let said = if self.previous.is_on() && !compared {
                    (
                        NoticeKind::Warning,
                        "the period before has too many rows to read: no change per row".to_owned(),
                    )
                } else {
                    (
                        NoticeKind::Done,
                        format!(
                            "the whole range is read ({} rows): s sorts, / filters, w goes back \
                             to pages",
                            whole.rows.len()
                        ),
                    )
                };
                (
                    WholeLoad::Table(Box::new(whole)),
                    Outcome::News(said.0, said.1.into()),
                )
            }
            Ok(WholeEnd::TooMany { max_rows }) => {
                (WholeLoad::TooMany { max_rows }, Outcome::Changed)
            }
            Ok(WholeEnd::NeedsMore) => {
                let requests = self.whole_cost(ctx);
                (
                    WholeLoad::Asking {
                        generation,
                        requests,
                    },
                    Outcome::Consider(Costly::Whole { generation }, requests),
                )
            }
            Err(err) => (
                WholeLoad::Stopped(format!("the whole range stopped: {err}")),
                Outcome::Changed,
            ),
        };
        self.whole = whole;
        self.join_feedback();
        outcome
    }

    /// Keys of the pane while the whole range is read, with `page` rows on screen; `None`
    /// when the key is not theirs.
    pub(in crate::tui::app) fn on_whole_action(
        &mut self,
        action: Action,
        page: usize,
    ) -> Option<Outcome> {
        let reading = self.trend.generation().is_some();
        let whole = self.whole.table_mut()?;
        match action {
            // Esc drops the filter, unless the chart's trend is being read (Esc stops it).
            Action::Close if !reading && !whole.filter().is_empty() => {
                whole.arrangement.clear_filter();
                whole.arrangement.arrange(&whole.rows);
            }
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::NextPage
            | Action::PrevPage => {
                whole.arrangement.move_cursor(&whole.rows, action, page);
            }
            Action::SortNext => whole.cycle_sort(),
            Action::SortReverse => whole.reverse(),
            Action::Search => whole.arrangement.start_filter(),
            Action::Mark => {
                let Some(row) = whole.cursor_row().map(|r| r.as_path_visitors()) else {
                    return Some(Outcome::Notice("no page to mark: the filter keeps none"));
                };
                let range = super::marks::Marks::range_of(&whole.query);
                let marked = self.marks.toggle(&row, &range);
                let text = self.marks.said(&crate::text::sanitize(row.path()), marked);
                return Some(Outcome::Said(NoticeKind::Info, text));
            }
            _ => return None,
        }
        self.sort_choice = whole.arrangement.sort();
        Some(Outcome::Done)
    }

    /// Whether the read table's filter line takes the keys.
    #[must_use]
    pub fn filter_typing(&self) -> bool {
        self.whole
            .table()
            .is_some_and(|whole| whole.arrangement.typing())
    }

    /// Leaves the filter line as Enter does, if it is being typed in (the pane is left).
    pub(in crate::tui::app) fn keep_filter(&mut self) {
        if self.filter_typing() {
            self.edit_filter(FilterKey::Enter);
        }
    }

    /// A key of the read table's filter line: what is typed narrows the rows at once.
    /// Returns whether the line took it.
    pub(in crate::tui::app) fn edit_filter(&mut self, key: FilterKey) -> bool {
        let Some(whole) = self.whole.table_mut() else {
            return false;
        };
        match whole.arrangement.edit_filter(key) {
            FilterEdit::Changed | FilterEdit::Cleared => whole.arrangement.arrange(&whole.rows),
            FilterEdit::Kept => {}
            FilterEdit::Ignored => return false,
        }
        true
    }
}
