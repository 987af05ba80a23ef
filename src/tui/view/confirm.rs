//! The question before work that costs analytics requests: what, how many, how many are
//! left this hour, and y or n.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use crate::tui::app::Question;

pub fn draw(frame: &mut Frame<'_>, area: Rect, question: &Question, cx: &ViewContext) {
    let width = area.width.saturating_sub(4).min(64);
    let inner = usize::from(width.saturating_sub(2));
    let mut lines: Vec<Line<'_>> = super::forms::wrap_words(&question.text(), inner)
        .into_iter()
        .map(Line::from)
        .collect();
    lines.push(Line::default());
    lines.push(Line::from(vec![
        Span::styled("y", cx.theme.bold()),
        Span::raw(" yes, spend them · "),
        Span::styled("n", cx.theme.bold()),
        Span::raw(" no (nothing is read)"),
    ]));
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let rect = super::overlay_area(frame, area, width, height);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Analytics requests ", cx.theme.accent()));
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}
