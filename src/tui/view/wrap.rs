//! Text by display width: lines wrapped at word boundaries whose continuation rows keep
//! the indent of their line (so a scrolled view knows exactly how many rows it has), and
//! text cut to a column that says it was cut with `…`.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_segmentation::UnicodeSegmentation as _;

/// Columns a text takes on screen, cluster by cluster.
#[must_use]
pub fn width(text: &str) -> usize {
    crate::text::width(text)
}

/// `text` cut to `columns` with a trailing `…` when it does not fit (never inside a
/// cluster).
#[must_use]
pub fn fit(text: &str, columns: usize) -> String {
    crate::text::keep_start(text, columns)
}

/// `text` cut to `columns` from its start, with a leading `…` when it does not fit: for
/// text whose end tells it apart (a local repository's folder and branch).
#[must_use]
pub fn fit_start(text: &str, columns: usize) -> String {
    crate::text::keep_end(text, columns)
}

/// A line as grapheme clusters (what a terminal draws in one or two cells), each with its
/// style: never broken inside a cluster (a flag, a skin-toned emoji, a joined sequence).
type Cells<'a> = Vec<(&'a str, Style)>;

/// Rows of `line` at most `columns` wide, broken between words (inside a word only when
/// it is longer than a row). Continuation rows start with `indent` spaces.
#[must_use]
pub fn wrap<'a>(line: &'a Line<'_>, indent: usize, columns: usize) -> Vec<Line<'static>> {
    let columns = columns.max(1);
    let indent = indent.min(columns / 2);
    let cells: Cells<'a> = line
        .spans
        .iter()
        .flat_map(|span| {
            let style = line.style.patch(span.style);
            span.content.graphemes(true).map(move |c| (c, style))
        })
        .collect();
    let mut rows: Vec<Cells<'a>> = Vec::new();
    let mut row: Cells<'a> = Vec::new();
    let mut used = 0;
    let new_row = |rows: &mut Vec<Cells<'a>>, row: &mut Cells<'a>| {
        rows.push(std::mem::take(row));
        row.extend(std::iter::repeat_n((" ", Style::default()), indent));
        indent
    };
    for word in words(&cells) {
        let word_width: usize = word.iter().map(|(c, _)| width(c)).sum();
        let text_width = word_width - trailing_spaces(word);
        if used + text_width > columns && used > indent {
            used = new_row(&mut rows, &mut row);
        }
        if used + text_width <= columns {
            row.extend_from_slice(word);
            used += word_width;
            continue;
        }
        // Longer than a whole row: broken where the row ends.
        for &(c, style) in word {
            let w = width(c);
            if used + w > columns && used > indent {
                used = new_row(&mut rows, &mut row);
            }
            row.push((c, style));
            used += w;
        }
    }
    rows.push(row);
    rows.into_iter().map(|cells| to_line(&cells)).collect()
}

/// Words with the spaces after them; leading spaces are a word of their own.
fn words<'c, 'a>(cells: &'c [(&'a str, Style)]) -> Vec<&'c [(&'a str, Style)]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..cells.len() {
        if cells[i - 1].0 == " " && cells[i].0 != " " {
            out.push(&cells[start..i]);
            start = i;
        }
    }
    if start < cells.len() {
        out.push(&cells[start..]);
    }
    out
}

fn trailing_spaces(word: &[(&str, Style)]) -> usize {
    word.iter().rev().take_while(|(c, _)| *c == " ").count()
}

fn to_line(cells: &[(&str, Style)]) -> Line<'static> {
    let end = cells.len() - trailing_spaces(cells);
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = None;
    for &(c, s) in &cells[..end] {
        if style.is_some_and(|current| current != s) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                style.unwrap_or_default(),
            ));
        }
        style = Some(s);
        text.push_str(c);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, style.unwrap_or_default()));
    }
    Line::from(spans)
}

