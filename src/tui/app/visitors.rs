//! The visitors pane: the date range and page size, the page on screen, paging that
//! drops replies for a page no longer wanted, and export of the whole range.

use std::path::PathBuf;

use chrono::NaiveDate;

use super::confirm::Costly;
use super::{ExportForm, FilterForm, Overlay};
use crate::api::limit::ViewsSpan;
use crate::api::{ApiError, DateParam, VisitorsPage, VisitorsQuery};
use crate::tui::message::{Effect, ExportEnd, Generation, Generations, Io};

mod chart;
mod compare;
mod ctx;
mod export;
mod feedback;
mod keys;
mod load;
mod marks;
mod page;
mod whole_keys;
use super::outcome::Outcome;
mod range;
mod trend;
mod whole;

pub use chart::CHART_MIN_HEIGHT;
pub use compare::PreviousLoad;
pub(in crate::tui::app) use ctx::Ctx;
pub use feedback::{FEEDBACK_PAGES, FeedbackLoad, PageThumbs, Thumbs};
pub use load::{PageLoad, Shown};
pub use marks::Marks;
pub use page::{COMMENT_PAGES, CommentsLoad, PageView};
pub use range::DateRange;
pub use trend::TrendLoad;
pub use whole::{VisitorsColumn, WholeLoad, WholeRow, WholeTable};

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
    /// Numbers every background read of the pane (the page, the trend, the period
    /// before, the whole range), so a reply to one no longer wanted is dropped.
    generations: Generations,
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
    /// The period before, while comparing.
    pub previous: PreviousLoad,
    /// The range's 👍 and 👎 per page, for the feedback columns.
    pub feedback: FeedbackLoad,
    /// `r` asked for the feedback again: read with the next page even for the same range.
    feedback_again: bool,
    /// Every row of the range, from `w` on.
    pub whole: WholeLoad,
    /// The range of the whole-range fetch out.
    whole_query: Option<VisitorsQuery>,
    /// The sort last chosen for a read range, kept for the next one.
    sort_choice: Option<(VisitorsColumn, crate::listing::Direction)>,
    /// The page open (Enter on its row): its figures and comments, until Esc.
    pub page: Option<PageView>,
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
            generations: Generations::default(),
            selected: 0,
            export: None,
            export_end: None,
            export_form: None,
            top: None,
            marks: Marks::default(),
            chart: None,
            trend: TrendLoad::Idle,
            previous: PreviousLoad::Off,
            feedback: FeedbackLoad::Idle,
            feedback_again: false,
            whole: WholeLoad::Off,
            whole_query: None,
            sort_choice: None,
            page: None,
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
    fn fetching(&mut self, query: VisitorsQuery) -> Generation {
        let generation = self.generations.issue();
        self.load.fetch(generation, query);
        generation
    }

    /// The answer to the question asked before spending analytics requests: `Ok` with
    /// the requests allowed starts the work, `Err` says on the pane why it was not done.
    pub(in crate::tui::app) fn answered(
        &mut self,
        work: Costly,
        answer: Result<u32, String>,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) {
        match (work, answer) {
            (Costly::Trend { generation, plan }, Ok(requests)) => {
                self.trend_confirmed(generation, plan, requests, effects);
            }
            (Costly::Whole { generation }, Ok(requests)) => {
                self.whole_confirmed(generation, requests, ctx, effects);
            }
            // The words name the work already (`Costly::refusal`, `Costly::declined`).
            (Costly::Trend { plan, .. }, Err(why)) => self.trend_declined(plan, why),
            (Costly::Whole { .. }, Err(why)) => self.whole_declined(why),
            // The jobs list's and the searches pane's, routed to them.
            (Costly::Impact { .. } | Costly::AllPages { .. }, _) => {}
        }
    }

    /// Takes a reply: a new page keeps the cursor on the page and teaches the bar scale.
    fn answer(&mut self, generation: Generation, result: Result<VisitorsPage, String>) {
        if let Some(shown) = self.load.answer(generation, result) {
            let rows = shown.page.visitors.len();
            self.selected = self.selected.min(rows.saturating_sub(1));
            self.learn_top();
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

impl VisitorsTable {
    /// Reads the page to show, unless a 429 pauses analytics, the hour's budget has no
    /// request left, or the range is wrong.
    pub(in crate::tui::app) fn fetch(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        if let Some(why) = ctx.paused.as_ref().or(ctx.over_budget.as_ref()) {
            self.load
                .refuse(format!("{why}; {} loads the page then", ctx.refresh_key));
            return;
        }
        let query = self.query(ctx.today());
        if let Err(err) = query.validate() {
            self.load.refuse(err.to_string());
            return;
        }
        let generation = self.fetching(query.clone());
        effects.push(Effect::Io(Io::FetchVisitors { generation, query }));
    }

    /// A page came (or why not); the app recorded the call.
    pub(in crate::tui::app) fn on_page(
        &mut self,
        generation: Generation,
        result: Result<VisitorsPage, ApiError>,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) -> Outcome {
        self.answer(generation, result.map_err(|err| err.to_string()));
        // The chart and the period before follow the page, so they never take the
        // analytics requests the page itself needs.
        if matches!(self.load, PageLoad::Shown(_)) {
            self.want_trend(ctx, effects);
            self.want_previous(ctx, effects);
            let again = std::mem::take(&mut self.feedback_again);
            self.want_feedback(again, ctx, effects);
        }
        Outcome::Changed
    }

    /// The page, its chart, its comparison and its feedback, read again.
    pub(in crate::tui::app) fn reload(&mut self, ctx: &Ctx, effects: &mut Vec<Effect>) {
        self.refresh_trend(effects);
        self.feedback_again = true;
        if self.previous.is_on() {
            self.previous = PreviousLoad::NeedsDates;
        }
        self.fetch(ctx, effects);
    }

    /// Applies a new range and page size: back to a page holding the first row on screen,
    /// saved for the next session, and fetched.
    pub(in crate::tui::app) fn set_filter(
        &mut self,
        range: DateRange,
        limit: u32,
        ctx: &Ctx,
        effects: &mut Vec<Effect>,
    ) {
        if range == self.range {
            self.offset -= self.offset % u64::from(limit.max(1));
        } else {
            // The rows read are of the old dates.
            self.stop_whole(effects);
            self.offset = 0;
        }
        self.range = range;
        self.limit = limit;
        self.selected = 0;
        effects.push(Effect::Io(Io::SaveSetting {
            name: "visitors.filter",
            value: self.setting(),
        }));
        self.fetch(ctx, effects);
    }
}
