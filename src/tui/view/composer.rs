//! The composer pane: whose prompt this is, the text, and what happened to the last send.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::ViewContext;
use crate::tui::app::{App, short_id};
use crate::tui::message::DraftKey;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let composer = &app.composer;
    let title = match &composer.target {
        DraftKey::NewJob => " New job ".to_owned(),
        DraftKey::FollowUp(id) => {
            let status = app.jobs.get(id).and_then(|r| r.status()).map_or_else(
                || "not read yet".to_owned(),
                |s| crate::text::sanitize(&s.to_string()),
            );
            format!(" Follow-up to {} ({status}) ", short_id(id))
        }
    };
    let others = match composer.other_drafts() {
        0 => String::new(),
        n => format!(" {n} other draft{} kept ", if n == 1 { "" } else { "s" }),
    };
    let [text_area, info] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(4)]).areas(area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.accent()))
        .title_bottom(Line::from(Span::styled(others, theme.dim())).right_aligned());
    let inner = block.inner(text_area);
    frame.render_widget(block, text_area);
    frame.render_widget(&composer.textarea, inner);

    let (create, message) = app.budget_left();
    let limit = app.config.hourly_limit;
    let (left, kind) = match composer.target {
        DraftKey::NewJob => (create, "new jobs"),
        DraftKey::FollowUp(_) => (message, "follow-ups"),
    };
    let mut lines = Vec::new();
    if composer.sending.is_some() {
        lines.push(Line::from(Span::styled(
            "sending… (the text is locked until the service answers)",
            theme.warning(),
        )));
    } else if let Some(error) = &composer.error {
        lines.push(Line::from(Span::styled(
            crate::text::sanitize(error),
            theme.error(),
        )));
    } else {
        lines.push(Line::from(Span::styled(
            "Ctrl+S send · Esc leave (the draft stays) · Ctrl+E $EDITOR · saved as you type",
            theme.dim(),
        )));
    }
    lines.push(Line::from(format!(
        "{left} of {limit} {kind} left this hour"
    )));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), info);
}
