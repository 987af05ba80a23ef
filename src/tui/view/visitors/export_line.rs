//! The line under the visitors table about an export: running, done, or stopped part-way
//! (where, why, and the file that kept the rows).

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::super::forms::wrap_words;
use super::super::{ViewContext, thousands};
use super::cells::path_cell;
use crate::text::sanitize;
use crate::tui::app::App;
use crate::tui::message::ExportEnd;
use crate::tui::view::said::{export_end_text, stopped_text};

/// The export running or how the last one ended: what happened (at most two lines, cut
/// with `…`), then the file on a line of its own, cut at its start so its name shows.
pub(super) fn export_lines(app: &App, width: u16, cx: &ViewContext) -> Vec<Line<'static>> {
    let table = &app.visitors;
    let (head, file, style) = match (&table.export, &table.export_end) {
        (Some(export), _) => (
            format!(
                "exporting: {} rows, {} pages so far · e cancels",
                thousands(export.rows),
                export.pages
            ),
            None,
            cx.theme.warning(),
        ),
        (None, Some(end)) => export_end_parts(end, cx),
        (None, None) => return Vec::new(),
    };
    let width = usize::from(width.saturating_sub(1)).max(10);
    let mut lines = wrap_words(&sanitize(&head), width);
    if lines.len() > 2 {
        lines.truncate(2);
        let cut = crate::text::excerpt(&format!("{}…", lines[1]), width);
        lines[1] = cut;
    }
    if let Some((prefix, path)) = file {
        let whole = sanitize(&format!("{prefix}{}", path.display()));
        if let [only] = lines.as_mut_slice()
            && only.chars().count() + 1 + whole.chars().count() <= width
        {
            only.push(' ');
            only.push_str(&whole);
            return styled(lines, style);
        }
        let room = width.saturating_sub(prefix.chars().count());
        lines.push(format!(
            "{prefix}{}",
            path_cell(&path.display().to_string(), room)
        ));
    }
    styled(lines, style)
}

fn styled(lines: Vec<String>, style: Style) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|l| Line::from(Span::styled(format!(" {l}"), style)))
        .collect()
}

/// An export's end as a head sentence and the file it concerns (with the words before it).
fn export_end_parts(
    end: &ExportEnd,
    cx: &ViewContext,
) -> (String, Option<(String, std::path::PathBuf)>, Style) {
    match end {
        ExportEnd::Written { path, rows } => (
            format!("exported {} rows", thousands(*rows)),
            Some(("to ".to_owned(), path.clone())),
            cx.theme.dim(),
        ),
        ExportEnd::Stopped {
            offset,
            reason,
            rows,
            kept,
        } => (
            stopped_text(*offset, reason),
            kept.as_ref()
                .map(|path| (format!("kept {} rows in ", thousands(*rows)), path.clone())),
            cx.theme.error(),
        ),
        ExportEnd::Exists(_) | ExportEnd::Failed(_) => {
            (export_end_text(end), None, cx.theme.error())
        }
    }
}
