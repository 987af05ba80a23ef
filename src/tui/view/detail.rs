//! The detail overlay of one job: what the service says now, the status timeline as
//! observed here, and the conversation sent from here.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use super::hints::{Hints, join};
use super::wrap::wrap;
use crate::api::JobStatus;
use crate::journal::SubmissionKind;
use crate::text::sanitize;
use crate::tui::app::{App, DetailSearch, Found, JobDetail, TextExtent};
use crate::tui::keymap::{Action, KeyContext};

/// The detail's key hints, longest first, with the keys in force; `update` has the
/// follow-up refused under `--read-only`, so it is not offered there.
fn detail_hints(app: &App) -> Vec<String> {
    let keys = Hints::new(app.keymap(), KeyContext::Detail);
    let close = keys.one(Action::Close, "close");
    let scroll = keys.pair(Action::Down, Action::Up, "scroll");
    let page = keys
        .pair(Action::Down, Action::Up, "")
        .zip(keys.key(Action::NextPage))
        .map(|(pair, page)| format!("{pair}{page} scroll"));
    let follow = (!app.config.read_only)
        .then(|| keys.one(Action::FollowUp, "follow-up"))
        .flatten();
    let search = keys.one(Action::Search, "search");
    let copy = keys.one(Action::Copy, "copy");
    let open = keys.one(Action::OpenLink, "open");
    let impact = keys.one(Action::Impact, "impact");
    let days = app.jobs.impacts.window_days();
    let window = keys.one(Action::ImpactWindow, &format!("{days}d window"));
    let short_window = keys.one(Action::ImpactWindow, &format!("{days}d"));
    let help = Hints::new(app.keymap(), KeyContext::Detail).one(Action::Help, "keys");
    [
        join([
            close.clone(),
            page,
            search.clone(),
            follow.clone(),
            copy.clone(),
            open,
            impact.clone(),
            window.clone(),
        ]),
        join([
            close.clone(),
            scroll.clone(),
            search.clone(),
            follow.clone(),
            impact.clone(),
            short_window,
        ]),
        join([close.clone(), scroll, search, follow.clone(), impact]),
        join([close.clone(), follow, help.clone()]),
        join([close.clone(), help]),
        join([close]),
    ]
    .into_iter()
    .map(|hint| format!(" {hint} "))
    .collect()
}

/// Draws the detail; returns how it scrolls as drawn, and what its search found.
pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    detail: &JobDetail,
    app: &App,
    cx: &ViewContext,
) -> (TextExtent, Option<Found>) {
    let theme = cx.theme;
    let (rect, columns) = super::text_overlay_area(frame, area);
    let height = usize::from(rect.height.saturating_sub(2)).max(1);
    // Every line wrapped here, so the scroll counts the rows the screen shows.
    let mut rows: Vec<Line<'static>> = lines(detail, app, cx)
        .iter()
        .flat_map(|(line, indent)| wrap(line, *indent, columns))
        .collect();
    let last_page = rows.len().saturating_sub(height);
    let mut scroll = detail.scroll.min(last_page);
    let search = detail.search.as_ref().map(|search| {
        let (found, seen) = mark_matches(&mut rows, search, (scroll, height), cx);
        scroll = seen.min(last_page);
        found
    });
    let below = rows.len().saturating_sub(scroll + height);
    let below_marker = (below > 0).then(|| format!(" ↓ {below} more "));
    let search_title = detail
        .search
        .as_ref()
        .zip(search.as_ref())
        .map(|(s, found)| search_title(s, found, cx));
    let used = below_marker.as_deref().map_or(0, super::wrap::width)
        + search_title.as_ref().map_or(0, Line::width);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Job {} ", crate::tui::app::short_id(&detail.id)),
            theme.accent(),
        ))
        .title_bottom(hint(app, columns.saturating_sub(used + 2), cx));
    if scroll > 0 {
        block = block.title(
            Line::from(Span::styled(format!(" ↑ {scroll} more "), theme.dim())).right_aligned(),
        );
    }
    if let Some(title) = search_title {
        block = block.title_bottom(title);
    }
    if let Some(marker) = below_marker {
        block = block.title_bottom(Line::from(Span::styled(marker, theme.dim())));
    }
    let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
    let extent = TextExtent {
        rows: height,
        last: last_page,
    };
    (
        extent,
        search.map(|found| Found {
            matches: found.rows.len(),
            scroll,
        }),
    )
}

