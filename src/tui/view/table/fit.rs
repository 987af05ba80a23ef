//! Every cell of every table fitted to its column by display width, cluster by cluster:
//! a wide character counts two columns, an accent none, and what does not fit is cut with
//! `…` (at the start for a path or link, whose end tells rows apart), never clipped
//! without a sign at the column's edge. Clusters terminals draw at other widths than
//! counted are made plain first (`text::steady`), so no row leaves a stray cell.

use ratatui::layout::{Constraint, Flex, Layout, Rect};
use ratatui::text::{Line, Span};

use crate::text;

/// Which end of a cell stays when it is cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Text: its start stays, `Fix the b…`.
    Start,
    /// A path or link: its end stays, `…/part-two`.
    End,
}

/// The widths ratatui's `Table` gives `constraints` in `width` columns (no selection
/// symbol, one column between columns, packed at the start).
pub(super) fn column_widths(constraints: &[Constraint], width: u16) -> Vec<usize> {
    Layout::horizontal(constraints.iter().copied())
        .flex(Flex::Start)
        .spacing(1)
        .split(Rect::new(0, 0, width, 1))
        .iter()
        .map(|rect| usize::from(rect.width))
        .collect()
}

/// `line` in at most `columns` cells, its styles kept, cut with `…` at the end `keep`
/// does not keep. The `…` takes the style of the span it replaces.
pub(super) fn fit_line(line: Line<'_>, columns: usize, keep: Keep) -> Line<'static> {
    let spans: Vec<Span<'static>> = line
        .spans
        .into_iter()
        .map(|span| Span::styled(text::steady(&span.content).into_owned(), span.style))
        .collect();
    let total: usize = spans.iter().map(|s| text::width(&s.content)).sum();
    let mut fitted = Line {
        spans,
        style: line.style,
        alignment: line.alignment,
    };
    if total <= columns {
        return fitted;
    }
    fitted.spans = match keep {
        Keep::Start => cut(fitted.spans, columns, text::keep_start),
        Keep::End => {
            let reversed = fitted.spans.into_iter().rev().collect();
            let mut kept = cut(reversed, columns, text::keep_end);
            kept.reverse();
            kept
        }
    };
    fitted
}

/// Takes spans in order while they fit in `columns` cells; the span that does not fit is
/// cut by `shorten` to the room left (with its `…`), and the rest are dropped.
fn cut(
    spans: Vec<Span<'static>>,
    columns: usize,
    shorten: fn(&str, usize) -> String,
) -> Vec<Span<'static>> {
    let mut kept = Vec::new();
    let mut used = 0;
    for span in spans {
        let width = text::width(&span.content);
        // The last span that fits whole still needs room for a `…` after it, unless
        // nothing follows; the caller only cuts lines that do not fit, so something does.
        if used + width < columns {
            used += width;
            kept.push(span);
            continue;
        }
        let room = columns - used;
        kept.push(Span::styled(shorten(&span.content, room), span.style));
        break;
    }
    kept
}

#[cfg(test)]
mod tests {
    use ratatui::style::{Style, Stylize as _};

    use super::*;

    fn text_of(line: &Line<'_>) -> String {
        line.spans.iter().map(|s| s.content.as_ref()).collect()
    }

    #[test]
    fn a_path_keeps_its_end_by_display_width() {
        let fitted = fit_line(Line::from("/文档/用户指南/第二部分"), 10, Keep::End);
        assert_eq!(text_of(&fitted), "…/第二部分");
        let fitted = fit_line(Line::from("/guides/🚀launch/end-b"), 7, Keep::End);
        assert_eq!(text_of(&fitted), "…/end-b");
    }

    #[test]
    fn styles_survive_a_cut_and_the_ellipsis_takes_the_cut_spans_style() {
        let line = Line::from(vec![Span::raw("● "), Span::raw("日本語のテキスト").bold()]);
        let fitted = fit_line(line, 8, Keep::Start);
        assert_eq!(text_of(&fitted), "● 日本…");
        assert_eq!(fitted.spans[1].style, Style::new().bold());
        let line = Line::from(vec![
            Span::raw("[x] ").green(),
            Span::raw("/a/very/long/path"),
        ]);
        let fitted = fit_line(line, 8, Keep::End);
        assert_eq!(text_of(&fitted), "…ng/path");
    }

    #[test]
    fn a_line_that_fits_is_kept_but_made_steady() {
        let fitted = fit_line(Line::from("/jp/🇯🇵"), 20, Keep::End);
        assert_eq!(text_of(&fitted), "/jp/JP");
    }

    #[test]
    fn the_widths_are_those_ratatui_draws() {
        let widths = column_widths(&[Constraint::Length(4), Constraint::Fill(1)], 20);
        assert_eq!(widths, vec![4, 15]);
    }
}
