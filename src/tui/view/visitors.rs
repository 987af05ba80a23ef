//! The visitors pane: totals, the page of rows with a human/AI bar per row, and paging.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table};

use super::{ViewContext, thousands};
use crate::api::{DateParam, VisitorsQuery};
use crate::text::sanitize;
use crate::tui::app::App;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let table = &app.visitors;
    let [strip, rows_area, footer] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Min(3),
        Constraint::Length(1),
    ])
    .areas(area);
    let query = table
        .shown
        .clone()
        .unwrap_or_else(|| table.query(cx.wall.date_naive()));
    draw_strip(frame, strip, app, &query, cx);
    draw_rows(frame, rows_area, app, cx);
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

fn draw_strip(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    query: &VisitorsQuery,
    cx: &ViewContext,
) {
    let theme = cx.theme;
    let table = &app.visitors;
    let range = format!(
        " {} · {} → {} (dateTo exclusive)",
        table.range.label(),
        date(query.date_from, "the start"),
        date(query.date_to, "now")
    );
    let totals = match &table.page {
        Some(page) => {
            let t = page.totals;
            let share = t.ai_share();
            Line::from(vec![
                Span::raw(" "),
                Span::styled(format!("█ human {}", thousands(t.human)), theme.human()),
                Span::raw("   "),
                Span::styled(format!("░ AI {}", thousands(t.ai)), theme.ai()),
                Span::raw("   "),
                Span::styled(format!("total {}", thousands(t.total)), theme.bold()),
                Span::raw(format!("   AI share {share:.1}%")),
                Span::styled("  (unique visitors)", theme.dim()),
            ])
        }
        None => Line::from(Span::styled(" no data yet", theme.dim())),
    };
    let lines = vec![Line::from(Span::styled(range, theme.accent())), totals];
    frame.render_widget(Paragraph::new(lines), area);
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
    let bar_width: u16 = if area.width >= 110 { 30 } else { 12 };
    let visible = usize::from(area.height.saturating_sub(2)).max(1);
    let offset =
        crate::tui::app::scroll_window(&table.window, table.selected, visible, page.visitors.len());
    let shown = &page.visitors[offset..page.visitors.len().min(offset + visible)];
    // Bars share one scale across the rows on screen: the largest human + AI among them.
    let scale = shown
        .iter()
        .map(|r| r.human.saturating_add(r.ai))
        .max()
        .unwrap_or(0)
        .max(1);
    let rows: Vec<Row<'_>> = shown
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let cells = vec![
                Cell::from(sanitize(&row.path)),
                Cell::from(Line::from(thousands(row.human)).right_aligned()),
                Cell::from(Line::from(thousands(row.ai)).right_aligned()),
                Cell::from(Line::from(thousands(row.total)).right_aligned()),
                Cell::from(bar(row.human, row.ai, scale, bar_width, cx)),
            ];
            let r = Row::new(cells);
            if offset + i == table.selected {
                r.style(theme.selected())
            } else {
                r
            }
        })
        .collect();
    let widths = [
        Constraint::Min(20),
        Constraint::Length(8),
        Constraint::Length(8),
        Constraint::Length(8),
        Constraint::Length(bar_width),
    ];
    let header = Row::new(vec![
        Cell::from("PATH"),
        Cell::from(Line::from("HUMAN").right_aligned()),
        Cell::from(Line::from("AI").right_aligned()),
        Cell::from(Line::from("TOTAL").right_aligned()),
        Cell::from("█ human ░ AI"),
    ])
    .style(theme.dim());
    frame.render_widget(
        Table::new(rows, widths)
            .header(header)
            .column_spacing(1)
            .block(block),
        area,
    );
}

/// A stacked bar: human then AI, on the scale of the largest row shown.
fn bar(human: u64, ai: u64, scale: u64, width: u16, cx: &ViewContext) -> Line<'static> {
    // In u128: counts come from the service, and any u64 times the width must not overflow.
    let cells = u128::from(width);
    let scale = u128::from(scale.max(1));
    let human_cells = (u128::from(human) * cells).div_ceil(scale).min(cells);
    let ai_cells = (u128::from(ai) * cells)
        .div_ceil(scale)
        .min(cells - human_cells);
    let n = |c: u128| usize::try_from(c).unwrap_or(0);
    Line::from(vec![
        Span::styled("█".repeat(n(human_cells)), cx.theme.human()),
        Span::styled("░".repeat(n(ai_cells)), cx.theme.ai()),
    ])
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
    match &table.export {
        Some(export) => spans.push(Span::styled(
            format!(
                " · exporting to {}: {} rows, {} pages (e cancels)",
                sanitize(&export.path.display().to_string()),
                export.rows,
                export.pages
            ),
            theme.warning(),
        )),
        None => spans.push(Span::styled(
            " · n/p page · f dates · +/- size · e export",
            theme.dim(),
        )),
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