/// The first of `candidates` that fits in `width` columns; when none does, the last one
/// cut to fit and ending with `…`, so a cut line says it was cut (a footer's error is
/// never left mid-sentence with nothing to show it goes on).
#[must_use]
pub fn fitting(candidates: Vec<Line<'static>>, width: u16) -> Line<'static> {
    let width = usize::from(width);
    let mut last = Line::default();
    for line in candidates {
        if line.width() <= width {
            return line;
        }
        last = line;
    }
    cut(last, width)
}

/// `line` in at most `columns` cells: when it is wider, the span where it overflows is
/// cut with `…` and the rest dropped.
fn cut(line: Line<'static>, columns: usize) -> Line<'static> {
    if line.width() <= columns {
        return line;
    }
    let mut left = columns;
    let mut spans = Vec::new();
    for span in line.spans {
        let w = width(&span.content);
        if w < left {
            left -= w;
            spans.push(span);
            continue;
        }
        // A span that fills the row exactly is cut too: more came after it.
        let text = if w == left {
            format!("{}…", span.content)
        } else {
            span.content.into_owned()
        };
        spans.push(Span::styled(fit(&text, left), span.style));
        break;
    }
    Line::from(spans).style(line.style)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(rows: &[Line<'_>]) -> Vec<String> {
        rows.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn wrapped_rows_keep_the_indent_and_never_pass_the_width() {
        let line = Line::from("    one two three four five six seven");
        let rows = wrap(&line, 4, 16);
        assert_eq!(
            texts(&rows),
            ["    one two", "    three four", "    five six", "    seven"]
        );
        assert!(rows.iter().all(|r| r.width() <= 16));
    }

    #[test]
    fn a_cluster_is_never_broken_nor_cut() {
        // A family (joined emoji), a skin-toned thumb and a flag, each one cluster of two
        // cells, in a word longer than a row.
        let text = "👨\u{200d}👩\u{200d}👧👍🏽🇯🇵ab";
        let rows = wrap(&Line::from(text), 0, 4);
        assert_eq!(
            texts(&rows),
            ["👨\u{200d}👩\u{200d}👧👍🏽", "🇯🇵ab"],
            "broken between clusters, each counted two cells"
        );
        assert_eq!(fit_start(text, 5), "…🇯🇵ab");
        assert_eq!(
            fit_start("a👍🏽b", 3),
            "…b",
            "the thumb does not fit whole, so it goes whole"
        );
    }

    #[test]
    fn a_word_longer_than_a_row_is_broken_and_nothing_is_lost() {
        let rows = wrap(&Line::from("  abcdefghij xy"), 2, 6);
        assert_eq!(texts(&rows), ["  abcd", "  efgh", "  ij", "  xy"]);
        let rows = wrap(&Line::from("short"), 0, 80);
        assert_eq!(texts(&rows), ["short"]);
        assert_eq!(texts(&wrap(&Line::from(""), 4, 10)), [""]);
    }

    #[test]
    fn cut_text_says_so() {
        assert_eq!(fit("Fix the broken links", 10), "Fix the b…");
        assert_eq!(fit("short", 10), "short");
        assert_eq!(fit("日本語のテキスト", 7), "日本語…");
    }

    #[test]
    fn a_line_that_fits_nowhere_is_cut_with_an_ellipsis() {
        let line = |texts: &[&str]| {
            Line::from(
                texts
                    .iter()
                    .map(|t| Span::raw(t.to_string()))
                    .collect::<Vec<_>>(),
            )
        };
        let candidates = vec![line(&[
            " 3 rows",
            " · could not reach 127.0.0.1:8790 (Connection refused)",
        ])];
        let cut = fitting(candidates, 30);
        let text: String = cut.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, " 3 rows · could not reach 127…");
        assert_eq!(cut.width(), 30);
        let exact = fitting(vec![line(&["abcde", "fgh"])], 5);
        let text: String = exact.spans.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, "abcd…");
        let fits = fitting(vec![line(&["much too long"]), line(&["short"])], 8);
        assert_eq!(fits.width(), 5);
    }
}
