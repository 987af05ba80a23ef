//! The detail overlay of one job: what the service says now, the status timeline as
//! observed here, and the conversation sent from here.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::ViewContext;
use crate::journal::SubmissionKind;
use crate::text::sanitize;
use crate::tui::app::{App, DetailView};

pub fn draw(frame: &mut Frame<'_>, area: Rect, detail: &DetailView, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let rect = super::overlay_area(
        frame,
        area,
        area.width.saturating_sub(4).max(40),
        area.height,
    );
    let row = app.jobs.get(&detail.id);
    let job = row.and_then(|r| r.job.as_ref());
    let dash = || "-".to_owned();
    let (status, style) = theme.status(row.and_then(|r| r.status()));
    let source = job.and_then(|j| j.source.as_ref());
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
                .map_or_else(|| "none yet".to_owned(), sanitize),
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
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Timeline (as observed here)",
        theme.bold(),
    )));
    if detail.timeline.is_empty() {
        lines.push(Line::from(Span::styled(
            "  nothing observed yet",
            theme.dim(),
        )));
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
        lines.push(Line::from(format!("  {}", steps.join(" → "))));
    }
    lines.push(Line::default());
    lines.push(Line::from(Span::styled(
        "Conversation (prompts sent from this machine)",
        theme.bold(),
    )));
    match &detail.conversation {
        None => lines.push(Line::from(Span::styled("  loading…", theme.dim()))),
        Some(prompts) if prompts.is_empty() => lines.push(Line::from(Span::styled(
            "  none: this job was started elsewhere and the service does not return prompts",
            theme.dim(),
        ))),
        Some(prompts) => {
            for prompt in prompts {
                let kind = match prompt.kind {
                    SubmissionKind::Create => "new job",
                    SubmissionKind::Message => "follow-up",
                };
                lines.push(Line::from(Span::styled(
                    format!("  {} · {kind}", cx.date_time(prompt.sent_at)),
                    theme.accent(),
                )));
                for text in prompt.prompt.lines() {
                    lines.push(Line::from(format!("    {}", sanitize(text))));
                }
            }
        }
    }
    let inner_height = rect.height.saturating_sub(2);
    let max_scroll = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_sub(inner_height);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Job {} ", crate::tui::app::short_id(&detail.id)),
            theme.accent(),
        ))
        .title_bottom(
            Line::from(Span::styled(
                " Esc close · j/k scroll · m follow-up · y copy · o open ",
                theme.dim(),
            ))
            .right_aligned(),
        );
    let paragraph = Paragraph::new(lines)
        .block(block)
        .wrap(Wrap { trim: false })
        .scroll((detail.scroll.min(max_scroll), 0));
    frame.render_widget(paragraph, rect);
}

fn field<'a>(name: &'a str, value: String, cx: &ViewContext) -> Line<'a> {
    Line::from(vec![
        Span::styled(format!("{name:<9}"), cx.theme.dim()),
        Span::raw(value),
    ])
}
