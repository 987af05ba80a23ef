//! The visitors table when the whole range is read: every row, sorted by the column the
//! user chose (its header carries the arrow) and filtered by path as typed (the filter
//! and "3 of 120" in the title), with each row's change while comparing and its 👍, 👎
//! and 👎 per 1,000 human visitors once the range's feedback is known.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::super::table::{
    self, Column, Look, TableState, direction_of, filter_title, sorted_header,
};
use super::super::{ViewContext, thousands};
use super::cells::{bar, compact_count, number_columns, path_cell};
use super::thumbs::ThumbColumns;
use crate::api::PathVisitors;
use crate::insight::compare::{change_text, share_text};
use crate::insight::{ComparedRow, SortKey};
use crate::tui::app::{App, VisitorsColumn, WholeRow, WholeTable};

const PATH_MIN: u16 = 16;

pub(super) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    whole: &WholeTable,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let theme = cx.theme;
    let list = &whole.arrangement;
    let mut block = Block::default().borders(Borders::TOP).title(Span::styled(
        format!(
            " whole range · {} rows ",
            thousands(whole.rows.len() as u64)
        ),
        theme.dim(),
    ));
    if let Some(title) = filter_title(list, theme) {
        block = block.title(title);
    }
    if list.is_empty() {
        let text = if whole.rows.is_empty() {
            "no visits in this range: f changes the dates"
        } else {
            "no path matches the filter: Backspace or Esc (while typing) widens it"
        };
        frame.render_widget(
            Paragraph::new(Span::styled(text, theme.dim())).block(block),
            area,
        );
        return;
    }
    let bar_width: u16 = if area.width >= 130 {
        20
    } else if area.width >= 100 {
        10
    } else {
        0
    };
    // Changes are never cut: with the percentages when they fit in 18 columns.
    let (change_width, percent) = change_column(whole);
    let share_width: u16 = 8;
    let fixed = PATH_MIN + bar_width + change_width + share_width + 8;
    let room = usize::from(area.width.saturating_sub(fixed));
    let widest = PathVisitors {
        path: String::new(),
        human: whole.totals.human,
        ai: whole.totals.ai,
        total: whole.totals.total,
    };
    let (widths, compact) = number_columns(std::slice::from_ref(&widest), room);
    let n = |v: u64| {
        if compact {
            compact_count(v)
        } else {
            thousands(v)
        }
    };
    let header = |title: &str, key: SortKey| {
        sorted_header(title, direction_of(list, VisitorsColumn::Visitors(key)))
    };
    let mut columns = vec![
        Column::new(header("PATH", SortKey::Path), Constraint::Min(PATH_MIN)).keep_end(),
        Column::new(
            header("HUMAN", SortKey::Human),
            Constraint::Length(widths[0] + 1),
        )
        .right(),
        Column::new(header("AI", SortKey::Ai), Constraint::Length(widths[1] + 1)).right(),
        Column::new(
            header("TOTAL", SortKey::Total),
            Constraint::Length(widths[2] + 1),
        )
        .right(),
        Column::new(
            header("AI %", SortKey::AiShare),
            Constraint::Length(share_width),
        )
        .right(),
    ];
    if whole.compared {
        columns.push(
            Column::new(
                header("CHANGE", SortKey::Change),
                Constraint::Length(change_width),
            )
            .right(),
        );
    }
    // The feedback, once known, takes what the path can spare beside the rest.
    let used = fixed_width(&columns);
    let spare = area
        .width
        .saturating_sub(used + PATH_MIN + 1 + if bar_width > 0 { bar_width + 1 } else { 0 });
    let thumbs = if whole.feedback {
        ThumbColumns::fit(
            whole.rows.iter().map(feedback_of),
            usize::from(spare),
            true,
            cx,
        )
    } else {
        ThumbColumns::default()
    };
    columns.extend(thumbs.columns(|column| direction_of(list, column)));
    let scale = (whole.rows.iter())
        .map(|r| r.visitors.now.total)
        .max()
        .unwrap_or(1);
    if bar_width > 0 {
        columns.push(Column::new("█human░AI", Constraint::Length(bar_width)));
    }
    let used = fixed_width(&columns);
    let path_width = usize::from(area.width.saturating_sub(used + 1));
    let marks = &app.visitors.marks;
    let look = Look {
        block,
        header: theme.dim(),
        selected: theme.selected(),
        more_marker: Some(theme.dim()),
    };
    let selected = list.cursor_position().unwrap_or(0);
    table::draw(
        frame,
        area,
        &columns,
        look,
        (selected, list.len()),
        state,
        |i| {
            let whole_row = &whole.rows[list.order()[i]];
            let row = &whole_row.visitors;
            let mark = if marks.contains(&row.path) {
                Span::styled("● ", theme.accent())
            } else if marks.is_empty() {
                Span::raw("")
            } else {
                Span::raw("  ")
            };
            let room = if marks.is_empty() {
                path_width
            } else {
                path_width.saturating_sub(2)
            };
            let mut cells = vec![
                Line::from(vec![mark, Span::raw(path_cell(&row.path, room))]),
                Line::from(n(row.now.human)),
                Line::from(n(row.now.ai)),
                Line::from(n(row.now.total)),
                Line::from(share_text(row.now)),
            ];
            if whole.compared {
                cells.push(change_cell(row, percent, cx));
            }
            cells.extend(thumbs.cells(feedback_of(whole_row)));
            if bar_width > 0 {
                cells.push(bar(&row.as_path_visitors(), scale, bar_width, cx));
            }
            cells
        },
    );
}

/// A read row's feedback, as its columns need it.
/// The columns after the path that have a width of their own, with the space after each.
fn fixed_width(columns: &[Column<'_>]) -> u16 {
    columns
        .iter()
        .skip(1)
        .map(|c| match c.width {
            Constraint::Length(w) => w + 1,
            _ => 0,
        })
        .sum()
}

fn feedback_of(row: &WholeRow) -> super::thumbs::Feedback {
    (row.thumbs, row.visitors.now.human)
}

/// `+12 (+5.0%)`, `-9 (gone)` for a path with no visitors now, or `new` for a path the
/// period before did not have.
fn change_cell(row: &ComparedRow, percent: bool, cx: &ViewContext) -> Line<'static> {
    if row.is_new() {
        return Line::from(Span::styled("new", cx.theme.accent()));
    }

    Line::from(change_text(row.total_change(), percent))
}

/// The change column's width (0 without a comparison), and whether it says percentages:
/// as wide as its widest cell, without them when that would take more than 18 columns.
fn change_column(whole: &WholeTable) -> (u16, bool) {
    if !whole.compared {
        return (0, false);
    }
    let widest = |percent: bool| {
        whole
            .rows
            .iter()
            .map(|r| {
                change_text(r.visitors.total_change(), percent)
                    .chars()
                    .count()
            })
            .max()
            .unwrap_or(0)
            .max("CHANGE▼".chars().count())
    };
    let with = widest(true);
    let (width, percent) = if with <= 18 {
        (with, true)
    } else {
        (widest(false), false)
    };
    (u16::try_from(width).unwrap_or(u16::MAX), percent)
}
