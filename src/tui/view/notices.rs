//! The log of recent notices (`L`): newest first, each with its time (and its date when
//! it is not today's), wrapped under its own text, scrolled as the help is.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use super::wrap::wrap;
use crate::text::sanitize;
use crate::tui::app::{App, LOG_LENGTH, TextExtent};

/// Draws the log; returns how it scrolls as drawn.
pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) -> TextExtent {
    let (rect, columns) = super::text_overlay_area(frame, area);
    let rows: Vec<Line<'static>> = if app.log.is_empty() {
        vec![Line::from(Span::styled(
            " nothing said yet",
            cx.theme.dim(),
        ))]
    } else {
        app.log
            .entries()
            .flat_map(|logged| {
                let time = format!(" {}  ", cx.moment(logged.at));
                let indent = time.chars().count();
                let line = Line::from(vec![
                    Span::styled(time, cx.theme.dim()),
                    Span::styled(
                        sanitize(&logged.notice.text()),
                        cx.theme.notice(logged.notice.kind),
                    ),
                ]);
                wrap(&line, indent, columns)
            })
            .collect()
    };
    let visible = usize::from(rect.height.saturating_sub(2)).max(1);
    let last = rows.len().saturating_sub(visible);
    let scroll = app.help.scroll.min(last);
    let below = rows.len().saturating_sub(scroll + visible);
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(
            format!(" Notices, newest first (the last {LOG_LENGTH} are kept) "),
            cx.theme.accent(),
        ))
        .title_bottom(
            Line::from(Span::styled(" j/k scroll · Esc close ", cx.theme.dim())).right_aligned(),
        );
    if scroll > 0 {
        block = block.title(
            Line::from(Span::styled(format!(" ↑ {scroll} more "), cx.theme.dim())).right_aligned(),
        );
    }
    if below > 0 {
        block = block.title_bottom(Line::from(Span::styled(
            format!(" ↓ {below} more "),
            cx.theme.dim(),
        )));
    }
    let shown: Vec<Line<'static>> = rows.into_iter().skip(scroll).take(visible).collect();
    frame.render_widget(Paragraph::new(shown).block(block), rect);
    TextExtent {
        rows: visible,
        last,
    }
}
