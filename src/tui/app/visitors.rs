//! The visitors pane: the date range and page size, the page on screen, paging that
//! drops replies for a page no longer wanted, and export of the whole range.

use std::path::PathBuf;

use chrono::NaiveDate;

use super::{App, CallClass, ExportForm, FilterForm, NoticeKind, Overlay};
use crate::api::{ApiError, DateParam, VisitorsPage, VisitorsQuery};
use crate::tui::keymap::Action;
use crate::tui::message::{Clock, Effect, ExportEnd, Io};

mod export;
mod range;

pub use export::{export_end_text, stopped_text};
pub use range::Range;

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
    /// How the last export ended, said under the table until the next one starts.
    pub export_end: Option<ExportEnd>,
    /// The form of the running export, back on screen if the file turns out to exist.
    export_form: Option<Box<ExportForm>>,
    /// What a full bar means: the largest row of the range (its first row, as rows come
    /// by total descending), learned from the range's first page; until then the range's
    /// total. The same on every page and scroll position.
    top: Option<TopRow>,
    pub window: std::cell::Cell<usize>,
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
            export_end: None,
            export_form: None,
            top: None,
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

    /// What a full bar means on the page shown.
    #[must_use]
    pub fn bar_scale(&self) -> Option<BarScale> {
        let page = self.page.as_ref()?;
        let shown = self.shown.as_ref();
        let top = self
            .top
            .filter(|top| shown.is_some_and(|q| q.date_from == top.from && q.date_to == top.to));
        Some(match top {
            Some(top) => BarScale::TopRow(top.total),
            None => BarScale::Total(page.totals.total),
        })
    }

    #[cfg(test)]
    pub(crate) fn top_forget_for_test(&mut self) {
        self.top = None;
    }

    /// Learns the range's largest row from its first page (and from any later row that
    /// is larger, when the data grew meanwhile).
    fn learn_top(&mut self) {
        let (Some(page), Some(query)) = (&self.page, &self.shown) else {
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
        effects.push(Effect::Io(Io::FetchVisitors {
            generation: self.visitors.generation,
            query,
        }));
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
                table.learn_top();
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
                    effects.push(Effect::Io(Io::CancelExport));
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
