//! The jobs pane: one row per tracked job, columns chosen by the width available.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

use super::ViewContext;
use crate::text::{age, sanitize};
use crate::tui::app::short_id;
use crate::tui::app::{App, JobRow};

/// Widths from which more columns are shown: the model, then the whole PR link.
const WIDE: u16 = 110;
const WIDEST: u16 = 170;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let list = &app.jobs;
    let title = format!(" Jobs · {} tracked · newest first ", list.rows.len());
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(title, cx.theme.bold()));
    if list.rows.is_empty() {
        let hint = if app.config.read_only {
            "No tracked jobs. `a` tracks an existing job by its id."
        } else {
            "No tracked jobs yet. `n` writes a prompt for a new job; `a` tracks an existing job by its id."
        };
        frame.render_widget(
            Paragraph::new(hint).block(block).wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let wide = area.width >= WIDE;
    let widest = area.width >= WIDEST;
    // Only the rows that fit are laid out; the window follows the cursor.
    let visible = usize::from(area.height.saturating_sub(2)).max(1);
    let selected = list.selected_index().unwrap_or(0);
    let offset = list.window(selected, visible);
    let rows: Vec<Row<'_>> = list.rows[offset..list.rows.len().min(offset + visible)]
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let r = job_row(row, wide, widest, cx);
            if offset + i == selected {
                r.style(cx.theme.selected())
            } else {
                r
            }
        })
        .collect();
    let header: Vec<&str> = if wide {
        vec![
            "STATUS",
            "ID",
            "AGE",
            "MODEL",
            "REPOSITORY@REF",
            "PR",
            "PROMPT",
        ]
    } else {
        vec!["STATUS", "ID", "AGE", "REPO@REF", "PR", "PROMPT"]
    };
    let widths: Vec<Constraint> = if wide {
        vec![
            Constraint::Length(12),
            Constraint::Length(12),
            Constraint::Length(4),
            Constraint::Length(18),
            Constraint::Length(26),
            Constraint::Length(if widest { 44 } else { 6 }),
            Constraint::Min(10),
        ]
    } else {
        vec![
            Constraint::Length(12),
            Constraint::Length(12),
            Constraint::Length(4),
            Constraint::Length(16),
            Constraint::Length(6),
            Constraint::Min(10),
        ]
    };
    let table = Table::new(rows, widths)
        .header(Row::new(header).style(cx.theme.dim()))
        .column_spacing(1)
        .block(block);
    frame.render_widget(table, area);
}

fn job_row<'a>(row: &'a JobRow, wide: bool, widest: bool, cx: &ViewContext) -> Row<'a> {
    let (status, style) = cx.theme.status(row.status());
    let job = row.job.as_ref();
    let when = job
        .and_then(|j| j.created_at)
        .map_or_else(|| "-".to_owned(), |at| age(cx.wall - at));
    let source = job.and_then(|j| j.source.as_ref());
    let repo = source
        .and_then(|s| s.repository.as_deref())
        .map_or("-".to_owned(), |r| sanitize(short_repo(r, wide)));
    let git_ref = source
        .and_then(|s| s.git_ref.as_deref())
        .map_or(String::new(), |r| format!("@{}", sanitize(r)));
    let pr = row.pr_link().map_or_else(
        || "-".to_owned(),
        |link| {
            if widest {
                sanitize(link)
            } else {
                pr_number(link)
            }
        },
    );
    let mut prompt = Vec::new();
    if row.problem.is_some() {
        prompt.push(Span::styled("⚠ ", cx.theme.warning()));
    }
    prompt.push(Span::raw(
        row.first_prompt
            .as_deref()
            .map_or_else(|| "(prompt not sent from here)".to_owned(), sanitize),
    ));
    let mut cells = vec![
        Cell::from(Span::styled(status, style)),
        Cell::from(short_id(&row.id)),
        Cell::from(when),
    ];
    if wide {
        cells.push(Cell::from(
            job.and_then(|j| j.model.as_deref())
                .map_or("-".to_owned(), sanitize),
        ));
    }
    cells.push(Cell::from(format!("{repo}{git_ref}")));
    cells.push(Cell::from(pr));
    cells.push(Cell::from(Line::from(prompt)));
    Row::new(cells)
}

/// `owner/name` of a repository URL (the host says little in a narrow column).
fn short_repo(repository: &str, wide: bool) -> &str {
    let trimmed = repository.trim_end_matches('/').trim_end_matches(".git");
    if wide {
        return trimmed.split_once("://").map_or(trimmed, |(_, rest)| rest);
    }
    let mut parts = trimmed.rsplitn(3, '/');
    match (parts.next(), parts.next()) {
        (Some(name), Some(owner)) => {
            let start = trimmed.len() - name.len() - owner.len() - 1;
            &trimmed[start..]
        }
        _ => trimmed,
    }
}

/// `#123` for a pull-request link ending in a number, else `link`.
fn pr_number(link: &str) -> String {
    let last = link
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or_default();
    if !last.is_empty() && last.chars().all(|c| c.is_ascii_digit()) && last.len() <= 5 {
        format!("#{last}")
    } else {
        "link".to_owned()
    }
}
