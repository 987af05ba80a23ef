//! The visitors pane: totals, the page of rows with a human/AI bar per row, and paging.
//! Numbers are never cut (whole, or compact such as `1.2M` where columns are narrow),
//! and a full bar means the same on every page: the range's largest row.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use super::forms::wrap_words;
use super::{ViewContext, thousands};
use crate::api::{DateParam, PageVisitors, VisitorTotals, VisitorsQuery};
use crate::text::sanitize;
use crate::tui::app::{App, BarScale, export_end_text};
use crate::tui::message::ExportEnd;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let table = &app.visitors;
    let export = export_lines(app, area.width, cx);
    let [strip, rows_area, export_area, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(u16::try_from(export.len()).unwrap_or(0)),
        Constraint::Length(1),
    ])
    .areas(area);
    let query = table
        .shown
        .clone()
        .unwrap_or_else(|| table.query(cx.wall.date_naive()));
    draw_strip(frame, strip, app, &query, cx);
    draw_rows(frame, rows_area, app, cx);
    frame.render_widget(Paragraph::new(export), export_area);
    draw_footer(frame, footer, app, &query, cx);
}

fn date(d: Option<DateParam>, open: &str) -> String {
    d.map_or_else(
        || open.to_owned(),
        |d| {
            let instant = d.instant();
            if instant.time() == chrono::NaiveTime::MIN {
                instant.format("%Y-%m-%d").to_string()
            } else {
                d.to_string()
            }
        },
    )
}

/// Where the user's local day starts, in UTC, when it is not UTC midnight: ranges are
/// whole UTC days, and "today" here is not the user's today.
#[must_use]
pub(super) fn local_midnight(cx: &ViewContext) -> Option<String> {
    if cx.utc {
        return None;
    }
    use chrono::Offset as _;
    let offset = cx
        .wall
        .with_timezone(&chrono::Local)
        .offset()
        .fix()
        .local_minus_utc();
    local_midnight_note(offset)
}

/// `your local midnight is 23:00 UTC` for a zone `offset_secs` east of UTC.
#[must_use]
pub(super) fn local_midnight_note(offset_secs: i32) -> Option<String> {
    if offset_secs == 0 {
        return None;
    }
    let minutes = (-offset_secs / 60).rem_euclid(24 * 60);
    Some(format!(
        "your local midnight is {:02}:{:02} UTC",
        minutes / 60,
        minutes % 60
    ))
}

/// The first of `candidates` that fits in `width` columns, else the last one.
fn fitting(candidates: Vec<Line<'static>>, width: u16) -> Line<'static> {
    let width = usize::from(width);
    let mut last = Line::default();
    for line in candidates {
        if line.width() <= width {
            return line;
        }
        last = line;
    }
    last
}

fn draw_strip(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    query: &VisitorsQuery,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let table = &app.visitors;
    let dates = format!(
        " {} · {} → {}",
        table.range.label(),
        date(query.date_from, "the start"),
        date(query.date_to, "now")
    );
    let mut ranges = Vec::new();
    if let Some(note) = local_midnight(cx) {
        ranges.push(format!("{dates} (UTC days, dateTo exclusive; {note})"));
        ranges.push(format!("{dates} (UTC days; {note})"));
    }
    ranges.push(format!("{dates} (UTC days, dateTo exclusive)"));
    ranges.push(format!("{dates} (UTC days)"));
    let range = fitting(
        ranges
            .into_iter()
            .map(|r| Line::from(Span::styled(r, theme.accent())))
            .collect(),
        area.width,
    );
    let totals = match &table.page {
        Some(page) => fitting(
            vec![
                totals_line(page.totals, false, true, cx),
                totals_line(page.totals, false, false, cx),
                totals_line(page.totals, true, true, cx),
                totals_line(page.totals, true, false, cx),
            ],
            area.width,
        ),
        None => Line::from(Span::styled(" no data yet", theme.dim())),
    };
    frame.render_widget(Paragraph::new(vec![range, totals]), area);
}

/// Whether counts that come together cannot all be true (each class is part of the
/// total, and the total is at most their sum): their share means nothing then.
fn inconsistent(human: u64, ai: u64, total: u64) -> bool {
    human > total || ai > total || total > human.saturating_add(ai)
}

fn totals_line(t: VisitorTotals, compact: bool, hint: bool, cx: &ViewContext) -> Line<'static> {
    let theme = cx.theme;
    let n = |v: u64| {
        if compact {
            compact_count(v)
        } else {
            thousands(v)
        }
    };
    let share = if inconsistent(t.human, t.ai, t.total) {
        Span::styled("   AI share n/a (counts disagree)", theme.warning())
    } else {
        Span::raw(format!("   AI share {:.1}%", t.ai_share()))
    };
    let mut spans = vec![
        Span::raw(" "),
        Span::styled(format!("█ human {}", n(t.human)), theme.human()),
        Span::raw("   "),
        Span::styled(format!("░ AI {}", n(t.ai)), theme.ai()),
        Span::raw("   "),
        Span::styled(format!("total {}", n(t.total)), theme.bold()),
        share,
    ];
    if hint {
        spans.push(Span::styled("  (unique visitors)", theme.dim()));
    }
    Line::from(spans)
}

