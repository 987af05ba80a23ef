//! The composer pane: whose prompt this is, the text, and what happened to the last send.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Position, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use super::hints::{Hints, join};
use crate::tui::app::{App, short_id};
use crate::tui::keymap::{Action, KeyContext};
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
    let (create, message) = app.link.budget_left(app.config.hourly_limit);
    let limit = app.config.hourly_limit;
    let (left, kind) = match composer.target {
        DraftKey::NewJob => (create, "new jobs"),
        DraftKey::FollowUp(_) => (message, "follow-ups"),
    };
    let (said, style) = if composer.sending.is_some() {
        (
            "sending… (the text is locked until the service answers)".to_owned(),
            theme.warning(),
        )
    } else if let Some(error) = &composer.error {
        (crate::text::sanitize(error), theme.error())
    } else {
        let keys = Hints::new(app.keymap(), KeyContext::Composer);
        let template = match (&composer.target, &composer.fill) {
            (DraftKey::NewJob, Some(fill)) => Some(join([
                Some(format!(
                    "template \"{}\"",
                    crate::text::sanitize(&fill.name)
                )),
                keys.one(Action::NextTemplate, "next template")
                    .filter(|_| fill.name != crate::insight::templates::MISSING_PAGE),
            ])),
            (DraftKey::NewJob, None) => keys.one(Action::NextTemplate, "template"),
            (DraftKey::FollowUp(_), _) => None,
        };
        let hint = join([
            template,
            keys.one(Action::Send, "send"),
            keys.one(Action::LeaveComposer, "leave (the draft stays)"),
            keys.one(Action::Editor, "$EDITOR"),
            Some("saved as you type".to_owned()),
        ]);
        (hint, theme.dim())
    };
    // Messages wrap to as many lines as they need (the text keeps at least 3 rows), so
    // a long error is read whole rather than cut.
    let mut lines: Vec<Line<'_>> = super::forms::wrap_words(&said, usize::from(area.width))
        .into_iter()
        .map(|l| Line::from(Span::styled(l, style)))
        .collect();
    lines.push(Line::from(format!(
        "{left} of {limit} {kind} left this hour"
    )));
    let room = area.height.saturating_sub(5);
    let height = u16::try_from(lines.len() + 1)
        .unwrap_or(u16::MAX)
        .min(room)
        .max(2);
    let [text_area, info] =
        Layout::vertical([Constraint::Min(3), Constraint::Length(height)]).areas(area);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(title, theme.accent()))
        .title_bottom(Line::from(Span::styled(others, theme.dim())).right_aligned());
    let inner = block.inner(text_area);
    frame.render_widget(block, text_area);
    frame.render_widget(&composer.textarea, inner);
    if app.overlay.is_none() && composer.sending.is_none() {
        place_cursor(frame, inner, &composer.textarea);
    }
    frame.render_widget(Paragraph::new(lines), info);
}

/// Puts the terminal's own cursor where the next character goes (input-method windows
/// and screen readers follow it), by display columns: a wide character moves it two.
fn place_cursor(frame: &mut Frame<'_>, inner: Rect, textarea: &ratatui_textarea::TextArea<'_>) {
    let cursor = textarea.screen_cursor();
    let (top, left) = textarea.scroll_offset();
    let row = cursor.row.checked_sub(usize::from(top));
    let col = cursor.col.checked_sub(usize::from(left));
    if let (Some(row), Some(col)) = (row, col) {
        let (Ok(row), Ok(col)) = (u16::try_from(row), u16::try_from(col)) else {
            return;
        };
        if row < inner.height && col < inner.width {
            frame.set_cursor_position(Position::new(inner.x + col, inner.y + row));
        }
    }
}
