//! The pane's side of the whole range: `w` asks what it costs and fetches, the keys of
//! the held table (move, sort, filter as you type, mark), and what a fetch brought.

use super::Ctx;
use super::compare::previous_range;
use super::whole::{Held, WholeLoad};
use crate::api::ApiError;
use crate::insight::compare::compare_rows;
use crate::insight::order::SortRow as _;
use crate::journal::ASK_ABOVE;
use crate::tui::app::confirm::Costly;
use crate::tui::app::outcome::Outcome;
use crate::tui::app::table::{FilterEdit, FilterKey};
use crate::tui::app::{NoticeKind, VisitorsTable};
use crate::tui::keymap::Action;
use crate::tui::message::Generation;
use crate::tui::message::{Effect, InsightIo, Io, WholeEnd};

impl VisitorsTable {
    /// `w`: holds the whole range (asking first above 10 requests), or goes back to the
    /// service's pages.
    pub(in crate::tui::app) fn toggle_whole(
        &mut self,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        match &self.whole {
            WholeLoad::Held(_) | WholeLoad::Fetching { .. } | WholeLoad::Asking { .. } => {
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

    /// The most requests holding the range can take: pages of 250 up to the threshold,
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
        if self.whole.generation() != Some(generation) {
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

    /// Stops holding or fetching the whole range: the pages are back.
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
        held: usize,
        most_of: u32,
    ) -> Outcome {
        if let WholeLoad::Fetching {
            generation: g,
            requests,
            rows,
            most,
        } = &mut self.whole
            && *g == generation
        {
            (*requests, *rows, *most) = (sent, held, most_of);
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
        if self.whole.generation() != Some(generation) {
            return Outcome::Done;
        }
        let query = self.whole_query.clone().unwrap_or_default();
        let (whole, outcome) = match result {
            Ok(WholeEnd::All { page, previous }) => {
                let compared = previous.is_some();
                let rows = compare_rows(&page.visitors, previous.as_deref().unwrap_or(&[]));
                let held = Held::new(query, page.totals, rows, compared, self.sort_choice);
                let said = if self.previous.is_on() && !compared {
                    (
                        NoticeKind::Warning,
                        "the period before has too many rows to hold: no change per row".to_owned(),
                    )
                } else {
                    (
                        NoticeKind::Done,
                        format!(
                            "every row of the range is held ({}): s sorts, / filters, w goes back \
                             to pages",
                            held.rows.len()
                        ),
                    )
                };
                (
                    WholeLoad::Held(Box::new(held)),
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

    /// Keys of the pane while the whole range is held, with `page` rows on screen; `None`
    /// when the key is not theirs.
    pub(in crate::tui::app) fn on_held_action(
        &mut self,
        action: Action,
        page: usize,
    ) -> Option<Outcome> {
        let reading = self.trend.generation().is_some();
        let held = self.whole.held_mut()?;
        match action {
            // Esc drops the filter, unless the chart's trend is being read (Esc stops it).
            Action::Close if !reading && !held.filter().is_empty() => {
                held.arrangement.clear_filter();
                held.arrangement.arrange(&held.rows);
            }
            Action::Up
            | Action::Down
            | Action::Top
            | Action::Bottom
            | Action::NextPage
            | Action::PrevPage => {
                held.arrangement.move_cursor(&held.rows, action, page);
            }
            Action::SortNext => held.cycle_sort(),
            Action::SortReverse => held.reverse(),
            Action::Search => held.arrangement.start_filter(),
            Action::Mark => {
                let Some(row) = held.cursor_row().map(|r| r.as_path_visitors()) else {
                    return Some(Outcome::Notice("no page to mark: the filter keeps none"));
                };
                let range = super::marks::Marks::range_of(&held.query);
                let marked = self.marks.toggle(&row, &range);
                let text = self.marks.said(&crate::text::sanitize(row.path()), marked);
                return Some(Outcome::Said(NoticeKind::Info, text));
            }
            _ => return None,
        }
        self.sort_choice = held.arrangement.sort();
        Some(Outcome::Done)
    }

    /// Whether the held table's filter line takes the keys.
    #[must_use]
    pub fn filter_typing(&self) -> bool {
        self.whole
            .held()
            .is_some_and(|held| held.arrangement.typing())
    }

    /// Leaves the filter line as Enter does, if it is being typed in (the pane is left).
    pub(in crate::tui::app) fn keep_filter(&mut self) {
        if self.filter_typing() {
            self.edit_filter(FilterKey::Enter);
        }
    }

    /// A key of the held table's filter line: what is typed narrows the rows at once.
    /// Returns whether the line took it.
    pub(in crate::tui::app) fn edit_filter(&mut self, key: FilterKey) -> bool {
        let Some(held) = self.whole.held_mut() else {
            return false;
        };
        match held.arrangement.edit_filter(key) {
            FilterEdit::Changed | FilterEdit::Cleared => held.arrangement.arrange(&held.rows),
            FilterEdit::Kept => {}
            FilterEdit::Ignored => return false,
        }
        true
    }
}