/// A count in at most 6 columns: whole below 100,000, else `123K`, `1.2M`, `18E`
/// (rounded down, so never more than the count).
#[must_use]
pub(super) fn compact_count(n: u64) -> String {
    if n < 100_000 {
        return thousands(n);
    }
    let units: [(u64, &str); 6] = [
        (1_000_000_000_000_000_000, "E"),
        (1_000_000_000_000_000, "P"),
        (1_000_000_000_000, "T"),
        (1_000_000_000, "B"),
        (1_000_000, "M"),
        (1_000, "K"),
    ];
    for (size, unit) in units {
        if n >= size {
            let whole = n / size;
            return if whole < 10 {
                format!("{whole}.{}{unit}", (n % size) / (size / 10))
            } else {
                format!("{whole}{unit}")
            };
        }
    }
    thousands(n)
}

/// The widths of the three number columns, and whether they show compact counts.
fn number_columns(rows: &[PageVisitors], room: usize) -> ([u16; 3], bool) {
    let widest = |compact: bool, get: fn(&PageVisitors) -> u64| {
        rows.iter()
            .map(|r| {
                let v = get(r);
                if compact {
                    compact_count(v)
                } else {
                    thousands(v)
                }
                .chars()
                .count()
            })
            .max()
            .unwrap_or(0)
            .max(5)
    };
    let columns = |compact: bool| {
        [
            widest(compact, |r| r.human),
            widest(compact, |r| r.ai),
            widest(compact, |r| r.total),
        ]
    };
    let whole = columns(false).map(|w| w.max(8));
    let (widths, compact) = if whole.iter().sum::<usize>() <= room {
        (whole, false)
    } else {
        (columns(true), true)
    };
    (
        widths.map(|w| u16::try_from(w).unwrap_or(u16::MAX)),
        compact,
    )
}

/// `…` and the end of a path cut to `width` columns: the end tells pages apart.
fn path_cell(path: &str, width: usize) -> String {
    let clean = sanitize(path);
    let count = clean.chars().count();
    if count <= width {
        return clean;
    }
    let tail: String = clean.chars().skip(count + 1 - width.max(1)).collect();
    format!("…{tail}")
}

fn draw_rows(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let theme = cx.theme;
    let table = &app.visitors;
    let block = Block::default().borders(Borders::TOP);
    let Some(page) = &table.page else {
        let text = match (&table.error, table.loading) {
            (Some(error), _) => Span::styled(sanitize(error), theme.error()),
            (None, true) => Span::styled("loading…", theme.dim()),
            (None, false) => Span::styled("r loads the page", theme.dim()),
        };
        frame.render_widget(Paragraph::new(Line::from(text)).block(block), area);
        return;
    };
    if page.visitors.is_empty() {
        let text = "no visits in this range: f changes the dates";
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim())).block(block),
            area,
        );
        return;
    }
    const PATH_MIN: usize = 16;
    let bar_width: u16 = if area.width >= 110 { 30 } else { 12 };
    let room = usize::from(area.width).saturating_sub(PATH_MIN + 4 + usize::from(bar_width));
    let (widths, compact) = number_columns(&page.visitors, room);
    let path_width = usize::from(area.width)
        .saturating_sub(4 + usize::from(bar_width))
        .saturating_sub(widths.iter().map(|w| usize::from(*w)).sum());
    let scale = table
        .bar_scale()
        .unwrap_or(BarScale::Total(page.totals.total));
    let visible = usize::from(area.height.saturating_sub(2)).max(1);
    let offset =
        crate::tui::app::scroll_window(&table.window, table.selected, visible, page.visitors.len());
    let shown = &page.visitors[offset..page.visitors.len().min(offset + visible)];
    let n = |v: u64| {
        if compact {
            compact_count(v)
        } else {
            thousands(v)
        }
    };
    let rows: Vec<Row<'_>> = shown
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let cells = vec![
                Cell::from(path_cell(&row.path, path_width)),
                Cell::from(Line::from(n(row.human)).right_aligned()),
                Cell::from(Line::from(n(row.ai)).right_aligned()),
                Cell::from(Line::from(n(row.total)).right_aligned()),
                Cell::from(bar(row, scale.value(), bar_width, cx)),
            ];
            let r = Row::new(cells);
            if offset + i == table.selected {
                r.style(theme.selected())
            } else {
                r
            }
        })
        .collect();
    let constraints = [
        Constraint::Min(u16::try_from(PATH_MIN).unwrap_or(16)),
        Constraint::Length(widths[0]),
        Constraint::Length(widths[1]),
        Constraint::Length(widths[2]),
        Constraint::Length(bar_width),
    ];
    let header = Row::new(vec![
        Cell::from("PATH"),
        Cell::from(Line::from("HUMAN").right_aligned()),
        Cell::from(Line::from("AI").right_aligned()),
        Cell::from(Line::from("TOTAL").right_aligned()),
        Cell::from(bar_header(scale, bar_width)),
    ])
    .style(theme.dim());
    frame.render_widget(
        Table::new(rows, constraints)
            .header(header)
            .column_spacing(1)
            .block(block),
        area,
    );
}

