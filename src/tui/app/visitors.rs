//! The visitors pane: the date range and page size, the page on screen, paging that
//! drops replies for a page no longer wanted, and export of the whole range.

use std::path::PathBuf;

use chrono::NaiveDate;

use super::{App, CallClass, ExportForm, FilterForm, Overlay};
use crate::api::limit::ViewsSpan;
use crate::api::{ApiError, DateParam, VisitorsPage, VisitorsQuery};
use crate::tui::keymap::{Action, KeyContext};
use crate::tui::message::{Clock, Effect, ExportEnd, Io};

mod chart;
mod compare;
mod export;
mod holding;
mod load;
mod marks;
use super::outcome::Outcome;
mod range;
mod trend;
mod whole;

pub use chart::CHART_MIN_HEIGHT;
pub use compare::PreviousLoad;
pub use export::{export_end_text, stopped_text};
pub use load::{PageLoad, Shown};
pub use marks::Marks;
pub use range::DateRange;
pub use trend::TrendLoad;
pub use whole::{Held, WholeLoad};

/// Page sizes that `+` and `-` step through (the filter form takes any 1–250).
pub const PAGE_SIZES: &[u32] = &[10, 25, 50, 100, 250];

/// An export running in the background.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportProgress {
    pub path: PathBuf,
    pub rows: u64,
    pub pages: u64,
}

/// The visitors pane's state.
#[derive(Debug)]
pub struct VisitorsTable {
    pub range: DateRange,
    /// When the project's views begin and end, as the service last said (the local one).
    pub span: Option<ViewsSpan>,
    pub limit: u32,
    pub offset: u64,
    /// The page on screen and the request out, if any (changed only by the pane's own
    /// transitions).
    load: PageLoad,
    /// The number of the last request sent (the next one gets the next number).
    requests: u64,
    pub selected: usize,
    pub export: Option<ExportProgress>,
    /// How the last export ended, said under the table until the next one starts.
    pub export_end: Option<ExportEnd>,
    /// The form of the running export, back on screen if the file turns out to exist.
    export_form: Option<Box<ExportForm>>,
    /// What a full bar means: the largest row of the range (its first row, as rows come
    /// by total descending), learned from the range's first page; until then the range's
    /// total. The same on every page and scroll position.
    top: Option<TopRow>,
    /// Pages marked for a job (Space), with the numbers they were marked with.
    pub marks: Marks,
    /// Whether the chart is shown, once `c` said; until then the terminal's size decides.
    pub chart: Option<bool>,
    /// The chart's trend.
    pub trend: TrendLoad,
    trend_requests: u64,
    /// The period before, while comparing.
    pub previous: PreviousLoad,
    previous_requests: u64,
    /// Every row of the range, from `w` on.
    pub whole: WholeLoad,
    whole_requests: u64,
    /// The range of the whole-range fetch out.
    whole_query: Option<VisitorsQuery>,
    /// The sort last chosen for a held range, kept for the next one.
    sort_choice: Option<(crate::insight::SortKey, crate::listing::Direction)>,
}

/// The largest row of a range, and which range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TopRow {
    from: Option<DateParam>,
    to: Option<DateParam>,
    total: u64,
}

/// What a full bar stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BarScale {
    /// The range's largest row (its first page's first row).
    TopRow(u64),
    /// The range's unique visitors, while its largest row is not known.
    Total(u64),
}

impl BarScale {
    #[must_use]
    pub fn value(self) -> u64 {
        match self {
            Self::TopRow(v) | Self::Total(v) => v.max(1),
        }
    }
}

impl Default for VisitorsTable {
    fn default() -> Self {
        Self {
            range: DateRange::LastDays(7),
            span: None,
            limit: crate::api::query::DEFAULT_LIMIT,
            offset: 0,
            load: PageLoad::Idle,
            requests: 0,
            selected: 0,
            export: None,
            export_end: None,
            export_form: None,
            top: None,
            marks: Marks::default(),
            chart: None,
            trend: TrendLoad::Idle,
            trend_requests: 0,
            previous: PreviousLoad::Off,
            previous_requests: 0,
            whole: WholeLoad::Off,
            whole_requests: 0,
            whole_query: None,
            sort_choice: None,
        }
    }
}

