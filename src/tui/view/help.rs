//! The `?` overlay: every binding of the focused place, then the global ones, generated
//! from the keymap tables so it cannot drift from what the keys do. When they do not fit
//! one under the other, the two lists stand side by side.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use crate::tui::app::App;
use crate::tui::keymap::{self, Binding, Context};

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

pub fn draw(frame: &mut Frame<'_>, area: Rect, context: Context, app: &App, cx: &ViewContext) {
    let read_only = app.config.read_only;
    let name = match context {
        Context::Jobs => "Jobs",
        Context::Composer => "Composer",
        Context::Visitors => "Visitors",
        Context::Detail => "Job detail",
        Context::Form => "Form",
        Context::Help => "Help",
    };
    let mut local = section(name, keymap::bindings(context), read_only, cx);
    if context == Context::Composer {
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
    let side_by_side = stacked + 2 > usize::from(area.height) && !global.is_empty();
    let rows = if side_by_side {
        local.len().max(global.len())
    } else {
        stacked
    };
    let height = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
    let width = if side_by_side { 78 } else { 48 };
    let rect = super::overlay_area(frame, area, width, height);
    let block = Block::default()
        .borders(Borders::ALL)
        .title(Span::styled(" Keys ", cx.theme.accent()))
        .title_bottom(Line::from(Span::styled(" Esc close ", cx.theme.dim())).right_aligned());
    let inner = block.inner(rect);
    frame.render_widget(block, rect);
    if side_by_side {
        let [left, right] =
            Layout::horizontal([Constraint::Percentage(50), Constraint::Percentage(50)])
                .areas(inner);
        frame.render_widget(Paragraph::new(local), left);
        frame.render_widget(Paragraph::new(global), right);
    } else {
        let mut lines = local;
        if !global.is_empty() {
            lines.push(Line::default());
            lines.extend(global);
        }
        frame.render_widget(Paragraph::new(lines), inner);
    }
}