/// Says what a full bar is, as much as fits above the bars.
fn bar_header(scale: BarScale, width: u16) -> Line<'static> {
    let (whole, short) = (thousands(scale.value()), compact_count(scale.value()));
    let of = match scale {
        BarScale::TopRow(_) => "top page",
        BarScale::Total(_) => "all",
    };
    fitting(
        vec![
            Line::from(format!("█ human ░ AI · full = {whole} ({of})")),
            Line::from(format!("full bar = {whole} ({of})")),
            Line::from(format!("full = {whole} ({of})")),
            Line::from(format!("full bar = {whole}")),
            Line::from(format!("full = {whole}")),
            Line::from(format!("full = {short}")),
            Line::from(format!("={short}")),
        ],
        width,
    )
}

/// A stacked bar as long as the row's total on the range's scale, split between human
/// and AI visitors in proportion. Counts that cannot all be true get a mark instead.
fn bar(row: &PageVisitors, scale: u64, width: u16, cx: &ViewContext) -> Line<'static> {
    if inconsistent(row.human, row.ai, row.total) {
        let why = if row.ai > row.total {
            "AI > total"
        } else if row.human > row.total {
            "human > total"
        } else {
            "total > human+AI"
        };
        let text = if width >= 30 {
            format!("? share n/a: {why}")
        } else {
            "? share n/a".to_owned()
        };
        return Line::from(Span::styled(text, cx.theme.warning()));
    }
    // In u128: counts come from the service, and any u64 times the width must not overflow.
    let cells = u128::from(width);
    let length = (u128::from(row.total) * cells)
        .div_ceil(u128::from(scale.max(1)))
        .min(cells);
    let both = u128::from(row.human) + u128::from(row.ai);
    let mut human_cells = if both == 0 {
        0
    } else {
        (length * u128::from(row.human) + both / 2) / both
    };
    // A class with visitors keeps at least one cell when the bar has two.
    if length >= 2 {
        if row.ai > 0 && human_cells == length {
            human_cells -= 1;
        }
        if row.human > 0 && human_cells == 0 {
            human_cells = 1;
        }
    }
    let n = |c: u128| usize::try_from(c).unwrap_or(0);
    Line::from(vec![
        Span::styled("█".repeat(n(human_cells)), cx.theme.human()),
        Span::styled("░".repeat(n(length - human_cells)), cx.theme.ai()),
    ])
}

/// The export running or how the last one ended: what happened (at most two lines, cut
/// with `…`), then the file on a line of its own, cut at its start so its name shows.
fn export_lines(app: &App, width: u16, cx: &ViewContext) -> Vec<Line<'static>> {
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
            format!("export stopped at offset {offset}: {reason}"),
            match kept {
                Some(path) => Some((format!("kept {} rows in ", thousands(*rows)), path.clone())),
                None => None,
            },
            cx.theme.error(),
        ),
        ExportEnd::Exists(_) | ExportEnd::Failed(_) => {
            (export_end_text(end), None, cx.theme.error())
        }
    }
}

fn draw_footer(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    query: &VisitorsQuery,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let table = &app.visitors;
    let mut spans = vec![Span::raw(" ")];
    if let Some(page) = &table.page {
        spans.push(Span::styled(page.position(query), theme.bold()));
    }
    spans.push(Span::styled(
        format!(" · {} per page", table.limit),
        theme.dim(),
    ));
    if table.loading {
        spans.push(Span::styled(" · loading…", theme.warning()));
    }
    if let (Some(error), Some(_)) = (&table.error, &table.page) {
        spans.push(Span::styled(
            format!(" · {}", sanitize(error)),
            theme.error(),
        ));
    }
    let hints = [
        " · n/p page · f dates · +/- size · e export",
        " · n/p · f dates · +/- · e export",
        " · f dates · e export",
        "",
    ];
    let candidates = hints
        .iter()
        .map(|hint| {
            let mut line = spans.clone();
            line.push(Span::styled(*hint, theme.dim()));
            Line::from(line)
        })
        .collect();
    frame.render_widget(Paragraph::new(fitting(candidates, area.width)), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_whole_or_compact_and_never_more_than_they_are() {
        assert_eq!(compact_count(99_999), "99,999");
        assert_eq!(compact_count(123_456), "123K");
        assert_eq!(compact_count(1_234_567), "1.2M");
        assert_eq!(compact_count(1_299_999), "1.2M");
        assert_eq!(compact_count(999_999_999), "999M");
        assert_eq!(compact_count(u64::MAX), "18E");
        assert!(compact_count(u64::MAX).len() <= 6);
    }

    #[test]
    fn the_local_midnight_is_said_in_utc() {
        assert_eq!(local_midnight_note(0), None);
        assert_eq!(
            local_midnight_note(3_600).as_deref(),
            Some("your local midnight is 23:00 UTC")
        );
        assert_eq!(
            local_midnight_note(-5 * 3_600 - 1_800).as_deref(),
            Some("your local midnight is 05:30 UTC")
        );
    }
}
