//! Drawing the console: a function of the state, the clock and the view's own memory
//! between frames (where each list's window is, in [`ViewMemory`]; never in the app's
//! state). No I/O here. Only the rows that fit are laid out, and every text from outside
//! is sanitized first.

pub mod ascii;
mod composer;
mod confirm;
mod detail;
mod forms;
mod help;
mod hints;
mod impact;
mod jobs;
mod notices;
pub mod said;
mod searches;
mod status;
mod table;
pub mod theme;
mod visitors;
pub mod wrap;

use std::time::Instant;

use chrono::{DateTime, Local, Utc};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};

use super::app::{App, Found, Hits, Overlay, Pane, TextExtent, Viewport};
use table::TableState;
use theme::Theme;

pub use super::app::{MIN_HEIGHT, MIN_WIDTH};

/// What a frame is drawn with besides the state: the clock and the colour choice.
#[derive(Debug, Clone, Copy)]
pub struct ViewContext {
    pub wall: DateTime<Utc>,
    pub mono: Instant,
    pub theme: Theme,
    /// Show clock times in UTC (tests) rather than the local zone.
    pub utc: bool,
}

impl ViewContext {
    /// `HH:MM:SS` of a time, in the local zone unless `utc`.
    #[must_use]
    pub fn clock_time(&self, at: DateTime<Utc>) -> String {
        if self.utc {
            at.format("%H:%M:%S").to_string()
        } else {
            at.with_timezone(&Local).format("%H:%M:%S").to_string()
        }
    }

    /// `HH:MM:SS` of a time of today, `YYYY-MM-DD HH:MM:SS` of an older one (a console
    /// left open for days must not show yesterday's times as today's).
    #[must_use]
    pub fn moment(&self, at: DateTime<Utc>) -> String {
        let (day, today, time) = if self.utc {
            (
                at.date_naive(),
                self.wall.date_naive(),
                at.format("%H:%M:%S"),
            )
        } else {
            let local = at.with_timezone(&Local);
            (
                local.date_naive(),
                self.wall.with_timezone(&Local).date_naive(),
                local.format("%H:%M:%S"),
            )
        };
        if day == today {
            time.to_string()
        } else {
            format!("{day} {time}")
        }
    }

    /// `YYYY-MM-DD HH:MM` of a time, with its zone.
    #[must_use]
    pub fn date_time(&self, at: DateTime<Utc>) -> String {
        if self.utc {
            at.format("%Y-%m-%d %H:%M UTC").to_string()
        } else {
            at.with_timezone(&Local)
                .format("%Y-%m-%d %H:%M %Z")
                .to_string()
        }
    }
}

/// What the view remembers from frame to frame (where each list's window is) and what
/// the last frame measured. The loop owns it and lends it to each draw; the app learns
/// only the measures, through [`ViewMemory::viewport`].
#[derive(Debug, Default)]
pub struct ViewMemory {
    jobs: TableState,
    visitors: TableState,
    searches: TableState,
    /// The detail and help overlays as drawn in the last frame, if they were.
    detail: Option<TextExtent>,
    help: Option<TextExtent>,
    /// What the detail's search found in the last frame.
    found: Option<Found>,
    /// Where the last frame drew what a click can hit.
    hits: Hits,
}

impl ViewMemory {
    /// What the app needs of the last frame: how far page-wise keys move.
    #[must_use]
    pub fn viewport(&self) -> Viewport {
        Viewport {
            jobs_rows: self.jobs.visible(),
            visitors_rows: self.visitors.visible(),
            searches_rows: self.searches.visible(),
            detail: self.detail,
            help: self.help,
            found: self.found,
            hits: self.hits,
        }
    }
}

/// Draws the whole frame.
pub fn draw(frame: &mut Frame<'_>, app: &App, cx: &ViewContext, memory: &mut ViewMemory) {
    memory.detail = None;
    memory.help = None;
    memory.found = None;
    memory.hits = Hits::default();
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        too_small(frame, area, app, cx);
        return;
    }
    let [tabs, body, notice, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(status::notice_height(app, area.width)),
        Constraint::Length(1),
    ])
    .areas(area);
    memory.hits.tabs = status::tabs(frame, tabs, app, cx);
    // A list not drawn as a table (empty, loading) has no rows to click.
    let unclicked = (Rect::default(), 0..0);
    match app.focus {
        Pane::Jobs => {
            memory.jobs.drawn_at(unclicked.0, &unclicked.1);
            jobs::draw(frame, body, app, cx, &mut memory.jobs);
            memory.hits.rows = Some(memory.jobs.rows_area());
        }
        Pane::Composer => composer::draw(frame, body, app, cx),
        Pane::Visitors => {
            memory.visitors.drawn_at(unclicked.0, &unclicked.1);
            visitors::draw(frame, body, app, cx, &mut memory.visitors);
            memory.hits.rows = Some(memory.visitors.rows_area());
        }
        Pane::Searches => {
            memory.searches.drawn_at(unclicked.0, &unclicked.1);
            searches::draw(frame, body, app, cx, &mut memory.searches);
            memory.hits.rows = Some(memory.searches.rows_area());
        }
    }
    status::notice(frame, notice, app, cx);
    status::bar(frame, status, app, cx);
    match &app.overlay {
        None => {}
        Some(Overlay::Help(context)) => {
            memory.help = Some(help::draw(frame, body, *context, app, cx));
        }
        Some(Overlay::Detail(detail)) => {
            let (extent, found) = detail::draw(frame, body, detail, app, cx);
            memory.detail = Some(extent);
            memory.found = found;
        }
        Some(Overlay::Track(form)) => forms::track(frame, body, form, app.keymap(), cx),
        Some(Overlay::Filter(form)) => forms::filter(frame, body, form, app.keymap(), cx),
        Some(Overlay::Export(form)) => forms::export(frame, body, form, app.keymap(), cx),
        Some(Overlay::Confirm(question)) => confirm::draw(frame, body, question, cx),
        Some(Overlay::Notices) => memory.help = Some(notices::draw(frame, body, app, cx)),
    }
}

fn too_small(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    // The key that quits here, as the person has it (the jobs list's, as update reads it).
    let quit = app
        .keymap()
        .key(
            crate::tui::keymap::KeyContext::Jobs,
            crate::tui::keymap::Action::Quit,
        )
        .map_or_else(
            || "Enlarge the window.".to_owned(),
            |key| format!("Enlarge the window, or press {key} to quit."),
        );
    let text = vec![
        Line::from(Span::styled("terminal too small", cx.theme.error())),
        Line::from(format!(
            "{}×{} here; docdeck needs at least {MIN_WIDTH}×{MIN_HEIGHT}.",
            area.width, area.height
        )),
        Line::from(quit),
    ];
    frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
}

/// A box centred in `area`, at most `width`×`height`, cleared for an overlay.
pub(crate) fn overlay_area(frame: &mut Frame<'_>, area: Rect, width: u16, height: u16) -> Rect {
    let w = width.min(area.width);
    let h = height.min(area.height);
    let rect = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    frame.render_widget(Clear, rect);
    rect
}

/// A long text over the panes (a job's detail, the log of notices): as tall as the
/// screen and nearly as wide (40 columns at least), cleared. Returns it and the columns
/// inside its border.
pub(crate) fn text_overlay_area(frame: &mut Frame<'_>, area: Rect) -> (Rect, usize) {
    let width = area.width.saturating_sub(4).max(40);
    let rect = overlay_area(frame, area, width, area.height);
    (rect, usize::from(rect.width.saturating_sub(2)))
}

pub use crate::text::thousands;

#[cfg(test)]
mod tests;
