//! Tables for people: columns two spaces apart, numbers right-aligned with thousands
//! separators, and, when the width of the terminal is known, rows cut to fit it: text
//! cut ends with `…`, and a cut path or link keeps its end, the part that tells rows apart.

use std::io::IsTerminal as _;

use crate::text::width;

/// How a column lines up, and how it gives way when the row is too wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fit {
    /// Left-aligned, never cut (ids, statuses).
    Keep,
    /// Right-aligned, never cut (numbers, ages).
    Number,
    /// Left-aligned; cut at the end when needed (prompts).
    CutEnd,
    /// Left-aligned; cut at the start when needed, keeping the end (paths, links).
    CutStart,
}

/// One column: its heading, and how it fits.
#[derive(Debug, Clone, Copy)]
pub struct Column {
    pub heading: &'static str,
    pub fit: Fit,
}

impl Column {
    #[must_use]
    pub const fn new(heading: &'static str, fit: Fit) -> Self {
        Self { heading, fit }
    }
}

const GAP: usize = 2;
/// A cut column keeps at least this many cells (or its heading, if wider).
const MIN_CUT_WIDTH: usize = 8;

/// The width tables are fitted to: `COLUMNS` when set (as most terminal tools read it),
/// else the terminal's width when standard output is one; `None` (no fitting) otherwise.
#[must_use]
pub fn target_width() -> Option<usize> {
    let from_env = std::env::var("COLUMNS")
        .ok()
        .and_then(|text| text.trim().parse::<usize>().ok())
        .filter(|width| *width > 0);
    from_env.or_else(|| {
        std::io::stdout()
            .is_terminal()
            .then(|| crossterm::terminal::size().ok())
            .flatten()
            .map(|(columns, _)| usize::from(columns))
            .filter(|width| *width > 0)
    })
}

pub use crate::text::thousands;

/// Cutting by display width, cluster by cluster, is shared with the console's tables.
pub use crate::text::{keep_end, keep_start};

