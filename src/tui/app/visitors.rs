//! The visitors pane: the date range and page size, the page on screen, paging that
//! drops replies for a page no longer wanted, and export of the whole range.

use std::path::PathBuf;

use chrono::{Datelike as _, Days, NaiveDate};

use super::{App, CallClass, ExportForm, FilterForm, NoticeKind, Overlay};
use crate::api::{ApiError, DateParam, VisitorsPage, VisitorsQuery};
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect};

/// Page sizes that `+` and `-` step through (the filter form takes any 1–250).
pub const PAGE_SIZES: &[u32] = &[10, 25, 50, 100, 250];

/// Which dates the pane shows. Presets are resolved against today (UTC) at each fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Range {
    /// The last N days including today: `[today - (N-1), today + 1)`.
    LastDays(u32),
    /// `[first of this month, first of next month)`.
    ThisMonth,
    Custom {
        from: Option<DateParam>,
        to: Option<DateParam>,
    },
    AllTime,
}

impl Range {
    /// `dateFrom` and `dateTo` (exclusive) for this range, as of `today`.
    #[must_use]
    pub fn bounds(&self, today: NaiveDate) -> (Option<DateParam>, Option<DateParam>) {
        let tomorrow = today.checked_add_days(Days::new(1)).unwrap_or(today);
        match *self {
            Self::LastDays(days) => {
                let from = today
                    .checked_sub_days(Days::new(u64::from(days.saturating_sub(1))))
                    .unwrap_or(today);
                (
                    Some(DateParam::from_date(from)),
                    Some(DateParam::from_date(tomorrow)),
                )
            }
            Self::ThisMonth => {
                let first = today.with_day(1).unwrap_or(today);
                let next = first
                    .checked_add_months(chrono::Months::new(1))
                    .unwrap_or(tomorrow);
                (
                    Some(DateParam::from_date(first)),
                    Some(DateParam::from_date(next)),
                )
            }
            Self::Custom { from, to } => (from, to),
            Self::AllTime => (None, None),
        }
    }

    /// How the range is named in the pane's title.
    #[must_use]
    pub fn label(&self) -> String {
        match self {
            Self::LastDays(days) => format!("last {days} days"),
            Self::ThisMonth => "this month".to_owned(),
            Self::Custom { .. } => "custom".to_owned(),
            Self::AllTime => "all time".to_owned(),
        }
    }

    /// The form the journal keeps it in.
    #[must_use]
    pub fn to_setting(&self) -> String {
        let side = |d: Option<DateParam>| d.map_or_else(|| "-".to_owned(), |d| d.to_string());
        match self {
            Self::LastDays(days) => format!("{days}d"),
            Self::ThisMonth => "month".to_owned(),
            Self::Custom { from, to } => format!("custom {} {}", side(*from), side(*to)),
            Self::AllTime => "all".to_owned(),
        }
    }

    /// Reads a saved range; anything unreadable is ignored (the default stays).
    #[must_use]
    pub fn from_setting(text: &str) -> Option<Self> {
        let mut words = text.split_whitespace();
        match words.next()? {
            "month" => Some(Self::ThisMonth),
            "all" => Some(Self::AllTime),
            "custom" => {
                let mut side = |field| match words.next()? {
                    "-" => Some(None),
                    value => DateParam::parse(field, value).ok().map(Some),
                };
                Some(Self::Custom {
                    from: side("dateFrom")?,
                    to: side("dateTo")?,
                })
            }
            days => days
                .strip_suffix('d')?
                .parse()
                .ok()
                .filter(|d| (1..=3660).contains(d))
                .map(Self::LastDays),
        }
    }
}

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
    pub range: Range,
    pub limit: u32,
    pub offset: u64,
    /// Grows with every request; a reply with another number is for a page no longer
    /// wanted and is dropped.
    pub generation: u64,
    pub loading: bool,
    pub page: Option<VisitorsPage>,
    /// The query of the page on screen, and of the one being fetched.
    pub shown: Option<VisitorsQuery>,
    pending: Option<VisitorsQuery>,
    pub error: Option<String>,
    pub selected: usize,
    pub export: Option<ExportProgress>,
    pub window: std::cell::Cell<usize>,
}

impl Default for VisitorsTable {
    fn default() -> Self {
        Self {
            range: Range::LastDays(7),
            limit: crate::api::query::DEFAULT_LIMIT,
            offset: 0,
            generation: 0,
            loading: false,
            page: None,
            shown: None,
            pending: None,
            error: None,
            selected: 0,
            export: None,
            window: std::cell::Cell::new(0),
        }
    }
}