impl VisitorsTable {
    /// Restores the filter saved by an earlier session: `RANGE` or `RANGE|LIMIT`.
    pub fn restore(&mut self, saved: &str) {
        let (range, limit) = saved.split_once('|').unwrap_or((saved, ""));
        if let Some(range) = DateRange::from_setting(range) {
            self.range = range;
        }
        if let Ok(limit) = limit.parse::<u32>()
            && (1..=crate::api::query::MAX_LIMIT).contains(&limit)
        {
            self.limit = limit;
        }
    }

    fn setting(&self) -> String {
        format!("{}|{}", self.range.to_setting(), self.limit)
    }

    /// The query for the current range, page and size, as of `today`.
    #[must_use]
    pub fn query(&self, today: NaiveDate) -> VisitorsQuery {
        let (date_from, date_to) = self.range.bounds(today);
        VisitorsQuery {
            date_from,
            date_to,
            limit: Some(self.limit),
            offset: Some(self.offset),
        }
    }

    pub fn export_progress(&mut self, rows: u64, pages: u64) {
        if let Some(export) = &mut self.export {
            export.rows = rows;
            export.pages = pages;
        }
    }

    /// What a full bar means on the page shown.
    #[must_use]
    pub fn bar_scale(&self) -> Option<BarScale> {
        let Shown { page, query } = self.load.shown()?;
        let top = self
            .top
            .filter(|top| query.date_from == top.from && query.date_to == top.to);
        Some(match top {
            Some(top) => BarScale::TopRow(top.total),
            None => BarScale::Total(page.totals.total),
        })
    }

    /// The dates that hold views, offered while the page on screen is empty and the
    /// service said when its views begin and end: from the first view's day to the day
    /// after the last's.
    #[must_use]
    pub fn offered_range(&self) -> Option<DateRange> {
        let empty = self
            .load
            .shown()
            .is_some_and(|shown| shown.page.visitors.is_empty());
        let span = self.span.filter(|_| empty)?;
        let after = span.last.date_naive().succ_opt()?;
        Some(DateRange::Custom {
            from: Some(DateParam::from_date(span.first.date_naive())),
            to: Some(DateParam::from_date(after)),
        })
    }

    /// Where the pane's page stands.
    #[must_use]
    pub fn load(&self) -> &PageLoad {
        &self.load
    }

    /// The rows of the page on screen (none before the first page).
    #[must_use]
    pub fn rows(&self) -> &[crate::api::PathVisitors] {
        self.load.shown().map_or(&[], |s| &s.page.visitors)
    }

    /// The pane is shown for the first time, or again after its first request failed:
    /// it has nothing to show and nothing on the way.
    #[must_use]
    pub fn wants_first_page(&self) -> bool {
        self.load.shown().is_none() && !self.load.is_fetching()
    }

    /// Numbers a request for `query` and waits for its reply.
    fn fetching(&mut self, query: VisitorsQuery) -> u64 {
        self.requests += 1;
        self.load.fetch(self.requests, query);
        self.requests
    }

    /// Takes a reply: a new page keeps the cursor on the page and teaches the bar scale.
    fn answer(&mut self, generation: u64, result: Result<VisitorsPage, String>) {
        if let Some(shown) = self.load.answer(generation, result) {
            let rows = shown.page.visitors.len();
            self.selected = self.selected.min(rows.saturating_sub(1));
            self.learn_top();
        }
    }

