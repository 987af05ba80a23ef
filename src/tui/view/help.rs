//! The `?` overlay: every binding of the focused place, then the global ones, generated
//! from the keymap tables so it cannot drift from what the keys do. When they do not fit
//! one under the other, the two lists stand side by side.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use crate::tui::app::{App, TextExtent};
use crate::tui::keymap::{self, Binding, KeyContext};

fn section(
    title: &'static str,
    bindings: &[Binding],
    read_only: bool,
    cx: &ViewContext,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(title, cx.theme.bold()))];
    for b in bindings
        .iter()
        .filter(|b| !(read_only && b.action.writes()))
    {
        lines.push(Line::from(vec![
            Span::styled(format!(" {:<11}", b.label), cx.theme.accent()),
            Span::raw(b.help),
        ]));
    }
    lines
}

/// Draws the help; returns how it scrolls as drawn.
pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    context: KeyContext,
    app: &App,
    cx: &ViewContext,
) -> TextExtent {
    let read_only = app.config.read_only;
    let name = match context {
        KeyContext::Jobs => "Jobs",
        KeyContext::Composer => "Composer",
        KeyContext::Visitors => "Visitors",
        KeyContext::Detail => "Job detail",
        KeyContext::Form => "Form",
        KeyContext::Help => "Help",
        KeyContext::Confirm => "Question",
    };
    let mut local = section(name, keymap::bindings(context), read_only, cx);
    if context == KeyContext::Composer {
        local.push(Line::from(Span::styled(
            " other keys edit the text",
            cx.theme.dim(),
        )));
        local.push(Line::from(Span::styled(
            " (arrows, Home/End, Ctrl+U undo, Ctrl+R redo)",
            cx.theme.dim(),
        )));
    }
    // The global keys this place does not take for itself.
    let globals: Vec<Binding> = keymap::globals(context)
        .iter()
        .filter(|b| keymap::reachable(context, b))
        .copied()
        .collect();
    let global = if globals.is_empty() {
        Vec::new()
    } else {
        section("Everywhere", &globals, read_only, cx)
    };
    let stacked = local.len() + global.len() + 1;
    let both_fit = local.len().max(global.len()) + 2 <= usize::from(area.height);
    let side_by_side = stacked + 2 > usize::from(area.height)
        && !global.is_empty()
        && area.width >= 78
        && both_fit;
    if side_by_side {
        let rows = local.len().max(global.len());
        let height = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
        let rect = super::overlay_area(frame, area, 78, height);
        let block = frame_block(" Esc close ".to_owned(), None, cx);
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner);
        frame.render_widget(Paragraph::new(local), left);
        frame.render_widget(Paragraph::new(global), right);
        return TextExtent { rows, last: 0 };
    }
    // One list; when it does not fit, it scrolls and the border says what is hidden.
    let mut lines = local;
    if !global.is_empty() {
        lines.push(Line::default());
        lines.extend(global);
    }
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let rect = super::overlay_area(frame, area, 48, height);
    let visible = usize::from(rect.height.saturating_sub(2)).max(1);
    let last = lines.len().saturating_sub(visible);
    let scroll = app.help_scroll.min(last);
    let below = lines.len().saturating_sub(scroll + visible);
    let (hint, marker) = if scroll + below == 0 {
        (" Esc close ".to_owned(), None)
    } else {
        let marker = match (scroll, below) {
            (0, b) => format!(" ↓ {b} more "),
            (a, 0) => format!(" ↑ {a} more "),
            (a, b) => format!(" ↑ {a} · ↓ {b} more "),
        };
        (" j/k scroll · Esc close ".to_owned(), Some(marker))
    };
    let block = frame_block(hint, marker, cx);
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    let shown: Vec<Line<'static>> = lines.into_iter().skip(scroll).take(visible).collect();
    frame.render_widget(Paragraph::new(shown), inner);
    TextExtent {
        rows: visible,
        last,
    }
}

fn frame_block(hint: String, marker: Option<String>, cx: &ViewContext) -> Block<'static> {
    let mut block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Keys ", cx.theme.accent()))
        .title_bottom(Line::from(Span::styled(hint, cx.theme.dim())).right_aligned());
    if let Some(marker) = marker {
        block = block.title_bottom(Line::from(Span::styled(marker, cx.theme.dim())));
    }
    block
}