/// The longest key hint that fits in `room` (`?` lists them all).
fn hint(app: &App, room: usize, cx: &ViewContext) -> Line<'static> {
    let hint = detail_hints(app)
        .into_iter()
        .find(|h| super::wrap::width(h) <= room)
        .unwrap_or_default();
    Line::from(Span::styled(hint, cx.theme.dim())).right_aligned()
}

/// The rows that match a search, and which of them is current.
struct Matches {
    rows: Vec<usize>,
    current: Option<usize>,
}

/// Marks the rows that match: the current one as selected, the others in the accent
/// colour. Returns them, and the scroll that shows the current one when the search
/// asks for it (else `scroll` as it was).
fn mark_matches(
    rows: &mut [Line<'static>],
    search: &DetailSearch,
    (scroll, height): (usize, usize),
    cx: &ViewContext,
) -> (Matches, usize) {
    if search.pattern.is_empty() {
        return (
            Matches {
                rows: Vec::new(),
                current: None,
            },
            scroll,
        );
    }
    let matching: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, row)| {
            let text: String = row.spans.iter().map(|s| s.content.as_ref()).collect();
            search.pattern.matches(&text)
        })
        .map(|(at, _)| at)
        .collect();
    let current = (!matching.is_empty()).then(|| search.current % matching.len());
    for (n, &at) in matching.iter().enumerate() {
        let style = if Some(n) == current {
            cx.theme.selected()
        } else {
            cx.theme.accent()
        };
        let row = std::mem::take(&mut rows[at]);
        rows[at] = row.patch_style(style);
    }
    let mut seen = scroll;
    if let Some(target) = current.map(|n| matching[n])
        && search.seek
        && !(scroll..scroll + height).contains(&target)
    {
        // A third down the box, so what leads to it shows too.
        seen = target.saturating_sub(height / 3);
    }
    (
        Matches {
            rows: matching,
            current,
        },
        seen,
    )
}

/// ` /webhook▏ 2/5 · Enter keeps…` while typed, ` /webhook 2/5 · n N…` once kept.
fn search_title(search: &DetailSearch, found: &Matches, cx: &ViewContext) -> Line<'static> {
    let typed = sanitize(search.pattern.as_typed());
    let count = match found.current {
        Some(n) => format!("{}/{}", n + 1, found.rows.len()),
        None if search.pattern.is_empty() => String::new(),
        None => "no match".to_owned(),
    };
    let (cursor, keys) = if search.typing {
        ("▏ ", " · Enter keeps · Esc leaves ")
    } else {
        (" ", " · n N · Esc leaves ")
    };
    Line::from(vec![
        Span::styled(format!(" /{typed}{cursor}"), cx.theme.accent()),
        Span::styled(count, cx.theme.bold()),
        Span::styled(keys, cx.theme.dim()),
    ])
}