    /// What a key of the pane does to the pane itself, and what it asks of the app.
    pub(in crate::tui::app) fn on_action(&mut self, action: Action, today: NaiveDate) -> Outcome {
        match action {
            // PgDn and PgUp are the service's pages here (`n` and `p`), never a screen.
            Action::Up | Action::Down | Action::Top | Action::Bottom => {
                let rows = self.rows().len();
                if let Some(next) = super::cursor::moved(self.selected, rows, action, 1) {
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
                return Outcome::Fetch;
            }
            Action::PrevPage => {
                if self.offset == 0 {
                    return Outcome::Notice("this is the first page");
                }
                self.offset = self.offset.saturating_sub(u64::from(self.limit));
                self.selected = 0;
                return Outcome::Fetch;
            }
            Action::MoreRows | Action::FewerRows => {
                let limit = step_size(self.limit, action == Action::MoreRows);
                return Outcome::SetFilter(self.range, limit);
            }
            Action::Filter => {
                // An empty range is offered the dates that hold views, when known.
                let range = self.offered_range().unwrap_or(self.range);
                let form = FilterForm::new(&range, self.limit, today);
                return Outcome::Open(Overlay::Filter(Box::new(form)));
            }
            Action::Export => {
                if self.export.take().is_some() {
                    return Outcome::ExportCancelled;
                }
                let mut form = ExportForm::new(&self.query(today));
                form.held_rows = self.whole.held().map(|held| held.arrangement.len());
                return Outcome::Open(Overlay::Export(Box::new(form)));
            }
            Action::Mark => return self.mark_selected(),
            Action::NewJob => return Outcome::NewJob,
            Action::ToggleChart => return Outcome::Chart,
            Action::Compare => return Outcome::Compare,
            Action::WholeRange => return Outcome::Whole,
            Action::Close => return Outcome::Stop,
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
        let marked = self.marks.toggle(row, &marks::Marks::range_of(query));
        Outcome::Marked {
            path: crate::text::sanitize(&row.path),
            marked,
        }
    }

    #[cfg(test)]
    pub(crate) fn top_forget_for_test(&mut self) {
        self.top = None;
    }

    /// Learns the range's largest row from its first page (and from any later row that
    /// is larger, when the data grew meanwhile).
    fn learn_top(&mut self) {
        let Some(Shown { page, query }) = self.load.shown() else {
            return;
        };
        let largest = page.visitors.iter().map(|r| r.total).max().unwrap_or(0);
        let same = self
            .top
            .filter(|t| t.from == query.date_from && t.to == query.date_to);
        let total = if query.effective_offset() == 0 {
            largest
        } else if let Some(top) = same {
            top.total.max(largest)
        } else {
            return;
        };
        self.top = Some(TopRow {
            from: query.date_from,
            to: query.date_to,
            total,
        });
    }
}

impl App {
    pub(super) fn fetch_visitors(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        if let Some(why) = self.link.refusal(CallClass::Analytics, now) {
            let key = self
                .keymap()
                .key_or_name(KeyContext::Visitors, Action::Refresh);
            self.visitors
                .load
                .refuse(format!("{why}; {key} loads the page then"));
            return;
        }
        let query = self.visitors.query(now.wall.date_naive());
        if let Err(err) = query.validate() {
            self.visitors.load.refuse(err.to_string());
            return;
        }
        let generation = self.visitors.fetching(query.clone());
        effects.push(Effect::Io(Io::FetchVisitors { generation, query }));
    }

    pub(super) fn on_visitors(
        &mut self,
        generation: u64,
        result: Result<VisitorsPage, ApiError>,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
        self.dirty = true;
        self.visitors
            .answer(generation, result.map_err(|err| err.to_string()));
        // The chart and the period before follow the page, so they never take the
        // analytics requests the page itself needs.
        if matches!(self.visitors.load(), PageLoad::Shown(_)) {
            self.want_trend(now, effects);
            self.want_previous(now, effects);
        }
    }

    /// Applies a new range and page size: back to a page holding the first row on screen,
    /// saved for the next session, and fetched.
    pub(super) fn set_filter(
        &mut self,
        range: DateRange,
        limit: u32,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        if range != self.visitors.range {
            // The rows held are of the old dates.
            self.stop_whole(effects);
        }
        let table = &mut self.visitors;
        if range == table.range {
            table.offset -= table.offset % u64::from(limit.max(1));
        } else {
            table.offset = 0;
        }
        table.range = range;
        table.limit = limit;
        table.selected = 0;
        effects.push(Effect::Io(Io::SaveSetting {
            name: "visitors.filter",
            value: table.setting(),
        }));
        self.fetch_visitors(now, effects);
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
