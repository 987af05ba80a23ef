//! The jobs pane: one row per tracked job, columns chosen by the width available.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::ViewContext;
use super::table::{self, Column, Look, TableState};
use super::wrap::fit;
use crate::text::{age, sanitize};
use crate::tui::app::short_id;
use crate::tui::app::{App, JobRow, unsure_submission};
use crate::tui::keymap::{Action, KeyContext};

/// Widths from which more columns are shown: the model, then the whole PR link.
const WIDE: u16 = 110;
const WIDEST: u16 = 170;

/// What to do with no jobs, with the keys in force.
fn empty_hint(app: &App) -> String {
    let keys = super::hints::Hints::new(app.keymap(), KeyContext::Jobs);
    let new = keys
        .key(Action::NewJob)
        .filter(|_| !app.config.read_only)
        .map(|key| format!(" `{key}` writes a prompt for a new job."));
    let track = keys
        .key(Action::Track)
        .map(|key| format!(" `{key}` tracks an existing job by its id."));
    let empty = if app.config.read_only {
        "No tracked jobs."
    } else {
        "No tracked jobs yet."
    };
    format!(
        "{empty}{}{}",
        new.unwrap_or_default(),
        track.unwrap_or_default()
    )
}

pub fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    app: &App,
    cx: &ViewContext,
    state: &mut TableState,
) {
    let list = &app.jobs;
    let tracked = list.tracked_count();
    let title = match list.rows.len() - tracked {
        0 => format!(" Jobs · {tracked} tracked · newest first "),
        n => format!(" Jobs · {tracked} tracked · {n} of unknown outcome · newest first "),
    };
    let block = Block::default()
        .borders(Borders::TOP)
        .title(Span::styled(title, cx.theme.bold()));
    if list.rows.is_empty() {
        let hint = empty_hint(app);
        frame.render_widget(
            Paragraph::new(hint).block(block).wrap(Wrap { trim: true }),
            area,
        );
        return;
    }
    let wide = area.width >= WIDE;
    let widest = area.width >= WIDEST;
    let columns = columns(wide, widest);
    let fixed: u16 = if wide {
        12 + 12 + 4 + 18 + 26 + if widest { 44 } else { 6 } + 6
    } else {
        12 + 12 + 4 + 16 + 6 + 5
    };
    let prompt_width = usize::from(area.width.saturating_sub(fixed));
    let look = Look {
        block,
        header: cx.theme.dim(),
        selected: cx.theme.selected(),
        more_marker: Some(cx.theme.dim()),
    };
    let selected = list.selected_index().unwrap_or(0);
    table::draw(
        frame,
        area,
        &columns,
        look,
        (selected, list.rows.len()),
        state,
        |i| job_row(&list.rows[i], (wide, widest), prompt_width, cx),
    );
}

/// The columns for the width: the model from `WIDE`, the whole PR link from `WIDEST`.
fn columns(wide: bool, widest: bool) -> Vec<Column<'static>> {
    let mut columns = vec![
        Column::new("STATUS", Constraint::Length(12)),
        Column::new("ID", Constraint::Length(12)),
        Column::new("AGE", Constraint::Length(4)),
    ];
    if wide {
        columns.push(Column::new("MODEL", Constraint::Length(18)));
        columns.push(Column::new("REPOSITORY@REF", Constraint::Length(26)));
        columns.push(Column::new(
            "PR",
            Constraint::Length(if widest { 44 } else { 6 }),
        ));
    } else {
        columns.push(Column::new("REPO@REF", Constraint::Length(16)));
        columns.push(Column::new("PR", Constraint::Length(6)));
    }
    columns.push(Column::new("PROMPT", Constraint::Min(10)));
    columns
}

/// The cells of one job's row.
fn job_row(
    row: &JobRow,
    (wide, widest): (bool, bool),
    prompt_width: usize,
    cx: &ViewContext,
) -> Vec<Line<'static>> {
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
        Line::from(Span::styled(fit(&status, 12), style)),
        Line::from(short_id(&row.id)),
        Line::from(when),
    ];
    if wide {
        cells.push(Line::from(fit(
            &job.and_then(|j| j.model.as_deref())
                .map_or("-".to_owned(), sanitize),
            18,
        )));
    }
    cells.push(Line::from(fit(
        &format!("{repo}{git_ref}"),
        if wide { 26 } else { 16 },
    )));
    cells.push(Line::from(fit(&pr, if widest { 44 } else { 6 })));
    cells.push(Line::from(prompt));
    cells
}

/// A new-job prompt whose send got no answer: "? unknown outcome", its age and prompt,
/// until `x` dismisses it or `a` tracks the job it made.
fn unsure_row(
    row: &JobRow,
    wide: bool,
    prompt_width: usize,
    cx: &ViewContext,
) -> Vec<Line<'static>> {
    let when = row
        .seen_at
        .map_or_else(|| "-".to_owned(), |at| age(cx.wall - at));
    let mut cells = vec![
        Line::from(Span::styled("? unknown", cx.theme.warning())),
        Line::from(Span::styled("outcome", cx.theme.warning())),
        Line::from(when),
    ];
    if wide {
        cells.push(Line::from("-"));
    }
    cells.push(Line::from("-"));
    cells.push(Line::from("-"));
    cells.push(Line::from(fit(
        &row.first_prompt
            .as_deref()
            .map(sanitize)
            .unwrap_or_default(),
        prompt_width,
    )));
    cells
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
