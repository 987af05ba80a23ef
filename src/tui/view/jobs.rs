//! The jobs pane: one row per tracked job, columns chosen by the width available.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, Wrap};

use super::ViewContext;
use super::wrap::fit;
use crate::text::{age, sanitize};
use crate::tui::app::short_id;
use crate::tui::app::{App, JobRow, unsure_submission};

/// Widths from which more columns are shown: the model, then the whole PR link.
const WIDE: u16 = 110;
const WIDEST: u16 = 170;

pub fn draw(frame: &mut Frame<'_>, area: Rect, app: &App, cx: &ViewContext) {
    let list = &app.jobs;
    let tracked = list.tracked_count();
    let title = match list.rows.len() - tracked {
        0 => format!(" Jobs · {tracked} tracked · newest first "),
        n => format!(" Jobs · {tracked} tracked · {n} of unknown outcome · newest first "),
    };
    let mut block = Block::default()
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
    let below = list.rows.len().saturating_sub(offset + visible);
    if let Some(marker) = more_marker(offset, below) {
        block = block.title(Line::from(Span::styled(marker, cx.theme.dim())).right_aligned());
    }
    let fixed: u16 = if wide {
        12 + 12 + 4 + 18 + 26 + if widest { 44 } else { 6 } + 6
    } else {
        12 + 12 + 4 + 16 + 6 + 5
    };
    let prompt_width = usize::from(area.width.saturating_sub(fixed));
    let rows: Vec<Row<'_>> = list.rows[offset..list.rows.len().min(offset + visible)]
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let r = job_row(row, (wide, widest), prompt_width, cx);
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

/// ` ↑ 3 more · ↓ 12 more `: rows the window does not show, above and below.
fn more_marker(above: usize, below: usize) -> Option<String> {
    match (above, below) {
        (0, 0) => None,
        (0, b) => Some(format!(" ↓ {b} more ")),
        (a, 0) => Some(format!(" ↑ {a} more ")),
        (a, b) => Some(format!(" ↑ {a} more · ↓ {b} more ")),
    }
}

fn job_row<'a>(
    row: &'a JobRow,
    (wide, widest): (bool, bool),
    prompt_width: usize,
    cx: &ViewContext,
) -> Row<'a> {
    if unsure_submission(&row.id).is_some() {
        return unsure_row(row, wide, prompt_width, cx);
    }
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
    let mut prompt_width = prompt_width;
    if row.problem.is_some() {
        prompt.push(Span::styled("⚠ ", cx.theme.warning()));
        prompt_width = prompt_width.saturating_sub(2);
    }
    prompt.push(Span::raw(fit(
        &row.first_prompt
            .as_deref()
            .map_or_else(|| "(prompt not sent from here)".to_owned(), sanitize),
        prompt_width,
    )));
    let mut cells = vec![
        Cell::from(Span::styled(fit(&status, 12), style)),
        Cell::from(short_id(&row.id)),
        Cell::from(when),
    ];
    if wide {
        cells.push(Cell::from(fit(
            &job.and_then(|j| j.model.as_deref())
                .map_or("-".to_owned(), sanitize),
            18,
        )));
    }
    cells.push(Cell::from(fit(
        &format!("{repo}{git_ref}"),
        if wide { 26 } else { 16 },
    )));
    cells.push(Cell::from(fit(&pr, if widest { 44 } else { 6 })));
    cells.push(Cell::from(Line::from(prompt)));
    Row::new(cells)
}

/// A new-job prompt whose send got no answer: "? unknown outcome", its age and prompt,
/// until `x` dismisses it or `a` tracks the job it made.
fn unsure_row<'a>(row: &'a JobRow, wide: bool, prompt_width: usize, cx: &ViewContext) -> Row<'a> {
    let when = row
        .seen_at
        .map_or_else(|| "-".to_owned(), |at| age(cx.wall - at));
    let mut cells = vec![
        Cell::from(Span::styled("? unknown", cx.theme.warning())),
        Cell::from(Span::styled("outcome", cx.theme.warning())),
        Cell::from(when),
    ];
    if wide {
        cells.push(Cell::from("-"));
    }
    cells.push(Cell::from("-"));
    cells.push(Cell::from("-"));
    cells.push(Cell::from(fit(
        &row.first_prompt
            .as_deref()
            .map(sanitize)
            .unwrap_or_default(),
        prompt_width,
    )));
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
