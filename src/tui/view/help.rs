//! The `?` overlay: every binding of the focused place, then the global ones, generated
//! from the keymap in force (the person's keys) so it cannot drift from what the keys do.
//! Each line shows the keys, the action's name (what `[keys.<context>]` in `config.toml`
//! calls it) and what it does. When the lists do not fit one under the other, they stand
//! side by side.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::ViewContext;
use crate::tui::app::{App, TextExtent};
use crate::tui::keymap::{Action, Bound, KeyContext};

/// Width of one list: keys, the action's name, what it does.
const LIST_WIDTH: u16 = 57;
/// Where what a key does begins: after the keys (13 columns) and the action's name (16).
const DESCRIPTION_AT: usize = 29;

fn section(
    title: &'static str,
    bindings: &[&Bound],
    read_only: bool,
    cx: &ViewContext,
) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::styled(title, cx.theme.bold()))];
    for b in bindings
        .iter()
        .filter(|b| !(read_only && b.action.writes()))
    {
        // Keys too many for their column take a line of their own above.
        let keys = if super::wrap::width(&b.label) > 11 {
            let own_line = Span::styled(format!(" {}", b.label), cx.theme.accent());
            lines.push(Line::from(own_line));
            " ".repeat(13)
        } else {
            format!(" {:<12}", b.label)
        };
        lines.push(Line::from(vec![
            Span::styled(keys, cx.theme.accent()),
            Span::styled(format!("{:<16}", b.action.name()), cx.theme.dim()),
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
        KeyContext::Searches => "Searches",
        KeyContext::Detail => "Job detail",
        KeyContext::Form => "Form",
        KeyContext::Help => "Help",
        KeyContext::Confirm => "Question",
    };
    let keymap = app.keymap();
    let own: Vec<&Bound> = keymap.bindings(context).iter().collect();
    let mut local = section(name, &own, read_only, cx);
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
    if context == KeyContext::Form {
        local.push(Line::from(Span::styled(
            " other keys edit the field (Ctrl+U clears it)",
            cx.theme.dim(),
        )));
    }
    if context == KeyContext::Jobs {
        // What the marks in the rows mean.
        for note in [
            " ⚠ before a prompt: its last read failed",
            "   (Enter says why; r reads it again)",
            " ◌ queued #2: waits for a free agent",
            " no change: completed, nothing changed",
        ] {
            local.push(Line::from(Span::styled(note, cx.theme.dim())));
        }
    }
    if context == KeyContext::Searches {
        // Each note a whole phrase on its line, with the person's keys.
        let key = |context, action| keymap.key_or_name(context, action);
        let notes = [
            format!(
                " dates: the visitors pane's ({} then {} changes them)",
                key(KeyContext::Searches, Action::FocusVisitors),
                key(KeyContext::Visitors, Action::Filter)
            ),
            format!(
                " {} reads the list shown again",
                key(KeyContext::Searches, Action::Refresh)
            ),
        ];
        for note in notes {
            local.push(Line::from(Span::styled(note, cx.theme.dim())));
        }
    }
    let lists = [KeyContext::Jobs, KeyContext::Visitors, KeyContext::Searches];
    if app.config.mouse && lists.contains(&context) {
        local.push(Line::from(Span::styled(
            " a click selects a row; the wheel moves three rows",
            cx.theme.dim(),
        )));
    }
    // The global keys this place does not take for itself.
    let globals: Vec<&Bound> = keymap
        .globals(context)
        .iter()
        .filter(|b| keymap.reachable(context, b))
        .collect();
    let global = if globals.is_empty() {
        Vec::new()
    } else {
        section("Everywhere", &globals, read_only, cx)
    };
    let stacked = local.len() + global.len() + 1;
    // Side by side, the global keys take their widest line (at most LIST_WIDTH) and this
    // place's keys the rest of the screen: what a key does that is longer wraps under
    // itself, never cut.
    let widest = |lines: &[Line<'static>]| {
        let widest = lines.iter().map(Line::width).max().unwrap_or(0);
        u16::try_from(widest).unwrap_or(u16::MAX)
    };
    let global_width = widest(&global).min(LIST_WIDTH);
    let local_width = (area.width.saturating_sub(5).saturating_sub(global_width))
        .min(widest(&local))
        .max(LIST_WIDTH);
    let (beside_local, beside_global) = (
        wrapped(&local, usize::from(local_width)),
        wrapped(&global, usize::from(global_width)),
    );
    let both_fit = beside_local.len().max(beside_global.len()) + 2 <= usize::from(area.height);
    let side_by_side = stacked + 2 > usize::from(area.height)
        && !global.is_empty()
        && area.width >= 2 * LIST_WIDTH + 2
        && both_fit;
    if side_by_side {
        let (local, global) = (beside_local, beside_global);
        let rows = local.len().max(global.len());
        let height = u16::try_from(rows).unwrap_or(u16::MAX).saturating_add(2);
        let width = local_width + 1 + global_width + 2;
        let rect = super::overlay_area(frame, area, width, height);
        let block = frame_block(" Esc close ".to_owned(), None, cx);
        let inner = block.inner(rect);
        frame.render_widget(block, rect);
        let [left, _, right] = Layout::horizontal([
            Constraint::Length(local_width),
            Constraint::Length(1),
            Constraint::Length(global_width),
        ])
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
    // As wide as its longest line, where the screen has the room (80 columns do for all).
    let widest = lines.iter().map(Line::width).max().unwrap_or(0);
    let width = u16::try_from(widest)
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .clamp(
            LIST_WIDTH + 2,
            area.width.saturating_sub(2).max(LIST_WIDTH + 2),
        );
    let lines = wrapped(&lines, usize::from(width.saturating_sub(2)));
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2);
    let rect = super::overlay_area(frame, area, width, height);
    let visible = usize::from(rect.height.saturating_sub(2)).max(1);
    let last = lines.len().saturating_sub(visible);
    let scroll = app.help.scroll.min(last);
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

/// `lines` at most `columns` wide: what a key does wraps under the description column
/// (keys and the action's name take the first 29), never cut mid-word.
fn wrapped(lines: &[Line<'static>], columns: usize) -> Vec<Line<'static>> {
    lines
        .iter()
        .flat_map(|line| super::wrap::wrap(line, DESCRIPTION_AT, columns))
        .collect()
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

#[cfg(test)]
mod tests {
    use ratatui::text::Line;

    use super::{DESCRIPTION_AT, wrapped};

    /// At 80 columns (and side by side at 120) a key's description ran past the box and
    /// was cut mid-word: "stop a read (chart, whole range); clear a filte".
    #[test]
    fn a_long_description_wraps_under_its_column_whole() {
        let line = Line::from(format!(
            " {:<12}{:<16}{}",
            "Esc",
            "close",
            "stop a read (chart, whole range); clear a filter; close the page and go back to the list"
        ));
        let rows = wrapped(&[line], 78);
        assert!(rows.len() > 1, "{rows:?}");
        assert!(rows.iter().all(|row| row.width() <= 78), "{rows:?}");
        let text: Vec<String> = rows.iter().map(ToString::to_string).collect();
        for row in &text[1..] {
            assert!(row.starts_with(&" ".repeat(DESCRIPTION_AT)), "{row:?}");
        }
        let words: Vec<&str> = text.iter().flat_map(|row| row.split_whitespace()).collect();
        assert_eq!(
            words.join(" "),
            "Esc close stop a read (chart, whole range); clear a filter; close the page and go back to the list"
        );
    }
}