/// The detail's lines before wrapping, each with the indent its continuation rows keep.
fn lines(detail: &JobDetail, app: &App, cx: &ViewContext) -> Vec<(Line<'static>, usize)> {
    let theme = cx.theme;
    let row = app.jobs.get(&detail.id);
    let job = row.and_then(|r| r.job.as_ref());
    let dash = || "-".to_owned();
    let (status, style) = match row {
        Some(row) if row.job.as_ref().is_some_and(crate::api::Job::is_queued) => {
            let (words, style) = super::jobs::status_text(row, cx);
            (
                format!("{words} (waiting for a free agent; #1 is next)"),
                style,
            )
        }
        Some(row) if row.job.as_ref().is_some_and(crate::api::Job::is_starting) => {
            let (words, style) = super::jobs::status_text(row, cx);
            (format!("{words} (an agent is being started for it)"), style)
        }
        _ => theme.status(row.and_then(|r| r.status())),
    };
    let source = job.and_then(|j| j.source.as_ref());
    // A job that has ended will not open a pull request on its own.
    let no_pr = match row.and_then(|r| r.status()) {
        Some(JobStatus::Completed) => "none: the agent changed nothing",
        Some(status) if status.is_final() => "none",
        _ => "none yet",
    };
    let mut lines = vec![
        Line::from(vec![
            Span::styled("status   ", theme.dim()),
            Span::styled(status, style),
        ]),
        field("id", sanitize(&detail.id), cx),
        field(
            "model",
            job.and_then(|j| j.model.as_deref())
                .map_or_else(dash, sanitize),
            cx,
        ),
        field(
            "source",
            format!(
                "{} @ {}",
                source
                    .and_then(|s| s.repository.as_deref())
                    .map_or_else(dash, sanitize),
                source
                    .and_then(|s| s.git_ref.as_deref())
                    .map_or_else(dash, sanitize)
            ),
            cx,
        ),
        field(
            "PR",
            job.and_then(|j| j.pr_link.as_deref())
                .map_or_else(|| no_pr.to_owned(), sanitize),
            cx,
        ),
        field(
            "created",
            job.and_then(|j| j.created_at)
                .map_or_else(dash, |t| cx.date_time(t)),
            cx,
        ),
        field(
            "archived",
            job.and_then(|j| j.archived_at)
                .map_or_else(dash, |t| cx.date_time(t)),
            cx,
        ),
    ];
    // The local service's own fields: shown only when it sends them.
    if let Some(reason) = job.and_then(|j| j.failure_reason.as_deref()) {
        lines.push(field("reason", sanitize(reason), cx));
    }
    if let Some(output) = job.and_then(|j| j.output_link.as_deref()) {
        let open = app
            .keymap()
            .key_or_name(KeyContext::Detail, Action::OpenLink);
        let status = row.and_then(|r| r.status());
        // The service links the last turn that ended: while another turn waits or runs,
        // that output is an earlier turn's (a revived job's failed turn), and says so.
        let turn = output.rsplit('/').next().unwrap_or_default();
        let hint = match status {
            Some(JobStatus::Failed) => format!(" ({open} opens it)"),
            Some(JobStatus::Active) => {
                format!(" (turn {turn}, an earlier turn: this one has none yet)")
            }
            _ => String::new(),
        };
        lines.push(field("output", format!("{}{hint}", sanitize(output)), cx));
    }
    if let Some(problem) = row.and_then(|r| r.problem.as_deref()) {
        lines.push(Line::from(Span::styled(
            format!("⚠ the last read of this job failed: {}", sanitize(problem)),
            theme.warning(),
        )));
    }
    let mut lines: Vec<(Line<'static>, usize)> = lines
        .into_iter()
        .map(|line| {
            let indent = if line.spans.len() == 2 { 9 } else { 2 };
            (line, indent)
        })
        .collect();
    lines.extend(super::impact::lines(&detail.id, app, cx));
    lines.push((Line::default(), 0));
    lines.push((
        Line::from(Span::styled("Timeline (as observed here)", theme.bold())),
        0,
    ));
    if detail.timeline.is_empty() {
        lines.push((
            Line::from(Span::styled("  nothing observed yet", theme.dim())),
            2,
        ));
    } else {
        let steps: Vec<String> = detail
            .timeline
            .iter()
            .map(|c| {
                format!(
                    "{} {}",
                    sanitize(&c.status.to_string()),
                    cx.moment(c.observed_at)
                )
            })
            .collect();
        lines.push((Line::from(format!("  {}", steps.join(" → "))), 2));
    }
    lines.push((Line::default(), 0));
    lines.push((
        Line::from(Span::styled(
            "Conversation (prompts known on this machine)",
            theme.bold(),
        )),
        0,
    ));
    conversation(&mut lines, detail, cx);
    lines
}

fn conversation(lines: &mut Vec<(Line<'static>, usize)>, detail: &JobDetail, cx: &ViewContext) {
    let theme = cx.theme;
    match &detail.conversation {
        None => lines.push((Line::from(Span::styled("  loading…", theme.dim())), 2)),
        Some(prompts) if prompts.is_empty() => lines.push((
            Line::from(Span::styled(
                "  none: this job was started elsewhere and the service does not return prompts",
                theme.dim(),
            )),
            2,
        )),
        Some(prompts) => {
            for prompt in prompts {
                let kind = match prompt.kind {
                    SubmissionKind::Create => "new job",
                    SubmissionKind::Message => "follow-up",
                };
                lines.push((
                    Line::from(Span::styled(
                        format!("  {} · {kind}", cx.date_time(prompt.sent_at)),
                        theme.accent(),
                    )),
                    2,
                ));
                for text in prompt.prompt.lines() {
                    let text = sanitize(text);
                    // A wrapped line of an indented list item stays under its item.
                    let own = text.chars().take_while(|c| *c == ' ').count();
                    lines.push((Line::from(format!("    {text}")), 4 + own));
                }
            }
        }
    }
}

fn field(name: &str, value: String, cx: &ViewContext) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{name:<9}"), cx.theme.dim()),
        Span::raw(value),
    ])
}