impl VisitorsTable {
    /// Restores the filter saved by an earlier session: `RANGE` or `RANGE|LIMIT`.
    pub fn restore(&mut self, saved: &str) {
        let (range, limit) = saved.split_once('|').unwrap_or((saved, ""));
        if let Some(range) = Range::from_setting(range) {
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

    pub fn export_done(&mut self, result: Result<(PathBuf, u64), String>) -> (NoticeKind, String) {
        self.export = None;
        match result {
            Ok((path, rows)) => (
                NoticeKind::Done,
                format!("exported {rows} rows to {}", path.display()),
            ),
            Err(reason) => (NoticeKind::Error, format!("export failed: {reason}")),
        }
    }
}

impl App {
    pub(super) fn fetch_visitors(&mut self, now: Clock, effects: &mut Vec<Effect>) {
        if let Some(why) = self.rate_refusal(CallClass::Analytics, now) {
            self.visitors.error = Some(format!("{why}; r loads the page then"));
            return;
        }
        let query = self.visitors.query(now.wall.date_naive());
        if let Err(err) = query.validate() {
            self.visitors.error = Some(err.to_string());
            return;
        }
        self.visitors.generation += 1;
        self.visitors.loading = true;
        self.visitors.pending = Some(query.clone());
        effects.push(Effect::FetchVisitors {
            generation: self.visitors.generation,
            query,
        });
    }

    pub(super) fn on_visitors(
        &mut self,
        generation: u64,
        result: Result<VisitorsPage, ApiError>,
        now: Clock,
    ) {
        self.record_call(result.as_ref().map(|_| ()), CallClass::Analytics, None, now);
        self.dirty = true;
        if generation != self.visitors.generation {
            return;
        }
        let table = &mut self.visitors;
        table.loading = false;
        match result {
            Ok(page) => {
                table.selected = table.selected.min(page.visitors.len().saturating_sub(1));
                table.page = Some(page);
                table.shown = table.pending.take();
                table.error = None;
            }
            Err(err) => table.error = Some(err.to_string()),
        }
    }

    pub(super) fn on_visitors_action(
        &mut self,
        action: Action,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let rows = self.visitors.page.as_ref().map_or(0, |p| p.visitors.len());
        let table = &mut self.visitors;
        match action {
            Action::Up => table.selected = table.selected.saturating_sub(1),
            Action::Down => table.selected = (table.selected + 1).min(rows.saturating_sub(1)),
            Action::Top => table.selected = 0,
            Action::Bottom => table.selected = rows.saturating_sub(1),
            Action::NextPage => {
                // The page shown decides: paging while a fetch runs pages from the target.
                let has_more = table.page.as_ref().is_some_and(|p| p.has_more);
                if has_more || table.loading {
                    table.offset += u64::from(table.limit);
                    table.selected = 0;
                    self.fetch_visitors(now, effects);
                } else {
                    self.notify(NoticeKind::Info, "this is the last page");
                }
            }
            Action::PrevPage => {
                if table.offset > 0 {
                    table.offset = table.offset.saturating_sub(u64::from(table.limit));
                    table.selected = 0;
                    self.fetch_visitors(now, effects);
                } else {
                    self.notify(NoticeKind::Info, "this is the first page");
                }
            }
            Action::MoreRows | Action::FewerRows => {
                let limit = step_size(table.limit, action == Action::MoreRows);
                self.set_filter(self.visitors.range, limit, now, effects);
            }
            Action::Filter => {
                let form = FilterForm::new(
                    &self.visitors.range,
                    self.visitors.limit,
                    now.wall.date_naive(),
                );
                self.overlay = Some(Overlay::Filter(Box::new(form)));
            }
            Action::Export => {
                if self.visitors.export.take().is_some() {
                    effects.push(Effect::CancelExport);
                    self.notify(NoticeKind::Info, "export cancelled; nothing was written");
                } else {
                    let query = self.visitors.query(now.wall.date_naive());
                    self.overlay = Some(Overlay::Export(Box::new(ExportForm::new(&query))));
                }
            }
            _ => {}
        }
    }

    /// Applies a new range and page size: back to a page holding the first row on screen,
    /// saved for the next session, and fetched.
    pub(super) fn set_filter(
        &mut self,
        range: Range,
        limit: u32,
        now: Clock,
        effects: &mut Vec<Effect>,
    ) {
        let table = &mut self.visitors;
        if range == table.range {
            table.offset -= table.offset % u64::from(limit.max(1));
        } else {
            table.offset = 0;
        }
        table.range = range;
        table.limit = limit;
        table.selected = 0;
        effects.push(Effect::SaveSetting {
            name: "visitors.filter",
            value: table.setting(),
        });
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
