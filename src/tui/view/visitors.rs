//! The visitors pane: totals, the page of rows with a human/AI bar per row, and paging.
//! Numbers are never cut (whole, or compact such as `1.2M` where columns are narrow),
//! and a full bar means the same on every page: the range's largest row.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

mod cells;
mod chart;
mod compare;
mod export_line;
mod page;
mod thumbs;
mod whole;
mod whole_table;

use super::table::{self, Column, Look, TableState};
use super::wrap::fitting;
use super::{ViewContext, thousands};
use crate::api::{DateParam, VisitorTotals, VisitorsQuery};
use crate::text::sanitize;
use crate::tui::app::{App, BarScale, PageLoad, Shown};
use cells::{bar, bar_header, compact_count, inconsistent, number_columns, path_cell};
use export_line::export_lines;

pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let table = &app.visitors;
    let export = export_lines(app, area.width, cx);
    let now = table.load().shown().map(|s| s.page.totals);
    let compare = compare::lines(now, &table.previous, area.width, cx);
    let strip_height = 2 + u16::try_from(compare.len()).unwrap_or(0);
    let chart_height = if app.visitors.chart_shown(app.size) {
        chart::height(area.height)
    } else {
        0
    };
    let [strip, chart_area, rows_area, export_area, footer] = Layout::vertical([
        Constraint::Length(strip_height),
        Constraint::Length(chart_height),
        Constraint::Min(3),
        Constraint::Length(u16::try_from(export.len()).unwrap_or(0)),
        Constraint::Length(1),
    ])
    .areas(area);
    if chart_height > 0 {
        chart::draw(
            frame,
            chart_area,
            &table.trend,
            table.load().is_fetching(),
            cx,
        );
    }
    let query = table.load().shown().map_or_else(
        || table.query(cx.wall.date_naive()),
        |shown| shown.query.clone(),
    );
    draw_strip(frame, strip, app, &query, compare, cx);
    match &table.page {
        Some(page) => page::draw(frame, rows_area, page, app, cx),
        None => draw_rows(frame, rows_area, app, cx, state),
    }
    frame.render_widget(Paragraph::new(export), export_area);
    draw_footer(frame, footer, app, &query, cx);
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

