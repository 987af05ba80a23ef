//! The tab line at the top, the notice line and the status bar at the bottom.

use std::time::Instant;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::ViewContext;
use super::hints::{Hints, join};
use crate::text::sanitize;
use crate::tui::app::{App, Connection, NoticeKind, Pane, countdown_text};
use crate::tui::keymap::{Action, KeyContext};

pub fn tabs(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
) -> [Option<(Rect, Pane)>; 4] {
    let theme = cx.theme;
    let mut hits = [None; 4];
    let jobs = format!(" 1 Jobs ({}) ", app.jobs.tracked_count());
    let mut panes = vec![(Pane::Jobs, jobs)];
    if !app.config.read_only {
        let drafts = if app.composer.has_text() { " •" } else { "" };
        panes.push((Pane::Composer, format!(" 2 Composer{drafts} ")));
    }
    panes.push((Pane::Visitors, " 3 Visitors ".to_owned()));
    panes.push((Pane::Searches, " 4 Searches ".to_owned()));
    // Where the tabs and the shortest hint do not fit beside the name, the name and the
    // gaps between tabs go first (at 60 columns): every tab stays whole.
    let tabs_width: usize = panes
        .iter()
        .map(|(_, label)| label.chars().count() + 1)
        .sum();
    let compact = " docdeck ".len() + tabs_width + "? help".len() + 2 > usize::from(area.width);
    let mut spans = if compact {
        Vec::new()
    } else {
        vec![Span::styled(" docdeck ", theme.accent())]
    };
    for (slot, (pane, label)) in hits.iter_mut().zip(panes) {
        if !compact {
            spans.push(Span::raw(" "));
        }
        let style = if pane == app.focus {
            theme.selected()
        } else {
            theme.bold()
        };
        let x: usize = spans.iter().map(Span::width).sum();
        let tab = Rect {
            x: area.x.saturating_add(u16::try_from(x).unwrap_or(u16::MAX)),
            width: u16::try_from(label.chars().count()).unwrap_or(0),
            height: 1,
            ..area
        };
        *slot = Some((tab.intersection(area), pane));
        spans.push(Span::styled(label, style));
    }
    if app.config.read_only {
        spans.push(Span::styled("  read-only", theme.warning()));
    }
    let (help, second) = match app.focus {
        Pane::Composer => {
            let keys = Hints::new(app.keymap(), KeyContext::Composer);
            (
                keys.one(Action::Help, "help"),
                keys.one(Action::LeaveComposer, "leave"),
            )
        }
        Pane::Jobs | Pane::Visitors | Pane::Searches => {
            let keys = Hints::new(app.keymap(), KeyContext::Jobs);
            (
                keys.one(Action::Help, "help"),
                keys.one(Action::Quit, "quit"),
            )
        }
    };
    let used: usize = spans.iter().map(Span::width).sum();
    // Both hints where they fit, else the help alone, else none: never a cut hint.
    let room = usize::from(area.width).saturating_sub(used + 2);
    let both = join([help.clone(), second]);
    let help = [both, join([help])]
        .into_iter()
        .find(|hint| super::wrap::width(hint) <= room)
        .unwrap_or_default();
    let pad = usize::from(area.width).saturating_sub(used + super::wrap::width(&help) + 2);
    spans.push(Span::raw(" ".repeat(pad)));
    spans.push(Span::styled(help, theme.dim()));
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
    hits
}

/// Lines the notice needs at `width`: a message that does not fit in one line takes two,
/// so an error stays readable at 80 columns.
#[must_use]
pub fn notice_height(app: &App, width: u16) -> u16 {
    let lines = notice_text(app).map_or(1, |(text, _)| notice_lines(&text, width).len());
    u16::try_from(lines).unwrap_or(1)
}

/// The notice, or else the reason the link is failing.
fn notice_text(app: &App) -> Option<(String, Option<NoticeKind>)> {
    match (&app.notice, &app.link.last_error) {
        (Some(notice), _) => Some((sanitize(&notice.text()), Some(notice.kind))),
        (None, Some(error)) if app.link.connection.is_failing() => {
            Some((sanitize(&error.to_string()), None))
        }
        _ => None,
    }
}

