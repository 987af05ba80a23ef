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
use crate::tui::app::{App, JobDetail, TextExtent};
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
    let copy = keys.one(Action::Copy, "copy");
    let open = keys.one(Action::OpenLink, "open");
    let help = Hints::new(app.keymap(), KeyContext::Detail).one(Action::Help, "keys");
    [
        join([close.clone(), page, follow.clone(), copy.clone(), open]),
        join([close.clone(), scroll, follow.clone(), copy]),
        join([close.clone(), follow, help.clone()]),
        join([close.clone(), help]),
        join([close]),
    ]
    .into_iter()
    .map(|hint| format!(" {hint} "))
    .collect()
}

/// Draws the detail; returns how it scrolls as drawn.
pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    detail: &JobDetail,
    app: &App,
    cx: &ViewContext,
) -> TextExtent {
    let theme = cx.theme;
    let rect = super::overlay_area(
        frame,
        area,
        area.width.saturating_sub(4).max(40),
        area.height,
    );
    let columns = usize::from(rect.width.saturating_sub(2));
    let height = usize::from(rect.height.saturating_sub(2)).max(1);
    // Every line wrapped here, so the scroll counts the rows the screen shows.
    let rows: Vec<Line<'static>> = lines(detail, app, cx)
        .iter()
        .flat_map(|(line, indent)| wrap(line, *indent, columns))
        .collect();
    let last_page = rows.len().saturating_sub(height);
    let scroll = detail.scroll.min(last_page);
    let below = rows.len().saturating_sub(scroll + height);
    let below_marker = (below > 0).then(|| format!(" ↓ {below} more "));
    // The longest key hint that fits beside the marker (`?` lists them all).
    let room = columns.saturating_sub(below_marker.as_deref().map_or(0, super::wrap::width) + 2);
    let hint = detail_hints(app)
        .into_iter()
        .find(|h| super::wrap::width(h) <= room)
        .unwrap_or_default();
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Job {} ", crate::tui::app::short_id(&detail.id)),
            theme.accent(),
        ))
        .title_bottom(Line::from(Span::styled(hint, theme.dim())).right_aligned());
    if scroll > 0 {
        block = block.title(
            Line::from(Span::styled(format!(" ↑ {scroll} more "), theme.dim())).right_aligned(),
        );
    }
    if let Some(marker) = below_marker {
        block = block.title_bottom(Line::from(Span::styled(marker, theme.dim())));
    }
    let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(height).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
    TextExtent {
        rows: height,
        last: last_page,
    }
}

/// The detail's lines before wrapping, each with the indent its continuation rows keep.
fn lines(detail: &JobDetail, app: &App, cx: &ViewContext) -> Vec<(Line<'static>, usize)> {
    let theme = cx.theme;
    let row = app.jobs.get(&detail.id);
    let job = row.and_then(|r| r.job.as_ref());
    let dash = || "-".to_owned();
    let (status, style) = theme.status(row.and_then(|r| r.status()));
    let source = job.and_then(|j| j.source.as_ref());
    // A job that has ended will not open a pull request on its own.
    let no_pr = if row
        .and_then(|r| r.status())
        .is_some_and(JobStatus::is_final)
    {
        "none"
    } else {
        "none yet"
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
    if let Some(problem) = row.and_then(|r| r.problem.as_deref()) {
        lines.push(Line::from(Span::styled(
            format!("⚠ {}", sanitize(problem)),
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
                    cx.clock_time(c.observed_at)
                )
            })
            .collect();
        lines.push((Line::from(format!("  {}", steps.join(" → "))), 2));
    }
    lines.push((Line::default(), 0));
    lines.push((
        Line::from(Span::styled(
            "Conversation (prompts sent from this machine)",
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