fn draw_strip(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    query: &VisitorsQuery,
    compare: Vec<Line<'static>>,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let table = &app.visitors;
    let dates = format!(
        " {} · {} → {}",
        table.range.label(),
        DateParam::shown(query.date_from, "the start"),
        DateParam::shown(query.date_to, "now")
    );
    let mut ranges = Vec::new();
    if let Some(note) = local_midnight(cx) {
        ranges.push(format!("{dates} (UTC days, the end excluded; {note})"));
        ranges.push(format!("{dates} (UTC days; {note})"));
    }
    ranges.push(format!("{dates} (UTC days, the end excluded)"));
    ranges.push(format!("{dates} (UTC days)"));
    let range = fitting(
        ranges
            .into_iter()
            .map(|r| Line::from(Span::styled(r, theme.accent())))
            .collect(),
        area.width,
    );
    let totals = match table.load().shown() {
        Some(Shown { page, .. }) => fitting(
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
    let mut lines = vec![range, totals];
    lines.extend(compare);
    frame.render_widget(Paragraph::new(lines), area);
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
        Span::raw(format!(
            "   AI share {}",
            crate::insight::compare::share_text(t)
        ))
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

fn draw_rows(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let theme = cx.theme;
    let table = &app.visitors;
    if let Some(whole) = table.whole.table() {
        whole_table::draw(frame, area, app, whole, cx, state);
        return;
    }
    let block = Block::default().borders(Borders::TOP);
    let Some(Shown { page, .. }) = table.load().shown() else {
        let text = match table.load() {
            PageLoad::Failed { error, .. } => Span::styled(sanitize(error), theme.error()),
            PageLoad::Fetching { .. } => Span::styled("loading…", theme.dim()),
            PageLoad::Idle | PageLoad::Shown(_) => Span::styled("r loads the page", theme.dim()),
        };
        // Said whole, wrapped: an error cut at the edge would lose what to do.
        frame.render_widget(
            Paragraph::new(Line::from(text))
                .wrap(ratatui::widgets::Wrap { trim: true })
                .block(block),
            area,
        );
        return;
    };
    if page.visitors.is_empty() {
        let text = match table.offered_range() {
            Some(crate::tui::app::DateRange::Custom {
                from: Some(from),
                to: Some(to),
            }) => format!(
                "no visits in this range; views run from {} to {} (UTC, the end excluded): f offers those dates",
                DateParam::shown(Some(from), ""),
                DateParam::shown(Some(to), "")
            ),
            _ => "no visits in this range: f changes the dates".to_owned(),
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim()))
                .wrap(ratatui::widgets::Wrap { trim: true })
                .block(block),
            area,
        );
        return;
    }
    const PATH_MIN: usize = 16;
    let bar_width: u16 = if area.width >= 110 { 30 } else { 12 };
    let room = usize::from(area.width).saturating_sub(PATH_MIN + 4 + usize::from(bar_width));
    let (widths, compact) = number_columns(&page.visitors, room);
    // The feedback of the range, once known: its columns take what the path can spare.
    let feedback = table.feedback.of_range(&thumbs::shown_query(table));
    let of_row =
        |row: &crate::api::PathVisitors| (feedback.and_then(|f| f.of(&row.path)), row.human);
    let thumbs = match feedback {
        Some(_) => thumbs::ThumbColumns::fit(
            page.visitors.iter().map(of_row),
            room.saturating_sub(widths.iter().map(|w| usize::from(*w)).sum()),
            false,
            cx,
        ),
        None => thumbs::ThumbColumns::default(),
    };
    let path_width = usize::from(area.width)
        .saturating_sub(4 + usize::from(bar_width) + usize::from(thumbs.used()))
        .saturating_sub(widths.iter().map(|w| usize::from(*w)).sum());
    let scale = table
        .bar_scale()
        .unwrap_or(BarScale::Total(page.totals.total));
    let n = |v: u64| {
        if compact {
            compact_count(v)
        } else {
            thousands(v)
        }
    };
    let mut columns = vec![
        Column::new(
            "PATH",
            Constraint::Min(u16::try_from(PATH_MIN).unwrap_or(16)),
        )
        .keep_end(),
        Column::new("HUMAN", Constraint::Length(widths[0])).right(),
        Column::new("AI", Constraint::Length(widths[1])).right(),
        Column::new("TOTAL", Constraint::Length(widths[2])).right(),
    ];
    columns.extend(thumbs.columns(|_| None));
    columns.push(Column::new(
        bar_header(scale, bar_width),
        Constraint::Length(bar_width),
    ));
    let look = Look {
        block,
        header: theme.dim(),
        selected: theme.selected(),
        more_marker: Some(theme.dim()),
    };
    table::draw(
        frame,
        area,
        &columns,
        look,
        (table.selected, page.visitors.len()),
        state,
        |i| {
            let row = &page.visitors[i];
            let mark = if table.marks.contains(&row.path) {
                Span::styled("● ", theme.accent())
            } else if table.marks.is_empty() {
                Span::raw("")
            } else {
                Span::raw("  ")
            };
            let path = if table.marks.is_empty() {
                path_cell(&row.path, path_width)
            } else {
                path_cell(&row.path, path_width.saturating_sub(2))
            };
            let mut cells = vec![
                Line::from(vec![mark, Span::raw(path)]),
                Line::from(n(row.human)),
                Line::from(n(row.ai)),
                Line::from(n(row.total)),
            ];
            cells.extend(thumbs.cells(of_row(row)));
            cells.push(bar(row, scale.value(), bar_width, cx));
            cells
        },
    );
}

/// The footer's key hints, longest first, with the keys in force: those of the whole
/// range read (sort, filter) or of the service's pages.
fn footer_hints(keys: super::hints::Hints<'_>, whole: bool) -> Vec<String> {
    use crate::tui::keymap::Action;
    let join = super::hints::join;
    let mark = || keys.one(Action::Mark, "mark");
    let help = || keys.one(Action::Help, "keys");
    if whole {
        let sort = || keys.one(Action::SortNext, "sort");
        let filter = || keys.one(Action::Search, "filter");
        let pages = || keys.one(Action::WholeRange, "pages");
        return vec![
            join(vec![
                sort(),
                keys.one(Action::SortReverse, "reverse"),
                filter(),
                mark(),
                pages(),
            ]),
            join(vec![sort(), filter(), pages()]),
            join(vec![help()]),
            String::new(),
        ];
    }
    let page = || keys.pair(Action::NextPage, Action::PrevPage, "page");
    let chart = || keys.one(Action::ToggleChart, "chart");
    let compare = || keys.one(Action::Compare, "compare");
    let whole = || keys.one(Action::WholeRange, "whole");
    vec![
        join(vec![
            page(),
            mark(),
            chart(),
            compare(),
            whole(),
            keys.one(Action::Filter, "dates"),
            keys.one(Action::Export, "export"),
        ]),
        join(vec![page(), mark(), chart(), compare(), whole()]),
        join(vec![mark(), chart(), compare()]),
        join(vec![help()]),
        String::new(),
    ]
}

/// `3 marked (n: job)`, with the key that makes the job in force.
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
    let whole = table.whole.table();
    match (whole, table.load().shown()) {
        (Some(whole), _) => spans.push(Span::styled(
            format!(
                "whole range · {} of {} rows",
                thousands(whole.arrangement.len() as u64),
                thousands(whole.rows.len() as u64)
            ),
            theme.bold(),
        )),
        (None, Some(shown)) => {
            // "more" names the key that shows it: a bare "more" said nothing to do.
            let next = app.keymap().key_or_name(
                crate::tui::keymap::KeyContext::Visitors,
                crate::tui::keymap::Action::NextPage,
            );
            spans.push(Span::styled(
                shown.page.position(query, &next),
                theme.bold(),
            ));
            spans.push(Span::styled(
                format!(" · {} per page", table.limit),
                theme.dim(),
            ));
        }
        (None, None) => {}
    }
    let keys = super::hints::Hints::new(app.keymap(), crate::tui::keymap::KeyContext::Visitors);
    if !table.marks.is_empty() {
        spans.push(Span::styled(
            keys.marked(table.marks.len(), app.config.read_only),
            theme.accent(),
        ));
    }
    spans.extend(whole::state_span(&table.whole, theme));
    spans.extend(thumbs::footer_span(table, query, cx));
    if table.load().is_fetching() {
        spans.push(Span::styled(" · loading…", theme.warning()));
    }
    if let (Some(error), Some(_)) = (table.load().error(), table.load().shown()) {
        spans.push(Span::styled(
            format!(" · {}", sanitize(error)),
            theme.error(),
        ));
    }
    // While a page is open only Esc and the moves work: the table's keys wait.
    let hints = if table.page.is_some() {
        use crate::tui::keymap::Action;
        let back = keys.one(Action::Close, "back to the table");
        let scroll = keys.pair(Action::Down, Action::Up, "scroll");
        vec![
            super::hints::join([back.clone(), scroll]),
            super::hints::join([back]),
        ]
    } else {
        footer_hints(keys, whole.is_some())
    };
    super::hints::draw_footer(frame, area, &spans, &hints, theme.dim());
}

#[cfg(test)]
mod tests {
    use super::*;

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