/// `text` on one line, or on two broken at a space, the second cut with `…`.
fn notice_lines(text: &str, width: u16) -> Vec<String> {
    let room = usize::from(width).saturating_sub(1).max(10);
    if text.chars().count() <= room {
        return vec![text.to_owned()];
    }
    let head: String = text.chars().take(room + 1).collect();
    // A last word that fits the second line whole (a link) goes there whole, however
    // short the first line is left: a link cut in two cannot be copied.
    let whole_last = head
        .rfind(' ')
        .filter(|at| text[*at..].trim().chars().count() <= room);
    let split = whole_last
        .or_else(|| head.rfind(' ').filter(|at| *at > room / 2))
        .unwrap_or_else(|| {
            head.char_indices()
                .nth(room)
                .map_or(head.len(), |(at, _)| at)
        });
    let (first, rest) = text.split_at(split);
    vec![
        first.trim_end().to_owned(),
        crate::text::excerpt(rest, room),
    ]
}

pub fn notice(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let Some((text, kind)) = notice_text(app) else {
        return;
    };
    let style = kind.map_or_else(|| cx.theme.error(), |kind| cx.theme.notice(kind));
    let lines: Vec<Line<'_>> = notice_lines(&text, area.width)
        .into_iter()
        .map(|line| Line::from(Span::styled(format!(" {line}"), style)))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// Seconds until `at`, rounded up, as the status bar counts down.
fn seconds_until(at: Instant, now: Instant) -> u64 {
    crate::tui::app::poll::ceil_secs(at.saturating_duration_since(now))
}

/// One part of the status bar; when the bar is too narrow the parts of lowest `rank`
/// are left out first.
struct Part {
    rank: u8,
    span: Span<'static>,
}

pub fn bar(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let who = match &app.config.profile {
        Some(profile) => format!("{}/{}", sanitize(profile), sanitize(&app.config.project)),
        None => sanitize(&app.config.project),
    };
    let mut parts = vec![
        Part {
            rank: 9,
            span: Span::styled(who, theme.bold()),
        },
        Part {
            rank: 1,
            span: Span::raw(sanitize(&app.config.host)),
        },
        Part {
            rank: 9,
            span: link_span(app, cx),
        },
    ];
    let paused: Vec<String> = app
        .link
        .pauses
        .active(cx.mono)
        .into_iter()
        .map(|(class, until)| format!("{} {}", class.label(), countdown_text(until, cx.mono)))
        .collect();
    if !paused.is_empty() {
        parts.push(Part {
            rank: 8,
            span: Span::styled(format!("⏸ {}", paused.join(", ")), theme.warning()),
        });
    }
    parts.push(Part {
        rank: 2,
        span: Span::raw(updated_text(app, cx)),
    });
    parts.push(Part {
        rank: 4,
        span: Span::raw(next_poll_text(app, cx)),
    });
    let analytics = &app.link.budget.analytics;
    // Analytics left matter most where they are spent: kept longest in the visitors and
    // searches panes, and in the jobs pane before the jobs' budget (an impact read spends
    // them there, and the README points at the figure); the composer keeps its own first.
    parts.push(Part {
        rank: match app.focus {
            Pane::Visitors | Pane::Searches => 5,
            // A pause says enough of them while it lasts.
            Pane::Jobs if paused.is_empty() => 4,
            Pane::Jobs => 3,
            Pane::Composer => 3,
        },
        // A limit the service stated says so; without a mark it is the hosted service's
        // documented 100 an hour (README, `?`).
        span: Span::raw(format!(
            "analytics {}/{}{}",
            analytics.left(),
            analytics.limit,
            match analytics.source {
                crate::journal::LimitSource::Stated(_) => " (service)",
                crate::journal::LimitSource::Documented => "",
            }
        )),
    });
    if !app.config.read_only {
        let (create, message) = app.link.budget_left(app.config.hourly_limit);
        let limit = app.config.hourly_limit;
        parts.push(Part {
            rank: if app.focus == Pane::Composer { 5 } else { 3 },
            span: Span::raw(format!("new {create}/{limit} msg {message}/{limit}")),
        });
    }
    fit(&mut parts, usize::from(area.width));
    let mut spans = vec![Span::raw(" ")];
    for (i, part) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        spans.push(part.span);
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Leaves out the parts of lowest rank until the rest fits in `width`.
fn fit(parts: &mut Vec<Part>, width: usize) {
    let used = |parts: &[Part]| {
        1 + parts.iter().map(|p| p.span.width()).sum::<usize>() + 3 * parts.len().saturating_sub(1)
    };
    while used(parts) > width {
        let Some((at, _)) = parts
            .iter()
            .enumerate()
            .filter(|(_, p)| p.rank < 9)
            .min_by_key(|(_, p)| p.rank)
        else {
            return;
        };
        parts.remove(at);
    }
}

fn link_span(app: &App, cx: &ViewContext) -> Span<'static> {
    let theme = cx.theme;
    match app.link.connection {
        Connection::Waiting => Span::styled("○ connecting", theme.dim()),
        Connection::Online => match app.jobs.unanswered_for(cx.mono) {
            // The last answer said online; a read out this long says otherwise.
            Some(waited) => Span::styled(
                format!(
                    "◌ no answer for {}",
                    crate::text::age(chrono::TimeDelta::from_std(waited).unwrap_or_default())
                ),
                theme.notice(NoticeKind::Warning),
            ),
            None => Span::styled("● online", theme.notice(NoticeKind::Done)),
        },
        Connection::Trouble => Span::styled("▲ trouble", theme.error()),
        Connection::KeyRejected => Span::styled("✗ key rejected (401)", theme.error()),
        Connection::NotAllowed => Span::styled("✗ not allowed (403)", theme.error()),
    }
}

fn updated_text(app: &App, cx: &ViewContext) -> String {
    match app.link.last_ok {
        None => "not updated yet".to_owned(),
        Some(at) if app.jobs.clock_ticking(cx.mono) => {
            format!("updated {} ago", crate::text::age(cx.wall - at))
        }
        Some(at) => format!("updated {}", cx.clock_time(at)),
    }
}

fn next_poll_text(app: &App, cx: &ViewContext) -> String {
    if app.jobs.poll.is_paused() {
        return "polling paused (P)".to_owned();
    }
    // While the service does not answer, the check that finds it back may come first;
    // while it is out, the bar says so (it named a time already past).
    if app.link.check.in_flight && app.link.connection.is_failing() {
        return "trying again…".to_owned();
    }
    if let Some(due) = app.link.check.due
        && app.link.connection.is_failing()
        && app.jobs.poll.next_due().is_none_or(|poll| due < poll)
    {
        let wall = cx.wall
            + chrono::TimeDelta::from_std(due.saturating_duration_since(cx.mono))
                .unwrap_or_default();
        return format!("next try {}", cx.clock_time(wall));
    }
    if app.jobs.unanswered_for(cx.mono).is_some() {
        return "polling…".to_owned();
    }
    match app.jobs.poll.next_due() {
        None if app.jobs.poll.in_flight() > 0 => "polling…".to_owned(),
        None => "nothing to poll".to_owned(),
        Some(due) if app.jobs.clock_ticking(cx.mono) => {
            format!("next poll {}s", seconds_until(due, cx.mono))
        }
        Some(due) => {
            let wall = cx.wall
                + chrono::TimeDelta::from_std(due.saturating_duration_since(cx.mono))
                    .unwrap_or_default();
            format!("next poll {}", cx.clock_time(wall))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::notice_lines;

    /// At 80 columns a finished job's notice cut its link inside the job id (the soak):
    /// the link goes to the second line whole.
    #[test]
    fn a_link_that_fits_the_second_line_is_not_cut() {
        let link = "http://127.0.0.1:51805/changes/demo/job_7mjjg3afdb7jt2fy8ojf";
        let text = format!("job job_7mjjg3af completed · {link}");
        let lines = notice_lines(&text, 80);
        assert_eq!(
            lines,
            vec!["job job_7mjjg3af completed ·".to_owned(), link.to_owned()]
        );
    }
}