/// `text` wrapped at spaces into lines of at most `width` cells (80 when the width is
/// not known, so a note stays readable in a file too), each ended by a newline. A word
/// longer than a line gets a line of its own.
#[must_use]
pub fn wrap(text: &str, width: Option<usize>) -> String {
    let width = width.unwrap_or(80).max(20);
    let mut out = String::new();
    let mut line = String::new();
    // Split at ASCII blanks only: a no-break space (see `whole`) holds an item together.
    for word in text.split_ascii_whitespace() {
        if !line.is_empty() && crate::text::width(&line) + 1 + crate::text::width(word) > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out.replace(NO_BREAK, " ")
}

/// Holds a space where [`wrap`] never breaks a line (it is written as a plain space).
const NO_BREAK: char = '\u{a0}';

/// `human 4, AI 3, AI share 42.9%` with each item's words held together, so [`wrap`]
/// breaks only between items (never `total` at one line's end and `11` at the next's).
#[must_use]
pub fn whole_items(list: &str) -> String {
    list.split(", ")
        .map(|item| item.replace(' ', &NO_BREAK.to_string()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The widths that fit `width`: cut columns give way a cell at a time, the widest first
/// (so they end up level), down to their least width. If even that is too wide the row is
/// left long (the terminal wraps it).
fn fitted_widths(columns: &[Column], natural: &[usize], width: Option<usize>) -> Vec<usize> {
    let mut widths = natural.to_vec();
    let Some(width) = width else {
        return widths;
    };
    let total =
        |widths: &[usize]| widths.iter().sum::<usize>() + GAP * widths.len().saturating_sub(1);
    while total(&widths) > width {
        let least = |index: usize| crate::text::width(columns[index].heading).max(MIN_CUT_WIDTH);
        let widest = (0..columns.len())
            .filter(|&i| matches!(columns[i].fit, Fit::CutEnd | Fit::CutStart))
            .filter(|&i| widths[i] > least(i))
            .max_by_key(|&i| widths[i]);
        let Some(index) = widest else {
            break;
        };
        widths[index] -= 1;
    }
    widths
}

fn cell(text: &str, fit: Fit, width: usize) -> String {
    let shown = match fit {
        Fit::CutEnd => keep_start(text, width),
        Fit::CutStart => keep_end(text, width),
        Fit::Keep | Fit::Number => text.to_owned(),
    };
    let pad = " ".repeat(width.saturating_sub(crate::text::width(&shown)));
    match fit {
        Fit::Number => pad + &shown,
        Fit::Keep | Fit::CutEnd | Fit::CutStart => shown + &pad,
    }
}

/// The table, each line ended by a newline. Cells must already be safe to print. They
/// are measured and made steady as the console's tables are (`crate::text::cells`): a
/// flag becomes its letters, a skin-toned or joined emoji its base, so that a terminal
/// draws each cell as wide as counted and no row spills over the width.
#[must_use]
pub fn render(columns: &[Column], rows: &[Vec<String>], target: Option<usize>) -> String {
    let steady: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.iter()
                .map(|text| crate::text::steady(text).into_owned())
                .collect()
        })
        .collect();
    let rows = &steady[..];
    let natural: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(index, column)| {
            rows.iter()
                .filter_map(|row| row.get(index))
                .map(|text| width(text))
                .chain([width(column.heading)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let widths = fitted_widths(columns, &natural, target);
    let headings: Vec<String> = columns.iter().map(|c| c.heading.to_owned()).collect();
    let mut out = String::new();
    for row in std::iter::once(&headings).chain(rows) {
        let line: Vec<String> = columns
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(index, (column, &width))| {
                cell(row.get(index).map_or("", String::as_str), column.fit, width)
            })
            .collect();
        out.push_str(line.join(&" ".repeat(GAP)).trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trial saw `total` end one line and `11` begin the next (`visitors --compare`).
    #[test]
    fn an_item_of_a_list_is_never_cut_by_wrapping() {
        let text = format!(
            "change: {}",
            whole_items("human -1 (-25.0%), AI +2 (+200.0%), total ±0 (0.0%), AI share +40.0 pp")
        );
        let wrapped = wrap(&text, Some(24));
        for line in wrapped.lines() {
            let items = [
                "human -1 (-25.0%)",
                "AI +2 (+200.0%)",
                "total ±0 (0.0%)",
                "AI share +40.0 pp",
            ];
            let rest = line.trim_start_matches("change:").trim();
            for part in rest
                .split(", ")
                .map(|p| p.trim_end_matches(','))
                .filter(|p| !p.is_empty())
            {
                assert!(items.contains(&part), "{part:?} cut in\n{wrapped}");
            }
        }
        assert!(!wrapped.contains('\u{a0}'), "written as plain spaces");
    }

    const PATHS: [Column; 2] = [
        Column {
            heading: "PATH",
            fit: Fit::CutStart,
        },
        Column {
            heading: "TOTAL",
            fit: Fit::Number,
        },
    ];

    #[test]
    fn numbers_get_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn cut_text_ends_with_an_ellipsis_and_a_cut_path_keeps_its_end() {
        assert_eq!(keep_start("Fix the broken links", 10), "Fix the b…");
        assert_eq!(
            keep_end("/guides/authentication/troubleshooting", 16),
            "…troubleshooting"
        );
        assert_eq!(keep_end("/short", 16), "/short");
        assert_eq!(keep_start("日本語のテキスト", 7), "日本語…");
    }

    #[test]
    fn rows_fit_the_width_by_cutting_only_the_columns_that_may_be_cut() {
        let rows = vec![
            vec![
                "/guides/authentication/troubleshooting".to_owned(),
                thousands(1_914),
            ],
            vec!["/faq".to_owned(), thousands(255)],
        ];
        let table = render(&PATHS, &rows, Some(24));
        for line in table.lines() {
            assert!(width(line) <= 24, "{line:?} in\n{table}");
        }
        assert!(table.contains("…/troubleshooting  1,914"), "{table}");
        assert!(table.contains("/faq"), "{table}");
        let wide = render(&PATHS, &rows, None);
        assert!(
            wide.contains("/guides/authentication/troubleshooting  1,914"),
            "{wide}"
        );
    }

    #[test]
    fn notes_wrap_at_spaces_within_the_width() {
        let text = "each day counts its own visitors, so the days do not add up";
        assert_eq!(
            wrap(text, Some(24)),
            "each day counts its own\nvisitors, so the days do\nnot add up\n"
        );
        assert_eq!(wrap("short", None), "short\n");
        assert_eq!(wrap("", Some(30)), "");
    }

    #[test]
    fn a_width_too_small_for_the_kept_columns_leaves_rows_long_but_whole() {
        let rows = vec![vec!["/a/long/path/here".to_owned(), thousands(123_456_789)]];
        let table = render(&PATHS, &rows, Some(5));
        assert!(table.contains("123,456,789"), "{table}");
        assert!(table.contains('…'), "{table}");
    }

    /// The trial's search `第二部分 🇫🇷 👍🏽` overflowed an 80-column table: a terminal
    /// draws a flag and a skin-toned emoji wider than they were counted.
    #[test]
    fn emoji_sequences_are_made_steady_and_measured_as_the_console_does() {
        let columns = [
            Column::new("QUERY", Fit::CutEnd),
            Column::new("SEARCHES", Fit::Number),
            Column::new("LAST", Fit::Keep),
        ];
        let rows = vec![
            vec![
                "第二部分 🇫🇷 👍🏽 👨‍👩‍👧 and a long tail of words to be cut".to_owned(),
                "3".to_owned(),
                "2026-11-20".to_owned(),
            ],
            vec!["plain".to_owned(), "1".to_owned(), "2026-11-21".to_owned()],
        ];
        let table = render(&columns, &rows, Some(40));
        assert!(crate::text::is_steady(&table), "{table}");
        assert!(table.contains("第二部分 FR 👍 👨"), "{table}");
        let ends: Vec<usize> = table.lines().map(width).collect();
        assert!(ends.iter().all(|&w| w <= 40), "{table}");
        assert_eq!(ends[1], ends[2], "the dates line up:\n{table}");
    }
}
