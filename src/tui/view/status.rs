//! The tab line at the top, the notice line and the status bar at the bottom.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ViewContext;
use crate::text::sanitize;
use crate::tui::app::{App, Link, Pane};

pub fn tabs(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let mut spans = vec![Span::styled(" docdeck ", theme.accent())];
    let jobs = format!(" 1 Jobs ({}) ", app.jobs.tracked_count());
    let mut panes = vec![(Pane::Jobs, jobs)];
    if !app.config.read_only {
        let drafts = if app.composer.has_text() { " •" } else { "" };
        panes.push((Pane::Composer, format!(" 2 Composer{drafts} ")));
    }
    panes.push((Pane::Visitors, " 3 Visitors ".to_owned()));
    for (pane, label) in panes {
        spans.push(Span::raw(" "));
        let style = if pane == app.focus {
            theme.selected()
        } else {
            theme.bold()
        };
        spans.push(Span::styled(label, style));
    }
    if app.config.read_only {
        spans.push(Span::styled("  read-only", theme.warning()));
    }
    let help = if app.focus == Pane::Composer {
        "F1 help · Esc leave"
    } else {
        "? help · q quit"
    };
    let used: usize = spans.iter().map(Span::width).sum();
    let pad = usize::from(area.width).saturating_sub(used + help.len() + 1);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(help, theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

pub fn notice(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let line = match (&app.notice, &app.last_error) {
        (Some(notice), _) => Line::from(Span::styled(
            format!(" {}", sanitize(&notice.text)),
            cx.theme.notice(notice.kind),
        )),
        (None, Some(error)) if app.link != Link::Online => Line::from(Span::styled(
            format!(" {}", sanitize(error)),
            cx.theme.error(),
        )),
        _ => Line::default(),
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// Seconds until `at`, rounded up, as the status bar counts down.
fn seconds_until(at: Instant, now: Instant) -> u64 {
    crate::tui::app::poll::ceil_secs(at.saturating_duration_since(now))
}

pub fn bar(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let ticking = app.clock_ticking(cx.mono);
    let who = match &app.config.profile {
        Some(profile) => format!("{}/{}", sanitize(profile), sanitize(&app.config.project)),
        None => sanitize(&app.config.project),
    };
    let (link, link_style) = match app.link {
        Link::Waiting => ("○ no call yet".to_owned(), theme.dim()),
        Link::Online => (
            "● online".to_owned(),
            theme.notice(crate::tui::app::NoticeKind::Done),
        ),
        Link::Trouble => ("▲ trouble".to_owned(), theme.error()),
        Link::RateLimited => match app.poll.rate_paused_until(cx.mono) {
            Some(until) => (
                format!("⏸ rate limited {}s", seconds_until(until, cx.mono)),
                theme.warning(),
            ),
            None => ("⏸ rate limited".to_owned(), theme.warning()),
        },
    };
    let updated = match app.last_ok {
        None => "not updated yet".to_owned(),
        Some(at) if ticking => format!("updated {} ago", crate::text::age(cx.wall - at)),
        Some(at) => format!("updated {}", cx.clock_time(at)),
    };
    let next = if app.poll.is_paused() {
        "polling paused (P)".to_owned()
    } else {
        match app.poll.next_due() {
            None if app.poll.in_flight() > 0 => "polling…".to_owned(),
            None => "nothing to poll".to_owned(),
            Some(due) if ticking => format!("next poll {}s", seconds_until(due, cx.mono)),
            Some(due) => {
                let wall = cx.wall
                    + chrono::TimeDelta::from_std(due.saturating_duration_since(cx.mono))
                        .unwrap_or_default();
                format!("next poll {}", cx.clock_time(wall))
            }
        }
    };
    let (create, message) = app.budget_left();
    let limit = app.config.hourly_limit;
    let sep = || Span::styled(" · ", theme.dim());
    let mut spans = vec![
        Span::raw(" "),
        Span::styled(who, theme.bold()),
        sep(),
        Span::raw(sanitize(&app.config.host)),
        sep(),
        Span::styled(link, link_style),
        sep(),
        Span::raw(updated),
        sep(),
        Span::raw(next),
    ];
    if !app.config.read_only {
        spans.push(sep());
        spans.push(Span::raw(format!(
            "new {create}/{limit} msg {message}/{limit}"
        )));
    }
    if let Some(error) = &app.last_error {
        spans.push(sep());
        spans.push(Span::styled(
            format!("last error: {}", sanitize(error)),
            theme.error(),
        ));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
